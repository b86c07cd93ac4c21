/* The explorer's view model: drill levels over the engine's one query
 * path, their rows, cursor, sort, windows, search, lanes and call paths,
 * and the sets of each run they read. No curses: tests drive it directly
 * (tests/test_view.c). */
#ifndef DFNAV_UI_VIEW_H
#define DFNAV_UI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/layers.h"
#include "dfnav/match.h"
#include "dfnav/analysis.h"
#include "dfnav/compare.h"
#include "dfnav/counters.h"
#include "dfnav/diagnose.h"
#include "dfnav/query.h"
#include "dfnav/run.h"
#include "dfnav/store.h"

/* ---- options ---- */

typedef struct {
    bool ascii;               /* ASCII glyphs even in a UTF-8 locale */
    int color;                /* -1 auto, 0 never, 1 always */
    const char *layers;
    int threads;
    const char *replay;       /* headless: keys to replay */
    int rows, cols;           /* headless screen size */
    const char *screens;      /* headless: where the screens go ("-" stdout) */
    const char *compute;      /* compute definition for overlap; NULL = the layers' */
    const char *io;           /* what is I/O for overlap; NULL = POSIX and STDIO calls */
    bool overlap_host;        /* compute hides I/O of its whole host */
    dfn_thresholds thresholds;
    bool compare;             /* each path is a run (NAME=PATH) */
    bool force;               /* load even a set estimated not to fit in memory */
    dfn_unit time_unit;       /* --time-unit */
    const char *cache_dir;    /* the cache; NULL: --no-cache */
    const char *where;        /* --where: the first filter, as if typed with f */
    bool served;              /* run by dfnav serve for a client: it saves no file */
} ui_opts;

/* ---- the view model ---- */

typedef enum {
    COL_KEY, COL_COUNT, COL_ACTIVE, COL_TIME, COL_BUSY, COL_IDLE, COL_PCT, COL_BYTES, COL_BW, COL_P90, COL_MAX,
    COL_COMPUTE, COL_IO, COL_EXPOSED, COL_SELF, COL_SEQ, COL_CTR, COL_SPARK, COL_N
} col_id;

typedef struct {
    dfn_dim dim;
    dfn_filter base;          /* inherited filter plus the drilled row */
    char *user;               /* typed with f at this level, or NULL */
    double win_lo, win_hi;    /* time window, seconds from the trace start */
    /* the end the window was chosen to have: a time row's bin, a lane's
     * cell, a zoom's or a move's bins, typed bounds, at most the level
     * above's (INFINITY: the whole run). While a set loads, a window drawn
     * to the end of the run so far follows the run this far, no further. */
    double win_cap;
    bool typed;               /* time terms typed with f narrowed the window ... */
    double pre_lo, pre_hi;    /* ... from this one, which the next f starts from, */
    double typed_lo, typed_hi;   /* ... to these bounds (±INFINITY: none) */
    char *crumb;              /* how this level was reached, for the breadcrumb */
    bool crumb_window;        /* its end from crumb_at is the window: a zoom or move renames it */
    size_t crumb_at;
    int sort;                 /* metric, or -1 for the key */
    int sort_col;             /* comparing: whose column (a run, DFN_CMP_DIFF, DFN_CMP_RATIO) */
    bool desc;
    size_t cursor, top;
    dfn_compare *res;         /* the rows, of every run */
    dfn_dimkind res_kind;     /* what they are grouped by */
    /* Lanes (L): a row per process (thread, host, rank), time across in
     * cells shaded by what shade says; the cursor is a row and a cell. */
    bool lanes;
    int shade;                /* LANE_IO, LANE_COMPUTE, LANE_CALLS */
    size_t lane_col;
    /* Flame (F): call paths as a tree, each under its caller, callers'
     * children by total time; the rows are put in that order and each
     * has its depth in the tree shown. */
    bool flame;
    uint16_t *flame_depth;    /* per row */
    dfn_cresult tracks;       /* counter tracks: mean per series and sparkline bin */
    unsigned track_gen;       /* the view's track_gen they were made for */
    /* Time and file levels: the keys of the rows with diagnostic findings
     * (scored per row off the UI thread), for the res they were made for. */
    struct dfn_strtab *marks;
    unsigned res_gen, marks_gen;   /* which res: marks are started once per res */
    /* Grouped rows of one run: the status line's facts of each row (its
     * calls per transfer size, its slowest process: max_proc_s and
     * max_proc), by the row's key, the rows in key order, made off the UI
     * thread once the keys rest, for the res of facts_gen; res_at: when
     * res came. */
    dfn_result *facts;
    unsigned facts_gen;
    double res_at;
} level;

/* A store ready to show: built, with its layers compiled into per-event
 * membership, all off the UI thread (indexing millions of events takes
 * longer than a keypress may wait). */
typedef struct {
    dfn_runset rs;            /* store, layers and analyses, as the command line has them */
    char err[512];            /* layers that did not load or compile */
    char an_err[512];         /* the compute definition did not compile */
    bool full;
} view_set;

/* Builds a set for store (taking it over): layers from --layers, else the
 * preset named (NULL: the store's own choice), and the analyses need asks
 * for (DFN_NEED_*): loading snapshots take the overlap only, the final
 * store all (VIEW_NEED_ALL, with the tables' tiles), first none when its
 * table should show at once (view_set_extra builds the rest). */
#define VIEW_NEED_ALL (DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS | DFN_NEED_TILES)
dfn_run_opts view_run_opts(const ui_opts *o);
view_set *view_set_new(dfn_store *store, const ui_opts *o, const char *preset, unsigned need);
/* The analyses a set built with need 0 lacks, into x (on any thread: it
 * reads the set's store and layers only); false, with why in err, when the
 * compute or I/O definition fails (the rest is built anyway). */
bool view_set_extra(const view_set *vs, const ui_opts *o, dfn_analysis *x, char *err, size_t cap);
void view_set_free(view_set *vs);
/* Frees the set but not its store, which another set now holds. */
void view_set_release(view_set *vs);

typedef struct {
    dfn_run *runs;            /* what the view reads of each run's set */
    size_t nruns;
    char **labels;            /* comparing: the runs' names; NULL for one run */
    level *lv;
    size_t nlv, lvcap;
    bool col_on[COL_N];       /* chosen with c */
    int table_rows;           /* rows the screen has for the table */
    int screen_cols;          /* the screen's width, which columns fit in */
    int spark_w;              /* sparkline width the screen chose */
    char *search;
    size_t *match, nmatch;    /* the rows that hold the search text ... */
    char *match_text;         /* ... this text, */
    unsigned match_gen;       /* ... in this result */
    unsigned res_gen;         /* counts the levels' results */
    size_t calls_limit;       /* rows of the calls level */
    int threads;              /* query threads (-j); 0 = one per online core */
    /* Counter tracks (C): the series of run 0 by name, and the first shown;
     * off when track_on is false. */
    bool track_on;
    size_t track_first;
    uint32_t *track_series;   /* series indexes, by name */
    size_t ntrack_series;
    int track_max;            /* tracks a page holds on this screen */
    unsigned track_gen;       /* counts C presses: a level's tracks are stale when it differs */
} view;

#define VIEW_CALLS_LIMIT 100000

/* The view reads the sets' stores and layers, one set per run; the caller
 * keeps the sets alive while the view shows them. labels (copied) name
 * the runs when comparing, NULL for one run. */
void view_init(view *v, view_set *const *sets, size_t nruns, char *const *labels);
void view_free(view *v);
/* Swaps in a newer set of run k (a snapshot while loading, then the final
 * one), keeping levels, filters, sort and the cursor's row where it can. */
void view_set_store(view *v, size_t k, const view_set *vs);
/* The call on row of the calls level l: its event and its run, and the
 * store the event is of (the run's, or a remote run's calls: a store of
 * their own). */
uint32_t view_call(const level *l, size_t row, size_t *run);
const dfn_store *view_call_store(const level *l, size_t run);
/* Whether run's processes run on more than one host (the calls level
 * names a call's host then). */
bool view_many_hosts(const view *v, size_t run);
/* Lines above the table's rows: breadcrumb, filter, a timeline line per
 * run (at least two, at most four) and the header (two lines comparing). */
int view_timeline_lines(const view *v);
/* The counter series the ctr column shows: the first track on screen, or
 * the first series by name; NULL without series or comparing. */
const char *view_ctr_series(const view *v);
/* Counter track lines below the timeline (0 when off). */
int view_track_lines(const view *v);
/* C: shows the counter tracks, then their next page, then none. False
 * with a message when the set has no counters or several runs. */
bool view_tracks_next(view *v, char *msg, size_t msglen);
/* The timeline's geometry on a screen cols wide: the label column's
 * width x0, the sparklines' width w (what the queries bin by) and, right
 * of them, the room for a track's scale. */
void view_timeline_geom(const view *v, int cols, int *x0, int *w, int *scale_w);
/* The series index (in run 0's store) of track line k. */
uint32_t view_track_series(const view *v, int line);
/* Queries level l's tracks (filter f: the level's full filter). */
void view_tracks_query(view *v, level *l, const dfn_filter *f);
/* The same with level l's own filter: its tracks alone, after C or back. */
void view_tracks_refresh(view *v, level *l);
void view_tracks_free(view *v);
int view_header_lines(const view *v);
/* Lines the table has, its header included, on a screen of rows lines:
 * what the breadcrumb, filter line, timeline, status and hints leave. */
int view_table_lines(const view *v, int rows);
level *view_top(view *v);
/* The flame view's rows of c in tree order (each path under its nearest
 * caller among the rows, larger first), and each row's depth (malloc'd)
 * when depth is not NULL: the screen's order, and an export's. */
void view_flame_rows(const view *v, dfn_compare *c, uint16_t **depth);
/* The metrics the columns of level l on screen show; *ctr (may be NULL)
 * the counter series of the ctr column, or NULL when it is not shown. */
uint64_t view_shown_metrics(const view *v, const level *l, const char **ctr);
/* The level whose rows are result gen (res_gen), or NULL: it was left
 * or made again. */
level *view_level_of(view *v, unsigned gen);
/* Whether l's rows are processes (process, pid): each its own slowest. */
bool view_row_is_process(const level *l);
/* The row of l->facts with the key of l's row (one run), or SIZE_MAX. */
size_t view_facts_row(const level *l, size_t row);
/* Runs the top level's query again. */
bool view_refresh(view *v, char *err, size_t errlen);
/* Enter: opens the next level on the cursor's row. False with a message
 * when there is nothing to drill into. */
bool view_drill(view *v, char *err, size_t errlen);
bool view_back(view *v);
bool view_pivot(view *v, const dfn_dim *d, char *err, size_t errlen);
void view_sort_move(view *v, int step);
void view_sort_reverse(view *v);
bool view_set_user_filter(view *v, const char *text, char *err, size_t errlen);
void view_zoom(view *v, bool in);
/* The same around a time (seconds from the trace start). */
void view_zoom_around(view *v, bool in, double center);
void view_shift(view *v, int dir);
/* Moves the cursor to the next row (dir 1), the previous (-1) or the
 * first at or after the cursor (0) whose key holds the search text (a
 * call: its function or file; ASCII case ignored), wrapping; false when
 * none does. */
bool view_search(view *v, int dir);
/* "match 3 of 12: TEXT", or "not found: TEXT". */
void view_search_status(view *v, bool found, char *msg, size_t cap);
/* No row holds the search text: opens a level of the selection's files
 * (then functions) whose name holds it, with a message saying so; false
 * when none does. */
bool view_search_below(view *v, char *msg, size_t cap);
void view_move(view *v, long delta);
/* The full filter of the top level: base, time window, user terms. */
void view_filter(const view *v, const level *l, dfn_filter *out);
/* ---- lanes ---- */

enum { LANE_IO, LANE_COMPUTE, LANE_CALLS, LANE_SHADES };
#define LANE_LABEL_W 18
/* The cells across a lanes level on this screen. */
int view_lanes_width(const view *v);
/* L: a lanes level over the top level's selection: its processes, or its
 * threads, hosts or ranks when it shows those. */
bool view_lanes_open(view *v, char *err, size_t errlen);
/* Enter on a lane's cell: that process (thread, ...) and that time range,
 * by layer. */
bool view_lanes_drill(view *v, char *err, size_t errlen);
/* p on lanes: process, thread, host, rank in turn. */
bool view_lanes_pivot(view *v, char *err, size_t errlen);
/* The time range of cell col of a lanes level, seconds from the trace start
 * (the engine's sparkline bin edges). */
void view_lane_cell(const level *l, size_t col, double *lo, double *hi);
/* A lane cell's share: the row's time of the shade in it over its width. */
double view_lane_value(const level *l, int shade, size_t row, size_t col);
const char *view_shade_name(int shade);

/* ---- flame ---- */

/* A call path's text ("f;g;h", a ';' or '\' in a name escaped by '\'):
 * its depth (2) and its last function, unescaped (*name malloc'd). */
unsigned view_path_split(const char *t, size_t len, char **name);

/* F: the top level's selection by call path, as a tree. False with a
 * message without a call tree (while loading) or comparing. */
bool view_flame_open(view *v, char *err, size_t errlen);

/* The events of one row of l: fills out's base filter and time window
 * (what a drill into the row starts from, and what E exports). */
void view_select_row(const view *v, const level *l, size_t row, level *out);
/* Label of a row's key for the screen (time bins as "12.0-18.0 s"). */
size_t view_key_text(const view *v, const level *l, size_t row, char *buf, size_t cap);
/* Decimals of a time range's edges in seconds, by its width: a time row
 * (and a drilled one's crumb), and a lane cell (the status line, its
 * crumb). */
int view_range_decimals(double w);
int view_cell_decimals(double w);
bool view_is_calls(const level *l);
/* Whether l always shows compute, I/O and exposed (the process levels). */
bool view_shows_compute(const level *l);
/* The filter key that selects one row of a grouping. */
const char *view_dim_title(const dfn_dim *d);
/* The table's columns: title, width on screen, the metric they show. */
typedef struct { const char *title; int width; int metric; } view_colspec;
extern const view_colspec view_cols[COL_N];
/* Which columns of level l fit the screen, the sparkline's width and the
 * key's: what the screen draws, what the query computes and what the sort
 * moves over all come from here. */
void view_layout(const view *v, const level *l, bool *show, int *spark_w, int *key_w);
/* Comparing, a metric column is a group: a column per run and, for two
 * runs, the difference and the ratio. Its sub-columns, their widths and
 * total width. */
size_t view_group(const view *v, col_id c, int *cols, int *widths);
int view_col_width(const view *v, col_id c, int spark_w);
#define VIEW_RATIO_W 6
/* Opens a level on a finding's evidence: the top level's selection plus
 * the finding's filter, grouped as the finding says. */
bool view_open_finding(view *v, const dfn_finding *f, char *err, size_t errlen);
/* The argument names the calls of the top level's selection have (run 0),
 * sorted; NULL when there are none or they could not be read. */
char **view_arg_names(const view *v, size_t *n);
/* Default file name for an export of the top level, at time now. */
void view_export_name(const view *v, bool calls, long long now, char *buf, size_t cap);

/* Dimensions the pivot menu offers, with a key each. */
typedef struct { dfn_dimkind kind; const char *label; char key; } pivot_item;
extern const pivot_item view_pivots[];
extern const size_t view_npivots;

#endif
