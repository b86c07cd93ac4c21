/* The serve/--connect protocol (wire.h): frames found whole or not at
 * all, every malformed byte string refused with a reason, the greeting
 * decoded as it was encoded, and the token file kept to its user. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dfnav/sha256.h"
#include "dfnav/wire.h"

#define HELLO_FLAG_PTY_FOR_TEST 1   /* the pty flag's bit in a HELLO payload */

static char *hello_args[] = { "report", "--by", "func,file", "--where", "cat=POSIX" };

static dfn_hello sample_hello(void)
{
    dfn_hello h = { .version = DFN_WIRE_VERSION, .pty = true, .utf8 = true, .rows = 24, .cols = 80,
                    .term = "tmux-256color", .argv = hello_args, .argc = 5 };
    for (size_t i = 0; i < DFN_NONCE_LEN; i++) h.nonce[i] = (uint8_t)(i * 3);
    for (size_t i = 0; i < DFN_PROOF_LEN; i++) h.proof[i] = (uint8_t)(200 - i);
    return h;
}

/* The payload of the one frame in b. */
static const uint8_t *only_payload(const dfn_wirebuf *b, size_t *len)
{
    dfn_msg m;
    size_t used;
    char err[256];
    cr_assert_eq(dfn_wire_next(b->buf, b->len, &m, &used, err, sizeof err), 1);
    cr_assert_eq(used, b->len);
    cr_assert_eq(m.type, DFN_MSG_HELLO);
    *len = m.len;
    return m.data;
}

Test(wire, hello_round_trip)
{
    dfn_hello h = sample_hello(), d;
    dfn_wirebuf b = {0};
    cr_assert(dfn_hello_put(&b, &h));
    size_t len;
    const uint8_t *p = only_payload(&b, &len);
    char err[256] = "";
    cr_assert(dfn_hello_decode(p, len, &d, err, sizeof err), "%s", err);
    cr_assert_eq(d.version, DFN_WIRE_VERSION);
    cr_assert(memcmp(d.nonce, h.nonce, DFN_NONCE_LEN) == 0);
    cr_assert(memcmp(d.proof, h.proof, DFN_PROOF_LEN) == 0);
    cr_assert(d.pty && d.utf8);
    cr_assert_eq(d.rows, 24);
    cr_assert_eq(d.cols, 80);
    cr_assert_str_eq(d.term, "tmux-256color");
    cr_assert_eq(d.argc, 5);
    for (size_t i = 0; i < 5; i++) cr_assert_str_eq(d.argv[i], hello_args[i]);
    cr_assert_null(d.argv[5]);
    dfn_hello_free(&d);
    dfn_wirebuf_free(&b);
}

/* Every greeting cut short, or with a byte more, is refused with a reason. */
Test(wire, hello_cut_or_longer_refused)
{
    dfn_hello h = sample_hello(), d;
    dfn_wirebuf b = {0};
    dfn_hello_put(&b, &h);
    size_t len;
    const uint8_t *p = only_payload(&b, &len);
    for (size_t n = 0; n < len; n++) {
        char err[256] = "";
        cr_assert_not(dfn_hello_decode(p, n, &d, err, sizeof err), "cut at %zu accepted", n);
        cr_assert_neq(err[0], 0, "cut at %zu: no reason", n);
        dfn_hello_free(&d);
    }
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, p, len);
    longer[len] = 'x';
    char err[256] = "";
    cr_assert_not(dfn_hello_decode(longer, len + 1, &d, err, sizeof err));
    cr_assert(strstr(err, "after the greeting"), "%s", err);
    dfn_hello_free(&d);
    free(longer);
    dfn_wirebuf_free(&b);
}

/* Refused greetings: another version, another program, a NUL byte in an
 * argument, a TERM that is not a name, an unknown flag. */
Test(wire, hello_refusals)
{
    dfn_hello h = sample_hello(), d;
    char err[256];
    h.version = 2;
    dfn_wirebuf b = {0};
    dfn_hello_put(&b, &h);
    size_t len;
    const uint8_t *p = only_payload(&b, &len);
    cr_assert_not(dfn_hello_decode(p, len, &d, err, sizeof err));
    cr_assert_eq(d.version, 2);
    cr_assert(strstr(err, "protocol version 2"), "%s", err);
    dfn_hello_free(&d);
    dfn_wirebuf_free(&b);

    h = sample_hello();
    dfn_hello_put(&b, &h);
    p = only_payload(&b, &len);
    uint8_t *q = malloc(len);
    memcpy(q, p, len);
    q[0] = 'X';
    cr_assert_not(dfn_hello_decode(q, len, &d, err, sizeof err));
    cr_assert(strstr(err, "not a dfnav client"), "%s", err);
    dfn_hello_free(&d);
    memcpy(q, p, len);
    q[len - 1] = 0;   /* the last argument's last byte */
    cr_assert_not(dfn_hello_decode(q, len, &d, err, sizeof err));
    cr_assert(strstr(err, "NUL"), "%s", err);
    dfn_hello_free(&d);
    memcpy(q, p, len);
    q[6 + 2] = 0x80;  /* the flags */
    cr_assert_not(dfn_hello_decode(q, len, &d, err, sizeof err));
    cr_assert(strstr(err, "flags"), "%s", err);
    dfn_hello_free(&d);
    free(q);
    dfn_wirebuf_free(&b);

    h = sample_hello();
    h.term = "xterm;rm";
    dfn_hello_put(&b, &h);
    p = only_payload(&b, &len);
    cr_assert_not(dfn_hello_decode(p, len, &d, err, sizeof err));
    cr_assert(strstr(err, "TERM"), "%s", err);
    dfn_hello_free(&d);
    dfn_wirebuf_free(&b);
}

/* An argument count past what the payload can hold is refused before
 * anything is allocated for it. */
Test(wire, hello_argc_past_the_end)
{
    dfn_hello h = sample_hello(), d;
    h.argc = 0;
    dfn_wirebuf b = {0};
    dfn_hello_put(&b, &h);
    size_t len;
    const uint8_t *p = only_payload(&b, &len);
    uint8_t *q = malloc(len);
    memcpy(q, p, len);
    q[len - 2] = 0;
    q[len - 1] = 200;   /* 200 arguments, none there */
    char err[256];
    cr_assert_not(dfn_hello_decode(q, len, &d, err, sizeof err));
    cr_assert(strstr(err, "past the message's end"), "%s", err);
    cr_assert_null(d.argv);
    dfn_hello_free(&d);
    q[len - 2] = 1;
    q[len - 1] = 0;     /* 256 + 0: too many */
    cr_assert_not(dfn_hello_decode(q, len, &d, err, sizeof err));
    dfn_hello_free(&d);
    free(q);
    dfn_wirebuf_free(&b);
}

Test(wire, frames_whole_or_not_at_all)
{
    dfn_wirebuf b = {0};
    dfn_wire_put(&b, DFN_MSG_OUT, "screen", 6);
    dfn_wire_put_i32(&b, DFN_MSG_EXIT, -3);
    dfn_msg m;
    size_t used;
    char err[256];
    for (size_t n = 0; n < DFN_WIRE_HEAD + 6; n++)
        cr_assert_eq(dfn_wire_next(b.buf, n, &m, &used, err, sizeof err), 0, "%zu bytes", n);
    cr_assert_eq(dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err), 1);
    cr_assert_eq(m.type, DFN_MSG_OUT);
    cr_assert_eq(m.len, 6);
    cr_assert(memcmp(m.data, "screen", 6) == 0);
    dfn_wirebuf_take(&b, used);
    cr_assert_eq(dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err), 1);
    cr_assert_eq(m.type, DFN_MSG_EXIT);
    cr_assert_eq(dfn_wire_i32(m.data), -3);
    dfn_wirebuf_free(&b);
}

Test(wire, malformed_frames_refused)
{
    char err[256];
    dfn_msg m;
    size_t used;
    /* an HTTP request: its first four bytes read as a length past the limit */
    const uint8_t http[] = "GET / HTTP/1.1\r\n\r\n";
    cr_assert_eq(dfn_wire_next(http, sizeof http - 1, &m, &used, err, sizeof err), -1);
    const uint8_t unknown[] = { 0, 0, 0, 0, 99 };
    cr_assert_eq(dfn_wire_next(unknown, 5, &m, &used, err, sizeof err), -1);
    cr_assert(strstr(err, "unknown message type 99"), "%s", err);
    const uint8_t zero[] = { 0, 0, 0, 0, 0 };
    cr_assert_eq(dfn_wire_next(zero, 5, &m, &used, err, sizeof err), -1);
    /* EXIT and SIZE carry 4 bytes, WELCOME 34, CHALLENGE 40: no other size is read */
    const uint8_t exit3[] = { 0, 0, 0, 3, DFN_MSG_EXIT, 1, 2, 3 };
    cr_assert_eq(dfn_wire_next(exit3, sizeof exit3, &m, &used, err, sizeof err), -1);
    const uint8_t size5[] = { 0, 0, 0, 5, DFN_MSG_SIZE };
    cr_assert_eq(dfn_wire_next(size5, sizeof size5, &m, &used, err, sizeof err), -1);
    /* the largest payload is taken, one more byte is not */
    uint8_t big[DFN_WIRE_HEAD] = { 0, 0x10, 0, 1, DFN_MSG_OUT };
    cr_assert_eq(dfn_wire_next(big, DFN_WIRE_HEAD, &m, &used, err, sizeof err), -1);
    big[3] = 0;
    cr_assert_eq(dfn_wire_next(big, DFN_WIRE_HEAD, &m, &used, err, sizeof err), 0);
}

/* Output larger than a frame goes in several, which join up again. */
Test(wire, split_output_joins)
{
    size_t n = DFN_WIRE_MAX * 2 + 12345;
    uint8_t *data = malloc(n);
    for (size_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 7);
    dfn_wirebuf b = {0};
    dfn_wire_put_split(&b, DFN_MSG_OUT, data, n);
    uint8_t *back = malloc(n);
    size_t got = 0, frames = 0, used;
    dfn_msg m;
    char err[256];
    while (dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err) == 1) {
        cr_assert_eq(m.type, DFN_MSG_OUT);
        cr_assert_leq(got + m.len, n);
        memcpy(back + got, m.data, m.len);
        got += m.len;
        frames++;
        dfn_wirebuf_take(&b, used);
    }
    cr_assert_eq(frames, 3);
    cr_assert_eq(got, n);
    cr_assert(memcmp(back, data, n) == 0);
    free(back);
    free(data);
    dfn_wirebuf_free(&b);
}

Test(token, new_tokens_are_hex_and_differ)
{
    char a[DFN_TOKEN_LEN + 1], b[DFN_TOKEN_LEN + 1], err[256];
    cr_assert(dfn_token_new(a, err, sizeof err));
    cr_assert(dfn_token_new(b, err, sizeof err));
    cr_assert_eq(strlen(a), DFN_TOKEN_LEN);
    cr_assert_eq(strspn(a, "0123456789abcdef"), DFN_TOKEN_LEN);
    cr_assert_str_neq(a, b);
    cr_assert(dfn_token_equal(a, a));
    cr_assert_not(dfn_token_equal(a, b));
    char c[DFN_TOKEN_LEN + 1];
    memcpy(c, a, sizeof c);
    c[DFN_TOKEN_LEN - 1] ^= 1;   /* differing in the last digit only */
    cr_assert_not(dfn_token_equal(a, c));
}

Test(token, file_is_the_users_only)
{
    char dir[] = "/tmp/dfnav-token-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256], link[256], out[DFN_TOKEN_LEN + 1], tok[DFN_TOKEN_LEN + 1], err[512], host[64];
    snprintf(path, sizeof path, "%s/sub/token", dir);
    cr_assert(dfn_token_new(tok, err, sizeof err));
    mode_t old = umask(0);   /* a lax umask does not make it readable */
    cr_assert(dfn_token_write(path, tok, "node042", 4242, err, sizeof err), "%s", err);
    umask(old);
    long pid = 0;
    cr_assert(dfn_token_owner(path, host, sizeof host, &pid));
    cr_assert_str_eq(host, "node042");
    cr_assert_eq(pid, 4242);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0600);
    cr_assert(dfn_token_read(path, out, err, sizeof err), "%s", err);
    cr_assert_str_eq(out, tok);
    /* readable by others: refused */
    chmod(path, 0644);
    cr_assert_not(dfn_token_read(path, out, err, sizeof err));
    cr_assert(strstr(err, "only you can read"), "%s", err);
    chmod(path, 0600);
    /* a link to it: refused (someone else's link could point anywhere) */
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(symlink(path, link), 0);
    cr_assert_not(dfn_token_read(link, out, err, sizeof err));
    /* no token in it */
    int fd = open(path, O_WRONLY | O_TRUNC);
    cr_assert_eq(write(fd, "short\n", 6), 6);
    close(fd);
    cr_assert_not(dfn_token_read(path, out, err, sizeof err));
    cr_assert(strstr(err, "no token"), "%s", err);
    unlink(link);
    unlink(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    rmdir(path);
    rmdir(dir);
}

/* A command line past what a frame holds is refused, not sent cut. */
Test(wire, hello_too_long_refused)
{
    dfn_hello h = sample_hello();
    char *big = malloc(DFN_WIRE_MAX + 1);
    memset(big, 'x', DFN_WIRE_MAX);
    big[DFN_WIRE_MAX] = 0;
    char *args[] = { "--where", big };
    h.argv = args;
    h.argc = 2;
    dfn_wirebuf b = {0};
    cr_assert_not(dfn_hello_put(&b, &h));
    cr_assert_eq(b.len, 0);
    free(big);
}

/* The handshake: a challenge, proofs each side checks, a welcome. */
Test(wire, challenge_and_proofs)
{
    uint8_t sn[DFN_NONCE_LEN], cn[DFN_NONCE_LEN], back[DFN_NONCE_LEN];
    char err[256];
    cr_assert(dfn_random_bytes(sn, sizeof sn, err, sizeof err));
    cr_assert(dfn_random_bytes(cn, sizeof cn, err, sizeof err));
    dfn_wirebuf b = {0};
    dfn_challenge_put(&b, sn);
    dfn_msg m;
    size_t used;
    cr_assert_eq(dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err), 1);
    cr_assert_eq(m.type, DFN_MSG_CHALLENGE);
    cr_assert(dfn_challenge_decode(m.data, m.len, back, err, sizeof err), "%s", err);
    cr_assert(memcmp(back, sn, sizeof sn) == 0);
    uint8_t *bad = malloc(m.len);
    memcpy(bad, m.data, m.len);
    bad[7] = 2;   /* version 2 */
    cr_assert_not(dfn_challenge_decode(bad, m.len, back, err, sizeof err));
    cr_assert(strstr(err, "version 2"), "%s", err);
    free(bad);
    dfn_wirebuf_free(&b);

    const char *tok = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    dfn_hello h = sample_hello();
    dfn_wirebuf hb = {0};
    cr_assert(dfn_hello_put(&hb, &h));
    uint8_t *pl = hb.buf + DFN_WIRE_HEAD;
    size_t pn = hb.len - DFN_WIRE_HEAD;
    uint8_t client[DFN_PROOF_LEN], server[DFN_PROOF_LEN], other[DFN_PROOF_LEN];
    dfn_hello_proof(tok, true, sn, pl, pn, client);
    dfn_hello_proof(tok, false, sn, pl, pn, server);
    cr_assert_not(dfn_proof_equal(client, server), "a client's proof passes for the server's");
    dfn_hello_proof("fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210", true, sn, pl, pn, other);
    cr_assert_not(dfn_proof_equal(client, other), "another token gives the same proof");
    dfn_hello_proof(tok, true, cn, pl, pn, other);
    cr_assert_not(dfn_proof_equal(client, other), "another challenge gives the same proof");
    /* the proof bytes themselves do not count: the proof is written into them */
    memcpy(pl + DFN_HELLO_PROOF_AT, client, DFN_PROOF_LEN);
    dfn_hello_proof(tok, true, sn, pl, pn, other);
    cr_assert(dfn_proof_equal(client, other), "the proof depends on the bytes it is written into");
    /* a command line changed on the way: the proof no longer holds */
    pl[pn - 1] ^= 1;
    dfn_hello_proof(tok, true, sn, pl, pn, other);
    cr_assert_not(dfn_proof_equal(client, other), "the proof does not cover the command line");
    pl[pn - 1] ^= 1;
    pl[8] ^= HELLO_FLAG_PTY_FOR_TEST;
    dfn_hello_proof(tok, true, sn, pl, pn, other);
    cr_assert_not(dfn_proof_equal(client, other), "the proof does not cover the flags");
    dfn_wirebuf_free(&hb);
    dfn_welcome_put(&b, server);
    cr_assert_eq(dfn_wire_next(b.buf, b.len, &m, &used, err, sizeof err), 1);
    uint8_t got[DFN_PROOF_LEN];
    cr_assert(dfn_welcome_decode(m.data, m.len, got, err, sizeof err));
    cr_assert(dfn_proof_equal(got, server));
    dfn_wirebuf_free(&b);
}

static void hex(const uint8_t *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

/* FIPS 180-4's examples and RFC 4231's HMAC test cases 1, 2 and 6. */
Test(sha256, published_vectors)
{
    uint8_t d[32];
    char h[65];
    dfn_sha256("abc", 3, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    dfn_sha256("", 0, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    dfn_sha256(m2, strlen(m2), d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    dfn_sha256_ctx c;
    dfn_sha256_init(&c);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++) dfn_sha256_add(&c, a, sizeof a);   /* a million 'a' */
    dfn_sha256_end(&c, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    uint8_t key1[20];
    memset(key1, 0x0b, sizeof key1);
    const void *parts[2] = { "Hi ", "There" };
    const size_t lens[2] = { 3, 5 };
    dfn_hmac_sha256(key1, sizeof key1, parts, lens, 2, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const void *p2[1] = { "what do ya want for nothing?" };
    const size_t l2[1] = { 28 };
    dfn_hmac_sha256("Jefe", 4, p2, l2, 1, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    uint8_t key6[131];
    memset(key6, 0xaa, sizeof key6);   /* a key longer than a block is hashed first */
    const char *t6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    const void *p6[1] = { t6 };
    const size_t l6[1] = { strlen(t6) };
    dfn_hmac_sha256(key6, sizeof key6, p6, l6, 1, d);
    hex(d, 32, h);
    cr_assert_str_eq(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

/* serve --spread's command to its ranks: decoded as encoded, and every
 * cut, changed or longer byte string refused with why. */
Test(ranksreq, round_trip_and_refusals)
{
    char *argv[] = { "/usr/bin/dfnav", "report", "--by", "func", "--where", "", "--served", "--", "/p/set" };
    size_t len;
    uint8_t *b = dfn_ranksreq_encode(2, 9, argv, &len);
    cr_assert_not_null(b);
    cr_assert_eq(len, DFN_RANKSREQ_HEAD + 60);
    dfn_ranksreq q;
    char err[256] = "";
    cr_assert(dfn_ranksreq_decode(b, len, &q, err, sizeof err), "%s", err);
    cr_assert_eq(q.word, 2);
    cr_assert_eq(q.argc, 9);
    for (size_t i = 0; i < 9; i++) cr_assert_str_eq(q.argv[i], argv[i]);
    cr_assert_null(q.argv[9]);
    dfn_ranksreq_free(&q);
    /* every cut is refused, each saying why */
    for (size_t cut = 0; cut < len; cut++) {
        err[0] = 0;
        cr_assert(!dfn_ranksreq_decode(b, cut, &q, err, sizeof err), "cut at %zu", cut);
        cr_assert(err[0], "cut at %zu: no reason", cut);
        dfn_ranksreq_free(&q);
    }
    /* a byte more, another magic, version, word or padding, one word
     * fewer than said, one byte fewer than said */
    uint8_t *more = malloc(len + 1);
    memcpy(more, b, len);
    more[len] = 0;
    cr_assert(!dfn_ranksreq_decode(more, len + 1, &q, err, sizeof err));
    dfn_ranksreq_free(&q);
    free(more);
    static const struct { size_t at; uint8_t to; const char *why; } bad[] = {
        { 0, 'X', "no command of dfnav's" },         { 4, 2, "another version" },
        { 5, 0, "no word" },                        { 7, 1, "no word" },
        { 11, 10, "fewer words" },                  { 15, 59, "bytes, not" },
        { 11, 0, "no words" },                      { 12, 1, "too many bytes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint8_t keep = b[bad[i].at];
        b[bad[i].at] = bad[i].to;
        cr_assert(!dfn_ranksreq_decode(b, len, &q, err, sizeof err), "case %zu", i);
        cr_assert(strstr(err, bad[i].why), "case %zu: %s", i, err);
        dfn_ranksreq_free(&q);
        b[bad[i].at] = keep;
    }
    /* a word that does not end where the words do */
    b[len - 1] = 'x';
    cr_assert(!dfn_ranksreq_decode(b, len, &q, err, sizeof err));
    dfn_ranksreq_free(&q);
    free(b);
    /* what cannot be sent: no word, no words */
    cr_assert_null(dfn_ranksreq_encode(0, 9, argv, &len));
    cr_assert_null(dfn_ranksreq_encode(2, 0, argv, &len));
}
