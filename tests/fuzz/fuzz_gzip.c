/* Fuzz target for the reader: the input is a whole trace file (gzip or
 * plain, detected from its content as for any file) read to the end
 * through dfn_reader_open/next, with a block size taken from the input's
 * length so that lines cross block boundaries in every way. Checks the
 * reader's contract, not only its memory safety: blocks hold whole lines;
 * a plain file comes out byte for byte; a gzip file that reads to a clean
 * end inflates to what zlib makes of it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "dfnav/reader.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every gzip member of data inflated back to back, as gzip -dc would, or
 * NULL when zlib finds damage (*damaged) or the output passes 64 MiB. */
static unsigned char *fuzz_zlib_all(const uint8_t *data, size_t size, size_t *outlen, bool *damaged)
{
    *damaged = false;
    size_t cap = 4096, len = 0;
    unsigned char *out = malloc(cap);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (out == NULL || inflateInit2(&zs, 15 + 16) != Z_OK) { free(out); return NULL; }
    zs.next_in = (Bytef *)data;
    zs.avail_in = (uInt)size;
    bool ok = true;
    for (;;) {
        if (len == cap) {
            unsigned char *grown = cap < ((size_t)64 << 20) ? realloc(out, cap * 2) : NULL;
            if (grown == NULL) { ok = false; break; }
            out = grown;
            cap *= 2;
        }
        zs.next_out = out + len;
        zs.avail_out = (uInt)(cap - len);
        int rc = inflate(&zs, Z_NO_FLUSH);
        len = cap - zs.avail_out;
        if (rc == Z_STREAM_END) {
            /* the rest is another member, zero padding, or garbage */
            size_t k = 0;
            while (k < zs.avail_in && zs.next_in[k] == 0) k++;
            if (k == zs.avail_in) break;
            if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b) { ok = false; *damaged = true; break; }
            inflateReset(&zs);
            continue;
        }
        if (rc == Z_OK) continue;
        if (rc == Z_BUF_ERROR && zs.avail_out == 0) continue;
        ok = false;
        *damaged = true;
        break;
    }
    inflateEnd(&zs);
    if (!ok) { free(out); return NULL; }
    *outlen = len;
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (size && write(fd, data, size) != (ssize_t)size) { close(fd); return 0; }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    size_t block = 16 + (size % 61) * 7;
    char err[512];
    dfn_reader *r = dfn_reader_open(path, block, err, sizeof err);
    if (r == NULL) { close(fd); return 0; }

    size_t cap = size + 1, len = 0;
    char *out = malloc(cap);
    dfn_block b;
    int rc;
    bool last_had_nl = true;
    while ((rc = dfn_reader_next(r, &b)) == 1) {
        if (b.len == 0 || !last_had_nl) abort();        /* only the last block may lack '\n' */
        last_had_nl = b.data[b.len - 1] == '\n';
        if (len + b.len > cap) {
            while (len + b.len > cap) cap *= 2;
            out = realloc(out, cap);
            if (out == NULL) abort();
        }
        memcpy(out + len, b.data, b.len);
        len += b.len;
        dfn_block_free(&b);
    }
    if (rc < 0 && dfn_reader_error(r) == NULL) abort(); /* damage always says what */
    if (dfn_reader_compression(r) == DFN_COMP_NONE) {
        if (rc != 0 || len != size || (size && memcmp(out, data, size) != 0)) abort();
    } else if (rc == 0) {
        /* a clean end means every member and its CRC checked out */
        size_t zlen = 0;
        bool damaged;
        unsigned char *z = fuzz_zlib_all(data, size, &zlen, &damaged);
        if (damaged) abort();
        if (z != NULL && (zlen != len || (len && memcmp(z, out, len) != 0))) abort();
        free(z);
    }
    free(out);
    dfn_reader_close(r);
    close(fd);
    return 0;
}
