/* Fuzz target for the line parser: the input is one block of trace lines,
 * parsed by dfn_parser_block (as a parser thread would) and sorted into a
 * chunk. Any crash, sanitizer report or leak is a bug; the batch's own
 * counts must add up. */
#include "load.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader hands out blocks with a NUL after the last byte; the
     * parser may rely on it, so the fuzzer keeps that contract. */
    char *block = malloc(size + 1);
    if (block == NULL) return 0;
    if (size) memcpy(block, data, size);
    block[size] = '\0';

    dfn_loadctx ctx;
    memset(&ctx, 0, sizeof ctx);
    pthread_mutex_init(&ctx.lock, NULL);
    ctx.strs = dfn_strtab_new();
    ctx.hashes = dfn_strtab_new();
    ctx.lanes = dfn_strtab_new();
    ctx.kinds = dfn_strtab_new();
    ctx.schemas = dfn_strtab_new();

    dfn_parser *p = dfn_parser_new(&ctx);
    dfn_batch b;
    memset(&b, 0, sizeof b);
    dfn_parser_block(p, block, size, &b);
    if (b.events != b.n || b.nbad > b.malformed || b.events + b.malformed > b.lines) abort();
    dfn_chunk *c = dfn_chunk_from_batch(&b, 0, 0);
    if (c->n != b.n) abort();
    dfn_chunk_free(c);
    dfn_batch_free(&b);
    dfn_parser_free(p);

    dfn_strtab_free(ctx.strs);
    dfn_strtab_free(ctx.hashes);
    dfn_strtab_free(ctx.lanes);
    dfn_strtab_free(ctx.kinds);
    dfn_strtab_free(ctx.schemas);
    pthread_mutex_destroy(&ctx.lock);
    free(block);
    return 0;
}
