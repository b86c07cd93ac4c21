/* Fuzz target for the line parser: the input is one block of trace lines,
 * parsed by dfn_parser_block (as a parser thread would) and sorted into a
 * chunk. Any crash, sanitizer report or leak is a bug; the batch's own
 * counts must add up, and the same block read with the line scanner off
 * (every line through tokens) must give the very same batch and tables;
 * read again with times straight into µs (a file in seconds with
 * fractions, dfn_parser_prescale), it must take and refuse the same lines. */
#include "load.h"
#include "parsecheck.h"

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

    dfn_loadctx ctx, ref_ctx;
    pc_ctx_init(&ctx);
    pc_ctx_init(&ref_ctx);
    dfn_parser *p = dfn_parser_new(&ctx), *ref = dfn_parser_new(&ref_ctx);
    dfn_parser_scan(ref, false);
    dfn_batch b, rb;
    memset(&b, 0, sizeof b);
    memset(&rb, 0, sizeof rb);
    dfn_parser_block(p, block, size, &b);
    dfn_parser_block(ref, block, size, &rb);
    /* every line is exactly one of these */
    const dfn_blockinfo *i = &b.info;
    if (i->events != b.n || b.nbad > i->malformed ||
        i->events + i->metadata + i->counters + i->other + i->malformed + i->skipped + i->pairs_pending != i->lines ||
        (b.begins ? b.begins->n : 0) + b.nends != i->pairs_pending)
        abort();
    if (pc_parse_same(&b, &ctx, &rb, &ref_ctx)) abort();
    dfn_loadctx sec_ctx;
    pc_ctx_init(&sec_ctx);
    dfn_parser *sec = dfn_parser_new(&sec_ctx);
    dfn_parser_prescale(sec, DFN_UNIT_SEC);
    dfn_batch sb;
    memset(&sb, 0, sizeof sb);
    dfn_parser_block(sec, block, size, &sb);
    const dfn_blockinfo *si = &sb.info;
    if (si->events != i->events || si->metadata != i->metadata || si->counters != i->counters || si->other != i->other ||
        si->malformed != i->malformed || si->skipped != i->skipped || si->pairs_pending != i->pairs_pending ||
        sb.n != b.n || sb.ncs != b.ncs || si->frac_times != 0)
        abort();
    dfn_batch_free(&sb);
    dfn_parser_free(sec);
    pc_ctx_free(&sec_ctx);
    dfn_chunk *c = dfn_chunk_from_batch(NULL, &b, 0, 0);
    if (c->n != b.n) abort();
    dfn_chunk_free(c);
    dfn_batch_free(&b);
    dfn_batch_free(&rb);
    dfn_parser_free(p);
    dfn_parser_free(ref);
    pc_ctx_free(&ctx);
    pc_ctx_free(&ref_ctx);
    free(block);
    return 0;
}
