/* Fuzz target for what travels between the explorer of a set held by MPI
 * ranks (dfnav serve --spread) and the ranks, besides its queries
 * (fuzz_qspec): the input's first byte says which, the rest is its
 * bytes. 0: a track's counter query, as a rank reads it (one that
 * decodes encodes to bytes that decode to the same bytes, and runs on a
 * small fixed store); 1: a call's name, as a rank reads it (it is looked
 * for in that store, and a call found has its place made); 2: a set's
 * outline, as the explorer reads it. Nothing may read past the input. */
#include "fuzzstore.h"
#include "dfnav/analysis.h"
#include "dfnav/callplace.h"
#include "dfnav/counters.h"
#include "dfnav/qspec.h"
#include "dfnav/remote.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A call within a call, a counter sample of a process and one of a
 * host's sampler. */
static const char fuzz_trace[] =
    "{\"name\":\"train\",\"cat\":\"ai_framework\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":900000,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\"}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2100,\"dur\":300,\"ph\":\"X\","
    "\"args\":{\"hostname\":\"h1\",\"fname\":\"/d/a\",\"ret\":4096,\"offset\":8192}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":1,\"tid\":1,\"ts\":3000,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h1\",\"user_pct\":12.5}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":9,\"tid\":9,\"ts\":4000,\"ph\":2,\"type\":7,"
    "\"args\":{\"hostname\":\"h1\",\"iowait_pct\":2}}\n";

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
    fuzz_store_load(&w.fs, fuzz_trace, sizeof fuzz_trace - 1, 2, "posix");
    char err[512];
    if (!dfn_analysis_build(&w.an, w.fs.store, w.fs.ls, NULL, false, DFN_NEED_TREE | DFN_NEED_ACCESS, err, sizeof err))
        abort();
    return &w;
}

static void fuzz_cquery(fuzz_world *w, const uint8_t *data, size_t size)
{
    char err[1024] = "";
    dfn_cqspec cs;
    if (!dfn_cqspec_decode(data, size, &cs, err, sizeof err)) {
        if (err[0] == '\0') abort();   /* a refusal always says why */
        return;
    }
    size_t len, len2;
    uint8_t *bytes = dfn_cqspec_encode(&cs.q, &len, err, sizeof err);
    dfn_cqspec again;
    if (!bytes || !dfn_cqspec_decode(bytes, len, &again, err, sizeof err)) abort();
    uint8_t *bytes2 = dfn_cqspec_encode(&again.q, &len2, err, sizeof err);
    if (!bytes2 || len2 != len || memcmp(bytes, bytes2, len) != 0) abort();
    free(bytes);
    free(bytes2);
    dfn_cqspec_free(&again);
    dfn_cresult r;
    if (dfn_counters_query(w->fs.store, &cs.q, &r, err, sizeof err)) dfn_cresult_free(&r);
    dfn_cqspec_free(&cs);
}

static void fuzz_place(fuzz_world *w, const uint8_t *data, size_t size)
{
    char err[512] = "";
    uint32_t found;
    if (!dfn_call_place_find(w->fs.store, data, size, &found, err, sizeof err)) {
        if (err[0] == '\0') abort();
        return;
    }
    if (found == UINT32_MAX) return;
    if (found >= w->fs.store->n) abort();
    size_t n;
    char **lines = dfn_call_place(w->fs.store, w->an.tree, w->an.access, found, &n);
    dfn_call_place_free(lines, n);
}

static void fuzz_outline(const uint8_t *data, size_t size)
{
    char err[512] = "";
    dfn_outline ol;
    bool ok = dfn_outline_decode(data, size, &ol, err, sizeof err);
    if (!ok && err[0] == '\0') abort();
    for (size_t k = 0; ok && k < ol.n; k++) {
        const dfn_store *s = ol.run[k].store;
        if (!s || s->nseries != ol.run[k].nseries) abort();
        for (size_t i = 0; i < s->nsrc; i++) (void)strlen(s->src[i].path);
    }
    dfn_outline_free(&ol);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0;
    fuzz_world *w = fuzz_world_get();
    switch (data[0] % 3) {
    case 0: fuzz_cquery(w, data + 1, size - 1); break;
    case 1: fuzz_place(w, data + 1, size - 1); break;
    default: fuzz_outline(data + 1, size - 1); break;
    }
    return 0;
}
