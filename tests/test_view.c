/* The explorer's view model without a terminal: the cursor follows its
 * row's key when the rows are made again (a newer snapshot while loading,
 * other time bins), search counts its matches and looks below the level
 * when no row holds the text. Stores are hand-made, so the rows are known. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ui/view.h"
#include "dfnav/util.h"
#include "storeutil.h"

/* A trace whose calls run from 0 to span seconds: a read of /data/fN
 * every second, N the second modulo 4, by process 1 (2 on odd seconds);
 * past 20 s also a long read of /data/big, which sorts first by time. */
static dfn_store *trace(int span)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (int t = 0; t < span; t++) {
        char line[256];
        int n = snprintf(line, sizeof line,
                         "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%d,\"tid\":1,\"ts\":%lld,\"dur\":1000,\"ph\":\"X\","
                         "\"args\":{\"fname\":\"/data/f%d\",\"size\":%d}}\n",
                         1 + t % 2, (long long)t * 1000000 + 500000, t % 4, 100 + t);
        dfn_grow((void **)&text, &cap, len + (size_t)n + 1, 1);
        memcpy(text + len, line, (size_t)n + 1);
        len += (size_t)n;
    }
    if (span > 20) {
        const char *big = "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":1000,\"dur\":900000,"
                          "\"ph\":\"X\",\"args\":{\"fname\":\"/data/big\"}}\n";
        dfn_grow((void **)&text, &cap, len + strlen(big) + 1, 1);
        memcpy(text + len, big, strlen(big) + 1);
    }
    char name[32];
    snprintf(name, sizeof name, "span%d.pfw", span);
    dfn_store *s = su_load_text(name, text, 1);
    free(text);
    return s;
}

static ui_opts opts = { .threads = 1 };

static view_set *set_of(int span) { return view_set_new(trace(span), &opts, NULL, VIEW_NEED_ALL); }

/* v on the runs a, rows table rows (0: the default), its first rows made. */
static void view_start(view *v, view_set **a, int rows)
{
    view_init(v, a, 1, NULL);
    if (rows) v->table_rows = rows;
    char err[256];
    cr_assert(view_refresh(v, err, sizeof err), "%s", err);
}

static void key_of(view *v, char *buf, size_t cap)
{
    level *l = view_top(v);
    view_key_text(v, l, l->cursor, buf, cap);
}

Test(view, cursor_follows_the_time_range_when_bins_are_cut_again)
{
    view_set *a = set_of(10), *b = set_of(100), *c = set_of(200);
    view v;
    char err[256], key[128];
    view_start(&v, &a, 10);
    view_move(&v, 3);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "3.0-4.0 s");
    /* the load goes on: ten times the span, bins of 10 s */
    view_set_store(&v, 0, b);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "0.0-10.0 s", "the range that holds 3.5 s, not row 3 (30-40 s)");
    view_move(&v, 5);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "50.0-60.0 s");
    view_set_store(&v, 0, c);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "40.0-60.0 s");
    /* Enter opens the range that is highlighted */
    cr_assert(view_drill(&v, err, sizeof err), "%s", err);
    cr_assert_float_eq(view_top(&v)->win_lo, 40.0, 1e-9);
    cr_assert_float_eq(view_top(&v)->win_hi, 60.0, 1e-9);
    view_free(&v);
    view_set_free(a);
    view_set_free(b);
    view_set_free(c);
}

/* While a set loads, a window drawn to the end of the run so far follows
 * the run as far as it was chosen to go: the last time row of a 9.001 s
 * snapshot (9.0-9.001 s, a bin of 1 s) had grown to 9-99.5 s under its
 * crumb's "9.0-9.0 s"; it is 9.0-10.0 s, and says so. Typed bounds hold as
 * typed; a window that showed all of the run goes on showing all of it. */
Test(view, a_longer_run_widens_windows_as_far_as_chosen)
{
    view_set *a = set_of(10), *b = set_of(100);
    view v;
    char err[256], key[128];
    view_start(&v, &a, 10);
    view_move(&v, 9);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "9.0-9.0 s", "the run ends at 9.001 s");
    double end = view_top(&v)->win_hi;
    cr_assert(view_drill(&v, err, sizeof err), "%s", err);
    cr_assert_float_eq(view_top(&v)->win_hi, end, 1e-9);
    cr_assert(end < 9.01, "the run so far ends at 9.001 s (%f)", end);
    /* below it, a pivot to files; beside it, a typed bound past the run */
    dfn_dim d = { .kind = DFN_DIM_FILE };
    cr_assert(view_pivot(&v, &d, err, sizeof err), "%s", err);
    view_set_store(&v, 0, b);
    cr_assert_float_eq(v.lv[1].win_lo, 9.0, 1e-9);
    cr_assert_float_eq(v.lv[1].win_hi, 10.0, 1e-9, "the row's bin, not to the new end (%f)", v.lv[1].win_hi);
    cr_assert_str_eq(v.lv[1].crumb, "9.0-10.0 s");
    cr_assert(v.lv[0].win_hi > 99.0, "the top level shows the whole longer run (%f)", v.lv[0].win_hi);
    view_free(&v);

    view_init(&v, &a, 1, NULL);
    v.table_rows = 10;
    cr_assert(view_set_user_filter(&v, "time<50", err, sizeof err), "%s", err);
    cr_assert(view_top(&v)->win_hi < 11.0, "the 10 s run is all below 50 s (%f)", view_top(&v)->win_hi);
    view_set_store(&v, 0, b);
    cr_assert_float_eq(view_top(&v)->win_hi, 50.0, 1e-9, "typed, time<50 holds (%f)", view_top(&v)->win_hi);
    view_free(&v);

    /* zoomed in at the end: bins of 0.5 s, 4.5-9.001 s, nine of them and
     * the part of one; the longer run makes that one whole, no more */
    view_start(&v, &a, 10);
    view_move(&v, 9);
    view_zoom(&v, true);
    cr_assert_float_eq(view_top(&v)->win_lo, 4.5, 1e-9, "%f", view_top(&v)->win_lo);
    cr_assert_float_eq(view_top(&v)->win_hi, end, 1e-9, "%f", view_top(&v)->win_hi);
    view_set_store(&v, 0, b);
    cr_assert_float_eq(view_top(&v)->win_lo, 4.5, 1e-9);
    cr_assert_float_eq(view_top(&v)->win_hi, 9.5, 1e-9, "%f", view_top(&v)->win_hi);
    view_free(&v);
    view_set_free(a);
    view_set_free(b);
}

/* A run of exactly 10.0 s (calls at 0 and 9.999 s of 1 ms). */
static view_set *set_of_ten(void)
{
    const char *two = "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000,\"ph\":\"X\"}\n"
                      "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":9999000,\"dur\":1000,\"ph\":\"X\"}\n";
    return view_set_new(su_load_text("ten.pfw", two, 1), &opts, NULL, VIEW_NEED_ALL);
}

/* Moved against the end of a run that ends on a bin's edge, a window
 * holds no part bin: it took one more bin when the run grew (5-10.5 s). */
Test(view, a_window_at_a_runs_end_on_a_bin_edge_does_not_grow)
{
    view_set *a = set_of_ten(), *b = set_of(100);
    view v;
    view_start(&v, &a, 10);
    view_zoom(&v, true);   /* 0-5 s, bins of 0.5 s */
    cr_assert_float_eq(view_top(&v)->win_hi, 5.0, 1e-9, "%f", view_top(&v)->win_hi);
    for (int i = 0; i < 3; i++) view_shift(&v, 1);   /* 2.5-7.5, 5-10, then against the end */
    cr_assert_float_eq(view_top(&v)->win_lo, 5.0, 1e-9, "%f", view_top(&v)->win_lo);
    cr_assert_float_eq(view_top(&v)->win_hi, 10.0, 1e-9, "%f", view_top(&v)->win_hi);
    view_set_store(&v, 0, b);
    cr_assert_float_eq(view_top(&v)->win_hi, 10.0, 1e-9, "%f", view_top(&v)->win_hi);
    view_free(&v);
    view_set_free(a);
    view_set_free(b);
}

/* Typed bounds past the run so far, and a level below them: the window
 * followed a longer run that still ended before it to 15-11.001 s. */
Test(view, a_window_past_the_run_stays_whole)
{
    view_set *a = set_of(10), *b = set_of(12);
    view v;
    view_init(&v, &a, 1, NULL);
    v.table_rows = 10;
    char err[256] = "";
    cr_assert(view_set_user_filter(&v, "time>=15", err, sizeof err), "%s", err);
    cr_assert(view_lanes_open(&v, err, sizeof err), "%s", err);
    view_set_store(&v, 0, b);
    for (size_t i = 0; i < v.nlv; i++)
        cr_assert(v.lv[i].win_hi >= v.lv[i].win_lo, "level %zu: %f-%f", i, v.lv[i].win_lo, v.lv[i].win_hi);
    view_free(&v);
    view_set_free(a);
    view_set_free(b);
}

/* The first moments of a load can give a run of no time (one call of no
 * duration): its time row opened a window of nothing, which stayed one. */
Test(view, a_run_of_no_time_has_no_window_to_open)
{
    const char *one = "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":0,\"ph\":\"X\"}\n";
    view_set *a = view_set_new(su_load_text("instant.pfw", one, 1), &opts, NULL, VIEW_NEED_ALL);
    view v;
    char err[256] = "";
    view_start(&v, &a, 0);
    cr_assert(!view_drill(&v, err, sizeof err));
    cr_assert(strstr(err, "wait for the load"), "%s", err);
    cr_assert_eq(v.nlv, 1);
    /* nor has a lane's cell */
    cr_assert(view_lanes_open(&v, err, sizeof err), "%s", err);
    err[0] = 0;
    cr_assert(!view_lanes_drill(&v, err, sizeof err));
    cr_assert(strstr(err, "wait for the load"), "%s", err);
    view_free(&v);
    view_set_free(a);
}

Test(view, cursor_follows_the_key_of_a_grouping)
{
    view_set *a = set_of(6), *b = set_of(40);
    view v;
    view_init(&v, &a, 1, NULL);
    char err[256], key[128];
    dfn_dim d = { .kind = DFN_DIM_FILE };
    cr_assert(view_pivot(&v, &d, err, sizeof err), "%s", err);
    /* by time, descending: in a, /data/f0 and f1 have two calls, f2 and f3 one */
    size_t row;
    for (row = 0; row < view_top(&v)->res->nrows; row++) {
        view_top(&v)->cursor = row;
        key_of(&v, key, sizeof key);
        if (!strcmp(key, "/data/f3")) break;
    }
    cr_assert_str_eq(key, "/data/f3");
    view_set_store(&v, 0, b);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "/data/f3", "the cursor stays on its file though the rows are new");
    view_free(&v);
    view_set_free(a);
    view_set_free(b);
}

Test(view, search_counts_matches_and_looks_below)
{
    view_set *a = set_of(8);
    view v;
    char msg[256], key[128];
    view_start(&v, &a, 8);
    /* 8 one-second rows: "1." is in 1.0-2.0 and 0.0-1.0 s */
    v.search = dfn_xstrdup("1.0");
    cr_assert(view_search(&v, 0));
    view_search_status(&v, true, msg, sizeof msg);
    cr_assert(strstr(msg, "match 1 of 2"), "%s", msg);
    cr_assert(view_search(&v, 1));
    view_search_status(&v, true, msg, sizeof msg);
    cr_assert(strstr(msg, "match 2 of 2"), "%s", msg);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "1.0-2.0 s");
    cr_assert(view_search(&v, 1), "wraps to the first");
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "0.0-1.0 s");
    /* no time range holds a file name: the selection's files do */
    free(v.search);
    v.search = dfn_xstrdup("f2");
    cr_assert_not(view_search(&v, 0));
    cr_assert(view_search_below(&v, msg, sizeof msg));
    cr_assert(strstr(msg, "1 files of the selection"), "%s", msg);
    level *l = view_top(&v);
    cr_assert_eq(l->dim.kind, DFN_DIM_FILE);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "/data/f2");
    cr_assert_eq(dfn_result_metric(l->res->res[0], 0, DFN_M_COUNT), 2.0, "its calls at 2 s and 6 s");
    cr_assert(view_back(&v));
    free(v.search);
    v.search = dfn_xstrdup("nowhere");
    cr_assert_not(view_search_below(&v, msg, sizeof msg));
    cr_assert_eq(v.nlv, 1, "nothing found: no level left behind");
    view_free(&v);
    view_set_free(a);
}

/* Lanes: a row per process, a cell per column; a cell's I/O share is what
 * the process level of that cell's time range says, and Enter opens that
 * process and range. */
Test(view, lanes_cells_and_their_drill)
{
    view_set *a = set_of(12);
    view v;
    view_init(&v, &a, 1, NULL);
    v.screen_cols = LANE_LABEL_W + 1 + 24;   /* 24 cells of 0.5 s */
    char err[256], key[128];
    cr_assert(view_refresh(&v, err, sizeof err), "%s", err);
    cr_assert(view_lanes_open(&v, err, sizeof err), "%s", err);
    level *l = view_top(&v);
    cr_assert(l->lanes);
    cr_assert_eq(l->res->nrows, 2, "processes 1 and 2");
    cr_assert_eq(l->res->res[0]->spark_bins, 24);
    /* times from the trace start: process 1 reads for 1 ms at 0, 2, 4 ...
     * s, process 2 at 1, 3, 5 ... s; the set spans 11.001 s */
    double lo, hi, plo, phi;
    view_lane_cell(l, 0, &lo, &hi);
    cr_assert_float_eq(lo, 0.0, 1e-9);
    cr_assert_float_eq(hi, 11.001 / 24, 1e-6);
    size_t k = 0;
    for (; k < 24; k++) {
        view_lane_cell(l, k, &lo, &hi);
        if (lo <= 2.0 && 2.0 < hi) break;
    }
    cr_assert(k > 0 && k < 24);
    view_lane_cell(l, k - 1, &plo, &phi);
    cr_assert_float_eq(phi, lo, 1e-12, "cells meet");
    l->cursor = 0;
    key_of(&v, key, sizeof key);
    cr_assert(strstr(key, "/1/"), "%s", key);
    cr_assert_float_eq(view_lane_value(l, LANE_CALLS, 0, k), 0.001 / (hi - lo), 1e-9);
    cr_assert_float_eq(view_lane_value(l, LANE_IO, 0, k), 0.001 / (hi - lo), 1e-9);
    cr_assert_float_eq(view_lane_value(l, LANE_CALLS, 0, k - 1), 0.0, 1e-12);
    cr_assert_float_eq(view_lane_value(l, LANE_CALLS, 1, k), 0.0, 1e-12, "process 2 is idle then");
    l->lane_col = k;
    cr_assert(view_lanes_drill(&v, err, sizeof err), "%s", err);
    level *c = view_top(&v);
    cr_assert_not(c->lanes);
    cr_assert_eq(c->dim.kind, DFN_DIM_LAYER);
    cr_assert_float_eq(c->win_lo, lo, 1e-9);
    cr_assert_float_eq(c->win_hi, hi, 1e-9);
    dfn_dim d = { .kind = DFN_DIM_PROC };
    cr_assert(view_pivot(&v, &d, err, sizeof err), "%s", err);
    c = view_top(&v);
    cr_assert_eq(c->res->nrows, 1, "the lane's process alone");
    cr_assert_float_eq(dfn_result_metric(c->res->res[0], 0, DFN_M_IO_BUSY_S), 0.001, 1e-9);
    /* back, and p: lanes of threads, hosts, ranks */
    cr_assert(view_back(&v));
    cr_assert(view_top(&v)->lanes);
    cr_assert(view_lanes_pivot(&v, err, sizeof err), "%s", err);
    cr_assert_eq(view_top(&v)->dim.kind, DFN_DIM_TID);
    cr_assert(view_top(&v)->lanes && view_top(&v)->sort < 0, "still lanes, in name order");
    cr_assert(view_lanes_open(&v, err, sizeof err), "%s", err);
    cr_assert_eq(v.nlv, 1, "L again: back to the table");
    view_free(&v);
    view_set_free(a);
}

/* Flame: call paths in tree order (callers above their callees, larger
 * first) with their depths; Enter lists a path's calls. */
Test(view, flame_rows_in_tree_order)
{
    const char *text = EV("A", "app", 1, 1, 1000, 100, "") EV("B", "app", 1, 1, 1010, 20, "")
                       EV("C", "app", 1, 1, 1012, 2, "") EV("D", "app", 1, 1, 1040, 30, "")
                       EV("C", "app", 1, 1, 1200, 10, "") EV("E", "app", 1, 1, 1300, 500, "");
    view_set *a = view_set_new(su_load_text("flame.pfw", text, 1), &opts, NULL, VIEW_NEED_ALL);
    view v;
    char err[256], key[128];
    view_start(&v, &a, 0);
    cr_assert(view_flame_open(&v, err, sizeof err), "%s", err);
    level *l = view_top(&v);
    cr_assert(l->flame);
    static const char *want[] = { "E", "A", "A;D", "A;B", "A;B;C", "C" };
    static const int depth[] = { 0, 0, 1, 1, 2, 0 };
    cr_assert_eq(l->res->nrows, 6);
    for (size_t k = 0; k < 6; k++) {
        view_key_text(&v, l, k, key, sizeof key);
        cr_assert_str_eq(key, want[k], "row %zu", k);
        cr_assert_eq(l->flame_depth[k], depth[k], "row %zu", k);
    }
    l->cursor = 3;   /* A;B */
    cr_assert(view_drill(&v, err, sizeof err), "%s", err);
    l = view_top(&v);
    cr_assert(view_is_calls(l));
    cr_assert_eq(l->res->nrows, 1, "the one B");
    cr_assert(view_back(&v));
    cr_assert(view_flame_open(&v, err, sizeof err), "%s", err);
    cr_assert_eq(v.nlv, 1, "F again: back");
    view_free(&v);
    view_set_free(a);
}

/* Review findings: finer bins keep the cursor on the first part of its
 * range (not the one after its middle); a lane cell past the last after a
 * resize is never an inverted window. */
Test(view, anchors_and_cells_after_a_resize)
{
    view_set *a = set_of(32);
    view v;
    char err[256], key[128];
    view_start(&v, &a, 16);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "0.0-2.0 s");
    v.table_rows = 32;
    cr_assert(view_refresh(&v, err, sizeof err), "%s", err);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "0.0-1.0 s", "the first part, not 1.0-2.0 s");
    view_move(&v, 5);
    v.table_rows = 8;   /* coarser: the range that holds 5.0 s */
    cr_assert(view_refresh(&v, err, sizeof err), "%s", err);
    key_of(&v, key, sizeof key);
    cr_assert_str_eq(key, "5.0-10.0 s");
    v.screen_cols = LANE_LABEL_W + 1 + 100;
    cr_assert(view_lanes_open(&v, err, sizeof err), "%s", err);
    level *l = view_top(&v);
    l->lane_col = 99;
    v.screen_cols = 80;
    cr_assert(view_refresh(&v, err, sizeof err), "%s", err);
    cr_assert_lt(l->lane_col, l->res->res[0]->spark_bins, "the cell cursor follows the narrower screen");
    double lo, hi;
    view_lane_cell(l, 1000, &lo, &hi);
    cr_assert_leq(lo, hi);
    cr_assert(view_lanes_drill(&v, err, sizeof err), "%s", err);
    cr_assert_lt(view_top(&v)->win_lo, view_top(&v)->win_hi);
    view_free(&v);
    view_set_free(a);
}
