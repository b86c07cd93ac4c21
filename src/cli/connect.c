/* dfnav --connect HOST:PORT: a command, or the explorer, run by a `dfnav
 * serve` on the set it holds (see cmd_serve.c). This side presents the
 * token, sends the command line, shows the load's progress, and then
 * passes the server's output to this terminal and, for the explorer, the
 * keys and the terminal's size back. When the connection drops, the last
 * screen stays with a message until a key is pressed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "dfnav/util.h"
#include "dfnav/wire.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

/* The exit status when the server could not be reached, refused the
 * client, or the connection dropped before the command ended. */
#define CONNECT_FAILED 5
/* How long a server may take to challenge and welcome (its gate answers
 * at once, also while the set loads). */
#define CONNECT_WELCOME_S 15

static volatile sig_atomic_t got_winch, got_stop;
static void on_winch(int sig) { (void)sig; got_winch = 1; }
static void on_stop(int sig) { got_stop = sig; }

typedef struct {
    const char *addr;
    int fd;
    bool pty, raw, shown_progress, output;
    bool keys;                /* the terminal's keys are read (until it closes) */
    bool challenged, welcomed;
    const char *token;
    const cli_opts *o;
    uint8_t theirs[DFN_NONCE_LEN];
    dfn_wirebuf hello;        /* the greeting's payload, which the server's proof covers */
    struct termios saved;
    uint16_t rows, cols;
} conn;

/* Connects to "HOST:PORT" ("[v6]:PORT" too); -1 with why. */
static int conn_open(const char *addr, char *err, size_t cap)
{
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr || !colon[1]) {
        snprintf(err, cap, "--connect is HOST:PORT, such as localhost:7411, not '%s'", addr);
        return -1;
    }
    size_t hl = (size_t)(colon - addr);
    if (hl >= 2 && addr[0] == '[' && addr[hl - 1] == ']') { addr++; hl -= 2; }
    char *host = dfn_xstrndup(addr, hl);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0) {
        snprintf(err, cap, "%s: %s", host, gai_strerror(gai));
        free(host);
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { e = errno; continue; }
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) { e = errno; close(fd); fd = -1; }
    }
    freeaddrinfo(res);
    free(host);
    if (fd < 0) snprintf(err, cap, "%s", strerror(e));
    return fd;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void term_size(conn *c)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
        c->rows = ws.ws_row;
        c->cols = ws.ws_col;
    }
}

static void term_raw(conn *c)
{
    if (tcgetattr(STDIN_FILENO, &c->saved) != 0) return;
    struct termios t = c->saved;
    cfmakeraw(&t);
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) == 0) c->raw = true;
}

static void term_restore(conn *c)
{
    if (c->raw) tcsetattr(STDIN_FILENO, TCSAFLUSH, &c->saved);
    c->raw = false;
}

/* The greeting, once the server's challenge came: this side's nonce and
 * proof, this terminal, the command line. False with why. */
static bool conn_hello(conn *c, char *err, size_t cap)
{
    dfn_hello h = { .version = DFN_WIRE_VERSION, .pty = c->pty, .rows = c->rows, .cols = c->cols,
                    .argv = c->o->fwd, .argc = c->o->nfwd };
    if (!dfn_random_bytes(h.nonce, sizeof h.nonce, err, cap)) return false;
    setlocale(LC_CTYPE, "");
    h.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    /* a TERM the server would refuse is sent as the common one */
    const char *term = getenv("TERM");
    bool ok = term && *term && strlen(term) <= DFN_HELLO_MAX_TERM;
    for (const char *t = term; ok && *t; t++)
        ok = (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') || strchr("._+-", *t);
    h.term = (char *)(ok ? term : "xterm");
    dfn_wirebuf b = {0};
    if (!dfn_hello_put(&b, &h)) {
        snprintf(err, cap, "the command line is too long to send (at most %zu bytes)", DFN_WIRE_MAX);
        return false;
    }
    /* the proof covers the greeting itself (its proof bytes zero) */
    uint8_t *payload = b.buf + DFN_WIRE_HEAD;
    size_t len = b.len - DFN_WIRE_HEAD;
    dfn_hello_proof(c->token, true, c->theirs, payload, len, payload + DFN_HELLO_PROOF_AT);
    c->hello.len = 0;
    dfn_grow((void **)&c->hello.buf, &c->hello.cap, len, 1);
    memcpy(c->hello.buf, payload, len);
    c->hello.len = len;
    bool sent = dfn_wire_send(c->fd, &b);
    dfn_wirebuf_free(&b);
    if (!sent) snprintf(err, cap, "%s", strerror(errno));
    return sent;
}

/* The server's proof: that it holds the token too, so that what it sends
 * may reach this terminal. */
static bool conn_welcome(conn *c, const dfn_msg *m, char *err, size_t cap)
{
    uint8_t proof[DFN_PROOF_LEN], want[DFN_PROOF_LEN];
    if (!dfn_welcome_decode(m->data, m->len, proof, err, cap)) return false;
    dfn_hello_proof(c->token, false, c->theirs, c->hello.buf, c->hello.len, want);
    if (!dfn_proof_equal(proof, want)) {
        snprintf(err, cap, "the server does not hold the token: not the dfnav serve that wrote it (another "
                 "program on this port?)");
        return false;
    }
    c->welcomed = true;
    return true;
}

/* Text from the other side, for this terminal: its control bytes (escape
 * sequences a server could send, proved or not) as '?'. */
static void text_clean(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++) out[k++] = p[i] < 0x20 || p[i] == 0x7f ? '?' : (char)p[i];
    out[k] = 0;
}

static void progress_clear(conn *c)
{
    if (c->shown_progress) fputs("\r\033[K", stderr);
    c->shown_progress = false;
}

/* One message from the server: false when it ends the session (*status
 * set: the command's, or CONNECT_FAILED with why in err). Nothing but a
 * challenge comes first, and nothing but a refusal or a welcome with the
 * server's proof next. */
static bool conn_take(conn *c, const dfn_msg *m, int *status, char *err, size_t cap)
{
    *status = CONNECT_FAILED;
    if (!c->challenged) {
        if (m->type != DFN_MSG_CHALLENGE) { snprintf(err, cap, "not a dfnav server"); return false; }
        if (!dfn_challenge_decode(m->data, m->len, c->theirs, err, cap)) return false;
        c->challenged = true;
        return conn_hello(c, err, cap);
    }
    if (m->type == DFN_MSG_REFUSE) {
        char why[401];
        text_clean(m->data, m->len, why, sizeof why);
        snprintf(err, cap, "refused: %s", why);
        return false;
    }
    if (!c->welcomed) {
        if (m->type == DFN_MSG_WELCOME) return conn_welcome(c, m, err, cap);
        snprintf(err, cap, "a message of type %u before the server proved itself", m->type);
        return false;
    }
    switch (m->type) {
    case DFN_MSG_PROGRESS:
        if (isatty(STDERR_FILENO)) {
            char text[201];
            text_clean(m->data, m->len, text, sizeof text);
            fprintf(stderr, "\rdfnav: %s: %s\033[K", c->addr, text);
            c->shown_progress = true;
        }
        return true;
    case DFN_MSG_OUT: case DFN_MSG_ERR:
        progress_clear(c);
        /* the explorer starts: the terminal is its now (keys typed while
         * the set loaded are dropped) */
        if (c->pty && !c->raw) { term_raw(c); c->keys = true; }
        c->output |= m->type == DFN_MSG_OUT;
        write_all(m->type == DFN_MSG_OUT ? STDOUT_FILENO : STDERR_FILENO, m->data, m->len);
        return true;
    case DFN_MSG_EXIT:
        progress_clear(c);
        *status = dfn_wire_i32(m->data);
        return false;
    default:
        snprintf(err, cap, "the server sent a message of type %u", m->type);
        return false;
    }
}

/* The keys typed, to the server; false when they could not be sent. A
 * terminal that closed is read no more (its hangup ends the session). */
static bool conn_keys(conn *c)
{
    dfn_wirebuf b = {0};
    uint8_t keys[4096];
    ssize_t n = read(STDIN_FILENO, keys, sizeof keys);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) c->keys = false;
    if (n > 0) dfn_wire_put(&b, DFN_MSG_IN, keys, (size_t)n);
    bool ok = !b.len || dfn_wire_send(c->fd, &b);
    dfn_wirebuf_free(&b);
    return ok;
}

/* Runs the session: the command's exit status, or CONNECT_FAILED with
 * why in err. */
static int conn_loop(conn *c, char *err, size_t cap)
{
    dfn_wirebuf in = {0};
    int status = CONNECT_FAILED;
    double deadline = dfn_now() + CONNECT_WELCOME_S;
    snprintf(err, cap, "the connection was lost");
    for (;;) {
        if (got_stop) {
            snprintf(err, cap, "stopped by signal %d", (int)got_stop);
            dfn_wirebuf_free(&in);
            return 128 + got_stop;
        }
        if (got_winch && c->pty && c->welcomed) {
            dfn_wirebuf b = {0};
            got_winch = 0;
            term_size(c);
            dfn_wire_put_u16s(&b, DFN_MSG_SIZE, c->rows, c->cols);
            bool ok = dfn_wire_send(c->fd, &b);
            dfn_wirebuf_free(&b);
            if (!ok) break;
        }
        struct pollfd p[2] = { { c->fd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
        /* a listener that never proves itself is not waited for */
        int left = c->welcomed ? -1 : (int)((deadline - dfn_now()) * 1000);
        if (!c->welcomed && left <= 0) {
            snprintf(err, cap, "no welcome from the server in %d s", CONNECT_WELCOME_S);
            break;
        }
        if (poll(p, c->keys ? 2 : 1, left) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (c->keys && p[1].revents && !conn_keys(c)) break;
        if (!p[0].revents) continue;
        dfn_grow((void **)&in.buf, &in.cap, in.len + 65536, 1);
        ssize_t n = recv(c->fd, in.buf + in.len, 65536, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        in.len += (size_t)n;
        dfn_msg m;
        size_t used;
        int r = 0;
        bool more = true;
        while (more && (r = dfn_wire_next(in.buf, in.len, &m, &used, err, cap)) == 1) {
            more = conn_take(c, &m, &status, err, cap);
            dfn_wirebuf_take(&in, used);
        }
        if (!more) { dfn_wirebuf_free(&in); return status; }
        if (r < 0) break;
    }
    dfn_wirebuf_free(&in);
    return CONNECT_FAILED;
}

/* The terminal back from the explorer's modes, which it could not undo
 * itself: attributes reset, the cursor shown, the keypad in normal mode,
 * the alternate screen left. */
static void term_leave(void)
{
    static const char leave[] = "\033[0m\033[?25h\033[?1l\033>\033[?1049l";
    write_all(STDOUT_FILENO, (const uint8_t *)leave, sizeof leave - 1);
}

/* The connection dropped under the explorer: its last screen stays, with
 * a line saying so, until a key; then the terminal is given back. */
static void conn_lost_screen(conn *c, const char *why)
{
    char line[512];
    int n = snprintf(line, sizeof line, "\033[%u;1H\033[0m\033[7m dfnav: %.200s: %.200s; press a key \033[0m\033[K",
                     (unsigned)c->rows, c->addr, why);
    if (n > 0) write_all(STDOUT_FILENO, (const uint8_t *)line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    uint8_t key;
    while (!got_stop && read(STDIN_FILENO, &key, 1) < 0 && errno == EINTR) {}
    term_leave();
}

int cli_connect(const cli_opts *o, bool pty)
{
    char err[768], token[DFN_TOKEN_LEN + 1];
    char *tokpath = o->token_file ? dfn_xstrdup(o->token_file) : dfn_token_path();
    if (!tokpath) {
        fprintf(stderr, "dfnav: --connect: no home directory for the token: --token-file names its file\n");
        return CONNECT_FAILED;
    }
    bool have = dfn_token_read(tokpath, token, err, sizeof err);
    free(tokpath);
    if (!have) { fprintf(stderr, "dfnav: --connect: %s\n", err); return CONNECT_FAILED; }
    conn c = { .addr = o->connect, .pty = pty, .rows = 24, .cols = 80, .token = token, .o = o };
    c.fd = conn_open(o->connect, err, sizeof err);
    if (c.fd < 0) { fprintf(stderr, "dfnav: --connect %s: %s\n", o->connect, err); return CONNECT_FAILED; }
    if (pty) term_size(&c);
    cli_signal_install(on_stop, NULL);
    struct sigaction sa = { .sa_handler = on_winch };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGWINCH, &sa, NULL);
    int status = conn_loop(&c, err, sizeof err);
    if (status == CONNECT_FAILED && pty && c.output) conn_lost_screen(&c, err);
    else if (pty && c.output && status >= 128) term_leave();   /* the explorer died of a signal on the server */
    dfn_wirebuf_free(&c.hello);
    term_restore(&c);
    progress_clear(&c);
    if (status == CONNECT_FAILED || got_stop) fprintf(stderr, "dfnav: --connect %s: %s\n", o->connect, err);
    close(c.fd);
    return status;
}
