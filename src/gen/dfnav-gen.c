/* dfnav-gen: writes synthetic DLIO-benchmark-like DFTracer traces and the
 * ground truth that dfnav's tests compare against.
 *
 * This file owns the whole generator: the workload model (ranks, forked
 * data-loader workers, epochs, steps, sample reads, checkpoints), the line
 * format of every trace era, plain and gzip output, and the truth CSV.
 *
 * Every byte of output is a pure function of the options. Each rank has two
 * PRNG streams: one drives the workload, the other only formatting choices
 * (late metadata, trailing commas). So the era, the compression and the
 * placement of metadata never change the events, and the truth file of a
 * seed is the same in every era.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* Constant tables                                                     */
/* ------------------------------------------------------------------ */

#define T_BASE 1744611912000000ULL /* Mon Apr 14 2025 06:25:12 UTC, in us */
#define T_MAX 4102444800000000ULL  /* --start-us limit: Jan 1 2100, well below 2^53 */
#define MAXSPLIT 64                /* --ckpt-write-split limit */
#define PID_BASE 1000000ULL
#define NLANES 3          /* main thread + 2 forked data-loader workers */
#define MAXDEPTH 16
#define NPOOL 168         /* sample files in the data set */
#define BATCH 4           /* samples per step */
#define LINE_RESERVE 4096 /* room reserved for one event line */
#define TEXT_SLACK 65536  /* buffer room above the flush threshold */
/* --prefetch: compute per step (us) and the divisor of the sample read
 * bandwidth. Six times the default compute, so that hidden reads weigh
 * against the checkpoint writes (always exposed, most of a process's I/O
 * time), and reads slowed so that a batch takes about as long as a step's
 * compute: about half the batches finish under it, the rest run past. */
#define PF_CPU_LO 108000
#define PF_CPU_HI 156000
#define PF_SLOW 24

enum era { ERA_V0, ERA_QUOTED, ERA_INLINE, ERA_HASH16, ERA_HEX, ERA_U64, ERA_NEWEST, ERA_V2 };
static const char *const era_names[] = {"v0", "quoted", "inline", "hash16", "hex", "u64", "newest",
                                        "v2"};
#define NERA ((int)(sizeof era_names / sizeof era_names[0]))

enum gzmode { GZ_NONE, GZ_SINGLE, GZ_MEMBERS };
static const char *const gz_names[] = {"none", "single", "members"};

/* --ckpt-fs: where checkpoints go */
enum ckptfs { CKFS_BOTH, CKFS_LUSTRE, CKFS_SSD };
static const char *const ckfs_names[] = {"both", "lustre", "ssd"};

/* The last four are the categories of DLIO's AI logging (--ai-logging). */
enum cat_id { C_DFTRACER, C_DLIO, C_STORAGE, C_CONFIG, C_CKPT, C_LOADER, C_READER, C_AI,
              C_POSIX, C_STDIO, C_PIPELINE, C_COMPUTE, C_DATALOADER, C_DATA, NCAT };
static const char *const cat_names[NCAT] = {
    "dftracer", "dlio_benchmark", "storage", "config", "checkpoint",
    "data_loader", "reader", "ai_framework", "POSIX", "STDIO",
    "pipeline", "compute", "dataloader", "data"};
/* The numeric "type" (instrumentation layer) the newest and the 2.x tracers
 * write, in DFTracer 2.x's numbering: 1 DFTRACER, 3 LIBC_IO, 6 PYTHON. */
#define NTYPE 12
static const char *const type_names[NTYPE] = {
    "UNKNOWN", "DFTRACER", "C_APP", "LIBC_IO", "HIP", "HDF5", "PYTHON", "PSUTIL",
    "FINSTRUMENT", "CPP_APP", "MPI", "CUDA"};
static const unsigned cat_type[NCAT] = {1, 6, 6, 6, 6, 6, 6, 6, 3, 3, 6, 6, 6, 6};

enum io_class { K_READ, K_WRITE, K_METADATA, K_SYNC, K_PROCESS, K_IPC, K_OTHER, NCLASS };
static const char *const class_names[NCLASS] = {
    "read", "write", "metadata", "sync", "process", "ipc", "other"};

enum layer_id { L_APP, L_TRAINING, L_COMPUTE, L_FETCH, L_LOADER, L_FORK, L_READER,
                L_RPOSIX, L_RPOSIX_LUSTRE, L_RPOSIX_SSD, L_CKPT, L_CPOSIX,
                L_CPOSIX_LUSTRE, L_CPOSIX_SSD, L_OTHER_POSIX, L_OTHER, L_EPOCH, NLAYER };
/* L_EPOCH exists only in the AI-logging preset (--ai-logging), between
 * training and compute; see layer_order(). */
static const char *const layer_names[NLAYER] = {
    "app", "training", "compute", "fetch_data", "data_loader", "data_loader_fork",
    "reader", "reader_posix", "reader_posix_lustre", "reader_posix_ssd",
    "checkpoint", "checkpoint_posix", "checkpoint_posix_lustre", "checkpoint_posix_ssd",
    "other_posix", "other", "epoch"};
#define LBIT(l) (1u << (l))

#define NBIN 12
static const char *const bin_names[NBIN] = {
    "<=4KiB", "4-16KiB", "16-64KiB", "64-256KiB", "256KiB-1MiB", "1-4MiB",
    "4-16MiB", "16-64MiB", "64-256MiB", "256MiB-1GiB", "1-4GiB", ">4GiB"};

/* How the bytes moved by a call are derived from its args. */
enum bytes_kind { B_NONE, B_RET, B_SIZE_RET };

/* Which args an event carries, in the order real tracers write them. */
enum arg_kind { A_NONE, A_START, A_END, A_EPOCH, A_STEP, A_CKPT, A_PATH, A_MKDIR,
                A_OPEN, A_RWOFF, A_RW, A_LSEEK, A_FD, A_FORK, A_FOPEN, A_FRW, A_FCLOSE };

enum func_id {
    F_START, F_END, F_INIT, F_VALIDATE, F_RUN, F_TRAIN, F_WALK, F_GETNODE, F_CKPT_INIT,
    F_GETITEM, F_READIDX, F_ITER, F_YIELD, F_COMPUTE, F_SAVECKPT, F_FINALIZE,
    F_FORK, F_OPENDIR, F_XSTAT, F_OPEN64, F_PREAD64, F_READ, F_LSEEK64, F_CLOSE,
    F_MKDIR, F_WRITE, F_PWRITE64, F_FSYNC, F_FOPEN, F_FREAD, F_FWRITE, F_FCLOSE, NFUNC
};

typedef struct {
    const char *name;
    unsigned char cat, cls, bytes, args;
} funcdef;

/* The I/O class follows the table of analysis.md by function name. */
static const funcdef funcs[NFUNC] = {
    [F_START] = {"start", C_DFTRACER, K_OTHER, B_NONE, A_START},
    [F_END] = {"end", C_DFTRACER, K_OTHER, B_NONE, A_END},
    [F_INIT] = {"DLIOBenchmark.__init__", C_DLIO, K_OTHER, B_NONE, A_NONE},
    [F_VALIDATE] = {"ConfigArguments.validate", C_CONFIG, K_OTHER, B_NONE, A_NONE},
    [F_RUN] = {"DLIOBenchmark.run", C_DLIO, K_OTHER, B_NONE, A_EPOCH},
    [F_TRAIN] = {"DLIOBenchmark._train", C_DLIO, K_OTHER, B_NONE, A_EPOCH},
    [F_WALK] = {"FileStorage.walk_node", C_STORAGE, K_OTHER, B_NONE, A_NONE},
    [F_GETNODE] = {"FileStorage.get_node", C_STORAGE, K_OTHER, B_NONE, A_NONE},
    [F_CKPT_INIT] = {"PyTorchCheckpointing.__init__", C_CKPT, K_OTHER, B_NONE, A_NONE},
    [F_GETITEM] = {"TorchDataset.__getitem__", C_LOADER, K_OTHER, B_NONE, A_STEP},
    [F_READIDX] = {"HDF5Reader.read_index", C_READER, K_OTHER, B_NONE, A_STEP},
    [F_ITER] = {"loop.iter", C_LOADER, K_OTHER, B_NONE, A_STEP},
    [F_YIELD] = {"loop.yield", C_LOADER, K_OTHER, B_NONE, A_STEP},
    [F_COMPUTE] = {"TorchFramework.compute", C_AI, K_OTHER, B_NONE, A_EPOCH},
    [F_SAVECKPT] = {"PyTorchCheckpointing.save_checkpoint", C_CKPT, K_OTHER, B_NONE, A_CKPT},
    [F_FINALIZE] = {"TorchDataLoader.finalize", C_LOADER, K_OTHER, B_NONE, A_EPOCH},
    [F_FORK] = {"fork", C_POSIX, K_PROCESS, B_NONE, A_FORK},
    [F_OPENDIR] = {"opendir", C_POSIX, K_METADATA, B_NONE, A_PATH},
    [F_XSTAT] = {"__xstat64", C_POSIX, K_METADATA, B_NONE, A_PATH},
    [F_OPEN64] = {"open64", C_POSIX, K_METADATA, B_NONE, A_OPEN},
    [F_PREAD64] = {"pread64", C_POSIX, K_READ, B_RET, A_RWOFF},
    [F_READ] = {"read", C_POSIX, K_READ, B_RET, A_RW},
    [F_LSEEK64] = {"lseek64", C_POSIX, K_METADATA, B_NONE, A_LSEEK},
    [F_CLOSE] = {"close", C_POSIX, K_METADATA, B_NONE, A_FD},
    [F_MKDIR] = {"mkdir", C_POSIX, K_METADATA, B_NONE, A_MKDIR},
    [F_WRITE] = {"write", C_POSIX, K_WRITE, B_RET, A_RW},
    [F_PWRITE64] = {"pwrite64", C_POSIX, K_WRITE, B_RET, A_RWOFF},
    [F_FSYNC] = {"fsync", C_POSIX, K_SYNC, B_NONE, A_FD},
    [F_FOPEN] = {"fopen", C_STDIO, K_METADATA, B_NONE, A_FOPEN},
    [F_FREAD] = {"fread", C_STDIO, K_READ, B_SIZE_RET, A_FRW},
    [F_FWRITE] = {"fwrite", C_STDIO, K_WRITE, B_SIZE_RET, A_FRW},
    [F_FCLOSE] = {"fclose", C_STDIO, K_METADATA, B_NONE, A_FCLOSE},
};

static const char DATA_DIR[] = "/p/lustre2/dfnav/data/train";
static const char CKPT_LUSTRE[] = "/p/lustre2/dfnav/checkpoint";
static const char CKPT_SSD[] = "/l/ssd/dfnav/checkpoint";
static const char CONFIG_FILE[] = "/usr/workspace/dfnav/dlio/configs/workload/unet3d_dfnav.yaml";
static const char EXEC_NAME[] = "dlio_benchmark";
static const char CMDLINE[] =
    "/usr/workspace/dfnav/.venv/bin/python;/usr/workspace/dfnav/.venv/bin/dlio_benchmark;"
    "workload=unet3d_dfnav;++workload.dataset.data_folder=/p/lustre2/dfnav/data;"
    "++workload.checkpoint.checkpoint_folder=/p/lustre2/dfnav/checkpoint;"
    "++workload.dataset.format=hdf5;++workload.dataset.num_files_train=168;"
    "++workload.reader.read_threads=2;++workload.workflow.train=True;"
    "++workload.workflow.checkpoint=True";

/* Read sizes of the data part of a sample, weighted toward large requests. */
static const uint32_t chunk_kib[16] = {64, 128, 256, 256, 512, 512, 1024, 1024,
                                       1024, 1024, 2048, 2048, 2048, 4096, 4096, 4096};

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dfnav-gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void usage_error(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("dfnav-gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'dfnav-gen --help'.\n", stderr);
    va_end(ap);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* xoshiro256**: fast, and its output is fixed by the algorithm, not by libc. */
typedef struct {
    uint64_t s[4];
} rng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xd1b54a32d192ed03ULL;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n); the modulo bias is irrelevant for a workload model. */
static inline uint64_t rng_below(rng *r, uint64_t n) { return rng_next(r) % n; }
/* Uniform in [lo, hi]. */
static inline uint64_t rng_range(rng *r, uint64_t lo, uint64_t hi)
{
    return lo + rng_next(r) % (hi - lo + 1);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Integer to text without printf: the hot path formats ~10 numbers per line. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    char *t = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--t = digit_pairs[d + 1];
        *--t = digit_pairs[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--t = digit_pairs[d + 1];
        *--t = digit_pairs[d];
    } else {
        *--t = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - t);
    memcpy(p, t, n);
    return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static inline char *put_mem(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}
#define PUT(p, lit) put_mem((p), (lit), sizeof(lit) - 1)
/* a literal (the key) and a number */
#define PUT_I64(p, lit, v) put_i64(PUT((p), lit), (v))

static inline char *put_hex16(char *p, uint64_t v)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--)
        *p++ = hx[(v >> (i * 4)) & 15];
    return p;
}

/* ------------------------------------------------------------------ */
/* State                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    uint64_t count, time, bytes;
} agg;

static inline void agg_add(agg *a, uint64_t dur, uint64_t bytes)
{
    a->count++;
    a->time += dur;
    a->bytes += bytes;
}

typedef struct {
    uint64_t seed, events;
    int ranks, rpn, level;
    int era, gz;
    int late;         /* -1 default, 0 off, 1 on */
    int verbose;
    int prefetch;     /* workers read the next step's batch during compute */
    int ckpt_fs;      /* enum ckptfs */
    int ckpt_split;   /* calls per checkpoint data write through POSIX */
    uint64_t start;   /* run start, us since the epoch */
    const char *ckpt_func;   /* the checkpoint function's name, NULL: the table's */
    const char *outdir, *truth;
    /* era v2 only */
    int aggregate;    /* --aggregate: LIBC_IO calls folded into ph 3 records */
    uint64_t agg_us;  /* --agg-interval-us, 0: not given */
    int counters;     /* --counters: cpu and mem samples, ph 2 */
    uint64_t ctr_us;  /* --counter-interval-us, 0: not given */
    int ns;           /* --time-unit ns */
    int unit_given;   /* --time-unit was given */
    int omit_metric;  /* --omit-time-metric */
    const char *ctruth; /* --counter-truth FILE */
    /* any era */
    int ai;           /* --ai-logging: DLIO's AI-logging names and categories */
} opts;

typedef struct {
    char *str;
    uint32_t len;
    uint32_t mask; /* layer bits that depend on the path */
    uint16_t fs;   /* index into the fs prefix table */
    uint64_t hash; /* value written in hashed eras */
    char *frag;    /* ,"fhash":H or ,"fname":"PATH" */
    uint32_t fraglen;
    agg a;
} pathent;

typedef struct {
    char name[32];
    uint64_t hash;
    char frag[64]; /* "hhash":H or "hostname":"node01" */
    uint32_t fraglen;
    agg a;
} hostent;

/* One event. Fields not used by the event's arg kind stay zero. */
typedef struct {
    int func;
    uint32_t path; /* 0: no file */
    uint64_t ts, dur;
    int64_t id, pidx;
    int64_t level;
    int64_t fd, ret, count, offset, flags, mode, whence, size;
    int64_t epoch, step, img, ppid;
} ev;

typedef struct {
    uint64_t tid, now;
    int64_t next_id;
    int64_t root_pidx, root_level; /* hints for events with no parent in this lane */
    int64_t fdnext;
    ev stack[MAXDEPTH];
    int depth;
    char pt[64]; /* ,"pid":P,"tid":T in the era's quoting */
    uint32_t ptlen;
} lane;

typedef struct {
    int fd;
    const char *path;
    char *buf;
    size_t len, cap, flush_at;
    int gz;
    z_stream zs;
    int zlive;
    unsigned char *zbuf;
    size_t zcap;
} outfile;

typedef struct {
    uint32_t path;
    int lane;
    int64_t id;
} pendfh;

typedef struct {
    int rank, host;
    uint64_t pid;
    lane ln[NLANES];
    rng wr; /* workload */
    rng fr; /* format decisions only */
    outfile out;
    char *outpath;
    uint8_t *seen; /* FH line already written (or pending) for path i */
    size_t seen_cap;
    pendfh *pend;
    size_t npend, pend_cap;
    uint64_t nx;        /* ph=X events written */
    int space_first;    /* quoted era: one space before the first event */
    agg a;              /* per pid truth */
    uint64_t layer_dur[NLAYER];
    struct rktx *tx;    /* analysis truth of this process; only with --truth */
    struct aggtab *agt; /* [lane] records being folded; only with --aggregate */
    uint64_t cnext, cj; /* next counter sample: time (0: none yet) and index */
} rankst;

typedef struct {
    uint64_t s, e;
} ival;

/* Plain list of intervals: sorted and merged once, after the run. */
typedef struct {
    ival *v;
    size_t n, cap;
} ivlist;

#define NSLOT (NLAYER + 1) /* per-layer slots, then one for everything */
#define S_ALL NLAYER
#define MAXFD 64           /* lane_fd hands out 16..47 */

/* Position model of one descriptor lane, (process, fd) or (process, file). */
typedef struct {
    int64_t pos, prev_end;
    uint64_t last_ts;
    int judged; /* a judged call was seen since the last (re)open */
} dlane;

/* Running union of the children of one open frame. Children of a frame
 * close one after another in their lane, so they arrive sorted by start and
 * a single open run [rs, re) plus the closed length `cov` is exact. */
typedef struct {
    uint64_t cov, rs, re;
    uint64_t tie_end; /* end of a child that starts with the frame, 0: none */
} cover;

struct rktx {
    ivlist io[NSLOT], cpu[NSLOT];
    cover cv[NLANES][MAXDEPTH];
    dlane fdl[MAXFD];
    dlane *pl; /* STDIO streams, by path id */
    size_t plcap;
    uint64_t io_us, cpu_us, exp_us;
    unsigned layers; /* the layers this process has events in */
};

/* Truth of the analysis figures (spec of issue 4), only with --truth. */
typedef struct {
    uint8_t judged[NFUNC]; /* read-class or write-class call by name */
    uint64_t self[NFUNC];
    uint64_t seq[NSLOT], rnd[NSLOT];
    uint64_t lio[NLAYER], lcpu[NLAYER], lexp[NLAYER];
    /* by path id */
    size_t pcap;
    uint64_t *pseq, *prnd;
    int32_t *pfirst;  /* [path][slot]: first rank + 1, 0 = untouched */
    uint8_t *pshared; /* [path][slot]: touched from a second rank */
    int32_t *ppat;    /* pattern id + 1; -1: not a checkpoint path; 0: not seen */
    /* by step value */
    size_t scap;
    agg *sagg, *cagg, nostep; /* argstep, ckptstep, events without step */
    uint64_t *crk;            /* [step][rank]: checkpoint time */
    /* checkpoint path patterns */
    char **pat;
    size_t npat, patcap;
    agg *patagg; /* [pattern][func] */
    uint64_t ties; /* children with their parent's exact interval */
} truthx;

/* Union of intervals of one layer. Intervals are collected during a step
 * and folded into `total` at step boundaries; `floor` guards the invariant
 * that makes the folding exact: nothing added later starts before it. */
typedef struct {
    ival *v;
    size_t n, cap;
    uint64_t total, floor;
    int open; /* frames of this layer open in some lane: cannot fold yet */
} busyacc;

#define MAXFS 16

typedef struct {
    opts o;
    int hashed; /* era writes hhash/fhash and HH/FH metadata */
    int hints;  /* era writes p_idx and level */
    int has_id;
    int quoted;
    int late;
    /* formatting fragments */
    char *ffrag[NFUNC];
    uint32_t ffraglen[NFUNC];
    uint32_t fmask[NFUNC]; /* layer bits that depend on name/category only */
    const char *fname[NFUNC]; /* names as written (--ckpt-func, --ai-logging) */
    unsigned char fcat[NFUNC]; /* categories as written (--ai-logging) */
    int modern; /* numeric ph and a "type" field: eras newest and v2 */
    int lorder[NLAYER], nlorder; /* the preset's layers in the truth's order */
    char date[64];
    /* names */
    pathent *paths;
    size_t npaths, paths_cap; /* index 0 unused: 0 means no file */
    uint32_t *pmap;
    size_t pmap_cap;
    uint64_t *hset;
    size_t hset_cap, hset_n;
    hostent *hosts;
    int nhosts;
    char *fs_names[MAXFS];
    agg fs[MAXFS];
    int nfs;
    uint64_t cmd_hash, exec_hash;
    uint32_t pool_path[NPOOL];
    uint64_t pool_size[NPOOL];
    uint32_t data_dir, config_file, ckpt_root[2];
    /* schedule */
    int epochs, steps, ckpt_every;
    /* ranks */
    rankst *rk;
    /* truth */
    agg total, func[NFUNC], cat[NCAT], cls[NCLASS], layer[NLAYER], bin[NBIN], nofile, nofs;
    agg type[NTYPE];
    agg aggc[NFUNC];      /* calls folded into aggregated records (--aggregate) */
    uint64_t maxdur[NFUNC];
    struct ctrstat *cst;  /* [host][series] counter statistics (--counters) */
    uint64_t tmin, tmax;
    busyacc busy[NLAYER];
    truthx *tx; /* NULL without --truth: the plain run pays nothing */
} gen;

/* A function's name as written: the table's, but for --ckpt-func and
 * --ai-logging (set up by ai_names()). */
static const char *func_name(const gen *g, int f) { return g->fname[f]; }

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static void write_all(int fd, const void *data, size_t n, const char *path)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("%s: write failed: %s", path, strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

/* big: buffer size for few files; with many ranks the buffers shrink so
 * that memory stays bounded (every file is open for the whole run). */
static void out_open(outfile *o, const char *path, int gz, int level, int big)
{
    o->path = path;
    o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o->fd < 0)
        die("%s: %s", path, strerror(errno));
    o->gz = gz;
    /* members: one gzip member per ~64 KiB of text, as newer tracers do */
    o->flush_at = gz == GZ_MEMBERS ? 65536 : big ? (1u << 20) : (1u << 17);
    o->cap = o->flush_at + TEXT_SLACK;
    o->buf = xmalloc(o->cap);
    o->len = 0;
    o->zlive = 0;
    if (gz != GZ_NONE) {
        memset(&o->zs, 0, sizeof o->zs);
        /* windowBits 15+16: gzip wrapper; zlib's default header has mtime 0,
         * so the bytes do not depend on when the generator ran */
        if (deflateInit2(&o->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            die("%s: deflateInit2 failed", path);
        o->zlive = 1;
        o->zcap = big ? 1u << 18 : 1u << 15;
        o->zbuf = xmalloc(o->zcap);
    }
}

static void out_deflate(outfile *o, int flush)
{
    o->zs.next_in = (Bytef *)o->buf;
    o->zs.avail_in = (uInt)o->len;
    for (;;) {
        o->zs.next_out = o->zbuf;
        o->zs.avail_out = (uInt)o->zcap;
        int rc = deflate(&o->zs, flush);
        if (rc == Z_STREAM_ERROR)
            die("%s: deflate failed", o->path);
        size_t have = o->zcap - o->zs.avail_out;
        if (have)
            write_all(o->fd, o->zbuf, have, o->path);
        if (flush == Z_FINISH) {
            if (rc == Z_STREAM_END)
                break;
        } else if (o->zs.avail_out != 0) {
            break;
        }
    }
    o->len = 0;
}

/* Called only at line ends, so every gzip member ends at a line boundary. */
static void out_flush(outfile *o)
{
    if (o->len == 0)
        return;
    switch (o->gz) {
    case GZ_NONE:
        write_all(o->fd, o->buf, o->len, o->path);
        o->len = 0;
        break;
    case GZ_SINGLE:
        out_deflate(o, Z_NO_FLUSH);
        break;
    case GZ_MEMBERS:
        out_deflate(o, Z_FINISH);
        if (deflateReset(&o->zs) != Z_OK)
            die("%s: deflateReset failed", o->path);
        break;
    }
}

static inline char *out_reserve(outfile *o, size_t n)
{
    if (o->cap - o->len < n) {
        /* only lines far longer than any we write could get here */
        if (n > TEXT_SLACK)
            die("internal error: line too long");
        out_flush(o);
    }
    return o->buf + o->len;
}

static inline void out_commit(outfile *o, char *end)
{
    o->len = (size_t)(end - o->buf);
    if (o->len >= o->flush_at)
        out_flush(o);
}

static void out_close(outfile *o)
{
    if (o->gz == GZ_SINGLE) {
        out_deflate(o, Z_FINISH);
    } else {
        out_flush(o);
    }
    if (o->zlive) {
        deflateEnd(&o->zs);
        free(o->zbuf);
    }
    if (close(o->fd) != 0)
        die("%s: close failed: %s", o->path, strerror(errno));
    free(o->buf);
}

/* ------------------------------------------------------------------ */
/* Names and hashes                                                    */
/* ------------------------------------------------------------------ */

static int hset_has(const gen *g, uint64_t v)
{
    if (g->hset_cap == 0)
        return 0;
    size_t m = g->hset_cap - 1;
    for (size_t i = mix64(v) & m;; i = (i + 1) & m) {
        if (g->hset[i] == 0)
            return 0;
        if (g->hset[i] == v)
            return 1;
    }
}

static void hset_put(gen *g, uint64_t v)
{
    if ((g->hset_n + 1) * 2 > g->hset_cap) {
        size_t oc = g->hset_cap;
        uint64_t *old = g->hset;
        g->hset_cap = oc ? oc * 2 : 1024;
        g->hset = xcalloc(g->hset_cap, sizeof *g->hset);
        g->hset_n = 0;
        for (size_t i = 0; i < oc; i++)
            if (old[i])
                hset_put(g, old[i]);
        free(old);
    }
    size_t m = g->hset_cap - 1;
    size_t i = mix64(v) & m;
    while (g->hset[i] != 0)
        i = (i + 1) & m;
    g->hset[i] = v;
    g->hset_n++;
}

/* Hash of a name as the era writes it. Values are unique over all names of
 * the run (hosts, files, strings): collisions are a separate test. */
static uint64_t name_hash(gen *g, const char *s, size_t n)
{
    uint64_t v = mix64(fnv1a(s, n));
    if (g->o.era == ERA_HASH16) {
        if (g->hset_n >= 65535)
            die("era hash16 holds at most 65535 distinct names; use fewer --ranks or --events");
        v = 1 + v % 65535;
        while (hset_has(g, v))
            v = v % 65535 + 1;
    } else {
        if (v == 0)
            v = 1;
        while (hset_has(g, v))
            v = v + 1 ? v + 1 : 1;
    }
    hset_put(g, v);
    return v;
}

/* Hash value as text: quoted hex in the hex era, a quoted decimal where the
 * newest tracers write hhash as a string and for every hash in era v2
 * (hhash, fhash, cmd_hash, exec_hash, HH/FH/SH values), a plain decimal
 * otherwise. */
static char *put_hash(const gen *g, char *p, uint64_t v, int as_string)
{
    if (g->o.era == ERA_HEX) {
        *p++ = '"';
        p = put_hex16(p, v);
        *p++ = '"';
    } else if (as_string || g->o.era == ERA_V2) {
        *p++ = '"';
        p = put_u64(p, v);
        *p++ = '"';
    } else {
        p = put_u64(p, v);
    }
    return p;
}

static int fs_index(gen *g, const char *path)
{
    /* the first two components: /p/lustre2, /l/ssd, /usr/workspace */
    const char *e = path;
    for (int k = 0; k < 3 && e; k++)
        e = strchr(e + (k ? 1 : 0), '/');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    for (int i = 0; i < g->nfs; i++)
        if (strlen(g->fs_names[i]) == n && memcmp(g->fs_names[i], path, n) == 0)
            return i;
    if (g->nfs == MAXFS)
        die("internal error: too many file system prefixes");
    g->fs_names[g->nfs] = xstrndup(path, n);
    return g->nfs++;
}

static uint32_t path_mask(const char *s)
{
    uint32_t m = 0;
    int lustre = strstr(s, "lustre") != NULL, ssd = strstr(s, "ssd") != NULL;
    if (strstr(s, "/data")) {
        m |= LBIT(L_RPOSIX);
        if (lustre)
            m |= LBIT(L_RPOSIX_LUSTRE);
        if (ssd)
            m |= LBIT(L_RPOSIX_SSD);
    }
    if (strstr(s, "/checkpoint")) {
        m |= LBIT(L_CPOSIX);
        if (lustre)
            m |= LBIT(L_CPOSIX_LUSTRE);
        if (ssd)
            m |= LBIT(L_CPOSIX_SSD);
    }
    return m;
}

/* Paths are generated by this file and hold no byte that JSON must escape. */
static uint32_t path_id(gen *g, const char *s)
{
    size_t n = strlen(s);
    uint64_t h = fnv1a(s, n);
    if ((g->npaths + 1) * 2 > g->pmap_cap) {
        free(g->pmap);
        g->pmap_cap = g->pmap_cap ? g->pmap_cap * 2 : 1024;
        g->pmap = xcalloc(g->pmap_cap, sizeof *g->pmap);
        for (uint32_t i = 1; i < g->npaths; i++) {
            size_t j = fnv1a(g->paths[i].str, g->paths[i].len) & (g->pmap_cap - 1);
            while (g->pmap[j])
                j = (j + 1) & (g->pmap_cap - 1);
            g->pmap[j] = i;
        }
    }
    size_t m = g->pmap_cap - 1, j = h & m;
    for (; g->pmap[j]; j = (j + 1) & m) {
        pathent *pe = &g->paths[g->pmap[j]];
        if (pe->len == n && memcmp(pe->str, s, n) == 0)
            return g->pmap[j];
    }
    if (g->npaths == g->paths_cap) {
        g->paths_cap = g->paths_cap ? g->paths_cap * 2 : 1024;
        g->paths = xrealloc(g->paths, g->paths_cap * sizeof *g->paths);
    }
    uint32_t id = (uint32_t)g->npaths++;
    pathent *pe = &g->paths[id];
    memset(pe, 0, sizeof *pe);
    pe->str = xstrndup(s, n);
    pe->len = (uint32_t)n;
    pe->mask = path_mask(s);
    pe->fs = (uint16_t)fs_index(g, s);
    pe->frag = xmalloc(n + 64);
    char *p = pe->frag;
    if (g->hashed) {
        pe->hash = name_hash(g, s, n);
        p = PUT(p, ",\"fhash\":");
        p = put_hash(g, p, pe->hash, 0);
    } else {
        p = PUT(p, ",\"fname\":\"");
        p = put_mem(p, s, n);
        *p++ = '"';
    }
    pe->fraglen = (uint32_t)(p - pe->frag);
    g->pmap[j] = id;
    return id;
}

/* The layers of the AI-logging preset that a name and category decide:
 * DFAnalyzer's current "dlio" preset, which --ai-logging traces follow. */
static uint32_t ai_base_mask(const char *name, int cat)
{
    uint32_t m = 0;
    if (strcmp(name, "ai_root") == 0)
        m |= LBIT(L_APP);
    if (cat == C_PIPELINE && strcmp(name, "train") == 0)
        m |= LBIT(L_TRAINING);
    if (cat == C_PIPELINE && strncmp(name, "epoch", 5) == 0)
        m |= LBIT(L_EPOCH);
    if (cat == C_COMPUTE && strcmp(name, "compute") == 0)
        m |= LBIT(L_COMPUTE);
    if (strcmp(name, "fetch.iter") == 0)
        m |= LBIT(L_FETCH);
    if (cat == C_DATA)
        m |= LBIT(L_LOADER);
    if ((cat == C_POSIX || cat == C_STDIO) && strcmp(name, "fork") == 0)
        m |= LBIT(L_FORK);
    if (cat == C_READER || strcmp(name, "preprocess") == 0)
        m |= LBIT(L_READER);
    if (cat == C_CKPT)
        m |= LBIT(L_CKPT);
    return m;
}

static uint32_t func_base_mask(const gen *g, int f)
{
    if (g->o.ai)
        return ai_base_mask(g->fname[f], g->fcat[f]);
    const char *name = funcs[f].name;
    int cat = funcs[f].cat;
    uint32_t m = 0;
    if (strcmp(name, "DLIOBenchmark.run") == 0)
        m |= LBIT(L_APP);
    if (strcmp(name, "DLIOBenchmark._train") == 0)
        m |= LBIT(L_TRAINING);
    if (cat == C_AI)
        m |= LBIT(L_COMPUTE);
    if (!strcmp(name, "<module>.iter") || !strcmp(name, "fetch-data.iter") ||
        !strcmp(name, "loop.iter"))
        m |= LBIT(L_FETCH);
    if (cat == C_LOADER && strcmp(name, "loop.iter") != 0 && strcmp(name, "loop.yield") != 0)
        m |= LBIT(L_LOADER);
    if (cat == C_POSIX && strcmp(name, "fork") == 0)
        m |= LBIT(L_FORK);
    if (cat == C_READER)
        m |= LBIT(L_READER);
    if (cat == C_CKPT)
        m |= LBIT(L_CKPT);
    return m;
}

static unsigned event_mask(const gen *g, const ev *e)
{
    unsigned m = g->fmask[e->func];
    int cat = funcs[e->func].cat;
    if (cat == C_POSIX || cat == C_STDIO) {
        unsigned pm = e->path ? g->paths[e->path].mask : 0;
        m |= pm;
        if (!(m & (LBIT(L_RPOSIX) | LBIT(L_CPOSIX) | LBIT(L_FORK))))
            m |= LBIT(L_OTHER_POSIX);
    }
    if (m == 0)
        m = LBIT(L_OTHER);
    return m;
}

/* ------------------------------------------------------------------ */
/* Truth accounting                                                    */
/* ------------------------------------------------------------------ */

static void busy_add(busyacc *b, uint64_t s, uint64_t e)
{
    if (e == s)
        return; /* empty interval: no length */
    if (s < b->floor)
        die("internal error: busy interval before the folded part");
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
    }
    b->v[b->n].s = s;
    b->v[b->n].e = e;
    b->n++;
}

static int ival_cmp(const void *a, const void *b)
{
    const ival *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Sorts v and merges overlapping or touching intervals in place; returns
 * how many disjoint intervals remain, in start order. */
static size_t ival_merge(ival *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, ival_cmp);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].s > v[k].e)
            v[++k] = v[i];
        else if (v[i].e > v[k].e)
            v[k].e = v[i].e;
    }
    return k + 1;
}

/* Like busy_fold, for when later intervals may start anywhere from t on:
 * runs of the union that end by t are folded, the others stay for the next
 * fold. */
static void busy_fold_before(busyacc *b, uint64_t t)
{
    if (b->n == 0)
        return;
    size_t n = ival_merge(b->v, b->n), keep = 0;
    for (size_t i = 0; i < n; i++) {
        if (b->v[i].e <= t)
            b->total += b->v[i].e - b->v[i].s;
        else
            b->v[keep++] = b->v[i];
    }
    b->n = keep;
    if (t > b->floor)
        b->floor = t;
}

static void busy_fold(busyacc *b)
{
    size_t n = ival_merge(b->v, b->n);
    for (size_t i = 0; i < n; i++)
        b->total += b->v[i].e - b->v[i].s;
    /* the last of the disjoint runs ends last */
    if (n && b->v[n - 1].e > b->floor)
        b->floor = b->v[n - 1].e;
    b->n = 0;
}

static inline int size_bin(uint64_t bytes)
{
    uint64_t lim = 4096;
    for (int i = 0; i < NBIN - 1; i++, lim *= 4)
        if (bytes <= lim)
            return i;
    return NBIN - 1;
}

static inline uint64_t event_bytes(const ev *e)
{
    switch (funcs[e->func].bytes) {
    case B_RET:
        return e->ret > 0 ? (uint64_t)e->ret : 0;
    case B_SIZE_RET:
        return e->size > 0 && e->ret > 0 ? (uint64_t)e->size * (uint64_t)e->ret : 0;
    default:
        return 0;
    }
}

static void account(gen *g, rankst *rk, const ev *e)
{
    const funcdef *f = &funcs[e->func];
    uint64_t bytes = event_bytes(e), dur = e->dur, end = e->ts + e->dur;
    agg_add(&g->total, dur, bytes);
    if (e->ts < g->tmin)
        g->tmin = e->ts;
    if (end > g->tmax)
        g->tmax = end;
    agg_add(&g->func[e->func], dur, bytes);
    agg_add(&g->cat[g->fcat[e->func]], dur, bytes);
    agg_add(&g->type[cat_type[g->fcat[e->func]]], dur, bytes);
    if (dur > g->maxdur[e->func])
        g->maxdur[e->func] = dur;
    agg_add(&g->hosts[rk->host].a, dur, bytes);
    agg_add(&rk->a, dur, bytes);
    if (e->path) {
        pathent *pe = &g->paths[e->path];
        agg_add(&pe->a, dur, bytes);
        agg_add(&g->fs[pe->fs], dur, bytes);
    } else {
        agg_add(&g->nofile, dur, bytes);
        agg_add(&g->nofs, dur, bytes);
    }
    agg_add(&g->cls[f->cls], dur, bytes);
    if ((f->cls == K_READ || f->cls == K_WRITE) && bytes > 0)
        agg_add(&g->bin[size_bin(bytes)], dur, bytes);
    unsigned m = event_mask(g, e);
    while (m) {
        int l = __builtin_ctz(m);
        m &= m - 1;
        agg_add(&g->layer[l], dur, bytes);
        rk->layer_dur[l] += dur;
        busy_add(&g->busy[l], e->ts, end);
    }
    rk->nx++;
}

/* ------------------------------------------------------------------ */
/* Analysis truth: I/O busy and exposure, self time, access pattern,   */
/* shared files, per-step checkpoint cost, checkpoint path patterns.   */
/* Computed from the generator's own state (lane stacks, its fds)      */
/* with plain algorithms, independent of dfnav's engine.               */
/* ------------------------------------------------------------------ */

static void iv_add(ivlist *l, uint64_t s, uint64_t e)
{
    if (e <= s)
        return; /* no length */
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n].s = s;
    l->v[l->n].e = e;
    l->n++;
}

/* Sorts and merges in place; returns the length of the union. */
static uint64_t iv_merge(ivlist *l)
{
    uint64_t total = 0;
    l->n = ival_merge(l->v, l->n);
    for (size_t i = 0; i < l->n; i++)
        total += l->v[i].e - l->v[i].s;
    return total;
}

/* |a minus b| for two merged lists, in one walk over both. */
static uint64_t iv_minus(const ivlist *a, const ivlist *b)
{
    uint64_t out = 0;
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        uint64_t s = a->v[i].s, e = a->v[i].e, cur = s;
        while (j < b->n && b->v[j].e <= s)
            j++;
        /* b[j] may reach into the next piece of a: do not pass it */
        for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
            if (b->v[k].s > cur)
                out += b->v[k].s - cur;
            if (b->v[k].e > cur)
                cur = b->v[k].e;
        }
        if (e > cur)
            out += e - cur;
    }
    return out;
}

static void *grow_zero(void *p, size_t old_n, size_t new_n, size_t sz)
{
    p = xrealloc(p, new_n * sz);
    memset((char *)p + old_n * sz, 0, (new_n - old_n) * sz);
    return p;
}

static void tx_path_room(truthx *t, uint32_t path)
{
    if (path < t->pcap)
        return;
    size_t nc = t->pcap ? t->pcap : 1024;
    while (nc <= path)
        nc *= 2;
    t->pseq = grow_zero(t->pseq, t->pcap, nc, sizeof *t->pseq);
    t->prnd = grow_zero(t->prnd, t->pcap, nc, sizeof *t->prnd);
    t->ppat = grow_zero(t->ppat, t->pcap, nc, sizeof *t->ppat);
    t->pfirst = grow_zero(t->pfirst, t->pcap * NSLOT, nc * NSLOT, sizeof *t->pfirst);
    t->pshared = grow_zero(t->pshared, t->pcap * NSLOT, nc * NSLOT, sizeof *t->pshared);
    t->pcap = nc;
}

static void tx_step_room(gen *g, truthx *t, int64_t step)
{
    size_t need = (size_t)step + 1, nr = (size_t)g->o.ranks;
    if (need <= t->scap)
        return;
    size_t nc = t->scap ? t->scap : 64;
    while (nc < need)
        nc *= 2;
    t->sagg = grow_zero(t->sagg, t->scap, nc, sizeof *t->sagg);
    t->cagg = grow_zero(t->cagg, t->scap, nc, sizeof *t->cagg);
    t->crk = grow_zero(t->crk, t->scap * nr, nc * nr, sizeof *t->crk);
    t->scap = nc;
}

static void tx_init(gen *g)
{
    static const char *const judged[] = {"read", "pread", "pread64", "readv", "preadv", "fread",
                                         "write", "pwrite", "pwrite64", "writev", "pwritev",
                                         "fwrite"};
    truthx *t = xcalloc(1, sizeof *t);
    for (int f = 0; f < NFUNC; f++)
        for (size_t k = 0; k < sizeof judged / sizeof judged[0]; k++)
            if (strcmp(func_name(g, f), judged[k]) == 0)
                t->judged[f] = 1;
    for (int i = 0; i < g->o.ranks; i++)
        g->rk[i].tx = xcalloc(1, sizeof *g->rk[i].tx);
    g->tx = t;
}

/* Intervals of I/O and compute events, per layer and for the process. */
static void tx_intervals(const gen *g, rankst *rk, const ev *e, unsigned m)
{
    int cat = g->fcat[e->func];
    rk->tx->layers |= m;
    /* compute: cat ai_framework, or compute under --ai-logging */
    ivlist *set = cat == C_POSIX || cat == C_STDIO ? rk->tx->io
                  : cat == C_AI || cat == C_COMPUTE ? rk->tx->cpu
                                                    : NULL;
    if (!set)
        return;
    iv_add(&set[S_ALL], e->ts, e->ts + e->dur);
    for (; m; m &= m - 1)
        iv_add(&set[__builtin_ctz(m)], e->ts, e->ts + e->dur);
}

static uint64_t cover_len(const cover *c) { return c->cov + (c->re - c->rs); }

static void cover_add(cover *c, uint64_t s, uint64_t e)
{
    if (e <= s)
        return;
    if (c->re == 0) { /* first child: ts is never 0 */
        c->rs = s;
        c->re = e;
    } else if (s < c->rs) {
        die("internal error: children out of order");
    } else if (s <= c->re) {
        if (e > c->re)
            c->re = e;
    } else {
        c->cov += c->re - c->rs;
        c->rs = s;
        c->re = e;
    }
}

/* Self time from the lane's explicit stack: the parent of an event is the
 * frame under it, which contains it (checked) since the lane clock only
 * moves forward. An emitted frame is stack[depth], a leaf is not on it. */
static void tx_self(gen *g, rankst *rk, lane *ln, const ev *e)
{
    cover *cv = rk->tx->cv[ln - rk->ln];
    int d = ln->depth;
    uint64_t end = e->ts + e->dur, kids = 0;
    if (e == &ln->stack[d]) {
        kids = cover_len(&cv[d]);
        if (cv[d].re > end || kids > e->dur)
            die("internal error: a child outlives its parent");
        /* the spec cannot tell such a child from its parent */
        if (e->dur > 0 && cv[d].tie_end == end)
            g->tx->ties++;
        memset(&cv[d], 0, sizeof cv[d]);
    }
    g->tx->self[e->func] += e->dur - kids;
    if (d == 0)
        return;
    const ev *p = &ln->stack[d - 1];
    if (e->ts < p->ts)
        die("internal error: a child starts before its parent");
    /* the parent's end is not known yet: remember the candidate */
    if (e->ts == p->ts && e->dur > 0)
        cv[d - 1].tie_end = end;
    cover_add(&cv[d - 1], e->ts, end);
}

static dlane *tx_dlane(rankst *rk, const ev *e, int by_fd, int64_t fd)
{
    struct rktx *x = rk->tx;
    if (by_fd) {
        if (fd < 0 || fd >= MAXFD)
            die("internal error: fd %lld out of the model's range", (long long)fd);
        return &x->fdl[fd];
    }
    if (e->path >= x->plcap) {
        size_t nc = x->plcap ? x->plcap : 1024;
        while (nc <= e->path)
            nc *= 2;
        x->pl = grow_zero(x->pl, x->plcap, nc, sizeof *x->pl);
        x->plcap = nc;
    }
    return &x->pl[e->path];
}

static void tx_count_access(truthx *t, const ev *e, unsigned m, int seq)
{
    uint64_t *slot = seq ? t->seq : t->rnd;
    slot[S_ALL]++;
    for (; m; m &= m - 1)
        slot[__builtin_ctz(m)]++;
    if (e->path) {
        tx_path_room(t, e->path);
        (seq ? t->pseq : t->prnd)[e->path]++;
    }
}

/* The spec's position model. Calls are seen in emission order; the check
 * on last_ts makes sure that is the time order of every descriptor lane
 * (lanes hand out fds on their own, or with --prefetch the process does:
 * see new_fd; descriptor lanes are per process in the model). */
static void tx_access(gen *g, rankst *rk, const ev *e, unsigned m)
{
    int f = e->func, a = funcs[f].args;
    int has_fd = a == A_RW || a == A_RWOFF || a == A_LSEEK || a == A_FD;
    dlane *dl;
    if (f == F_OPEN64 || f == F_FOPEN) {
        if (f == F_OPEN64 && e->ret < 0)
            return;
        dl = tx_dlane(rk, e, f == F_OPEN64, e->ret);
        if (e->ts < dl->last_ts)
            die("internal error: descriptor lane out of time order");
        *dl = (dlane){.last_ts = e->ts};
        return;
    }
    if (!g->tx->judged[f] && f != F_LSEEK64)
        return;
    dl = tx_dlane(rk, e, has_fd, e->fd);
    if (e->ts < dl->last_ts)
        die("internal error: descriptor lane out of time order");
    dl->last_ts = e->ts;
    if (f == F_LSEEK64) {
        if (e->ret >= 0)
            dl->pos = e->ret;
        return;
    }
    int64_t bytes = (int64_t)event_bytes(e);
    int64_t off = a == A_RWOFF ? e->offset : dl->pos;
    int seq = dl->judged ? off == dl->prev_end : off == 0;
    if (a != A_RWOFF)
        dl->pos += bytes;
    dl->prev_end = off + bytes;
    dl->judged = 1;
    tx_count_access(g->tx, e, m, seq);
}

static void tx_files(gen *g, int rank, const ev *e, unsigned m)
{
    truthx *t = g->tx;
    tx_path_room(t, e->path);
    size_t base = (size_t)e->path * NSLOT;
    m |= 1u << S_ALL;
    for (; m; m &= m - 1) {
        size_t i = base + (size_t)__builtin_ctz(m);
        if (t->pfirst[i] == 0)
            t->pfirst[i] = rank + 1;
        else if (t->pfirst[i] != rank + 1)
            t->pshared[i] = 1;
    }
}

static void tx_steps(gen *g, rankst *rk, const ev *e, unsigned m)
{
    truthx *t = g->tx;
    int a = funcs[e->func].args;
    uint64_t bytes = event_bytes(e);
    if (a != A_STEP && a != A_CKPT) {
        agg_add(&t->nostep, e->dur, bytes);
        return;
    }
    if (e->step < 0)
        die("internal error: negative step");
    tx_step_room(g, t, e->step);
    agg_add(&t->sagg[e->step], e->dur, bytes);
    if (m & LBIT(L_CKPT)) {
        agg_add(&t->cagg[e->step], e->dur, bytes);
        t->crk[(size_t)e->step * (size_t)g->o.ranks + (size_t)rk->rank] += e->dur;
    }
}

/* The pattern rule of dfnav's pathinfo.c: each run of ASCII digits becomes
 * one '#'. */
static int tx_pattern_id(truthx *t, uint32_t path, const char *s)
{
    if (t->ppat[path])
        return t->ppat[path];
    if (!strstr(s, "/checkpoint"))
        return t->ppat[path] = -1;
    char *p = xmalloc(strlen(s) + 1), *o = p;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            *o++ = '#';
            while (s[1] >= '0' && s[1] <= '9')
                s++;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    size_t k;
    for (k = 0; k < t->npat && strcmp(t->pat[k], p) != 0; k++)
        ;
    if (k < t->npat) {
        free(p);
    } else {
        if (t->npat == t->patcap) {
            size_t nc = t->patcap ? t->patcap * 2 : 16;
            t->pat = xrealloc(t->pat, nc * sizeof *t->pat);
            t->patagg = grow_zero(t->patagg, t->patcap * NFUNC, nc * NFUNC, sizeof *t->patagg);
            t->patcap = nc;
        }
        t->pat[t->npat++] = p;
    }
    return t->ppat[path] = (int32_t)k + 1;
}

static void tx_patterns(gen *g, const ev *e)
{
    truthx *t = g->tx;
    tx_path_room(t, e->path);
    int id = tx_pattern_id(t, e->path, g->paths[e->path].str);
    if (id > 0)
        agg_add(&t->patagg[(size_t)(id - 1) * NFUNC + (size_t)e->func], e->dur, event_bytes(e));
}

static void tx_event(gen *g, rankst *rk, lane *ln, const ev *e)
{
    unsigned m = event_mask(g, e);
    tx_intervals(g, rk, e, m);
    tx_self(g, rk, ln, e);
    tx_access(g, rk, e, m);
    tx_steps(g, rk, e, m);
    if (e->path) {
        tx_files(g, rk->rank, e, m);
        tx_patterns(g, e);
    }
}

static void tx_free(gen *g)
{
    truthx *t = g->tx;
    for (int i = 0; i < g->o.ranks; i++) {
        struct rktx *x = g->rk[i].tx;
        for (int s = 0; s < NSLOT; s++) {
            free(x->io[s].v);
            free(x->cpu[s].v);
        }
        free(x->pl);
        free(x);
    }
    free(t->pseq);
    free(t->prnd);
    free(t->pfirst);
    free(t->pshared);
    free(t->ppat);
    free(t->sagg);
    free(t->cagg);
    free(t->crk);
    for (size_t k = 0; k < t->npat; k++)
        free(t->pat[k]);
    free(t->pat);
    free(t->patagg);
    free(t);
}

/* After the run: unions per process, exposure against all its compute. */
static void tx_finish(gen *g)
{
    truthx *t = g->tx;
    for (int i = 0; i < g->o.ranks; i++) {
        struct rktx *x = g->rk[i].tx;
        for (int s = 0; s < NSLOT; s++) {
            uint64_t io = iv_merge(&x->io[s]), cpu = iv_merge(&x->cpu[s]);
            if (s == S_ALL) {
                x->io_us = io;
                x->cpu_us = cpu;
            } else {
                t->lio[s] += io;
            }
        }
        /* a layer's compute is that of its processes, all of it */
        for (int l = 0; l < NLAYER; l++)
            if (x->layers >> l & 1)
                t->lcpu[l] += x->cpu_us;
        x->exp_us = iv_minus(&x->io[S_ALL], &x->cpu[S_ALL]);
        for (int l = 0; l < NLAYER; l++)
            t->lexp[l] += iv_minus(&x->io[l], &x->cpu[S_ALL]);
    }
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

static inline char *put_num(char *p, uint64_t v, int q)
{
    if (q)
        *p++ = '"';
    p = put_u64(p, v);
    if (q)
        *p++ = '"';
    return p;
}

/* A signed value, in quotes when q (the quoted era writes some numbers as
 * strings). */
static inline char *put_inum(char *p, int64_t v, int q)
{
    if (q)
        *p++ = '"';
    p = put_i64(p, v);
    if (q)
        *p++ = '"';
    return p;
}

static inline char *line_start(rankst *rk, outfile *o, size_t n)
{
    char *p = out_reserve(o, n);
    if (rk->space_first) {
        /* like the v0.0.x writers: the first event shares no line with "[" but
         * starts with a space */
        *p++ = ' ';
        rk->space_first = 0;
    }
    return p;
}

/* A metadata line up to its value: the caller writes the value and ends
 * the line. Room for the value is reserved. */
static char *meta_head(gen *g, rankst *rk, const lane *ln, int64_t id, const char *type,
                       const char *name, size_t nlen)
{
    char *p = line_start(rk, &rk->out, nlen + 512);
    *p++ = '{';
    if (!g->modern) {
        p = PUT_I64(p, "\"id\":", id);
        *p++ = ',';
    }
    p = PUT(p, "\"name\":\"");
    p = put_mem(p, type, strlen(type));
    p = PUT(p, "\",\"cat\":\"dftracer\"");
    if (g->modern)
        p = PUT(p, ",\"type\":1");
    p = put_mem(p, ln->pt, ln->ptlen);
    p = g->modern ? PUT(p, ",\"ph\":4,\"args\":{") : PUT(p, ",\"ph\":\"M\",\"args\":{");
    if (g->hashed) {
        const hostent *h = &g->hosts[rk->host];
        p = put_mem(p, h->frag, h->fraglen);
        *p++ = ',';
    }
    p = PUT(p, "\"name\":\"");
    p = put_mem(p, name, nlen);
    return PUT(p, "\",\"value\":");
}

/* Metadata line. sval != NULL: value is that string, else the hash hval. */
static void write_meta(gen *g, rankst *rk, const lane *ln, int64_t id, const char *type,
                       const char *name, size_t nlen, uint64_t hval, const char *sval)
{
    outfile *o = &rk->out;
    char *p = meta_head(g, rk, ln, id, type, name, nlen);
    if (sval) {
        *p++ = '"';
        p = put_mem(p, sval, strlen(sval));
        *p++ = '"';
    } else {
        p = put_hash(g, p, hval, 0);
    }
    p = PUT(p, "}}\n");
    out_commit(o, p);
}

static void write_fh(gen *g, rankst *rk, const lane *ln, int64_t id, uint32_t path)
{
    const pathent *pe = &g->paths[path];
    write_meta(g, rk, ln, id, "FH", pe->str, pe->len, pe->hash, NULL);
}

/* Each file writes the FH line of every path it uses, normally just before
 * the first use; with late metadata some come after it, as in real traces.
 * The id is taken now either way so that ids do not depend on the choice. */
static void need_fh(gen *g, rankst *rk, lane *ln, uint32_t path)
{
    if (path >= rk->seen_cap) {
        size_t nc = rk->seen_cap ? rk->seen_cap : 1024;
        while (nc <= path)
            nc *= 2;
        rk->seen = xrealloc(rk->seen, nc);
        memset(rk->seen + rk->seen_cap, 0, nc - rk->seen_cap);
        rk->seen_cap = nc;
    }
    if (rk->seen[path])
        return;
    rk->seen[path] = 1;
    int64_t id = ln->next_id++;
    if (g->late && rng_below(&rk->fr, 8) == 0) {
        if (rk->npend == rk->pend_cap) {
            rk->pend_cap = rk->pend_cap ? rk->pend_cap * 2 : 16;
            rk->pend = xrealloc(rk->pend, rk->pend_cap * sizeof *rk->pend);
        }
        rk->pend[rk->npend].path = path;
        rk->pend[rk->npend].lane = (int)(ln - rk->ln);
        rk->pend[rk->npend].id = id;
        rk->npend++;
        return;
    }
    write_fh(g, rk, ln, id, path);
}

static void flush_pending(gen *g, rankst *rk)
{
    for (size_t i = 0; i < rk->npend; i++)
        write_fh(g, rk, &rk->ln[rk->pend[i].lane], rk->pend[i].id, rk->pend[i].path);
    rk->npend = 0;
}

/* ------------------------------------------------------------------ */
/* Era v2 (DFTracer 2.x): what only its files hold. The time unit       */
/* (--time-unit ns), the nested objects of the end record, the PR       */
/* metadata of the process.                                             */
/* ------------------------------------------------------------------ */

/* A time (ts or dur) of us microseconds in the file's unit. In ns it is
 * us * 1000 plus a jitter in [-499, 499] fixed by the seed, the value and
 * the salt, never below 0 (us == 0 gets a jitter >= 0): rounding the ns
 * value half up to us gives back exactly us, so the truth stays in us. */
static char *put_time(const gen *g, char *p, uint64_t us, uint64_t salt)
{
    if (!g->o.ns)
        return put_u64(p, us);
    int64_t j = (int64_t)(mix64(mix64(g->o.seed ^ salt) ^ us) % 999) - 499;
    if (us == 0 && j < 0)
        j = -j;
    uint64_t ns = us * 1000;
    return put_u64(p, j < 0 ? ns - (uint64_t)-j : ns + (uint64_t)j);
}

/* After num_events in the end record: the effective configuration and the
 * application metadata, as nested objects. */
static char *put_end_cfg(const gen *g, char *p)
{
    p = PUT(p, ",\"cfg\":{");
    if (!g->o.omit_metric)
        p = g->o.ns ? PUT(p, "\"time_metric\":\"NS\",") : PUT(p, "\"time_metric\":\"US\",");
    p = g->o.gz != GZ_NONE ? PUT(p, "\"compression\":true") : PUT(p, "\"compression\":false");
    p = g->o.aggregate ? PUT(p, ",\"aggregation_enable\":true}")
                       : PUT(p, ",\"aggregation_enable\":false}");
    p = PUT_I64(p, ",\"app\":{\"batch_size\":", BATCH);
    return PUT(p, ",\"model\":\"unet3d\"}");
}

/* The process metadata of the file's one pid: its MPI rank. */
static void write_pr(gen *g, rankst *rk)
{
    char *p = meta_head(g, rk, &rk->ln[0], 0, "PR", "rank", 4);
    p = put_u64(p, (uint64_t)rk->rank);
    p = PUT(p, "}}\n");
    out_commit(&rk->out, p);
}

/* ------------------------------------------------------------------ */
/* Aggregation (--aggregate, era v2): every LIBC_IO call is folded into */
/* an aggregated record (ph 3) of its thread, key and interval, as      */
/* DFTracer 2.x does with DFTRACER_ENABLE_AGGREGATION=1. A thread's     */
/* calls arrive in time order, so each thread holds the records of one  */
/* interval at a time; they are written when the thread's clock (the    */
/* end of its latest call or line) reaches the end of the interval, and */
/* the rest just before the end record.                                 */
/* ------------------------------------------------------------------ */

/* Numeric args that get folded; dur is always first. */
enum { AV_DUR, AV_FD, AV_RET, AV_COUNT, AV_OFFSET, AV_FLAGS, AV_MODE, AV_WHENCE, AV_SIZE, NAV };
static const char *const av_names[NAV] = {"dur", "fd", "ret", "count", "offset",
                                          "flags", "mode", "whence", "size"};
/* The numeric args of a LIBC_IO call by arg kind, in the order emit()
 * writes them; 0 (AV_DUR) ends a list. fopen's mode is a string: a key. */
static const unsigned char av_lists[][5] = {
    [A_MKDIR] = {AV_MODE},
    [A_OPEN] = {AV_RET, AV_FLAGS, AV_MODE},
    [A_RWOFF] = {AV_FD, AV_RET, AV_COUNT, AV_OFFSET},
    [A_RW] = {AV_FD, AV_RET, AV_COUNT},
    [A_LSEEK] = {AV_FD, AV_RET, AV_OFFSET, AV_WHENCE},
    [A_FD] = {AV_FD, AV_RET},
    [A_FORK] = {AV_RET},
    [A_FCLOSE] = {AV_RET},
    [A_FRW] = {AV_SIZE, AV_COUNT, AV_RET},
};

typedef struct {
    int func;
    uint32_t path;
    int64_t size;  /* fread/fwrite: the item size is part of the key */
    int64_t smode; /* fopen: the mode string ("r" 0, "wb" 1) is part of the key */
    uint64_t cnt;
    int64_t mn[NAV], mx[NAV], sum[NAV];
} aggrec;

struct aggtab {
    aggrec *v; /* in the order of their first call */
    size_t n, cap;
    uint32_t *h; /* open addressing: index + 1 into v, 0 empty */
    size_t hcap;
    uint64_t k; /* the interval of the records in v */
};
typedef struct aggtab aggtab;

static int64_t av_value(const ev *e, int s)
{
    switch (s) {
    case AV_DUR: return (int64_t)e->dur;
    case AV_FD: return e->fd;
    case AV_RET: return e->ret;
    case AV_COUNT: return e->count;
    case AV_OFFSET: return e->offset;
    case AV_FLAGS: return e->flags;
    case AV_MODE: return e->mode;
    case AV_WHENCE: return e->whence;
    default: return e->size;
    }
}

static size_t agg_keyhash(int func, uint32_t path, int64_t size, int64_t smode)
{
    return (size_t)mix64(((uint64_t)func << 48) ^ path ^ mix64((uint64_t)size * 4 + (uint64_t)smode));
}

static void agg_rehash(aggtab *t, size_t cap)
{
    free(t->h);
    t->hcap = cap;
    t->h = xcalloc(cap, sizeof *t->h);
    for (size_t i = 0; i < t->n; i++) {
        const aggrec *r = &t->v[i];
        size_t j = agg_keyhash(r->func, r->path, r->size, r->smode) & (cap - 1);
        while (t->h[j])
            j = (j + 1) & (cap - 1);
        t->h[j] = (uint32_t)i + 1;
    }
}

/* The record of a call's key, new (zeroed) if none. */
static aggrec *agg_slot(aggtab *t, const ev *e, int64_t size, int64_t smode)
{
    if ((t->n + 1) * 2 > t->hcap)
        agg_rehash(t, t->hcap ? t->hcap * 2 : 256);
    size_t m = t->hcap - 1, i = agg_keyhash(e->func, e->path, size, smode) & m;
    for (; t->h[i]; i = (i + 1) & m) {
        aggrec *r = &t->v[t->h[i] - 1];
        if (r->func == e->func && r->path == e->path && r->size == size && r->smode == smode)
            return r;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
    }
    aggrec *r = &t->v[t->n++];
    memset(r, 0, sizeof *r);
    r->func = e->func;
    r->path = e->path;
    r->size = size;
    r->smode = smode;
    t->h[i] = (uint32_t)t->n;
    return r;
}

static void av_add(aggrec *r, int s, int64_t v)
{
    if (r->cnt == 0) {
        r->mn[s] = r->mx[s] = r->sum[s] = v;
        return;
    }
    if (v < r->mn[s])
        r->mn[s] = v;
    if (v > r->mx[s])
        r->mx[s] = v;
    r->sum[s] += v;
}

static void agg_fold(gen *g, rankst *rk, int li, const ev *e)
{
    aggtab *t = &rk->agt[li];
    int a = funcs[e->func].args;
    if (e->ts < g->o.start)
        die("internal error: a call before the run start");
    if (funcs[e->func].bytes != B_NONE && e->ret < 0)
        die("internal error: a failed read or write would not fold into ret_sum");
    uint64_t k = (e->ts - g->o.start) / g->o.agg_us;
    if (t->n == 0)
        t->k = k;
    else if (k != t->k)
        die("internal error: calls of a thread out of time order");
    aggrec *r = agg_slot(t, e, a == A_FRW ? e->size : 0, a == A_FOPEN ? e->mode : 0);
    av_add(r, AV_DUR, (int64_t)e->dur);
    for (const unsigned char *s = av_lists[a]; s < av_lists[a] + 5 && *s; s++)
        av_add(r, *s, av_value(e, *s));
    r->cnt++;
    agg_add(&g->aggc[e->func], e->dur, event_bytes(e));
}

/* "NAME":v if the calls agree, else NAME_min, NAME_max, NAME_sum; times
 * scaled to the file's unit (exact multiples of 1000 in ns). */
static char *put_av(char *p, const aggrec *r, int s, int64_t scale)
{
    const char *nm = av_names[s];
    size_t nl = strlen(nm);
    *p++ = ',';
    *p++ = '"';
    p = put_mem(p, nm, nl);
    if (r->cnt == 1 || r->mn[s] == r->mx[s])
        return put_i64(PUT(p, "\":"), r->mn[s] * scale);
    p = put_i64(PUT(p, "_min\":"), r->mn[s] * scale);
    p = put_mem(PUT(p, ",\""), nm, nl);
    p = put_i64(PUT(p, "_max\":"), r->mx[s] * scale);
    p = put_mem(PUT(p, ",\""), nm, nl);
    return put_i64(PUT(p, "_sum\":"), r->sum[s] * scale);
}

static void agg_write(gen *g, rankst *rk, const lane *ln, uint64_t k, const aggrec *r)
{
    const char *name = func_name(g, r->func), *cat = cat_names[g->fcat[r->func]];
    const int a = funcs[r->func].args;
    uint64_t ts = g->o.start + k * g->o.agg_us;
    char *p = line_start(rk, &rk->out, LINE_RESERVE);
    p = put_mem(PUT(p, "{\"name\":\""), name, strlen(name));
    p = put_mem(PUT(p, "\",\"cat\":\""), cat, strlen(cat));
    *p++ = '"';
    p = put_mem(p, ln->pt, ln->ptlen);
    /* the interval's start: exact in either unit */
    p = put_u64(PUT(p, ",\"ts\":"), g->o.ns ? ts * 1000 : ts);
    p = put_u64(PUT(p, ",\"ph\":3,\"type\":"), cat_type[g->fcat[r->func]]);
    p = PUT(p, ",\"args\":{");
    const hostent *h = &g->hosts[rk->host];
    p = put_mem(p, h->frag, h->fraglen);
    if (r->path)
        p = put_mem(p, g->paths[r->path].frag, g->paths[r->path].fraglen);
    p = put_u64(PUT(p, ",\"dft_cnt\":"), r->cnt);
    p = put_av(p, r, AV_DUR, g->o.ns ? 1000 : 1);
    if (a == A_FOPEN)
        p = r->smode ? PUT(p, ",\"mode\":\"wb\"") : PUT(p, ",\"mode\":\"r\"");
    for (const unsigned char *s = av_lists[a]; s < av_lists[a] + 5 && *s; s++)
        p = put_av(p, r, *s, 1);
    p = PUT(p, "}}\n");
    out_commit(&rk->out, p);
}

static void agg_flush(gen *g, rankst *rk, int li)
{
    aggtab *t = &rk->agt[li];
    if (t->n == 0)
        return;
    for (size_t i = 0; i < t->n; i++)
        agg_write(g, rk, &rk->ln[li], t->k, &t->v[i]);
    t->n = 0;
    memset(t->h, 0, t->hcap * sizeof *t->h);
}

/* The thread's clock is at now: write its records if their interval ended. */
static void agg_check(gen *g, rankst *rk, int li, uint64_t now)
{
    const aggtab *t = &rk->agt[li];
    if (t->n && now >= g->o.start + (t->k + 1) * g->o.agg_us)
        agg_flush(g, rk, li);
}

static void agg_free(rankst *rk)
{
    for (int l = 0; l < NLANES; l++) {
        free(rk->agt[l].v);
        free(rk->agt[l].h);
    }
    free(rk->agt);
}

/* ------------------------------------------------------------------ */
/* Counters (--counters, era v2): telemetry samples (ph 2, type 7) of   */
/* cpu and mem in each file, every --counter-interval-us from the start */
/* record to the end record of the rank, placed among the other lines   */
/* by time (before the first line that ends after the sample). Values   */
/* come from a hash of the seed, the rank and the sample index, so they */
/* touch no PRNG stream. Their statistics go to --counter-truth.        */
/* ------------------------------------------------------------------ */

#define NSERIES 9
#define NPCT 4 /* the first NPCT series are percentages, kept in hundredths */
static const char *const series_names[NSERIES] = {
    "cpu.user_pct", "cpu.system_pct", "cpu.idle_pct", "cpu.iowait_pct", "mem.MemAvailable",
    "mem.MemFree", "mem.Cached", "mem.Dirty", "mem.Active"};

struct ctrstat {
    uint64_t n, sum, mn, mx;
};

/* Sample j of a rank. Percentages in hundredths, on a grid of 0.25 so that
 * all the written forms occur (40, 12.5, 3.25); they add up to 100.
 * Memory in kB of a 256 GiB node. */
static void ctr_values(const gen *g, const rankst *rk, uint64_t j, uint64_t v[NSERIES])
{
    uint64_t base = mix64(mix64(g->o.seed ^ 0x5eedc0117e7ULL) ^ ((uint64_t)rk->rank + 1));
    uint64_t h[7];
    for (int i = 0; i < 7; i++)
        h[i] = mix64(base ^ mix64(j * 8 + (uint64_t)i + 1));
    v[0] = 25 * (40 + h[0] % 161); /* user 10-50 % */
    v[1] = 25 * (4 + h[1] % 37);   /* system 1-10 % */
    v[3] = 25 * (h[2] % 81);       /* iowait 0-20 % */
    v[2] = 10000 - v[0] - v[1] - v[3];
    v[5] = 8388608 + h[3] % 58720257;  /* MemFree 8-64 GiB */
    v[6] = 33554432 + h[4] % 100663297; /* Cached 32-128 GiB */
    v[4] = v[5] + v[6] - v[6] / 8;      /* MemAvailable */
    v[7] = h[5] % 2097153;              /* Dirty 0-2 GiB */
    v[8] = 16777216 + h[6] % 83886081;  /* Active 16-96 GiB */
}

/* Hundredths as written: at most two decimals, no trailing zeros. */
static char *put_pct(char *p, uint64_t v)
{
    p = put_u64(p, v / 100);
    unsigned r = (unsigned)(v % 100);
    if (r) {
        *p++ = '.';
        *p++ = (char)('0' + r / 10);
        if (r % 10)
            *p++ = (char)('0' + r % 10);
    }
    return p;
}

/* One record: the series [s0, s1) under name. */
static void ctr_line(gen *g, rankst *rk, const char *name, uint64_t t, const uint64_t *v, int s0,
                     int s1)
{
    const lane *ln = &rk->ln[0];
    const hostent *h = &g->hosts[rk->host];
    char *p = line_start(rk, &rk->out, LINE_RESERVE);
    p = put_mem(PUT(p, "{\"name\":\""), name, strlen(name));
    p = PUT(p, "\",\"cat\":\"sys\"");
    p = put_mem(p, ln->pt, ln->ptlen);
    p = put_time(g, PUT(p, ",\"ts\":"), t, 0xc0117e7ULL ^ rk->pid);
    p = PUT(p, ",\"ph\":2,\"type\":7,\"args\":{");
    p = put_mem(p, h->frag, h->fraglen);
    for (int s = s0; s < s1; s++) {
        const char *f = strchr(series_names[s], '.') + 1;
        p = put_mem(PUT(p, ",\""), f, strlen(f));
        p = PUT(p, "\":");
        p = s < NPCT ? put_pct(p, v[s]) : put_u64(p, v[s]);
    }
    p = PUT(p, "}}\n");
    out_commit(&rk->out, p);
}

static void ctr_sample(gen *g, rankst *rk, uint64_t j, uint64_t t)
{
    uint64_t v[NSERIES];
    ctr_values(g, rk, j, v);
    ctr_line(g, rk, "cpu", t, v, 0, NPCT);
    ctr_line(g, rk, "mem", t, v, NPCT, NSERIES);
    struct ctrstat *st = &g->cst[(size_t)rk->host * NSERIES];
    for (int s = 0; s < NSERIES; s++) {
        if (st[s].n == 0 || v[s] < st[s].mn)
            st[s].mn = v[s];
        if (st[s].n == 0 || v[s] > st[s].mx)
            st[s].mx = v[s];
        st[s].n++;
        st[s].sum += v[s];
    }
}

/* The samples before a line that ends at c (at c too for the end record). */
static void ctr_upto(gen *g, rankst *rk, uint64_t c, int incl)
{
    while (rk->cnext && (rk->cnext < c || (incl && rk->cnext == c))) {
        ctr_sample(g, rk, rk->cj++, rk->cnext);
        rk->cnext += g->o.ctr_us;
    }
}

/* Era v2: what goes before the line of event e: counter samples up to its
 * end, and the aggregated records of its thread whose interval has ended
 * (all of them before the end record). Returns 1 when e is a LIBC_IO call
 * folded into a record instead of being written. */
static int v2_before_line(gen *g, rankst *rk, lane *ln, const ev *e)
{
    const int li = (int)(ln - rk->ln), last = e->func == F_END;
    const uint64_t c = e->ts + e->dur;
    const int cat = funcs[e->func].cat;
    if (g->o.aggregate && last)
        for (int l = 0; l < NLANES; l++)
            agg_flush(g, rk, l);
    if (g->o.counters) {
        if (e->func == F_START)
            rk->cnext = e->ts;
        ctr_upto(g, rk, c, last);
    }
    if (!g->o.aggregate || last)
        return 0;
    if (cat != C_POSIX && cat != C_STDIO) {
        agg_check(g, rk, li, c);
        return 0;
    }
    agg_check(g, rk, li, e->ts); /* a call of a later interval: those are done */
    agg_fold(g, rk, li, e);
    agg_check(g, rk, li, c);
    return 1;
}

/* The args of a call by its arg kind, in the order real tracers write them. */
static char *put_call_args(const gen *g, char *p, const ev *e)
{
    const funcdef *f = &funcs[e->func];
    /* the 2023 writers quoted the byte counts of read/write calls only */
    const int qb = g->quoted && f->bytes == B_RET;
    switch (f->args) {
    case A_NONE:
    case A_PATH:
        break;
    case A_START:
        if (g->hashed) {
            p = PUT(p, ",\"cmd_hash\":");
            p = put_hash(g, p, g->cmd_hash, 0);
            p = PUT(p, ",\"exec_hash\":");
            p = put_hash(g, p, g->exec_hash, 0);
        }
        break;
    case A_END:
        p = PUT_I64(p, ",\"num_events\":", e->count);
        if (g->o.era == ERA_V2)
            p = put_end_cfg(g, p);
        break;
    case A_EPOCH:
        p = PUT_I64(p, ",\"epoch\":\"", e->epoch);
        *p++ = '"';
        break;
    case A_STEP:
        p = PUT_I64(p, ",\"step\":\"", e->step);
        p = PUT_I64(p, "\",\"image_idx\":\"", e->img);
        *p++ = '"';
        break;
    case A_CKPT:
        p = PUT_I64(p, ",\"epoch\":\"", e->epoch);
        p = PUT_I64(p, "\",\"step\":\"", e->step);
        *p++ = '"';
        break;
    case A_MKDIR:
        p = PUT_I64(p, ",\"mode\":", e->mode);
        break;
    case A_OPEN:
        p = PUT_I64(p, ",\"ret\":", e->ret);
        p = PUT_I64(p, ",\"flags\":", e->flags);
        p = PUT_I64(p, ",\"mode\":", e->mode);
        break;
    case A_RWOFF:
    case A_RW:
        p = PUT_I64(p, ",\"fd\":", e->fd);
        p = put_inum(PUT(p, ",\"ret\":"), e->ret, qb);
        p = put_inum(PUT(p, ",\"count\":"), e->count, qb);
        if (f->args == A_RWOFF) {
            p = PUT_I64(p, ",\"offset\":", e->offset);
        }
        break;
    case A_LSEEK:
        p = PUT_I64(p, ",\"fd\":", e->fd);
        p = PUT_I64(p, ",\"ret\":", e->ret);
        p = PUT_I64(p, ",\"offset\":", e->offset);
        p = PUT_I64(p, ",\"whence\":", e->whence);
        break;
    case A_FD:
        p = PUT_I64(p, ",\"fd\":", e->fd);
        p = PUT_I64(p, ",\"ret\":", e->ret);
        break;
    case A_FORK:
    case A_FCLOSE:
        p = PUT_I64(p, ",\"ret\":", e->ret);
        break;
    case A_FOPEN:
        p = e->mode ? PUT(p, ",\"mode\":\"wb\"") : PUT(p, ",\"mode\":\"r\"");
        break;
    case A_FRW:
        p = PUT_I64(p, ",\"size\":", e->size);
        p = PUT_I64(p, ",\"count\":", e->count);
        p = PUT_I64(p, ",\"ret\":", e->ret);
        break;
    }
    return p;
}

static void emit(gen *g, rankst *rk, lane *ln, const ev *e)
{
    const int q = g->quoted;
    outfile *o = &rk->out;
    if (e->path && g->hashed)
        need_fh(g, rk, ln, e->path);
    if (g->o.era == ERA_V2 && v2_before_line(g, rk, ln, e)) {
        /* folded into an aggregated record: counted, not written */
        account(g, rk, e);
        if (g->tx)
            tx_event(g, rk, ln, e);
        return;
    }
    char *p = line_start(rk, o, LINE_RESERVE);
    *p++ = '{';
    if (g->has_id) {
        p = put_inum(PUT(p, "\"id\":"), e->id, q);
        *p++ = ',';
    }
    p = put_mem(p, g->ffrag[e->func], g->ffraglen[e->func]);
    p = put_mem(p, ln->pt, ln->ptlen);
    p = PUT(p, ",\"ts\":");
    p = g->o.ns ? put_time(g, p, e->ts, 2 * ln->tid) : put_num(p, e->ts, q);
    p = PUT(p, ",\"dur\":");
    p = g->o.ns ? put_time(g, p, e->dur, 2 * ln->tid + 1) : put_num(p, e->dur, q);
    p = g->modern ? PUT(p, ",\"ph\":1,\"args\":{") : PUT(p, ",\"ph\":\"X\",\"args\":{");
    const hostent *h = &g->hosts[rk->host];
    p = put_mem(p, h->frag, h->fraglen);
    if (g->hints) {
        p = PUT_I64(p, ",\"p_idx\":", e->pidx);
    }
    if (e->path) {
        const pathent *pe = &g->paths[e->path];
        p = put_mem(p, pe->frag, pe->fraglen);
    }
    p = put_call_args(g, p, e);
    if (g->hints) {
        p = PUT_I64(p, ",\"level\":", e->level);
    }
    if (funcs[e->func].args == A_START) {
        p = g->o.era == ERA_V2 ? PUT(p, ",\"version\":200002,\"date\":\"")
                               : PUT(p, ",\"version\":100008,\"date\":\"");
        p = put_mem(p, g->date, strlen(g->date));
        p = PUT_I64(p, "\",\"ppid\":", e->ppid);
    }
    p = PUT(p, "}}");
    /* readers must tolerate a trailing comma: the 2023 writers left some */
    if (q && rng_below(&rk->fr, 100) == 0)
        *p++ = ',';
    *p++ = '\n';
    out_commit(o, p);
    account(g, rk, e);
    if (g->tx)
        tx_event(g, rk, ln, e);
}

/* ------------------------------------------------------------------ */
/* Lanes: events open and close in time order; lines go out when an    */
/* event ends, so children precede their parents as in real traces.    */
/* ------------------------------------------------------------------ */

static inline uint64_t gap(rankst *rk) { return 1 + rng_below(&rk->wr, 12); }

static void set_hints(lane *ln, ev *e)
{
    e->id = ln->next_id++;
    if (ln->depth > 0) {
        e->pidx = ln->stack[ln->depth - 1].id;
        e->level = ln->stack[ln->depth - 1].level + 1;
    } else {
        e->pidx = ln->root_pidx;
        e->level = ln->root_level;
    }
}

static ev *begin(gen *g, rankst *rk, lane *ln, int func)
{
    if (ln->depth == MAXDEPTH)
        die("internal error: nesting too deep");
    ev *e = &ln->stack[ln->depth];
    memset(e, 0, sizeof *e);
    e->func = func;
    ln->now += gap(rk);
    e->ts = ln->now;
    set_hints(ln, e);
    ln->depth++;
    unsigned m = event_mask(g, e);
    while (m) {
        g->busy[__builtin_ctz(m)].open++;
        m &= m - 1;
    }
    return e;
}

static void end(gen *g, rankst *rk, lane *ln)
{
    ev *e = &ln->stack[--ln->depth];
    ln->now += gap(rk);
    e->dur = ln->now - e->ts;
    unsigned m = event_mask(g, e);
    while (m) {
        g->busy[__builtin_ctz(m)].open--;
        m &= m - 1;
    }
    emit(g, rk, ln, e);
    if (rk->npend)
        flush_pending(g, rk);
}

static void leaf(gen *g, rankst *rk, lane *ln, ev *e, uint64_t dur)
{
    /* the tracer registers a new path (FH, with its own id) before the
     * event that uses it gets an id */
    if (e->path && g->hashed)
        need_fh(g, rk, ln, e->path);
    ln->now += gap(rk);
    e->ts = ln->now;
    e->dur = dur;
    ln->now += dur;
    set_hints(ln, e);
    emit(g, rk, ln, e);
}

/* A write of e->ret bytes that takes dur, issued as n calls back to back
 * (--ckpt-write-split): the same draws as leaf() and the same end on the
 * lane clock, so nothing after it moves. Bytes and duration split alike:
 * every call but the last gets the floor of the share, the last the rest;
 * positioned writes advance their offset. n = 1 is exactly leaf(). */
static void leaf_split(gen *g, rankst *rk, lane *ln, ev *e, uint64_t dur, int n)
{
    if (e->path && g->hashed)
        need_fh(g, rk, ln, e->path);
    ln->now += gap(rk);
    uint64_t ts = ln->now;
    ln->now += dur;
    const int64_t bytes = e->ret, bpart = bytes / n;
    const uint64_t dpart = dur / (uint64_t)n;
    for (int i = 0; i < n; i++) {
        const int last = i == n - 1;
        int64_t b = last ? bytes - bpart * (n - 1) : bpart;
        e->ts = ts;
        e->dur = last ? dur - dpart * (uint64_t)(n - 1) : dpart;
        e->ret = b;
        e->count = b;
        set_hints(ln, e);
        emit(g, rk, ln, e);
        ts += e->dur;
        e->offset += b; /* only positioned writes write it out */
    }
}

static int64_t lane_fd(lane *ln)
{
    int64_t fd = ln->fdnext++;
    if (ln->fdnext > 47)
        ln->fdnext = 16;
    return fd;
}

/* The descriptor for a new open. Without --prefetch no two lanes of a
 * process have files open at the same time and each lane counts on its
 * own. With --prefetch a worker reads while the main thread checkpoints, so
 * the process hands out the numbers: concurrent opens get distinct fds, and
 * a number comes back only 32 opens (several steps) later, after its last
 * use has ended. */
static int64_t new_fd(const gen *g, rankst *rk, lane *ln)
{
    return lane_fd(g->o.prefetch ? &rk->ln[0] : ln);
}

/* Duration of moving `bytes` at a bandwidth of lo..hi bytes per us. */
static uint64_t xfer_us(rankst *rk, uint64_t bytes, uint64_t lo, uint64_t hi)
{
    return 2 + bytes / rng_range(&rk->wr, lo, hi) + rng_below(&rk->wr, 40);
}

/* ------------------------------------------------------------------ */
/* Workload                                                            */
/* ------------------------------------------------------------------ */

#define LEAF(g, rk, ln, dur, ...)          \
    do {                                   \
        ev e_ = {__VA_ARGS__};             \
        leaf((g), (rk), (ln), &e_, (dur)); \
    } while (0)

static void write_header(gen *g, rankst *rk)
{
    lane *ln = &rk->ln[0];
    outfile *o = &rk->out;
    if (g->o.era != ERA_V2) { /* v2: one JSON object per line, no brackets */
        char *p = out_reserve(o, 8);
        *p++ = '[';
        *p++ = '\n';
        out_commit(o, p);
    }
    rk->space_first = g->o.era == ERA_QUOTED;
    if (g->o.era == ERA_V0 || g->o.era == ERA_QUOTED)
        return;
    char pidtxt[32], rname[32];
    snprintf(pidtxt, sizeof pidtxt, "%llu", (unsigned long long)rk->pid);
    snprintf(rname, sizeof rname, "Rank %d", rk->rank);
    if (g->hashed) {
        const hostent *h = &g->hosts[rk->host];
        write_meta(g, rk, ln, ln->next_id++, "HH", h->name, strlen(h->name), h->hash, NULL);
    }
    write_meta(g, rk, ln, ln->next_id++, "thread_name", pidtxt, strlen(pidtxt), 0, "thread_name");
    write_meta(g, rk, ln, ln->next_id++, "process_name", rname, strlen(rname), 0, "process_name");
    if (g->hashed) {
        write_meta(g, rk, ln, ln->next_id++, "SH", CMDLINE, strlen(CMDLINE), g->cmd_hash, NULL);
        write_meta(g, rk, ln, ln->next_id++, "SH", EXEC_NAME, strlen(EXEC_NAME), g->exec_hash, NULL);
    }
    if (g->o.era == ERA_V2)
        write_pr(g, rk);
}

/* Start-up of one rank: tracer start, DLIO reading its config, walking the
 * data set, creating the checkpoint roots. */
static void gen_startup(gen *g, rankst *rk)
{
    lane *ln = &rk->ln[0];
    rng *r = &rk->wr;
    ln->now = g->o.start + (uint64_t)rk->rank * 53 + rng_below(r, 2000);
    write_header(g, rk);
    {
        ev e = {.func = F_START, .ppid = (int64_t)rk->pid - 2};
        leaf(g, rk, ln, &e, 0);
    }
    ln->now += rng_range(r, 150000, 250000); /* Python imports */
    begin(g, rk, ln, F_INIT);
    {
        uint64_t cfg = rng_range(r, 1500, 2500);
        LEAF(g, rk, ln, rng_range(r, 200, 600), .func = F_VALIDATE);
        LEAF(g, rk, ln, rng_range(r, 20, 300), .func = F_XSTAT, .path = g->config_file);
        LEAF(g, rk, ln, rng_range(r, 30, 400), .func = F_FOPEN, .path = g->config_file, .mode = 0);
        LEAF(g, rk, ln, rng_range(r, 10, 50), .func = F_FREAD, .path = g->config_file, .size = 1,
             .count = 65536, .ret = (int64_t)cfg);
        LEAF(g, rk, ln, rng_range(r, 2, 6), .func = F_FREAD, .path = g->config_file, .size = 1,
             .count = 65536, .ret = 0);
        LEAF(g, rk, ln, rng_range(r, 5, 30), .func = F_FCLOSE, .path = g->config_file, .ret = 0);
        begin(g, rk, ln, F_WALK);
        LEAF(g, rk, ln, rng_range(r, 1000, 5000), .func = F_OPENDIR, .path = g->data_dir);
        end(g, rk, ln);
        begin(g, rk, ln, F_GETNODE);
        LEAF(g, rk, ln, rng_range(r, 300, 1500), .func = F_XSTAT, .path = g->data_dir);
        LEAF(g, rk, ln, rng_range(r, 300, 1500), .func = F_XSTAT, .path = g->pool_path[0]);
        end(g, rk, ln);
    }
    end(g, rk, ln);
    begin(g, rk, ln, F_CKPT_INIT);
    LEAF(g, rk, ln, rng_range(r, 50, 400), .func = F_MKDIR, .path = g->ckpt_root[0], .mode = 511);
    LEAF(g, rk, ln, rng_range(r, 5, 50), .func = F_MKDIR, .path = g->ckpt_root[1], .mode = 511);
    end(g, rk, ln);
}

/* One sample read by a data-loader worker: HDF5-like small header reads,
 * then the data in chunks, mostly sequential. */
static void sample_io(gen *g, rankst *rk, lane *ln, int f)
{
    rng *r = &rk->wr;
    uint32_t path = g->pool_path[f];
    int64_t size = (int64_t)g->pool_size[f];
    int64_t fd = new_fd(g, rk, ln);
    int use_read = rng_below(r, 5) == 0;
    int random = !use_read && rng_below(r, 10) == 0;
    int64_t chunk = (int64_t)chunk_kib[rng_below(r, 16)] * 1024;
    uint64_t sl = g->o.prefetch ? PF_SLOW : 1; /* bandwidth divisor */

    LEAF(g, rk, ln, rng_range(r, 20, 400), .func = F_XSTAT, .path = path);
    LEAF(g, rk, ln, rng_range(r, 100, 1500), .func = F_OPEN64, .path = path, .ret = fd,
         .flags = 0, .mode = 0);
    if (use_read) {
        /* h5py through read(): find the size, then rewind */
        LEAF(g, rk, ln, rng_range(r, 1, 4), .func = F_LSEEK64, .path = path, .fd = fd,
             .ret = size, .offset = 0, .whence = 2);
        LEAF(g, rk, ln, rng_range(r, 1, 4), .func = F_LSEEK64, .path = path, .fd = fd, .ret = 0,
             .offset = 0, .whence = 0);
        LEAF(g, rk, ln, rng_range(r, 3, 15), .func = F_READ, .path = path, .fd = fd, .ret = 8,
             .count = 8);
        LEAF(g, rk, ln, rng_range(r, 3, 15), .func = F_READ, .path = path, .fd = fd, .ret = 2040,
             .count = 2040);
        int64_t off = 2048;
        while (off < size) {
            int64_t c = size - off < chunk ? size - off : chunk;
            LEAF(g, rk, ln, xfer_us(rk, (uint64_t)c, 900 / sl, 2600 / sl), .func = F_READ,
                 .path = path, .fd = fd, .ret = c, .count = c);
            off += c;
        }
        /* the read that finds end of file moves no bytes */
        LEAF(g, rk, ln, rng_range(r, 2, 8), .func = F_READ, .path = path, .fd = fd, .ret = 0,
             .count = chunk);
    } else {
        LEAF(g, rk, ln, rng_range(r, 3, 15), .func = F_PREAD64, .path = path, .fd = fd, .ret = 8,
             .count = 8, .offset = 0);
        LEAF(g, rk, ln, rng_range(r, 3, 15), .func = F_PREAD64, .path = path, .fd = fd,
             .ret = 512, .count = 512, .offset = 96);
        if (random) {
            /* chunks in reverse order: every offset breaks the sequence */
            int64_t n = (size - 2048 + chunk - 1) / chunk;
            for (int64_t i = n - 1; i >= 0; i--) {
                int64_t off = 2048 + i * chunk;
                int64_t c = size - off < chunk ? size - off : chunk;
                LEAF(g, rk, ln, xfer_us(rk, (uint64_t)c, 600 / sl, 2000 / sl), .func = F_PREAD64,
                     .path = path, .fd = fd, .ret = c, .count = c, .offset = off);
            }
        } else {
            int64_t off = 2048;
            while (off < size) {
                int64_t c = size - off < chunk ? size - off : chunk;
                int64_t got = c;
                if (c > 8192 && rng_below(r, 32) == 0)
                    got = c / 2 + (int64_t)rng_below(r, (uint64_t)(c / 2)); /* short read */
                LEAF(g, rk, ln, xfer_us(rk, (uint64_t)got, 900 / sl, 2600 / sl), .func = F_PREAD64,
                     .path = path, .fd = fd, .ret = got, .count = c, .offset = off);
                off += got;
            }
        }
    }
    LEAF(g, rk, ln, rng_range(r, 20, 700), .func = F_CLOSE, .path = path, .fd = fd, .ret = 0);
}

/* Writes of one checkpoint file through POSIX. */
static void ckpt_posix_file(gen *g, rankst *rk, lane *ln, const char *name, int model, int ssd)
{
    rng *r = &rk->wr;
    uint64_t lo = ssd ? 2000 : 800, hi = ssd ? 4000 : 2000;
    uint32_t path = path_id(g, name);
    int64_t fd = new_fd(g, rk, ln);
    const int split = g->o.ckpt_split;
    LEAF(g, rk, ln, rng_range(r, 100, ssd ? 600 : 3000), .func = F_OPEN64, .path = path,
         .ret = fd, .flags = 577, .mode = 438);
    int64_t off = 0;
    if (model) {
        /* the model state goes out in two large positioned writes */
        for (int i = 0; i < 2; i++) {
            int64_t c = (int64_t)rng_range(r, 64, 255) << 20;
            uint64_t d = xfer_us(rk, (uint64_t)c, lo, hi);
            ev e = {.func = F_PWRITE64, .path = path, .fd = fd, .ret = c, .count = c, .offset = off};
            leaf_split(g, rk, ln, &e, d, split);
            off += c;
        }
        LEAF(g, rk, ln, rng_range(r, ssd ? 2000 : 10000, ssd ? 20000 : 80000), .func = F_FSYNC,
             .path = path, .fd = fd, .ret = 0);
    } else {
        /* torch.save of a layer: a small header, big tensors, a tail */
        LEAF(g, rk, ln, rng_range(r, 5, 40), .func = F_WRITE, .path = path, .fd = fd, .ret = 512,
             .count = 512);
        int n = 1 + (int)rng_below(r, 2);
        for (int i = 0; i < n; i++) {
            int64_t c = (int64_t)rng_range(r, 4096, 16383) * 4096; /* 16-64 MiB */
            uint64_t d = xfer_us(rk, (uint64_t)c, lo, hi);
            ev e = {.func = F_WRITE, .path = path, .fd = fd, .ret = c, .count = c};
            leaf_split(g, rk, ln, &e, d, split);
        }
        int64_t t = (int64_t)rng_range(r, 4 << 20, 16 << 20);
        uint64_t d = xfer_us(rk, (uint64_t)t, lo, hi);
        ev e = {.func = F_WRITE, .path = path, .fd = fd, .ret = t, .count = t};
        leaf_split(g, rk, ln, &e, d, split);
    }
    LEAF(g, rk, ln, rng_range(r, 20, ssd ? 300 : 2000), .func = F_CLOSE, .path = path, .fd = fd,
         .ret = 0);
}

static void gen_checkpoint(gen *g, rankst *rk, lane *ln, int epoch, int gstep, int nckpt)
{
    rng *r = &rk->wr;
    /* by default alternate node-local SSD and Lustre */
    int ssd = g->o.ckpt_fs == CKFS_BOTH ? nckpt % 2 == 1 : g->o.ckpt_fs == CKFS_SSD;
    uint64_t lo = ssd ? 2000 : 800, hi = ssd ? 4000 : 2000;
    char dir[256], name[320];
    snprintf(dir, sizeof dir, "%s/global_epoch%d_step%d", ssd ? CKPT_SSD : CKPT_LUSTRE, epoch,
             gstep);
    ev *c = begin(g, rk, ln, F_SAVECKPT);
    c->epoch = epoch;
    c->step = gstep;
    LEAF(g, rk, ln, rng_range(r, 50, 500), .func = F_MKDIR, .path = path_id(g, dir), .mode = 511);
    for (int l = 0; l < 2; l++) {
        snprintf(name, sizeof name, "%s/layer-%d-%d-600-3.pt", dir, l, rk->rank);
        ckpt_posix_file(g, rk, ln, name, 0, ssd);
    }
    snprintf(name, sizeof name, "%s/model-0-%d.pt", dir, rk->rank);
    ckpt_posix_file(g, rk, ln, name, 1, ssd);

    /* optimizer state through STDIO; fwrite counts items, not bytes */
    snprintf(name, sizeof name, "%s/optimizer-0-%d.pt", dir, rk->rank);
    uint32_t path = path_id(g, name);
    LEAF(g, rk, ln, rng_range(r, 100, ssd ? 600 : 3000), .func = F_FOPEN, .path = path, .mode = 1);
    {
        int64_t items = (int64_t)rng_range(r, 64u << 20, 255u << 20); /* x4: 256 MiB-1 GiB */
        LEAF(g, rk, ln, xfer_us(rk, (uint64_t)items * 4, lo, hi), .func = F_FWRITE, .path = path,
             .size = 4, .count = items, .ret = items);
    }
    /* now and then a huge optimizer state, so that the top size bins fill */
    uint64_t big = rng_below(r, 8);
    if (big == 0) {
        int64_t items = (int64_t)rng_range(r, 540000000, 700000000); /* x8: above 4 GiB */
        LEAF(g, rk, ln, xfer_us(rk, (uint64_t)items * 8, lo, hi), .func = F_FWRITE, .path = path,
             .size = 8, .count = items, .ret = items);
    } else if (big < 3) {
        int64_t items = (int64_t)rng_range(r, 300000000, 900000000); /* x4: 1-4 GiB */
        LEAF(g, rk, ln, xfer_us(rk, (uint64_t)items * 4, lo, hi), .func = F_FWRITE, .path = path,
             .size = 4, .count = items, .ret = items);
    } else {
        int64_t items = (int64_t)rng_range(r, 1u << 20, 4u << 20); /* x4: 4-16 MiB */
        LEAF(g, rk, ln, xfer_us(rk, (uint64_t)items * 4, lo, hi), .func = F_FWRITE, .path = path,
             .size = 4, .count = items, .ret = items);
    }
    LEAF(g, rk, ln, rng_range(r, 50, ssd ? 500 : 5000), .func = F_FCLOSE, .path = path, .ret = 0);
    end(g, rk, ln);
}

/* Epoch start on one rank: _train opens and the two workers are forked. A
 * fork is traced twice, in the parent (ret = child) and in the child
 * (ret 0, its own tid, a little longer), as real traces show. */
static void gen_epoch_start(gen *g, rankst *rk, int epoch, uint64_t at)
{
    lane *m = &rk->ln[0];
    rng *r = &rk->wr;
    if (m->now < at)
        m->now = at;
    ev *t = begin(g, rk, m, F_TRAIN);
    t->epoch = epoch;
    for (int w = 1; w < NLANES; w++) {
        lane *c = &rk->ln[w];
        ev pe = {.func = F_FORK, .ret = (int64_t)c->tid};
        uint64_t d = rng_range(r, 15000, 25000);
        leaf(g, rk, m, &pe, d);
        /* the child starts life with the parent's id counter and stack */
        c->next_id = pe.id + 1;
        c->root_pidx = pe.pidx;
        c->root_level = pe.level;
        c->depth = 0;
        ev ce = {.func = F_FORK, .ret = 0};
        ce.ts = pe.ts;
        ce.dur = d + rng_range(r, 100, 300);
        ce.id = pe.id;
        ce.pidx = pe.pidx;
        ce.level = pe.level;
        c->now = ce.ts + ce.dur;
        emit(g, rk, c, &ce);
    }
}

/* The batch of one step, read by worker w from its lane clock on. */
static void read_batch(gen *g, rankst *rk, lane *w, int step)
{
    rng *r = &rk->wr;
    int nr = g->o.ranks;
    for (int b = 0; b < BATCH; b++) {
        int64_t idx = ((int64_t)(step - 1) * BATCH + b) * nr + rk->rank;
        int f = (int)rng_below(r, NPOOL);
        ev *gi = begin(g, rk, w, F_GETITEM);
        gi->step = step;
        gi->img = idx;
        ev *ri = begin(g, rk, w, F_READIDX);
        ri->step = step;
        ri->img = idx;
        sample_io(g, rk, w, f);
        end(g, rk, w);
        end(g, rk, w);
    }
}

/* One training step on one rank. The main thread waits in loop.iter for
 * the step's batch, then computes (and checkpoints) inside loop.yield.
 * Without --prefetch the batch is read while the main thread waits, so no
 * read overlaps compute. With --prefetch, as DLIO's PyTorch loader does,
 * the other worker starts on the next step's batch as soon as this one is
 * handed over: it reads during compute, and what it has not finished when
 * compute ends runs on during the checkpoint or the next loop.iter. Only
 * the first batch of an epoch is read while the main thread waits. */
static void gen_step(gen *g, rankst *rk, int epoch, int step, int gstep, uint64_t at)
{
    lane *m = &rk->ln[0];
    lane *w = &rk->ln[1 + gstep % 2]; /* the workers take turns */
    rng *r = &rk->wr;
    int nr = g->o.ranks;
    int pf = g->o.prefetch;
    if (m->now < at)
        m->now = at;
    m->now += rng_below(r, 300); /* ranks do not leave a barrier together */
    int64_t last = ((int64_t)(step - 1) * BATCH + BATCH - 1) * nr + rk->rank;
    ev *it = begin(g, rk, m, F_ITER);
    it->step = step;
    it->img = last;
    if (!pf || step == 1) {
        if (w->now < m->now)
            w->now = m->now;
        read_batch(g, rk, w, step);
    }
    if (m->now < w->now)
        m->now = w->now;
    end(g, rk, m);
    ev *y = begin(g, rk, m, F_YIELD);
    y->step = step;
    y->img = last;
    if (pf && step < g->steps) {
        lane *nw = &rk->ln[1 + (gstep + 1) % 2];
        if (nw->now < y->ts)
            nw->now = y->ts;
        read_batch(g, rk, nw, step + 1);
    }
    LEAF(g, rk, m, pf ? rng_range(r, PF_CPU_LO, PF_CPU_HI) : rng_range(r, 18000, 26000),
         .func = F_COMPUTE, .epoch = epoch);
    if (gstep % g->ckpt_every == 0)
        gen_checkpoint(g, rk, m, epoch, gstep, gstep / g->ckpt_every);
    end(g, rk, m);
}

/* ------------------------------------------------------------------ */
/* Setup                                                               */
/* ------------------------------------------------------------------ */

static void lane_init(gen *g, lane *ln, uint64_t pid, uint64_t tid)
{
    memset(ln, 0, sizeof *ln);
    ln->tid = tid;
    ln->next_id = 1;
    ln->root_pidx = -1;
    ln->root_level = 1;
    ln->fdnext = 16;
    char *p = ln->pt;
    p = PUT(p, ",\"pid\":");
    p = put_num(p, pid, g->quoted);
    p = PUT(p, ",\"tid\":");
    p = put_num(p, tid, g->quoted);
    ln->ptlen = (uint32_t)(p - ln->pt);
}

/* Names and categories as written: the table's, --ckpt-func, and the AI
 * logging names of DLIO (--ai-logging) for the python-level events. */
static void set_names(gen *g)
{
    static const struct {
        unsigned char f, cat;
        const char *name;
    } ai[] = {
        {F_RUN, C_PIPELINE, "ai_root"},      {F_TRAIN, C_PIPELINE, "train"},
        {F_COMPUTE, C_COMPUTE, "compute"},   {F_ITER, C_DATALOADER, "fetch.iter"},
        {F_YIELD, C_DATALOADER, "fetch.yield"}, {F_GETITEM, C_DATA, "item"},
        {F_FINALIZE, C_DATA, "finalize"},    {F_READIDX, C_READER, "read_index"},
        {F_CKPT_INIT, C_CKPT, "checkpoint.init"}, {F_SAVECKPT, C_CKPT, "checkpoint.save"},
        {F_INIT, C_PIPELINE, "initialize"},
    };
    for (int f = 0; f < NFUNC; f++) {
        g->fname[f] = funcs[f].name;
        g->fcat[f] = funcs[f].cat;
    }
    if (g->o.ckpt_func)
        g->fname[F_SAVECKPT] = g->o.ckpt_func;
    if (g->o.ai)
        for (size_t i = 0; i < sizeof ai / sizeof ai[0]; i++) {
            g->fname[ai[i].f] = ai[i].name;
            g->fcat[ai[i].f] = ai[i].cat;
        }
    /* the layers in the preset's order: the AI-logging one has epoch */
    g->nlorder = 0;
    for (int l = 0; l < NLAYER; l++) {
        if (l == L_EPOCH)
            continue;
        g->lorder[g->nlorder++] = l;
        if (l == L_TRAINING && g->o.ai)
            g->lorder[g->nlorder++] = L_EPOCH;
    }
}

static void build_fragments(gen *g)
{
    for (int f = 0; f < NFUNC; f++) {
        char buf[256];
        char *p = buf;
        p = PUT(p, "\"name\":\"");
        p = put_mem(p, func_name(g, f), strlen(func_name(g, f)));
        p = PUT(p, "\",\"cat\":\"");
        p = put_mem(p, cat_names[g->fcat[f]], strlen(cat_names[g->fcat[f]]));
        *p++ = '"';
        if (g->modern) {
            p = PUT(p, ",\"type\":");
            p = put_u64(p, cat_type[g->fcat[f]]);
        }
        g->ffraglen[f] = (uint32_t)(p - buf);
        g->ffrag[f] = xstrndup(buf, g->ffraglen[f]);
        g->fmask[f] = func_base_mask(g, f);
    }
    time_t t0 = (time_t)(g->o.start / 1000000);
    struct tm tm;
    gmtime_r(&t0, &tm);
    strftime(g->date, sizeof g->date, "%a %b %d %H:%M:%S %Y", &tm);
}

/* Epochs, steps per epoch and the checkpoint interval that bring the total
 * number of ph=X events close to --events. Per-step cost measured on the
 * model above: ~3 main-lane events + BATCH samples of ~13.6 events. */
static void plan(gen *g)
{
    const double per_sample = 13.6, per_step = 3.0 + BATCH * per_sample;
    const double fixed = 22.0, per_epoch = 6.0, per_ckpt = 22.0;
    double target = (double)g->o.events / g->o.ranks - fixed;
    long steps = (long)(target / per_step + 0.5);
    if (steps < 1)
        steps = 1;
    int every = steps < 20 ? (int)(steps / 2 > 1 ? steps / 2 : 1)
                           : (int)(steps / 64 > 10 ? (steps + 63) / 64 : 10);
    int epochs = (int)(steps / 10 < 1 ? 1 : steps / 10 > 5 ? 5 : steps / 10);
    double steps_d = (target - epochs * per_epoch) / (per_step + per_ckpt / every);
    steps = (long)(steps_d + 0.5);
    if (steps < 1)
        steps = 1;
    long spe = (steps + epochs / 2) / epochs;
    if (spe < 1)
        spe = 1;
    if (spe > 100000000L)
        die("--events too large");
    g->epochs = epochs;
    g->steps = (int)spe;
    g->ckpt_every = every;
}

static void setup(gen *g)
{
    const opts *o = &g->o;
    g->hashed = o->era >= ERA_HASH16;
    g->hints = o->era >= ERA_INLINE;
    g->has_id = o->era != ERA_V0;
    g->quoted = o->era == ERA_QUOTED;
    g->modern = o->era >= ERA_NEWEST;
    g->late = g->hashed && o->late != 0;
    g->tmin = UINT64_MAX;
    g->npaths = 1; /* id 0 = no file */
    g->paths_cap = 1024;
    g->paths = xcalloc(g->paths_cap, sizeof *g->paths);
    set_names(g);
    build_fragments(g);

    g->nhosts = (o->ranks + o->rpn - 1) / o->rpn;
    g->hosts = xcalloc((size_t)g->nhosts, sizeof *g->hosts);
    for (int h = 0; h < g->nhosts; h++) {
        hostent *he = &g->hosts[h];
        snprintf(he->name, sizeof he->name, "node%02d", h + 1);
        char *p = he->frag;
        if (g->hashed) {
            he->hash = name_hash(g, he->name, strlen(he->name));
            p = PUT(p, "\"hhash\":");
            /* the newest tracers write hhash as a string */
            p = put_hash(g, p, he->hash, g->modern);
        } else {
            p = PUT(p, "\"hostname\":\"");
            p = put_mem(p, he->name, strlen(he->name));
            *p++ = '"';
        }
        he->fraglen = (uint32_t)(p - he->frag);
    }
    if (g->hashed) {
        g->cmd_hash = name_hash(g, CMDLINE, strlen(CMDLINE));
        g->exec_hash = name_hash(g, EXEC_NAME, strlen(EXEC_NAME));
    }

    /* The data set: shared by all ranks, sizes fixed by the seed. */
    rng pr;
    rng_seed(&pr, o->seed, 0xda7aULL);
    g->data_dir = path_id(g, DATA_DIR);
    for (int i = 0; i < NPOOL; i++) {
        char name[256];
        snprintf(name, sizeof name, "%s/img_%04d_of_%04d.h5", DATA_DIR, i, NPOOL);
        g->pool_path[i] = path_id(g, name);
        g->pool_size[i] = rng_range(&pr, 256u << 10, 4u << 20);
    }
    g->config_file = path_id(g, CONFIG_FILE);
    /* the roots of both places, or twice the root of the only one */
    g->ckpt_root[0] = path_id(g, o->ckpt_fs == CKFS_SSD ? CKPT_SSD : CKPT_LUSTRE);
    g->ckpt_root[1] = path_id(g, o->ckpt_fs == CKFS_LUSTRE ? CKPT_LUSTRE : CKPT_SSD);
    plan(g);

    g->rk = xcalloc((size_t)o->ranks, sizeof *g->rk);
    const char *ext = o->gz == GZ_NONE ? "pfw" : "pfw.gz";
    for (int i = 0; i < o->ranks; i++) {
        rankst *rk = &g->rk[i];
        rk->rank = i;
        rk->host = i / o->rpn;
        rk->pid = PID_BASE + 17ULL * (uint64_t)i;
        for (int l = 0; l < NLANES; l++)
            lane_init(g, &rk->ln[l], rk->pid, rk->pid + (uint64_t)l);
        rng_seed(&rk->wr, o->seed, 2ULL * (uint64_t)i + 1);
        rng_seed(&rk->fr, o->seed, 2ULL * (uint64_t)i + 2);
        size_t n = strlen(o->outdir) + 64;
        rk->outpath = xmalloc(n);
        snprintf(rk->outpath, n, "%s/trace-%d-of-%d.%s", o->outdir, i, o->ranks, ext);
        out_open(&rk->out, rk->outpath, o->gz, o->level, o->ranks <= 64);
        if (o->aggregate)
            rk->agt = xcalloc(NLANES, sizeof *rk->agt);
    }
    if (o->counters)
        g->cst = xcalloc((size_t)g->nhosts * NSERIES, sizeof *g->cst);
}

/* Fold the busy intervals collected so far. Only at points where no event
 * still to be written can start before what is folded: between steps, with
 * the layers of the open frames (run, _train) left out. */
static void fold_busy(gen *g)
{
    for (int l = 0; l < NLAYER; l++)
        if (g->busy[l].open == 0)
            busy_fold(&g->busy[l]);
}

/* With --prefetch a step starts when the main threads are through the
 * previous one; the workers may still be reading the batch it needs. Every
 * event of the coming step starts at t or later, so the busy intervals can
 * be folded up to t. */
static uint64_t step_barrier(gen *g)
{
    uint64_t t = 0;
    for (int i = 0; i < g->o.ranks; i++)
        if (g->rk[i].ln[0].now > t)
            t = g->rk[i].ln[0].now;
    t += 50;
    for (int l = 0; l < NLAYER; l++)
        if (g->busy[l].open == 0)
            busy_fold_before(&g->busy[l], t);
    return t;
}

static uint64_t barrier(gen *g)
{
    uint64_t t = 0;
    for (int i = 0; i < g->o.ranks; i++) {
        for (int l = 0; l < NLANES; l++)
            if (g->rk[i].ln[l].now > t)
                t = g->rk[i].ln[l].now;
    }
    return t + 50;
}

static void finish_rank(gen *g, rankst *rk, int last)
{
    lane *m = &rk->ln[0];
    end(g, rk, m); /* DLIOBenchmark.run */
    m->now += rng_range(&rk->wr, 1000, 5000);
    {
        ev e = {.func = F_END, .count = (int64_t)rk->nx + 1};
        leaf(g, rk, m, &e, 0);
    }
    flush_pending(g, rk);
    /* v0: the last rank was never finalized, no closing bracket; v2 has none */
    if (!(g->o.era == ERA_V0 && last) && g->o.era != ERA_V2) {
        char *p = out_reserve(&rk->out, 2);
        *p++ = ']';
        out_commit(&rk->out, p);
    }
    out_close(&rk->out);
}

static void generate(gen *g)
{
    int nr = g->o.ranks;
    for (int i = 0; i < nr; i++)
        gen_startup(g, &g->rk[i]);
    uint64_t at = barrier(g);
    for (int i = 0; i < nr; i++) {
        rankst *rk = &g->rk[i];
        rk->ln[0].now = at + rng_below(&rk->wr, 200);
        ev *run = begin(g, rk, &rk->ln[0], F_RUN);
        run->epoch = g->epochs;
    }
    int gstep = 0;
    for (int e = 1; e <= g->epochs; e++) {
        at = barrier(g);
        for (int i = 0; i < nr; i++)
            gen_epoch_start(g, &g->rk[i], e, at + rng_below(&g->rk[i].wr, 200));
        for (int s = 1; s <= g->steps; s++) {
            gstep++;
            if (g->o.prefetch) {
                at = step_barrier(g);
            } else {
                fold_busy(g);
                at = barrier(g);
            }
            for (int i = 0; i < nr; i++)
                gen_step(g, &g->rk[i], e, s, gstep, at);
        }
        for (int i = 0; i < nr; i++) {
            rankst *rk = &g->rk[i];
            LEAF(g, rk, &rk->ln[0], rng_range(&rk->wr, 3, 10), .func = F_FINALIZE, .epoch = e);
            end(g, rk, &rk->ln[0]); /* _train */
        }
    }
    for (int i = 0; i < nr; i++)
        finish_rank(g, &g->rk[i], i == nr - 1);
    for (int l = 0; l < NLAYER; l++)
        busy_fold(&g->busy[l]);
    if (g->tx)
        tx_finish(g);
}

/* ------------------------------------------------------------------ */
/* Truth file                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *key;
    const agg *a;
} keyrow;

static int keyrow_cmp(const void *a, const void *b)
{
    return strcmp(((const keyrow *)a)->key, ((const keyrow *)b)->key);
}

static void put_key(FILE *f, const char *k)
{
    if (strpbrk(k, ",\"\n\r")) {
        fputc('"', f);
        for (; *k; k++) {
            if (*k == '"')
                fputc('"', f);
            fputc(*k, f);
        }
        fputc('"', f);
    } else {
        fputs(k, f);
    }
}

static void row(FILE *f, const char *dim, const char *key, uint64_t c, uint64_t t, uint64_t b)
{
    fputs(dim, f);
    fputc(',', f);
    put_key(f, key);
    fprintf(f, ",%llu,%llu,%llu\n", (unsigned long long)c, (unsigned long long)t,
            (unsigned long long)b);
}

static void rows_sorted(FILE *f, const char *dim, keyrow *v, size_t n)
{
    qsort(v, n, sizeof *v, keyrow_cmp);
    for (size_t i = 0; i < n; i++)
        row(f, dim, v[i].key, v[i].a->count, v[i].a->time, v[i].a->bytes);
}

/* Keys with their own storage, for rows whose keys are made up here. */
typedef struct {
    char *key;
    uint64_t c, t, b;
} ownrow;

static int ownrow_cmp(const void *a, const void *b)
{
    return strcmp(((const ownrow *)a)->key, ((const ownrow *)b)->key);
}

static void ownrows_out(FILE *f, const char *dim, ownrow *v, size_t n)
{
    qsort(v, n, sizeof *v, ownrow_cmp);
    for (size_t i = 0; i < n; i++) {
        row(f, dim, v[i].key, v[i].c, v[i].t, v[i].b);
        free(v[i].key);
    }
}

static char *fmt_key(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_key(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return xstrndup(buf, strlen(buf));
}

/* procio, proccompute, procexposed: per pid in rank order, then the sum. */
static void tx_write_proc(gen *g, FILE *f)
{
    static const char *const dims[3] = {"procio", "proccompute", "procexposed"};
    for (int d = 0; d < 3; d++) {
        uint64_t sum = 0;
        for (int i = 0; i < g->o.ranks; i++) {
            const struct rktx *x = g->rk[i].tx;
            uint64_t v = d == 0 ? x->io_us : d == 1 ? x->cpu_us : x->exp_us;
            char k[32];
            snprintf(k, sizeof k, "%llu", (unsigned long long)g->rk[i].pid);
            row(f, dims[d], k, 0, v, 0);
            sum += v;
        }
        row(f, dims[d], "*", 0, sum, 0);
    }
}

/* One row per layer; the value goes to the count column or the time column. */
static void tx_write_layers(const gen *g, FILE *f, const char *dim, const uint64_t *val,
                            int as_count)
{
    for (int i = 0; i < g->nlorder; i++) {
        int l = g->lorder[i];
        char k[64];
        snprintf(k, sizeof k, "layer:%s", layer_names[l]);
        row(f, dim, k, as_count ? val[l] : 0, as_count ? 0 : val[l], 0);
    }
}

/* The slowest process of each layer with events; ties: the smaller pid,
 * and pids ascend with the rank. */
static void tx_write_maxproc(gen *g, FILE *f)
{
    for (int i = 0; i < g->nlorder; i++) {
        int l = g->lorder[i];
        if (g->layer[l].count == 0)
            continue;
        int best = 0;
        for (int r = 1; r < g->o.ranks; r++)
            if (g->rk[r].layer_dur[l] > g->rk[best].layer_dur[l])
                best = r;
        char k[64];
        snprintf(k, sizeof k, "layer:%s", layer_names[l]);
        row(f, "maxprocpid", k, g->rk[best].pid, g->rk[best].layer_dur[l], 0);
    }
}

static void tx_write_self(gen *g, FILE *f)
{
    ownrow v[NFUNC];
    size_t n = 0;
    for (int i = 0; i < NFUNC; i++)
        if (g->func[i].count)
            v[n++] = (ownrow){xstrndup(func_name(g, i), strlen(func_name(g, i))), 0, g->tx->self[i], 0};
    ownrows_out(f, "self", v, n);
}

/* seqcalls / randcalls: per file with judged calls, the total, per layer. */
static void tx_write_access(gen *g, FILE *f, int seq)
{
    truthx *t = g->tx;
    const char *dim = seq ? "seqcalls" : "randcalls";
    ownrow *v = xmalloc((t->pcap + 1) * sizeof *v);
    size_t n = 0;
    for (size_t p = 1; p < t->pcap && p < g->npaths; p++)
        if (t->pseq[p] + t->prnd[p] > 0)
            v[n++] = (ownrow){xstrndup(g->paths[p].str, g->paths[p].len),
                              seq ? t->pseq[p] : t->prnd[p], 0, 0};
    ownrows_out(f, dim, v, n);
    free(v);
    const uint64_t *c = seq ? t->seq : t->rnd;
    row(f, dim, "*", c[S_ALL], 0, 0);
    tx_write_layers(g, f, dim, c, 1);
}

/* files and sharedfiles per layer, then for everything ('*'). */
static void tx_write_files(gen *g, FILE *f)
{
    truthx *t = g->tx;
    uint64_t files[NSLOT] = {0}, shared[NSLOT] = {0};
    for (size_t i = 0; i < t->pcap * NSLOT; i++) {
        files[i % NSLOT] += t->pfirst[i] != 0;
        shared[i % NSLOT] += t->pshared[i];
    }
    tx_write_layers(g, f, "sharedfiles", shared, 1);
    row(f, "sharedfiles", "*", shared[S_ALL], 0, 0);
    tx_write_layers(g, f, "files", files, 1);
    row(f, "files", "*", files[S_ALL], 0, 0);
}

static void tx_write_steps(gen *g, FILE *f)
{
    truthx *t = g->tx;
    size_t nr = (size_t)g->o.ranks;
    for (size_t s = 0; s < t->scap; s++)
        if (t->cagg[s].count) {
            char k[32];
            snprintf(k, sizeof k, "%zu", s);
            row(f, "ckptstep", k, t->cagg[s].count, t->cagg[s].time, 0);
        }
    for (size_t s = 0; s < t->scap; s++) {
        if (t->cagg[s].count == 0)
            continue;
        const uint64_t *byrank = &t->crk[s * nr];
        size_t best = 0;
        for (size_t r = 1; r < nr; r++)
            if (byrank[r] > byrank[best])
                best = r;
        char k[32];
        snprintf(k, sizeof k, "%zu", s);
        row(f, "ckptstepmax", k, g->rk[best].pid, byrank[best], 0);
    }
}

/* Sums by the step argument: plain sums, exact under --aggregate too. */
static void tx_write_argstep(gen *g, FILE *f)
{
    truthx *t = g->tx;
    /* grouping by the argument's text: "10" sorts before "2" */
    ownrow *v = xmalloc((t->scap + 1) * sizeof *v);
    size_t n = 0;
    if (t->nostep.count)
        v[n++] = (ownrow){xstrndup("", 0), t->nostep.count, t->nostep.time, t->nostep.bytes};
    for (size_t s = 0; s < t->scap; s++)
        if (t->sagg[s].count)
            v[n++] = (ownrow){fmt_key("%zu", s), t->sagg[s].count, t->sagg[s].time,
                              t->sagg[s].bytes};
    ownrows_out(f, "argstep", v, n);
    free(v);
}

static void tx_write_patterns(gen *g, FILE *f)
{
    truthx *t = g->tx;
    ownrow *v = xmalloc((t->npat * NFUNC + 1) * sizeof *v);
    size_t n = 0;
    for (size_t p = 0; p < t->npat; p++)
        for (int fn = 0; fn < NFUNC; fn++) {
            const agg *a = &t->patagg[p * NFUNC + (size_t)fn];
            if (a->count)
                v[n++] = (ownrow){fmt_key("%s|%s", t->pat[p], func_name(g, fn)), a->count, a->time,
                                  a->bytes};
        }
    ownrows_out(f, "patfunc", v, n);
    free(v);
}

static void tx_write(gen *g, FILE *f)
{
    truthx *t = g->tx;
    tx_write_proc(g, f);
    tx_write_layers(g, f, "layerio", t->lio, 0);
    tx_write_layers(g, f, "layerexposed", t->lexp, 0);
    tx_write_layers(g, f, "layercompute", t->lcpu, 0);
    tx_write_maxproc(g, f);
    tx_write_self(g, f);
    tx_write_access(g, f, 1);
    tx_write_access(g, f, 0);
    tx_write_files(g, f);
    tx_write_steps(g, f);
    tx_write_argstep(g, f);
    tx_write_patterns(g, f);
}

/* The plain sums: total and by func, cat, host, file, fs, class, layer,
 * pid; in era v2 also by type and rank. Exact under --aggregate too. */
static void write_truth_sums(gen *g, FILE *f)
{
    size_t cap = g->npaths + NFUNC + NCAT + (size_t)g->nhosts + MAXFS + 8;
    keyrow *v = xmalloc(cap * sizeof *v);
    size_t n;

    row(f, "total", "", g->total.count, g->total.time, g->total.bytes);
    /* the record ts of a folded call is its interval's start, not its own */
    if (!g->o.aggregate)
        row(f, "span", "", 0, g->total.count ? g->tmax - g->tmin : 0, 0);

    n = 0;
    for (int i = 0; i < NFUNC; i++)
        if (g->func[i].count)
            v[n++] = (keyrow){func_name(g, i), &g->func[i]};
    rows_sorted(f, "func", v, n);

    n = 0;
    for (int i = 0; i < NCAT; i++)
        if (g->cat[i].count)
            v[n++] = (keyrow){cat_names[i], &g->cat[i]};
    rows_sorted(f, "cat", v, n);

    n = 0;
    for (int i = 0; i < g->nhosts; i++)
        if (g->hosts[i].a.count)
            v[n++] = (keyrow){g->hosts[i].name, &g->hosts[i].a};
    rows_sorted(f, "host", v, n);

    n = 0;
    if (g->nofile.count)
        v[n++] = (keyrow){"", &g->nofile};
    for (size_t i = 1; i < g->npaths; i++)
        if (g->paths[i].a.count)
            v[n++] = (keyrow){g->paths[i].str, &g->paths[i].a};
    rows_sorted(f, "file", v, n);

    n = 0;
    if (g->nofs.count)
        v[n++] = (keyrow){"", &g->nofs};
    for (int i = 0; i < g->nfs; i++)
        if (g->fs[i].count)
            v[n++] = (keyrow){g->fs_names[i], &g->fs[i]};
    rows_sorted(f, "fs", v, n);
    free(v);

    for (int i = 0; i < NCLASS; i++)
        row(f, "class", class_names[i], g->cls[i].count, g->cls[i].time, g->cls[i].bytes);
    for (int i = 0; i < g->nlorder; i++) {
        const agg *a = &g->layer[g->lorder[i]];
        row(f, "layer", layer_names[g->lorder[i]], a->count, a->time, a->bytes);
    }
    /* pids ascend with the rank */
    for (int i = 0; i < g->o.ranks; i++) {
        char k[32];
        snprintf(k, sizeof k, "%llu", (unsigned long long)g->rk[i].pid);
        row(f, "pid", k, g->rk[i].a.count, g->rk[i].a.time, g->rk[i].a.bytes);
    }
    if (g->o.era != ERA_V2)
        return;
    /* types with events, by number: DFTRACER, LIBC_IO, PYTHON */
    for (int i = 0; i < NTYPE; i++)
        if (g->type[i].count)
            row(f, "type", type_names[i], g->type[i].count, g->type[i].time, g->type[i].bytes);
    /* a file is a rank; its forked children write into it */
    for (int i = 0; i < g->o.ranks; i++) {
        char k[32];
        snprintf(k, sizeof k, "%d", g->rk[i].rank);
        row(f, "rank", k, g->rk[i].a.count, g->rk[i].a.time, g->rk[i].a.bytes);
    }
}

/* Size bins, busy time and the slowest process per layer, then the
 * analysis truth: none of it is a plain sum, so not under --aggregate. */
static void write_truth_analysis(gen *g, FILE *f)
{
    for (int i = 0; i < NBIN; i++)
        row(f, "sizebin", bin_names[i], g->bin[i].count, g->bin[i].time, g->bin[i].bytes);
    for (int i = 0; i < g->nlorder; i++) {
        char k[64];
        snprintf(k, sizeof k, "layer:%s", layer_names[g->lorder[i]]);
        row(f, "busy", k, 0, g->busy[g->lorder[i]].total, 0);
    }
    for (int i = 0; i < g->nlorder; i++) {
        int l = g->lorder[i];
        char k[64];
        uint64_t mx = 0;
        for (int r = 0; r < g->o.ranks; r++)
            if (g->rk[r].layer_dur[l] > mx)
                mx = g->rk[r].layer_dur[l];
        snprintf(k, sizeof k, "layer:%s", layer_names[l]);
        row(f, "maxproc", k, 0, mx, 0);
    }
    tx_write(g, f);
}

/* --aggregate: the calls folded into aggregated records per func (aggcalls)
 * and the longest single call of every func (maxdur, in the count column). */
static void write_truth_agg(gen *g, FILE *f)
{
    ownrow v[NFUNC];
    size_t n = 0;
    for (int i = 0; i < NFUNC; i++)
        if (g->aggc[i].count)
            v[n++] = (ownrow){xstrndup(func_name(g, i), strlen(func_name(g, i))), g->aggc[i].count,
                              g->aggc[i].time, g->aggc[i].bytes};
    ownrows_out(f, "aggcalls", v, n);
    n = 0;
    for (int i = 0; i < NFUNC; i++)
        if (g->func[i].count)
            v[n++] = (ownrow){xstrndup(func_name(g, i), strlen(func_name(g, i))), g->maxdur[i], 0, 0};
    ownrows_out(f, "maxdur", v, n);
}

static void write_truth(gen *g, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("%s: %s", path, strerror(errno));
    fputs("dim,key,count,time_us,bytes\n", f);
    write_truth_sums(g, f);
    if (g->o.aggregate) {
        tx_write_argstep(g, f);
        write_truth_agg(g, f);
    } else {
        write_truth_analysis(g, f);
    }
    if (fflush(f) != 0 || ferror(f))
        die("%s: write failed", path);
    if (fclose(f) != 0)
        die("%s: close failed: %s", path, strerror(errno));
}

/* The counter truth (--counter-truth): per series (NAME.FIELD) and host,
 * then over all hosts ('*'): samples, the mean rounded half up to 6
 * decimals, min and max as the trace writes them. */
typedef struct {
    int series;
    const char *host;
    const struct ctrstat *st;
} ctrrow;

static int ctrrow_cmp(const void *a, const void *b)
{
    const ctrrow *x = a, *y = b;
    int c = strcmp(series_names[x->series], series_names[y->series]);
    return c ? c : strcmp(x->host, y->host);
}

/* sum / den exactly, rounded half up to 6 decimals */
static void put_mean(FILE *f, uint64_t sum, uint64_t den)
{
    uint64_t ip = sum / den, r = sum % den;
    uint64_t fr = (r * 2000000 + den) / (2 * den);
    if (fr == 1000000) {
        ip++;
        fr = 0;
    }
    fprintf(f, "%llu.%06llu", (unsigned long long)ip, (unsigned long long)fr);
}

static void put_ctrval(FILE *f, int series, uint64_t v)
{
    char buf[32];
    char *e = series < NPCT ? put_pct(buf, v) : put_u64(buf, v);
    fwrite(buf, 1, (size_t)(e - buf), f);
}

static void write_counter_truth(gen *g, const char *path)
{
    struct ctrstat all[NSERIES] = {{0, 0, 0, 0}};
    ctrrow *v = xmalloc((size_t)(g->nhosts + 1) * NSERIES * sizeof *v);
    size_t n = 0;
    for (int h = 0; h < g->nhosts; h++)
        for (int s = 0; s < NSERIES; s++) {
            const struct ctrstat *st = &g->cst[(size_t)h * NSERIES + (size_t)s];
            if (st->n == 0)
                continue;
            if (all[s].n == 0 || st->mn < all[s].mn)
                all[s].mn = st->mn;
            if (all[s].n == 0 || st->mx > all[s].mx)
                all[s].mx = st->mx;
            all[s].n += st->n;
            all[s].sum += st->sum;
            v[n++] = (ctrrow){s, g->hosts[h].name, st};
        }
    for (int s = 0; s < NSERIES; s++)
        if (all[s].n)
            v[n++] = (ctrrow){s, "*", &all[s]};
    qsort(v, n, sizeof *v, ctrrow_cmp);
    FILE *f = fopen(path, "w");
    if (!f)
        die("%s: %s", path, strerror(errno));
    fputs("counter,host,samples,mean,min,max\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct ctrstat *st = v[i].st;
        fprintf(f, "%s,%s,%llu,", series_names[v[i].series], v[i].host,
                (unsigned long long)st->n);
        put_mean(f, st->sum, st->n * (v[i].series < NPCT ? 100 : 1));
        fputc(',', f);
        put_ctrval(f, v[i].series, st->mn);
        fputc(',', f);
        put_ctrval(f, v[i].series, st->mx);
        fputc('\n', f);
    }
    free(v);
    if (fflush(f) != 0 || ferror(f))
        die("%s: write failed", path);
    if (fclose(f) != 0)
        die("%s: close failed: %s", path, strerror(errno));
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */
/* ------------------------------------------------------------------ */

static void help(void)
{
    fputs(
        "Usage: dfnav-gen [options] OUTDIR\n"
        "Write synthetic DLIO-benchmark-like DFTracer traces, one file per rank\n"
        "(OUTDIR/trace-R-of-N.pfw or .pfw.gz), and optionally their ground truth.\n"
        "\n"
        "  --seed N            PRNG seed (default 1); output is a pure function of the options\n"
        "  --events N          approximate number of ph=X events over all ranks (default 20000)\n"
        "  --ranks N           processes, one file each (default 4, at most 1000)\n"
        "  --ranks-per-node N  ranks per host node01, node02, ... (default 4)\n"
        "  --era ERA           v0 | quoted | inline | hash16 | hex | u64 | newest | v2\n"
        "                      (default u64). newest: numeric ph, a type field (1\n"
        "                      dftracer, 3 POSIX/STDIO, 6 application), hhash as a\n"
        "                      string, metadata without id. v2 (DFTracer 2.x): as newest,\n"
        "                      with every hash a quoted decimal, no [ ] lines, start\n"
        "                      version 200002, an end record with nested args.cfg\n"
        "                      (time_metric, compression, aggregation_enable) and args.app\n"
        "                      (batch_size, model), and a PR metadata record (args.name\n"
        "                      \"rank\", args.value the rank) in each file\n"
        "  --gzip MODE         none | single | members (default none)\n"
        "  --level N           zlib level 0-9 for gzip (default 6)\n"
        "  --truth FILE        write the ground truth CSV (dim,key,count,time_us,bytes):\n"
        "                      sums by func, cat, host, file, fs, class, layer, pid, size\n"
        "                      bin; busy and slowest process per layer; I/O busy, compute\n"
        "                      and exposed I/O per pid and per layer (procio, proccompute,\n"
        "                      procexposed, layerio, layercompute, layerexposed); the\n"
        "                      slowest pid per layer (maxprocpid); self time per func;\n"
        "                      sequential and random calls per file and layer (seqcalls,\n"
        "                      randcalls); files and sharedfiles per layer; checkpoint\n"
        "                      cost per step (ckptstep, ckptstepmax); sums by the step\n"
        "                      argument (argstep); checkpoint path pattern x func\n"
        "                      (patfunc). Era v2 adds sums by type (DFTRACER, LIBC_IO,\n"
        "                      PYTHON) and by rank (the rank of the file)\n"
        "  --late-metadata     hashed eras: write some FH lines after their first use\n"
        "                      (the default for hashed eras)\n"
        "  --no-late-metadata  write every FH line before its first use\n"
        "  --prefetch          workers read the next step's batch while the main thread computes\n"
        "  --ckpt-fs MODE      checkpoints on both (alternating, default) | lustre | ssd\n"
        "  --ckpt-write-split N  each checkpoint data write() / pwrite64() as N calls, same\n"
        "                      bytes and time in all (1-64, default 1)\n"
        "  --start-us N        run start in us since the epoch (default 1744611912000000)\n"
        "  --ckpt-func NAME    name of the checkpoint function (default\n"
        "                      PyTorchCheckpointing.save_checkpoint; newer DLIO logs\n"
        "                      PyTorchCheckpointing.checkpoint)\n"
        "  --ai-logging        DLIO's AI-logging names for the python-level events:\n"
        "                      ai_root, train (cat pipeline), compute (cat compute),\n"
        "                      fetch.iter and fetch.yield (cat dataloader), item and\n"
        "                      finalize (cat data), read_index (cat reader),\n"
        "                      checkpoint.init and checkpoint.save (cat checkpoint),\n"
        "                      initialize (cat pipeline); the layer truth then follows\n"
        "                      the AI-logging dlio preset (with an empty epoch layer)\n"
        "Era v2 only:\n"
        "  --aggregate         fold every POSIX/STDIO call into aggregated records (ph 3,\n"
        "                      args.dft_cnt, no id or dur) per pid, tid, name, cat, file,\n"
        "                      string args and fread/fwrite item size, in intervals of\n"
        "                      --agg-interval-us from --start-us; ts is the interval's\n"
        "                      start. A numeric arg (dur included) the calls agree on is\n"
        "                      written plain, else as NAME_min, NAME_max, NAME_sum. A\n"
        "                      thread's records go out when its clock passes the\n"
        "                      interval's end, the rest before the end record. The truth\n"
        "                      keeps total, func, cat, host, file, fs, class, layer, pid,\n"
        "                      type, rank, argstep and adds aggcalls (calls folded, per\n"
        "                      func) and maxdur (longest call per func, in the count\n"
        "                      column); the rest, not exact for folded calls, is left out\n"
        "  --agg-interval-us N aggregation interval (default 1000000)\n"
        "  --counters          cpu and mem counter samples (ph 2, type 7, cat sys) in each\n"
        "                      file from its start record to its end record, placed among\n"
        "                      the lines by time: cpu user_pct, system_pct, idle_pct,\n"
        "                      iowait_pct (at most two decimals), mem MemAvailable,\n"
        "                      MemFree, Cached, Dirty, Active (kB). Not events: not in\n"
        "                      the truth\n"
        "  --counter-interval-us N  counter sampling interval (default 500000, >= 1000)\n"
        "  --counter-truth FILE  write counter,host,samples,mean,min,max per series\n"
        "                      (cpu.iowait_pct, mem.Dirty, ...) and host, and over all\n"
        "                      hosts (host *); mean rounded half up to 6 decimals, min\n"
        "                      and max as written in the trace\n"
        "  --time-unit UNIT    us | ns (default us): with ns every ts and dur is in ns\n"
        "                      (events: us * 1000 plus a jitter of at most 499 ns, so\n"
        "                      rounding half up gives the truth's us; aggregated records:\n"
        "                      exact multiples of 1000) and the end record says NS\n"
        "  --omit-time-metric  leave time_metric out of the end record's cfg\n"
        "\n"
        "  --verbose           print the plan and the counts on stderr\n"
        "  --help              show this help\n",
        stdout);
}

/* The index of arg among the n names of an option's values (in the
 * order of their enum), or a usage error naming them all. */
static int parse_choice(const char *opt, const char *what, const char *arg, const char *const *names, int n)
{
    char list[256] = "";
    size_t w = 0;
    for (int k = 0; k < n; k++) {
        if (strcmp(arg, names[k]) == 0) return k;
        w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", k ? ", " : "", names[k]);
        if (w >= sizeof list) w = sizeof list - 1;
    }
    usage_error("%s: unknown %s '%s' (%s)", opt, what, arg, list);
}

static uint64_t parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi)
{
    char *end;
    errno = 0;
    if (*s == '\0' || *s == '-')
        usage_error("%s: '%s' is not a number", opt, s);
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0')
        usage_error("%s: '%s' is not a number", opt, s);
    if (v < lo || v > hi)
        usage_error("%s: %llu is out of range %llu..%llu", opt, v, (unsigned long long)lo,
                    (unsigned long long)hi);
    return v;
}

/* The options of era v2 and --ai-logging. */
enum v2opt { V_AGG, V_AGG_US, V_CTR, V_CTR_US, V_CTRUTH, V_UNIT, V_OMIT_METRIC, V_AI };

static void parse_v2_opt(opts *o, int which, const char *arg)
{
    static const char *const unit_names[] = {"us", "ns"};
    switch (which) {
    case V_AGG: o->aggregate = 1; break;
    case V_AGG_US: o->agg_us = parse_u64("--agg-interval-us", arg, 1, 1000000000000ULL); break;
    case V_CTR: o->counters = 1; break;
    case V_CTR_US:
        o->ctr_us = parse_u64("--counter-interval-us", arg, 1000, 1000000000000ULL);
        break;
    case V_CTRUTH: o->ctruth = arg; break;
    case V_UNIT:
        o->ns = parse_choice("--time-unit", "unit", arg, unit_names, 2);
        o->unit_given = 1;
        break;
    case V_OMIT_METRIC: o->omit_metric = 1; break;
    default: o->ai = 1; break;
    }
}

/* Options that only make sense together: a usage error, not a silent no-op. */
static void check_combinations(opts *o)
{
    const char *v2only = o->aggregate          ? "--aggregate"
                         : o->agg_us           ? "--agg-interval-us"
                         : o->counters         ? "--counters"
                         : o->ctr_us           ? "--counter-interval-us"
                         : o->ctruth           ? "--counter-truth"
                         : o->unit_given       ? "--time-unit"
                         : o->omit_metric      ? "--omit-time-metric"
                                               : NULL;
    if (v2only && o->era != ERA_V2)
        usage_error("%s needs --era v2 (DFTracer 2.x)", v2only);
    if (o->agg_us && !o->aggregate)
        usage_error("--agg-interval-us needs --aggregate");
    if (o->ctr_us && !o->counters)
        usage_error("--counter-interval-us needs --counters");
    if (o->ctruth && !o->counters)
        usage_error("--counter-truth needs --counters");
    if (o->ai && o->ckpt_func)
        usage_error("--ckpt-func and --ai-logging exclude each other: AI logging names the "
                    "checkpoint function checkpoint.save");
    if (o->aggregate && !o->agg_us)
        o->agg_us = 1000000;
    if (o->counters && !o->ctr_us)
        o->ctr_us = 500000;
}

static void parse_args(opts *o, int argc, char **argv)
{
    enum { O_SEED = 256, O_EVENTS, O_RANKS, O_RPN, O_ERA, O_GZIP, O_LEVEL, O_TRUTH, O_LATE,
           O_NOLATE, O_VERBOSE, O_PREFETCH, O_CKPT_FS, O_CKPT_SPLIT, O_START, O_CKPT_FUNC, O_HELP,
           /* in the order of enum v2opt */
           O_AGG, O_AGG_US, O_CTR, O_CTR_US, O_CTRUTH, O_UNIT, O_OMIT_METRIC, O_AI };
    static const struct option lo[] = {
        {"seed", required_argument, 0, O_SEED},
        {"events", required_argument, 0, O_EVENTS},
        {"ranks", required_argument, 0, O_RANKS},
        {"ranks-per-node", required_argument, 0, O_RPN},
        {"era", required_argument, 0, O_ERA},
        {"gzip", required_argument, 0, O_GZIP},
        {"level", required_argument, 0, O_LEVEL},
        {"truth", required_argument, 0, O_TRUTH},
        {"late-metadata", no_argument, 0, O_LATE},
        {"no-late-metadata", no_argument, 0, O_NOLATE},
        {"verbose", no_argument, 0, O_VERBOSE},
        {"prefetch", no_argument, 0, O_PREFETCH},
        {"ckpt-fs", required_argument, 0, O_CKPT_FS},
        {"ckpt-write-split", required_argument, 0, O_CKPT_SPLIT},
        {"start-us", required_argument, 0, O_START},
        {"ckpt-func", required_argument, 0, O_CKPT_FUNC},
        {"help", no_argument, 0, O_HELP},
        {"aggregate", no_argument, 0, O_AGG},
        {"agg-interval-us", required_argument, 0, O_AGG_US},
        {"counters", no_argument, 0, O_CTR},
        {"counter-interval-us", required_argument, 0, O_CTR_US},
        {"counter-truth", required_argument, 0, O_CTRUTH},
        {"time-unit", required_argument, 0, O_UNIT},
        {"omit-time-metric", no_argument, 0, O_OMIT_METRIC},
        {"ai-logging", no_argument, 0, O_AI},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->events = 20000;
    o->ranks = 4;
    o->rpn = 4;
    o->level = 6;
    o->era = ERA_U64;
    o->gz = GZ_NONE;
    o->late = -1;
    o->ckpt_fs = CKFS_BOTH;
    o->ckpt_split = 1;
    o->start = T_BASE;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
        switch (c) {
        case O_SEED: o->seed = parse_u64("--seed", optarg, 0, UINT64_MAX); break;
        case O_EVENTS: o->events = parse_u64("--events", optarg, 1, 1000000000000ULL); break;
        case O_RANKS: o->ranks = (int)parse_u64("--ranks", optarg, 1, 1000); break;
        case O_RPN: o->rpn = (int)parse_u64("--ranks-per-node", optarg, 1, 1000000); break;
        case O_LEVEL: o->level = (int)parse_u64("--level", optarg, 0, 9); break;
        case O_TRUTH: o->truth = optarg; break;
        case O_LATE: o->late = 1; break;
        case O_NOLATE: o->late = 0; break;
        case O_VERBOSE: o->verbose = 1; break;
        case O_PREFETCH: o->prefetch = 1; break;
        case O_CKPT_SPLIT:
            o->ckpt_split = (int)parse_u64("--ckpt-write-split", optarg, 1, MAXSPLIT);
            break;
        case O_START: o->start = parse_u64("--start-us", optarg, 0, T_MAX); break;
        case O_CKPT_FUNC:
            if (!*optarg || strpbrk(optarg, "\"\\") || strlen(optarg) > 200)
                usage_error("--ckpt-func: a name of 1 to 200 bytes without quotes or backslashes");
            o->ckpt_func = optarg;
            break;
        case O_CKPT_FS:
            o->ckpt_fs = parse_choice("--ckpt-fs", "mode", optarg, ckfs_names, 3);
            break;
        case O_HELP: help(); exit(0);
        case O_ERA: o->era = parse_choice("--era", "era", optarg, era_names, NERA); break;
        case O_GZIP: o->gz = parse_choice("--gzip", "mode", optarg, gz_names, 3); break;
        case O_AGG: case O_AGG_US: case O_CTR: case O_CTR_US: case O_CTRUTH: case O_UNIT:
        case O_OMIT_METRIC: case O_AI:
            parse_v2_opt(o, c - O_AGG, optarg);
            break;
        case ':':
            usage_error("option %s needs a value", argv[optind - 1]);
        default:
            usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        usage_error(optind >= argc ? "missing OUTDIR" : "too many arguments");
    o->outdir = argv[optind];
    check_combinations(o);
}

int main(int argc, char **argv)
{
    gen *g = xcalloc(1, sizeof *g);
    parse_args(&g->o, argc, argv);
    if (mkdir(g->o.outdir, 0755) != 0 && errno != EEXIST)
        die("%s: %s", g->o.outdir, strerror(errno));
    struct stat st;
    if (stat(g->o.outdir, &st) != 0 || !S_ISDIR(st.st_mode))
        die("%s: not a directory", g->o.outdir);
    setup(g);
    if (g->o.truth)
        tx_init(g);
    if (g->o.verbose)
        fprintf(stderr, "dfnav-gen: %d ranks, %d epochs x %d steps, checkpoint every %d steps\n",
                g->o.ranks, g->epochs, g->steps, g->ckpt_every);
    generate(g);
    if (g->o.truth)
        write_truth(g, g->o.truth);
    if (g->o.ctruth)
        write_counter_truth(g, g->o.ctruth);
    /* the spec's parent of such a child is ambiguous, so is its self time */
    if (g->tx && g->tx->ties)
        fprintf(stderr, "dfnav-gen: warning: %llu events have their parent's exact interval\n",
                (unsigned long long)g->tx->ties);
    if (g->o.verbose)
        fprintf(stderr, "dfnav-gen: %llu events, %zu paths\n",
                (unsigned long long)g->total.count, g->npaths - 1);

    /* release everything so that leak checkers stay quiet */
    if (g->tx)
        tx_free(g);
    for (int i = 0; i < g->o.ranks; i++) {
        free(g->rk[i].outpath);
        free(g->rk[i].seen);
        free(g->rk[i].pend);
        if (g->rk[i].agt)
            agg_free(&g->rk[i]);
    }
    free(g->cst);
    free(g->rk);
    for (size_t i = 1; i < g->npaths; i++) {
        free(g->paths[i].str);
        free(g->paths[i].frag);
    }
    free(g->paths);
    free(g->pmap);
    free(g->hset);
    free(g->hosts);
    for (int i = 0; i < g->nfs; i++)
        free(g->fs_names[i]);
    for (int i = 0; i < NFUNC; i++)
        free(g->ffrag[i]);
    for (int i = 0; i < NLAYER; i++)
        free(g->busy[i].v);
    free(g);
    return 0;
}
