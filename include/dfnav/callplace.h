/* dfnav call places: what the explorer's call detail says of one call's
 * place in its thread, from the call tree and access patterns: its self
 * time, whether its access is sequential, the calls that enclose it and
 * the calls it made. As lines of text, made alike wherever the call's
 * store is: here, or on the MPI rank that holds its process (dfnav serve
 * --spread), which finds it by what the explorer knows of it. */
#ifndef DFNAV_CALLPLACE_H
#define DFNAV_CALLPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/access.h"
#include "dfnav/calltree.h"
#include "dfnav/store.h"

/* The calls made that the lines name; more are counted. */
#define DFN_PLACE_KIDS 200

/* The lines (malloc'd, each malloc'd; *n) of call i of s, by tree t and
 * access acc (may be NULL). */
char **dfn_call_place(const dfn_store *s, const dfn_calltree *t, const dfn_access *acc, uint32_t i, size_t *n);
void dfn_call_place_free(char **lines, size_t n);

/* Which call: its thread (host, pid and tid as dfn_id_text writes them),
 * its start (µs since the epoch), length and function, as bytes
 * (malloc'd, *len) of call i of s; and that call found in another store
 * (UINT32_MAX: none of its calls; false with why when the bytes are not
 * such). */
uint8_t *dfn_call_place_key(const dfn_store *s, uint32_t i, size_t *len);
bool dfn_call_place_find(const dfn_store *s, const uint8_t *key, size_t len, uint32_t *found, char *err, size_t errlen);

#endif
