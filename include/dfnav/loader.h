/* dfnav loader: expands inputs (files, directories, globs, "-"), reads and
 * parses them on worker threads and builds the event store. Runs in the
 * background with progress and cancellation, because the explorer shows
 * both while a trace set loads. Results do not depend on the thread count. */
#ifndef DFNAV_LOADER_H
#define DFNAV_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/reader.h"
#include "dfnav/store.h"

typedef struct {
    int threads;              /* parser threads; 0 = one per online core */
    size_t block_size;        /* 0 = DFN_BLOCK_SIZE */
    dfn_unit time_unit;       /* of files whose end record declares none; NONE = µs */
    const char *cache_dir;    /* reopen from and save to this cache (cache.h); NULL: none */
    uint64_t cache_limit;     /* the cache's size limit; 0: dfn_cache_limit(cache_dir) */
    bool no_save;             /* take files from the cache's images but save none (MPI's rank 0) */
    bool no_pack;             /* every file a chunk of its own, none packed: the store packs must give (tests) */
    /* keep each event's file (the store's evsrc): where an MPI rank's
     * calls fall among the set's at equal times (report --by event) */
    bool sources;
    /* hash definitions of the rest of a set (records as dfn_store's
     * hashdefs), which outlive the load: a hash no file of this load
     * defines takes its name from them, as it would in a load of the whole
     * set (an MPI rank's share, whose hashes other ranks' files define);
     * such a load neither reads nor writes the cache */
    const uint8_t *defs;
    size_t defs_len;
} dfn_load_opts;

typedef struct {
    uint64_t bytes_done, bytes_total;   /* as stored (compressed for gzip) */
    uint64_t events, files_done, files_total;
    uint64_t unsized;         /* files of no known size (a pipe, standard input): no percent */
    double elapsed_s, events_per_s;
    bool building;            /* all read; the store is being assembled */
    bool cached;              /* the store came from the cache */
    uint64_t reused;          /* files taken from the cache's images of other sets, not read */
    bool done, cancelled;
} dfn_progress;

/* Expands command-line inputs into trace files: directories are searched
 * recursively for *.pfw and *.pfw.gz (sorted), a pattern that names no file
 * is globbed, "-" is standard input. Paths that give nothing land in
 * errors ("PATH: reason"). */
typedef struct {
    char **paths; size_t n;
    char **errors; size_t nerrors;
} dfn_inputs;
void dfn_inputs_expand(const char *const *args, size_t nargs, dfn_inputs *out);
void dfn_inputs_free(dfn_inputs *in);
/* Frees the paths alone (n becomes 0), keeping the errors: a loader
 * copies what it is given, and 20,000 paths held twice cost 1 MB. */
void dfn_inputs_drop_paths(dfn_inputs *in);

typedef struct dfn_loader dfn_loader;
/* Starts loading the given trace files in the background. */
dfn_loader *dfn_loader_start(const char *const *files, size_t nfiles, const dfn_load_opts *opts);
void dfn_loader_progress(dfn_loader *l, dfn_progress *out);
/* Several loaders as one (runs loading side by side; a NULL loader has
 * finished): sums of bytes, events and rates, the longest elapsed time,
 * building and done once all are. pct (may be NULL) gets each loader's
 * percent, 100 when done. */
void dfn_loaders_progress(dfn_loader *const *ls, size_t n, dfn_progress *sum, double *pct);
void dfn_loader_cancel(dfn_loader *l);
/* A store of what has loaded so far, for showing tables while loading;
 * NULL once the final store is being built. Safe from any thread, costs a
 * copy of the loaded events. */
dfn_store *dfn_loader_snapshot(dfn_loader *l);
/* Waits for the end and returns the store (NULL when cancelled); frees l. */
dfn_store *dfn_loader_finish(dfn_loader *l);
/* Synchronous load. */
dfn_store *dfn_load(const char *const *files, size_t nfiles, const dfn_load_opts *opts);

/* Exit-status helpers: 0 all loaded, 1 some damage (a damaged file or line,
 * a hash defined with two names), 3 nothing readable. */
int dfn_store_status(const dfn_store *s);

#endif
