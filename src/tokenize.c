/* The fast tokenizer: one pass over a line of strict JSON, producing the
 * very tokens jsmn would (type, span, size), with a stack of open
 * containers instead of jsmn's backward scans for every ',' and '}'.
 * It accepts only what RFC 8259 calls valid, and says "unsure" for
 * anything else (bad numbers, raw control bytes, deep nesting, trailing
 * text), so that jsmn, the reference, decides those lines: the loader's
 * verdict on any line is the one jsmn gives. */
#define JSMN_HEADER
#include "tokenize.h"

#include <stdbool.h>
#include <stdint.h>

#include <string.h>

#include "swar.h"

#define DEPTH_MAX 32

static inline bool tok_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static inline bool tok_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static inline bool tok_hex(unsigned char c)
{
    return tok_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

#ifdef __GNUC__
#define TOK_INLINE inline __attribute__((always_inline))
#else
#define TOK_INLINE inline
#endif

/* Index of the quote closing a string whose text starts at i, or len
 * when it is not plainly valid (raw control byte, bad escape, no end).
 * Eight bytes at a time to the first quote, backslash or control byte. */
static inline size_t tok_string_end(const unsigned char *s, size_t i, size_t len)
{
    for (;;) {
        i = swar_string_stop(s, i, len);
        if (i >= len || s[i] < 0x20) return len;
        if (s[i] == '"') return i;
        if (i + 1 >= len) return len;
        switch (s[i + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            i += 2;
            break;
        case 'u':
            if (i + 5 >= len || !tok_hex(s[i + 2]) || !tok_hex(s[i + 3]) || !tok_hex(s[i + 4]) ||
                !tok_hex(s[i + 5]))
                return len;
            i += 6;
            break;
        default:
            return len;
        }
    }
}

/* Inline in the tokenizer, which calls it for every number of every line. */
static TOK_INLINE size_t tok_primitive_end(const unsigned char *s, size_t i, size_t len, bool lead_zeros)
{
    if (i >= len) return SIZE_MAX;
    if (s[i] == 't') return len - i >= 4 && memcmp(s + i, "true", 4) == 0 ? i + 4 : SIZE_MAX;
    if (s[i] == 'f') return len - i >= 5 && memcmp(s + i, "false", 5) == 0 ? i + 5 : SIZE_MAX;
    if (s[i] == 'n') return len - i >= 4 && memcmp(s + i, "null", 4) == 0 ? i + 4 : SIZE_MAX;
    if (s[i] == '-') i++;
    if (i >= len || !tok_digit(s[i])) return SIZE_MAX;
    i = s[i] == '0' && !lead_zeros ? i + 1 : swar_digits_end(s, i, len);
    if (i < len && s[i] == '.') {
        i++;
        if (i >= len || !tok_digit(s[i])) return SIZE_MAX;
        i = swar_digits_end(s, i, len);
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= len || !tok_digit(s[i])) return SIZE_MAX;
        i = swar_digits_end(s, i, len);
    }
    return i;
}

size_t dfn_json_primitive_end(const char *line, size_t i, size_t len, bool lead_zeros)
{
    return tok_primitive_end((const unsigned char *)line, i, len, lead_zeros);
}

#define TOK_NEW(type_, start_)                          \
    do {                                                \
        if (n == ntoks) return DFN_TOK_NOMEM;           \
        t = &toks[n++];                                 \
        t->type = (type_);                              \
        t->start = (int)(start_);                       \
        t->end = -1;                                    \
        t->size = 0;                                    \
        t->parent = parent;                             \
    } while (0)
#define TOK_WS() while (i < len && s[i] <= ' ' && tok_ws(s[i])) i++

/* One function with the grammar's states as labels, so that the position
 * and token count stay in registers. */
int dfn_tokenize(const char *line, size_t len, jsmntok_t *toks, size_t ntoks)
{
    const unsigned char *s = (const unsigned char *)line;
    if (len == 0 || len > INT32_MAX || s[0] != '{') return DFN_TOK_UNSURE;
    int open[DEPTH_MAX];      /* token index of each open container */
    int depth = 0;
    int parent = -1;          /* as jsmn links: a key to its object, a value to its key or array */
    size_t i = 0, n = 0, e;
    jsmntok_t *t;
    unsigned char c;

value:
    TOK_WS();
    if (i >= len) return DFN_TOK_UNSURE;
    c = s[i];
    if (c == '"') {
        e = tok_string_end(s, i + 1, len);
        if (e == len) return DFN_TOK_UNSURE;
        TOK_NEW(JSMN_STRING, i + 1);
        t->end = (int)e;
        i = e + 1;
        goto after;
    }
    if (c == '{' || c == '[') {
        if (depth == DEPTH_MAX) return DFN_TOK_UNSURE;
        TOK_NEW(c == '{' ? JSMN_OBJECT : JSMN_ARRAY, i);
        i++;
        TOK_WS();
        if (i >= len) return DFN_TOK_UNSURE;
        if (s[i] == (c == '{' ? '}' : ']')) {
            t->end = (int)++i;
            goto after;
        }
        open[depth++] = (int)(n - 1);
        if (c == '{') goto key;
        t->size++;
        parent = (int)(n - 1);
        goto value;
    }
    e = tok_primitive_end(s, i, len, false);
    /* jsmn ends a primitive only at one of these; anything glued on
     * ("12x", "true\"") is for jsmn to judge */
    if (e >= len || !(tok_ws(s[e]) || s[e] == ',' || s[e] == '}' || s[e] == ']')) return DFN_TOK_UNSURE;
    TOK_NEW(JSMN_PRIMITIVE, i);
    t->end = (int)e;
    i = e;

after:
    TOK_WS();
    if (depth == 0) return i == len ? (int)n : DFN_TOK_UNSURE;
    if (i >= len) return DFN_TOK_UNSURE;
    t = &toks[open[depth - 1]];
    c = s[i++];
    if (c == ',') {
        if (t->type == JSMN_OBJECT) goto key;
        t->size++;
        parent = open[depth - 1];
        goto value;
    }
    if (c != (t->type == JSMN_OBJECT ? '}' : ']')) return DFN_TOK_UNSURE;
    t->end = (int)i;
    depth--;
    goto after;

key:
    /* jsmn counts keys on the object and each value on its key */
    toks[open[depth - 1]].size++;
    parent = open[depth - 1];
    TOK_WS();
    if (i >= len || s[i] != '"') return DFN_TOK_UNSURE;
    e = tok_string_end(s, i + 1, len);
    if (e == len) return DFN_TOK_UNSURE;
    TOK_NEW(JSMN_STRING, i + 1);
    t->end = (int)e;
    t->size = 1;
    parent = (int)(n - 1);
    i = e + 1;
    TOK_WS();
    if (i >= len || s[i] != ':') return DFN_TOK_UNSURE;
    i++;
    goto value;
}
