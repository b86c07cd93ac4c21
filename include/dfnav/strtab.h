/* dfnav string table: interns byte strings (names, paths, argument values)
 * to dense 32-bit ids. Strings live in an arena that never moves, so a
 * pointer from dfn_strtab_str() stays valid until the table is freed. */
#ifndef DFNAV_STRTAB_H
#define DFNAV_STRTAB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFN_NOID UINT32_MAX
/* A table's index starts at 1,024 slots and doubles when more than
 * FILL_NUM / FILL_DEN of them would be used (estimate.c counts on it). */
#define DFN_STRTAB_SLOTS0 1024
#define DFN_STRTAB_FILL_NUM 3
#define DFN_STRTAB_FILL_DEN 4

typedef struct dfn_strtab dfn_strtab;

dfn_strtab *dfn_strtab_new(void);
void dfn_strtab_free(dfn_strtab *t);
/* Returns the id of [s, s+len), adding it if new. Not thread-safe: loader
 * threads go through a dfn_strcache. */
uint32_t dfn_strtab_intern(dfn_strtab *t, const char *s, size_t len);
/* The same, and whether it was new: sets of texts (*id may be NULL). */
bool dfn_strtab_add(dfn_strtab *t, const char *s, size_t len, uint32_t *id);
/* Id of the string, or DFN_NOID. */
uint32_t dfn_strtab_find(const dfn_strtab *t, const char *s, size_t len);
/* NUL-terminated text (may itself contain NUL bytes; use the length). */
const char *dfn_strtab_str(const dfn_strtab *t, uint32_t id);
uint32_t dfn_strtab_len(const dfn_strtab *t, uint32_t id);
uint32_t dfn_strtab_count(const dfn_strtab *t);
/* A copy with the same ids. */
dfn_strtab *dfn_strtab_copy(const dfn_strtab *t);

/* A per-thread cache in front of a shared table guarded by a mutex: a hit
 * costs no lock, so parser threads rarely contend. */
typedef struct dfn_strcache dfn_strcache;
dfn_strcache *dfn_strcache_new(dfn_strtab *t, pthread_mutex_t *lock);
void dfn_strcache_free(dfn_strcache *c);
uint32_t dfn_strcache_intern(dfn_strcache *c, const char *s, size_t len);

#endif
