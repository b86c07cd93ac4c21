/* dfnav store image: a finished event store as one binary file of
 * checksummed sections, written after a load and mapped (mmap) instead of
 * parsing when the same files open again. The columns are used in place;
 * the small tables are copied out. Every byte of an image is untrusted:
 * mapping checks each section's checksum and every id and offset the
 * store's readers follow, and refuses the image, never crashes. */
#ifndef DFNAV_IMAGE_H
#define DFNAV_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/store.h"

/* Raised whenever the layout or the meaning of a section changes: an
 * image of another version is rebuilt, never read. */
#define DFN_IMAGE_VERSION 8

/* What a trace file was when it was read: an image is valid for exactly
 * these bytes (same device, inode, size and modification time). */
typedef struct {
    uint64_t dev, ino, size, mtime_ns;
} dfn_fileid;

/* The identity of a regular file (false, and why in err, otherwise). */
bool dfn_fileid_of(const char *path, dfn_fileid *out, char *err, size_t cap);
bool dfn_fileid_eq(const dfn_fileid *a, const dfn_fileid *b);

/* What an image was built from: its files in load order and the load
 * options that shape the store. */
typedef struct {
    const dfn_fileid *ids;
    const char *const *paths;
    size_t n;
    uint64_t opts;            /* dfn_image_opts() of the load */
} dfn_image_ident;

/* The load options an image depends on, as one number. */
uint64_t dfn_image_opts(size_t block_size, unsigned time_unit);
/* The key naming an image of these files and options. */
uint64_t dfn_image_key(const dfn_image_ident *id);

/* Writes the image of s to fd (at its start); false with errno set on a
 * write error. */
bool dfn_image_write(int fd, const dfn_store *s, const dfn_image_ident *id);

/* What an image's header says, without reading the rest. */
typedef struct {
    uint32_t version;
    uint64_t key, total_len, events, opts;
    size_t nfiles;
    dfn_fileid *ids;          /* nfiles, malloc'd */
    char **paths;             /* nfiles, malloc'd: the paths it was built from */
} dfn_image_info;

/* Reads the header and file list of the image at path; false and why in
 * err when it is not a whole image of this version. */
bool dfn_image_info_read(const char *path, dfn_image_info *out, char *err, size_t cap);
void dfn_image_info_free(dfn_image_info *info);

/* Maps the image at path as a store whose sources get the given paths.
 * The image must have been built from exactly the files and options of
 * id. NULL, and why in err, when the image is damaged, of another version
 * or of other files (*bad set: it should go), or cannot be read or mapped
 * now (*bad clear: a full address space, permissions); the store frees its
 * mapping with dfn_store_free(). */
dfn_store *dfn_image_map(const char *path, const dfn_image_ident *id, int threads, char *err, size_t cap, bool *bad);

/* A store's sources (each file's path and every figure of its dfn_srcinfo)
 * as bytes: what a share of a set says of its files to another process
 * of the set (an MPI rank to rank 0). Never NULL; malloc'd. */
uint8_t *dfn_image_sources_encode(const dfn_store *s, size_t *len);
/* A store of sources alone, no events: the set's files paths[0..n) in
 * their load order, each source taken from whichever of nparts parts
 * (dfn_image_sources_encode's bytes, untrusted; a NULL part gives none)
 * names its path. A file no part gave keeps an error saying so; *lost
 * counts the parts that were not whole or named a file not in paths. */
dfn_store *dfn_image_sources_store(const char *const *paths, size_t n, const uint8_t *const *parts, const size_t *lens,
                                   size_t nparts, size_t *lost);

#endif
