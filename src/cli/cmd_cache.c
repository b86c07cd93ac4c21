/* dfnav cache: what the cache holds (each entry's size, events, last use
 * and the files it was read from), and --clear to empty it. */
#include "cli.h"
#include "dfnav/cache.h"
#include "dfnav/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void human_bytes(uint64_t b, char *buf, size_t cap)
{
    const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)b;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof unit / sizeof *unit) { v /= 1024; u++; }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* An entry's files: the first path and how many more. */
static void entry_source(const dfn_cache_entry *e, char *buf, size_t cap)
{
    if (!e->ok) { snprintf(buf, cap, "unusable: %s", e->why); return; }
    if (!e->info.nfiles) { snprintf(buf, cap, "(no files)"); return; }
    if (e->info.nfiles == 1) snprintf(buf, cap, "%s", e->info.paths[0]);
    else snprintf(buf, cap, "%s and %zu more", e->info.paths[0], e->info.nfiles - 1);
}

int cmd_cache(const cli_opts *o, bool clear)
{
    if (!o->cache) {
        fprintf(stderr, "dfnav: no cache directory: give --cache DIR, or set DFNAV_CACHE or HOME\n");
        return 2;
    }
    if (clear) {
        size_t n;
        uint64_t freed;
        char err[1024], hb[32];
        bool ok = dfn_cache_clear(o->cache, &n, &freed, err, sizeof err);
        human_bytes(freed, hb, sizeof hb);
        printf("%s: removed %zu entr%s, %s\n", o->cache, n, n == 1 ? "y" : "ies", hb);
        if (!ok) fprintf(stderr, "dfnav: cannot remove %s\n", err);
        return cli_write_status(stdout) ? 2 : ok ? 0 : 1;
    }
    dfn_cache_entry *e;
    size_t n = dfn_cache_list(o->cache, &e);
    uint64_t total = 0, limit = dfn_cache_limit(o->cache);
    char hb[32], hl[32];
    if (o->format == DFN_FMT_CSV) printf("entry,bytes,events,files,last_used,source\n");
    else printf("%-28s %10s %12s %6s  %-16s  %s\n", "entry", "size", "events", "files", "last used", "source");
    for (size_t i = 0; i < n; i++) {
        char src[1024], when[32];
        struct tm tm;
        time_t t = (time_t)e[i].used;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime_r(&t, &tm));
        entry_source(&e[i], src, sizeof src);
        const char *name = strrchr(e[i].path, '/') ? strrchr(e[i].path, '/') + 1 : e[i].path;
        total += e[i].bytes;
        if (o->format == DFN_FMT_CSV) {
            printf("%s,%" PRIu64 ",%" PRIu64 ",%zu,%s,", name, e[i].bytes, e[i].info.events, e[i].info.nfiles, when);
            dfn_csv_field(stdout, src, strlen(src));
            putchar('\n');
            continue;
        }
        human_bytes(e[i].bytes, hb, sizeof hb);
        printf("%-28s %10s %12" PRIu64 " %6zu  %-16s  %s\n", name, hb, e[i].info.events, e[i].info.nfiles, when, src);
    }
    human_bytes(total, hb, sizeof hb);
    human_bytes(limit, hl, sizeof hl);
    if (o->format != DFN_FMT_CSV)
        printf("%s: %zu entr%s, %s of at most %s\n", o->cache, n, n == 1 ? "y" : "ies", hb, hl);
    dfn_cache_entries_free(e, n);
    return cli_write_status(stdout) ? 2 : 0;
}
