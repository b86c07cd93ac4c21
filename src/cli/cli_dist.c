/* dfnav under MPI (mpirun, srun, flux): every rank parses its share of the
 * trace files into an image, the other ranks send theirs to rank 0, and
 * rank 0 loads the set taking every file it can from those images (see
 * dist.h), then runs the command as one process does. The other ranks
 * print nothing: rank 0 says everything, once. */
#include "cli.h"
#include "dfnav/cache.h"
#include "dfnav/dist.h"
#include "dfnav/distload.h"
#include "dfnav/filehead.h"
#include "dfnav/image.h"
#include "dfnav/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <dirent.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

/* Rank 0's promise to the other ranks, which wait at the dispatch for one
 * word: go (share the load) or stop (the command ended without one). */
static bool g_armed, g_told;
static char *g_dir;           /* rank 0's directory of images, removed at exit */
static int g_stderr = -1;     /* another rank's own stderr, kept aside */

void cli_dist_quiet(void)
{
    if (dfn_dist_rank() == 0) return;
    /* the same argv gives every rank the same usage errors and help: the
     * first rank's say it once; a rank's fatal errors (out of memory)
     * still reach the terminal through the stderr kept here */
    fflush(stdout);
    fflush(stderr);
    g_stderr = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        close(null);
    }
}

/* The directory of images a signal must not leave behind: mpirun passes
 * Ctrl-C on to the ranks as SIGTERM (and srun as SIGINT or SIGTERM), and
 * a set's worth of images stayed in the node's /tmp. */
static char *volatile g_sigdir;
static char *volatile g_sigaway;   /* where the handler moves it first: the first one's name + "~" */
static struct sigaction g_sigprev[3];

/* Signal handlers that clean up what they own, then hand the signal on
 * to the one they replaced: dfnav serve's token, MPI's images, an
 * extract's temporary file, whichever were installed. */
static const int cli_sigs[3] = { SIGINT, SIGTERM, SIGHUP };

void cli_signal_install_flags(void (*handler)(int), struct sigaction prev[3], int flags)
{
    /* the others wait while one runs: mpirun and srun send SIGTERM soon
     * after SIGINT, whose handler must finish its cleaning first */
    struct sigaction sa = { .sa_handler = handler, .sa_flags = flags };
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, cli_sigs[i]);
    for (int i = 0; i < 3; i++) sigaction(cli_sigs[i], &sa, prev ? &prev[i] : NULL);
}

void cli_signal_install(void (*handler)(int), struct sigaction prev[3])
{
    cli_signal_install_flags(handler, prev, 0);
}

void cli_signal_stops(sigset_t *stops, sigset_t *during)
{
    sigemptyset(stops);
    for (int i = 0; i < 3; i++) sigaddset(stops, cli_sigs[i]);
    sigprocmask(SIG_BLOCK, stops, during);
    for (int i = 0; i < 3; i++) sigdelset(during, cli_sigs[i]);
}

/* The thread whose handlers clean up: the first a signal reached. A
 * second signal that reaches another thread meanwhile waits there for
 * the first to end the process; the first thread's own chain of handlers
 * passes. (gettid is a system call: async-signal-safe.) */
static atomic_long cli_sig_thread;

bool cli_signal_first(void)
{
    long me = (long)syscall(SYS_gettid), none = 0;
    if (atomic_compare_exchange_strong(&cli_sig_thread, &none, me) || none == me) return true;
    for (;;) pause();
}

void cli_signal_chain(int sig, const struct sigaction prev[3])
{
    for (int i = 0; i < 3; i++) {
        const struct sigaction *p = &prev[i];
        if (cli_sigs[i] == sig && !(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN)
            p->sa_handler(sig);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

#ifdef __linux__
/* Empties and removes dir from a signal handler: open, getdents64,
 * unlinkat and rmdir are async-signal-safe where opendir is not (it
 * allocates). The directory is flat (cache entries and a save's
 * temporary files); passes repeat while they find entries, since
 * removing them while reading may skip some. */
void cli_rmdir_now(const char *dir)
{
    static char buf[8192] __attribute__((aligned(8)));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    for (int pass = 0; pass < 8; pass++) {
        bool found = false;
        long n;
        (void)lseek(fd, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: ino, off, reclen, type, name */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (reclen == 0) break;
                if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)))) {
                    (void)unlinkat(fd, name, 0);
                    found = true;
                }
                off += reclen;
            }
        }
        if (!found) break;
    }
    close(fd);
    (void)rmdir(dir);
}

/* The directory is renamed first, so that the threads still at work
 * (a save, a receive) can make no new file under its name while it is
 * emptied: a file made after the last pass kept it from going. */
static void dist_signal(int sig)
{
    (void)cli_signal_first();
    const char *d = g_sigdir, *away = g_sigaway;
    if (d && away && rename(d, away) == 0) d = away;
    if (d) cli_rmdir_now(d);
    cli_signal_chain(sig, g_sigprev);
}
#endif

/* Says which directory a signal removes (NULL: none). */
static void dist_sigdir(char *dir)
{
#ifdef __linux__
    static bool installed;
    if (dir && !installed) {
        installed = true;
        cli_signal_install(dist_signal, g_sigprev);
    }
    /* made once and kept (a handler may be reading it): a name of our
     * own beside the first directory, free for any later one too */
    if (dir && !g_sigaway) g_sigaway = dfn_xasprintf("%s~", dir);
#endif
    g_sigdir = dir;
}

void cli_rmdir(const char *dir)
{
    size_t removed;
    uint64_t freed;
    char err[256];
    (void)dfn_cache_clear(dir, &removed, &freed, err, sizeof err);
    rmdir(dir);
}

/* Removes a directory of images, which a signal need not remove now. */
static void dist_rmdir(const char *dir)
{
    if (g_sigdir == dir) dist_sigdir(NULL);
    cli_rmdir(dir);
}

void cli_dist_settle(void)
{
    if (dfn_dist_rank() == 0 && g_armed && !g_told) {
        g_told = true;
        (void)dfn_dist_bcast_int(CLI_DIST_STOP);   /* nothing to share: they stop */
    }
}

static void dist_atexit(void)
{
    cli_dist_settle();
    if (g_dir) {
        dist_rmdir(g_dir);
        free(g_dir);
        g_dir = NULL;
    }
}

void cli_dist_arm(void)
{
    if (dfn_dist_size() < 2 || g_armed) return;
    g_armed = true;
    atexit(dist_atexit);
}

/* The pid in a directory's name dfnav-rankR-HOST-PID-XXXXXX (or the same
 * and "~", renamed by a signal) when HOST is host; 0 when it is none. */
static long dist_dir_pid(const char *name, const char *host)
{
    if (strncmp(name, "dfnav-rank", 10) != 0) return 0;
    size_t n = strlen(name);
    if (n && name[n - 1] == '~') n--;
    if (n < 8 || name[n - 7] != '-') return 0;
    size_t e = n - 7, b = e;   /* the pid is name[b, e) */
    while (b > 0 && name[b - 1] >= '0' && name[b - 1] <= '9') b--;
    size_t hl = strlen(host);
    if (b == e || e - b > 9 || b < hl + 2 || name[b - 1] != '-' || strncmp(name + b - 1 - hl, host, hl) != 0 ||
        name[b - 2 - hl] != '-')
        return 0;
    return strtol(name + b, NULL, 10);
}

/* Whether process pid is gone: no such process, or one that has died and
 * waits to be reaped (a rank mpirun killed as it exited, which a
 * container's init may take a while to reap). */
static bool dist_pid_gone(long pid)
{
    if (kill((pid_t)pid, 0) != 0) return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    const char *c = strrchr(buf, ')');   /* the state follows the name, which may hold anything */
    return c && c[1] == ' ' && c[2] == 'Z';
}

/* Removes what ranks on this host that are gone left in base: a rank
 * killed (mpirun sends SIGKILL a moment after SIGTERM) cannot clean up,
 * so the next run on the node does. Only our own user's directories,
 * and only those whose process is gone (a live one, or a pid now
 * another's, is left alone). */
static void dist_sweep(const char *base, const char *host)
{
    DIR *d = opendir(base);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = dist_dir_pid(e->d_name, host);
        struct stat st;
        if (pid <= 0 || !dist_pid_gone(pid)) continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        char *path = dfn_xasprintf("%s/%s", base, e->d_name);
        dist_rmdir(path);
        free(path);
    }
    closedir(d);
}

/* A new private directory for images: DFNAV_MPI_TMPDIR, else TMPDIR, else
 * /tmp (rank 0's holds every rank's image of its share: the set's store).
 * Its name says whose it is, for dist_sweep. */
static char *dist_mkdir(void)
{
    const char *base = getenv("DFNAV_MPI_TMPDIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char host[256];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "host");
    host[sizeof host - 1] = 0;
    for (char *c = host; *c; c++)
        if (*c == '/') *c = '_';
    dist_sweep(base, host);
    char *dir = dfn_xasprintf("%s/dfnav-rank%d-%s-%ld-XXXXXX", base, dfn_dist_rank(), host, (long)getpid());
    if (!mkdtemp(dir)) {
        dfn_warnf(stderr, "MPI: cannot make a directory in %s for the ranks' images: %s", base, strerror(errno));
        free(dir);
        return NULL;
    }
    dist_sigdir(dir);
    return dir;
}

/* Rank 0 alone walks the inputs and stats each file (every rank doing
 * so was a storm of metadata requests on a parallel file system): it
 * plans who reads what and sends each other rank the paths of its share,
 * each ended by a NUL. Each file of every run once; standard input and
 * what is no regular file only rank 0's load of the set can read (once:
 * a pipe gives its bytes to one reader), so no share holds them: *left
 * counts them. Rank 0's own share comes back, as the runs' own paths;
 * each path's place among the runs' files goes with it (*place). */
static const char **dist_share_plan(const dfn_runspec *specs, size_t n, bool by_host, int threads, size_t *nmine,
                                    size_t *left, uint32_t **place)
{
    const char **all;
    uint64_t *bytes;
    size_t m = dfn_runs_files(specs, n, &all, &bytes);
    int *rank_of = dfn_xmalloc((m ? m : 1) * sizeof *rank_of);
    /* a process's files on one rank (its call tree, access and compute
     * whole there): what their heads say, checked after the load */
    uint64_t *group = dfn_filehead_groups(all, bytes, m, by_host, threads);
    dfn_dist_plan(bytes, group, m, dfn_dist_size(), rank_of);
    free(group);
    for (int r = 1; r < dfn_dist_size(); r++) {
        size_t len = 0;
        for (size_t i = 0; i < m; i++)
            if (rank_of[i] == r && bytes[i] != UINT64_MAX) len += strlen(all[i]) + 1;
        char *list = dfn_xmalloc(len ? len : 1), *w = list;
        uint8_t *at = dfn_xmalloc((m ? m : 1) * 4);   /* places, 4 bytes each, least significant first */
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (rank_of[i] == r && bytes[i] != UINT64_MAX) {
                w = stpcpy(w, all[i]) + 1;
                for (int b = 0; b < 4; b++) at[k * 4 + (size_t)b] = (uint8_t)(i >> (8 * b));
                k++;
            }
        (void)dfn_dist_send_bytes(r, list, len);
        (void)dfn_dist_send_bytes(r, at, k * 4);
        free(list);
        free(at);
    }
    /* rank 0's, in place: i never falls behind the count kept */
    *nmine = *left = 0;
    *place = dfn_xmalloc((m ? m : 1) * sizeof **place);
    for (size_t i = 0; i < m; i++) {
        *left += bytes[i] == UINT64_MAX;
        if (rank_of[i] == 0 && bytes[i] != UINT64_MAX) {
            (*place)[*nmine] = (uint32_t)i;
            all[(*nmine)++] = all[i];
        }
    }
    free(rank_of);
    free(bytes);
    return all;
}

/* Another rank: the paths of its share, as rank 0 sent them (pointing
 * into *list, which the caller frees), and their places (a place rank 0
 * did not send is past every file's). */
static const char **dist_share_recv(size_t *nmine, char **list, uint32_t **place)
{
    size_t len, plen;
    *list = dfn_dist_recv_bytes(0, &len);
    char *at = dfn_dist_recv_bytes(0, &plen);
    *nmine = 0;
    for (size_t i = 0; i < len; i++) *nmine += (*list)[i] == 0;
    *place = dfn_xmalloc((*nmine ? *nmine : 1) * sizeof **place);
    for (size_t k = 0; k < *nmine; k++) {
        uint32_t v = UINT32_MAX;
        if (at && (k + 1) * 4 <= plen)
            for (int b = 3; b >= 0; b--) v = v << 8 | (uint8_t)at[k * 4 + (size_t)b];
        (*place)[k] = v;
    }
    free(at);
    const char **mine = dfn_xmalloc((*nmine ? *nmine : 1) * sizeof *mine);
    for (size_t i = 0, k = 0; i < len && k < *nmine; k++) {
        mine[k] = *list + i;
        i += strlen(*list + i) + 1;
    }
    return mine;
}

/* What rank 0 says of the ranks' loads (cli_dist_load). */
typedef struct {
    const cli_opts *o;
    const char *doing, *done, *run;
} load_say;

static void dist_load_say(void *ctx, const dfn_dist_progress *p)
{
    const load_say *ls = ctx;
    char text[400], line[512];
    dfn_dist_progress_text(p, text, sizeof text);
    bool one = p->nranks == 1;
    bool all = true;
    for (int r = 0; r < p->nranks; r++) all &= p->rank[r].done;
    snprintf(line, sizeof line, "the %d rank%s %s %s share%s of %s%s: %s", p->nranks, one ? "" : "s",
             all && ls->done ? ls->done : ls->doing, one ? "its" : "their", one ? "" : "s", ls->run ? "run " : "the set",
             ls->run ? ls->run : "", text);
    ls->o->progress(line);
    /* (a server's log: a plan whose bytes balance, but not its time) */
    if (all && ls->done && ls->o->serve) dfn_warnf(stderr, "serve: %s", line);
}

dfn_store *cli_dist_load(const cli_opts *o, const char *doing, const char *done, const char *run,
                         const char *const *files, size_t n, const dfn_load_opts *lo)
{
    load_say ls = { o, doing, done, run };
    return dfn_dist_load(files, n, lo, o->progress && dfn_dist_rank() == 0 ? dist_load_say : NULL, &ls);
}

/* Parses this rank's share into an image in dir; the image's path, or
 * NULL when there is none (no share, a file changed while read). */
static char *dist_parse_share(const cli_opts *o, const char *run, const char *const *files, size_t n, const char *dir)
{
    /* the image is the point: no size limit of the cache's may refuse it
     * (every rank takes part in the load, one without a share too) */
    dfn_load_opts lo = { .threads = o->threads, .time_unit = o->time_unit, .cache_dir = dir, .cache_limit = UINT64_MAX };
    dfn_store *s = cli_dist_load(o, "parse", "parsed", run, files, dir ? n : 0, &lo);
    if (!s) return NULL;
    const char *note = dfn_store_saved(s);   /* waits for the image */
    if (note && dfn_dist_rank() == 0 && !o->quiet) dfn_warnf(stderr, "MPI: %s", note);
    dfn_store_free(s);
    /* the image just written: not one of the ranks' already named */
    dfn_cache_entry *e;
    size_t ne = dfn_cache_list(dir, &e);
    char *path = NULL;
    for (size_t i = 0; i < ne && !path; i++) {
        const char *base = strrchr(e[i].path, '/');
        if (strncmp(base ? base + 1 : e[i].path, "set-rank", 8) != 0) path = dfn_xstrdup(e[i].path);
    }
    dfn_cache_entries_free(e, ne);
    return path;
}

const dfn_runspec *cli_dist_run_specs(const cli_opts *o, const dfn_runspec *specs, size_t n, size_t k, size_t *ns)
{
    /* a run a spec (--compare), else the set of every spec; none past rank 0 */
    *ns = specs ? (o->compare ? 1 : n) : 0;
    return specs ? (o->compare ? &specs[k] : specs) : NULL;
}

char *cli_dist_image_name(const char *dir, int rank, size_t run)
{
    return dfn_xasprintf("%s/set-rank%05d-run%03zu.img", dir, rank, run);
}

void cli_dist_tell(int word)
{
    g_told = true;
    (void)dfn_dist_bcast_int(word);
}

void cli_dist_reopen(void)
{
    g_told = false;
}

const char **cli_dist_files(const cli_opts *o, const dfn_runspec *specs, size_t n, bool by_host, size_t *nmine,
                            size_t *left, char **list, uint32_t **place)
{
    *list = NULL;
    *left = 0;
    return dfn_dist_rank() == 0 ? dist_share_plan(specs, n, by_host, o->threads, nmine, left, place)
                                : dist_share_recv(nmine, list, place);
}

/* Whether rank 0 said the inputs' errors already (a query on the ranks'
 * shares that went the images' way after all): the load says them once. */
static bool g_inputs_said;

void cli_dist_inputs_said(void) { g_inputs_said = true; }
bool cli_dist_inputs_were_said(void) { return g_inputs_said; }

static bool g_load_said;

void cli_dist_load_said(void) { g_load_said = true; }
bool cli_dist_load_was_said(void) { return g_load_said; }

/* Every rank's share of each run into an image of its own, sent to rank
 * 0 (see cli_dist_share). A run an image: the runs of a comparison may
 * use the same pids, and one image of both would hold files that share
 * a process, which no image gives back. specs and n: rank 0's. */
static char *dist_share_images(const cli_opts *o, const dfn_runspec *specs, size_t n)
{
    size_t nruns = (size_t)dfn_dist_bcast_int(o->compare ? (int)n : 1);
    char *dir = dist_mkdir();
    for (size_t k = 0; k < nruns; k++) {
        size_t nmine, left, ns;
        char *list;
        const dfn_runspec *sp = cli_dist_run_specs(o, specs, n, k, &ns);
        uint32_t *place;
        const char **mine = cli_dist_files(o, sp, ns, false, &nmine, &left, &list, &place);
        char *img = dist_parse_share(o, o->compare && sp ? sp->label : NULL, mine, nmine, dir);
        free(mine);
        free(list);
        free(place);
        if (dfn_dist_rank() > 0) {
            (void)dfn_dist_send_file(0, img);
            if (img) unlink(img);
            free(img);
            continue;
        }
        /* rank 0's own share under the name the others' take (the load
         * finds images by listing the directory): so each is known by
         * its rank, and dfnav serve drops them all once the set's own
         * image is written */
        char *own = dir ? cli_dist_image_name(dir, 0, k) : NULL;
        if (img && own) (void)rename(img, own);
        free(own);
        free(img);
        /* a rank that sent none (no share, a file changed, no room): its
         * files are read again below, as any file no image holds (with
         * nowhere to keep them, each rank's word is taken and dropped) */
        for (int r = 1; r < dfn_dist_size(); r++) {
            char *p = dir ? cli_dist_image_name(dir, r, k) : dfn_xstrdup("/dev/null/none");
            (void)dfn_dist_recv_file(r, p);
            free(p);
        }
    }
    if (dfn_dist_rank() > 0 || !dir) {
        if (dir) dist_rmdir(dir);
        free(dir);
        return NULL;
    }
    g_dir = dir;
    return dir;
}

char *cli_dist_share(const cli_opts *o, const dfn_runspec *specs, size_t n, bool go)
{
    if (dfn_dist_size() < 2) return NULL;
    cli_dist_tell(go ? CLI_DIST_IMAGES : CLI_DIST_STOP);
    return go ? dist_share_images(o, specs, n) : NULL;
}

const char *cli_dist_dir(void) { return g_dir; }

int cli_dist_worker(const cli_opts *o)
{
    /* the fatal messages of this rank's own load reach its stderr */
    if (g_stderr >= 0) dup2(g_stderr, STDERR_FILENO);
    cli_opts quiet = *o;
    quiet.quiet = true;
    /* its share comes from rank 0, which walked the inputs; and what to
     * do with it */
    int word = dfn_dist_bcast_int(CLI_DIST_STOP);
    if (word == CLI_DIST_REPORT || word == CLI_DIST_OVERVIEW || word == CLI_DIST_INFO || word == CLI_DIST_EXTRACT)
        return cli_dist_report_worker(o, word);
    if (word == CLI_DIST_IMAGES) (void)dist_share_images(&quiet, NULL, 0);   /* (NULL past rank 0) */
    if (word == CLI_DIST_SPREAD) return serve_ranks_worker(o);
    return 0;
}

void cli_dist_note(uint64_t files, uint64_t from_images)
{
    dfn_warnf(stderr, "MPI: %d ranks: %" PRIu64 " of %" PRIu64 " files from their images%s", dfn_dist_size(), from_images,
              files, from_images < files ? "; the rest read again by rank 0 (standard input, a file that changed, "
                                           "one no image could give back)" : "");
}
