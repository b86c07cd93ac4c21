/* Input expansion: command-line arguments to a sorted, de-duplicated list
 * of trace files. Sorting makes the load order, and so every tie-break,
 * independent of the directory order the file system happens to return.
 * Files and directories are known by device and inode, so a file reached
 * by two paths (a symlink beside its target, a directory and a file in it)
 * is read once, and a walk through a symlink loop ends. */
#include "dfnav/loader.h"
#include "dfnav/strtab.h"
#include "dfnav/util.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct { char **v; size_t n, cap; } strvec;

static void vec_push(strvec *v, char *s)
{
    dfn_grow((void **)&v->v, &v->cap, v->n + 1, sizeof *v->v);
    v->v[v->n++] = s;
}

static bool is_trace_name(const char *name)
{
    size_t l = strlen(name);
    return (l > 4 && strcmp(name + l - 4, ".pfw") == 0) || (l > 7 && strcmp(name + l - 7, ".pfw.gz") == 0);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *errf(const char *path, const char *msg)
{
    size_t n = strlen(path) + strlen(msg) + 3;
    char *s = dfn_xmalloc(n);
    snprintf(s, n, "%s: %s", path, msg);
    return s;
}

/* True when st's file was seen already; notes it otherwise. */
static bool seen_before(dfn_strtab *seen, const struct stat *st)
{
    uint64_t key[2] = { (uint64_t)st->st_dev, (uint64_t)st->st_ino };
    uint32_t before = dfn_strtab_count(seen);
    dfn_strtab_intern(seen, (const char *)key, sizeof key);
    return dfn_strtab_count(seen) == before;
}

static void walk_dir(const char *dir, int depth, dfn_strtab *dirs, strvec *files, strvec *errs);

/* Whether link p leads to a folder above the named one (top, its real
 * path): up -> .. at the top would walk everything beside the set, and a
 * link to / the whole machine. Links to folders elsewhere (../other-run)
 * are followed. */
static bool link_goes_up(const char *p, const char *top)
{
    if (!top) return false;
    char *real = realpath(p, NULL);
    if (!real) return false;
    size_t n = strlen(real);
    /* strictly above: a link to the named folder itself only loops, which
     * the walk's memory of folders ends */
    bool up = strcmp(top, real) != 0 && (strcmp(real, "/") == 0 || (strncmp(top, real, n) == 0 && top[n] == '/'));
    struct stat st;
    up = up && stat(real, &st) == 0 && S_ISDIR(st.st_mode);
    free(real);
    return up;
}

/* The real path of the folder a walk started from. */
static _Thread_local const char *walk_top;

/* One entry p (named name) of a walk: a trace file is taken (p with it),
 * a directory not walked yet and not hidden is walked, the rest freed. */
static void walk_entry(char *p, const char *name, int depth, dfn_strtab *dirs, strvec *files, strvec *errs)
{
    struct stat st;
    if (stat(p, &st) != 0) {
        if (is_trace_name(name)) vec_push(errs, errf(p, strerror(errno)));
    } else if (S_ISDIR(st.st_mode)) {
        if (name[0] != '.' && !seen_before(dirs, &st)) walk_dir(p, depth + 1, dirs, files, errs);
    } else if (S_ISREG(st.st_mode) && is_trace_name(name)) {
        vec_push(files, p);
        return;
    }
    free(p);
}

/* Depth-first walk of the directories not walked yet (dirs), skipping
 * hidden ones (.dftindex/ and other tools' side files); depth is bounded
 * too, for a tree deeper than any trace set. */
static void walk_dir(const char *dir, int depth, dfn_strtab *dirs, strvec *files, strvec *errs)
{
    if (depth > 64) { vec_push(errs, errf(dir, "directory nesting too deep")); return; }
    DIR *d = opendir(dir);
    if (!d) { vec_push(errs, errf(dir, strerror(errno))); return; }
    strvec names = {0};
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        vec_push(&names, dfn_xstrdup(e->d_name));
    }
    closedir(d);
    if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_str);
    /* entries themselves first, symlinks after: a file reached both ways
     * keeps its own path (run1/ rather than latest -> run1) */
    strvec links = {0}, link_names = {0};
    bool slash = dir[strlen(dir) - 1] == '/';
    for (size_t i = 0; i < names.n; i++) {
        char *p = dfn_xasprintf("%s%s%s", dir, slash ? "" : "/", names.v[i]);
        struct stat lst;
        if (lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode)) { vec_push(&links, p); vec_push(&link_names, names.v[i]); continue; }
        walk_entry(p, names.v[i], depth, dirs, files, errs);
    }
    for (size_t i = 0; i < links.n; i++) {
        if (link_goes_up(links.v[i], walk_top)) {
            vec_push(errs, errf(links.v[i], "a link to a folder that holds this set: not followed"));
            free(links.v[i]);
            continue;
        }
        walk_entry(links.v[i], link_names.v[i], depth, dirs, files, errs);
    }
    for (size_t i = 0; i < names.n; i++) free(names.v[i]);
    free(names.v);
    free(links.v);
    free(link_names.v);
}

static void add_path(const char *arg, dfn_strtab *dirs, strvec *files, strvec *errs)
{
    if (strcmp(arg, "-") == 0) { vec_push(files, dfn_xstrdup("-")); return; }
    struct stat st;
    if (stat(arg, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            size_t before = files->n, errs_before = errs->n;
            /* a directory named again, or inside one named before, adds nothing new */
            if (seen_before(dirs, &st)) return;
            char *top = realpath(arg, NULL);
            walk_top = top;
            walk_dir(arg, 0, dirs, files, errs);
            walk_top = NULL;
            free(top);
            /* an unreadable directory has said why already */
            if (files->n == before && errs->n == errs_before)
                vec_push(errs, errf(arg, "no *.pfw or *.pfw.gz files in this directory"));
        } else {
            vec_push(files, dfn_xstrdup(arg));
        }
        return;
    }
    int saved = errno;
    if (strpbrk(arg, "*?[")) {
        glob_t g;
        int r = glob(arg, 0, NULL, &g);
        if (r == 0) {
            for (size_t i = 0; i < g.gl_pathc; i++) add_path(g.gl_pathv[i], dirs, files, errs);
            globfree(&g);
            return;
        }
        if (r != GLOB_NOMATCH) globfree(&g);
        vec_push(errs, errf(arg, "no file matches this pattern"));
        return;
    }
    vec_push(errs, errf(arg, strerror(saved)));
}

void dfn_inputs_expand(const char *const *args, size_t nargs, dfn_inputs *out)
{
    strvec files = {0}, errs = {0};
    dfn_strtab *dirs = dfn_strtab_new(), *seen = dfn_strtab_new();
    for (size_t i = 0; i < nargs; i++) add_path(args[i], dirs, &files, &errs);
    /* The same file by any path (a directory and a glob inside it, a link
     * and its target) loads once, under the first path that named it; one
     * that cannot be looked at is kept for the loader to report. */
    size_t w = 0;
    for (size_t i = 0; i < files.n; i++) {
        struct stat st;
        bool dup = strcmp(files.v[i], "-") != 0 && stat(files.v[i], &st) == 0 && seen_before(seen, &st);
        if (dup) free(files.v[i]); else files.v[w++] = files.v[i];
    }
    dfn_strtab_free(seen);
    dfn_strtab_free(dirs);
    out->paths = files.v;
    out->n = w;
    out->errors = errs.v;
    out->nerrors = errs.n;
}

void dfn_inputs_drop_paths(dfn_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) free(in->paths[i]);
    free(in->paths);
    in->paths = NULL;
    in->n = 0;
}

void dfn_inputs_free(dfn_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) free(in->paths[i]);
    for (size_t i = 0; i < in->nerrors; i++) free(in->errors[i]);
    free(in->paths);
    free(in->errors);
    memset(in, 0, sizeof *in);
}
