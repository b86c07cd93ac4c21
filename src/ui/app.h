/* The explorer program's internals, shared by its parts: the runner (the
 * app and what runs beside it), the background work (loading runs and
 * their snapshots, exports, diagnostics, row marks), line editing and the
 * key handling. Only the UI thread calls these. */
#ifndef DFNAV_UI_APP_H
#define DFNAV_UI_APP_H

#include "ui.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/strtab.h"

#include <pthread.h>
#include <stdatomic.h>

/* ---- jobs on a worker thread: exports, diagnostics, row marks ---- */

typedef struct {
    pthread_t thread;
    bool joinable;            /* false when it ran inline, without a thread */
    atomic_bool running, done;
} job;

typedef struct {
    job job;
    const view *v;            /* its runs: exports wait for the load, so they cannot change */
    dfn_filter filter;
    dfn_dim dim;
    int sort, sort_col;
    bool desc;
    uint64_t metrics;         /* the report's and those on screen; 0 for calls */
    double bin_s;             /* a time level's bins, as on screen; 0 otherwise */
    bool flame;               /* the flame view's: its self column and tree order */
    dfn_ctrs ctrs;            /* the ctr column's series, when on screen */
    dfn_format fmt;           /* CSV, or a Chrome trace for calls saved as .json */
    dfn_save save;            /* the temporary file, created before the job starts */
    char *path, *tmp;         /* the UI thread's copies: tmp is what a signal removes */
    bool saved;
    char msg[1200];
} exporter;

typedef struct {
    job job;
    const view *v;            /* its runs: diagnostics wait for the load */
    dfn_thresholds th;
    dfn_filter filter;
    dfn_findings *out;
    char err[900];
} diagnoser;

typedef struct {
    job job;
    const dfn_run *run;       /* run 0, loaded: the runs do not change meanwhile */
    dfn_filter filter;
    dfn_dim by;
    double bin_s;
    dfn_thresholds th;
    unsigned gen;             /* the level result they are for */
    dfn_strtab *keys;         /* the rows' keys with findings */
} marker;

typedef struct {
    job job;
    const dfn_run *run;       /* run 0, loaded: the runs do not change meanwhile */
    dfn_filter filter;
    dfn_dim by;               /* the level's grouping (its own arg) */
    double bin_s;
    int threads;
    unsigned gen;             /* the level result it is for */
    bool slowest;             /* max_proc_s and max_proc too (not for rows that are processes) */
    dfn_result *res;          /* by key, in key order: the size bins, the slowest process */
} facter;

/* ---- loading: snapshots while a run loads, the final store's index ---- */

typedef struct {
    dfn_loader *l;
    const ui_opts *opts;
    atomic_int *dlio_seen;
    pthread_t thread;
    bool started;
    _Atomic(view_set *) ready;    /* a snapshot, indexed, for the UI to take */
    atomic_bool stop;
} snapper;

typedef struct {
    pthread_t thread;
    bool started;
    dfn_store *store;
    const ui_opts *opts;
    atomic_int *dlio_seen;
    _Atomic(view_set *) ready;   /* the final set, with layers and overlap: its table shows at once */
    _Atomic(dfn_analysis *) extra;   /* then its overlap, call tree and access patterns, for the UI to install */
    char an_err[512];         /* the compute or I/O definition failed (an_err_set) */
    bool an_err_set;
    bool shown;               /* ready was taken */
    /* the table of ready is on screen (or the explorer is closing): the
     * analyses may take the cores, which on two of them had slowed the
     * first table from the cache by a third */
    atomic_bool go;
} indexer;

/* ---- the app ---- */

/* One run's loading: its loader, snapshots and final indexing, and the
 * set the view shows of it. */
typedef struct {
    const dfn_inputs *in;     /* the run's files (its spec's) */
    dfn_loader *loader;
    snapper sn;
    indexer ix;
    view_set *cur;            /* what the view shows, or will once every run has a set */
    dfn_store *final;         /* the loaded store, for the damage screen (and its save, waited for at the end) */
} run_load;

typedef struct {
    app a;
    dfn_runspec *specs;       /* the runs' names and files */
    run_load *runs;
    size_t nruns;
    char **labels;            /* comparing: the runs' names (the specs'); NULL for one run */
    atomic_int dlio_seen;    /* comparing: some run has DLIO categories */
    exporter ex;
    diagnoser dg;
    marker mk;
    facter fc;
    bool quit;
    int status;
    bool headless;
    char *pending_path;
    bool abandon_export;      /* quitting with Q: a running export is cancelled, not awaited */
    bool compute_noted;       /* the status line said compute matched nothing */
} runner;


/* jobs.c */
void job_start(job *j, void *(*fn)(void *), void *arg);
/* True once when the job has finished (waiting for it with wait). */
bool job_finished(job *j, bool wait);
/* E or e: saves the top level (or its cursor row's calls) to path. */
void export_start(runner *r, const char *path, bool overwrite);
void export_poll(runner *r, bool wait);
/* d: the diagnostics of the top level's selection, on a worker thread. */
void diag_start(runner *r);
void diag_poll(runner *r, bool wait);
/* Takes finished marks to their level and starts them for a time or file
 * level that has none; wait: until they are there. */
void marks_poll(app *a, marker *m, bool wait);
/* Takes a finished query of the status line's facts (each row's slowest
 * process and calls per transfer size) to its level, and starts one for a
 * level of grouped rows that has none, once the keys have rested
 * FACTS_REST seconds on it (at once with wait, which waits for it). */
#define FACTS_REST 0.25
void facts_poll(app *a, facter *w, bool wait);

/* draw.c: the call detail's lines of call i of s (place: what callplace.h
 * says of it, or NULL with why in place_err, "" while the call tree is
 * built), into a->detail_lines. */
void detail_make(app *a, const dfn_store *s, uint32_t i, char **place, size_t nplace, const char *place_err);

/* loading.c */
/* Starts every run's loader (and its snapshots unless headless). */
void load_start(runner *r);
/* A set other processes hold (remote.h): each run's outline store shown
 * at once, its queries going to rem; nothing loads here. */
void load_remote(runner *r, dfn_outline *ol, const dfn_remote *rem);
/* Takes snapshots and final stores to the view; the progress text. */
void load_poll(runner *r);
/* Once, where it matters: that the compute definition matched nothing. */
void load_compute_note(runner *r);

/* edit.c: the prompt's line, edited by whole UTF-8 characters */
void edit_set(line_edit *e, const char *s);
void edit_insert(line_edit *e, const char *s, size_t n);
size_t edit_prev(const line_edit *e, size_t at);
size_t edit_next(const line_edit *e, size_t at);
void edit_delete(line_edit *e, size_t from, size_t to);
void edit_hist_add(edit_hist *h, const char *text);
/* Up (dir -1) or Down (1) through the history; past the newest: empty. */
void edit_hist_move(edit_hist *h, line_edit *e, int dir);
void edit_hist_free(edit_hist *h);
/* ~ and ~user at the start of a path, as the shell expands them (malloc'd). */
char *edit_expand_home(const char *path);
/* The line, ending in prefix, extended as far as the candidates that
 * start with prefix agree (whole UTF-8 characters); returns how many do. */
size_t edit_extend(line_edit *e, const char *prefix, const char *const *cands, size_t n);
/* Tab: completes the line as a file name as far as the candidates agree
 * (directories get a '/'); with several, list gets their names. Returns
 * how many there are. */
size_t edit_complete_path(line_edit *e, char *list, size_t cap);

/* keys.c: one key, from the terminal or the replay */
void keys_handle(runner *r, int key, const char *utf8, size_t ulen);

/* app.c: the screen's new size; whether the view was queried again. */
bool app_set_size(runner *r, int rows, int cols);

#endif
