/* Fuzz target for the queries rank 0 sends the ranks of a set held across
 * them (qspec.h): the input is the bytes of one, as a rank reads them. A
 * query that decodes must encode to bytes that decode to the same bytes
 * again; it then runs on a small fixed store with that store's own
 * indexes where the bytes ask for them, whole and as a share's partial,
 * which finishes into rows. Nothing may read past the input, nor a query
 * past its store, whatever its numbers. */
#include "fuzzstore.h"
#include "dfnav/analysis.h"
#include "dfnav/partial.h"
#include "dfnav/qspec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two processes: compute around reads, a write, a counter sample. */
static const char fuzz_trace[] =
    "{\"name\":\"train\",\"cat\":\"ai_framework\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":900000,\"ph\":\"X\",\"args\":{\"epoch\":1}}\n"
    "{\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2000,\"dur\":10,\"ph\":\"X\",\"args\":{\"fname\":\"/d/a\",\"ret\":3}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2100,\"dur\":300,\"ph\":\"X\",\"args\":{\"fname\":\"/d/a\",\"ret\":4096,\"offset\":8192}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":2200,\"dur\":90,\"ph\":\"X\",\"args\":{\"fname\":\"/d/b\",\"ret\":512}}\n"
    "{\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":2,\"tid\":2,\"ts\":60000,\"dur\":2500000,\"ph\":\"X\",\"args\":{\"fname\":\"/c/k.pt\",\"ret\":65536}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":2,\"tid\":2,\"ts\":70000,\"ph\":2,\"type\":7,\"args\":{\"user_pct\":12.5}}\n";

/* The store, its layers and its analysis, built once. */
typedef struct {
    fuzz_store fs;
    dfn_analysis an;
} fuzz_world;

static fuzz_world *fuzz_world_get(void)
{
    static fuzz_world w;
    static int ready;
    if (ready) return &w;
    ready = 1;
    fuzz_store_load(&w.fs, fuzz_trace, sizeof fuzz_trace - 1, 5, "posix");
    char err[512];
    if (!dfn_analysis_build(&w.an, w.fs.store, w.fs.ls, "cat=ai_framework", false,
                            DFN_NEED_OVERLAP | DFN_NEED_TREE | DFN_NEED_ACCESS | DFN_NEED_TILES, err, sizeof err))
        abort();
    return &w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_world *w = fuzz_world_get();
    char err[1024] = "";
    dfn_qspec sp;
    if (!dfn_qspec_decode(data, size, &sp, err, sizeof err)) {
        if (err[0] == '\0') abort();   /* a refusal always says why */
        return 0;
    }
    /* it travels again (its filter read from text reads back as itself),
     * and its own bytes decode, to the same bytes */
    size_t len, len2;
    uint8_t *bytes = dfn_qspec_encode(&sp.q, &len, err, sizeof err);
    dfn_qspec again;
    if (!bytes || !dfn_qspec_decode(bytes, len, &again, err, sizeof err)) abort();
    uint8_t *bytes2 = dfn_qspec_encode(&again.q, &len2, err, sizeof err);
    if (!bytes2 || len2 != len || memcmp(bytes, bytes2, len) != 0) abort();
    free(bytes);
    free(bytes2);
    dfn_qspec_free(&again);
    /* the receiver's indexes where the bytes ask for them */
    if (sp.layers) sp.q.layers = w->fs.ls;
    if (sp.overlap) sp.q.overlap = w->an.overlap;
    if (sp.tree) sp.q.tree = w->an.tree;
    if (sp.access) sp.q.access = w->an.access;
    sp.q.tiles = w->an.tiles;
    sp.q.threads = 1;
    dfn_result *r = dfn_query_run(w->fs.store, &sp.q, err, sizeof err);
    dfn_result_free(r);
    dfn_partial *p = dfn_query_partial(w->fs.store, &sp.q, err, sizeof err);
    if (p) dfn_result_free(dfn_partial_finish(p, &sp.q, &w->fs.layers, err, sizeof err));
    dfn_qspec_free(&sp);
    return 0;
}
