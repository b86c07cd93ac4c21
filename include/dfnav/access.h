/* dfnav access patterns: for every read and write call, whether it was
 * sequential (its offset continues the previous transfer on the same
 * descriptor) or random. A descriptor lane is (process, fd), or (process,
 * file) for calls without an fd (STDIO streams); offsets come from the
 * call's offset argument or, for read/write/fread/fwrite, from a file
 * position kept through open, lseek and the transfers themselves. Built
 * once per store, read-only afterwards. */
#ifndef DFNAV_ACCESS_H
#define DFNAV_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "dfnav/store.h"

typedef struct dfn_access dfn_access;

typedef enum { DFN_ACCESS_NONE, DFN_ACCESS_SEQ, DFN_ACCESS_RANDOM } dfn_access_kind;

dfn_access *dfn_access_build(const dfn_store *s);
/* Bit sets over events: judged calls, and of those the sequential ones. */
void dfn_access_bits(const dfn_access *a, const uint64_t **judged, const uint64_t **seq);
dfn_access_kind dfn_access_of(const dfn_access *a, size_t i);
void dfn_access_free(dfn_access *a);

#endif
