/* Fuzz target for the queries rank 0 sends the ranks of a set held across
 * them (qspec.h): the input is the bytes of one, as a rank reads them. A
 * query that decodes must encode to bytes that decode to the same bytes
 * again; it then runs on a small fixed store with that store's own
 * indexes where the bytes ask for them, whole and as a share's partial,
 * which finishes into rows. Nothing may read past the input, nor a query
 * past its store, whatever its numbers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "dfnav/analysis.h"
#include "dfnav/layers.h"
#include "dfnav/loader.h"
#include "dfnav/partial.h"
#include "dfnav/qspec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two processes: compute around reads, a write, a counter sample. */
static const char fuzz_trace[] =
    "{\"name\":\"train\",\"cat\":\"ai_framework\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":900000,\"ph\":\"X\",\"args\":{\"epoch\":1}}\n"
    "{\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2000,\"dur\":10,\"ph\":\"X\",\"args\":{\"fname\":\"/d/a\",\"ret\":3}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":2100,\"dur\":300,\"ph\":\"X\",\"args\":{\"fname\":\"/d/a\",\"ret\":4096,\"offset\":8192}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":2200,\"dur\":90,\"ph\":\"X\",\"args\":{\"fname\":\"/d/b\",\"ret\":512}}\n"
    "{\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":2,\"tid\":2,\"ts\":60000,\"dur\":2500000,\"ph\":\"X\",\"args\":{\"fname\":\"/c/k.pt\",\"ret\":65536}}\n"
    "{\"name\":\"cpu\",\"cat\":\"sys\",\"pid\":2,\"tid\":2,\"ts\":70000,\"ph\":2,\"type\":7,\"args\":{\"user_pct\":12.5}}\n";

/* libFuzzer calls the target many times in one process; the store, its
 * layers and its analysis are built once and only read afterwards. */
typedef struct {
    dfn_store *store;
    dfn_layers layers;
    dfn_layerset *ls;
    dfn_analysis an;
} fuzz_world;

static fuzz_world *fuzz_world_get(void)
{
    static fuzz_world w;
    static int ready;
    if (ready) return &w;
    ready = 1;
    int fd = memfd_create("fuzz-qspec", MFD_CLOEXEC);
    if (fd < 0 || write(fd, fuzz_trace, sizeof fuzz_trace - 1) != (ssize_t)(sizeof fuzz_trace - 1)) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *files[] = { path };
    dfn_load_opts lo = { .threads = 1 };
    w.store = dfn_load(files, 1, &lo);
    close(fd);
    char err[512];
    if (w.store == NULL || w.store->n != 5 || !dfn_layers_load("posix", &w.layers, err, sizeof err)) abort();
    w.ls = dfn_layerset_compile(w.store, &w.layers, 0, err, sizeof err);
    if (w.ls == NULL ||
        !dfn_analysis_build(&w.an, w.store, w.ls, "cat=ai_framework", false,
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
    if (sp.layers) sp.q.layers = w->ls;
    if (sp.overlap) sp.q.overlap = w->an.overlap;
    if (sp.tree) sp.q.tree = w->an.tree;
    if (sp.access) sp.q.access = w->an.access;
    sp.q.tiles = w->an.tiles;
    sp.q.threads = 1;
    dfn_result *r = dfn_query_run(w->store, &sp.q, err, sizeof err);
    dfn_result_free(r);
    dfn_partial *p = dfn_query_partial(w->store, &sp.q, err, sizeof err);
    if (p) dfn_result_free(dfn_partial_finish(p, &sp.q, &w->layers, err, sizeof err));
    dfn_qspec_free(&sp);
    return 0;
}
