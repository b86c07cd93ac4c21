/* dfnav wire: frames and the HELLO message of the serve/--connect
 * protocol (see wire.h). Decoding trusts nothing it reads: every length
 * is checked against the bytes that are there before it is used. */
#include "dfnav/wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dfnav/sha256.h"
#include "dfnav/util.h"

static const uint8_t hello_magic[6] = { 'D', 'F', 'N', 'A', 'V', 0 };

uint16_t dfn_wire_u16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static uint32_t wire_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int32_t dfn_wire_i32(const uint8_t *p)
{
    uint32_t u = wire_u32(p);
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}

static void buf_add(dfn_wirebuf *b, const void *data, size_t len)
{
    if (!len) return;
    dfn_grow((void **)&b->buf, &b->cap, b->len + len, 1);
    memcpy(b->buf + b->len, data, len);
    b->len += len;
}

static void buf_u16(dfn_wirebuf *b, uint16_t v)
{
    uint8_t p[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    buf_add(b, p, 2);
}

static void buf_u32(dfn_wirebuf *b, uint32_t v)
{
    uint8_t p[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    buf_add(b, p, 4);
}

void dfn_wire_put(dfn_wirebuf *b, uint8_t type, const void *data, size_t len)
{
    if (len > DFN_WIRE_MAX) abort();   /* a caller's bug: dfn_wire_put_split splits */
    buf_u32(b, (uint32_t)len);
    buf_add(b, &type, 1);
    buf_add(b, data, len);
}

void dfn_wire_put_split(dfn_wirebuf *b, uint8_t type, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        size_t n = len < DFN_WIRE_MAX ? len : DFN_WIRE_MAX;
        dfn_wire_put(b, type, p, n);
        p += n;
        len -= n;
    }
}

void dfn_wire_put_u16s(dfn_wirebuf *b, uint8_t type, uint16_t x, uint16_t y)
{
    uint8_t p[4] = { (uint8_t)(x >> 8), (uint8_t)x, (uint8_t)(y >> 8), (uint8_t)y };
    dfn_wire_put(b, type, p, sizeof p);
}

void dfn_wire_put_i32(dfn_wirebuf *b, uint8_t type, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t p[4] = { (uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u };
    dfn_wire_put(b, type, p, sizeof p);
}

bool dfn_wire_send(int fd, const dfn_wirebuf *b)
{
    const uint8_t *p = b->buf;
    size_t n = b->len;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void dfn_wirebuf_take(dfn_wirebuf *b, size_t n)
{
    if (n >= b->len) { b->len = 0; return; }
    memmove(b->buf, b->buf + n, b->len - n);
    b->len -= n;
}

void dfn_wirebuf_free(dfn_wirebuf *b)
{
    free(b->buf);
    *b = (dfn_wirebuf){0};
}

/* The payload size a type must have: fixed ones, or 0 for any. */
static size_t msg_fixed(uint8_t type)
{
    switch (type) {
    case DFN_MSG_WELCOME: return 2 + DFN_PROOF_LEN;
    case DFN_MSG_CHALLENGE: return sizeof hello_magic + 2 + DFN_NONCE_LEN;
    case DFN_MSG_EXIT: case DFN_MSG_SIZE: return 4;
    default: return 0;
    }
}

int dfn_wire_next(const uint8_t *buf, size_t len, dfn_msg *m, size_t *used, char *err, size_t cap)
{
    if (len < DFN_WIRE_HEAD) return 0;
    uint32_t n = wire_u32(buf);
    uint8_t type = buf[4];
    if (type == 0 || type >= DFN_MSG_TYPES_) {
        snprintf(err, cap, "unknown message type %u", type);
        return -1;
    }
    if (n > DFN_WIRE_MAX) {
        snprintf(err, cap, "a message of %" PRIu32 " bytes (at most %zu)", n, DFN_WIRE_MAX);
        return -1;
    }
    size_t fixed = msg_fixed(type);
    if (fixed && n != fixed) {
        snprintf(err, cap, "a message of type %u with %" PRIu32 " bytes, not %zu", type, n, fixed);
        return -1;
    }
    if (len - DFN_WIRE_HEAD < n) return 0;
    m->type = type;
    m->data = buf + DFN_WIRE_HEAD;
    m->len = n;
    *used = DFN_WIRE_HEAD + (size_t)n;
    return 1;
}

/* ---- CHALLENGE and WELCOME ---- */

void dfn_challenge_put(dfn_wirebuf *b, const uint8_t nonce[DFN_NONCE_LEN])
{
    uint8_t p[sizeof hello_magic + 2 + DFN_NONCE_LEN];
    memcpy(p, hello_magic, sizeof hello_magic);
    p[sizeof hello_magic] = DFN_WIRE_VERSION >> 8;
    p[sizeof hello_magic + 1] = DFN_WIRE_VERSION & 0xff;
    memcpy(p + sizeof hello_magic + 2, nonce, DFN_NONCE_LEN);
    dfn_wire_put(b, DFN_MSG_CHALLENGE, p, sizeof p);
}

bool dfn_challenge_decode(const uint8_t *p, size_t len, uint8_t nonce[DFN_NONCE_LEN], char *err, size_t cap)
{
    if (len != sizeof hello_magic + 2 + DFN_NONCE_LEN || memcmp(p, hello_magic, sizeof hello_magic) != 0) {
        snprintf(err, cap, "not a dfnav server");
        return false;
    }
    unsigned v = dfn_wire_u16(p + sizeof hello_magic);
    if (v != DFN_WIRE_VERSION) {
        snprintf(err, cap, "the server speaks protocol version %u, this dfnav %u", v, DFN_WIRE_VERSION);
        return false;
    }
    memcpy(nonce, p + sizeof hello_magic + 2, DFN_NONCE_LEN);
    return true;
}

void dfn_welcome_put(dfn_wirebuf *b, const uint8_t proof[DFN_PROOF_LEN])
{
    uint8_t p[2 + DFN_PROOF_LEN] = { DFN_WIRE_VERSION >> 8, DFN_WIRE_VERSION & 0xff };
    memcpy(p + 2, proof, DFN_PROOF_LEN);
    dfn_wire_put(b, DFN_MSG_WELCOME, p, sizeof p);
}

bool dfn_welcome_decode(const uint8_t *p, size_t len, uint8_t proof[DFN_PROOF_LEN], char *err, size_t cap)
{
    if (len != 2 + DFN_PROOF_LEN || dfn_wire_u16(p) != DFN_WIRE_VERSION) {
        snprintf(err, cap, "a welcome of another protocol version");
        return false;
    }
    memcpy(proof, p + 2, DFN_PROOF_LEN);
    return true;
}

void dfn_hello_proof(const char *token, bool client, const uint8_t server_nonce[DFN_NONCE_LEN], const uint8_t *payload,
                     size_t len, uint8_t out[DFN_PROOF_LEN])
{
    const char *who = client ? "dfnav-client" : "dfnav-server";
    static const uint8_t zero[DFN_PROOF_LEN];
    /* the payload in three parts: before the proof, zeros, after it */
    size_t at = len < DFN_HELLO_PROOF_AT ? len : DFN_HELLO_PROOF_AT;
    size_t mid = len - at < DFN_PROOF_LEN ? len - at : DFN_PROOF_LEN;
    const void *parts[5] = { who, server_nonce, payload, zero, payload + at + mid };
    const size_t lens[5] = { strlen(who), DFN_NONCE_LEN, at, mid, len - at - mid };
    dfn_hmac_sha256(token, strlen(token), parts, lens, 5, out);
}

bool dfn_proof_equal(const uint8_t *a, const uint8_t *b)
{
    unsigned diff = 0;
    for (size_t i = 0; i < DFN_PROOF_LEN; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

/* ---- HELLO: magic, version, flags, rows, cols, nonce, proof, TERM, argv ---- */

enum { HELLO_PTY = 1, HELLO_UTF8 = 2 };

bool dfn_hello_put(dfn_wirebuf *b, const dfn_hello *h)
{
    dfn_wirebuf p = {0};
    buf_add(&p, hello_magic, sizeof hello_magic);
    buf_u16(&p, h->version);
    uint8_t flags = (h->pty ? HELLO_PTY : 0) | (h->utf8 ? HELLO_UTF8 : 0);
    buf_add(&p, &flags, 1);
    buf_u16(&p, h->rows);
    buf_u16(&p, h->cols);
    buf_add(&p, h->nonce, DFN_NONCE_LEN);
    buf_add(&p, h->proof, DFN_PROOF_LEN);
    size_t tl = h->term ? strlen(h->term) : 0;
    buf_u16(&p, (uint16_t)tl);
    buf_add(&p, h->term, tl);
    buf_u16(&p, (uint16_t)h->argc);
    for (size_t i = 0; i < h->argc; i++) {
        size_t al = strlen(h->argv[i]);
        buf_u32(&p, (uint32_t)al);
        buf_add(&p, h->argv[i], al);
    }
    bool fits = p.len <= DFN_WIRE_MAX;
    if (fits) dfn_wire_put(b, DFN_MSG_HELLO, p.buf, p.len);
    dfn_wirebuf_free(&p);
    return fits;
}

/* A reader over a payload: each take fails once past the end. */
typedef struct { const uint8_t *p; size_t left; bool bad; } rd;

static const uint8_t *rd_take(rd *r, size_t n)
{
    if (r->bad || n > r->left) { r->bad = true; return NULL; }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static uint16_t rd_u16(rd *r)
{
    const uint8_t *p = rd_take(r, 2);
    return p ? dfn_wire_u16(p) : 0;
}

/* A string of n bytes with no NUL (they end C strings), malloc'd. */
static char *rd_str(rd *r, size_t n, char *err, size_t cap)
{
    const uint8_t *p = rd_take(r, n);
    if (!p) { snprintf(err, cap, "a string of %zu bytes past the message's end", n); return NULL; }
    if (memchr(p, 0, n)) { snprintf(err, cap, "a string with a NUL byte"); r->bad = true; return NULL; }
    return dfn_xstrndup((const char *)p, n);
}

static bool term_ok(const char *t)
{
    for (; *t; t++)
        if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || strchr("._+-", *t)))
            return false;
    return true;
}

static bool hello_head(rd *r, dfn_hello *h, char *err, size_t cap)
{
    const uint8_t *magic = rd_take(r, sizeof hello_magic);
    if (!magic || memcmp(magic, hello_magic, sizeof hello_magic) != 0) {
        snprintf(err, cap, "not a dfnav client");
        return false;
    }
    h->version = rd_u16(r);
    if (r->bad) { snprintf(err, cap, "a greeting cut short"); return false; }
    if (h->version != DFN_WIRE_VERSION) {
        snprintf(err, cap, "protocol version %u, where this dfnav speaks %u", h->version, DFN_WIRE_VERSION);
        return false;
    }
    const uint8_t *flags = rd_take(r, 1);
    h->rows = rd_u16(r);
    h->cols = rd_u16(r);
    const uint8_t *nonce = rd_take(r, DFN_NONCE_LEN), *proof = rd_take(r, DFN_PROOF_LEN);
    if (!flags || !proof) { snprintf(err, cap, "a greeting cut short"); return false; }
    if (*flags & ~(HELLO_PTY | HELLO_UTF8)) { snprintf(err, cap, "unknown flags %#x", *flags); return false; }
    h->pty = *flags & HELLO_PTY;
    h->utf8 = *flags & HELLO_UTF8;
    memcpy(h->nonce, nonce, DFN_NONCE_LEN);
    memcpy(h->proof, proof, DFN_PROOF_LEN);
    return true;
}

bool dfn_hello_decode(const uint8_t *p, size_t len, dfn_hello *h, char *err, size_t cap)
{
    memset(h, 0, sizeof *h);
    rd r = { p, len, false };
    if (!hello_head(&r, h, err, cap)) return false;
    size_t tl = rd_u16(&r);
    if (tl > DFN_HELLO_MAX_TERM) { snprintf(err, cap, "a TERM of %zu bytes", tl); return false; }
    if (!(h->term = rd_str(&r, tl, err, cap))) return false;
    if (!term_ok(h->term)) { snprintf(err, cap, "a TERM with other than letters, digits and . _ + -"); return false; }
    size_t argc = rd_u16(&r);
    if (r.bad) { snprintf(err, cap, "a greeting cut short"); return false; }
    if (argc > DFN_HELLO_MAX_ARGS) { snprintf(err, cap, "%zu arguments (at most %d)", argc, DFN_HELLO_MAX_ARGS); return false; }
    /* each argument takes at least its 4-byte length: no more than the
     * payload holds are allocated */
    if (argc > r.left / 4) { snprintf(err, cap, "%zu arguments past the message's end", argc); return false; }
    h->argv = dfn_xcalloc(argc + 1, sizeof *h->argv);
    for (size_t i = 0; i < argc; i++) {
        const uint8_t *lp = rd_take(&r, 4);
        if (!lp) { snprintf(err, cap, "an argument past the message's end"); return false; }
        if (!(h->argv[i] = rd_str(&r, wire_u32(lp), err, cap))) return false;
        h->argc = i + 1;
    }
    if (r.left) { snprintf(err, cap, "%zu bytes after the greeting", r.left); return false; }
    return true;
}

void dfn_hello_free(dfn_hello *h)
{
    for (size_t i = 0; i < h->argc; i++) free(h->argv[i]);
    free(h->argv);
    free(h->term);
    h->argv = NULL;
    h->term = NULL;
    h->argc = 0;
}

/* ---- serve --spread's commands to its ranks ---- */

uint8_t *dfn_ranksreq_encode(int word, size_t argc, char *const *argv, size_t *len)
{
    size_t bytes = 0;
    for (size_t i = 0; i < argc; i++) bytes += strlen(argv[i]) + 1;
    if (word < 1 || word > 255 || argc < 1 || argc > DFN_RANKSREQ_MAX_WORDS || bytes > DFN_RANKSREQ_MAX_BYTES)
        return NULL;
    dfn_wirebuf b = {0};
    const uint8_t head[8] = { 'D', 'F', 'N', 'R', DFN_RANKSREQ_VERSION, (uint8_t)word, 0, 0 };
    buf_add(&b, head, sizeof head);
    buf_u32(&b, (uint32_t)argc);
    buf_u32(&b, (uint32_t)bytes);
    for (size_t i = 0; i < argc; i++) buf_add(&b, argv[i], strlen(argv[i]) + 1);
    *len = b.len;
    return b.buf;
}

bool dfn_ranksreq_head(const uint8_t *h, size_t *body, char *err, size_t cap)
{
    uint32_t argc = wire_u32(h + 8), bytes = wire_u32(h + 12);
    const char *why = memcmp(h, "DFNR", 4) != 0                                  ? "no command of dfnav's"
                      : h[4] != DFN_RANKSREQ_VERSION                             ? "a command of another version"
                      : h[5] == 0 || h[6] || h[7]                                ? "a command of no word"
                      : argc < 1 || argc > DFN_RANKSREQ_MAX_WORDS                ? "a command of no words, or too many"
                      : bytes > DFN_RANKSREQ_MAX_BYTES || bytes < argc           ? "a command of too many bytes, or too few"
                                                                                 : NULL;
    if (why) snprintf(err, cap, "%s", why);
    *body = bytes;
    return !why;
}

bool dfn_ranksreq_decode(const uint8_t *p, size_t len, dfn_ranksreq *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    size_t body;
    if (len < DFN_RANKSREQ_HEAD) { snprintf(err, cap, "a command cut short"); return false; }
    if (!dfn_ranksreq_head(p, &body, err, cap)) return false;
    if (len != DFN_RANKSREQ_HEAD + body) {
        snprintf(err, cap, "a command of %zu bytes, not %zu", len, DFN_RANKSREQ_HEAD + body);
        return false;
    }
    size_t argc = wire_u32(p + 8);
    char *words = dfn_xmalloc(body);
    memcpy(words, p + DFN_RANKSREQ_HEAD, body);
    r->argv = dfn_xcalloc(argc + 1, sizeof *r->argv);
    r->argv[0] = words;   /* (the block, freed by dfn_ranksreq_free even when cut) */
    size_t at = 0;
    for (size_t i = 0; i < argc; i++) {
        const char *nul = at < body ? memchr(words + at, 0, body - at) : NULL;
        if (!nul) { snprintf(err, cap, "a command of fewer words than it says"); return false; }
        r->argv[i] = words + at;
        at = (size_t)(nul - words) + 1;
    }
    if (at != body) { snprintf(err, cap, "%zu bytes after a command's words", body - at); return false; }
    r->word = p[5];
    r->argc = argc;
    return true;
}

void dfn_ranksreq_free(dfn_ranksreq *r)
{
    if (r->argv) free(r->argv[0]);
    free(r->argv);
    memset(r, 0, sizeof *r);
}
