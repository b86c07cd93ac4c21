/* The cache of store images: a store mapped from its image equals the
 * store parsed (every era, the damaged corpus, every record kind); a file
 * that changed is read again; an image with any byte flipped or cut short
 * is refused, never trusted and never a crash; concurrent builders leave
 * one good entry; a cache that cannot be written costs only speed;
 * eviction keeps the most recently used entries. */
#include "storeutil.h"
#include "testutil.h"
#include "dfnav/cache.h"
#include "dfnav/image.h"
#include "dfnav/util.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define R(...) #__VA_ARGS__ "\n"

/* Every record kind: hashed names, metadata, aggregated records,
 * counters, B/E pairs, a malformed line, an unknown ph, nested args. */
static const char *mixed_trace =
    "[\n"
    R({"id":0,"name":"start","cat":"dftracer","pid":1,"tid":1,"ts":100,"dur":0,"ph":"M","args":{"version":"2.0.1"}})
    R({"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"node-a","value":"111"}})
    R({"id":2,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/data/f1.npz","value":"901"}})
    R({"name":"pread64","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":150,"ph":3,"args":{"hhash":"111","fhash":"901","dft_cnt":4,"dur_sum":40,"dur_max":15,"ret_sum":400}})
    R({"name":"read","cat":"POSIX","pid":1,"tid":2,"ts":200,"dur":5,"ph":"X","args":{"hhash":"111","fhash":"901","ret":4096,"offset":0,"note":"x y"}})
    R({"name":"write","cat":"posix","pid":1,"tid":2,"ts":200,"dur":7,"ph":"X","args":{"hhash":"111","fhash":"999","ret":100000000000}})
    R({"name":"gpu","pid":1,"tid":1,"ts":140,"ph":"C","args":{"util":80,"mem":1.5}})
    R({"name":"step","cat":"app","pid":1,"tid":3,"ts":300,"ph":"B","args":{"epoch":1}})
    R({"name":"step","cat":"app","pid":1,"tid":3,"ts":5000000000,"ph":"E"})
    R({"name":"odd","cat":"app","pid":1,"tid":3,"ts":400,"ph":"b"})
    "{\"name\":\"broken\",\"cat\":\n"
    R({"name":"compute","cat":"ai","pid":1,"tid":1,"ts":250,"dur":4294967296,"ph":"X","args":{"cfg":{"a":[1,2],"b":"c"}}})
    R({"name":"end","cat":"dftracer","type":1,"pid":1,"tid":1,"ts":9000,"dur":1,"ph":1,"args":{"num_events":9,"cfg":{"time_metric":"US"},"app":{"name":"t"}}})
    "]\n";

/* The same kinds without B/E pairs, in µs: a file a later load can take
 * from an image; with a named pid and a thread name. */
static const char *rich_trace =
    R({"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"node-b","value":"112"}})
    R({"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"/data/f2.npz","value":"902"}})
    R({"name":"thread_name","pid":5,"tid":6,"ph":"M","args":{"name":"loader"}})
    R({"name":"pread64","cat":"POSIX","type":3,"pid":5,"tid":6,"ts":160,"ph":3,"args":{"hhash":"112","fhash":"902","dft_cnt":3,"dur_sum":30,"dur_max":12,"ret_sum":300}})
    R({"name":"read","cat":"POSIX","pid":5,"tid":6,"ts":210,"dur":5,"ph":"X","args":{"hhash":"112","fhash":"902","ret":4096,"tag":"a b"}})
    R({"name":"read","cat":"POSIX","pid":"worker-1","tid":2,"ts":210,"dur":9,"ph":"X","args":{"hhash":"777","fhash":"903","ret":12}})
    R({"name":"mem","pid":5,"tid":6,"ts":150,"ph":"C","args":{"hhash":"112","used":10,"free":2.5}})
    R({"name":"odd","cat":"app","pid":5,"tid":6,"ts":400,"ph":"b"})
    "{\"name\":\"cut\",\"cat\":\n"
    R({"name":"compute","cat":"ai","pid":5,"tid":6,"ts":260,"dur":4294967296,"ph":"X","args":{"cfg":{"a":[1,2]}}})
    R({"name":"end","cat":"dftracer","type":1,"pid":5,"tid":6,"ts":9000,"dur":1,"ph":1,"args":{"cfg":{"time_metric":"US"},"app":{"n":1}}});

static const char *ns_trace =
    R({"name":"write","cat":"POSIX","pid":2,"tid":2,"ts":1000000000,"dur":1500,"ph":"X","args":{"ret":10}})
    R({"name":"write","cat":"POSIX","pid":2,"tid":2,"ts":1000002000,"dur":400.25,"ph":"X","args":{"ret":20}})
    R({"name":"end","cat":"dftracer","type":1,"pid":2,"tid":2,"ts":1000030000,"dur":0,"ph":1,"args":{"cfg":{"time_metric":"NS"}}});

static void srcinfo_same(const dfn_srcinfo *a, const dfn_srcinfo *b)
{
    cr_assert_str_eq(a->path, b->path);
    cr_assert_str_eq(a->era, b->era);
    cr_assert_eq(a->gzip, b->gzip);
    /* the rarer figures: kept for a file that has some, both ways */
    cr_assert_eq(!a->more, !b->more, "%s: rarer figures", a->path);
    const dfn_srcmore *ma = dfn_src_more(a), *mb = dfn_src_more(b);
    uint64_t va[] = { a->size_bytes, a->lines, a->events, a->metadata, a->malformed, a->start_us, a->end_us,
                      ma->long_lines, a->skipped, ma->counters, ma->other, ma->agg_records, ma->agg_calls, a->unit,
                      a->unit_declared, ma->unit_unknown, ma->ns_rounding, ma->ns_zeroed, ma->ns_total, ma->nbad,
                      ma->frac_times };
    uint64_t vb[] = { b->size_bytes, b->lines, b->events, b->metadata, b->malformed, b->start_us, b->end_us,
                      mb->long_lines, b->skipped, mb->counters, mb->other, mb->agg_records, mb->agg_calls, b->unit,
                      b->unit_declared, mb->unit_unknown, mb->ns_rounding, mb->ns_zeroed, mb->ns_total, mb->nbad,
                      mb->frac_times };
    for (size_t i = 0; i < sizeof va / sizeof *va; i++) cr_assert_eq(va[i], vb[i], "%s: figure %zu", a->path, i);
    for (size_t i = 0; i < ma->nbad; i++) {
        cr_assert_eq(ma->bad_lines[i], mb->bad_lines[i]);
        cr_assert_str_eq(ma->bad_reason[i], mb->bad_reason[i]);
    }
    /* a file without such records carries no table, before and after */
    cr_assert_eq(!ma->other_ph, !mb->other_ph, "%s: kinds set aside", a->path);
    cr_assert_eq(!ma->other_ph, ma->other == 0, "%s: a table only with records set aside", a->path);
    for (size_t k = 0; ma->other_ph && k < DFN_PH_KINDS; k++) {
        cr_assert_str_eq(ma->other_ph[k].ph, mb->other_ph[k].ph);
        cr_assert_eq(ma->other_ph[k].n, mb->other_ph[k].n);
    }
    cr_assert_eq(!ma->error, !mb->error);
    if (ma->error) cr_assert_str_eq(ma->error, mb->error);
    cr_assert_eq(!ma->cfg, !mb->cfg);
    if (ma->cfg) cr_assert_str_eq(ma->cfg, mb->cfg);
    cr_assert_eq(!ma->app, !mb->app);
    if (ma->app) cr_assert_str_eq(ma->app, mb->app);
}

static void tables_same(const dfn_store *a, const dfn_store *b)
{
    cr_assert_eq(dfn_strtab_count(a->strs), dfn_strtab_count(b->strs));
    for (uint32_t i = 0; i < dfn_strtab_count(a->strs); i++) {
        cr_assert_eq(dfn_strtab_len(a->strs, i), dfn_strtab_len(b->strs, i));
        cr_assert(memcmp(dfn_store_str(a, i), dfn_store_str(b, i), dfn_strtab_len(a->strs, i)) == 0);
    }
    cr_assert_eq(a->nlanes, b->nlanes);
    for (size_t i = 0; i < a->nlanes; i++) {
        const dfn_lane *x = &a->lanes[i], *y = &b->lanes[i];
        cr_assert(x->host == y->host && x->pid == y->pid && x->tid == y->tid && x->name == y->name && x->rank == y->rank &&
                  dfn_store_lane_pname(a, i) == dfn_store_lane_pname(b, i) && dfn_store_lane_tname(a, i) == dfn_store_lane_tname(b, i));
    }
    cr_assert_eq(a->nkinds, b->nkinds);
    for (size_t i = 0; i < a->nkinds; i++) {
        const dfn_kind *x = &a->kinds[i], *y = &b->kinds[i];
        cr_assert(x->cat == y->cat && x->func == y->func && x->cls == y->cls && x->op == y->op && x->io == y->io &&
                  x->type == y->type && x->type_name == y->type_name);
    }
    cr_assert_eq(a->nfiles, b->nfiles);
    cr_assert(memcmp(a->files, b->files, a->nfiles * sizeof *a->files) == 0);
    cr_assert_eq(a->nschemas, b->nschemas);
    for (size_t i = 0; i < a->nschemas; i++) {
        cr_assert_eq(a->schema_len[i], b->schema_len[i]);
        cr_assert_eq(a->schema_nval[i], b->schema_nval[i]);
        for (size_t j = 0; j < a->schema_len[i]; j++)
            cr_assert(a->schema_keys[i][j] == b->schema_keys[i][j] && a->schema_types[i][j] == b->schema_types[i][j]);
    }
    cr_assert_eq(a->nsamples, b->nsamples);
    for (size_t i = 0; i < a->nsamples; i++) {
        const dfn_sample *x = &a->samples[i], *y = &b->samples[i];
        cr_assert(x->ts == y->ts && memcmp(&x->value, &y->value, 8) == 0 && x->series == y->series &&
                  x->host == y->host && x->pid == y->pid);
    }
    cr_assert_eq(a->nseries, b->nseries);
    for (size_t i = 0; i < a->nseries; i++) cr_assert_eq(a->series[i], b->series[i]);
}

/* Every field of two stores, event by event and table by table. */
static void store_same(const dfn_store *a, const dfn_store *b)
{
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(a->t0, b->t0);
    cr_assert_eq(a->t1, b->t1);
    for (size_t i = 0; i < a->n; i++) {
        cr_assert_eq(dfn_store_ts(a, i), dfn_store_ts(b, i), "event %zu", i);
        cr_assert_eq(dfn_store_dur(a, i), dfn_store_dur(b, i));
        cr_assert_eq(dfn_store_bytes(a, i), dfn_store_bytes(b, i));
        cr_assert_eq(dfn_store_calls(a, i), dfn_store_calls(b, i));
        cr_assert_eq(dfn_store_maxdur(a, i), dfn_store_maxdur(b, i));
        cr_assert(dfn_store_lane(a, i) == dfn_store_lane(b, i) && dfn_store_kind(a, i) == dfn_store_kind(b, i) && dfn_store_file(a, i) == dfn_store_file(b, i));
    }
    for (size_t k = 0; k <= a->n >> DFN_TS_BLOCK_SHIFT; k++) cr_assert_eq(a->ts_reach[k], b->ts_reach[k]);
    cr_assert_eq(a->args_len, b->args_len);
    cr_assert(memcmp(a->args, b->args, a->args_len) == 0);
    cr_assert(memcmp(a->args_idx, b->args_idx, ((a->n >> DFN_ARGS_INDEX_SHIFT) + 1) * 8) == 0);
    tables_same(a, b);
    cr_assert_eq(a->nsrc, b->nsrc);
    for (size_t i = 0; i < a->nsrc; i++) srcinfo_same(&a->src[i], &b->src[i]);
    cr_assert(a->hash_conflicts == b->hash_conflicts && a->unresolved_hashes == b->unresolved_hashes);
    if (a->hash_conflicts)
        cr_assert(a->hash_conflict_src == b->hash_conflict_src && a->hash_conflict_line == b->hash_conflict_line);
    cr_assert_eq(dfn_store_status(a), dfn_store_status(b));
}

/* Two texts of string ids of stores a and b are the same. */
static void text_same(const dfn_store *a, uint32_t x, const dfn_store *b, uint32_t y)
{
    cr_assert_eq(dfn_strtab_len(a->strs, x), dfn_strtab_len(b->strs, y));
    cr_assert(memcmp(dfn_store_str(a, x), dfn_store_str(b, y), dfn_strtab_len(a->strs, x)) == 0,
              "'%s' != '%s'", dfn_store_str(a, x), dfn_store_str(b, y));
}

static void id_same(const dfn_store *a, int64_t x, const dfn_store *b, int64_t y)
{
    char bx[256], by[256];
    dfn_id_text(a, x, bx, sizeof bx);
    dfn_id_text(b, y, by, sizeof by);
    cr_assert_str_eq(bx, by);
}

static void args_same(const dfn_store *a, const dfn_store *b, size_t i)
{
    dfn_arg x[DFN_ARGS_MAX], y[DFN_ARGS_MAX];
    size_t nx = dfn_store_args(a, i, x, DFN_ARGS_MAX), ny = dfn_store_args(b, i, y, DFN_ARGS_MAX);
    cr_assert_eq(nx, ny, "event %zu", i);
    for (size_t k = 0; k < nx; k++) {
        text_same(a, x[k].key, b, y[k].key);
        cr_assert_eq(x[k].type, y[k].type);
        cr_assert(x[k].i == y[k].i && x[k].u == y[k].u);
        if (x[k].type == DFN_ARG_STR || x[k].type == DFN_ARG_RAW) text_same(a, x[k].str, b, y[k].str);
    }
}

/* The same store up to the numbering of strings (which follows the order
 * parser threads meet them): events, lanes, kinds and files by id, every
 * name by its text. */
static void store_equiv(const dfn_store *a, const dfn_store *b)
{
    cr_assert_eq(a->n, b->n);
    cr_assert_eq(a->t0, b->t0);
    cr_assert_eq(a->t1, b->t1);
    for (size_t i = 0; i < a->n; i++) {
        cr_assert_eq(dfn_store_ts(a, i), dfn_store_ts(b, i), "event %zu", i);
        cr_assert(dfn_store_dur(a, i) == dfn_store_dur(b, i) && dfn_store_bytes(a, i) == dfn_store_bytes(b, i));
        cr_assert(dfn_store_calls(a, i) == dfn_store_calls(b, i) && dfn_store_maxdur(a, i) == dfn_store_maxdur(b, i));
        cr_assert(dfn_store_lane(a, i) == dfn_store_lane(b, i) && dfn_store_kind(a, i) == dfn_store_kind(b, i) && dfn_store_file(a, i) == dfn_store_file(b, i), "event %zu", i);
        args_same(a, b, i);
    }
    cr_assert(a->nlanes == b->nlanes && a->nkinds == b->nkinds && a->nfiles == b->nfiles);
    for (size_t i = 0; i < a->nlanes; i++) {
        const dfn_lane *x = &a->lanes[i], *y = &b->lanes[i];
        text_same(a, x->host, b, y->host); text_same(a, x->name, b, y->name); text_same(a, x->rank, b, y->rank);
        id_same(a, x->pid, b, y->pid); id_same(a, x->tid, b, y->tid);
    }
    for (size_t i = 0; i < a->nkinds; i++) {
        const dfn_kind *x = &a->kinds[i], *y = &b->kinds[i];
        text_same(a, x->cat, b, y->cat); text_same(a, x->func, b, y->func); text_same(a, x->type_name, b, y->type_name);
        cr_assert(x->cls == y->cls && x->op == y->op && x->io == y->io && x->type == y->type);
    }
    for (size_t i = 0; i < a->nfiles; i++) {
        const dfn_file *x = &a->files[i], *y = &b->files[i];
        text_same(a, x->path, b, y->path); text_same(a, x->pattern, b, y->pattern); text_same(a, x->dir, b, y->dir);
        text_same(a, x->fs, b, y->fs); text_same(a, x->part, b, y->part);
    }
    cr_assert(a->nsamples == b->nsamples && a->nseries == b->nseries);
    for (size_t i = 0; i < a->nseries; i++) text_same(a, a->series[i], b, b->series[i]);
    for (size_t i = 0; i < a->nsamples; i++) {
        const dfn_sample *x = &a->samples[i], *y = &b->samples[i];
        cr_assert(x->ts == y->ts && memcmp(&x->value, &y->value, 8) == 0 && x->series == y->series);
        text_same(a, x->host, b, y->host);
        id_same(a, x->pid, b, y->pid);
    }
    cr_assert_eq(a->nsrc, b->nsrc);
    for (size_t i = 0; i < a->nsrc; i++) srcinfo_same(&a->src[i], &b->src[i]);
    cr_assert(a->hash_conflicts == b->hash_conflicts && a->unresolved_hashes == b->unresolved_hashes);
    if (a->hash_conflicts)
        cr_assert(a->hash_conflict_src == b->hash_conflict_src && a->hash_conflict_line == b->hash_conflict_line);
}

static dfn_store *load(const char *const *paths, size_t n, const char *cache, int threads)
{
    dfn_load_opts o = { .threads = threads, .cache_dir = cache };
    dfn_store *s = dfn_load(paths, n, &o);
    cr_assert_not_null(s);
    dfn_store_saved(s);   /* the tests look at the folder next */
    return s;
}

static size_t count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Parses the files without a cache, then with one (which saves), then
 * again (which maps): all three stores are the same. */
static void check_roundtrip(const char *const *paths, size_t n)
{
    char *cache = tu_tmpdir();
    /* one parser thread: the string ids then follow the files' order */
    dfn_store *fresh = load(paths, n, NULL, 1);
    dfn_store *first = load(paths, n, cache, 1);
    cr_assert_eq(first->cache_from, DFN_CACHE_NONE);
    cr_assert_null(first->cache_note, "%s", first->cache_note);
    cr_assert_null(dfn_store_saved(first), "%s", first->save_note);
    cr_assert_eq(count_entries(cache, "set-"), 1);
    dfn_store *again = load(paths, n, cache, 2);
    cr_assert_eq(again->cache_from, DFN_CACHE_WHOLE, "%s", again->cache_note ? again->cache_note : "no note");
    cr_assert_not_null(again->map);
    store_same(fresh, first);
    store_same(fresh, again);
    dfn_store_free(fresh);
    dfn_store_free(first);
    dfn_store_free(again);
    free(cache);
}

static char *write_trace(const char *dir, const char *name, const char *text)
{
    return tu_write_file(dir, name, text, strlen(text));
}

Test(cache, every_record_kind_round_trips)
{
    char *dir = tu_tmpdir();
    char *p[2] = { write_trace(dir, "mixed.pfw", mixed_trace), write_trace(dir, "ns.pfw", ns_trace) };
    check_roundtrip((const char *const *)p, 2);
    check_roundtrip((const char *const *)p + 1, 1);
    free(p[0]);
    free(p[1]);
    free(dir);
}

/* Calls each of a lane, a function and a file of its own
 * (hashed files in the newest era's way, and named ones), or of ids
 * few enough for the store's 16-bit columns: each column takes the
 * width its ids need, every call keeps its own, and the image gives
 * the same back in either width. */
static char *wide_trace(const char *dir, size_t n, size_t nids)
{
    size_t cap = n * 200 + 64, len = 0;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    for (size_t i = 0; i < n; i++) {
        size_t k = i % nids;
        if (i % 2)
            len += (size_t)snprintf(t + len, cap - len,
                                    "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                                    "\"args\":{\"name\":\"/h/%zu\",\"value\":\"%zu\"}}\n"
                                    "{\"name\":\"f%zu\",\"cat\":\"POSIX\",\"pid\":%zu,\"tid\":%zu,\"ts\":%zu,"
                                    "\"dur\":1,\"ph\":\"X\",\"args\":{\"fhash\":\"%zu\"}}\n",
                                    k, 1000 + k, k, 1 + k, 1 + k, 100 + i, 1000 + k);
        else
            len += (size_t)snprintf(t + len, cap - len,
                                    "{\"name\":\"f%zu\",\"cat\":\"POSIX\",\"pid\":%zu,\"tid\":%zu,\"ts\":%zu,"
                                    "\"dur\":1,\"ph\":\"X\",\"args\":{\"fname\":\"/n/%zu\"}}\n",
                                    k, 1 + k, 1 + k, 100 + i, k);
    }
    char *path = tu_write_file(dir, nids > 1000 ? "wide.pfw" : "narrow.pfw", t, len);
    free(t);
    return path;
}

/* The widths: lanes and kinds count nids, files nids and "none". */
static void ids_check(const dfn_store *s, size_t n, size_t nids)
{
    cr_assert_eq(s->n, n);
    cr_assert_eq(s->nlanes, nids);
    cr_assert_eq(s->nkinds, nids);
    cr_assert_eq(s->nfiles, 1 + nids);   /* k is odd just where i is: one file a k */
    const dfn_ids *col[3] = { &s->lane, &s->kind, &s->file };
    size_t count[3] = { nids, nids, 1 + nids };
    for (int c = 0; c < 3; c++) {
        cr_assert_eq(dfn_ids_width(col[c]), count[c] > 65536 ? 4u : 2u, "column %d of %zu ids", c, count[c]);
        cr_assert((col[c]->v16 != NULL) != (col[c]->v32 != NULL), "column %d", c);
    }
    for (size_t i = 0; i < n; i++) {
        size_t k = i % nids;   /* events are in start order: the lines' */
        char want[32];
        snprintf(want, sizeof want, "f%zu", k);
        cr_assert_str_eq(dfn_store_str(s, s->kinds[dfn_store_kind(s, i)].func), want, "call %zu", i);
        cr_assert_eq(s->lanes[dfn_store_lane(s, i)].tid, (int64_t)(1 + k), "call %zu", i);
        snprintf(want, sizeof want, "/%c/%zu", i % 2 ? 'h' : 'n', k);
        cr_assert_str_eq(dfn_store_str(s, s->files[dfn_store_file(s, i)].path), want, "call %zu", i);
    }
}

/* Few files among many strings and hashes: 70,000 distinct string values
 * and 70,000 file hashes defined, of which the calls name 2 paths and 2
 * hashes. The file column takes 2 bytes: its width counts the files
 * calls name, not every string or hash a file could be named by. */
Test(cache, few_files_among_many_strings_take_two_bytes, .timeout = 120)
{
    char *dir = tu_tmpdir();
    size_t n = 70000, cap = n * 260, len = 0;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\","
                                "\"args\":{\"name\":\"/h/%zu\",\"value\":\"%zu\"}}\n"
                                "{\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%zu,"
                                "\"dur\":1,\"ph\":\"X\",\"args\":{\"%s\":\"%s%zu\",\"tag\":\"t%zu\"}}\n",
                                i, 5000 + i, 100 + i, i % 4 < 2 ? "fname" : "fhash", i % 4 < 2 ? "/n/" : "",
                                i % 4 < 2 ? i % 2 : 5000 + i % 2, i);
    char *p = tu_write_file(dir, "few.pfw", t, len);
    free(t);
    const char *paths[1] = { p };
    char *cache = tu_tmpdir();
    dfn_store *st[3] = { load(paths, 1, NULL, 1), load(paths, 1, cache, 1), load(paths, 1, cache, 2) };
    cr_assert_eq(st[2]->cache_from, DFN_CACHE_WHOLE);
    for (int k = 0; k < 3; k++) {
        const dfn_store *s = st[k];
        cr_assert_eq(s->n, n);
        cr_assert_gt(dfn_strtab_count(s->strs), 140000);
        cr_assert_eq(s->nfiles, 5);
        cr_assert_not_null(s->file.v16, "store %d", k);
        for (size_t i = 0; i < n; i++) {
            char want[32];
            snprintf(want, sizeof want, "/%c/%zu", i % 4 < 2 ? 'n' : 'h', i % 2);
            cr_assert_str_eq(dfn_store_str(s, s->files[dfn_store_file(s, i)].path), want, "store %d call %zu", k, i);
        }
    }
    store_same(st[0], st[2]);
    for (int k = 0; k < 3; k++) dfn_store_free(st[k]);
    free(cache);
    free(p);
    free(dir);
}

Test(cache, id_columns_of_either_width_round_trip, .timeout = 120)
{
    char *dir = tu_tmpdir();
    /* 140,000 calls: a merge in two parts, each remapping its half; 65,536
     * ids: lanes and kinds in 16 bits, files (with "none") past them */
    struct { size_t n, nids; } v[] = { { 140000, 70000 }, { 65536, 65536 }, { 65535, 65535 }, { 4000, 500 } };
    for (size_t x = 0; x < sizeof v / sizeof *v; x++) {
        char *p = wide_trace(dir, v[x].n, v[x].nids);
        const char *paths[1] = { p };
        char *cache = tu_tmpdir();
        dfn_store *fresh = load(paths, 1, NULL, 1);   /* one parser: string ids as the image's */
        ids_check(fresh, v[x].n, v[x].nids);
        dfn_store *two = load(paths, 1, NULL, 2);
        ids_check(two, v[x].n, v[x].nids);
        dfn_store *first = load(paths, 1, cache, 1);
        dfn_store *again = load(paths, 1, cache, 2);
        cr_assert_eq(again->cache_from, DFN_CACHE_WHOLE);
        ids_check(again, v[x].n, v[x].nids);
        store_same(fresh, again);
        dfn_store_free(fresh);
        dfn_store_free(two);
        dfn_store_free(first);
        dfn_store_free(again);
        free(cache);
        free(p);
    }
    free(dir);
}

/* The damaged corpus's trace files (at most max; malloc'd paths): *n. */
static void damaged_corpus(char **paths, size_t max, size_t *n)
{
    const char *src = getenv("SRCDIR");
    char *d = dfn_xasprintf("%s/tests/damaged", src ? src : ".");
    DIR *dir = opendir(d);
    cr_assert_not_null(dir);
    struct dirent *e;
    *n = 0;
    while ((e = readdir(dir)) && *n < max)
        if (strstr(e->d_name, ".pfw")) paths[(*n)++] = dfn_xasprintf("%s/%s", d, e->d_name);
    closedir(dir);
    free(d);
    cr_assert_gt(*n, 10);
}

Test(cache, damaged_corpus_round_trips)
{
    char *paths[64];
    size_t n;
    damaged_corpus(paths, 64, &n);
    check_roundtrip((const char *const *)paths, n);
    for (size_t i = 0; i < n; i++) free(paths[i]);
}

Test(cache, every_era_round_trips)
{
    const char *traces = su_traces_dir();
    if (!traces) { cr_skip_test("no real traces beside the project"); }
    const char *sets[][8] = {
        { "dlio-2023/test-trace.pfw.gz" }, { "v0-quoted/test.pfw", "v0-quoted/test.pfw.gz" },
        { "dlio-unet3d/trace-0-of-8.pfw", "dlio-unet3d/trace-3-of-8.pfw", "dlio-unet3d/trace-7-of-8.pfw" } };
    size_t counts[] = { 1, 2, 3 };
    for (size_t k = 0; k < 3; k++) {
        char *p[8];
        for (size_t i = 0; i < counts[k]; i++) p[i] = dfn_xasprintf("%s/%s", traces, sets[k][i]);
        check_roundtrip((const char *const *)p, counts[k]);
        for (size_t i = 0; i < counts[k]; i++) free(p[i]);
    }
}

/* The entry's path of the one image in dir. */
static char *the_entry(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    char *p = NULL;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "set-", 4) == 0) { cr_assert_null(p); p = dfn_xasprintf("%s/%s", dir, e->d_name); }
    closedir(d);
    cr_assert_not_null(p);
    return p;
}

static uint64_t total_events(const dfn_store *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->nsrc; i++) n += s->src[i].events;
    return n;
}

/* A file that changed after its image was made is read again, and its
 * new image replaces the old entry of the same files. */
Test(cache, changed_files_are_read_again)
{
    char *dir = tu_tmpdir(), *cache = tu_tmpdir();
    char *p = write_trace(dir, "t.pfw", ns_trace);
    const char *paths[1] = { p };
    dfn_store *s = load(paths, 1, cache, 1);
    uint64_t events = total_events(s);
    dfn_store_free(s);
    /* appended: a bigger size */
    FILE *f = fopen(p, "a");
    fputs(R({"name":"read","cat":"POSIX","pid":2,"tid":2,"ts":1000009000,"dur":100,"ph":"X","args":{"ret":1}}), f);
    fclose(f);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    cr_assert_eq(total_events(s), events + 1);
    dfn_store_free(s);
    /* rewritten to the same size and a later time: one event fewer */
    char *text = dfn_xstrdup(ns_trace);
    memcpy(strstr(text, "\"write\""), "\"wr\"   ", 7);
    memcpy(strstr(text, "\"X\""), "\"?\"", 3);
    struct stat st0;
    stat(p, &st0);
    free(write_trace(dir, "t.pfw", text));
    struct timeval tv[2] = { { st0.st_mtim.tv_sec + 5, 0 }, { st0.st_mtim.tv_sec + 5, 0 } };
    utimes(p, tv);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    cr_assert_eq(total_events(s), events - 1);
    dfn_store_free(s);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_WHOLE);
    cr_assert_eq(total_events(s), events - 1);
    dfn_store_free(s);
    /* cut short: the first line only */
    cr_assert_eq(truncate(p, (off_t)(strchr(ns_trace, '\n') - ns_trace + 1)), 0);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    cr_assert_eq(total_events(s), 0);
    dfn_store_free(s);
    /* replaced by another file (a new inode) of the first bytes */
    char *q = write_trace(dir, "u.pfw", ns_trace);
    cr_assert_eq(rename(q, p), 0);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    cr_assert_eq(total_events(s), events);
    dfn_store_free(s);
    free(q);
    free(text);
    free(p);
    free(dir);
    free(cache);
}

/* Builds a small image and returns its bytes. */
static uint8_t *small_image(const char *cache, const char *const *paths, size_t n, size_t *len, char **entry)
{
    dfn_store_free(load(paths, n, cache, 1));
    *entry = the_entry(cache);
    FILE *f = fopen(*entry, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *img = malloc(*len);
    cr_assert_eq(fread(img, 1, *len, f), *len);
    fclose(f);
    return img;
}

static void write_bytes(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    fclose(f);
}

static dfn_image_ident ident_of(const char *const *paths, size_t n, dfn_fileid *ids)
{
    char err[128];
    for (size_t i = 0; i < n; i++) cr_assert(dfn_fileid_of(paths[i], &ids[i], err, sizeof err));
    return (dfn_image_ident){ ids, paths, n, dfn_image_opts(DFN_BLOCK_SIZE, DFN_UNIT_NONE) };
}

/* Every byte flipped in turn, and every length cut short: each such
 * image is refused (and its entry rebuilt by the next load). */
/* Whether the image the writer makes of s, its checksums right, is
 * refused as damaged when mapped. */
static bool image_refused(const dfn_store *s, const dfn_image_ident *id, const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0);
    cr_assert(dfn_image_write(fd, s, id));
    close(fd);
    char err[256];
    bool bad = false;
    dfn_store *m = dfn_image_map(path, id, 1, err, sizeof err, &bad);
    if (m) dfn_store_free(m);
    return !m && bad;
}

/* Images whose id columns are wrong where no checksum tells: an id one
 * past its table (lanes, kinds, files) in a column of either width, or a
 * column in both its sections. The reader's own checks refuse each. */
Test(cache, images_of_wrong_ids_are_refused, .timeout = 120)
{
    char *dir = tu_tmpdir();
    size_t v[2][2] = { { 4000, 500 }, { 70000, 70000 } };
    for (int x = 0; x < 2; x++) {
        char *p = wide_trace(dir, v[x][0], v[x][1]);
        const char *paths[1] = { p };
        dfn_fileid fid[1];
        dfn_image_ident id = ident_of(paths, 1, fid);
        char img[512];
        snprintf(img, sizeof img, "%s/wrong.img", dir);
        dfn_store *s = load(paths, 1, NULL, 1);
        cr_assert_eq(dfn_ids_width(&s->lane), x ? 4u : 2u);
        cr_assert_not(image_refused(s, &id, img), "the image as written");
        dfn_ids *col[3] = { &s->lane, &s->kind, &s->file };
        size_t count[3] = { s->nlanes, s->nkinds, s->nfiles };
        for (int c = 0; c < 3; c++) {
            uint32_t was = dfn_ids_get(col[c], 5);
            dfn_ids_set(col[c], 5, (uint32_t)count[c]);
            cr_assert(image_refused(s, &id, img), "column %d, width %zu: an id past its table", c, dfn_ids_width(col[c]));
            dfn_ids_set(col[c], 5, was);
            /* the same ids in the other width's section too */
            dfn_ids both = *col[c];
            if (both.v16) {
                both.v32 = malloc(s->n * sizeof *both.v32);
                for (size_t i = 0; i < s->n; i++) both.v32[i] = both.v16[i];
            } else {
                both.v16 = malloc(s->n * sizeof *both.v16);
                for (size_t i = 0; i < s->n; i++) both.v16[i] = (uint16_t)both.v32[i];
            }
            dfn_ids one = *col[c];
            *col[c] = both;
            cr_assert(image_refused(s, &id, img), "column %d in both sections", c);
            *col[c] = one;
            free(one.v16 ? (void *)both.v32 : (void *)both.v16);
        }
        cr_assert_not(image_refused(s, &id, img), "the image as written, again");
        dfn_store_free(s);
        free(p);
    }
    free(dir);
}

Test(cache, damaged_images_are_refused)
{
    char *dir = tu_tmpdir(), *cache = tu_tmpdir(), *entry;
    char *p = write_trace(dir, "mixed.pfw", mixed_trace);
    const char *paths[1] = { p };
    size_t len;
    uint8_t *img = small_image(cache, paths, 1, &len, &entry);
    dfn_fileid ids[1];
    dfn_image_ident id = ident_of(paths, 1, ids);
    char err[256];
    bool bad;
    dfn_store *ok = dfn_image_map(entry, &id, 1, err, sizeof err, &bad);
    cr_assert_not_null(ok, "%s", err);
    dfn_store_free(ok);
    size_t refused = 0;
    for (size_t i = 0; i < len; i++) {
        for (int bit = 0; bit < 8; bit += 7) {
            img[i] ^= (uint8_t)(1u << bit);
            write_bytes(entry, img, len);
            dfn_store *s = dfn_image_map(entry, &id, 2, err, sizeof err, &bad);
            if (s) dfn_store_free(s);
            else refused += bad;   /* refused as damaged, so the loader removes it */
            img[i] ^= (uint8_t)(1u << bit);
        }
    }
    cr_assert_eq(refused, len * 2, "%zu of %zu flips refused", refused, len * 2);
    for (size_t cut = 0; cut < len; cut += 1 + cut / 16) {
        write_bytes(entry, img, cut);
        cr_assert_null(dfn_image_map(entry, &id, 1, err, sizeof err, &bad), "cut to %zu bytes", cut);
        cr_assert(bad, "cut to %zu bytes: %s", cut, err);
    }
    /* the loader says so, removes the entry and builds it again */
    write_bytes(entry, img, len / 2);
    dfn_store *s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    cr_assert_not_null(s->cache_note);
    cr_assert(strstr(s->cache_note, "cut short"), "%s", s->cache_note);
    dfn_store_free(s);
    s = load(paths, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_WHOLE);
    dfn_store_free(s);
    free(img);
    free(entry);
    free(p);
    free(dir);
    free(cache);
}

typedef struct {
    const char *const *paths;
    size_t n;
    const char *cache;
} builder_arg;

static void *build_many(void *arg)
{
    builder_arg *b = arg;
    for (int i = 0; i < 8; i++) {
        dfn_store *s = load(b->paths, b->n, b->cache, 1);
        cr_assert(!s->cache_note && !s->save_note, "%s", s->cache_note ? s->cache_note : s->save_note);
        dfn_store_free(s);
    }
    return NULL;
}

/* Builders of the same entry at once (threads here, processes in
 * tests/shell/cache.sh): each writes its own temporary file and renames
 * it into place, so the entry is always whole and no temporary is left. */
Test(cache, concurrent_builders_leave_one_good_entry)
{
    char *dir = tu_tmpdir(), *cache = tu_tmpdir();
    char *p = write_trace(dir, "mixed.pfw", mixed_trace);
    const char *paths[1] = { p };
    dfn_fileid ids[1];
    dfn_image_ident id = ident_of(paths, 1, ids);
    dfn_store *fresh = load(paths, 1, NULL, 1);
    char note[256];
    pthread_t th[3];
    builder_arg arg = { paths, 1, cache };
    for (int t = 0; t < 3; t++) pthread_create(&th[t], NULL, build_many, &arg);
    /* and saves of the same entry by this thread meanwhile */
    for (int i = 0; i < 20; i++) cr_assert(dfn_cache_save(cache, fresh, &id, UINT64_MAX, note, sizeof note), "%s", note);
    for (int t = 0; t < 3; t++) pthread_join(th[t], NULL);
    cr_assert_eq(count_entries(cache, ".tmp-"), 0);
    char *entry = the_entry(cache);
    char err[256];
    bool bad;
    dfn_store *s = dfn_image_map(entry, &id, 1, err, sizeof err, &bad);
    cr_assert_not_null(s, "%s", err);
    store_same(fresh, s);
    dfn_store_free(s);
    dfn_store_free(fresh);
    free(entry);
    free(p);
    free(dir);
    free(cache);
}

/* A cache that cannot be written (a file where its folder should be, a
 * file size limit standing in for a full disk) costs only speed: the
 * store is whole, the note says why once, nothing is left behind. */
Test(cache, unwritable_cache_only_costs_speed)
{
    char *dir = tu_tmpdir();
    char *p = write_trace(dir, "mixed.pfw", mixed_trace);
    const char *paths[1] = { p };
    dfn_store *fresh = load(paths, 1, NULL, 1);
    char *notdir = write_trace(dir, "plain-file", "x");
    char *under = dfn_xasprintf("%s/cache", notdir);
    dfn_store *s = load(paths, 1, under, 1);
    cr_assert_not_null(s->save_note);
    cr_assert(strstr(s->save_note, "cannot write"), "%s", s->save_note);
    store_same(fresh, s);
    dfn_store_free(s);

    char *full = tu_tmpdir();
    struct rlimit old, small = { 1024, 0 };
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    s = load(paths, 1, full, 1);
    setrlimit(RLIMIT_FSIZE, &old);
    cr_assert_not_null(s->save_note);
    cr_assert(strstr(s->save_note, "cannot write"), "%s", s->save_note);
    store_same(fresh, s);
    cr_assert_eq(count_entries(full, ".tmp-") + count_entries(full, "set-"), 0);
    dfn_store_free(s);
    dfn_store_free(fresh);
    free(under);
    free(notdir);
    free(full);
    free(p);
    free(dir);
}

/* Past the limit, the least recently used entries go: opening a set
 * again counts as a use. */
Test(cache, eviction_keeps_the_recently_used)
{
    char *dir = tu_tmpdir(), *cache = tu_tmpdir();
    char *p[3];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%d.pfw", i);
        p[i] = write_trace(dir, name, mixed_trace);
    }
    const char *a[1] = { p[0] }, *b[1] = { p[1] }, *c[1] = { p[2] };
    dfn_store_free(load(a, 1, cache, 1));
    char *entry = the_entry(cache);
    struct stat st;
    stat(entry, &st);
    /* room for two entries, not three */
    char limit[32];
    snprintf(limit, sizeof limit, "%lld", (long long)st.st_size * 5 / 2);
    setenv("DFNAV_CACHE_MAX", limit, 1);
    cr_assert_eq(dfn_cache_limit(cache), (uint64_t)st.st_size * 5 / 2);
    sleep(1);   /* modification times a second apart order the uses */
    dfn_store_free(load(b, 1, cache, 1));
    sleep(1);
    dfn_store *s = load(a, 1, cache, 1);   /* a used again: b is now the oldest */
    cr_assert_eq(s->cache_from, DFN_CACHE_WHOLE);
    dfn_store_free(s);
    sleep(1);
    dfn_store_free(load(c, 1, cache, 1));
    cr_assert_eq(count_entries(cache, "set-"), 2);
    s = load(a, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_WHOLE);
    dfn_store_free(s);
    s = load(b, 1, cache, 1);
    cr_assert_eq(s->cache_from, DFN_CACHE_NONE);
    dfn_store_free(s);
    /* a limit below one entry saves nothing, and says so */
    setenv("DFNAV_CACHE_MAX", "100", 1);
    char *other = tu_tmpdir();
    s = load(a, 1, other, 1);
    cr_assert_not_null(s->save_note);
    cr_assert(strstr(s->save_note, "limit"), "%s", s->save_note);
    dfn_store_free(s);
    unsetenv("DFNAV_CACHE_MAX");
    free(other);
    free(entry);
    for (int i = 0; i < 3; i++) free(p[i]);
    free(dir);
    free(cache);
}

Test(cache, sizes_and_places)
{
    uint64_t v;
    cr_assert(dfn_cache_parse_size("20G", &v) && v == (uint64_t)20 << 30);
    cr_assert(dfn_cache_parse_size("512MiB", &v) && v == (uint64_t)512 << 20);
    cr_assert(dfn_cache_parse_size("1000", &v) && v == 1000);
    cr_assert(!dfn_cache_parse_size("lots", &v));
    cr_assert(!dfn_cache_parse_size("5X", &v));
    unsetenv("DFNAV_CACHE");
    setenv("XDG_CACHE_HOME", "/x/y", 1);
    char *d = dfn_cache_dir(NULL);
    cr_assert_str_eq(d, "/x/y/dfnav");
    free(d);
    setenv("XDG_CACHE_HOME", "relative", 1);
    setenv("HOME", "/home/u", 1);
    d = dfn_cache_dir(NULL);
    cr_assert_str_eq(d, "/home/u/.cache/dfnav");
    free(d);
    setenv("DFNAV_CACHE", "/c", 1);
    d = dfn_cache_dir(NULL);
    cr_assert_str_eq(d, "/c");
    free(d);
    d = dfn_cache_dir("/given");
    cr_assert_str_eq(d, "/given");
    free(d);
}

/* Opens sets that share files with one the cache has: the files it holds
 * come from its image, the rest are parsed, and the store is the parse's
 * for 1 and 3 threads; then the set's own image maps. */
static void check_reuse(const char *const *first, size_t nfirst, const char *const *paths, size_t n, size_t want_reused)
{
    char *cache = tu_tmpdir();
    dfn_store_free(load(first, nfirst, cache, 2));
    for (int threads = 1; threads <= 3; threads += 2) {
        dfn_store *fresh = load(paths, n, NULL, threads);
        dfn_loader *l = dfn_loader_start(paths, n, &(dfn_load_opts){ .threads = threads, .cache_dir = cache });
        dfn_progress pr;
        do {
            usleep(1000);
            dfn_loader_progress(l, &pr);
        } while (!pr.done);
        cr_assert_eq(pr.reused, want_reused, "%zu files came back, not %zu", (size_t)pr.reused, want_reused);
        dfn_store *part = dfn_loader_finish(l);
        cr_assert_not_null(part);
        dfn_store_saved(part);   /* the image the next load maps */
        cr_assert_eq(part->cache_from, DFN_CACHE_NONE);
        store_equiv(fresh, part);
        dfn_store *again = load(paths, n, cache, threads);
        cr_assert_eq(again->cache_from, DFN_CACHE_WHOLE);
        store_equiv(fresh, again);
        dfn_store_free(fresh);
        dfn_store_free(part);
        dfn_store_free(again);
        /* the next round starts from the first set's image alone */
        size_t nents;
        dfn_cache_entry *e;
        nents = dfn_cache_list(cache, &e);
        for (size_t i = 0; i < nents; i++)
            if (e[i].info.nfiles == n) unlink(e[i].path);
        dfn_cache_entries_free(e, nents);
    }
    free(cache);
}

Test(cache, files_come_back_from_other_sets_images)
{
    char *dir = tu_tmpdir();
    /* mixed (B/E pairs) and ns (not µs) are parsed again; rich and
     * plain come back */
    char *p[4] = { write_trace(dir, "rich.pfw", rich_trace), write_trace(dir, "mixed.pfw", mixed_trace),
                   write_trace(dir, "ns.pfw", ns_trace),
                   write_trace(dir, "plain.pfw", R({"name":"read","cat":"POSIX","pid":9,"tid":9,"ts":170,"dur":3,"ph":"X","args":{"ret":1}})) };
    const char *const *pp = (const char *const *)p;
    check_reuse(pp, 1, pp, 4, 1);             /* a set grown by three files */
    check_reuse(pp, 4, pp + 1, 3, 1);         /* a subset */
    const char *swapped[3] = { p[3], p[1], p[0] };
    check_reuse(pp, 4, swapped, 3, 2);        /* the files in another order */
    check_reuse(pp + 1, 2, pp, 4, 0);         /* nothing to take */
    /* "posix" beside "POSIX": the store keeps one spelling, so neither
     * file can come back as its parse named it */
    char *c = write_trace(dir, "case.pfw", R({"name":"read","cat":"posix","pid":8,"tid":8,"ts":180,"dur":2,"ph":"X","args":{"ret":2}}));
    const char *both[3] = { p[0], c, p[3] };
    check_reuse(both, 2, both, 3, 0);
    free(c);
    for (int i = 0; i < 4; i++) free(p[i]);
    free(dir);
}

Test(cache, real_files_come_back_from_other_sets_images)
{
    const char *traces = su_traces_dir();
    if (!traces) { cr_skip_test("no real traces beside the project"); }
    char *p[8];
    for (int i = 0; i < 8; i++) p[i] = dfn_xasprintf("%s/dlio-unet3d/trace-%d-of-8.pfw", traces, i);
    const char *const *pp = (const char *const *)p;
    check_reuse(pp, 3, pp, 8, 3);
    check_reuse(pp, 8, pp + 2, 4, 4);
    for (int i = 0; i < 8; i++) free(p[i]);
}

/* A share's account of its files (what an MPI rank sends rank 0 for info
 * and the damage reports): the damaged corpus and the record kinds split
 * into shares, each share's sources through their bytes, put back in the
 * set's order, give every figure of the whole set's own load; bytes cut
 * short or naming a file the set has not are counted, and the files they
 * would have given say that no account came, never vanish. */
Test(cache, a_shares_sources_come_back_in_the_sets_order)
{
    char *dir = tu_tmpdir();
    char *paths[66];
    size_t n;
    damaged_corpus(paths, 64, &n);
    paths[n++] = write_trace(dir, "mixed.pfw", mixed_trace);
    paths[n++] = write_trace(dir, "ns.pfw", ns_trace);
    dfn_store *whole = load((const char *const *)paths, n, NULL, 1);
    /* three shares, dealt as files go round the ranks: each its own load */
    enum { SHARES = 3 };
    uint8_t *part[SHARES];
    size_t len[SHARES];
    for (size_t k = 0; k < SHARES; k++) {
        const char *mine[66];
        size_t m = 0;
        for (size_t i = k; i < n; i += SHARES) mine[m++] = paths[i];
        dfn_store *s = load(mine, m, NULL, 1);
        part[k] = dfn_image_sources_encode(s, &len[k]);
        dfn_store_free(s);
    }
    size_t lost;
    dfn_store *back = dfn_image_sources_store((const char *const *)paths, n, (const uint8_t *const *)part, len, SHARES,
                                              &lost);
    cr_assert_eq(lost, 0);
    cr_assert_eq(back->nsrc, whole->nsrc);
    for (size_t i = 0; i < n; i++) srcinfo_same(&whole->src[i], &back->src[i]);
    dfn_store_free(back);
    /* the second share cut short, the third naming a file of another set */
    size_t cut = len[1] / 2;
    memcpy(part[2], "\x05\0\0\0/elsewhere", 13 < len[2] ? 13 : len[2]);
    const size_t lens2[SHARES] = { len[0], cut, len[2] };
    back = dfn_image_sources_store((const char *const *)paths, n, (const uint8_t *const *)part, lens2, SHARES, &lost);
    cr_assert_eq(lost, 2);
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        const dfn_srcmore *m = dfn_src_more(&back->src[i]);
        cr_assert_str_eq(back->src[i].path, paths[i]);
        if (i % SHARES == 0) srcinfo_same(&whole->src[i], &back->src[i]);
        if (i % SHARES == 2) cr_assert(m->error && strstr(m->error, "no account"), "%s", paths[i]);
        missing += m->error && strstr(m->error, "no account") != NULL;
    }
    /* the cut share gave the files before the cut, not the rest */
    cr_assert_gt(missing, (n + 2) / SHARES);
    cr_assert_lt(missing, (n + 2) / SHARES + (n + 1) / SHARES);
    dfn_store_free(back);
    /* two parts naming one file the set has not: each refused, within
     * bounds (the second finds the name the first left behind) */
    const uint8_t *stray[2] = { part[2], part[2] };
    const size_t slen[2] = { len[2], len[2] };
    back = dfn_image_sources_store((const char *const *)paths, 1, stray, slen, 2, &lost);
    cr_assert_eq(lost, 2);
    cr_assert(strstr(dfn_src_more(&back->src[0])->error, "no account"));
    dfn_store_free(back);
    for (size_t k = 0; k < SHARES; k++) free(part[k]);
    dfn_store_free(whole);
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(dir);
}
