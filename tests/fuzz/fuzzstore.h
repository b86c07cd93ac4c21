/* A small fixed store for the fuzz targets that run queries (fuzz_filter,
 * fuzz_qspec): trace text loaded through the real loader from a file in
 * memory, once, with its layers; libFuzzer calls a target many times in
 * one process, and the store is only read afterwards. */
#ifndef DFNAV_FUZZSTORE_H
#define DFNAV_FUZZSTORE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "dfnav/layers.h"
#include "dfnav/loader.h"
#include "dfnav/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
    dfn_store *store;
    dfn_layers layers;
    dfn_layerset *ls;
} fuzz_store;

/* text (len bytes, events of them) loaded with the layers of preset into
 * w; aborts when it does not load as written. */
static inline void fuzz_store_load(fuzz_store *w, const char *text, size_t len, size_t events, const char *preset)
{
    int fd = memfd_create("fuzz-store", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, len) != (ssize_t)len) abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *files[] = { path };
    dfn_load_opts lo = { .threads = 1 };
    w->store = dfn_load(files, 1, &lo);
    close(fd);
    char err[512];
    if (w->store == NULL || w->store->n != events || !dfn_layers_load(preset, &w->layers, err, sizeof err)) abort();
    w->ls = dfn_layerset_compile(w->store, &w->layers, 0, err, sizeof err);
    if (w->ls == NULL) abort();
}

#endif
