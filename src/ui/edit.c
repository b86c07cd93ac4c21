/* Line editing for the prompts: insert, move and delete by whole UTF-8
 * characters, so a multibyte name is never cut in two. */
#include "app.h"
#include "dfnav/util.h"

#include <string.h>

void edit_set(line_edit *e, const char *s)
{
    size_t n = strlen(s);
    dfn_grow((void **)&e->buf, &e->cap, n + 1, 1);
    memcpy(e->buf, s, n + 1);
    e->len = e->cur = n;
}

void edit_insert(line_edit *e, const char *s, size_t n)
{
    dfn_grow((void **)&e->buf, &e->cap, e->len + n + 1, 1);
    memmove(e->buf + e->cur + n, e->buf + e->cur, e->len - e->cur + 1);
    memcpy(e->buf + e->cur, s, n);
    e->len += n;
    e->cur += n;
}

/* Cursor moves and deletes go by whole UTF-8 characters. */
size_t edit_prev(const line_edit *e, size_t at)
{
    if (!at) return 0;
    at--;
    while (at && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at--;
    return at;
}

size_t edit_next(const line_edit *e, size_t at)
{
    if (at >= e->len) return e->len;
    at++;
    while (at < e->len && ((unsigned char)e->buf[at] & 0xc0) == 0x80) at++;
    return at;
}

void edit_delete(line_edit *e, size_t from, size_t to)
{
    memmove(e->buf + from, e->buf + to, e->len - to + 1);
    e->len -= to - from;
    e->cur = from;
}

