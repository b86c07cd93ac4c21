/* A set explored while MPI ranks hold it (remote.h, serve --spread): its
 * outline, a track's counter query and a call's name travel as bytes and
 * read back as they were, damaged bytes are refused with why; a call
 * named in one store is found in another and its place reads alike; a
 * share's selection of samples is the set's, whichever rank holds the
 * sampler; merged counter rows take the outline's series. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dfnav/callplace.h"
#include "dfnav/counters.h"
#include "dfnav/extract.h"
#include "dfnav/qspec.h"
#include "dfnav/remote.h"
#include "dfnav/util.h"
#include "storeutil.h"
#include "testutil.h"

/* One process on host h1: train encloses open64 and two reads (one of
 * them after another read of the same file), and a cpu sample. */
static const char calls_text[] =
    "{\"name\":\"train\",\"cat\":\"ai_framework\",\"pid\":7,\"tid\":7,\"ts\":1000,\"dur\":5000,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\"}}\n"
    "{\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":1100,\"dur\":100,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\",\"fname\":\"/d/a\",\"ret\":3}}\n"
    "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":1300,\"dur\":400,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\",\"fname\":\"/d/a\",\"ret\":4096,\"offset\":0}}\n"
    "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":7,\"tid\":7,\"ts\":1800,\"dur\":300,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\",\"fname\":\"/d/a\",\"ret\":4096,\"offset\":4096}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":7,\"tid\":7,\"ts\":2000,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h1\",\"user_pct\":40}}\n";

/* Another rank's share: a sampler of host h1 that made no call, and a
 * process of host h2 with a call and samples of its own. */
static const char sampler_text[] =
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":99,\"tid\":99,\"ts\":1500,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h1\",\"iowait_pct\":3}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":99,\"tid\":99,\"ts\":2500,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h1\",\"iowait_pct\":5}}\n"
    "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":8,\"tid\":8,\"ts\":1200,\"dur\":50,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h2\",\"fname\":\"/d/b\",\"ret\":512}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":8,\"tid\":8,\"ts\":1250,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h2\",\"iowait_pct\":9}}\n";

static uint32_t call_of(const dfn_store *s, const char *func, uint64_t rel_ts)
{
    for (size_t i = 0; i < s->n; i++)
        if (dfn_store_ts(s, i) == rel_ts && strcmp(dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func), func) == 0)
            return (uint32_t)i;
    cr_assert_fail("no call %s at %llu", func, (unsigned long long)rel_ts);
    return 0;
}

Test(remote, outline_reads_back_as_written)
{
    dfn_store *s = su_load_text("a.pfw", calls_text, 1);
    cr_assert(s);
    char *series[] = { "cpu.user_pct", "disk.read_bytes" };
    dfn_outline_run runs[2] = {
        { .label = "base", .preset = "dlio", .why = "DLIO names", .agg = true, .t0 = 1000, .t1 = 6000, .events = 4,
          .series = series, .nseries = 2, .many_hosts = true, .hosts_whole = false, .store = s },
        { .label = "empty", .preset = "", .why = "", .t0 = UINT64_MAX, .events = 0, .hosts_whole = true },
    };
    dfn_outline ol = { runs, 2 };
    size_t len;
    uint8_t *b = dfn_outline_encode(&ol, &len);
    dfn_outline back;
    char err[256] = "";
    cr_assert(dfn_outline_decode(b, len, &back, err, sizeof err), "%s", err);
    cr_assert_eq(back.n, 2);
    const dfn_outline_run *r = &back.run[0];
    cr_assert_str_eq(r->label, "base");
    cr_assert_str_eq(r->preset, "dlio");
    cr_assert_str_eq(r->why, "DLIO names");
    cr_assert(r->agg && r->many_hosts && !r->hosts_whole);
    cr_assert_eq(r->events, 4);
    cr_assert_eq(r->nseries, 2);
    cr_assert_str_eq(r->series[1], "disk.read_bytes");
    /* its store: the files' accounts, the span and the series, no events */
    const dfn_store *o = r->store;
    cr_assert_eq(o->n, 0);
    cr_assert_eq(o->t0, 1000);
    cr_assert_eq(o->t1, 6000);
    cr_assert_eq(o->nsrc, 1);
    cr_assert_str_eq(o->src[0].path, s->src[0].path);
    cr_assert_eq(o->src[0].events, s->src[0].events);
    cr_assert_eq(o->src[0].lines, s->src[0].lines);
    cr_assert_eq(o->nseries, 2);
    cr_assert_str_eq(dfn_store_str(o, o->series[0]), "cpu.user_pct");
    /* a run without events: no span, a store all the same */
    cr_assert_eq(back.run[1].store->nsrc, 0);
    cr_assert_eq(back.run[1].t0, UINT64_MAX);
    cr_assert_eq(back.run[1].store->t1, 0);
    cr_assert(back.run[1].hosts_whole);
    dfn_outline_free(&back);
    /* every cut of the bytes is refused, saying where */
    for (size_t cut = 0; cut < len; cut++) {
        err[0] = 0;
        cr_assert_not(dfn_outline_decode(b, cut, &back, err, sizeof err), "a cut at %zu read", cut);
        cr_assert_neq(err[0], 0, "a cut at %zu said nothing", cut);
        dfn_outline_free(&back);
    }
    /* and bytes past its end */
    uint8_t *more = malloc(len + 1);
    memcpy(more, b, len);
    more[len] = 0;
    cr_assert_not(dfn_outline_decode(more, len + 1, &back, err, sizeof err));
    cr_assert(strstr(err, "past its end"), "%s", err);
    dfn_outline_free(&back);
    free(more);
    free(b);
    dfn_store_free(s);
}

Test(remote, counter_query_reads_back)
{
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse("proc=h1/7/7 time>0.5", &f, err, sizeof err), "%s", err);
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER, DFN_CDIM_TIME }, .ndims = 2, .filter = &f, .nbins = 60,
                     .win_lo_s = 0.25, .win_hi_s = 4.75, .selection = true };
    size_t len;
    uint8_t *b = dfn_cqspec_encode(&q, &len, err, sizeof err);
    cr_assert(b, "%s", err);
    dfn_cqspec cs;
    cr_assert(dfn_cqspec_decode(b, len, &cs, err, sizeof err), "%s", err);
    cr_assert_eq(cs.q.ndims, 2);
    cr_assert_eq(cs.q.dims[1], DFN_CDIM_TIME);
    cr_assert_eq(cs.q.nbins, 60);
    cr_assert_float_eq(cs.q.win_lo_s, 0.25, 0);
    cr_assert_float_eq(cs.q.win_hi_s, 4.75, 0);
    cr_assert(cs.q.selection);
    char *t = dfn_filter_text(cs.q.filter), *want = dfn_filter_text(&f);
    cr_assert_str_eq(t, want);
    free(t);
    free(want);
    dfn_cqspec_free(&cs);
    /* a window that ends before it starts, and cuts, are refused */
    q.win_hi_s = 0.1;
    free(b);
    b = dfn_cqspec_encode(&q, &len, err, sizeof err);
    cr_assert_not(dfn_cqspec_decode(b, len, &cs, err, sizeof err));
    cr_assert(strstr(err, "window"), "%s", err);
    for (size_t cut = 0; cut < len; cut++) cr_assert_not(dfn_cqspec_decode(b, cut, &cs, err, sizeof err));
    free(b);
    dfn_filter_free(&f);
}

Test(remote, a_call_named_here_is_found_there)
{
    dfn_store *a = su_load_text("a.pfw", calls_text, 1), *b = su_load_text("b.pfw", calls_text, 1);
    dfn_store *other = su_load_text("c.pfw", sampler_text, 1);
    uint32_t rd = call_of(a, "read", 800);   /* the second read, 1800 µs since the epoch */
    size_t len;
    uint8_t *key = dfn_call_place_key(a, rd, &len);
    uint32_t found;
    char err[256];
    cr_assert(dfn_call_place_find(b, key, len, &found, err, sizeof err), "%s", err);
    cr_assert_eq(found, call_of(b, "read", 800));
    cr_assert(dfn_call_place_find(other, key, len, &found, err, sizeof err));
    cr_assert_eq(found, UINT32_MAX);
    /* damaged names are refused */
    for (size_t cut = 0; cut < len; cut++) cr_assert_not(dfn_call_place_find(b, key, cut, &found, err, sizeof err));
    free(key);
    /* its place: under train, no child; train's: two reads and an open */
    dfn_analysis an = {0};
    dfn_layers l;
    cr_assert(dfn_layers_load("posix", &l, err, sizeof err));
    dfn_layerset *ls = dfn_layerset_compile(b, &l, 1, err, sizeof err);
    cr_assert(dfn_analysis_build(&an, b, ls, NULL, false, DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err), "%s", err);
    size_t n;
    char **lines = dfn_call_place(b, an.tree, an.access, found == UINT32_MAX ? call_of(b, "read", 800) : found, &n);
    cr_assert_eq(n, 5);
    cr_assert_str_eq(lines[0], "self time  300us (not inside a child call)");
    cr_assert_str_eq(lines[1], "access     sequential");
    cr_assert_str_eq(lines[2], "called from");
    cr_assert_str_eq(lines[3], "  train  at 0.000000 s, for 5.0ms");
    cr_assert_str_eq(lines[4], "calls made  0");
    dfn_call_place_free(lines, n);
    lines = dfn_call_place(b, an.tree, an.access, call_of(b, "train", 0), &n);
    cr_assert_eq(n, 6);
    cr_assert_str_eq(lines[1], "called from  (nothing encloses it in its thread)");
    cr_assert_str_eq(lines[2], "calls made  3");
    cr_assert_str_eq(lines[3], "  open64  at 0.000100 s, for 100us, on /d/a");
    cr_assert_str_eq(lines[5], "  read  at 0.000800 s, for 300us, on /d/a");
    dfn_call_place_free(lines, n);
    dfn_analysis_free(&an);
    dfn_layerset_free(ls);
    dfn_layers_free(&l);
    dfn_store_free(a);
    dfn_store_free(b);
    dfn_store_free(other);
}

/* The samples of o's query with this selection (and, when set, the set's
 * hosts and callers), summed over its rows. */
static uint64_t samples_of(const dfn_store *s, const char *where, const dfn_csel *set)
{
    dfn_filter f;
    char err[256];
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    dfn_cspan span = { 1000, 1250, 2500 };
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER }, .ndims = 1, .filter = &f, .selection = true, .span = &span,
                     .set_sel = set };
    dfn_cresult r;
    cr_assert(dfn_counters_query(s, &q, &r, err, sizeof err), "%s", err);
    uint64_t n = 0;
    for (size_t i = 0; i < r.nrows; i++) n += r.rows[i].samples;
    dfn_cresult_free(&r);
    dfn_filter_free(&f);
    return n;
}

Test(remote, a_selection_of_samples_is_the_sets)
{
    dfn_store *mine = su_load_text("a.pfw", calls_text, 1), *theirs = su_load_text("c.pfw", sampler_text, 1);
    /* the set: process h1/7 selected, on rank A; the sampler of h1 on rank B */
    dfn_csel set = { dfn_strtab_new(), dfn_strtab_new() };
    char err[256];
    const char *where = "proc=h1/7/7";
    dfn_filter f;
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err));
    const dfn_store *shares[] = { mine, theirs };
    for (int k = 0; k < 2; k++) {
        size_t hl, cl;
        uint8_t *h = dfn_counters_select_hosts(shares[k], &f, &hl), *c = dfn_extract_callers(shares[k], &cl);
        cr_assert(dfn_csel_hosts_add(&set, h, hl, err, sizeof err), "%s", err);
        cr_assert(dfn_extract_callers_add(set.callers, c, cl, err, sizeof err), "%s", err);
        free(h);
        free(c);
    }
    dfn_filter_free(&f);
    cr_assert(dfn_counters_sel_wanted(&(dfn_filter){ 0 }) == false);
    /* rank B alone knows no selected process: its sampler would go */
    cr_assert_eq(samples_of(theirs, where, NULL), 0);
    /* the set's selection keeps the h1 sampler's two, not h2's own */
    cr_assert_eq(samples_of(theirs, where, &set), 2);
    cr_assert_eq(samples_of(mine, where, &set), 1);
    /* a selection of h2's process keeps its own sample only */
    dfn_strtab_free(set.hosts);
    set.hosts = dfn_strtab_new();
    dfn_strtab_intern(set.hosts, "h2", 2);
    cr_assert_eq(samples_of(theirs, "proc=h2/8/8", &set), 1);
    dfn_strtab_free(set.hosts);
    dfn_strtab_free(set.callers);
    dfn_store_free(mine);
    dfn_store_free(theirs);
}

Test(remote, merged_counter_rows_take_the_outlines_series)
{
    dfn_store *s = su_load_text("c.pfw", sampler_text, 1);
    dfn_cspan span = { 1000, 1250, 2500 };
    dfn_cquery q = { .dims = { DFN_CDIM_COUNTER }, .ndims = 1, .span = &span };
    dfn_cresult mine, merged;
    char err[256];
    cr_assert(dfn_counters_query(s, &q, &mine, err, sizeof err), "%s", err);
    cr_assert(dfn_counters_query(NULL, &q, &merged, err, sizeof err), "%s", err);
    size_t len;
    uint8_t *b = dfn_counters_encode(s, &mine, &len);
    cr_assert(dfn_counters_merge(&merged, b, len, err, sizeof err), "%s", err);
    dfn_counters_finish(&merged);
    cr_assert_not_null(merged.keytext);
    /* the outline names the set's series: this share has one of them */
    dfn_outline_run run = { .preset = "", .why = "", .t0 = 1000, .t1 = 3000, .nseries = 2,
                            .series = (char *[]){ "cpu.iowait_pct", "cpu.user_pct" } };
    dfn_outline ol = { &run, 1 }, back;
    size_t olen;
    uint8_t *ob = dfn_outline_encode(&ol, &olen);
    cr_assert(dfn_outline_decode(ob, olen, &back, err, sizeof err), "%s", err);
    cr_assert(dfn_remote_relabel_counters(back.run[0].store, &merged, err, sizeof err), "%s", err);
    cr_assert_null(merged.keytext);
    cr_assert_eq(merged.nrows, 1);
    cr_assert_eq(merged.rows[0].key[0], 0);   /* cpu.iowait_pct, the outline's first */
    cr_assert_eq(merged.rows[0].samples, 3);
    /* rows of a series the outline lacks are refused */
    dfn_cresult again;
    cr_assert(dfn_counters_query(NULL, &q, &again, err, sizeof err));
    cr_assert(dfn_counters_merge(&again, b, len, err, sizeof err));
    dfn_counters_finish(&again);
    back.run[0].store->nseries = 1;
    back.run[0].store->series[0] = back.run[0].store->series[1];
    cr_assert_not(dfn_remote_relabel_counters(back.run[0].store, &again, err, sizeof err));
    cr_assert(strstr(err, "cpu.iowait_pct"), "%s", err);
    dfn_cresult_free(&again);
    dfn_cresult_free(&merged);
    dfn_cresult_free(&mine);
    dfn_outline_free(&back);
    free(ob);
    free(b);
    dfn_store_free(s);
}

Test(remote, hex_reads_back)
{
    const uint8_t bytes[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };
    char *h = dfn_hex(bytes, sizeof bytes);
    cr_assert_str_eq(h, "00017f80feff");
    size_t n;
    uint8_t *back = dfn_unhex(h, &n);
    cr_assert_eq(n, sizeof bytes);
    cr_assert_eq(memcmp(back, bytes, n), 0);
    free(back);
    free(h);
    back = dfn_unhex("", &n);
    cr_assert_not_null(back);
    cr_assert_eq(n, 0);
    free(back);
    cr_assert_null(dfn_unhex("abc", &n));
    cr_assert_null(dfn_unhex("0g", &n));
    back = dfn_unhex("A0", &n);
    cr_assert_eq(back[0], 0xa0);
    free(back);
}
