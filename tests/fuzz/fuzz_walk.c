/* Fuzz target for the directory walk: the input builds a small tree in a
 * fresh directory (folders, trace files, hard links, and symbolic links to
 * folders, files, parents, themselves and nowhere), then dfn_inputs_expand
 * walks it, named once or several times and through its links. The walk
 * must end (a loop would hang, which libFuzzer reports), list each file
 * once whatever path reached it (by device and inode), and never list a
 * file that is not a trace file of the tree. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, nftw */
#endif
#include "dfnav/loader.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NODES 24

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st; (void)flag; (void)f;
    return remove(path);
}

/* The path of node k: node 0 is the root, node k > 0 sits in node
 * parent[k] (a folder, or the root when its parent is not one). */
static void node_path(char paths[][512], const int *parent, const bool *isdir, int k, const char *name)
{
    int p = parent[k];
    const char *dir = p >= 0 && isdir[p] && paths[p][0] ? paths[p] : paths[0];
    int w = snprintf(paths[k], sizeof paths[k], "%s/%s", dir, name);
    if (w < 0 || (size_t)w >= sizeof paths[k]) paths[k][0] = 0;   /* too deep: no node */
}

/* One operation per two input bytes: what to make, and where or to what. */
static void build(const char *root, const uint8_t *data, size_t size, char paths[][512], bool *isdir, int *n)
{
    int parent[MAX_NODES];
    snprintf(paths[0], sizeof paths[0], "%s", root);
    isdir[0] = true;
    parent[0] = -1;
    *n = 1;
    for (size_t i = 0; i + 1 < size && *n < MAX_NODES; i += 2) {
        int k = *n, op = data[i] % 7, arg = data[i + 1] % k;
        char name[32];
        parent[k] = data[i + 1] / 32 % k;
        isdir[k] = false;
        switch (op) {
        case 0:   /* a folder (a hidden one now and then) */
            snprintf(name, sizeof name, "%sd%d", data[i + 1] % 9 == 0 ? "." : "", k);
            node_path(paths, parent, isdir, k, name);
            isdir[k] = mkdir(paths[k], 0700) == 0;
            break;
        case 1: case 2: {   /* a trace file, plain or named .pfw.gz but plain, or not a trace */
            snprintf(name, sizeof name, "t%d%s", k, op == 1 ? ".pfw" : data[i + 1] % 2 ? ".pfw.gz" : ".txt");
            node_path(paths, parent, isdir, k, name);
            int fd = open(paths[k], O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0) close(fd);
            break;
        }
        case 3:   /* a symbolic link to another node, by its path */
            snprintf(name, sizeof name, "l%d%s", k, data[i + 1] % 2 ? ".pfw" : "");
            node_path(paths, parent, isdir, k, name);
            if (symlink(paths[arg], paths[k]) != 0) paths[k][0] = 0;
            break;
        case 4:   /* a relative link: to the parent, itself, or nowhere */
            snprintf(name, sizeof name, "r%d", k);
            node_path(paths, parent, isdir, k, name);
            if (symlink(data[i + 1] % 3 == 0 ? ".." : data[i + 1] % 3 == 1 ? name : "missing", paths[k]) != 0)
                paths[k][0] = 0;
            break;
        case 5:   /* a hard link to a file */
            snprintf(name, sizeof name, "h%d.pfw", k);
            node_path(paths, parent, isdir, k, name);
            if (isdir[arg] || link(paths[arg], paths[k]) != 0) paths[k][0] = 0;
            break;
        default:  /* a link to the root: the walk would go round */
            snprintf(name, sizeof name, "up%d", k);
            node_path(paths, parent, isdir, k, name);
            if (symlink(paths[0], paths[k]) != 0) paths[k][0] = 0;
            break;
        }
        (*n)++;
    }
}

/* The directory the trees are made in: a private one in $TMPDIR (the
 * build tree's tests/tmp under make check, which must not write
 * elsewhere), so that a link up from a tree's root (".." in
 * regress/link-up-to-tmp) walks only this directory and never another
 * test's files, or /tmp when TMPDIR is unset or too long for the paths. */
static char outer[256];

static void outer_remove(void)
{
    if (outer[0]) nftw(outer, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *outer_dir(void)
{
    if (outer[0]) return outer;
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] != '/' || strlen(base) > 160) base = "/tmp";
    snprintf(outer, sizeof outer, "%s/dfnav-walk-XXXXXX", base);
    if (!mkdtemp(outer)) { outer[0] = 0; return NULL; }
    atexit(outer_remove);
    return outer;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = outer_dir();
    if (dir == NULL) return 0;
    char root[256];
    snprintf(root, sizeof root, "%s/tree-XXXXXX", dir);
    if (!mkdtemp(root)) return 0;
    static char paths[MAX_NODES][512];
    bool isdir[MAX_NODES];
    int n;
    build(root, data, size, paths, isdir, &n);
    /* the root, named as the input's last byte says: once, twice, with a
     * node's path too (a file named again, a link to a folder) */
    const char *args[3] = { root, root, paths[size ? data[size - 1] % n : 0] };
    size_t nargs = size ? 1 + data[size - 1] % 3 : 1;
    /* a path the user names is walked wherever it leads: only those that
     * stay in the tree (a link named to its parent would walk /tmp) */
    char *real = realpath(args[2], NULL);
    if (!real || strncmp(real, root, strlen(root)) != 0) args[2] = root;
    free(real);
    dfn_inputs in;
    dfn_inputs_expand(args, nargs, &in);
    struct stat *seen = calloc(in.n ? in.n : 1, sizeof *seen);
    for (size_t i = 0; seen && i < in.n; i++) {
        struct stat st;
        if (strncmp(in.paths[i], root, strlen(root)) != 0 && strcmp(in.paths[i], root) != 0) abort();
        if (stat(in.paths[i], &st) != 0 || !S_ISREG(st.st_mode)) abort();
        for (size_t j = 0; j < i; j++)
            if (seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino) abort();   /* a file twice */
        seen[i] = st;
    }
    free(seen);
    dfn_inputs_free(&in);
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return 0;
}
