/* Sequential versus random access: one pass over the events in start
 * order keeping, per descriptor lane, the file position and where the
 * previous transfer ended. */
#include "dfnav/access.h"
#include "dfnav/map64.h"
#include "dfnav/util.h"

#include <stdlib.h>
#include <string.h>

struct dfn_access {
    uint64_t *judged, *seq;
    size_t n;
};

/* What a function does to descriptor lanes. */
enum { R_NONE, R_OPEN_FD, R_OPEN_STREAM, R_SEEK, R_XFER };

static int role_of(const char *func, dfn_class cls, dfn_op op)
{
    if (cls == DFN_CLASS_READ || cls == DFN_CLASS_WRITE) return R_XFER;
    if (op == DFN_OP_OPEN) {
        if (strncmp(func, "fopen", 5) == 0 || strcmp(func, "fdopen") == 0) return R_OPEN_STREAM;
        if (strncmp(func, "open", 4) == 0 || strncmp(func, "creat", 5) == 0) return R_OPEN_FD;
    }
    if (op == DFN_OP_SEEK && (strncmp(func, "lseek", 5) == 0 || strncmp(func, "fseek", 5) == 0)) return R_SEEK;
    return R_NONE;
}

/* An event's arguments, decoded once: all of them, as no record holds more. */
typedef struct { dfn_arg a[DFN_ARGS_MAX]; size_t n; } argset;

/* An integer argument, also when a tracer wrote it as a string. */
static bool arg_int(const dfn_store *s, const argset *as, uint32_t key, int64_t *out)
{
    for (size_t k = 0; key != DFN_NOID && k < as->n; k++) {
        const dfn_arg *a = &as->a[k];
        if (a->key != key) continue;
        if (a->type == DFN_ARG_INT) { *out = a->i; return true; }
        if (a->type == DFN_ARG_UINT) { *out = a->u > INT64_MAX ? INT64_MAX : (int64_t)a->u; return true; }
        if (a->type == DFN_ARG_STR) return dfn_parse_i64(dfn_store_str(s, a->str), dfn_strtab_len(s->strs, a->str), out);
        return false;
    }
    return false;
}

typedef struct { uint64_t pos, last_end; bool has_prev; } lanest;

dfn_access *dfn_access_build(const dfn_store *s)
{
    dfn_access *a = dfn_xcalloc(1, sizeof *a);
    a->n = s->n;
    a->judged = dfn_xcalloc(s->n / 64 + 1, sizeof *a->judged);
    a->seq = dfn_xcalloc(s->n / 64 + 1, sizeof *a->seq);
    uint8_t *role = dfn_xcalloc(s->nkinds ? s->nkinds : 1, 1);
    for (size_t k = 0; k < s->nkinds; k++) {
        const dfn_kind *kd = &s->kinds[k];
        role[k] = (uint8_t)role_of(dfn_store_str(s, kd->func), (dfn_class)kd->cls, (dfn_op)kd->op);
    }
    uint32_t k_fd = dfn_strtab_find(s->strs, "fd", 2), k_off = dfn_strtab_find(s->strs, "offset", 6);
    uint32_t k_ret = dfn_strtab_find(s->strs, "ret", 3), k_whence = dfn_strtab_find(s->strs, "whence", 6);
    uint32_t *proc_of_lane;
    dfn_store_procs(s, &proc_of_lane);
    dfn_map64 lanes;
    dfn_map64_init(&lanes);
    lanest *st = NULL;
    size_t nst = 0, stcap = 0;
    const uint8_t *cur = NULL;
    size_t cur_i = 0;
    for (size_t i = 0; i < s->n; i++) {
        int r = role[dfn_store_kind(s, i)];
        if (r == R_NONE) continue;
        /* records are variable length: walk forward from the last one
         * rather than from the index block each time */
        dfn_store_args_seek(s, &cur, &cur_i, i);
        argset as;
        as.n = dfn_store_args_in(s, cur, as.a, sizeof as.a / sizeof as.a[0]);
        if (as.n > sizeof as.a / sizeof as.a[0]) as.n = sizeof as.a / sizeof as.a[0];
        const argset *rec = &as;
        uint64_t proc = proc_of_lane[dfn_store_lane(s, i)];
        int64_t fd, off, ret, whence = 0;
        bool has_fd = r != R_OPEN_FD && r != R_OPEN_STREAM && arg_int(s, rec, k_fd, &fd);
        bool has_ret = arg_int(s, rec, k_ret, &ret);
        if (r == R_OPEN_FD) {
            if (!has_ret || ret < 0) continue;
            fd = ret;
            has_fd = true;
        }
        /* the lane: (process, fd), else (process, file) for streams */
        uint64_t key;
        if (has_fd) key = proc << 33 | (uint64_t)(uint32_t)fd;
        else if (dfn_store_file(s, i)) key = proc << 33 | 1ull << 32 | dfn_store_file(s, i);
        else continue;
        uint64_t *slot = dfn_map64_slot(&lanes, key);
        if (!*slot) {
            dfn_grow((void **)&st, &stcap, nst + 1, sizeof *st);
            st[nst] = (lanest){ 0, 0, false };
            *slot = ++nst;
        }
        lanest *l = &st[*slot - 1];
        switch (r) {
        case R_OPEN_FD: case R_OPEN_STREAM:
            *l = (lanest){ 0, 0, false };
            break;
        case R_SEEK:
            arg_int(s, rec, k_whence, &whence);
            /* lseek returns the new position; fseek returns 0 */
            if (has_fd && has_ret && ret >= 0) l->pos = (uint64_t)ret;
            else if (whence == 0 && arg_int(s, rec, k_off, &off) && off >= 0) l->pos = (uint64_t)off;
            break;
        case R_XFER: {
            uint64_t bytes = dfn_store_bytes(s, i), at;
            bool explicit_off = arg_int(s, rec, k_off, &off) && off >= 0;
            at = explicit_off ? (uint64_t)off : l->pos;
            bool seq = l->has_prev ? at == l->last_end : at == 0;
            a->judged[i >> 6] |= 1ull << (i & 63);
            if (seq) a->seq[i >> 6] |= 1ull << (i & 63);
            l->last_end = at + bytes;
            l->has_prev = true;
            if (!explicit_off) l->pos = at + bytes;
            break;
        }
        }
    }
    free(st);
    dfn_map64_free(&lanes);
    free(proc_of_lane);
    free(role);
    return a;
}

void dfn_access_bits(const dfn_access *a, const uint64_t **judged, const uint64_t **seq)
{
    *judged = a->judged;
    *seq = a->seq;
}

dfn_access_kind dfn_access_of(const dfn_access *a, size_t i)
{
    if (i >= a->n || !(a->judged[i >> 6] >> (i & 63) & 1)) return DFN_ACCESS_NONE;
    return a->seq[i >> 6] >> (i & 63) & 1 ? DFN_ACCESS_SEQ : DFN_ACCESS_RANDOM;
}

void dfn_access_free(dfn_access *a)
{
    if (!a) return;
    free(a->judged);
    free(a->seq);
    free(a);
}
