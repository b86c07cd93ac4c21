/* Shared test helpers: scratch directories, files, gzip members and
 * one-byte edits. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <criterion/criterion.h>

static char *tu_strdup_printf(const char *fmt, const char *a, const char *b)
{
    int n = snprintf(NULL, 0, fmt, a, b);
    cr_assert(n >= 0);
    char *s = malloc((size_t)n + 1);
    cr_assert(s != NULL);
    snprintf(s, (size_t)n + 1, fmt, a, b);
    return s;
}

char *tu_tmpdir(void)
{
    const char *base = getenv("DFN_TEST_TMP");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    /* The build's tests/tmp may not exist yet; a failure here shows up in
     * mkdtemp below. */
    (void)mkdir(base, 0777);
    char *tmpl = tu_strdup_printf("%s/%sXXXXXX", base, "dfnav-test-");
    cr_assert(mkdtemp(tmpl) != NULL, "mkdtemp %s: %s", tmpl, strerror(errno));
    return tmpl;
}

char *tu_write_file(const char *dir, const char *name, const void *data, size_t len)
{
    char *path = tu_strdup_printf("%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        cr_assert(n > 0, "write %s: %s", path, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    cr_assert(close(fd) == 0, "close %s: %s", path, strerror(errno));
    return path;
}

unsigned char *tu_gzip(const void *data, size_t len, size_t *outlen)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    cr_assert(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                           Z_DEFAULT_STRATEGY) == Z_OK);
    uLong bound = deflateBound(&zs, (uLong)len) + 64;
    unsigned char *out = malloc(bound);
    cr_assert(out != NULL);
    /* Feed in slices so inputs beyond uInt range still work. */
    const unsigned char *in = data;
    size_t left = len;
    zs.next_out = out;
    zs.avail_out = (uInt)bound;
    int ret;
    do {
        uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
        zs.next_in = (Bytef *)(uintptr_t)in;
        zs.avail_in = chunk;
        in += chunk;
        left -= chunk;
        ret = deflate(&zs, left == 0 ? Z_FINISH : Z_NO_FLUSH);
        cr_assert(ret == Z_OK || ret == Z_STREAM_END, "deflate: %d", ret);
    } while (ret != Z_STREAM_END);
    *outlen = (size_t)zs.total_out;
    deflateEnd(&zs);
    return out;
}

size_t tu_edit_byte(const char *line, size_t len, size_t pos, int kind, char c, char *out, size_t cap)
{
    cr_assert(pos < len && len + 1 <= cap, "edit at %zu of %zu bytes into %zu", pos, len, cap);
    memcpy(out, line, pos);
    switch (kind) {
    case TU_DELETE:
        memcpy(out + pos, line + pos + 1, len - pos - 1);
        return len - 1;
    case TU_REPLACE:
        out[pos] = c;
        memcpy(out + pos + 1, line + pos + 1, len - pos - 1);
        return len;
    default:
        out[pos] = c;
        memcpy(out + pos + 1, line + pos, len - pos);
        return len + 1;
    }
}
