/* A call's place in its thread as the call detail says it, and how a
 * call is named to find it in another store of its set. See callplace.h. */
#include "dfnav/callplace.h"

#include "bytebuf.h"
#include "dfnav/export.h"
#include "dfnav/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One call as a line of the tree. */
static void call_line(const dfn_store *s, uint32_t e, const char *indent, char ***lines, size_t *n, size_t *cap)
{
    char d[32];
    dfn_fmt_us((double)dfn_store_dur(s, e), d, sizeof d);
    uint32_t fp = s->files[dfn_store_file(s, e)].path;
    /* labelled: a start and a duration side by side read alike */
    dfn_lines_add(lines, n, cap, "%s%s  at %.6f s, for %s%s%s", indent, dfn_store_str(s, s->kinds[dfn_store_kind(s, e)].func),
             dfn_store_ts(s, e) / 1e6, d, *dfn_store_str(s, fp) ? ", on " : "", dfn_store_str(s, fp));
}

char **dfn_call_place(const dfn_store *s, const dfn_calltree *t, const dfn_access *acc, uint32_t i, size_t *n)
{
    char **lines = NULL;
    size_t cap = 0;
    *n = 0;
    char d[32];
    dfn_fmt_us((double)dfn_calltree_self(t, i), d, sizeof d);
    dfn_lines_add(&lines, n, &cap, "self time  %s (not inside a child call)", d);
    if (acc) {
        dfn_access_kind k = dfn_access_of(acc, i);
        if (k != DFN_ACCESS_NONE) dfn_lines_add(&lines, n, &cap, "access     %s", k == DFN_ACCESS_SEQ ? "sequential" : "random");
    }
    uint32_t chain[64];
    size_t depth = 0;
    for (uint32_t p = dfn_calltree_parent(t, i); p != DFN_NOID && depth < 64; p = dfn_calltree_parent(t, p)) chain[depth++] = p;
    dfn_lines_add(&lines, n, &cap, "called from%s", depth ? "" : "  (nothing encloses it in its thread)");
    for (size_t k = depth; k-- > 0;) {
        char indent[80];
        size_t lvl = depth - 1 - k;
        snprintf(indent, sizeof indent, "  %*s", (int)(lvl < 30 ? lvl * 2 : 60), "");
        call_line(s, chain[k], indent, &lines, n, &cap);
    }
    /* one scan fills the first DFN_PLACE_KIDS and counts them all */
    uint32_t *kids = dfn_xmalloc(DFN_PLACE_KIDS * sizeof *kids);
    size_t nk = dfn_calltree_children(t, s, i, kids, DFN_PLACE_KIDS);
    if (nk > DFN_PLACE_KIDS) dfn_lines_add(&lines, n, &cap, "calls made  %zu (the first %d)", nk, DFN_PLACE_KIDS);
    else dfn_lines_add(&lines, n, &cap, "calls made  %zu", nk);
    for (size_t k = 0; k < nk && k < DFN_PLACE_KIDS; k++) call_line(s, kids[k], "  ", &lines, n, &cap);
    free(kids);
    return lines;
}

void dfn_call_place_free(char **lines, size_t n)
{
    for (size_t k = 0; k < n; k++) free(lines[k]);
    free(lines);
}

#define PLACE_MAGIC UINT64_C(0x434e4650)
#define PLACE_VERSION 1

/* A lane's thread as text: host, pid, tid. */
static void lane_texts(const dfn_store *s, const dfn_lane *ln, char pid[64], char tid[64])
{
    dfn_id_text(s, ln->pid, pid, 64);
    dfn_id_text(s, ln->tid, tid, 64);
}

uint8_t *dfn_call_place_key(const dfn_store *s, uint32_t i, size_t *len)
{
    const dfn_lane *ln = &s->lanes[dfn_store_lane(s, i)];
    char pid[64], tid[64];
    lane_texts(s, ln, pid, tid);
    uint32_t fn = s->kinds[dfn_store_kind(s, i)].func;
    obuf o = {0};
    put_u(&o, PLACE_MAGIC);
    put_u(&o, PLACE_VERSION);
    put_bytes(&o, dfn_store_str(s, ln->host), dfn_strtab_len(s->strs, ln->host));
    put_bytes(&o, pid, strlen(pid));
    put_bytes(&o, tid, strlen(tid));
    put_u(&o, s->t0 + dfn_store_ts(s, i));
    put_u(&o, dfn_store_dur(s, i));
    put_bytes(&o, dfn_store_str(s, fn), dfn_strtab_len(s->strs, fn));
    *len = o.n;
    return o.b;
}

static bool same_text(const char *a, size_t al, const uint8_t *b, size_t bl) { return al == bl && memcmp(a, b, al) == 0; }

bool dfn_call_place_find(const dfn_store *s, const uint8_t *key, size_t len, uint32_t *found, char *err, size_t errlen)
{
    ibuf in = { key, key + len, NULL };
    *found = UINT32_MAX;
    if (!get_head(&in, PLACE_MAGIC, PLACE_VERSION, "a call's name", err, errlen)) return false;
    size_t hl, pl, tl, fl;
    const uint8_t *host = get_bytes(&in, &hl, "its host"), *pid = get_bytes(&in, &pl, "its pid");
    const uint8_t *tid = get_bytes(&in, &tl, "its tid");
    uint64_t ts = get_any(&in, "its start"), dur = get_any(&in, "its length");
    const uint8_t *fn = get_bytes(&in, &fl, "its function");
    if (!in.bad && in.p != in.end) in.bad = "its end";
    if (in.bad) {
        snprintf(err, errlen, "a damaged name of a call (%s)", in.bad);
        return false;
    }
    if (!s || ts < s->t0) return true;
    /* its thread's lanes (one, but for a thread named twice), then its calls */
    uint8_t *mine = dfn_xcalloc(s->nlanes ? s->nlanes : 1, 1);
    bool any = false;
    for (size_t l = 0; l < s->nlanes; l++) {
        const dfn_lane *ln = &s->lanes[l];
        char p[64], t[64];
        lane_texts(s, ln, p, t);
        mine[l] = same_text(dfn_store_str(s, ln->host), dfn_strtab_len(s->strs, ln->host), host, hl) &&
                  same_text(p, strlen(p), pid, pl) && same_text(t, strlen(t), tid, tl);
        any |= mine[l];
    }
    for (size_t i = 0; any && i < s->n && *found == UINT32_MAX; i++) {
        if (!mine[dfn_store_lane(s, i)] || s->t0 + dfn_store_ts(s, i) != ts || dfn_store_dur(s, i) != dur) continue;
        uint32_t f = s->kinds[dfn_store_kind(s, i)].func;
        if (same_text(dfn_store_str(s, f), dfn_strtab_len(s->strs, f), fn, fl)) *found = (uint32_t)i;
    }
    free(mine);
    return true;
}
