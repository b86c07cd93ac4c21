/* The fast JSON tokenizer in front of jsmn (see tokenize.c), and jsmn's
 * configuration: every file that sees jsmntok_t must see the same one.
 * Define JSMN_STATIC (jsmn's code, in each file that calls it) or
 * JSMN_HEADER (its types only) before including this. */
#ifndef DFNAV_TOKENIZE_H
#define DFNAV_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>

#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#define DFN_TOK_NOMEM (-1)    /* more tokens than toks holds: grow, retry */
#define DFN_TOK_UNSURE (-100) /* not plainly valid JSON: ask jsmn */

/* Tokenizes one line holding one JSON object, exactly as jsmn does, into
 * toks; returns the token count, DFN_TOK_NOMEM or DFN_TOK_UNSURE. */
int dfn_tokenize(const char *line, size_t len, jsmntok_t *toks, size_t ntoks);

/* The end of the JSON number or true, false, null at line[i], or SIZE_MAX
 * when none starts there; lead_zeros tolerates "007", as some writers pad. */
size_t dfn_json_primitive_end(const char *line, size_t i, size_t len, bool lead_zeros);

#endif
