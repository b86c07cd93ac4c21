/* dfnav sha256: SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for
 * the serve/--connect handshake, in which both sides prove they hold the
 * token without sending it. */
#ifndef DFNAV_SHA256_H
#define DFNAV_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define DFN_SHA256_LEN 32

typedef struct {
    uint32_t h[8];
    uint64_t bytes;           /* taken so far */
    uint8_t block[64];
    size_t fill;              /* bytes of block in use */
} dfn_sha256_ctx;

void dfn_sha256_init(dfn_sha256_ctx *c);
void dfn_sha256_add(dfn_sha256_ctx *c, const void *data, size_t len);
void dfn_sha256_end(dfn_sha256_ctx *c, uint8_t out[DFN_SHA256_LEN]);
void dfn_sha256(const void *data, size_t len, uint8_t out[DFN_SHA256_LEN]);
/* HMAC-SHA-256 of the concatenation of n parts. */
void dfn_hmac_sha256(const void *key, size_t klen, const void *const *parts, const size_t *lens, size_t n,
                     uint8_t out[DFN_SHA256_LEN]);

#endif
