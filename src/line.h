/* One event line as the parser's two readers hand it to the code that
 * makes it an event: the one-pass scanner (linescan.c) for lines of the
 * usual shape, and the token walk (parse.c) for every other line. Both
 * fill the same fields with the same meaning, so an event depends only
 * on the line's content, never on which reader took it. */
#ifndef DFNAV_LINE_H
#define DFNAV_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dfn_keyhint dfn_keyhint;

/* What a record is, from its "ph": Chrome's letters and DFTracer 2.x's
 * numbers (1 complete, 2 counter, 3 aggregated, 4 metadata). */
enum {
    DFN_PH_NONE,     /* no ph: an event when it has ts (the oldest writers) */
    DFN_PH_X,        /* complete event: "X", 1 */
    DFN_PH_AGG,      /* aggregated calls: 3 */
    DFN_PH_C,        /* counter sample: "C", 2 */
    DFN_PH_M,        /* metadata: "M", 4 */
    DFN_PH_B, DFN_PH_E,   /* begin and end of a call on one thread */
    DFN_PH_I,        /* instant: "i", "I" */
    DFN_PH_OTHER     /* a kind dfnav does not use: counted by its ph */
};

/* How an argument's value reads. */
enum {
    DFN_LV_INT,      /* a canonical integer, bare or quoted: num holds its int64 bits */
    DFN_LV_UINT,     /* a canonical integer above INT64_MAX: num holds it */
    DFN_LV_STR,      /* any other string */
    DFN_LV_NULL, DFN_LV_TRUE, DFN_LV_FALSE,
    DFN_LV_RAW       /* anything else, kept as its JSON text */
};

/* The DFN_PH_* of a ph value: its text (between the quotes of a string). */
static inline uint8_t dfn_ph_code(const char *s, size_t len, bool quoted)
{
    if (len != 1) return DFN_PH_OTHER;
    if (!quoted) {
        switch (s[0]) {
        case '1': return DFN_PH_X;
        case '2': return DFN_PH_C;
        case '3': return DFN_PH_AGG;
        case '4': return DFN_PH_M;
        }
        return DFN_PH_OTHER;
    }
    switch (s[0]) {
    case 'X': return DFN_PH_X;
    case 'C': return DFN_PH_C;
    case 'M': return DFN_PH_M;
    case 'B': return DFN_PH_B;
    case 'E': return DFN_PH_E;
    case 'i': case 'I': return DFN_PH_I;
    }
    return DFN_PH_OTHER;
}

typedef struct {
    const char *key, *val;    /* raw JSON text, between the quotes of strings */
    uint32_t key_len, val_len;
    uint8_t type;             /* DFN_LV_* */
    bool quoted;              /* the value was a JSON string */
    bool plain;               /* key and value hold no escapes */
    uint64_t num;
    dfn_keyhint *hint;        /* the hint holding the key's bytes, or NULL */
} dfn_larg;

typedef struct {
    const char *end;          /* the line's end: text may be read up to here */
    const char *name, *cat;   /* raw text, NULL when absent */
    uint32_t name_len, cat_len;
    bool name_quoted, cat_quoted, plain;   /* plain: no escapes in name and cat */
    dfn_keyhint *name_hint, *cat_hint;     /* the hints of their fields, or NULL */
    uint64_t ts, dur;
    int64_t pid, tid;
    bool has_ts, bad_num;
    uint8_t frac;             /* of ts and dur, those written with a fraction (read to the nearest unit) */
    bool args_bad_json;       /* an argument's value is not valid JSON */
    uint8_t ph;               /* DFN_PH_* */
    int16_t type;             /* 2.x "type" (instrumentation layer) 0-254, -1 when absent */
    const char *ph_text;      /* DFN_PH_OTHER: the raw ph, for its count by kind */
    uint32_t ph_len;
    unsigned era;             /* DFN_ERA_* seen on the line so far */
    dfn_larg *args;
    size_t nargs;
} dfn_line;

/* The fields of the last line read, position by position: consecutive
 * lines mostly repeat their keys and many of their values (host, file,
 * process, category, name), and comparing a few words with the bytes as
 * they were is cheaper than finding where they end and reading them. */
#define DFN_HINT_KEYS 24
#define DFN_HINT_VALUE 24     /* longest value, with the byte after it, a hint holds */
struct dfn_keyhint {
    uint64_t w[2], m[2];      /* the key's bytes and which of them count */
    uint8_t len;              /* of "key": ; 0 = no hint */
    uint16_t which;           /* a top-level key's field */
    /* What the parser made of an argument key with these bytes, kept for
     * the next line that has them; reset whenever the bytes change. */
    uint8_t role;             /* 0 = not yet known */
    uint32_t id;              /* its string id, UINT32_MAX = not yet known */
    /* The value after the key and the byte that ends it (',' or '}'),
     * and how the scanner read it; reset whenever the key's bytes change. */
    uint64_t vw[3], vm[3];
    uint8_t vlen;             /* value and end byte; 0 = no value held */
    uint8_t vtype, voff;      /* DFN_LV_*; where the text starts (1 for strings) */
    bool vquoted;
    uint32_t vval_len;
    uint64_t vnum;
    /* What the parser made of that value (a string or hash id and the
     * eras it implies); reset whenever the value's bytes change. */
    bool vok;
    uint32_t vid;
    unsigned vera;
};
typedef struct { dfn_keyhint top[DFN_HINT_KEYS], args[DFN_HINT_KEYS]; } dfn_scanhint;

/* Reads the JSON object at the start of the len bytes at line into f,
 * using f->args (room for max), when it has the usual shape (compact,
 * flat values, a flat "args" object, plain integers, bare or quoted, no
 * escapes, no repeated fields, not metadata). Returns its length, up to
 * and with its closing brace; the caller decides whether what follows
 * ends the line. Returns 0, having promised nothing, for any other
 * object: the token walk decides those. What it takes never spans a
 * newline, as no usual line holds one, so it may be given the rest of a
 * block. */
size_t dfn_linescan(const char *line, size_t len, dfn_line *f, size_t max, dfn_scanhint *hint);

#endif
