/* Fuzz target for the serve/--connect decoder (wire.h): the input is the
 * bytes a server (or a client) reads from a connection. Frames are taken while whole
 * ones are there, as the server does; a HELLO is decoded, and one that
 * decodes must encode and decode again to the same greeting. The input is
 * also taken as a command to serve --spread's ranks (dfn_ranksreq), which
 * must travel again to the same bytes. Nothing may read past the input or
 * take a frame larger than the limit. */
#include "dfnav/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hello_again(const dfn_hello *h)
{
    dfn_wirebuf b = {0};
    if (!dfn_hello_put(&b, h)) abort();   /* it came in a frame: it fits one */
    dfn_msg m;
    size_t used;
    char err[256];
    if (dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err) != 1 || used != b.len) abort();
    dfn_hello d;
    if (!dfn_hello_decode(m.data, m.len, &d, err, sizeof err)) abort();
    if (d.argc != h->argc || d.rows != h->rows || d.cols != h->cols || d.pty != h->pty || d.utf8 != h->utf8 ||
        strcmp(d.term, h->term) != 0 || memcmp(d.nonce, h->nonce, DFN_NONCE_LEN) != 0 ||
        memcmp(d.proof, h->proof, DFN_PROOF_LEN) != 0)
        abort();
    for (size_t i = 0; i < d.argc; i++)
        if (strcmp(d.argv[i], h->argv[i]) != 0) abort();
    dfn_hello_free(&d);
    dfn_wirebuf_free(&b);
}

/* The input as serve --spread's command to its ranks too: one that
 * decodes travels again to the very bytes; a refusal says why. */
static void ranksreq_check(const uint8_t *data, size_t size)
{
    dfn_ranksreq q;
    char err[256] = "";
    if (!dfn_ranksreq_decode(data, size, &q, err, sizeof err)) {
        if (!err[0]) abort();
        dfn_ranksreq_free(&q);
        return;
    }
    size_t len;
    uint8_t *again = dfn_ranksreq_encode(q.word, q.argc, q.argv, &len);
    if (!again || len != size || memcmp(again, data, size) != 0) abort();
    free(again);
    dfn_ranksreq_free(&q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ranksreq_check(data, size);
    size_t off = 0;
    for (;;) {
        dfn_msg m;
        size_t used;
        char err[256] = "";
        int r = dfn_wire_next(data + off, size - off, &m, &used, err, sizeof err);
        if (r < 0 && !err[0]) abort();   /* a refusal always says why */
        if (r <= 0) break;
        if (used > size - off || m.len > DFN_WIRE_MAX || m.data + m.len != data + off + used) abort();
        if (m.type == DFN_MSG_CHALLENGE || m.type == DFN_MSG_WELCOME) {
            uint8_t x[DFN_NONCE_LEN];
            bool ok = m.type == DFN_MSG_CHALLENGE ? dfn_challenge_decode(m.data, m.len, x, err, sizeof err)
                                                  : dfn_welcome_decode(m.data, m.len, x, err, sizeof err);
            if (!ok && !err[0]) abort();
        }
        if (m.type == DFN_MSG_HELLO) {
            dfn_hello h;
            if (dfn_hello_decode(m.data, m.len, &h, err, sizeof err)) hello_again(&h);
            else if (!err[0]) abort();
            dfn_hello_free(&h);
        }
        off += used;
    }
    return 0;
}
