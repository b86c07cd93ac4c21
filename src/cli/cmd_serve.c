/* dfnav serve: a set loaded once (its parse divided among the ranks under
 * mpirun, srun or flux), kept as an image in a private directory, and the
 * commands and explorers of clients (`dfnav --connect`) run against it.
 *
 * The server listens (on localhost unless told) from the start, so that a
 * client sees the load's progress. Each connection gets a process of its
 * own (the handler), which checks the client's token and runs the client's
 * command as `dfnav` itself over the set's image: on a pseudo-terminal of
 * the client's size for the explorer, on pipes otherwise. Screens, keys
 * and output are therefore those of a local run, byte for byte; what
 * crosses the network is keys one way and terminal output the other.
 * Handlers log who connected, what ran and every refusal on the server's
 * standard error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* accept4, pipe2, ptsname_r */
#endif
#include "cli.h"
#include "../ui/ui.h"
#include "dfnav/cache.h"
#include "dfnav/dist.h"
#include "dfnav/util.h"
#include "dfnav/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* What the server tells its handlers, which are other processes: a page
 * shared with them. The text is written under a sequence count (odd while
 * it changes), so a handler never sends half of one line and half of
 * another. */
enum { SERVE_LOADING, SERVE_READY, SERVE_FAILED };
typedef struct {
    atomic_int state, status;
    atomic_uint seq;
    _Atomic unsigned char text[256];
    char dir[4096];           /* the set's image: written before the state says ready */
} serve_board;

typedef struct {
    const cli_opts *o;
    serve_board *board;
    int lfd;
    char *exe;                /* this program, for the clients' commands */
    char token[DFN_TOKEN_LEN + 1];
    atomic_bool stop;
    pid_t server;             /* the server's pid: a handler whose parent is another has lost it */
    pid_t *kids;              /* handlers alive */
    size_t nkids, capkids;
} serve_ctx;

static volatile sig_atomic_t serve_signal;
static void serve_on_signal(int sig) { serve_signal = sig; }

/* A signal during the load ends the server at once, as it ends any load,
 * but not with its token file left behind (unlink is async-signal-safe). */
static const char *volatile serve_tokpath;
static void serve_on_signal_loading(int sig)
{
    if (serve_tokpath) unlink(serve_tokpath);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void board_say(serve_board *b, const char *text)
{
    atomic_fetch_add(&b->seq, 1);
    size_t i = 0;
    for (; text[i] && i < sizeof b->text - 1; i++) atomic_store(&b->text[i], (unsigned char)text[i]);
    atomic_store(&b->text[i], 0);
    atomic_fetch_add(&b->seq, 1);
}

/* The board's text when it is whole; false while it changes. */
static bool board_read(serve_board *b, char *out, size_t cap, unsigned *seq)
{
    unsigned s1 = atomic_load(&b->seq);
    if (s1 & 1) return false;
    size_t i = 0;
    for (; i < cap - 1 && i < sizeof b->text; i++)
        if (!(out[i] = (char)atomic_load(&b->text[i]))) break;
    out[i] = 0;
    *seq = s1;
    return atomic_load(&b->seq) == s1;
}

static serve_board *g_board;
static void serve_progress(const char *line) { if (g_board) board_say(g_board, line); }

/* A line on the server's stderr from a handler: one write, no stdio
 * lock (a handler is forked from a process whose other threads may hold
 * one). */
static void serve_log(const char *peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void serve_log(const char *peer, const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "dfnav: serve: %s: ", peer);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line) n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line - 1) n = (int)sizeof line - 2;
    line[n++] = '\n';
    (void)!write(STDERR_FILENO, line, (size_t)n);
}

/* ---- sending ---- */

static bool send_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool send_msg(int fd, uint8_t type, const void *data, size_t len)
{
    dfn_wirebuf b = {0};
    dfn_wire_put_split(&b, type, data, len);
    if (!len) dfn_wire_put(&b, type, NULL, 0);
    bool ok = send_all(fd, b.buf, b.len);
    dfn_wirebuf_free(&b);
    return ok;
}

static bool send_text(int fd, uint8_t type, const char *text) { return send_msg(fd, type, text, strlen(text)); }

static bool send_exit(int fd, int status)
{
    dfn_wirebuf b = {0};
    dfn_wire_put_i32(&b, DFN_MSG_EXIT, status);
    bool ok = send_all(fd, b.buf, b.len);
    dfn_wirebuf_free(&b);
    return ok;
}

/* ---- a handler: one client ---- */

/* Reads into in until it holds a whole message (1), the peer closed or
 * the deadline passed (0), or the bytes are no message (-1, why in err). */
static int recv_msg(int fd, dfn_wirebuf *in, dfn_msg *m, size_t *used, int timeout_ms, char *err, size_t cap)
{
    double end = dfn_now() + timeout_ms / 1000.0;
    for (;;) {
        int r = dfn_wire_next(in->buf, in->len, m, used, err, cap);
        if (r) return r;
        int left = (int)((end - dfn_now()) * 1000);
        if (left <= 0) { snprintf(err, cap, "no greeting in %d s", timeout_ms / 1000); return 0; }
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, left) <= 0) continue;
        dfn_grow((void **)&in->buf, &in->cap, in->len + 65536, 1);
        ssize_t n = recv(fd, in->buf + in->len, 65536, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { snprintf(err, cap, "closed"); return 0; }
        in->len += (size_t)n;
    }
}

/* Whether a client's command line is one the server runs: a command the
 * set answers, options, and none of the server's own. */
static bool hello_args_ok(const dfn_hello *h, char *err, size_t cap)
{
    static const char *const refused[] = { "extract", "cache", "serve", "compare" };
    if (h->argc && h->argv[0][0] != '-') {
        for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
            if (strcmp(h->argv[0], refused[k]) == 0) {
                snprintf(err, cap, "'dfnav %s' is not run for clients", refused[k]);
                return false;
            }
    }
    for (size_t i = 0; i < h->argc; i++) {
        const char *a = h->argv[i];
        size_t n = strcspn(a, "=");
        /* "--" would make the server's options paths; "--served" (or a
         * prefix getopt would take for it) marks where they begin */
        if (strcmp(a, "--") == 0 || (n > 4 && strncmp(a, "--served", n) == 0)) {
            snprintf(err, cap, "argument '%.40s' is the server's", a);
            return false;
        }
    }
    return true;
}

/* The child's environment: ours without an MPI launcher's variables (the
 * command is no rank), with the client's terminal and character set. */
static char **child_env(const dfn_hello *h, size_t *own)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = dfn_xcalloc(n + 4, sizeof *env);
    size_t k = 0;
    static const char *const drop[] = { "OMPI_", "PMIX_", "PMI_", "TERM=", "LC_ALL=", "DFNAV_SERVED=", "LINES=", "COLUMNS=" };
    for (size_t i = 0; i < n; i++) {
        bool keep = true;
        for (size_t d = 0; d < sizeof drop / sizeof *drop && keep; d++)
            keep = strncmp(environ[i], drop[d], strlen(drop[d])) != 0;
        if (keep) env[k++] = environ[i];
    }
    *own = k;   /* the entries made here, to free */
    /* a terminal this machine does not know: the common one, which
     * terminals of today follow */
    const char *term = !h->pty ? "dumb" : h->term[0] && ui_term_known(h->term) ? h->term : "xterm-256color";
    env[k++] = dfn_xasprintf("TERM=%s", term);
    env[k++] = dfn_xstrdup(h->utf8 ? "LC_ALL=C.UTF-8" : "LC_ALL=C");
    env[k++] = dfn_xstrdup("DFNAV_SERVED=1");
    return env;
}

static char **serve_tail(const cli_opts *o, const char *dir);
static void serve_tail_free(char **t);

/* The client's command line, then the server's: what follows --served. */
static char **child_argv(const serve_ctx *c, const dfn_hello *h, char **tail)
{
    size_t nt = 0;
    while (tail[nt]) nt++;
    char **argv = dfn_xcalloc(h->argc + nt + 2, sizeof *argv);
    size_t k = 0;
    argv[k++] = c->exe;
    for (size_t i = 0; i < h->argc; i++) argv[k++] = h->argv[i];
    for (size_t i = 0; i < nt; i++) argv[k++] = tail[i];
    return argv;
}

/* Starts the command on a new pseudo-terminal of the client's size;
 * *master is its other end. */
static pid_t spawn_pty(char **argv, char **env, const dfn_hello *h, int *master)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    char name[128];
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, sizeof name) != 0) {
        if (m >= 0) close(m);
        return -1;
    }
    struct winsize ws = { .ws_row = h->rows ? h->rows : 24, .ws_col = h->cols ? h->cols : 80 };
    (void)ioctl(m, TIOCSWINSZ, &ws);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int s = open(name, O_RDWR);
        if (s < 0) _exit(127);
        (void)ioctl(s, TIOCSCTTY, 0);
        dup2(s, 0); dup2(s, 1); dup2(s, 2);
        if (s > 2) close(s);
        signal(SIGPIPE, SIG_DFL);
        execve(argv[0], argv, env);
        _exit(127);
    }
    if (pid < 0) { close(m); return -1; }
    *master = m;
    return pid;
}

/* Starts the command on pipes: out[0] its stdout, err[0] its stderr. */
static pid_t spawn_pipes(char **argv, char **env, int *out, int *err)
{
    int o[2], e[2];
    if (pipe2(o, O_CLOEXEC) != 0) return -1;
    if (pipe2(e, O_CLOEXEC) != 0) { close(o[0]); close(o[1]); return -1; }
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(o[1], 1);
        dup2(e[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execve(argv[0], argv, env);
        _exit(127);
    }
    close(o[1]);
    close(e[1]);
    if (pid < 0) { close(o[0]); close(e[0]); return -1; }
    *out = o[0];
    *err = e[0];
    return pid;
}

/* Takes the client's messages in in: keys, kept in keys for the
 * terminal, and its new size. False, with why, when the client sent what
 * a client never does. */
static bool relay_client(dfn_wirebuf *in, int master, dfn_wirebuf *keys, char *err, size_t cap)
{
    dfn_msg m;
    size_t used;
    int r;
    while ((r = dfn_wire_next(in->buf, in->len, &m, &used, err, cap)) == 1) {
        if (m.type == DFN_MSG_IN) {
            if (master >= 0 && m.len) {
                dfn_grow((void **)&keys->buf, &keys->cap, keys->len + m.len, 1);
                memcpy(keys->buf + keys->len, m.data, m.len);
                keys->len += m.len;
            }
        } else if (m.type == DFN_MSG_SIZE) {
            struct winsize ws = { .ws_row = dfn_wire_u16(m.data), .ws_col = dfn_wire_u16(m.data + 2) };
            if (master >= 0 && ws.ws_row && ws.ws_col) (void)ioctl(master, TIOCSWINSZ, &ws);
        } else {
            snprintf(err, cap, "a message of type %u from a client", m.type);
            return false;
        }
        dfn_wirebuf_take(in, used);
    }
    return r == 0;
}

/* Ends the command: asked first, killed when it does not go. */
static int child_end(pid_t pid)
{
    int st = 0;
    kill(pid, SIGHUP);
    kill(pid, SIGTERM);
    for (int i = 0; i < 40; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return st;
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return st;
}

static int wait_status(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1; }

/* Keys not yet taken by the terminal stop the reading of more past this:
 * a client that types (or pastes) faster than the command reads waits. */
#define RELAY_KEYS_MAX ((size_t)1 << 20)

/* Passes the command's output to the client and the client's keys to the
 * command until the command ends (its status) or the client goes (-1).
 * The terminal is written only when it has room (its end is
 * non-blocking): a command blocked on its output while this waited to
 * write keys would never read them. */
static int relay(int fd, pid_t pid, int out, int errfd, bool pty, dfn_wirebuf *in, const char *peer)
{
    uint8_t buf[65536];
    dfn_wirebuf keys = {0};
    if (pty) (void)fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
    for (;;) {
        if (out < 0 && errfd < 0) break;
        short oev = out >= 0 ? POLLIN | (keys.len ? POLLOUT : 0) : 0;
        struct pollfd p[3] = { { fd, keys.len < RELAY_KEYS_MAX ? POLLIN : 0, 0 }, { out, oev, 0 },
                               { errfd, errfd >= 0 ? POLLIN : 0, 0 } };
        if (poll(p, 3, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[0].revents) {
            dfn_grow((void **)&in->buf, &in->cap, in->len + 65536, 1);
            ssize_t n = recv(fd, in->buf + in->len, 65536, 0);
            char why[256];
            if (n < 0 && errno == EINTR) continue;
            bool ok = n > 0;
            if (ok) in->len += (size_t)n;
            if (!ok) snprintf(why, sizeof why, "gone");
            else if (!relay_client(in, pty ? out : -1, &keys, why, sizeof why)) ok = false;
            if (!ok) {
                serve_log(peer, "closed: %s", why);
                child_end(pid);
                dfn_wirebuf_free(&keys);
                return -1;
            }
        }
        if (out >= 0 && (p[1].revents & POLLOUT) && keys.len) {
            ssize_t w = write(out, keys.buf, keys.len);
            if (w > 0) dfn_wirebuf_take(&keys, (size_t)w);
        }
        for (int k = 1; k < 3; k++) {
            int *f = k == 1 ? &out : &errfd;
            if (*f < 0 || !(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(*f, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0) { close(*f); *f = -1; continue; }
            if (!send_msg(fd, k == 1 ? DFN_MSG_OUT : DFN_MSG_ERR, buf, (size_t)n)) {
                serve_log(peer, "closed: gone");
                child_end(pid);
                dfn_wirebuf_free(&keys);
                return -1;
            }
        }
    }
    dfn_wirebuf_free(&keys);
    int st = 0;
    waitpid(pid, &st, 0);
    return wait_status(st);
}

/* Sends the load's progress until the set is ready (true) or failed. */
static bool handler_wait(serve_ctx *c, int fd, const char *peer)
{
    unsigned last = UINT_MAX;
    while (atomic_load(&c->board->state) == SERVE_LOADING) {
        char text[256];
        unsigned seq;
        if (board_read(c->board, text, sizeof text, &seq) && seq != last && text[0]) {
            last = seq;
            if (!send_text(fd, DFN_MSG_PROGRESS, text)) return false;
        }
        if (getppid() != c->server) {
            send_text(fd, DFN_MSG_ERR, "dfnav: serve: the server ended while the set loaded\n");
            send_exit(fd, 3);
            return false;
        }
        /* a client that leaves while it waits is gone */
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 200) > 0) {
            char b;
            if (recv(fd, &b, 1, MSG_PEEK) <= 0) { serve_log(peer, "gone while the set loaded"); return false; }
        }
    }
    if (atomic_load(&c->board->state) == SERVE_FAILED) {
        char text[256];
        unsigned seq;
        while (!board_read(c->board, text, sizeof text, &seq)) {}
        send_text(fd, DFN_MSG_ERR, text);
        send_exit(fd, atomic_load(&c->board->status));
        return false;
    }
    return true;
}

/* The command line as the log shows it. */
static void args_text(const dfn_hello *h, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = 0;
    for (size_t i = 0; i < h->argc && w < cap; i++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? " " : "", h->argv[i]);
    if (!h->argc) snprintf(buf, cap, "%s", h->pty ? "the explorer" : "(no command)");
}

static int handler_run(serve_ctx *c, int fd, const char *peer)
{
    dfn_wirebuf in = {0};
    dfn_msg m;
    size_t used;
    char err[256];
    int r = recv_msg(fd, &in, &m, &used, 10000, err, sizeof err);
    if (r <= 0 || m.type != DFN_MSG_HELLO) {
        serve_log(peer, "refused: %s", r < 0 ? err : r == 0 ? err : "no greeting first");
        if (r != 0) send_text(fd, DFN_MSG_REFUSE, "this is a dfnav server: connect with dfnav --connect");
        dfn_wirebuf_free(&in);
        return 2;
    }
    dfn_hello h;
    bool ok = dfn_hello_decode(m.data, m.len, &h, err, sizeof err);
    dfn_wirebuf_take(&in, used);
    if (ok && !dfn_token_equal(h.token, c->token)) { ok = false; snprintf(err, sizeof err, "wrong token"); }
    if (ok) ok = hello_args_ok(&h, err, sizeof err);
    if (!ok) {
        serve_log(peer, "refused: %s", err);
        send_text(fd, DFN_MSG_REFUSE, err);
        dfn_hello_free(&h);
        dfn_wirebuf_free(&in);
        return 2;
    }
    char what[512];
    args_text(&h, what, sizeof what);
    serve_log(peer, "connected: %s", what);
    dfn_wirebuf b = {0};
    uint8_t ver[2] = { 0, DFN_WIRE_VERSION };
    dfn_wire_put(&b, DFN_MSG_WELCOME, ver, 2);
    ok = send_all(fd, b.buf, b.len) && handler_wait(c, fd, peer);
    dfn_wirebuf_free(&b);
    int status = -1;
    if (ok) {
        size_t own;
        char **tail = serve_tail(c->o, c->board->dir);
        char **argv = child_argv(c, &h, tail), **env = child_env(&h, &own);
        int out = -1, errfd = -1;
        pid_t pid = h.pty ? spawn_pty(argv, env, &h, &out) : spawn_pipes(argv, env, &out, &errfd);
        if (pid < 0) {
            send_text(fd, DFN_MSG_ERR, "dfnav: serve: could not start the command\n");
            send_exit(fd, 2);
        } else {
            status = relay(fd, pid, out, errfd, h.pty, &in, peer);
            if (status >= 0) { send_exit(fd, status); serve_log(peer, "ended: %s: status %d", what, status); }
        }
        free(argv);
        serve_tail_free(tail);
        for (size_t i = own; env[i]; i++) free(env[i]);
        free(env);
    }
    dfn_hello_free(&h);
    dfn_wirebuf_free(&in);
    return status < 0 ? 1 : 0;
}

/* ---- the server ---- */

static void peer_name(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap)
{
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, cap, "?");
    else
        snprintf(buf, cap, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

/* Handlers that ended, waited for (only our own: nothing else is). */
static void serve_reap(serve_ctx *c)
{
    for (size_t i = 0; i < c->nkids;) {
        int st;
        if (waitpid(c->kids[i], &st, WNOHANG) == c->kids[i]) c->kids[i] = c->kids[--c->nkids];
        else i++;
    }
}

static void serve_accept(serve_ctx *c)
{
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    int fd = accept4(c->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC);
    if (fd < 0) return;
    char peer[NI_MAXHOST + NI_MAXSERV + 4];
    peer_name((struct sockaddr *)&sa, sl, peer, sizeof peer);
    pid_t pid = fork();
    if (pid == 0) {
        /* the handler: the server's signals end it, its children too */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        close(c->lfd);
        _exit(handler_run(c, fd, peer));
    }
    close(fd);
    if (pid < 0) { dfn_warnf(stderr, "serve: %s: no process for it: %s", peer, strerror(errno)); return; }
    dfn_grow((void **)&c->kids, &c->capkids, c->nkids + 1, sizeof *c->kids);
    c->kids[c->nkids++] = pid;
}

/* The thread that takes connections, from before the load to the end. */
static void *serve_gate(void *arg)
{
    serve_ctx *c = arg;
    while (!atomic_load(&c->stop)) {
        struct pollfd p = { c->lfd, POLLIN, 0 };
        int r = poll(&p, 1, 200);
        serve_reap(c);
        if (r > 0) serve_accept(c);
    }
    close(c->lfd);
    for (size_t i = 0; i < c->nkids; i++) kill(c->kids[i], SIGTERM);
    for (int t = 0; t < 40 && c->nkids; t++) {
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
        serve_reap(c);
    }
    for (size_t i = 0; i < c->nkids; i++) kill(c->kids[i], SIGKILL);
    while (c->nkids) {
        waitpid(c->kids[c->nkids - 1], NULL, 0);
        c->nkids--;
    }
    return NULL;
}

/* Listens at "[HOST:]PORT" ([v6]:PORT too; no host: localhost): the
 * socket, and the address it took in shown. */
static int serve_listen(const char *spec, char *shown, size_t cap, char *err, size_t errcap)
{
    char host[256] = "127.0.0.1", port[32];
    const char *colon = strrchr(spec, ':');
    const char *p = colon ? colon + 1 : spec;
    if (colon) {
        size_t hl = (size_t)(colon - spec);
        if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') { spec++; hl -= 2; }
        if (hl >= sizeof host) { snprintf(err, errcap, "--listen: a host name that long"); return -1; }
        if (hl) { memcpy(host, spec, hl); host[hl] = 0; }
    }
    if (!*p || strlen(p) >= sizeof port || strspn(p, "0123456789") != strlen(p)) {
        snprintf(err, errcap, "--listen is [HOST:]PORT, such as 7411 or 0.0.0.0:7411, not '%s'", spec);
        return -1;
    }
    snprintf(port, sizeof port, "%s", p);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) { snprintf(err, errcap, "--listen %s: %s", host, gai_strerror(gai)); return -1; }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { e = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 16) != 0) { e = errno; close(fd); fd = -1; }
    }
    freeaddrinfo(res);
    if (fd < 0) { snprintf(err, errcap, "--listen %s:%s: %s", host, port, strerror(e)); return -1; }
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    peer_name((struct sockaddr *)&sa, sl, shown, cap);
    return fd;
}

/* What every client command gets after its own options: the server's
 * load options, the image's directory and the set's paths. */
static char **serve_tail(const cli_opts *o, const char *dir)
{
    size_t cap = 24 + o->npaths, k = 0;
    char **t = dfn_xcalloc(cap, sizeof *t);
    t[k++] = dfn_xstrdup("--served");
    t[k++] = dfn_xstrdup("--cache");
    t[k++] = dfn_xstrdup(dir);
    if (o->layers) { t[k++] = dfn_xstrdup("--layers"); t[k++] = dfn_xstrdup(o->layers); }
    if (o->compute) { t[k++] = dfn_xstrdup("--compute"); t[k++] = dfn_xstrdup(o->compute); }
    if (o->io) { t[k++] = dfn_xstrdup("--io"); t[k++] = dfn_xstrdup(o->io); }
    if (o->overlap_host) { t[k++] = dfn_xstrdup("--overlap-by"); t[k++] = dfn_xstrdup("host"); }
    if (o->time_unit) { t[k++] = dfn_xstrdup("--time-unit"); t[k++] = dfn_xstrdup(dfn_unit_name(o->time_unit)); }
    if (o->threads) { t[k++] = dfn_xstrdup("--threads"); t[k++] = dfn_xasprintf("%d", o->threads); }
    if (o->compare) t[k++] = dfn_xstrdup("--compare");
    if (o->force) t[k++] = dfn_xstrdup("--force");
    t[k++] = dfn_xstrdup("--");
    for (size_t i = 0; i < o->npaths; i++) t[k++] = dfn_xstrdup(o->paths[i]);
    return t;
}

static void serve_tail_free(char **t)
{
    for (size_t i = 0; t && t[i]; i++) free(t[i]);
    free(t);
}

/* A private directory for the set's image (TMPDIR, else /tmp). */
static char *serve_mkdir(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *dir = dfn_xasprintf("%s/dfnav-serve-XXXXXX", base);
    if (!mkdtemp(dir)) {
        dfn_warnf(stderr, "serve: cannot make a directory in %s for the set's image: %s", base, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

static void serve_rmdir(const char *dir)
{
    size_t removed;
    uint64_t freed;
    char err[256];
    (void)dfn_cache_clear(dir, &removed, &freed, err, sizeof err);
    rmdir(dir);
}

/* Under MPI the ranks' images of their shares, now in the set's own. */
static void serve_drop_rank_images(const char *dir)
{
    for (int r = 1; r < dfn_dist_size(); r++) {
        char *p = dfn_xasprintf("%s/set-rank%05d.img", dir, r);
        unlink(p);
        free(p);
    }
}

/* The token file, unless another server has written its own there since. */
static void serve_token_remove(const char *path, const char *token)
{
    char now[DFN_TOKEN_LEN + 1], err[512];
    if (dfn_token_read(path, now, err, sizeof err) && dfn_token_equal(now, token)) unlink(path);
}

/* Loads the set, keeping its image in dir; the load's status, with the
 * board saying how it went. */
static int serve_load(const cli_opts *o, serve_board *board, const char **dir)
{
    cli_opts so = *o;
    so.cache = *dir;
    so.serve = true;
    so.progress = serve_progress;
    if (dfn_dist_size() > 1) {
        char text[128];
        snprintf(text, sizeof text, "the %d ranks parse their shares of the set", dfn_dist_size());
        board_say(board, text);
    }
    cli_run *runs;
    size_t n;
    int status = cli_load(&so, &runs, &n);
    if (cli_dist_dir()) *dir = cli_dist_dir();
    uint64_t events = 0;
    for (size_t k = 0; runs && k < n && status < 3; k++) {
        if (!runs[k].set.store) { status = 3; break; }
        events += runs[k].set.store->n;
        const char *note = dfn_store_saved(runs[k].set.store);
        if (note) {
            dfn_warnf(stderr, "serve: the set's image could not be kept in %s: %s", *dir, note);
            status = 3;
        }
    }
    cli_runs_free(&so, runs, n);
    if (cli_dist_dir()) serve_drop_rank_images(*dir);
    if (status < 3 && strlen(*dir) >= sizeof board->dir) {
        dfn_warnf(stderr, "serve: the image's directory has too long a name: %s", *dir);
        status = 3;
    }
    snprintf(board->dir, sizeof board->dir, "%s", *dir);
    char text[256];
    if (status >= 3) {
        snprintf(text, sizeof text, "dfnav: serve: the set could not be loaded (status %d; the server's log says why)\n",
                 status);
        atomic_store(&board->status, status);
        board_say(board, text);
        atomic_store(&board->state, SERVE_FAILED);
    } else {
        snprintf(text, sizeof text, "ready: %" PRIu64 " events", events);
        board_say(board, text);
        atomic_store(&board->state, SERVE_READY);
        dfn_warnf(stderr, "serve: %s; Ctrl-C stops the server", text);
    }
    return status;
}

/* Waits for INT, TERM or HUP (blocked in every other thread). */
static void serve_wait(const sigset_t *stops)
{
    sigset_t during;
    pthread_sigmask(SIG_BLOCK, stops, &during);
    sigdelset(&during, SIGINT);
    sigdelset(&during, SIGTERM);
    sigdelset(&during, SIGHUP);
    while (!serve_signal) sigsuspend(&during);
}

int cmd_serve(const cli_opts *o)
{
    for (size_t i = 0; i < o->npaths; i++)
        if (strcmp(o->paths[i], "-") == 0) {
            fprintf(stderr, "dfnav: serve reads trace files, not standard input (each client's command reopens the set)\n");
            return 2;
        }
    serve_ctx c = { .o = o, .server = getpid() };
    c.exe = realpath("/proc/self/exe", NULL);
    char shown[NI_MAXHOST + NI_MAXSERV + 4], err[512];
    char *tokpath = o->token_file ? dfn_xstrdup(o->token_file) : dfn_token_path();
    if (!c.exe || !tokpath) {
        fprintf(stderr, "dfnav: serve: %s\n", !c.exe ? "cannot find this program (/proc/self/exe)" :
                "no home directory for the token: --token-file names its file");
        free(c.exe);
        free(tokpath);
        return 2;
    }
    c.lfd = serve_listen(o->listen ? o->listen : "127.0.0.1:0", shown, sizeof shown, err, sizeof err);
    if (c.lfd < 0 || !dfn_token_new(c.token, err, sizeof err) || !dfn_token_write(tokpath, c.token, err, sizeof err)) {
        fprintf(stderr, "dfnav: serve: %s\n", err);
        if (c.lfd >= 0) close(c.lfd);
        free(c.exe);
        free(tokpath);
        return 2;
    }
    char *priv = serve_mkdir();
    const char *dir = priv;
    c.board = mmap(NULL, sizeof *c.board, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!priv || c.board == MAP_FAILED) {
        if (priv) rmdir(priv);
        serve_token_remove(tokpath, c.token);
        close(c.lfd);
        free(c.exe);
        free(tokpath);
        free(priv);
        return 2;
    }
    g_board = c.board;
    board_say(c.board, "loading");
    dfn_warnf(stderr, "serve: listening on %s; token in %s", shown, tokpath);
    dfn_warnf(stderr, "serve: connect with: dfnav --connect %s (from another machine: ssh -N -L PORT:%s NODE, "
              "then dfnav --connect localhost:PORT)", shown, shown);
    /* the signals that stop the server reach this thread only */
    sigset_t stops, old;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stops, &old);
    pthread_t gate;
    bool gated = pthread_create(&gate, NULL, serve_gate, &c) == 0;
    serve_tokpath = tokpath;
    signal(SIGINT, serve_on_signal_loading);
    signal(SIGTERM, serve_on_signal_loading);
    signal(SIGHUP, serve_on_signal_loading);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    int status = serve_load(o, c.board, &dir);
    /* the other ranks are done: they end now, not with the server */
    dfn_dist_end();
    if (status < 3 && gated) {
        struct sigaction sa = { .sa_handler = serve_on_signal };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        serve_wait(&stops);
        dfn_warnf(stderr, "serve: stopped by signal %d", (int)serve_signal);
    } else if (gated) {
        /* the clients that wait hear of the failure before the server goes */
        struct timespec ts = { 0, 500 * 1000000 };
        nanosleep(&ts, NULL);
    }
    atomic_store(&c.stop, true);
    if (gated) pthread_join(gate, NULL);
    else close(c.lfd);
    serve_tokpath = NULL;
    serve_token_remove(tokpath, c.token);
    serve_rmdir(priv);
    g_board = NULL;
    munmap(c.board, sizeof *c.board);
    free(c.kids);
    free(c.exe);
    free(tokpath);
    free(priv);
    return status;
}
