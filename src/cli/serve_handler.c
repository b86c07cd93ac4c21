/* dfnav serve's handler: one admitted client. It tells the client how the
 * load goes, then runs the client's command as dfnav itself over the
 * set's image (the client's options, then --served and the server's own,
 * the paths last), on a pseudo-terminal of the client's size for the
 * explorer or on pipes otherwise, and relays: output to the client, keys
 * and sizes to the command, the exit status last. The command runs in a
 * process group of its own, which the handler ends when it is told to go
 * (the gate's SIGTERM) or the client leaves. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* pipe2, ptsname_r, close_range */
#endif
#include "serve.h"
#include "../ui/ui.h"
#include "dfnav/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The command's process group, for the signal that ends the handler. */
static volatile pid_t handler_child;

static void handler_on_signal(int sig)
{
    (void)sig;
    pid_t p = handler_child;
    if (p > 0) kill(-p, SIGTERM);
    _exit(1);
}

/* In the command, before it runs: no descriptor but the three standard
 * ones (the gate's, the server's, MPI's) crosses into it. */
static void child_fds(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3, ~0U, 0) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++) close((int)fd);
}

/* A terminal size within what the explorer takes (a client's 65535 x
 * 65535 would have curses allocate gigabytes), 24 x 80 when none. */
static void serve_clamp(unsigned short *rows, unsigned short *cols)
{
    if (!*rows) *rows = 24;
    if (!*cols) *cols = 80;
    if (*rows > SERVE_MAX_ROWS) *rows = SERVE_MAX_ROWS;
    if (*cols > SERVE_MAX_COLS) *cols = SERVE_MAX_COLS;
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
    if (o->spread) { t[k++] = dfn_xstrdup("--ranks"); t[k++] = dfn_xasprintf("%s/ranks", dir); }
    t[k++] = dfn_xstrdup("--");
    for (size_t i = 0; i < o->npaths; i++) t[k++] = dfn_xstrdup(o->paths[i]);
    return t;
}

static void serve_tail_free(char **t)
{
    for (size_t i = 0; t && t[i]; i++) free(t[i]);
    free(t);
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
    struct winsize ws = { .ws_row = h->rows, .ws_col = h->cols };
    (void)ioctl(m, TIOCSWINSZ, &ws);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();   /* its own session and group: the terminal's, and what the handler ends */
        int s = open(name, O_RDWR);
        if (s < 0) _exit(127);
        (void)ioctl(s, TIOCSCTTY, 0);
        dup2(s, 0); dup2(s, 1); dup2(s, 2);
        child_fds();
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* gone with its handler */
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
        setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(o[1], 1);
        dup2(e[1], 2);
        child_fds();
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* gone with its handler */
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
            serve_clamp(&ws.ws_row, &ws.ws_col);
            if (master >= 0) (void)ioctl(master, TIOCSWINSZ, &ws);
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
    kill(-pid, SIGHUP);
    kill(-pid, SIGTERM);
    for (int i = 0; i < 40; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return st;
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
    }
    kill(-pid, SIGKILL);
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
    char why[256] = "gone";
    if (pty) (void)fcntl(out, F_SETFL, fcntl(out, F_GETFL) | O_NONBLOCK);
    /* what the client sent while the set loaded (a new size) */
    if (!relay_client(in, pty ? out : -1, &keys, why, sizeof why)) goto gone;
    while (out >= 0 || errfd >= 0) {
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
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { snprintf(why, sizeof why, "gone"); goto gone; }
            in->len += (size_t)n;
            if (!relay_client(in, pty ? out : -1, &keys, why, sizeof why)) goto gone;
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
            if (!serve_send_msg(fd, k == 1 ? DFN_MSG_OUT : DFN_MSG_ERR, buf, (size_t)n)) {
                snprintf(why, sizeof why, "gone");
                goto gone;
            }
        }
    }
    dfn_wirebuf_free(&keys);
    int st = 0;
    waitpid(pid, &st, 0);
    return wait_status(st);
gone:
    serve_log(peer, "closed: %s", why);
    child_end(pid);
    dfn_wirebuf_free(&keys);
    return -1;
}

/* Tells the client how the load goes until the set is ready (true) or
 * failed. What the client sends meanwhile (its terminal's size) is kept
 * in in for later, and its leaving is seen. */
static bool handler_wait(const serve_ctx *c, int fd, const char *peer, dfn_wirebuf *in)
{
    unsigned last = UINT_MAX;
    pid_t gate = getppid();
    while (atomic_load(&c->board->state) == SERVE_LOADING) {
        char text[256];
        unsigned seq;
        if (serve_board_read(c->board, text, sizeof text, &seq) && seq != last && text[0]) {
            last = seq;
            if (!serve_send_msg(fd, DFN_MSG_PROGRESS, text, strlen(text))) return false;
        }
        if (getppid() != gate) return false;   /* the gate, and the server, are gone */
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, 200) > 0) {
            if (in->len > DFN_WIRE_MAX + DFN_WIRE_HEAD) {   /* more than a message: no client does that */
                serve_log(peer, "closed: %zu bytes sent while the set loaded", in->len);
                return false;
            }
            dfn_grow((void **)&in->buf, &in->cap, in->len + 4096, 1);
            ssize_t n = recv(fd, in->buf + in->len, 4096, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { serve_log(peer, "closed: gone while the set loaded"); return false; }
            in->len += (size_t)n;
        }
    }
    if (atomic_load(&c->board->state) == SERVE_FAILED) {
        char text[256];
        unsigned seq;
        while (!serve_board_read(c->board, text, sizeof text, &seq)) {}
        serve_send_msg(fd, DFN_MSG_ERR, text, strlen(text));
        serve_send_exit(fd, atomic_load(&c->board->status));
        return false;
    }
    return true;
}

int serve_handler_run(const serve_ctx *c, int fd, const char *peer, const dfn_hello *hello, dfn_wirebuf *in)
{
    cli_signal_install(handler_on_signal, NULL);
    dfn_hello h = *hello;
    serve_clamp(&h.rows, &h.cols);
    char what[512];
    serve_args_text(&h, what, sizeof what);
    if (!handler_wait(c, fd, peer, in)) return 1;
    size_t own;
    char **tail = serve_tail(c->o, c->board->dir);
    char **argv = child_argv(c, &h, tail), **env = child_env(&h, &own);
    int out = -1, errfd = -1;
    pid_t pid = h.pty ? spawn_pty(argv, env, &h, &out) : spawn_pipes(argv, env, &out, &errfd);
    int status = -1;
    if (pid < 0) {
        const char *msg = "dfnav: serve: could not start the command\n";
        serve_send_msg(fd, DFN_MSG_ERR, msg, strlen(msg));
        serve_send_exit(fd, 2);
    } else {
        handler_child = pid;
        status = relay(fd, pid, out, errfd, h.pty, in, peer);
        handler_child = 0;
        if (status >= 0) { serve_send_exit(fd, status); serve_log(peer, "ended: %s: status %d", what, status); }
    }
    free(argv);
    serve_tail_free(tail);
    for (size_t i = own; env[i]; i++) free(env[i]);
    free(env);
    return status < 0 ? 1 : 0;
}
