/* dfnav filter expressions: a list of terms that must all hold, each
 * KEY OP VALUE, e.g.  cat=POSIX file~lustre dur>1ms 'func=open|open64'.
 * Parsing is independent of a store; compiling binds a filter to a store
 * (and its layers) for fast per-event evaluation. */
#ifndef DFNAV_FILTER_H
#define DFNAV_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    DFN_KEY_TIME, DFN_KEY_DUR, DFN_KEY_BYTES,
    DFN_KEY_HOST, DFN_KEY_PID, DFN_KEY_TID, DFN_KEY_PROC,
    DFN_KEY_CAT, DFN_KEY_FUNC, DFN_KEY_CLASS, DFN_KEY_OP, DFN_KEY_LAYER,
    DFN_KEY_FILE, DFN_KEY_PATTERN, DFN_KEY_DIR, DFN_KEY_FS, DFN_KEY_SIZEBIN,
    DFN_KEY_ARG, DFN_KEY_TYPE, DFN_KEY_RANK, DFN_KEY_PART,
    DFN_KEY_COUNTER,          /* counter samples only: the series */
    DFN_KEY_PATH,             /* the call path, "outer;inner;call" (needs the call tree) */
    DFN_KEY_COUNT
} dfn_key;

typedef enum { DFN_EQ, DFN_NE, DFN_MATCH, DFN_NMATCH, DFN_LT, DFN_LE, DFN_GT, DFN_GE } dfn_cmp;

typedef struct {
    dfn_key key;
    dfn_cmp op;
    char *arg;                /* NAME of arg.NAME (or own.NAME) */
    /* own.NAME: the call's own argument only; arg.NAME takes a call
     * without it from the innermost enclosing call of its lane with it */
    bool own;
    char **values;            /* alternatives (a|b|c) */
    size_t *value_lens;
    size_t nvalues;
    double num;               /* numeric value (time s, dur µs, bytes) */
    bool has_num;
    size_t pos, len;          /* where the term stands in the text */
} dfn_term;

typedef struct {
    dfn_term *terms;
    size_t n;
} dfn_filter;

/* Parses text into out (which it initializes). On error returns false and
 * writes a message that quotes the text with a caret under the term. */
bool dfn_filter_parse(const char *text, dfn_filter *out, char *err, size_t errlen);
/* Appends the terms of src to dst. */
void dfn_filter_append(dfn_filter *dst, const dfn_filter *src);
/* Appends KEY OP VALUE (value taken literally, no alternatives). */
void dfn_filter_add(dfn_filter *f, dfn_key key, const char *arg, dfn_cmp op, const char *value, size_t vlen);
/* Whether a term of f has key k. */
bool dfn_filter_uses(const dfn_filter *f, dfn_key k);
/* Canonical text of a filter, quoting values as needed; malloc'd. */
char *dfn_filter_text(const dfn_filter *f);
/* Whether a and b have the same terms (what each tests, not where it
 * stood in a text). */
bool dfn_filter_same(const dfn_filter *a, const dfn_filter *b);
void dfn_filter_free(dfn_filter *f);

const char *dfn_key_name(dfn_key k);
/* Key by name ("file", "arg.epoch" -> DFN_KEY_ARG with *arg set;
 * "own.epoch" the same with *own set). */
bool dfn_key_parse(const char *s, size_t len, dfn_key *k, char **arg, bool *own);
const char *dfn_cmp_name(dfn_cmp c);

#endif
