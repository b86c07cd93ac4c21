/* The cache directory: one image per trace set, named by the set's key
 * ("set-KEY.img"), written as ".tmp-PID-N-KEY" and renamed into place.
 * The modification time of an entry is its last use, which eviction
 * orders by (atime is often off on cluster file systems). */
#include "dfnav/cache.h"
#include "dfnav/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_PREFIX "set-"
#define ENTRY_SUFFIX ".img"
#define TEMP_PREFIX ".tmp-"
#define DEFAULT_LIMIT ((uint64_t)20 << 30)

char *dfn_cache_dir(const char *given)
{
    if (given && *given) return dfn_xstrdup(given);
    const char *env = getenv("DFNAV_CACHE");
    if (env && *env) return dfn_xstrdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    /* the XDG spec ignores a relative XDG_CACHE_HOME */
    if (xdg && xdg[0] == '/') return dfn_xasprintf("%s/dfnav", xdg);
    const char *home = getenv("HOME");
    if (home && *home) return dfn_xasprintf("%s/.cache/dfnav", home);
    return NULL;
}

bool dfn_cache_parse_size(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || v < 0) return false;
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B') end += *end == 'i' && end[1] == 'B' ? 2 : 1;
    if (*end || v * mul > 1.8e19) return false;
    *out = (uint64_t)(v * mul);
    return true;
}

uint64_t dfn_cache_limit(const char *dir)
{
    uint64_t v;
    const char *env = getenv("DFNAV_CACHE_MAX");
    if (env && *env && dfn_cache_parse_size(env, &v)) return v;
    struct statvfs fs;
    if (statvfs(dir, &fs) == 0 && fs.f_blocks) {
        uint64_t tenth = (uint64_t)fs.f_blocks * fs.f_frsize / 10;
        if (tenth < DEFAULT_LIMIT) return tenth;
    }
    return DEFAULT_LIMIT;
}

static char *entry_path(const char *dir, uint64_t key)
{
    return dfn_xasprintf("%s/" ENTRY_PREFIX "%016" PRIx64 ENTRY_SUFFIX, dir, key);
}

static bool is_entry(const char *name)
{
    size_t n = strlen(name), p = strlen(ENTRY_PREFIX), s = strlen(ENTRY_SUFFIX);
    return n > p + s && strncmp(name, ENTRY_PREFIX, p) == 0 && strcmp(name + n - s, ENTRY_SUFFIX) == 0;
}

static bool is_temp(const char *name) { return strncmp(name, TEMP_PREFIX, strlen(TEMP_PREFIX)) == 0; }

dfn_store *dfn_cache_load(const char *dir, const dfn_image_ident *id, int threads, char *note, size_t cap)
{
    note[0] = 0;
    char *path = entry_path(dir, dfn_image_key(id));
    struct stat st;
    dfn_store *s = NULL;
    if (stat(path, &st) == 0) {
        char why[256];
        bool bad;
        s = dfn_image_map(path, id, threads, why, sizeof why, &bad);
        if (s) {
            s->cache_from = DFN_CACHE_WHOLE;
            utimensat(AT_FDCWD, path, NULL, 0);   /* its last use, for eviction */
        } else {
            snprintf(note, cap, "%s: %s; read the traces again", path, why);
            if (bad) unlink(path);   /* not one it could not map now (memory, permissions) */
        }
    }
    free(path);
    return s;
}

/* Makes dir and its missing parents, private to the user: images hold
 * the traces' names and paths. */
static bool make_dirs(const char *dir)
{
    char *p = dfn_xstrdup(dir);
    bool ok = true;
    for (char *q = p + 1; ok && *q; q++) {
        if (*q != '/') continue;
        *q = 0;
        ok = mkdir(p, 0700) == 0 || errno == EEXIST;
        *q = '/';
    }
    ok = ok && (mkdir(p, 0700) == 0 || errno == EEXIST);
    free(p);
    return ok;
}

/* The least an image of s takes: its columns (start, duration, bytes,
 * the ids in their widths, aggregated records' two) and records. */
static uint64_t image_floor(const dfn_store *s)
{
    size_t ids = dfn_ids_width(&s->lane) + dfn_ids_width(&s->kind) + dfn_ids_width(&s->file);
    return (uint64_t)s->n * (12 + ids + (s->cnt.v ? 8 : 0)) + s->args_len;
}

bool dfn_cache_save(const char *dir, const dfn_store *s, const dfn_image_ident *id, uint64_t limit,
                    char *note, size_t cap)
{
    static atomic_uint seq;
    note[0] = 0;
    if (image_floor(s) > limit) {
        snprintf(note, cap, "not saved: the set needs more than the cache's limit of %.1f GiB (DFNAV_CACHE_MAX)",
                 (double)limit / (1 << 30));
        return false;
    }
    uint64_t key = dfn_image_key(id);
    char *final = entry_path(dir, key);
    char *tmp = dfn_xasprintf("%s/" TEMP_PREFIX "%ld-%u-%016" PRIx64, dir, (long)getpid(), atomic_fetch_add(&seq, 1), key);
    int fd = make_dirs(dir) ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
    bool ok = fd >= 0;
    if (ok) {
        ok = dfn_image_write(fd, s, id);
        int e = errno;
        if (close(fd) != 0 && ok) { ok = false; e = errno; }
        errno = e;
    }
    if (ok && rename(tmp, final) != 0) ok = false;
    if (!ok) {
        snprintf(note, cap, "cannot write %s: %s; the next open reads the traces again", dir, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    if (ok) {
        const char *slash = strrchr(final, '/');
        dfn_cache_evict(dir, limit, slash ? slash + 1 : final);
    }
    free(final);
    return ok;
}

struct dfn_cache_saver {
    pthread_t th;
    char *dir;
    const dfn_store *s;
    dfn_image_ident id;
    dfn_fileid *ids;
    char **paths;
    uint64_t limit;
    char note[1024];
    bool started;
};

static void *saver_main(void *arg)
{
    dfn_cache_saver *sv = arg;
    dfn_cache_save(sv->dir, sv->s, &sv->id, sv->limit, sv->note, sizeof sv->note);
    return NULL;
}

dfn_cache_saver *dfn_cache_save_start(const char *dir, const dfn_store *s, const dfn_image_ident *id, uint64_t limit)
{
    dfn_cache_saver *sv = dfn_xcalloc(1, sizeof *sv);
    sv->dir = dfn_xstrdup(dir);
    sv->s = s;
    sv->limit = limit;
    sv->ids = dfn_xmalloc((id->n ? id->n : 1) * sizeof *sv->ids);
    sv->paths = dfn_xcalloc(id->n ? id->n : 1, sizeof *sv->paths);
    for (size_t i = 0; i < id->n; i++) { sv->ids[i] = id->ids[i]; sv->paths[i] = dfn_xstrdup(id->paths[i]); }
    sv->id = (dfn_image_ident){ sv->ids, (const char *const *)sv->paths, id->n, id->opts };
    sv->started = pthread_create(&sv->th, NULL, saver_main, sv) == 0;
    if (!sv->started) saver_main(sv);   /* no thread to spare: now */
    return sv;
}

char *dfn_cache_save_wait(dfn_cache_saver *sv)
{
    if (!sv) return NULL;
    if (sv->started) pthread_join(sv->th, NULL);
    char *note = sv->note[0] ? dfn_xstrdup(sv->note) : NULL;
    for (size_t i = 0; i < sv->id.n; i++) free(sv->paths[i]);
    free(sv->paths);
    free(sv->ids);
    free(sv->dir);
    free(sv);
    return note;
}

const char *dfn_store_saved(dfn_store *s)
{
    if (s->saver) {
        s->save_note = dfn_cache_save_wait(s->saver);
        s->saver = NULL;
    }
    return s->save_note;
}

typedef struct {
    char *name;
    uint64_t bytes;
    struct timespec used;
} dir_item;

static int item_older(const void *a, const void *b)
{
    const dir_item *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The entries of dir (and, when temps, the temporary files instead). */
static size_t dir_items(const char *dir, bool temps, dir_item **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (temps ? !is_temp(e->d_name) : !is_entry(e->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        dfn_grow((void **)out, &cap, n + 1, sizeof **out);
        (*out)[n++] = (dir_item){ dfn_xstrdup(e->d_name), (uint64_t)st.st_size, st.st_mtim };
    }
    closedir(d);
    if (n) qsort(*out, n, sizeof **out, item_older);
    return n;
}

static void items_free(dir_item *it, size_t n)
{
    for (size_t i = 0; i < n; i++) free(it[i].name);
    free(it);
}

static uint64_t remove_item(const char *dir, const dir_item *it)
{
    char *p = dfn_xasprintf("%s/%s", dir, it->name);
    int rc = unlink(p);
    free(p);
    return rc == 0 ? it->bytes : 0;
}

uint64_t dfn_cache_evict(const char *dir, uint64_t limit, const char *keep)
{
    uint64_t freed = 0, total = 0;
    dir_item *it;
    size_t n = dir_items(dir, true, &it);
    time_t now = time(NULL);
    for (size_t i = 0; i < n; i++)
        if (now - it[i].used.tv_sec > 3600) freed += remove_item(dir, &it[i]);
    items_free(it, n);
    n = dir_items(dir, false, &it);
    for (size_t i = 0; i < n; i++) total += it[i].bytes;
    for (size_t i = 0; i < n && total > limit; i++) {
        if (keep && strcmp(it[i].name, keep) == 0) continue;
        uint64_t b = remove_item(dir, &it[i]);
        freed += b;
        total -= b;
    }
    items_free(it, n);
    return freed;
}

size_t dfn_cache_list(const char *dir, dfn_cache_entry **out)
{
    dir_item *it;
    size_t n = dir_items(dir, false, &it);
    *out = dfn_xcalloc(n ? n : 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        dfn_cache_entry *e = &(*out)[n - 1 - i];   /* most recent first */
        char why[256];
        e->path = dfn_xasprintf("%s/%s", dir, it[i].name);
        e->bytes = it[i].bytes;
        e->used = it[i].used.tv_sec;
        e->ok = dfn_image_info_read(e->path, &e->info, why, sizeof why);
        if (!e->ok) e->why = dfn_xstrdup(why);
    }
    items_free(it, n);
    return n;
}

void dfn_cache_entries_free(dfn_cache_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].path);
        free(e[i].why);
        dfn_image_info_free(&e[i].info);
    }
    free(e);
}

bool dfn_cache_clear(const char *dir, size_t *removed, uint64_t *freed, char *err, size_t cap)
{
    *removed = 0;
    *freed = 0;
    for (int temps = 0; temps < 2; temps++) {
        dir_item *it;
        size_t n = dir_items(dir, temps, &it);
        for (size_t i = 0; i < n; i++) {
            char *p = dfn_xasprintf("%s/%s", dir, it[i].name);
            if (unlink(p) != 0 && errno != ENOENT) {
                snprintf(err, cap, "%s: %s", p, strerror(errno));
                free(p);
                items_free(it, n);
                return false;
            }
            free(p);
            (*removed)++;
            *freed += it[i].bytes;
        }
        items_free(it, n);
    }
    return true;
}
