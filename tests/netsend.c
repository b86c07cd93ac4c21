/* For tests/shell/serve.sh: a client that says what a dfnav client would
 * not. `netsend HOST PORT < BYTES` sends the bytes as they are, half-closes
 * and copies what comes back to standard output (how malformed messages
 * reach a server). `netsend HOST PORT --hello TOKEN_FILE [--pty] [--bad]
 * ARG...` answers the server's challenge with a greeting of that command
 * line (--bad: a proof of another token) and prints each message that
 * comes back on a line of its own: CHALLENGE, WELCOME ok|forged, REFUSE
 * text, PROGRESS text, OUT and ERR bytes, EXIT status. `netsend --forger
 * PORT_FILE` is a server without the token: it listens on a free port of
 * 127.0.0.1 (written to PORT_FILE), answers one client's greeting with a
 * welcome of a made-up proof and then output, which no client may show
 * (it gives up after 60 s without one);
 * `--forger-refuse PORT_FILE` refuses it with terminal escapes instead.
 * `netsend --unix PATH [--fds] [--hold] < BYTES` sends the bytes to the
 * local socket of dfnav serve --spread's ranks, with this process's
 * stdout and stderr beside them (--fds), half-closes unless told to hold
 * (as a client's command holds it), and copies what comes back.
 * `netsend --flood HOST PORT N < BYTES` opens N silent connections at
 * once, holds them until stdin ends, and prints how many were refused as too many. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem */
#endif
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dfnav/util.h"
#include "dfnav/wire.h"

static int dial(const char *host, const char *port)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) { close(fd); fd = -1; }
    freeaddrinfo(res);
    return fd;
}

static int raw(int fd)
{
    char buf[65536];
    ssize_t n;
    while ((n = read(STDIN_FILENO, buf, sizeof buf)) > 0)
        if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n) break;
    shutdown(fd, SHUT_WR);
    struct pollfd p = { fd, POLLIN, 0 };
    while (poll(&p, 1, 10000) > 0 && (n = recv(fd, buf, sizeof buf, 0)) > 0)
        if (write(STDOUT_FILENO, buf, (size_t)n) != n) break;
    return 0;
}

static void print_msg(const dfn_msg *m, const char *token, const uint8_t *theirs, const dfn_wirebuf *hello)
{
    static const char *names[] = { "?", "HELLO", "WELCOME", "REFUSE", "PROGRESS", "OUT", "ERR", "EXIT", "IN", "SIZE", "CHALLENGE" };
    const char *name = m->type < sizeof names / sizeof *names ? names[m->type] : "?";
    if (m->type == DFN_MSG_EXIT) { printf("EXIT %d\n", dfn_wire_i32(m->data)); return; }
    if (m->type == DFN_MSG_WELCOME) {
        uint8_t proof[DFN_PROOF_LEN], want[DFN_PROOF_LEN];
        char err[256];
        bool ok = dfn_welcome_decode(m->data, m->len, proof, err, sizeof err);
        dfn_hello_proof(token, false, theirs, hello->buf + DFN_WIRE_HEAD, hello->len - DFN_WIRE_HEAD, want);
        printf("WELCOME %s\n", ok && dfn_proof_equal(proof, want) ? "ok" : "forged");
        return;
    }
    if (m->type == DFN_MSG_CHALLENGE) { printf("CHALLENGE\n"); return; }
    printf("%s %.*s\n", name, (int)m->len, (const char *)m->data);
}

static int hello(int fd, int argc, char **argv)
{
    char token[DFN_TOKEN_LEN + 1], err[512];
    if (argc < 1 || !dfn_token_read(argv[0], token, err, sizeof err)) { fprintf(stderr, "netsend: %s\n", err); return 2; }
    dfn_hello h = { .version = DFN_WIRE_VERSION, .rows = 24, .cols = 80, .term = "xterm" };
    bool bad = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-' && (strcmp(argv[i], "--pty") == 0 || strcmp(argv[i], "--bad") == 0); i++)
        if (strcmp(argv[i], "--pty") == 0) h.pty = true;
        else bad = true;
    h.argv = argv + i;
    h.argc = (size_t)(argc - i);
    dfn_wirebuf in = {0}, sent_hello = {0};
    uint8_t theirs[DFN_NONCE_LEN] = { 0 };
    bool sent = false;
    for (;;) {
        dfn_msg m;
        size_t used;
        int r;
        while ((r = dfn_wire_next(in.buf, in.len, &m, &used, err, sizeof err)) == 1) {
            if (m.type == DFN_MSG_WELCOME && !sent_hello.len) { printf("WELCOME before a greeting\n"); break; }
            print_msg(&m, token, theirs, &sent_hello);
            if (m.type == DFN_MSG_CHALLENGE && !sent) {
                dfn_challenge_decode(m.data, m.len, theirs, err, sizeof err);
                dfn_random_bytes(h.nonce, sizeof h.nonce, err, sizeof err);
                dfn_hello_put(&sent_hello, &h);
                uint8_t *payload = sent_hello.buf + DFN_WIRE_HEAD;
                dfn_hello_proof(bad ? "another token" : token, true, theirs, payload, sent_hello.len - DFN_WIRE_HEAD,
                                payload + DFN_HELLO_PROOF_AT);
                sent = send(fd, sent_hello.buf, sent_hello.len, MSG_NOSIGNAL) == (ssize_t)sent_hello.len;
            }
            dfn_wirebuf_take(&in, used);
        }
        if (r < 0) { printf("MALFORMED %s\n", err); break; }
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 20000) <= 0) break;
        dfn_grow((void **)&in.buf, &in.cap, in.len + 65536, 1);
        ssize_t n = recv(fd, in.buf + in.len, 65536, 0);
        if (n <= 0) break;
        in.len += (size_t)n;
    }
    dfn_wirebuf_free(&in);
    dfn_wirebuf_free(&sent_hello);
    return 0;
}

static int forger(const char *portfile, bool refuse)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0)
        return 2;
    FILE *f = fopen(portfile, "w");
    if (!f) return 2;
    fprintf(f, "%d\n", ntohs(sa.sin_port));
    fclose(f);
    /* a client that never comes (its test failed before it connected)
     * must not hold the suite forever at its wait */
    struct pollfd pl = { lfd, POLLIN, 0 };
    if (poll(&pl, 1, 60 * 1000) != 1) { fprintf(stderr, "netsend: --forger: no client in 60 s\n"); return 2; }
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) return 2;
    uint8_t nonce[DFN_NONCE_LEN] = { 1 }, proof[DFN_PROOF_LEN] = { 2 };
    dfn_wirebuf b = {0};
    dfn_challenge_put(&b, nonce);
    if (refuse) {   /* a refusal that would retitle and clear the client's terminal */
        const char *why = "\033]0;FORGED TITLE\007\033[2J\033[31mfake prompt$ ";
        dfn_wire_put(&b, DFN_MSG_REFUSE, why, strlen(why));
    }
    (void)!send(fd, b.buf, b.len, MSG_NOSIGNAL);
    b.len = 0;
    char buf[65536];
    (void)!recv(fd, buf, sizeof buf, 0);   /* the greeting */
    dfn_welcome_put(&b, proof);
    const char *out = "FORGED OUTPUT\n";
    dfn_wire_put(&b, DFN_MSG_OUT, out, strlen(out));
    dfn_wire_put_i32(&b, DFN_MSG_EXIT, 0);
    (void)!send(fd, b.buf, b.len, MSG_NOSIGNAL);
    dfn_wirebuf_free(&b);
    sleep(1);
    close(fd);
    close(lfd);
    return 0;
}

/* The bytes of stdin to a local socket, fds 1 and 2 beside the first
 * (fds), then what comes back. */
static int unix_send(const char *path, bool fds, bool hold)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, stdin);
    int fd = strlen(path) < sizeof a.sun_path ? socket(AF_UNIX, SOCK_STREAM, 0) : -1;
    if (fd >= 0) memcpy(a.sun_path, path, strlen(path) + 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { perror("netsend: connect"); return 2; }
    int two[2] = { STDOUT_FILENO, STDERR_FILENO };
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof two)]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { buf, n ? n : 1 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fds) {
        m.msg_control = ctl.b;
        m.msg_controllen = sizeof ctl.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof two);
        memcpy(CMSG_DATA(c), two, sizeof two);
    }
    if (n && sendmsg(fd, &m, 0) < 0) perror("netsend: sendmsg");
    if (!hold) shutdown(fd, SHUT_WR);
    char got[4096];
    ssize_t r;
    while ((r = read(fd, got, sizeof got)) > 0) fwrite(got, 1, (size_t)r, stdout);
    close(fd);
    return 0;
}

/* n silent connections at once, held until stdin ends: a flood that
 * does not depend on how fast a shell starts processes. How many were
 * refused as too many on stdout. */
static int flood(const char *host, const char *port, int n)
{
    int *fds = dfn_xcalloc((size_t)n, sizeof *fds);
    for (int i = 0; i < n; i++) fds[i] = dial(host, port);
    char sink[256];
    while (fread(sink, 1, sizeof sink, stdin) > 0) {}
    int refused = 0;
    for (int i = 0; i < n; i++) {
        if (fds[i] < 0) continue;
        shutdown(fds[i], SHUT_WR);
        uint8_t *buf = NULL;
        size_t len = 0, cap = 0;
        char got[4096], err[256];
        ssize_t r;
        while ((r = read(fds[i], got, sizeof got)) > 0) {
            dfn_grow((void **)&buf, &cap, len + (size_t)r, 1);
            memcpy(buf + len, got, (size_t)r);
            len += (size_t)r;
        }
        dfn_msg m;
        size_t at = 0, used;
        while (dfn_wire_next(buf + at, len - at, &m, &used, err, sizeof err) == 1) {
            refused += m.type == DFN_MSG_REFUSE && memmem(m.data, m.len, "too many", 8) != NULL;
            at += used;
        }
        free(buf);
        close(fds[i]);
    }
    free(fds);
    printf("%d\n", refused);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--flood") == 0) return flood(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 3 && strcmp(argv[1], "--unix") == 0) {
        bool fds = false, hold = false;
        for (int i = 3; i < argc; i++) {
            fds |= strcmp(argv[i], "--fds") == 0;
            hold |= strcmp(argv[i], "--hold") == 0;
        }
        return unix_send(argv[2], fds, hold);
    }
    if (argc == 3 && strcmp(argv[1], "--forger") == 0) return forger(argv[2], false);
    if (argc == 3 && strcmp(argv[1], "--forger-refuse") == 0) return forger(argv[2], true);
    if (argc < 3) { fprintf(stderr, "usage: netsend HOST PORT [--hello TOKEN_FILE [--pty] [--bad] ARG...] < BYTES\n"); return 2; }
    int fd = dial(argv[1], argv[2]);
    if (fd < 0) { perror("netsend: connect"); return 2; }
    int rc = argc > 3 && strcmp(argv[3], "--hello") == 0 ? hello(fd, argc - 4, argv + 4) : raw(fd);
    close(fd);
    return rc;
}
