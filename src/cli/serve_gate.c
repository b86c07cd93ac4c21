/* dfnav serve's gate: a small process, forked before the set loads (so a
 * client's handler never holds a copy of the load's memory), that takes
 * connections and admits clients. Each new connection gets a CHALLENGE
 * at once and has a few seconds to answer with a HELLO whose proof shows
 * it holds the token; the gate checks the proof and the command line in
 * its own loop, without a process per connection, and only then forks a
 * handler, whose WELCOME carries the server's own proof. So connections
 * without the token cost a descriptor each, for a few seconds, at most
 * GATE_PENDING at once (the oldest silent one makes room for a new one;
 * one that is greeting keeps its place); and at most GATE_CLIENTS clients
 * run commands. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* accept4 */
#endif
#include "serve.h"
#include "dfnav/layers.h"
#include "dfnav/util.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GATE_PENDING 64       /* connections not yet admitted */
#define GATE_CLIENTS 64       /* admitted clients at once */
#define GATE_GREETING_S 5.0   /* for a HELLO */

typedef struct {
    int fd;
    char peer[NI_MAXHOST + NI_MAXSERV + 4];
    double deadline;
    uint8_t nonce[DFN_NONCE_LEN];
    dfn_wirebuf in;
} pending;

typedef struct {
    const serve_ctx *c;
    pending p[GATE_PENDING];
    size_t np;
    pid_t kids[GATE_CLIENTS];
    size_t nkids;
    /* refusals logged this second, and those past GATE_LOG_RATE not
     * logged one by one: a flood of connections must not fill the log */
    double log_second;
    unsigned logged, unlogged;
} gate;

#define GATE_LOG_RATE 20      /* refusal lines a second */

static volatile sig_atomic_t gate_stop;
static void gate_on_signal(int sig) { (void)sig; gate_stop = 1; }

static void pending_drop(gate *g, size_t i)
{
    close(g->p[i].fd);
    dfn_wirebuf_free(&g->p[i].in);
    g->p[i] = g->p[--g->np];
}

/* The count of refusals not logged, once their second is over. */
static void gate_log_refusal_flush(gate *g, double now)
{
    if (now - g->log_second < 1) return;
    if (g->unlogged) serve_log("gate", "%u more connections refused in a second", g->unlogged);
    g->log_second = now;
    g->logged = g->unlogged = 0;
}

/* A refusal in the log, as long as the second's share lasts; the rest
 * are counted, and said in one line when the second is over. */
static void gate_log_refusal(gate *g, const char *peer, const char *why)
{
    gate_log_refusal_flush(g, dfn_now());
    if (g->logged++ < GATE_LOG_RATE) serve_log(peer, "refused: %s", why);
    else g->unlogged++;
}

/* Refuses pending connection i, saying why to it (if it listens) and to
 * the log. */
static void pending_refuse(gate *g, size_t i, const char *why)
{
    gate_log_refusal(g, g->p[i].peer, why);
    dfn_wirebuf b = {0};
    dfn_wire_put(&b, DFN_MSG_REFUSE, why, strlen(why));
    (void)!send(g->p[i].fd, b.buf, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
    dfn_wirebuf_free(&b);
    pending_drop(g, i);
}

static void gate_accept(gate *g)
{
    for (;;) {
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        int fd = accept4(g->c->lfd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;
        char peer[NI_MAXHOST + NI_MAXSERV + 4];
        serve_peer_name((struct sockaddr *)&sa, sl, peer, sizeof peer);
        /* full: the oldest that has said nothing makes room (a flood of
         * silent connections holds no one up), never one that greets; when
         * all greet, the new one goes */
        if (g->np == GATE_PENDING) {
            size_t old = GATE_PENDING;
            for (size_t k = 0; k < g->np; k++)
                if (!g->p[k].in.len && (old == GATE_PENDING || g->p[k].deadline < g->p[old].deadline)) old = k;
            if (old == GATE_PENDING) {
                gate_log_refusal(g, peer, "too many connections waiting to be admitted");
                close(fd);
                continue;
            }
            pending_refuse(g, old, "too many connections waiting to be admitted");
        }
        pending *p = &g->p[g->np];
        char err[256];
        *p = (pending){ .fd = fd, .deadline = dfn_now() + GATE_GREETING_S };
        snprintf(p->peer, sizeof p->peer, "%s", peer);
        if (!dfn_random_bytes(p->nonce, sizeof p->nonce, err, sizeof err)) {
            gate_log_refusal(g, peer, err);
            close(fd);
            continue;
        }
        g->np++;
        dfn_wirebuf b = {0};
        dfn_challenge_put(&b, p->nonce);
        (void)!send(fd, b.buf, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
        dfn_wirebuf_free(&b);
    }
}

/* The options a client's command may give: how the set is shown. Not
 * what the server holds (its set, cache, time unit, runs), files it
 * would write (--screens, -o), nor the server's own. */
static const char *const client_options[] = {
    "by", "where", "sort", "top", "bin", "layers", "format", "threads", "quiet", "help", "version", "ascii",
    "color", "colour", "replay", "size", "metrics", "sizes", "compute", "diagnose", "overlap-by", "threshold",
    "counters", "io", "keys", "list",
};

bool cli_client_option(const char *name)
{
    for (size_t k = 0; k < sizeof client_options / sizeof *client_options; k++)
        if (strcmp(name, client_options[k]) == 0) return true;
    return false;
}

bool cli_client_value_ok(const char *name, const char *value, char *err, size_t cap)
{
    /* a layer file would be read on the server's machine: a client names
     * a preset (the server's own --layers FILE still applies) */
    if (strcmp(name, "layers") == 0 && !dfn_preset_text(value)) {
        snprintf(err, cap, "--layers takes a preset over --connect (posix, dlio, dlio-legacy), not '%.60s': a layer "
                 "file is given to the server", value);
        return false;
    }
    return true;
}

/* Whether a client's command line is one the server runs: a command the
 * set answers, then options by their whole names from client_options,
 * each with its value as the next word (as --connect sends them). So
 * every word is an option or its value, and the server's part that
 * follows is read as the server wrote it. */
bool serve_hello_ok(const dfn_hello *h, char *err, size_t cap)
{
    size_t i = 0;
    if (h->argc && h->argv[0][0] != '-') {
        const char *c = h->argv[0];
        if (strcmp(c, "report") != 0 && strcmp(c, "overview") != 0 && strcmp(c, "info") != 0) {
            snprintf(err, cap, "'dfnav %.40s' is not run for clients", c);
            return false;
        }
        i = 1;
    }
    for (; i < h->argc; i++) {
        const char *a = h->argv[i];
        const struct option *opt = NULL;
        if (a[0] == '-' && a[1] == '-' && cli_client_option(a + 2))
            for (size_t j = 0; cli_longopts[j].name && !opt; j++)
                if (strcmp(cli_longopts[j].name, a + 2) == 0) opt = &cli_longopts[j];
        if (!opt) {
            snprintf(err, cap, "'%.60s' is not an option a client may give", a);
            return false;
        }
        if (opt->has_arg && ++i >= h->argc) {
            snprintf(err, cap, "%s without its value", a);
            return false;
        }
        if (opt->has_arg && !cli_client_value_ok(opt->name, h->argv[i], err, cap)) return false;
    }
    return true;
}

/* Checks the greeting of pending connection i; false with why. */
static bool gate_check(const gate *g, const pending *p, const dfn_msg *m, dfn_hello *h, char *err, size_t cap)
{
    if (m->type != DFN_MSG_HELLO) {
        snprintf(err, cap, "a message of type %u first, not a greeting", m->type);
        return false;
    }
    if (!dfn_hello_decode(m->data, m->len, h, err, cap)) return false;
    uint8_t want[DFN_PROOF_LEN];
    dfn_hello_proof(g->c->token, true, p->nonce, m->data, m->len, want);
    if (!dfn_proof_equal(want, h->proof)) {
        snprintf(err, cap, "wrong token");
        return false;
    }
    return serve_hello_ok(h, err, cap);
}

/* Admits pending connection i: its handler, in a process of its own. */
static void gate_admit(gate *g, size_t i, const dfn_hello *h, const dfn_msg *m, size_t used)
{
    pending *p = &g->p[i];
    uint8_t proof[DFN_PROOF_LEN];   /* the server's, of the very greeting it admits */
    dfn_hello_proof(g->c->token, false, p->nonce, m->data, m->len, proof);
    if (g->nkids == GATE_CLIENTS) { pending_refuse(g, i, "too many clients at once"); return; }
    char what[512];
    serve_args_text(h, what, sizeof what);
    serve_log(p->peer, "connected: %s", what);
    dfn_wirebuf_take(&p->in, used);
    pid_t gate_pid = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* the handler: gone with the gate; blocking from here on */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != gate_pid) _exit(1);
        (void)fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) & ~O_NONBLOCK);
        close(g->c->lfd);
        for (size_t k = 0; k < g->np; k++)
            if (k != i) close(g->p[k].fd);
        dfn_wirebuf b = {0};
        dfn_welcome_put(&b, proof);
        bool sent = dfn_wire_send(p->fd, &b);
        dfn_wirebuf_free(&b);
        _exit(sent ? serve_handler_run(g->c, p->fd, p->peer, h, &p->in) : 1);
    }
    if (pid < 0) serve_log(p->peer, "no process for it: %s", strerror(errno));
    else g->kids[g->nkids++] = pid;
    pending_drop(g, i);
}

/* Reads what pending connection i sent; admits or refuses it once its
 * greeting is whole. */
static void gate_read(gate *g, size_t i)
{
    pending *p = &g->p[i];
    dfn_grow((void **)&p->in.buf, &p->in.cap, p->in.len + 65536, 1);
    ssize_t n = recv(p->fd, p->in.buf + p->in.len, 65536, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        serve_log(p->peer, "refused: closed before its greeting");
        pending_drop(g, i);
        return;
    }
    p->in.len += (size_t)n;
    dfn_msg m;
    size_t used;
    char err[256];
    int r = dfn_wire_next(p->in.buf, p->in.len, &m, &used, err, sizeof err);
    if (r == 0) return;
    dfn_hello h;
    memset(&h, 0, sizeof h);
    if (r < 0 || !gate_check(g, p, &m, &h, err, sizeof err)) pending_refuse(g, i, err);
    else gate_admit(g, i, &h, &m, used);
    dfn_hello_free(&h);
}

static void gate_reap(gate *g)
{
    for (size_t i = 0; i < g->nkids;) {
        int st;
        if (waitpid(g->kids[i], &st, WNOHANG) == g->kids[i]) g->kids[i] = g->kids[--g->nkids];
        else i++;
    }
}

/* Ends the handlers (each ends its command), then the gate; when the
 * server died first (killed outright, or by the kernel out of memory),
 * also removes its token file and the image's directory, which it could
 * not. */
static _Noreturn void gate_end(gate *g)
{
    if (getppid() != g->c->server) {
        if (g->c->tokpath) serve_token_remove(g->c->tokpath, g->c->token);
        if (g->c->priv) cli_rmdir(g->c->priv);
        serve_log("gate", "the server is gone: its token file and image removed");
    }
    for (size_t i = 0; i < g->nkids; i++) kill(g->kids[i], SIGTERM);
    for (int t = 0; t < 40 && g->nkids; t++) {
        struct timespec ts = { 0, 50 * 1000000 };
        nanosleep(&ts, NULL);
        gate_reap(g);
    }
    for (size_t i = 0; i < g->nkids; i++) kill(g->kids[i], SIGKILL);
    _exit(0);
}

_Noreturn void serve_gate_run(const serve_ctx *c)
{
    static gate g;
    g.c = c;
    cli_signal_install(gate_on_signal, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    (void)fcntl(c->lfd, F_SETFL, fcntl(c->lfd, F_GETFL) | O_NONBLOCK);
    while (!gate_stop && getppid() == c->server) {
        struct pollfd fds[1 + GATE_PENDING];
        fds[0] = (struct pollfd){ c->lfd, POLLIN, 0 };
        for (size_t i = 0; i < g.np; i++) fds[1 + i] = (struct pollfd){ g.p[i].fd, POLLIN, 0 };
        size_t np = g.np;
        int r = poll(fds, 1 + np, 200);
        gate_reap(&g);
        if (r > 0) {
            /* from the last, as a dropped one takes the last's place */
            for (size_t i = np; i-- > 0;)
                if (fds[1 + i].revents) gate_read(&g, i);
            if (fds[0].revents) gate_accept(&g);
        }
        double now = dfn_now();
        for (size_t i = g.np; i-- > 0;)
            if (now > g.p[i].deadline) pending_refuse(&g, i, "no greeting in 5 s");
        gate_log_refusal_flush(&g, now);
    }
    gate_end(&g);
}
