/* dfnav cache: the directory of store images of trace sets already read,
 * so that opening one again maps its image instead of parsing. Where it
 * lives, its size limit with least-recently-used eviction, finding and
 * saving an entry (a temporary file renamed into place, so concurrent
 * builders leave one whole entry), listing and clearing. A cache that
 * cannot be written only costs speed: the reason comes back as a note. */
#ifndef DFNAV_CACHE_H
#define DFNAV_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/image.h"
#include "dfnav/store.h"

/* Where a store came from (dfn_store.cache_from). */
enum { DFN_CACHE_NONE, DFN_CACHE_WHOLE };

/* The cache directory (malloc'd): given, else $DFNAV_CACHE, else
 * $XDG_CACHE_HOME/dfnav, else $HOME/.cache/dfnav; NULL without any. */
char *dfn_cache_dir(const char *given);

/* The most the directory's entries may take: $DFNAV_CACHE_MAX (bytes,
 * with K, M, G or T), else 20 GiB or a tenth of its file system,
 * whichever is less. */
uint64_t dfn_cache_limit(const char *dir);
/* Reads a size such as "512M" or "20G"; false when it is not one. */
bool dfn_cache_parse_size(const char *text, uint64_t *out);

/* The store of the image of exactly these files, or NULL. An entry that
 * cannot be used (damaged, cut short, of another version) is removed and
 * the reason put in note ("" when there is nothing to say). */
dfn_store *dfn_cache_load(const char *dir, const dfn_image_ident *id, int threads, char *note, size_t cap);

/* Saves the image of s as the entry of these files, then evicts the
 * least recently used entries past the limit. false, with the reason in
 * note, when it could not (a read-only or full directory). */
bool dfn_cache_save(const char *dir, const dfn_store *s, const dfn_image_ident *id, uint64_t limit,
                    char *note, size_t cap);

/* Saving in the background, so that the first queries of a set run
 * while its image is written: a copy of id is kept; the store must live
 * until the save is waited for (dfn_store_free waits itself). */
typedef struct dfn_cache_saver dfn_cache_saver;
dfn_cache_saver *dfn_cache_save_start(const char *dir, const dfn_store *s, const dfn_image_ident *id, uint64_t limit);
/* Waits for the save; returns what it has to say (malloc'd) or NULL. */
char *dfn_cache_save_wait(dfn_cache_saver *sv);
/* Waits for the store's own save (if any) and returns its note, kept in
 * the store, or NULL. */
const char *dfn_store_saved(dfn_store *s);

/* Removes entries, oldest use first, until they take at most limit
 * bytes (keep, a file name, is never removed), and temporary files that
 * a killed dfnav left over an hour ago. Returns the bytes freed. */
uint64_t dfn_cache_evict(const char *dir, uint64_t limit, const char *keep);

typedef struct {
    char *path;
    uint64_t bytes;
    int64_t used;             /* last use, seconds since the epoch */
    bool ok;                  /* a whole image of this version */
    char *why;                /* else why not */
    dfn_image_info info;
} dfn_cache_entry;

/* The entries, most recently used first. */
size_t dfn_cache_list(const char *dir, dfn_cache_entry **out);
void dfn_cache_entries_free(dfn_cache_entry *e, size_t n);
/* Removes every entry and temporary file; false (and why) on the first
 * that cannot be removed. */
bool dfn_cache_clear(const char *dir, size_t *removed, uint64_t *freed, char *err, size_t cap);

#endif
