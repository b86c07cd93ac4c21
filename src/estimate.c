/* The memory estimate of a load and the memory the process can get: file
 * sizes and samples of text through the reader (so gzip is measured as
 * the loader will inflate it), /proc/meminfo, the cgroup limits and the
 * resource limits. Counting events in a sample is a scan for "ts" and ph,
 * not a parse: an estimate needs no more, and it stays off the parser. */
#include "dfnav/estimate.h"
#include "dfnav/reader.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* ---- the set ---- */

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* Metadata: ph "M" (or 4, the newest era's number for it), after the key
 * with any spaces around the colon. */
static bool line_is_meta(const char *p, size_t len)
{
    static const char key[] = "\"ph\"";
    const char *end = p + len;
    for (const char *k = p; k + 4 <= end; k++) {
        k = memchr(k, '"', (size_t)(end - k));
        if (!k || k + 4 > end) return false;
        if (memcmp(k, key, 4) != 0) continue;
        const char *v = k + 4;
        while (v < end && (*v == ' ' || *v == ':')) v++;
        if (v + 3 <= end && v[0] == '"' && v[1] == 'M' && v[2] == '"') return true;
        if (v < end && *v == '4' && (v + 1 == end || *(v + 1) < '0' || *(v + 1) > '9')) return true;
        return false;
    }
    return false;
}

static bool line_has_ts(const char *p, size_t len)
{
    for (size_t i = 0; i + 4 <= len; i++) {
        const char *q = memchr(p + i, '"', len - i);
        if (!q) return false;
        i = (size_t)(q - p);
        if (i + 4 <= len && memcmp(q, "\"ts\"", 4) == 0) return true;
    }
    return false;
}

uint64_t dfn_estimate_count(const char *text, size_t len)
{
    uint64_t n = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (line_has_ts(p, l) && !line_is_meta(p, l)) n++;
        p += l + 1;
    }
    return n;
}

/* What the distinct strings of a sample take once interned: every quoted
 * string of it, keys and values (numbers are not strings), each once;
 * only those first seen in [from, len) count, so that the strings of the
 * second half tell how many more each line brings once the names a set
 * repeats are known. */
uint64_t dfn_estimate_strings(const char *p, size_t len, size_t from, uint64_t *count)
{
    uint64_t n = 0;
    dfn_strtab *seen = dfn_strtab_new();
    uint64_t bytes = 0;
    const char *start = p, *end = p + len;
    while (p < end) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (!q) break;
        const char *s = q + 1, *e = s;
        while (e < end && *e != '"' && *e != '\n') e += *e == '\\' && e + 1 < end ? 2 : 1;
        if (e >= end || *e != '"') { p = e; continue; }   /* cut at the block's or the line's end */
        /* a quoted number is kept as a number, not a string */
        const char *d = s;
        while (d < e && ((*d >= '0' && *d <= '9') || *d == '-' || *d == '.')) d++;
        if (d == e) { p = e + 1; continue; }
        uint32_t before = dfn_strtab_count(seen);
        if (dfn_strtab_intern(seen, s, (size_t)(e - s)) == before && (size_t)(q - start) >= from) {
            bytes += (uint64_t)(e - s) + DFN_EST_STRING_OWN + (*s == '/' ? DFN_EST_PATH_OWN : 0);
            n++;
        }
        p = e + 1;
    }
    dfn_strtab_free(seen);
    if (count) *count = n;
    return bytes;
}

/* The first block of a file: its text, events and strings, and for gzip
 * what it took and gave. */
static void sample_file(dfn_estimate *e, const char *path)
{
    char err[256];
    dfn_reader *r = dfn_reader_open(path, DFN_EST_SAMPLE_BYTES, err, sizeof err);
    if (!r) return;
    dfn_block b;
    if (dfn_reader_next(r, &b) == 1) {
        e->sample_text += b.len;
        e->sample_events += dfn_estimate_count(b.data, b.len);
        /* the second half's new strings, per event of it */
        const char *mid = memchr(b.data + b.len / 2, '\n', b.len - b.len / 2);
        size_t from = mid ? (size_t)(mid - b.data) + 1 : b.len;
        uint64_t n = 0;
        e->sample_strings += dfn_estimate_strings(b.data, b.len, from, &n);
        e->sample_nstrings += n;
        e->sample_half_events += dfn_estimate_count(b.data + from, b.len - from);
        if (dfn_reader_compression(r) == DFN_COMP_GZIP) {
            /* consumed and produced so far: a line cut at the block's end
             * counts on both sides */
            e->sample_gz_in += dfn_reader_bytes_in(r);
            e->sample_gz_out += dfn_reader_bytes_out(r);
        }
        dfn_block_free(&b);
    }
    dfn_reader_close(r);
}

void dfn_estimate_add(dfn_estimate *e, const char *const *files, size_t n)
{
    bool *sized = dfn_xcalloc(n ? n : 1, sizeof *sized);
    size_t nsized = 0, first_gz = n;
    for (size_t i = 0; i < n; i++) {
        e->files++;
        e->path_bytes += strlen(files[i]);
        struct stat st;
        if (strcmp(files[i], "-") == 0 || stat(files[i], &st) != 0 || !S_ISREG(st.st_mode)) {
            e->unsized++;
            continue;
        }
        sized[i] = true;
        nsized++;
        if (has_suffix(files[i], ".gz")) {
            e->gzip_bytes += (uint64_t)st.st_size;
            if (first_gz == n) first_gz = i;
        } else {
            e->plain_bytes += (uint64_t)st.st_size;
        }
    }
    /* samples spread over the sized files: the k-th of m at k*(nsized-1)/(m-1) */
    size_t m = nsized < DFN_EST_SAMPLE_FILES ? nsized : DFN_EST_SAMPLE_FILES;
    bool gz_sampled = false;
    for (size_t k = 0, seen = 0, i = 0; k < m && i < n; i++) {
        if (!sized[i]) continue;
        size_t want = m > 1 ? k * (nsized - 1) / (m - 1) : 0;
        if (seen++ != want) continue;
        sample_file(e, files[i]);
        gz_sampled |= has_suffix(files[i], ".gz");
        k++;
    }
    if (first_gz < n && !gz_sampled) sample_file(e, files[first_gz]);
    free(sized);
}

uint64_t dfn_estimate_events(const dfn_estimate *e)
{
    if (!e->sample_text || !e->sample_events) return 0;
    double text = (double)e->plain_bytes;
    /* no gzip sample (none could be read): take its size as text, the least it can be */
    if (e->sample_gz_in) text += (double)e->gzip_bytes * (double)e->sample_gz_out / (double)e->sample_gz_in;
    else text += (double)e->gzip_bytes;
    double events = text * (double)e->sample_events / (double)e->sample_text;
    return events < 9e18 ? (uint64_t)llround(events) : UINT64_MAX;
}

/* a + b * c, saturating: an absurd estimate must not wrap to a small one */
static uint64_t mul_add(uint64_t a, uint64_t b, uint64_t c)
{
    if (c && b > (UINT64_MAX - a) / c) return UINT64_MAX;
    return a + b * c;
}

uint64_t dfn_estimate_bytes(uint64_t events, uint64_t threads, uint64_t per_event)
{
    return mul_add(mul_add(DFN_EST_BASE, threads, DFN_EST_PER_THREAD), events, per_event);
}

static uint64_t pow2_at_least(uint64_t n, uint64_t from)
{
    uint64_t p = from;
    while (p < n && p <= UINT64_MAX / 2) p *= 2;
    return p;
}

uint64_t dfn_estimate_strtab(uint64_t n)
{
    if (n > UINT64_MAX / 64) return UINT64_MAX;
    /* pointers: 8 bytes an id, by doubling; slots: 4 for the id, 4 for
     * its hash, doubled when more than FILL_NUM / FILL_DEN are used */
    uint64_t slots = pow2_at_least((n * DFN_STRTAB_FILL_DEN + DFN_STRTAB_FILL_NUM - 1) / DFN_STRTAB_FILL_NUM, DFN_STRTAB_SLOTS0);
    uint64_t end = 8 * pow2_at_least(n, 1) + 8 * slots;
    if (slots == DFN_STRTAB_SLOTS0) return end;
    /* the moment of the last doubling: the strings up to it, the old
     * slots and the new */
    uint64_t at = slots / 2 * DFN_STRTAB_FILL_NUM / DFN_STRTAB_FILL_DEN + 1;
    uint64_t then = 8 * pow2_at_least(at, 1) + 8 * (slots / 2) + 8 * slots;
    return then > end ? then : end;
}

/* ---- the machine ---- */

bool dfn_size_parse(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s) return false;
    while (*s == ' ' || *s == '\t') s++;
    if (*s < '0' || *s > '9') return false;
    double v = strtod(s, &end);
    if (errno || end == s) return false;
    /* the filter's grammar: any case, and room around the unit */
    while (*end == ' ' || *end == '\t') end++;
    size_t len = strlen(end);
    while (len && (end[len - 1] == ' ' || end[len - 1] == '\t' || end[len - 1] == '\n')) len--;
    double mul;
    if (!dfn_size_unit(end, len, true, &mul)) return false;
    v *= mul;
    if (!(v < 9e18)) return false;
    *out = (uint64_t)llround(v);
    return true;
}

bool dfn_mem_meminfo(const char *meminfo, uint64_t *out)
{
    const char *p = strstr(meminfo, "MemAvailable:");
    if (!p) return false;
    unsigned long long kb;
    if (sscanf(p + 13, " %llu kB", &kb) != 1) return false;
    *out = (uint64_t)kb * 1024;
    return true;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return dfn_xstrdup(buf);
}

/* The number in a cgroup file; false for "max", a missing file or text. */
static bool read_number(const char *dir, const char *name, uint64_t *out)
{
    char *path = dfn_xasprintf("%s/%s", dir, name);
    char *t = read_text(path);
    free(path);
    if (!t) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    bool ok = end != t && !errno && (*end == '\n' || *end == 0);
    free(t);
    *out = v;
    return ok;
}

/* Walks from dir up to root (both without a trailing slash), taking the
 * least headroom of limit_name over usage_name; v1 writes "no limit" as
 * a number near 2^63. */
static uint64_t walk_up(const char *root, const char *cgpath, const char *limit_name, const char *usage_name)
{
    uint64_t best = UINT64_MAX;
    char *dir = dfn_xasprintf("%s%s", root, strcmp(cgpath, "/") == 0 ? "" : cgpath);
    size_t rootlen = strlen(root);
    for (;;) {
        uint64_t limit, usage;
        if (read_number(dir, limit_name, &limit) && limit < ((uint64_t)1 << 62)) {
            if (!read_number(dir, usage_name, &usage)) usage = 0;
            uint64_t room = limit > usage ? limit - usage : 0;
            if (room < best) best = room;
        }
        if (strlen(dir) <= rootlen) break;
        char *slash = strrchr(dir + rootlen, '/');
        if (!slash) break;
        *slash = 0;
    }
    free(dir);
    return best;
}

uint64_t dfn_mem_cgroup(const char *proc_cgroup, const char *root)
{
    uint64_t best = UINT64_MAX;
    const char *p = proc_cgroup;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = dfn_xstrndup(p, len);
        p = nl ? nl + 1 : NULL;
        /* ID:CONTROLLERS:PATH; v2 is "0::PATH" */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || c2[1] != '/') { free(line); continue; }
        *c2 = 0;
        const char *ctrl = c1 + 1, *path = c2 + 1;
        uint64_t room = UINT64_MAX;
        if (!*ctrl && strcmp(line, "0:") == 0) {
            /* cgroup2 at the root of the cgroup file systems, or beside v1 */
            char *uni = dfn_xasprintf("%s/unified", root);
            uint64_t a = walk_up(root, path, "memory.max", "memory.current");
            uint64_t b = walk_up(uni, path, "memory.max", "memory.current");
            room = a < b ? a : b;
            free(uni);
        } else {
            /* v1: the hierarchy whose controllers include memory */
            bool mem = false;
            char *list = dfn_xstrdup(ctrl), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) mem |= strcmp(t, "memory") == 0;
            free(list);
            if (mem) {
                char *dir = dfn_xasprintf("%s/memory", root);
                room = walk_up(dir, path, "memory.limit_in_bytes", "memory.usage_in_bytes");
                free(dir);
            }
        }
        if (room < best) best = room;
        free(line);
    }
    return best;
}

/* Headroom under a resource limit: the limit less what the process holds
 * of it now (the statm field, in pages). */
static uint64_t rlimit_room(int which, int statm_field)
{
    struct rlimit rl;
    if (getrlimit(which, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    uint64_t used = 0;
    char *t = read_text("/proc/self/statm");
    if (t) {
        unsigned long long f[7] = { 0 };
        if (sscanf(t, "%llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]) == 7)
            used = (uint64_t)f[statm_field] * dfn_page_size();
        free(t);
    }
    return (uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
}

bool dfn_mem_env_check(char *msg, size_t cap)
{
    const char *env = getenv("DFNAV_MEM_AVAILABLE");
    uint64_t v;
    if (!env || dfn_size_parse(env, &v)) return true;
    /* ignoring it would check the set against the machine instead */
    snprintf(msg, cap, "DFNAV_MEM_AVAILABLE='%.60s' is not a size such as 512M, 2g or 1.5 GiB", env);
    return false;
}

uint64_t dfn_mem_available(const char **why)
{
    const char *env = getenv("DFNAV_MEM_AVAILABLE");
    uint64_t v;
    if (env && dfn_size_parse(env, &v)) {
        *why = "DFNAV_MEM_AVAILABLE";
        return v;
    }
    uint64_t best = UINT64_MAX;
    *why = NULL;
    char *t = read_text("/proc/meminfo");
    if (t && dfn_mem_meminfo(t, &v)) { best = v; *why = "MemAvailable"; }
    free(t);
    t = read_text("/proc/self/cgroup");
    if (t && (v = dfn_mem_cgroup(t, "/sys/fs/cgroup")) < best) { best = v; *why = "the cgroup's memory limit"; }
    free(t);
    if ((v = rlimit_room(RLIMIT_AS, 0)) < best) { best = v; *why = "ulimit -v"; }
    if ((v = rlimit_room(RLIMIT_DATA, 5)) < best) { best = v; *why = "ulimit -d"; }
    return best;
}

/* ---- the verdict ---- */

void dfn_estimate_size_text(uint64_t b, char *buf, size_t cap)
{
    if (b >= (uint64_t)1 << 30) snprintf(buf, cap, "%.1f GiB", (double)b / (1 << 30));
    else snprintf(buf, cap, "%.0f MiB", (double)b / (1 << 20));
}

static void fmt_events(uint64_t n, char *buf, size_t cap)
{
    if (n >= 1000000000) snprintf(buf, cap, "%.1f G", n / 1e9);
    else if (n >= 1000000) snprintf(buf, cap, "%.1f M", n / 1e6);
    else if (n >= 1000) snprintf(buf, cap, "%.1f k", n / 1e3);
    else snprintf(buf, cap, "%" PRIu64 "", n);
}

/* The strings a sample had more of than the per-event figure allows for
 * (a distinct value on every line), in a set of this many events: as
 * many more per event, and the index of them all. */
static uint64_t estimate_strings(const dfn_estimate *e, uint64_t events)
{
    if (!e->sample_half_events) return 0;
    double per = (double)events / (double)e->sample_half_events;
    double n = (double)e->sample_nstrings * per, bytes = (double)e->sample_strings * per;
    if (!(n < 1e18) || !(bytes < 1e18)) return UINT64_MAX;
    uint64_t all = mul_add((uint64_t)bytes, 1, dfn_estimate_strtab((uint64_t)n));
    uint64_t held = mul_add(0, events, DFN_EST_STRINGS_IN_PER_EVENT);
    return all > held ? all - held : 0;
}

/* The bytes a load of e's files needs at per_event bytes an event. */
static uint64_t estimate_need(const dfn_estimate *e, uint64_t events, uint64_t threads, uint64_t per_event)
{
    uint64_t need = mul_add(dfn_estimate_bytes(events, threads, per_event), 1, estimate_strings(e, events));
    return mul_add(mul_add(need, e->files, DFN_EST_PER_FILE), e->path_bytes, DFN_EST_PATH_COPIES);
}

uint64_t dfn_estimate_need(const dfn_estimate *e, uint64_t threads, uint64_t per_event)
{
    uint64_t events = dfn_estimate_events(e);
    return events ? estimate_need(e, events, threads, per_event) : 0;
}

uint64_t dfn_estimate_nodes(const dfn_estimate *e, uint64_t threads, uint64_t per_event)
{
    uint64_t events = dfn_estimate_events(e);
    const char *why;
    uint64_t avail = dfn_mem_available(&why);
    if (!events) return 1;
    /* each node pays the base and its threads' buffers whole (and, to err
     * on the side of enough, every file's and path's share); the rest
     * divides among them */
    uint64_t fixed = mul_add(mul_add(DFN_EST_BASE, threads, DFN_EST_PER_THREAD), e->files, DFN_EST_PER_FILE);
    fixed = mul_add(fixed, e->path_bytes, DFN_EST_PATH_COPIES);
    uint64_t need = estimate_need(e, events, threads, per_event);
    if (avail <= fixed) return 0;
    return (need - (need > fixed ? fixed : need)) / (avail - fixed) + 1;
}

bool dfn_estimate_fits(const dfn_estimate *e, uint64_t threads, uint64_t per_event, bool runs, char *msg, size_t cap)
{
    uint64_t events = dfn_estimate_events(e);
    if (!events) return true;   /* nothing to go by */
    uint64_t need = estimate_need(e, events, threads, per_event);
    const char *why;
    uint64_t avail = dfn_mem_available(&why);
    if (need <= avail) return true;
    char n[32], a[32], ev[32];
    dfn_estimate_size_text(need, n, sizeof n);
    dfn_estimate_size_text(avail, a, sizeof a);
    fmt_events(events, ev, sizeof ev);
    snprintf(msg, cap, "%s about %s (%" PRIu64 " files, ~%s events estimated), only %s available (%s)",
             runs ? "these runs need" : "this set needs", n, e->files, ev, a, why);
    return false;
}
