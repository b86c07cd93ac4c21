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

#include "dfnav/wire.h"

static char *hello_args[] = { "report", "--by", "func,file", "--where", "cat=POSIX" };

static dfn_hello sample_hello(void)
{
    dfn_hello h = { .version = DFN_WIRE_VERSION, .pty = true, .utf8 = true, .rows = 24, .cols = 80,
                    .term = "tmux-256color", .argv = hello_args, .argc = 5 };
    memset(h.token, 'a', DFN_TOKEN_LEN);
    h.token[7] = '3';
    h.token[DFN_TOKEN_LEN] = 0;
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
    dfn_hello_put(&b, &h);
    size_t len;
    const uint8_t *p = only_payload(&b, &len);
    char err[256] = "";
    cr_assert(dfn_hello_decode(p, len, &d, err, sizeof err), "%s", err);
    cr_assert_eq(d.version, DFN_WIRE_VERSION);
    cr_assert_str_eq(d.token, h.token);
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
    /* EXIT and SIZE carry 4 bytes, WELCOME 2: no other size is read */
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
    char path[256], link[256], out[DFN_TOKEN_LEN + 1], tok[DFN_TOKEN_LEN + 1], err[512];
    snprintf(path, sizeof path, "%s/sub/token", dir);
    cr_assert(dfn_token_new(tok, err, sizeof err));
    mode_t old = umask(0);   /* a lax umask does not make it readable */
    cr_assert(dfn_token_write(path, tok, err, sizeof err), "%s", err);
    umask(old);
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
