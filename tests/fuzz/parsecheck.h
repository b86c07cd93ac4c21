/* Checks shared by the parser's tests and its fuzz target: a load context
 * of its own, and whether two parses of the same text agree in every
 * byte: the batch (events, arguments, metadata, damage and counts) and
 * every table the parse interned into. The line scanner and the token
 * walk must never differ in either. */
#ifndef DFNAV_PARSECHECK_H
#define DFNAV_PARSECHECK_H

#include "load.h"

#include <string.h>

static inline void pc_ctx_init(dfn_loadctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->strs = dfn_strtab_new();
    ctx->hashes = dfn_strtab_new();
    ctx->lanes = dfn_strtab_new();
    ctx->kinds = dfn_strtab_new();
    ctx->schemas = dfn_strtab_new();
}

static inline void pc_ctx_free(dfn_loadctx *ctx)
{
    dfn_strtab_free(ctx->strs);
    dfn_strtab_free(ctx->hashes);
    dfn_strtab_free(ctx->lanes);
    dfn_strtab_free(ctx->kinds);
    dfn_strtab_free(ctx->schemas);
    pthread_mutex_destroy(&ctx->lock);
}

static inline const char *pc_table_same(const dfn_strtab *a, const dfn_strtab *b)
{
    if (dfn_strtab_count(a) != dfn_strtab_count(b)) return "table sizes";
    for (uint32_t i = 0; i < dfn_strtab_count(a); i++)
        if (dfn_strtab_len(a, i) != dfn_strtab_len(b, i) ||
            memcmp(dfn_strtab_str(a, i), dfn_strtab_str(b, i), dfn_strtab_len(a, i)) != 0)
            return "table entries";
    return NULL;
}

#define PC_COL(f) \
    if (a->n && memcmp(a->f, b->f, a->n * sizeof *a->f) != 0) return #f;

/* NULL when the batches and tables agree, else what differs first. */
static inline const char *pc_parse_same(const dfn_batch *a, const dfn_loadctx *ca, const dfn_batch *b,
                                        const dfn_loadctx *cb)
{
    if (a->n != b->n) return "event count";
    PC_COL(ts) PC_COL(dur) PC_COL(bytes) PC_COL(lane) PC_COL(kind) PC_COL(file) PC_COL(args_off)
    if (a->args_len != b->args_len || (a->args_len && memcmp(a->args, b->args, a->args_len) != 0)) return "args";
    if (a->nmeta != b->nmeta) return "metadata count";
    for (size_t i = 0; i < a->nmeta; i++)
        if (a->meta[i].hash_ref != b->meta[i].hash_ref || a->meta[i].name != b->meta[i].name ||
            a->meta[i].type != b->meta[i].type || a->meta[i].line != b->meta[i].line || a->meta[i].pid != b->meta[i].pid)
            return "metadata";
    if (a->nbad != b->nbad) return "damage count";
    for (size_t i = 0; i < a->nbad; i++)
        if (a->bad[i].line != b->bad[i].line || strcmp(a->bad[i].reason, b->bad[i].reason) != 0) return "damage";
    const dfn_blockinfo *x = &a->info, *y = &b->info;
    if (x->lines != y->lines || x->events != y->events || x->metadata != y->metadata || x->malformed != y->malformed ||
        x->counters != y->counters || x->other != y->other || x->skipped != y->skipped ||
        x->pairs_pending != y->pairs_pending ||
        x->agg_records != y->agg_records || x->agg_calls != y->agg_calls)
        return "counts";
    if (!x->other_ph != !y->other_ph ||
        (x->other_ph && memcmp(x->other_ph, y->other_ph, DFN_PH_KINDS * sizeof *x->other_ph) != 0))
        return "kinds set aside";
    if (x->unit != y->unit || !x->cfg != !y->cfg || !x->app != !y->app || (x->cfg && strcmp(x->cfg, y->cfg)) ||
        (x->app && strcmp(x->app, y->app)))
        return "end record";
    if (!a->cnt != !b->cnt) return "aggregated columns";
    if (a->cnt) { PC_COL(cnt) PC_COL(durmax) }
    size_t na = a->begins ? a->begins->n : 0, nb = b->begins ? b->begins->n : 0;
    if (na != nb || a->nends != b->nends) return "begin and end counts";
    if (na) {
        const char *t = pc_parse_same(a->begins, ca, b->begins, cb);
        if (t) return t;
        if (memcmp(a->begin_line, b->begin_line, na * sizeof *a->begin_line) != 0) return "begin lines";
    }
    for (size_t i = 0; i < a->nends; i++)
        if (a->ends[i].ts != b->ends[i].ts || a->ends[i].lane != b->ends[i].lane || a->ends[i].line != b->ends[i].line)
            return "end marks";
    if (a->ncs != b->ncs) return "counter sample count";
    for (size_t i = 0; i < a->ncs; i++)
        if (a->cs[i].ts != b->cs[i].ts || a->cs[i].pid != b->cs[i].pid || a->cs[i].host != b->cs[i].host ||
            a->cs[i].name != b->cs[i].name || a->cs[i].key != b->cs[i].key ||
            memcmp(&a->cs[i].value, &b->cs[i].value, sizeof a->cs[i].value) != 0)
            return "counter samples";
    if (a->min_ts != b->min_ts || a->max_end != b->max_end) return "time span";
    if (a->era != b->era) return "era";
    if (a->version != b->version) return "version";
    const char *t;
    if ((t = pc_table_same(ca->strs, cb->strs)) || (t = pc_table_same(ca->hashes, cb->hashes)) ||
        (t = pc_table_same(ca->lanes, cb->lanes)) || (t = pc_table_same(ca->kinds, cb->kinds)) ||
        (t = pc_table_same(ca->schemas, cb->schemas)))
        return t;
    return NULL;
}
#undef PC_COL

#endif
