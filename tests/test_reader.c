/* Criterion suite for src/reader.c: block framing, long lines, gzip members,
 * damage handling, standard input and open errors. Every test concatenates
 * the blocks and compares them byte for byte with the expected text. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <criterion/criterion.h>

#include "dfnav/reader.h"
#include "testutil.h"

#define MAXL ((size_t)DFN_READER_MAX_LINE)

/* A reader that spins on damaged input must fail the test, not hang it.
 * Generous: the whole suite takes about 90 s under valgrind. */
TestSuite(reader, .timeout = 300);

/* ---- helpers ---- */

typedef struct {
    unsigned char *p;
    size_t len, cap;
} buf_t;

static void buf_add(buf_t *b, const void *data, size_t len)
{
    if (len == 0)
        return;
    if (b->len + len > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        while (ncap < b->len + len)
            ncap *= 2;
        b->p = realloc(b->p, ncap);
        cr_assert(b->p != NULL);
        b->cap = ncap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}

static void buf_fill(buf_t *b, int c, size_t n)
{
    char chunk[4096];
    memset(chunk, c, sizeof chunk);
    while (n > 0) {
        size_t k = n < sizeof chunk ? n : sizeof chunk;
        buf_add(b, chunk, k);
        n -= k;
    }
}

static void buf_str(buf_t *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Trace-like JSON lines of varying length; every line ends with '\n'. */
static void gen_lines(buf_t *b, size_t nlines, uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 1;
    char line[1024];
    for (size_t i = 0; i < nlines; i++) {
        unsigned pad = (unsigned)(rng_next(&s) % 200);
        char padding[256];
        memset(padding, 'a' + (int)(i % 26), pad);
        padding[pad] = '\0';
        int n = snprintf(line, sizeof line,
                         "{\"id\":%zu,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":%u,\"tid\":%u,"
                         "\"ts\":%" PRIu64 ",\"dur\":%u,\"ph\":\"X\",\"args\":{\"fname\":\"/p/%s\"}}\n",
                         i, (unsigned)(rng_next(&s) % 1000), (unsigned)(rng_next(&s) % 64),
                         rng_next(&s) % 100000000000u, (unsigned)(rng_next(&s) % 5000), padding);
        cr_assert(n > 0 && (size_t)n < sizeof line);
        buf_add(b, line, (size_t)n);
    }
}

typedef struct {
    buf_t text;
    size_t blocks;
    size_t min_block, max_block;
    int rc;           /* what ended the stream: 0 or -1 */
    char err[512];    /* dfn_reader_error() after the end, "" when NULL */
    uint64_t members, long_lines, bytes_in, bytes_out, size;
    dfn_compression comp;
} result_t;

static void result_free(result_t *res)
{
    free(res->text.p);
    memset(res, 0, sizeof *res);
}

/* Reads every block from an open reader, checking the block contract as it
 * goes, then closes it. */
static void drain(dfn_reader *r, result_t *res)
{
    memset(res, 0, sizeof *res);
    res->min_block = SIZE_MAX;
    res->comp = dfn_reader_compression(r);
    res->size = dfn_reader_size(r);
    bool prev_had_nl = true;
    for (;;) {
        dfn_block b;
        memset(&b, 0xa5, sizeof b);
        int rc = dfn_reader_next(r, &b);
        if (rc != 1) {
            cr_assert(rc == 0 || rc == -1, "next returned %d", rc);
            cr_assert_null(b.data, "no data on rc %d", rc);
            cr_assert_eq(b.len, 0);
            res->rc = rc;
            /* Only a clean end may follow a block without '\n'. */
            if (!prev_had_nl)
                cr_assert_eq(rc, 0, "block without '\\n' was not the last");
            break;
        }
        cr_assert(prev_had_nl, "block %zu follows a block without '\\n'", res->blocks);
        cr_assert_not_null(b.data);
        cr_assert_gt(b.len, 0, "empty block %zu", res->blocks);
        cr_assert_eq(b.seq, (uint64_t)res->blocks, "seq %" PRIu64 " for block %zu", b.seq,
                     res->blocks);
        cr_assert_eq(b.data[b.len], '\0', "block %zu not NUL-terminated", res->blocks);
        prev_had_nl = b.data[b.len - 1] == '\n';
        buf_add(&res->text, b.data, b.len);
        if (b.len < res->min_block)
            res->min_block = b.len;
        if (b.len > res->max_block)
            res->max_block = b.len;
        res->blocks++;
        dfn_block_free(&b);
        cr_assert_null(b.data);
    }
    const char *e = dfn_reader_error(r);
    if (res->rc == -1) {
        cr_assert_not_null(e, "-1 without an error message");
        snprintf(res->err, sizeof res->err, "%s", e);
        cr_assert_eq(res->blocks == 0 || res->text.p[res->text.len - 1] == '\n', true,
                     "partial line before damage was returned");
    } else {
        cr_assert_null(e, "error message on a clean end: %s", e);
    }
    /* The end is sticky and harmless. */
    for (int i = 0; i < 3; i++) {
        dfn_block b;
        int rc = dfn_reader_next(r, &b);
        cr_assert_eq(rc, res->rc, "repeat call returned %d, first end was %d", rc, res->rc);
        cr_assert_null(b.data);
    }
    res->members = dfn_reader_members(r);
    res->long_lines = dfn_reader_long_lines(r);
    res->bytes_in = dfn_reader_bytes_in(r);
    res->bytes_out = dfn_reader_bytes_out(r);
    dfn_reader_close(r);
}

static void read_path(const char *path, size_t block_size, result_t *res)
{
    char err[512] = "unset";
    dfn_reader *r = dfn_reader_open(path, block_size, err, sizeof err);
    cr_assert_not_null(r, "open %s: %s", path, err);
    drain(r, res);
}

static void assert_same(const void *got, size_t glen, const void *exp, size_t elen)
{
    const unsigned char *g = got, *e = exp;
    size_t n = glen < elen ? glen : elen;
    size_t i = 0;
    while (i < n && g[i] == e[i])
        i++;
    cr_assert(i == n && glen == elen,
              "output differs at byte %zu (got %zu bytes, expected %zu)", i, glen, elen);
}

static char *write_tmp(char **dirp, const char *name, const void *data, size_t len)
{
    if (*dirp == NULL)
        *dirp = tu_tmpdir();
    return tu_write_file(*dirp, name, data, len);
}

static void cleanup(char *dir, char *path)
{
    if (path != NULL) {
        unlink(path);
        free(path);
    }
    if (dir != NULL) {
        rmdir(dir);
        free(dir);
    }
}

/* Compresses text as several members split at the given offsets. starts
 * receives each member's starting file offset (nmembers + 1 entries, the
 * last being the total size). */
static void gzip_members(buf_t *out, const unsigned char *text, const size_t *cuts,
                         size_t ncuts, size_t textlen, size_t *starts)
{
    size_t from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : textlen;
        cr_assert(to >= from && to <= textlen);
        size_t glen;
        unsigned char *gz = tu_gzip(text + from, to - from, &glen);
        if (starts != NULL)
            starts[i] = out->len;
        buf_add(out, gz, glen);
        free(gz);
        from = to;
    }
    if (starts != NULL)
        starts[ncuts + 1] = out->len;
}

/* Reference decode of a possibly damaged gzip stream with plain zlib:
 * everything inflatable from the prefix, cut back to the last '\n'. */
static size_t ref_complete_lines(const unsigned char *gz, size_t gzlen, buf_t *out)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    cr_assert_eq(inflateInit2(&zs, 15 + 16), Z_OK);
    unsigned char chunk[65536];
    zs.next_in = (Bytef *)(uintptr_t)gz;
    zs.avail_in = (uInt)gzlen;
    for (;;) {
        zs.next_out = chunk;
        zs.avail_out = sizeof chunk;
        int ret = inflate(&zs, Z_NO_FLUSH);
        buf_add(out, chunk, sizeof chunk - zs.avail_out);
        if (ret == Z_STREAM_END) {
            if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
                inflateReset(&zs);
                continue;
            }
            break;
        }
        if (ret != Z_OK)
            break;
        if (zs.avail_in == 0 && zs.avail_out != 0)
            break;
    }
    inflateEnd(&zs);
    size_t keep = out->len;
    while (keep > 0 && out->p[keep - 1] != '\n')
        keep--;
    out->len = keep;
    return keep;
}

static uint64_t err_offset(const char *msg, const char *prefix)
{
    size_t n = strlen(prefix);
    cr_assert(strncmp(msg, prefix, n) == 0, "message '%s' does not start with '%s'", msg, prefix);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(msg + n, &end, 10);
    cr_assert(end != msg + n && errno == 0, "no offset in '%s'", msg);
    return (uint64_t)v;
}

/* ---- plain text ---- */

Test(reader, backend_name)
{
#ifdef HAVE_ISAL
    cr_assert_str_eq(dfn_reader_backend(), "isa-l");
#else
    cr_assert_str_eq(dfn_reader_backend(), "zlib");
#endif
}

Test(reader, plain_with_trailing_newline)
{
    static const char text[] = "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\n";
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw", text, sizeof text - 1);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_NONE);
    cr_assert_eq(res.blocks, 1);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    cr_assert_eq(res.members, 0);
    cr_assert_eq(res.long_lines, 0);
    cr_assert_eq(res.size, sizeof text - 1);
    cr_assert_eq(res.bytes_in, sizeof text - 1);
    cr_assert_eq(res.bytes_out, sizeof text - 1);
    result_free(&res);
    cleanup(dir, path);
}

Test(reader, plain_without_trailing_newline)
{
    static const char text[] = "line one\nline two\nlast line";
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw", text, sizeof text - 1);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.blocks, 1);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    result_free(&res);

    /* With small blocks the unterminated last line still comes last. */
    read_path(path, 4, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    cr_assert_geq(res.blocks, 2);
    result_free(&res);
    cleanup(dir, path);
}

Test(reader, empty_file)
{
    char *dir = NULL, *path = write_tmp(&dir, "empty.pfw", "", 0);
    char err[256];
    dfn_reader *r = dfn_reader_open(path, 0, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    dfn_block b;
    cr_assert_eq(dfn_reader_next(r, &b), 0);
    cr_assert_null(b.data);
    cr_assert_eq(b.len, 0);
    cr_assert_eq(dfn_reader_compression(r), DFN_COMP_NONE);
    cr_assert_eq(dfn_reader_size(r), 0);
    cr_assert_eq(dfn_reader_bytes_out(r), 0);
    cr_assert_null(dfn_reader_error(r));
    cr_assert_eq(dfn_reader_next(r, &b), 0);
    dfn_reader_close(r);
    cleanup(dir, path);
}

Test(reader, only_newlines_and_single_byte)
{
    char *dir = tu_tmpdir();
    char *p1 = tu_write_file(dir, "nl.pfw", "\n\n\n", 3);
    result_t res;
    read_path(p1, 1, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, "\n\n\n", 3);
    cr_assert_eq(res.blocks, 3);
    result_free(&res);
    unlink(p1);
    free(p1);

    /* Half a gzip magic is just text. */
    char *p2 = tu_write_file(dir, "one.pfw.gz", "\x1f", 1);
    read_path(p2, 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_NONE);
    assert_same(res.text.p, res.text.len, "\x1f", 1);
    result_free(&res);
    cleanup(dir, p2);
}

Test(reader, small_blocks_many_blocks)
{
    buf_t text = { 0 };
    gen_lines(&text, 20000, 1);
    size_t maxline = 0, cur = 0;
    for (size_t i = 0; i < text.len; i++) {
        cur++;
        if (text.p[i] == '\n') {
            if (cur > maxline)
                maxline = cur;
            cur = 0;
        }
    }
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw", text.p, text.len);
    const size_t bs = 4096;
    result_t res;
    read_path(path, bs, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_geq(res.blocks, text.len / bs);
    cr_assert_leq(res.max_block, bs, "block of %zu with block_size %zu", res.max_block, bs);
    /* Blocks are as full as whole lines allow (checked via the count:
     * each but the last holds more than bs - maxline bytes). */
    cr_assert_leq(res.blocks, text.len / (bs - maxline) + 1);
    cr_assert_eq(res.bytes_in, text.len);
    cr_assert_eq(res.bytes_out, text.len);
    result_free(&res);

    /* Default block size: DFN_BLOCK_SIZE blocks. */
    read_path(path, 0, &res);
    cr_assert_eq(res.blocks, (text.len + DFN_BLOCK_SIZE - 1) / DFN_BLOCK_SIZE);
    cr_assert_leq(res.max_block, DFN_BLOCK_SIZE);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    result_free(&res);
    free(text.p);
    cleanup(dir, path);
}

/* Every block size from 1 to 64 over short, empty and unterminated lines,
 * plain and gzip (one and many members). */
Test(reader, every_small_block_size)
{
    static const char text[] =
        "a\n\nbb\nccc\n{\"x\":1234567890}\n\n\nddddddddddddddddddddddddddddddddddddddddddd\n"
        "e\nffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\ng";
    const size_t len = sizeof text - 1;
    char *dir = tu_tmpdir();
    char *plain = tu_write_file(dir, "p.pfw", text, len);
    size_t glen;
    unsigned char *gz = tu_gzip(text, len, &glen);
    char *gzp = tu_write_file(dir, "g.pfw.gz", gz, glen);
    buf_t multi = { 0 };
    size_t cuts[] = { 1, 2, 3, 10, 11, 40, 41, 60, 100, 101 };
    gzip_members(&multi, (const unsigned char *)text, cuts, 10, len, NULL);
    char *mp = tu_write_file(dir, "m.pfw.gz", multi.p, multi.len);
    const char *paths[] = { plain, gzp, mp };
    for (size_t bs = 1; bs <= 64; bs++) {
        for (size_t k = 0; k < 3; k++) {
            result_t res;
            read_path(paths[k], bs, &res);
            cr_assert_eq(res.rc, 0, "bs %zu file %zu: %s", bs, k, res.err);
            assert_same(res.text.p, res.text.len, text, len);
            cr_assert_eq(res.members, k == 0 ? 0 : k == 1 ? 1 : 11);
            result_free(&res);
        }
    }
    free(gz);
    free(multi.p);
    unlink(plain);
    unlink(gzp);
    free(plain);
    free(gzp);
    cleanup(dir, mp);
}

/* Reads path through a reader on pool, freeing each block before the
 * next as a parser does; the text, and how many blocks came from the
 * pool (a block of the pool's size goes back to it). */
static void read_pooled(const char *path, size_t bs, dfn_blockpool *pool, buf_t *out, size_t *pooled)
{
    char err[256];
    dfn_reader *r = dfn_reader_open_pooled(path, bs, NULL, pool, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    dfn_block b;
    int rc;
    *pooled = 0;
    while ((rc = dfn_reader_next(r, &b)) == 1) {
        buf_add(out, b.data, b.len);
        cr_assert_eq(b.data[b.len], '\0');
        if (b.pool) {
            cr_assert_eq(b.pool, pool);
            (*pooled)++;
        }
        dfn_block_free(&b);
        cr_assert_null(b.data);
        cr_assert_null(b.pool);
    }
    cr_assert_eq(rc, 0, "%s", dfn_reader_error(r) ? dfn_reader_error(r) : "");
    dfn_reader_close(r);
}

/* Blocks from a pool give the same bytes as without one, plain and gzip,
 * with lines longer than a block among them (their grown buffers leave
 * the pool's size and are freed, never pooled); a reader takes its
 * buffers from the pool; the pool keeps what it may and no more, and
 * drains. */
Test(reader, a_pool_gives_buffers_back_and_the_same_text)
{
    buf_t text = { 0 };
    gen_lines(&text, 20000, 7);
    for (int i = 0; i < 5; i++) {   /* long lines among them */
        buf_fill(&text, 'x', 9000 + (size_t)i * 3000);
        buf_str(&text, "\n");
    }
    gen_lines(&text, 3000, 8);
    char *dir = tu_tmpdir();
    char *plain = tu_write_file(dir, "p.pfw", text.p, text.len);
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *gzp = tu_write_file(dir, "g.pfw.gz", gz, glen);
    const size_t bs = 4096;
    dfn_blockpool *pool = dfn_blockpool_new(bs, 3);
    cr_assert_not_null(pool);
    cr_assert_eq(dfn_blockpool_held(pool), 0);
    const char *paths[] = { plain, gzp, plain };
    for (size_t k = 0; k < 3; k++) {
        buf_t got = { 0 };
        size_t pooled = 0;
        read_pooled(paths[k], bs, pool, &got, &pooled);
        assert_same(got.p, got.len, text.p, text.len);
        cr_assert_gt(pooled, text.len / bs / 2, "file %zu: %zu blocks of the pool's", k, pooled);
        /* the reader's last buffer and the last block came back */
        cr_assert_geq(dfn_blockpool_held(pool), 1, "file %zu", k);
        cr_assert_leq(dfn_blockpool_held(pool), 3, "file %zu", k);
        if (k == 1) {
            dfn_blockpool_drain(pool);   /* still usable after */
            cr_assert_eq(dfn_blockpool_held(pool), 0);
        }
        free(got.p);
    }
    /* a reader's first buffer and each next one come from the pool */
    size_t before = dfn_blockpool_held(pool);
    char err[256];
    dfn_reader *r = dfn_reader_open_pooled(plain, bs, NULL, pool, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    cr_assert_eq(dfn_blockpool_held(pool), before - 1);
    dfn_block held[6];
    for (int i = 0; i < 6; i++) cr_assert_eq(dfn_reader_next(r, &held[i]), 1);
    cr_assert_eq(dfn_blockpool_held(pool), 0);
    /* given back at once: all but what the pool keeps are freed */
    for (int i = 0; i < 6; i++) dfn_block_free(&held[i]);
    cr_assert_eq(dfn_blockpool_held(pool), 3);
    dfn_reader_close(r);
    cr_assert_eq(dfn_blockpool_held(pool), 3);
    dfn_blockpool_free(pool);   /* under ASan: nothing leaks, nothing freed twice */
    free(gz);
    free(text.p);
    unlink(plain);
    free(plain);
    cleanup(dir, gzp);
}

Test(reader, lines_larger_than_block)
{
    buf_t text = { 0 };
    for (int i = 0; i < 200; i++) {
        buf_fill(&text, 'a' + i % 26, 100 + (size_t)(i * 37) % 400);
        buf_str(&text, "\n");
    }
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw", text.p, text.len);
    result_t res;
    read_path(path, 16, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.long_lines, 0);
    cr_assert_geq(res.blocks, 100);
    result_free(&res);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, fifty_megabyte_line_whole)
{
    buf_t text = { 0 };
    buf_str(&text, "first\n");
    buf_fill(&text, 'y', 50u << 20);
    buf_str(&text, "\nlast\n");
    char *dir = NULL, *path = write_tmp(&dir, "big.pfw", text.p, text.len);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.long_lines, 0);
    /* Blocks hold whole lines, so one of them carries the 50 MB line. */
    cr_assert_geq(res.max_block, (50u << 20) + 1);
    result_free(&res);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, line_of_exactly_max_length)
{
    buf_t text = { 0 };
    buf_str(&text, "a\n");
    buf_fill(&text, 'x', MAXL);
    buf_str(&text, "\nb\n");
    char *dir = NULL, *path = write_tmp(&dir, "max.pfw", text.p, text.len);
    result_t res;
    read_path(path, 1 << 20, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.long_lines, 0);
    result_free(&res);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, line_longer_than_max_is_cut)
{
    const size_t longlen = 70u << 20;
    buf_t text = { 0 };
    buf_str(&text, "a\n");
    buf_fill(&text, 'x', longlen);
    buf_str(&text, "\nb\n");
    buf_fill(&text, 'z', MAXL + 1); /* one byte over, at the very end */
    char *dir = NULL, *path = write_tmp(&dir, "long.pfw", text.p, text.len);

    buf_t want = { 0 };
    buf_str(&want, "a\n");
    buf_fill(&want, 'x', MAXL);
    buf_str(&want, "\nb\n");
    buf_fill(&want, 'z', MAXL);
    buf_str(&want, "\n");

    size_t sizes[] = { 0, 1 << 20, MAXL };
    for (size_t i = 0; i < 3; i++) {
        result_t res;
        read_path(path, sizes[i], &res);
        cr_assert_eq(res.rc, 0);
        assert_same(res.text.p, res.text.len, want.p, want.len);
        cr_assert_eq(res.long_lines, 2);
        cr_assert_eq(res.bytes_out, text.len);
        cr_assert_eq(res.bytes_in, text.len);
        /* Memory stays bounded by one maximal line. */
        cr_assert_leq(res.max_block, MAXL + 1);
        result_free(&res);
    }
    free(want.p);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, long_line_in_gzip_is_cut)
{
    buf_t text = { 0 };
    buf_str(&text, "head\n");
    buf_fill(&text, 'q', MAXL + 12345);
    buf_str(&text, "\ntail\n");
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = NULL, *path = write_tmp(&dir, "long.pfw.gz", gz, glen);
    buf_t want = { 0 };
    buf_str(&want, "head\n");
    buf_fill(&want, 'q', MAXL);
    buf_str(&want, "\ntail\n");
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0);
    assert_same(res.text.p, res.text.len, want.p, want.len);
    cr_assert_eq(res.long_lines, 1);
    cr_assert_eq(res.bytes_out, text.len);
    result_free(&res);
    free(gz);
    free(want.p);
    free(text.p);
    cleanup(dir, path);
}

/* ---- gzip ---- */

Test(reader, gzip_single_member)
{
    buf_t text = { 0 };
    gen_lines(&text, 50000, 2); /* several MB: several default blocks */
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw.gz", gz, glen);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0, "%s", res.err);
    cr_assert_eq(res.comp, DFN_COMP_GZIP);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.members, 1);
    cr_assert_geq(res.blocks, 2);
    cr_assert_eq(res.size, glen);
    cr_assert_eq(res.bytes_in, glen);
    cr_assert_eq(res.bytes_out, text.len);
    result_free(&res);
    free(gz);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, gzip_fifty_members_at_line_boundaries)
{
    buf_t text = { 0 }, gz = { 0 };
    size_t cuts[49], nl = 0;
    gen_lines(&text, 10000, 3);
    /* A cut after every 200th line. */
    for (size_t i = 0; i < text.len && nl < 49 * 200; i++)
        if (text.p[i] == '\n' && ++nl % 200 == 0)
            cuts[nl / 200 - 1] = i + 1;
    gzip_members(&gz, text.p, cuts, 49, text.len, NULL);
    char *dir = NULL, *path = write_tmp(&dir, "m.pfw.gz", gz.p, gz.len);
    size_t sizes[] = { 0, 1000, 65536 };
    for (size_t i = 0; i < 3; i++) {
        result_t res;
        read_path(path, sizes[i], &res);
        cr_assert_eq(res.rc, 0, "%s", res.err);
        assert_same(res.text.p, res.text.len, text.p, text.len);
        cr_assert_eq(res.members, 50);
        cr_assert_eq(res.bytes_in, gz.len);
        cr_assert_eq(res.bytes_out, text.len);
        result_free(&res);
    }
    free(text.p);
    free(gz.p);
    cleanup(dir, path);
}

Test(reader, gzip_members_mid_line_and_empty)
{
    buf_t text = { 0 }, gz = { 0 };
    gen_lines(&text, 3000, 4);
    buf_str(&text, "no newline at the end");
    uint64_t s = 99;
    size_t cuts[120];
    for (size_t i = 0; i < 120; i++)
        cuts[i] = (size_t)(rng_next(&s) % (text.len + 1));
    /* Sorted, with duplicates kept: they make empty members. */
    for (size_t i = 1; i < 120; i++)
        for (size_t j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            size_t t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    cuts[10] = cuts[11] = cuts[12]; /* at least two empty members */
    cuts[0] = 0;                    /* and an empty first member */
    gzip_members(&gz, text.p, cuts, 120, text.len, NULL);
    char *dir = NULL, *path = write_tmp(&dir, "m.pfw.gz", gz.p, gz.len);
    size_t sizes[] = { 0, 777 };
    for (size_t i = 0; i < 2; i++) {
        result_t res;
        read_path(path, sizes[i], &res);
        cr_assert_eq(res.rc, 0, "%s", res.err);
        assert_same(res.text.p, res.text.len, text.p, text.len);
        cr_assert_eq(res.members, 121);
        result_free(&res);
    }
    free(text.p);
    free(gz.p);
    cleanup(dir, path);
}

Test(reader, gzip_header_with_name_comment_extra)
{
    static const char text[] = "{\"name\":\"open\"}\n{\"name\":\"close\"}\n";
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    cr_assert_eq(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    unsigned char extra[] = { 'A', 'B', 4, 0, 1, 2, 3, 4 };
    gz_header h;
    memset(&h, 0, sizeof h);
    h.name = (Bytef *)"trace-0.pfw";
    h.comment = (Bytef *)"made by the test";
    h.extra = extra;
    h.extra_len = sizeof extra;
    h.hcrc = 1;
    cr_assert_eq(deflateSetHeader(&zs, &h), Z_OK);
    unsigned char out[4096];
    zs.next_in = (Bytef *)(uintptr_t)text;
    zs.avail_in = sizeof text - 1;
    zs.next_out = out;
    zs.avail_out = sizeof out;
    cr_assert_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    size_t glen = zs.total_out;
    deflateEnd(&zs);
    /* Twice, so the second member's header goes through the reset path. */
    buf_t gz = { 0 };
    buf_add(&gz, out, glen);
    buf_add(&gz, out, glen);
    char *dir = NULL, *path = write_tmp(&dir, "h.pfw.gz", gz.p, gz.len);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, 0, "%s", res.err);
    buf_t want = { 0 };
    buf_str(&want, text);
    buf_str(&want, text);
    assert_same(res.text.p, res.text.len, want.p, want.len);
    cr_assert_eq(res.members, 2);
    result_free(&res);
    free(want.p);
    free(gz.p);
    cleanup(dir, path);
}

Test(reader, gzip_content_beats_name)
{
    static const char text[] = "plain\ntext\n";
    char *dir = tu_tmpdir();
    char *p1 = tu_write_file(dir, "looks.pfw.gz", text, sizeof text - 1);
    result_t res;
    read_path(p1, 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_NONE);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    result_free(&res);

    size_t glen;
    unsigned char *gz = tu_gzip(text, sizeof text - 1, &glen);
    char *p2 = tu_write_file(dir, "looks.pfw", gz, glen);
    read_path(p2, 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_GZIP);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    result_free(&res);
    free(gz);
    unlink(p1);
    free(p1);
    cleanup(dir, p2);
}

/* ---- damage ---- */

Test(reader, gzip_truncated_at_many_points)
{
    buf_t text = { 0 }, gz = { 0 };
    gen_lines(&text, 8000, 5);
    size_t cuts[3], nl = 0;
    for (size_t i = 0; i < text.len && nl < 6000; i++)
        if (text.p[i] == '\n' && ++nl % 2000 == 0)
            cuts[nl / 2000 - 1] = i + 1;
    size_t starts[5];
    gzip_members(&gz, text.p, cuts, 3, text.len, starts);
    char *dir = tu_tmpdir();
    /* Inside headers, deflate data and trailers, and at member edges. */
    size_t points[] = { 2, 3, 5, 10, 11, 100, starts[1] / 2, starts[1] - 8, starts[1] - 4,
                        starts[1] - 1, starts[1] + 1, starts[1] + 2, starts[1] + 9,
                        starts[2] + 300, starts[3] - 3, gz.len / 2, gz.len - 1 };
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
        size_t cut = points[k];
        cr_assert(cut < gz.len);
        char *path = tu_write_file(dir, "cut.pfw.gz", gz.p, cut);
        result_t res;
        read_path(path, 0, &res);
        char want_msg[128];
        snprintf(want_msg, sizeof want_msg, "gzip data truncated at byte %zu", cut);
        cr_assert_eq(res.rc, -1, "cut %zu: rc %d", cut, res.rc);
        cr_assert_str_eq(res.err, want_msg, "cut %zu", cut);
        /* Everything zlib can recover from the prefix, in whole lines. */
        buf_t ref = { 0 };
        ref_complete_lines(gz.p, cut, &ref);
        assert_same(res.text.p, res.text.len, ref.p, ref.len);
        /* And in particular every member that ended before the cut. */
        size_t whole = 0;
        for (size_t m = 0; m < 4; m++)
            if (starts[m + 1] <= cut)
                whole = m < 3 ? cuts[m] : text.len;
        cr_assert_geq(res.text.len, whole, "cut %zu", cut);
        assert_same(res.text.p, res.text.len, text.p, res.text.len);
        free(ref.p);
        result_free(&res);
        unlink(path);
        free(path);
    }
    free(text.p);
    free(gz.p);
    cleanup(dir, NULL);
}

Test(reader, gzip_truncated_with_small_blocks)
{
    buf_t text = { 0 };
    gen_lines(&text, 3000, 6);
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = NULL, *path = write_tmp(&dir, "cut.pfw.gz", gz, glen * 2 / 3);
    buf_t ref = { 0 };
    ref_complete_lines(gz, glen * 2 / 3, &ref);
    cr_assert_gt(ref.len, 0);
    result_t res;
    read_path(path, 512, &res);
    cr_assert_eq(res.rc, -1);
    assert_same(res.text.p, res.text.len, ref.p, ref.len);
    cr_assert_gt(res.blocks, 10);
    result_free(&res);
    free(ref.p);
    free(gz);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, gzip_only_magic)
{
    char *dir = NULL, *path = write_tmp(&dir, "magic.pfw.gz", "\x1f\x8b", 2);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.comp, DFN_COMP_GZIP);
    cr_assert_eq(res.rc, -1);
    cr_assert_eq(res.blocks, 0);
    cr_assert_str_eq(res.err, "gzip data truncated at byte 2");
    result_free(&res);
    cleanup(dir, path);
}

Test(reader, gzip_corrupt_block_type_in_second_member)
{
    buf_t text = { 0 }, gz = { 0 };
    gen_lines(&text, 4000, 7);
    size_t cut = 0, nl = 0;
    for (size_t i = 0; i < text.len; i++)
        if (text.p[i] == '\n' && ++nl == 1500) {
            cut = i + 1;
            break;
        }
    size_t starts[3];
    gzip_members(&gz, text.p, &cut, 1, text.len, starts);
    /* First deflate byte after the 10-byte header: BTYPE 11 is reserved. */
    size_t pos = starts[1] + 10;
    gz.p[pos] |= 0x06;
    char *dir = NULL, *path = write_tmp(&dir, "bad.pfw.gz", gz.p, gz.len);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, -1);
    assert_same(res.text.p, res.text.len, text.p, cut);
    uint64_t off = err_offset(res.err, "corrupt gzip data at byte ");
    cr_assert(off > pos && off <= gz.len, "offset %" PRIu64 " for damage at %zu: %s", off, pos,
              res.err);
    cr_assert(strstr(res.err, ": ") != NULL, "no decoder message: %s", res.err);
    result_free(&res);
    free(text.p);
    free(gz.p);
    cleanup(dir, path);
}

Test(reader, gzip_corrupt_bytes_anywhere_in_deflate_data)
{
    buf_t text = { 0 };
    gen_lines(&text, 6000, 8);
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = tu_tmpdir();
    uint64_t s = 1234;
    for (int k = 0; k < 12; k++) {
        size_t pos = 10 + (size_t)(rng_next(&s) % (glen - 18));
        unsigned char saved = gz[pos];
        gz[pos] ^= (unsigned char)(1u << (k % 8));
        char *path = tu_write_file(dir, "flip.pfw.gz", gz, glen);
        gz[pos] = saved;
        result_t res;
        read_path(path, 0, &res);
        cr_assert_eq(res.rc, -1, "flip at %zu went unnoticed", pos);
        uint64_t off;
        if (strncmp(res.err, "corrupt", 7) == 0)
            off = err_offset(res.err, "corrupt gzip data at byte ");
        else if (strncmp(res.err, "trailing", 8) == 0)
            off = err_offset(res.err, "trailing garbage after gzip member at byte ");
        else
            off = err_offset(res.err, "gzip data truncated at byte ");
        cr_assert(off > pos && off <= glen, "offset %" PRIu64 " for flip at %zu: %s", off, pos,
                  res.err);
        result_free(&res);
        unlink(path);
        free(path);
    }
    free(gz);
    free(text.p);
    cleanup(dir, NULL);
}

Test(reader, gzip_bad_crc)
{
    buf_t text = { 0 };
    gen_lines(&text, 2000, 9);
    buf_str(&text, "partial last line");
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    gz[glen - 8] ^= 0xff; /* first CRC byte */
    char *dir = NULL, *path = write_tmp(&dir, "crc.pfw.gz", gz, glen);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, -1);
    /* The data was fine, so every complete line arrives; the partial one
     * at the damage point does not. */
    assert_same(res.text.p, res.text.len, text.p, text.len - strlen("partial last line"));
    uint64_t off = err_offset(res.err, "corrupt gzip data at byte ");
    cr_assert(off >= glen - 8 && off <= glen, "%s", res.err);
    cr_assert(strstr(res.err, "incorrect data check") != NULL, "%s", res.err);
    result_free(&res);

    /* Wrong ISIZE is damage too. */
    gz[glen - 8] ^= 0xff;
    gz[glen - 1] ^= 0x01;
    char *p2 = tu_write_file(dir, "size.pfw.gz", gz, glen);
    read_path(p2, 0, &res);
    cr_assert_eq(res.rc, -1);
    err_offset(res.err, "corrupt gzip data at byte ");
    result_free(&res);
    unlink(p2);
    free(p2);
    free(gz);
    free(text.p);
    cleanup(dir, path);
}

Test(reader, gzip_trailing_garbage)
{
    static const char text[] = "one\ntwo\nthree";
    size_t glen;
    unsigned char *gz = tu_gzip(text, sizeof text - 1, &glen);
    const char *tails[] = { "garbage\n", "\x1f\x1f", "\0\0\0\0x", "\x8b" };
    size_t tail_lens[] = { 8, 2, 5, 1 };
    char *dir = tu_tmpdir();
    for (size_t k = 0; k < 4; k++) {
        buf_t f = { 0 };
        buf_add(&f, gz, glen);
        buf_add(&f, tails[k], tail_lens[k]);
        char *path = tu_write_file(dir, "g.pfw.gz", f.p, f.len);
        result_t res;
        read_path(path, 0, &res);
        cr_assert_eq(res.rc, -1, "tail %zu", k);
        char want[128];
        snprintf(want, sizeof want, "trailing garbage after gzip member at byte %zu", glen);
        cr_assert_str_eq(res.err, want);
        /* "three" had no newline: it is the partial line at the damage. */
        assert_same(res.text.p, res.text.len, "one\ntwo\n", 8);
        result_free(&res);
        free(f.p);
        unlink(path);
        free(path);
    }
    free(gz);
    cleanup(dir, NULL);
}

Test(reader, gzip_bad_second_header)
{
    static const char text[] = "one\ntwo\n";
    size_t glen;
    unsigned char *gz = tu_gzip(text, sizeof text - 1, &glen);
    char *dir = tu_tmpdir();

    /* Magic, then a compression method that is not deflate. */
    buf_t f = { 0 };
    buf_add(&f, gz, glen);
    buf_add(&f, "\x1f\x8b\x07\x00\x00\x00\x00\x00\x00\x03junk", 14);
    char *path = tu_write_file(dir, "h.pfw.gz", f.p, f.len);
    result_t res;
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, -1);
    uint64_t off = err_offset(res.err, "corrupt gzip data at byte ");
    cr_assert(off > glen && off <= f.len, "%s", res.err);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    cr_assert_eq(res.members, 2);
    result_free(&res);
    unlink(path);
    free(path);

    /* A lone first magic byte at the end is a member cut short. */
    f.len = glen;
    buf_add(&f, "\x1f", 1);
    path = tu_write_file(dir, "h.pfw.gz", f.p, f.len);
    read_path(path, 0, &res);
    cr_assert_eq(res.rc, -1);
    char want[128];
    snprintf(want, sizeof want, "gzip data truncated at byte %zu", glen + 1);
    cr_assert_str_eq(res.err, want);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    result_free(&res);
    free(f.p);
    free(gz);
    cleanup(dir, path);
}

Test(reader, gzip_zero_padding_is_fine)
{
    buf_t text = { 0 };
    gen_lines(&text, 500, 10);
    buf_str(&text, "tail without newline");
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = tu_tmpdir();
    size_t pads[] = { 1, 1000, 3u << 20 };
    for (size_t k = 0; k < 3; k++) {
        buf_t f = { 0 };
        buf_add(&f, gz, glen);
        buf_fill(&f, 0, pads[k]);
        char *path = tu_write_file(dir, "z.pfw.gz", f.p, f.len);
        result_t res;
        read_path(path, 0, &res);
        cr_assert_eq(res.rc, 0, "pad %zu: %s", pads[k], res.err);
        assert_same(res.text.p, res.text.len, text.p, text.len);
        cr_assert_eq(res.members, 1);
        cr_assert_eq(res.bytes_in, f.len);
        result_free(&res);

        /* Padding followed by anything else is garbage after the member. */
        buf_str(&f, "x");
        free(path);
        path = tu_write_file(dir, "z.pfw.gz", f.p, f.len);
        read_path(path, 0, &res);
        cr_assert_eq(res.rc, -1);
        char want[128];
        snprintf(want, sizeof want, "trailing garbage after gzip member at byte %zu", glen);
        cr_assert_str_eq(res.err, want);
        result_free(&res);
        free(f.p);
        unlink(path);
        free(path);
    }
    free(gz);
    free(text.p);
    cleanup(dir, NULL);
}

/* ---- standard input ---- */

/* Feeds data to fd 0 through a pipe from a child, so reads come in pieces
 * and the size is unknown. Returns the writer's pid. */
static pid_t stdin_from_pipe(const void *data, size_t len)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        const unsigned char *p = data;
        while (len > 0) {
            /* Odd slices so the magic and lines straddle reads. */
            size_t k = len < 4093 ? len : 4093;
            ssize_t n = write(fds[1], p, k);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);
            p += n;
            len -= (size_t)n;
        }
        _exit(0);
    }
    close(fds[1]);
    cr_assert_eq(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    close(fds[0]);
    return pid;
}

/* Closing our end first means a reader that stopped early makes the writer
 * die of SIGPIPE (a test failure) instead of blocking forever. */
static void reap(pid_t pid)
{
    close(STDIN_FILENO);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

Test(reader, stdin_pipe_plain)
{
    buf_t text = { 0 };
    gen_lines(&text, 5000, 11);
    pid_t pid = stdin_from_pipe(text.p, text.len);
    result_t res;
    read_path("-", 10000, &res);
    reap(pid);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_NONE);
    cr_assert_eq(res.size, 0);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.bytes_in, text.len);
    result_free(&res);
    free(text.p);
}

Test(reader, stdin_pipe_gzip_members)
{
    buf_t text = { 0 }, gz = { 0 };
    gen_lines(&text, 5000, 12);
    size_t cuts[] = { 1, text.len / 3, text.len / 2 };
    gzip_members(&gz, text.p, cuts, 3, text.len, NULL);
    pid_t pid = stdin_from_pipe(gz.p, gz.len);
    result_t res;
    read_path("-", 0, &res);
    reap(pid);
    cr_assert_eq(res.rc, 0, "%s", res.err);
    cr_assert_eq(res.comp, DFN_COMP_GZIP);
    cr_assert_eq(res.members, 4);
    assert_same(res.text.p, res.text.len, text.p, text.len);
    cr_assert_eq(res.bytes_in, gz.len);
    result_free(&res);
    free(text.p);
    free(gz.p);
}

/* A pipe whose writer has gone quiet: the reader gives what came, then
 * waits; setting the cancel flag ends the wait with ECANCELED. Without the
 * flag the wait would never end and the suite's timeout would fail it. */
static void *cancel_later(void *arg)
{
    struct timespec t = { .tv_sec = 0, .tv_nsec = 200 * 1000 * 1000 };
    nanosleep(&t, NULL);
    atomic_store((atomic_bool *)arg, true);
    return NULL;
}

Test(reader, cancel_ends_a_wait_on_a_quiet_pipe)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    static const char text[] = "{\"x\":1}\n{\"x\":2}\n";
    cr_assert_eq(write(fds[1], text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    char path[64], err[512] = "unset";
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    atomic_bool cancel = false;
    dfn_reader *r = dfn_reader_open_cancel(path, 0, &cancel, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, cancel_later, &cancel), 0);
    dfn_block b;
    size_t got = 0;
    int rc;
    while ((rc = dfn_reader_next(r, &b)) == 1) {
        cr_assert_eq(memcmp(b.data, text + got, b.len), 0);
        got += b.len;
        dfn_block_free(&b);
    }
    pthread_join(th, NULL);
    cr_assert_eq(rc, -1, "the wait ended with %d, not a failure", rc);
    cr_assert(atomic_load(&cancel));
    cr_assert_not_null(strstr(dfn_reader_error(r), strerror(ECANCELED)), "%s", dfn_reader_error(r));
    cr_assert_eq(got, sizeof text - 1, "the lines before the wait: %zu bytes", got);
    dfn_reader_close(r);
    close(fds[0]);
    close(fds[1]);
}

Test(reader, stdin_from_file)
{
    static const char text[] = "{\"x\":1}\n{\"x\":2}\n";
    size_t glen;
    unsigned char *gz = tu_gzip(text, sizeof text - 1, &glen);
    char *dir = NULL, *path = write_tmp(&dir, "in.pfw.gz", gz, glen);
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    result_t res;
    read_path("-", 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.comp, DFN_COMP_GZIP);
    cr_assert_eq(res.size, glen);
    assert_same(res.text.p, res.text.len, text, sizeof text - 1);
    result_free(&res);
    /* The reader must not have closed standard input. */
    cr_assert_neq(fcntl(STDIN_FILENO, F_GETFD), -1);
    free(gz);
    cleanup(dir, path);
}

Test(reader, stdin_partly_read_file)
{
    static const char text[] = "skipped\nkept 1\nkept 2\n";
    char *dir = NULL, *path = write_tmp(&dir, "in.pfw", text, sizeof text - 1);
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(lseek(fd, 8, SEEK_SET), 8);
    cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    result_t res;
    read_path("-", 0, &res);
    cr_assert_eq(res.rc, 0);
    cr_assert_eq(res.size, sizeof text - 1 - 8);
    cr_assert_eq(res.bytes_in, res.size);
    assert_same(res.text.p, res.text.len, text + 8, sizeof text - 1 - 8);
    result_free(&res);
    cleanup(dir, path);
}

Test(reader, stdin_errors)
{
    char *dir = tu_tmpdir();
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    cr_assert(fd >= 0);
    cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    char err[512];
    cr_assert_null(dfn_reader_open("-", 0, err, sizeof err));
    char want[256];
    snprintf(want, sizeof want, "standard input: %s", strerror(EISDIR));
    cr_assert_str_eq(err, want);

    close(STDIN_FILENO);
    cr_assert_null(dfn_reader_open("-", 0, err, sizeof err));
    snprintf(want, sizeof want, "standard input: %s", strerror(EBADF));
    cr_assert_str_eq(err, want);
    cleanup(dir, NULL);
}

/* ---- open errors and misuse ---- */

Test(reader, open_missing_file)
{
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/does-not-exist.pfw", dir);
    char err[512];
    dfn_reader *r = dfn_reader_open(path, 0, err, sizeof err);
    cr_assert_null(r);
    char want[4200];
    snprintf(want, sizeof want, "%s: %s", path, strerror(ENOENT));
    cr_assert_str_eq(err, want);
    cleanup(dir, NULL);
}

Test(reader, open_directory)
{
    char *dir = tu_tmpdir();
    char err[512];
    dfn_reader *r = dfn_reader_open(dir, 0, err, sizeof err);
    cr_assert_null(r);
    char want[4200];
    snprintf(want, sizeof want, "%s: %s", dir, strerror(EISDIR));
    cr_assert_str_eq(err, want);
    /* A tiny err buffer is truncated, not overrun. */
    char small[4] = "zzz";
    cr_assert_null(dfn_reader_open(dir, 0, small, sizeof small));
    cr_assert_eq(strlen(small), 3);
    cr_assert_null(dfn_reader_open(dir, 0, NULL, 0));
    cleanup(dir, NULL);
}

Test(reader, null_arguments)
{
    dfn_block b;
    cr_assert_eq(dfn_reader_next(NULL, &b), -1);
    cr_assert_null(b.data);
    dfn_block_free(NULL);
    dfn_reader_close(NULL);
    cr_assert_null(dfn_reader_error(NULL));
    char err[64];
    cr_assert_null(dfn_reader_open(NULL, 0, err, sizeof err));
    cr_assert_neq(err[0], '\0');
}

Test(reader, closing_midway)
{
    buf_t text = { 0 };
    gen_lines(&text, 20000, 13);
    size_t glen;
    unsigned char *gz = tu_gzip(text.p, text.len, &glen);
    char *dir = NULL, *path = write_tmp(&dir, "t.pfw.gz", gz, glen);
    char err[256];
    dfn_reader *r = dfn_reader_open(path, 4096, err, sizeof err);
    cr_assert_not_null(r, "%s", err);
    dfn_block b;
    cr_assert_eq(dfn_reader_next(r, &b), 1);
    /* Blocks outlive their reader. */
    dfn_reader_close(r);
    cr_assert_eq(memcmp(b.data, text.p, b.len), 0);
    dfn_block_free(&b);
    free(gz);
    free(text.p);
    cleanup(dir, path);
}
