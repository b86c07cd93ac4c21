/* The explorer's counter tracks, without curses: which series of the
 * first run are shown (C pages through them by name, then turns them
 * off), the room they take, the timeline geometry they share with the
 * "all" and "selected" lines, and their query for a level: the mean of
 * each series in each sparkline bin of the level's window, from the
 * processes the level selects (dfn_counters_query's selection), so a
 * track lines up with the I/O time drawn above it. */
#include "view.h"
#include "dfnav/remote.h"

#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACK_LABEL_MIN 9
#define TRACK_LABEL_MAX 19
#define TRACK_SCALE_W 10

static const dfn_store *tracks_store(const view *v) { return v->nruns ? v->runs[0].s : NULL; }

static _Thread_local const dfn_store *g_order;

static int series_cmp(const void *a, const void *b)
{
    const dfn_store *s = g_order;
    return strcmp(dfn_store_str(s, s->series[*(const uint32_t *)a]), dfn_store_str(s, s->series[*(const uint32_t *)b]));
}

/* The series by name: again for every store, since a loading snapshot's
 * series may be numbered otherwise than the next one's. */
static void tracks_order(view *v)
{
    const dfn_store *s = tracks_store(v);
    free(v->track_series);
    v->track_series = NULL;
    v->ntrack_series = s ? s->nseries : 0;
    if (!v->ntrack_series) return;
    v->track_series = dfn_xmalloc(v->ntrack_series * sizeof *v->track_series);
    for (size_t k = 0; k < v->ntrack_series; k++) v->track_series[k] = (uint32_t)k;
    g_order = s;
    qsort(v->track_series, v->ntrack_series, sizeof *v->track_series, series_cmp);
}

const char *view_ctr_series(const view *v)
{
    const dfn_store *s = tracks_store(v);
    if (!s || !s->nseries || v->labels) return NULL;
    /* a remote run's rows' counter means need each host whole on a rank */
    if (v->runs[0].remote && !v->runs[0].remote->outline->run[v->runs[0].remote_run].hosts_whole) return NULL;
    if (v->track_on && v->track_series && v->track_first < v->ntrack_series)
        return dfn_store_str(s, s->series[v->track_series[v->track_first]]);
    const char *first = NULL;   /* else the first by name */
    for (size_t k = 0; k < s->nseries; k++) {
        const char *n = dfn_store_str(s, s->series[k]);
        if (!first || strcmp(n, first) < 0) first = n;
    }
    return first;
}

int view_track_lines(const view *v)
{
    if (!v->track_on || v->labels) return 0;
    size_t left = v->ntrack_series > v->track_first ? v->ntrack_series - v->track_first : 0;
    size_t page = v->track_max > 0 ? (size_t)v->track_max : 1;
    return (int)(left < page ? left : page);
}

bool view_tracks_next(view *v, char *msg, size_t msglen)
{
    if (v->labels) {
        snprintf(msg, msglen, "counter tracks show one run: open it alone to see them");
        return false;
    }
    tracks_order(v);
    if (!v->ntrack_series) {
        v->track_on = false;
        snprintf(msg, msglen, "no counter samples in this set: no tracks to show");
        return false;
    }
    size_t page = v->track_max > 0 ? (size_t)v->track_max : 1;
    if (!v->track_on) {
        v->track_on = true;
        v->track_first = 0;
    } else if (v->track_first + page >= v->ntrack_series) {
        v->track_on = false;
        v->track_first = 0;
    } else {
        v->track_first += page;
    }
    v->track_gen++;
    if (!v->track_on) {
        snprintf(msg, msglen, "counter tracks off");
    } else {
        size_t last = v->track_first + (size_t)view_track_lines(v);
        snprintf(msg, msglen, "counter tracks %zu-%zu of %zu, mean per time cell; C: %s", v->track_first + 1, last,
                 v->ntrack_series, last < v->ntrack_series ? "next ones" : "off");
    }
    return true;
}

uint32_t view_track_series(const view *v, int line)
{
    return v->track_series[v->track_first + (size_t)line];
}

void view_timeline_geom(const view *v, int cols, int *x0, int *w, int *scale_w)
{
    *x0 = TRACK_LABEL_MIN;
    *scale_w = 0;
    int n = view_track_lines(v);
    const dfn_store *s = tracks_store(v);
    for (int k = 0; k < n && s; k++) {
        int len = (int)dfn_strtab_len(s->strs, s->series[view_track_series(v, k)]) + 1;
        if (len > *x0) *x0 = len < TRACK_LABEL_MAX ? len : TRACK_LABEL_MAX;
    }
    if (n) *scale_w = TRACK_SCALE_W;
    *w = cols - *x0 - (*scale_w ? *scale_w : 1);
    if (*w < 8) *w = 8;
}

void view_tracks_query(view *v, level *l, const dfn_filter *f)
{
    dfn_cresult_free(&l->tracks);
    l->track_gen = v->track_gen;
    if (!view_track_lines(v) || !l->res || !l->res->nruns) return;
    const dfn_result *r = l->res->res[0];
    if (!r->spark_bins) return;
    tracks_order(v);   /* the store may be a newer snapshot */
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER, DFN_CDIM_TIME }, .ndims = 2, .filter = f, .nbins = r->spark_bins,
                     .win_lo_s = r->win_lo_s, .win_hi_s = r->win_hi_s, .selection = true };
    char err[256];
    const dfn_remote *rem = v->runs[0].remote;   /* (a set other processes hold: theirs) */
    bool ok = rem ? rem->counters(rem->ctx, v->runs[0].remote_run, &q, &l->tracks, err, sizeof err)
                  : dfn_counters_query(tracks_store(v), &q, &l->tracks, err, sizeof err);
    if (!ok) dfn_cresult_free(&l->tracks);
}

void view_tracks_refresh(view *v, level *l)
{
    dfn_filter f;
    view_filter(v, l, &f);
    view_tracks_query(v, l, &f);
    dfn_filter_free(&f);
}

void view_tracks_free(view *v)
{
    free(v->track_series);
    v->track_series = NULL;
    v->ntrack_series = 0;
}
