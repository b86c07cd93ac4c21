/* Looking one value up by a dotted path ("cfg.time_metric") in a small JSON
 * text: the nested objects a record's arguments may hold (the 2.x end
 * record's cfg and app, entity relations), read when asked for. */
#ifndef DFNAV_JSONGET_H
#define DFNAV_JSONGET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *s;            /* the value's text within the JSON given, between the quotes of a string */
    size_t len;
    bool quoted;              /* a string (its text still JSON-escaped) */
    bool container;           /* an object or an array */
} dfn_jsonval;

/* Finds path (components separated by '.', each a key of an object) in
 * the JSON value json. False when the text is not valid JSON, a component
 * is missing or the path goes through something not an object. Texts
 * longer than DFN_JSONGET_MAX are not looked into. */
#define DFN_JSONGET_MAX (1u << 20)
bool dfn_json_get(const char *json, size_t len, const char *path, size_t plen, dfn_jsonval *out);
/* Whether text is exactly one valid JSON value (RFC 8259, nesting at most
 * 256 deep): raw argument text from a trace passes through to JSON that
 * others read only when it is. */
bool dfn_json_valid(const char *s, size_t len);

#endif
