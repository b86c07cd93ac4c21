/* gzip output streams (see dfnav/gzwrite.h): a glibc cookie stream over
 * ISA-L's or zlib's deflate, so writers print JSON with stdio as they would
 * to a plain file. */
#include "dfnav/gzwrite.h"
#include "dfnav/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define GZW_OUT (256 * 1024)

typedef struct {
    FILE *raw;
    bool failed;
#ifdef HAVE_ISAL
    struct isal_zstream zs;
    uint8_t *level_buf;
#else
    z_stream zs;
#endif
    uint8_t out[GZW_OUT];
} gzw;

const char *dfn_gzwrite_backend(void)
{
#ifdef HAVE_ISAL
    return "ISA-L";
#else
    return "zlib";
#endif
}

static bool gzw_put(gzw *g, size_t n)
{
    if (n && fwrite(g->out, 1, n, g->raw) != n) g->failed = true;
    return !g->failed;
}

/* Compresses len bytes (finish: and ends the member). */
static bool gzw_deflate(gzw *g, const char *buf, size_t len, bool finish)
{
#ifdef HAVE_ISAL
    g->zs.next_in = (uint8_t *)buf;
    g->zs.avail_in = (uint32_t)len;
    g->zs.end_of_stream = finish;
    g->zs.flush = NO_FLUSH;
    do {
        g->zs.next_out = g->out;
        g->zs.avail_out = GZW_OUT;
        if (isal_deflate(&g->zs) != COMP_OK) { errno = EIO; g->failed = true; return false; }
        if (!gzw_put(g, GZW_OUT - g->zs.avail_out)) return false;
    } while (g->zs.avail_in || (finish && g->zs.internal_state.state != ZSTATE_END));
#else
    g->zs.next_in = (Bytef *)buf;
    g->zs.avail_in = (uInt)len;
    int rc;
    do {
        g->zs.next_out = g->out;
        g->zs.avail_out = GZW_OUT;
        rc = deflate(&g->zs, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) { errno = EIO; g->failed = true; return false; }
        if (!gzw_put(g, GZW_OUT - g->zs.avail_out)) return false;
    } while (g->zs.avail_in || (finish && rc != Z_STREAM_END));
#endif
    return true;
}

static ssize_t gzw_write(void *cookie, const char *buf, size_t len)
{
    gzw *g = cookie;
    /* the compressors count input in 32 bits */
    for (size_t done = 0; done < len;) {
        size_t n = len - done > (1u << 30) ? (1u << 30) : len - done;
        if (g->failed || !gzw_deflate(g, buf + done, n, false)) return -1;
        done += n;
    }
    return (ssize_t)len;
}

static void gzw_free(gzw *g)
{
#ifdef HAVE_ISAL
    free(g->level_buf);
#else
    deflateEnd(&g->zs);
#endif
    free(g);
}

static int gzw_close(void *cookie)
{
    gzw *g = cookie;
    bool ok = !g->failed && gzw_deflate(g, NULL, 0, true) && fflush(g->raw) == 0;
    gzw_free(g);
    if (!ok && !errno) errno = EIO;
    return ok ? 0 : -1;
}

FILE *dfn_gzwrite_open(FILE *raw)
{
    gzw *g = dfn_xcalloc(1, sizeof *g);
    g->raw = raw;
#ifdef HAVE_ISAL
    isal_deflate_init(&g->zs);
    g->zs.gzip_flag = IGZIP_GZIP;
    g->zs.level = 1;   /* with its level buffer: several times zlib's speed, at a size near zlib's default */
    g->zs.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    g->level_buf = dfn_xmalloc(ISAL_DEF_LVL1_DEFAULT);
    g->zs.level_buf = g->level_buf;
#else
    if (deflateInit2(&g->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        errno = ENOMEM;
        return NULL;
    }
#endif
    cookie_io_functions_t io = { .write = gzw_write, .close = gzw_close };
    FILE *f = fopencookie(g, "w", io);
    if (!f) gzw_free(g);
    return f;
}
