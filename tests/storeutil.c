/* Engine helpers for the Criterion suites (see storeutil.h). */
#include "storeutil.h"
#include "testutil.h"
#include "dfnav/match.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

dfn_store *su_load_paths(const char *const *paths, size_t n, int threads, size_t block)
{
    dfn_load_opts o = { .threads = threads, .block_size = block };
    dfn_store *s = dfn_load(paths, n, &o);
    cr_assert_not_null(s);
    return s;
}

dfn_store *su_load_text(const char *name, const char *text, int threads)
{
    char *dir = tu_tmpdir();
    char *path = tu_write_file(dir, name, text, strlen(text));
    const char *p[1] = { path };
    dfn_store *s = su_load_paths(p, 1, threads, 0);
    free(path);
    free(dir);
    return s;
}

/* Results point at their layers: those live until the test process ends. */
static dfn_layers **kept_layers;
static dfn_layerset **kept_sets;
static size_t nkept;

static void su_free_kept(void)
{
    for (size_t i = 0; i < nkept; i++) {
        dfn_layerset_free(kept_sets[i]);
        dfn_layers_free(kept_layers[i]);
        free(kept_layers[i]);
    }
    free(kept_layers);
    free(kept_sets);
}

dfn_layerset *su_layerset(const dfn_store *s, const char *preset)
{
    char err[2048];
    dfn_layers *l = calloc(1, sizeof *l);
    cr_assert(dfn_layers_load(preset, l, err, sizeof err), "%s", err);
    dfn_layerset *ls = dfn_layerset_compile(s, l, 0, err, sizeof err);
    cr_assert_not_null(ls, "%s", err);
    if (!nkept) atexit(su_free_kept);
    kept_layers = realloc(kept_layers, (nkept + 1) * sizeof *kept_layers);
    kept_sets = realloc(kept_sets, (nkept + 1) * sizeof *kept_sets);
    kept_layers[nkept] = l;
    kept_sets[nkept++] = ls;
    return ls;
}

dfn_result *su_run(const dfn_store *s, dfn_query *q, const char *by)
{
    char err[2048];
    if (by) cr_assert(dfn_dims_parse(by, q->dims, &q->ndims, err, sizeof err), "%s", err);
    /* arg.NAME inherits through the call tree: built for the query when
     * the test gave none */
    dfn_calltree *own_tree = !q->tree && dfn_query_inherits(q) ? dfn_calltree_build(s) : NULL;
    if (own_tree) q->tree = own_tree;
    dfn_result *r = dfn_query_run(s, q, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    if (own_tree) {
        q->tree = NULL;
        r->tree = NULL;   /* the result outlives the tree */
        dfn_calltree_free(own_tree);
    }
    dfn_dims_free(q->dims, q->ndims);
    q->ndims = 0;
    return r;
}

dfn_result *su_query(const dfn_store *s, const char *layers, const char *by, const char *where)
{
    char err[2048];
    dfn_query q = { .layers = su_layerset(s, layers ? layers : "dlio-legacy"), .sort = DFN_M_TIME_S, .desc = true };
    dfn_filter f;
    cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    q.filter = &f;
    dfn_result *r = su_run(s, &q, by);
    dfn_filter_free(&f);
    return r;
}

long su_row(const dfn_store *s, const dfn_result *r, const char *key)
{
    char buf[4096], part[2048];
    for (size_t row = 0; row < r->nrows; row++) {
        buf[0] = 0;
        for (size_t d = 0; d < r->ndims; d++) {
            dfn_result_key_text(s, r, row, d, part, sizeof part);
            if (d) strcat(buf, "|");
            strncat(buf, part, sizeof buf - strlen(buf) - 1);
        }
        if (strcmp(buf, key) == 0) return (long)row;
    }
    return -1;
}

size_t su_row_req(const dfn_store *s, const dfn_result *r, const char *key)
{
    long row = su_row(s, r, key);
    cr_assert(row >= 0, "no row '%s'", key);
    return (size_t)row;
}

double su_metric(const dfn_store *s, const dfn_result *r, const char *key, dfn_metric m)
{
    return dfn_result_metric(r, su_row_req(s, r, key), m);
}

const char *su_traces_dir(void)
{
    static char path[4096];
    const char *src = getenv("SRCDIR");
    snprintf(path, sizeof path, "%s/../shared/traces", src ? src : "..");
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return path;
    return NULL;
}

dfn_compare *su_compare(const dfn_store *const *stores, size_t nruns, const char *const *names, dfn_query q,
                        const char *by, const char *where, int col)
{
    cr_assert_leq(nruns, DFN_COMPARE_MAX_RUNS);
    dfn_query qs[DFN_COMPARE_MAX_RUNS];
    char err[256];
    size_t nd = 0;
    dfn_filter f;
    memset(&f, 0, sizeof f);
    if (where) cr_assert(dfn_filter_parse(where, &f, err, sizeof err), "%s", err);
    if (by) cr_assert(dfn_dims_parse(by, q.dims, &nd, err, sizeof err), "%s", err);
    q.ndims = nd;
    q.filter = where ? &f : NULL;
    for (size_t k = 0; k < nruns; k++) {
        qs[k] = q;
        qs[k].layers = su_layerset(stores[k], "posix");
    }
    dfn_compare *c = dfn_compare_run(stores, qs, nruns, col, names, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    dfn_dims_free(q.dims, nd);
    dfn_filter_free(&f);
    return c;
}

char *su_compare_text(const dfn_compare *c, dfn_format fmt)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(dfn_compare_write(f, c, fmt), 0);
    fclose(f);
    return buf;
}
