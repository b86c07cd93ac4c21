/* dfnav under MPI (mpirun, srun, flux): every rank parses its share of the
 * trace files into an image, the other ranks send theirs to rank 0, and
 * rank 0 loads the set taking every file it can from those images (see
 * dist.h), then runs the command as one process does. The other ranks
 * print nothing: rank 0 says everything, once. */
#include "cli.h"
#include "dfnav/cache.h"
#include "dfnav/dist.h"
#include "dfnav/image.h"
#include "dfnav/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Removes a directory of images: they are cache entries (and a save's
 * temporary files), which the cache's own clear removes. */
static void dist_rmdir(const char *dir)
{
    size_t removed;
    uint64_t freed;
    char err[256];
    (void)dfn_cache_clear(dir, &removed, &freed, err, sizeof err);
    rmdir(dir);
}

static void dist_atexit(void)
{
    if (dfn_dist_rank() == 0 && g_armed && !g_told) {
        g_told = true;
        (void)dfn_dist_bcast_int(0);   /* nothing to share: they stop */
    }
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

/* A new private directory for images: DFNAV_MPI_TMPDIR, else TMPDIR, else
 * /tmp (rank 0's holds every rank's image of its share: the set's store). */
static char *dist_mkdir(void)
{
    const char *base = getenv("DFNAV_MPI_TMPDIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *dir = dfn_xasprintf("%s/dfnav-rank%d-XXXXXX", base, dfn_dist_rank());
    if (!mkdtemp(dir)) {
        dfn_warnf(stderr, "MPI: cannot make a directory in %s for the ranks' images: %s", base, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

/* This rank's share of the runs' files (each file of every run once; not
 * standard input or what is no regular file, which only rank 0's own
 * load can read), as the runs' own paths. */
static const char **dist_share_files(const dfn_runspec *specs, size_t n, size_t *nmine)
{
    size_t total = 0;
    for (size_t k = 0; k < n; k++) total += specs[k].in.n;
    const char **all = dfn_xmalloc((total ? total : 1) * sizeof *all);
    uint64_t *bytes = dfn_xmalloc((total ? total : 1) * sizeof *bytes);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < specs[k].in.n; i++) {
            dfn_fileid id;
            char err[128];
            all[m] = specs[k].in.paths[i];
            bytes[m] = dfn_fileid_of(all[m], &id, err, sizeof err) ? id.size : UINT64_MAX;
            m++;
        }
    int *rank_of = dfn_xmalloc((m ? m : 1) * sizeof *rank_of);
    dfn_dist_plan(bytes, m, dfn_dist_size(), rank_of);
    /* this rank's, in place: i never falls behind the count kept */
    *nmine = 0;
    for (size_t i = 0; i < m; i++)
        if (rank_of[i] == dfn_dist_rank() && bytes[i] != UINT64_MAX) all[(*nmine)++] = all[i];
    free(rank_of);
    free(bytes);
    return all;
}

/* Parses this rank's share into an image in dir; the image's path, or
 * NULL when there is none (no share, a file changed while read). */
static char *dist_parse_share(const cli_opts *o, const char *const *files, size_t n, const char *dir)
{
    if (!n || !dir) return NULL;
    /* the image is the point: no size limit of the cache's may refuse it */
    dfn_load_opts lo = { .threads = o->threads, .time_unit = o->time_unit, .cache_dir = dir, .cache_limit = UINT64_MAX };
    dfn_store *s = dfn_load(files, n, &lo);
    if (!s) return NULL;
    const char *note = dfn_store_saved(s);   /* waits for the image */
    if (note && dfn_dist_rank() == 0 && !o->quiet) dfn_warnf(stderr, "MPI: %s", note);
    dfn_store_free(s);
    dfn_cache_entry *e;
    size_t ne = dfn_cache_list(dir, &e);
    char *path = ne ? dfn_xstrdup(e[0].path) : NULL;
    dfn_cache_entries_free(e, ne);
    return path;
}

char *cli_dist_share(const cli_opts *o, const dfn_runspec *specs, size_t n, bool go)
{
    if (dfn_dist_size() < 2) return NULL;
    g_told = true;
    if (!dfn_dist_bcast_int(go)) return NULL;
    size_t nmine;
    const char **mine = dist_share_files(specs, n, &nmine);
    char *dir = dist_mkdir();
    char *img = dist_parse_share(o, mine, nmine, dir);
    free(mine);
    if (dfn_dist_rank() > 0) {
        (void)dfn_dist_send_file(0, img);
        free(img);
        if (dir) dist_rmdir(dir);
        free(dir);
        return NULL;
    }
    free(img);
    if (!dir) {   /* nowhere to keep them: take each rank's word and drop it */
        for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_recv_file(r, "/dev/null/none");
        return NULL;
    }
    /* a rank that sent none (no share, a file changed, no room): its
     * files are read again below, as any file no image holds */
    for (int r = 1; r < dfn_dist_size(); r++) {
        char *p = dfn_xasprintf("%s/set-rank%05d.img", dir, r);
        (void)dfn_dist_recv_file(r, p);
        free(p);
    }
    g_dir = dir;
    return dir;
}

int cli_dist_worker(const cli_opts *o)
{
    /* the fatal messages of this rank's own load reach its stderr */
    if (g_stderr >= 0) dup2(g_stderr, STDERR_FILENO);
    char msg[512];
    dfn_runspec *specs = NULL;
    size_t n = 0;
    bool ok = dfn_runs_parse(o->paths, o->npaths, o->compare, &specs, &n, msg, sizeof msg);
    cli_opts quiet = *o;
    quiet.quiet = true;
    (void)cli_dist_share(&quiet, specs, ok ? n : 0, true);
    if (ok) dfn_runs_free(specs, n);
    return 0;
}

void cli_dist_note(uint64_t files, uint64_t from_images)
{
    dfn_warnf(stderr, "MPI: %d ranks: %" PRIu64 " of %" PRIu64 " files from their images%s", dfn_dist_size(), from_images,
              files, from_images < files ? "; the rest read again by rank 0 (standard input, a file that changed, "
                                           "one no image could give back)" : "");
}
