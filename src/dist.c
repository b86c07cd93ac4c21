/* dfnav distribution: the MPI job's ranks and the files they send one
 * another (see dist.h). All of MPI is here; without it (no HAVE_MPI, or
 * not started by a launcher) this is one rank that sends nothing. */
#include "config.h"
#include "dfnav/dist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dfnav/util.h"

#ifdef HAVE_MPI
#include <mpi.h>
#endif

/* A file travels as its length (NONE: no file), then pieces of at most
 * this: MPI counts in int, and a piece is also what each side holds. */
#define DIST_PIECE ((size_t)64 << 20)
#define DIST_NONE UINT64_MAX
#define DIST_TAG_FILE 17
#define DIST_TAG_BYTES 18
#define DIST_TAG_SWAP 19
#define DIST_TAG_NOTE 20

static int g_rank = 0, g_size = 1;
static bool g_started = false;

/* Whether an MPI launcher started this process: each sets its own
 * variables (Open MPI's mpirun, PMIx under srun or prrte, PMI under
 * MPICH's hydra, srun --mpi=pmi2 and flux). A plain `dfnav` never starts
 * MPI, which would cost a second and may want a daemon. */
static bool dist_launched(void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return true;
    }
    return false;
}

bool dfn_dist_start(int *argc, char ***argv, char *err, size_t cap)
{
    if (!dist_launched()) return true;
#ifdef HAVE_MPI
    int provided = 0;
    /* one thread calls MPI (the main one); the loader's threads never do */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        snprintf(err, cap, "MPI could not start");
        return false;
    }
    g_started = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    /* an error ends the job with a message rather than a hang */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return true;
#else
    (void)argc; (void)argv;
    /* one rank of several would each do the whole work and print it */
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    if (!n) n = getenv("PMI_SIZE");
    if (n && strcmp(n, "1") != 0) {
        snprintf(err, cap, "this dfnav was built without MPI support (configure found no libopenmpi-dev or "
                 "libmpich-dev): run it as one process, or build it with MPI");
        return false;
    }
    return true;
#endif
}

const char *dfn_dist_backend(void)
{
#if defined(HAVE_MPI) && defined(OMPI_MAJOR_VERSION)
#define DIST_STR_(x) #x
#define DIST_STR(x) DIST_STR_(x)
    return "Open MPI " DIST_STR(OMPI_MAJOR_VERSION) "." DIST_STR(OMPI_MINOR_VERSION) "." DIST_STR(OMPI_RELEASE_VERSION);
#elif defined(HAVE_MPI) && defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#elif defined(HAVE_MPI)
    return "MPI";
#else
    return "none";
#endif
}

int dfn_dist_rank(void) { return g_rank; }
int dfn_dist_size(void) { return g_size; }

int dfn_dist_bcast_int(int v)
{
#ifdef HAVE_MPI
    if (g_started) MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return v;
}

#ifdef HAVE_MPI
/* v (count of type t) reduced by op over the ranks, in place; itself
 * before MPI starts. */
static void dist_allreduce(void *v, int count, MPI_Datatype t, MPI_Op op)
{
    if (g_started) MPI_Allreduce(MPI_IN_PLACE, v, count, t, op, MPI_COMM_WORLD);
}
#endif

int dfn_dist_max_int(int v)
{
#ifdef HAVE_MPI
    dist_allreduce(&v, 1, MPI_INT, MPI_MAX);
#endif
    return v;
}

uint64_t dfn_dist_max_u64(uint64_t v)
{
#ifdef HAVE_MPI
    dist_allreduce(&v, 1, MPI_UINT64_T, MPI_MAX);
#endif
    return v;
}

uint64_t dfn_dist_sum_u64(uint64_t v)
{
#ifdef HAVE_MPI
    /* the high and low halves apart: neither sum can wrap (fewer than
     * 2^32 ranks), and their whole is checked */
    uint64_t sum[2] = { v >> 32, v & 0xffffffffu };
    dist_allreduce(sum, 2, MPI_UINT64_T, MPI_SUM);
    uint64_t lo_carry = sum[1] >> 32;
    if (sum[0] > (UINT64_MAX >> 32) - lo_carry) return UINT64_MAX;
    return ((sum[0] + lo_carry) << 32) + (sum[1] & 0xffffffffu);
#else
    return v;
#endif
}

#ifdef HAVE_MPI
static void dist_send_len(int to, uint64_t len)
{
    MPI_Send(&len, 1, MPI_UINT64_T, to, DIST_TAG_FILE, MPI_COMM_WORLD);
}
#endif

bool dfn_dist_send_file(int to, const char *path)
{
#ifdef HAVE_MPI
    if (!g_started) return false;
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (end < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        if (fd >= 0) close(fd);
        dist_send_len(to, DIST_NONE);
        return true;
    }
    uint64_t len = (uint64_t)end;
    dist_send_len(to, len);
    char *buf = dfn_xmalloc(len < DIST_PIECE ? (len ? len : 1) : DIST_PIECE);
    for (uint64_t done = 0; done < len;) {
        size_t want = len - done < DIST_PIECE ? (size_t)(len - done) : DIST_PIECE, got = 0;
        while (got < want) {
            ssize_t r = read(fd, buf + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            /* shorter than it was: zeros, which the image's checksums
             * refuse on rank 0, and the protocol stays in step */
            if (r <= 0) { memset(buf + got, 0, want - got); got = want; break; }
            got += (size_t)r;
        }
        MPI_Send(buf, (int)want, MPI_BYTE, to, DIST_TAG_FILE, MPI_COMM_WORLD);
        done += want;
    }
    free(buf);
    close(fd);
    return true;
#else
    (void)to; (void)path;
    return false;
#endif
}

bool dfn_dist_recv_file(int from, const char *path)
{
#ifdef HAVE_MPI
    if (!g_started) return false;
    uint64_t len;
    MPI_Recv(&len, 1, MPI_UINT64_T, from, DIST_TAG_FILE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (len == DIST_NONE) return false;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    char *buf = dfn_xmalloc(len < DIST_PIECE ? (len ? len : 1) : DIST_PIECE);
    /* every piece is taken, written or not, so the next file's length is
     * not read from the middle of this one */
    for (uint64_t done = 0; done < len;) {
        size_t want = len - done < DIST_PIECE ? (size_t)(len - done) : DIST_PIECE;
        MPI_Recv(buf, (int)want, MPI_BYTE, from, DIST_TAG_FILE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t w = 0; ok && w < want;) {
            ssize_t r = write(fd, buf + w, want - w);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) ok = false;
            else w += (size_t)r;
        }
        done += want;
    }
    free(buf);
    if (fd >= 0 && close(fd) != 0) ok = false;
    if (!ok) unlink(path);
    return ok;
#else
    (void)from; (void)path;
    return false;
#endif
}

bool dfn_dist_send_bytes(int to, const void *data, size_t len)
{
#ifdef HAVE_MPI
    if (!g_started) return false;
    uint64_t n = len;
    MPI_Send(&n, 1, MPI_UINT64_T, to, DIST_TAG_BYTES, MPI_COMM_WORLD);
    for (size_t done = 0; done < len;) {
        size_t want = len - done < DIST_PIECE ? len - done : DIST_PIECE;
        MPI_Send((const char *)data + done, (int)want, MPI_BYTE, to, DIST_TAG_BYTES, MPI_COMM_WORLD);
        done += want;
    }
    return true;
#else
    (void)to; (void)data; (void)len;
    return false;
#endif
}

char *dfn_dist_swap_bytes(int to, const void *data, size_t len, int from, size_t *rlen)
{
    *rlen = 0;
#ifdef HAVE_MPI
    if (!g_started) return NULL;
    uint64_t n = len, m = 0;
    MPI_Sendrecv(&n, 1, MPI_UINT64_T, to, DIST_TAG_SWAP, &m, 1, MPI_UINT64_T, from, DIST_TAG_SWAP, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (m >= SIZE_MAX) return NULL;
    char *buf = dfn_xmalloc((size_t)m + 1);
    /* every piece posted at once, each way: a blocking exchange piece by
     * piece would pair pieces of different partners when the two lengths
     * differ */
    size_t ns = (len + DIST_PIECE - 1) / DIST_PIECE, nr = ((size_t)m + DIST_PIECE - 1) / DIST_PIECE;
    MPI_Request *req = dfn_xmalloc((ns + nr ? ns + nr : 1) * sizeof *req);
    for (size_t k = 0; k < nr; k++) {
        size_t off = k * DIST_PIECE, want = (size_t)m - off < DIST_PIECE ? (size_t)m - off : DIST_PIECE;
        MPI_Irecv(buf + off, (int)want, MPI_BYTE, from, DIST_TAG_SWAP, MPI_COMM_WORLD, &req[k]);
    }
    for (size_t k = 0; k < ns; k++) {
        size_t off = k * DIST_PIECE, want = len - off < DIST_PIECE ? len - off : DIST_PIECE;
        MPI_Isend((const char *)data + off, (int)want, MPI_BYTE, to, DIST_TAG_SWAP, MPI_COMM_WORLD, &req[nr + k]);
    }
    MPI_Waitall((int)(ns + nr), req, MPI_STATUSES_IGNORE);
    free(req);
    buf[m] = 0;
    *rlen = (size_t)m;
    return buf;
#else
    (void)to; (void)data; (void)len; (void)from;
    return NULL;
#endif
}

char **dfn_dist_gather_bytes(const void *data, size_t len, size_t **lens)
{
    *lens = NULL;
    if (dfn_dist_rank() > 0) {
        (void)dfn_dist_send_bytes(0, data, len);
        return NULL;
    }
    int n = dfn_dist_size();
    char **out = dfn_xcalloc((size_t)n, sizeof *out);
    *lens = dfn_xcalloc((size_t)n, sizeof **lens);
    out[0] = dfn_xmalloc(len + 1);
    if (len) memcpy(out[0], data, len);
    out[0][len] = 0;
    (*lens)[0] = len;
    for (int r = 1; r < n; r++) out[r] = dfn_dist_recv_bytes(r, &(*lens)[r]);
    return out;
}

void dfn_dist_tree(void *ctx, void (*take)(void *ctx, char *bytes, size_t len, int from),
                   uint8_t *(*give)(void *ctx, size_t *len))
{
    int me = dfn_dist_rank(), n = dfn_dist_size();
    for (int step = 1; step < n; step <<= 1) {
        if (me % (2 * step) == step) {   /* this rank's subtree is whole: up it goes */
            size_t len = 0;
            uint8_t *bytes = give(ctx, &len);
            (void)dfn_dist_send_bytes(me - step, bytes, len);
            free(bytes);
            return;
        }
        if (me % (2 * step) || me + step >= n) continue;
        size_t len;
        char *bytes = dfn_dist_recv_bytes(me + step, &len);
        take(ctx, bytes, len, me + step);
    }
}

void dfn_dist_gathered_free(char **bufs, size_t *lens)
{
    for (int r = 0; bufs && r < dfn_dist_size(); r++) free(bufs[r]);
    free(bufs);
    free(lens);
}

char *dfn_dist_recv_bytes(int from, size_t *len)
{
    *len = 0;
#ifdef HAVE_MPI
    if (!g_started) return NULL;
    uint64_t n;
    MPI_Recv(&n, 1, MPI_UINT64_T, from, DIST_TAG_BYTES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (n >= SIZE_MAX) return NULL;
    char *buf = dfn_xmalloc((size_t)n + 1);
    for (size_t done = 0; done < n;) {
        size_t want = n - done < DIST_PIECE ? (size_t)(n - done) : DIST_PIECE;
        MPI_Recv(buf + done, (int)want, MPI_BYTE, from, DIST_TAG_BYTES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        done += want;
    }
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
#else
    (void)from;
    return NULL;
#endif
}

void dfn_dist_wait_bytes(int from)
{
#ifdef HAVE_MPI
    if (!g_started) return;
    /* (a blocking receive polls without rest: a core a rank, for as
     * long as it waits) */
    long ns = 100000;
    for (;;) {
        int there = 0;
        MPI_Iprobe(from, DIST_TAG_BYTES, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        if (there) return;
        struct timespec ts = { 0, ns };
        nanosleep(&ts, NULL);
        ns = ns * 2 > 20000000 ? 20000000 : ns * 2;
    }
#else
    (void)from;
#endif
}

bool dfn_dist_note_send(const uint64_t *v, size_t n)
{
#ifdef HAVE_MPI
    if (!g_started || g_rank == 0 || n > DFN_DIST_NOTE_MAX) return false;
    /* (a few words, which MPI sends eagerly; were it to wait for rank
     * 0's receive, rank 0 takes notes until every rank's last one) */
    return MPI_Send(v, (int)n, MPI_UINT64_T, 0, DIST_TAG_NOTE, MPI_COMM_WORLD) == MPI_SUCCESS;
#else
    (void)v; (void)n;
    return false;
#endif
}

bool dfn_dist_note_take(uint64_t *v, size_t n, int *from)
{
#ifdef HAVE_MPI
    if (!g_started || g_rank != 0 || n > DFN_DIST_NOTE_MAX) return false;
    int there = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, DIST_TAG_NOTE, MPI_COMM_WORLD, &there, &st);
    if (!there) return false;
    /* (a note of another length is taken all the same: its words past n
     * are dropped, and missing ones read 0) */
    uint64_t buf[DFN_DIST_NOTE_MAX] = { 0 };
    MPI_Recv(buf, DFN_DIST_NOTE_MAX, MPI_UINT64_T, st.MPI_SOURCE, DIST_TAG_NOTE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    memcpy(v, buf, n * sizeof *v);
    *from = st.MPI_SOURCE;
    return true;
#else
    (void)v; (void)n; (void)from;
    return false;
#endif
}

void dfn_dist_end(void)
{
#ifdef HAVE_MPI
    if (g_started) MPI_Finalize();
    g_started = false;
#endif
}
