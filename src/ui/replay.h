/* The headless replay's pieces that need no app state: parsing a key
 * script, writing the screen as text, and the latency summary. */
#ifndef DFNAV_REPLAY_H
#define DFNAV_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    int key;                  /* a character or a curses KEY_ code */
    char utf8[8];
    size_t ulen;
    int rows, cols;           /* a resize instead of a key */
    char *label;
} replay_key;

/* Keys separated by spaces: a single character is that key, a longer word
 * is typed character by character, and names in angle brackets are keys:
 * <Enter> <Esc> <Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <BS>
 * <Del> <Tab> <Space> <C-c> <Resize:COLSxROWS>. */
bool replay_parse(const char *script, replay_key **keys, size_t *n, char *err, size_t errlen);
void replay_free(replay_key *keys, size_t n);
/* The curses screen as UTF-8 text, trailing spaces cut, after a header line. */
void replay_dump(FILE *out, const char *label, int rows, int cols);
/* "latency: N actions, p50 X ms, p95 Y ms, max Z ms" (each key's own
 * "latency KEY: X ms" line comes before it) */
void replay_latency(FILE *out, const double *ms, size_t n);

#endif
