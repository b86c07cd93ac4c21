/* Fuzz target for the filter language: the input is the text of a --where
 * expression. It must parse or fail with a message; a parsed filter must
 * print as canonical text that parses again to the same text; and it is
 * compiled and evaluated by a query over a small fixed store, with the DLIO
 * layers so that layer terms resolve. */
#include "fuzzstore.h"
#include "dfnav/filter.h"
#include "dfnav/match.h"
#include "dfnav/query.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Calls of two processes over a data file and a checkpoint, with arguments
 * of every kind, so that each key of the language has something to test. */
static const char fuzz_trace[] =
    "{\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"node01\",\"value\":\"7\"}}\n"
    "{\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":\"/p/lustre/d/img_01.h5\",\"value\":\"9\"}}\n"
    "{\"name\":\"train\",\"cat\":\"dlio_benchmark\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":900000,\"ph\":\"X\",\"args\":{\"hhash\":\"7\",\"epoch\":1}}\n"
    "{\"name\":\"TorchFramework.compute\",\"cat\":\"ai_framework\",\"pid\":1,\"tid\":1,\"ts\":5000,\"dur\":40000,\"ph\":\"X\",\"args\":{\"hhash\":\"7\",\"step\":2}}\n"
    "{\"name\":\"open64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":2000,\"dur\":10,\"ph\":\"X\",\"args\":{\"hhash\":\"7\",\"fhash\":\"9\",\"ret\":3}}\n"
    "{\"name\":\"pread64\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":2,\"ts\":2100,\"dur\":300,\"ph\":\"X\",\"args\":{\"hhash\":\"7\",\"fhash\":\"9\",\"ret\":4096,\"offset\":8192,\"epoch\":1}}\n"
    "{\"name\":\"fwrite\",\"cat\":\"STDIO\",\"pid\":2,\"tid\":2,\"ts\":60000,\"dur\":2500000,\"ph\":\"X\",\"args\":{\"hostname\":\"node02\",\"fname\":\"/l/ssd/ck/layer-1-2.pt\",\"size\":8,\"ret\":65536,\"note\":\"a|b c\",\"ok\":true,\"none\":null,\"neg\":-5}}\n"
    "{\"name\":\"close\",\"cat\":\"POSIX\",\"pid\":2,\"tid\":2,\"ts\":2600000,\"dur\":1,\"ph\":\"X\",\"args\":{\"hostname\":\"node02\",\"fname\":\"/l/ssd/ck/layer-1-2.pt\",\"ret\":0}}\n";

static fuzz_store *fuzz_world_get(void)
{
    static fuzz_store w;
    static int ready;
    if (!ready) fuzz_store_load(&w, fuzz_trace, sizeof fuzz_trace - 1, 6, "dlio");
    ready = 1;
    return &w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_store *w = fuzz_world_get();
    char *text = malloc(size + 1);
    if (text == NULL) return 0;
    if (size) memcpy(text, data, size);
    text[size] = '\0';   /* the language is C strings: a NUL ends the text */

    char err[1024] = "";
    dfn_filter f;
    if (!dfn_filter_parse(text, &f, err, sizeof err)) {
        if (err[0] == '\0') abort();   /* a refusal always says why */
        free(text);
        return 0;
    }
    char *canon = dfn_filter_text(&f);
    dfn_filter g;
    if (!dfn_filter_parse(canon, &g, err, sizeof err)) abort();
    char *again = dfn_filter_text(&g);
    if (strcmp(canon, again) != 0) abort();
    free(again);
    dfn_filter_free(&g);

    dfn_query q;
    memset(&q, 0, sizeof q);
    q.filter = &f;
    q.layers = w->ls;
    q.sort = -1;
    q.threads = 1;
    q.ndims = 1;
    q.dims[0].kind = DFN_DIM_FILE;
    dfn_result *r = dfn_query_run(w->store, &q, err, sizeof err);
    if (r != NULL) {
        if (r->matched > w->store->n) abort();
        dfn_result_free(r);
    }
    free(canon);
    dfn_filter_free(&f);
    free(text);
    return 0;
}
