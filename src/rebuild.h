/* Internal to the loader and the image: what an image keeps beside the
 * store so that a later load of another set can take some of its files
 * from it instead of parsing them again. Such a file comes back as the
 * chunk its parse would have made, in that load's own ids, so the store
 * built from it is the store a parse would build. */
#ifndef DFNAV_REBUILD_H
#define DFNAV_REBUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "load.h"

#define DFN_RB_MANY UINT32_MAX   /* a lane with the events of several files */

/* A store lane, kind or file as the parse named it: its load-time key in
 * the load's strings and hashes, unless several became one (collapsed). */
typedef struct {
    uint32_t src;             /* the file its events came from, or DFN_RB_MANY */
    uint32_t host;            /* a name ref (string id, DFN_REF_HASH | hash, DFN_REF_NONE) */
    int64_t pid, tid;
    bool collapsed;
} dfn_rb_lane;
typedef struct { uint32_t cat, func; uint8_t type; bool collapsed; } dfn_rb_kind;
typedef struct { uint32_t ref; bool collapsed; } dfn_rb_file;

typedef struct dfn_rebuild {
    size_t nsrc;
    uint32_t *era, *version;  /* per file: era hints, the start record's version */
    uint8_t *reusable;        /* per file: in µs, no B/E pairs, no lane shared with another file */
    dfn_rb_lane *lanes; size_t nlanes;    /* per store lane */
    dfn_rb_kind *kinds; size_t nkinds;    /* per store kind */
    dfn_rb_file *files; size_t nfiles;    /* per store file */
    dfn_strtab *hashes;       /* the load's hash texts */
    dfn_meta *meta; uint32_t *meta_src; size_t nmeta;   /* lines counted from the file's start */
    dfn_csample *cs; uint32_t *cs_src; size_t ncs;
    uint32_t *ref_src; size_t nref_src;   /* during the build: each load-time lane's file */
} dfn_rebuild;

void dfn_rebuild_free(dfn_rebuild *r);

/* Chunks of an image's files for a load: want[k] is the load's index of
 * the image's file k (UINT32_MAX: not wanted). out[k] gets file k's chunk,
 * or NULL when it cannot come back exactly (then it is parsed). Strings,
 * lanes, kinds and schemas are interned into ctx; bad-line reasons point
 * into *reasons (a table the caller frees after the build). Returns how
 * many chunks it made. */
size_t dfn_rebuild_chunks(const dfn_store *img, const dfn_rebuild *rb, const uint32_t *want, dfn_loadctx *ctx,
                          dfn_strtab **reasons, dfn_chunk **out);

#endif

/* Capture, in the final build of a load that will be saved: before the
 * merge (which frees the chunks, sorted by file and block) the per-file
 * facts, which file each load-time lane's events came from, and the
 * metadata and samples; */
dfn_rebuild *dfn_rebuild_begin(dfn_chunk *const *chunks, size_t nchunks, size_t nsrc, const dfn_unit *unit,
                               size_t nlane_refs);
/* after it, each store lane, kind and file as the parse named it (from
 * the build's maps of load-time refs to store ids). */
typedef struct {
    const uint32_t *lane, *kind, *strfile, *hashfile;   /* ref -> store id, DFN_NOID unused */
    size_t nlane, nkind, nstr, nhash;                    /* refs in each map */
    size_t lanes, kinds, files;                          /* the store's */
} dfn_rebuild_maps;
void dfn_rebuild_end(dfn_rebuild *r, dfn_loadctx *ctx, const dfn_rebuild_maps *m);

/* Maps the image at path (image.c) with what gives its files back, for a
 * load of other files: its sources keep the image's paths. NULL, and why
 * in err, when it is damaged or keeps nothing to give back. */
dfn_store *dfn_image_map_reuse(const char *path, int threads, dfn_rebuild **rb, char *err, size_t cap);
