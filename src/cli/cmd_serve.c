/* dfnav serve: a set loaded once (its parse divided among the ranks under
 * mpirun, srun or flux), kept as an image in a private directory, and the
 * commands and explorers of clients (`dfnav --connect`) run against it
 * until SIGINT, SIGTERM or SIGHUP.
 *
 * The server listens (on localhost unless told) from the start, so that a
 * client sees the load's progress: a gate process, forked before the load
 * while the server is small, takes the connections (serve_gate.c) and
 * runs each admitted client's command in a handler (serve_handler.c).
 * Each command is dfnav itself over the set's image, so screens, keys and
 * output are those of a local run byte for byte; the server itself keeps
 * no store once the image is written. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "serve.h"
#include "dfnav/cache.h"
#include "dfnav/dist.h"
#include "dfnav/util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- shared by the parts ---- */

static void board_say(serve_board *b, const char *text)
{
    atomic_fetch_add(&b->seq, 1);
    size_t i = 0;
    for (; text[i] && i < sizeof b->text - 1; i++) atomic_store(&b->text[i], (unsigned char)text[i]);
    atomic_store(&b->text[i], 0);
    atomic_fetch_add(&b->seq, 1);
}

bool serve_board_read(serve_board *b, char *out, size_t cap, unsigned *seq)
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

void serve_log(const char *peer, const char *fmt, ...)
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

bool serve_send_msg(int fd, uint8_t type, const void *data, size_t len)
{
    dfn_wirebuf b = {0};
    dfn_wire_put_split(&b, type, data, len);
    if (!len) dfn_wire_put(&b, type, NULL, 0);
    bool ok = dfn_wire_send(fd, &b);
    dfn_wirebuf_free(&b);
    return ok;
}

bool serve_send_exit(int fd, int status)
{
    dfn_wirebuf b = {0};
    dfn_wire_put_i32(&b, DFN_MSG_EXIT, status);
    bool ok = dfn_wire_send(fd, &b);
    dfn_wirebuf_free(&b);
    return ok;
}

void serve_args_text(const dfn_hello *h, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = 0;
    for (size_t i = 0; i < h->argc && w < cap; i++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? " " : "", h->argv[i]);
    if (!h->argc) snprintf(buf, cap, "%s", h->pty ? "the explorer" : "(no command)");
}

void serve_peer_name(const struct sockaddr *sa, unsigned len, char *buf, size_t cap)
{
    char host[NI_MAXHOST], port[NI_MAXSERV];
    if (getnameinfo(sa, len, host, sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        snprintf(buf, cap, "?");
    else
        snprintf(buf, cap, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

/* ---- the server ---- */

static serve_board *g_board;
static void serve_progress(const char *line) { if (g_board) board_say(g_board, line); }

static volatile sig_atomic_t serve_signal;
static void serve_on_signal(int sig) { serve_signal = sig; }

/* What a signal during the load removes (it ends the server at once, as
 * it ends any load): the token file while it holds our token, the private
 * directory, the gate; then MPI's handler, when one was installed after
 * this one, has already run, and the one before this has its turn. Only
 * async-signal-safe calls. */
static const char *volatile sig_tokpath;
static const char *volatile sig_token;
static const char *volatile sig_dir;
static volatile pid_t sig_gate;
static struct sigaction sig_prev[3];

static void serve_clean(void)
{
    const char *path = sig_tokpath, *tok = sig_token;
    if (path && tok) {
        char buf[DFN_TOKEN_LEN];
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        bool ours = fd >= 0 && read(fd, buf, sizeof buf) == (ssize_t)sizeof buf && memcmp(buf, tok, sizeof buf) == 0;
        if (fd >= 0) close(fd);
        if (ours) unlink(path);
    }
    if (sig_dir) cli_rmdir_now(sig_dir);
    if (sig_gate > 0) kill(sig_gate, SIGTERM);
}

static void serve_on_signal_loading(int sig)
{
    (void)cli_signal_first();
    serve_clean();
    cli_signal_chain(sig, sig_prev);
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
    serve_peer_name((struct sockaddr *)&sa, sl, shown, cap);
    return fd;
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

/* Under MPI the ranks' images of their shares (rank 0's too), now in
 * the set's own. */
static void serve_drop_rank_images(const char *dir, size_t nruns)
{
    for (int r = 0; r < dfn_dist_size(); r++)
        for (size_t k = 0; k < nruns; k++) {
            char *p = cli_dist_image_name(dir, r, k);
            unlink(p);
            free(p);
        }
}

void serve_token_remove(const char *path, const char *token)
{
    char now[DFN_TOKEN_LEN + 1], err[512];
    if (dfn_token_read(path, now, err, sizeof err) && dfn_token_equal(now, token)) unlink(path);
}

/* Refuses to replace the token of a server that still runs on this host
 * (its clients would all be refused); a token of another host's server is
 * replaced with a warning, as this host cannot tell whether it runs. */
static bool serve_token_free(const char *path, const char *host)
{
    char owner[256];
    long pid;
    if (!dfn_token_owner(path, owner, sizeof owner, &pid)) return true;
    if (strcmp(owner, host) == 0) {
        /* gone, or its pid now another program's */
        char proc[64], comm[32] = "";
        snprintf(proc, sizeof proc, "/proc/%ld/comm", pid);
        FILE *f = fopen(proc, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
            fclose(f);
        }
        if (pid == (long)getpid() || kill((pid_t)pid, 0) != 0 || strncmp(comm, "dfnav", 5) != 0) return true;
        fprintf(stderr, "dfnav: serve: %s holds the token of a server that runs here (pid %ld): stop it, or give "
                "this one --token-file\n", path, pid);
        return false;
    }
    dfn_warnf(stderr, "serve: %s held the token of a server on %s, which this one replaces: that one's clients "
              "need a token file of their own (--token-file)", path, owner);
    return true;
}

/* The clients that wait hear of a failed load before the server goes. */
static void serve_linger(void)
{
    struct timespec ts = { 0, 500 * 1000000 };
    nanosleep(&ts, NULL);
}

/* The board, and the log, say how the load went: ready (text), or
 * failed with its status. */
static void serve_announce(serve_board *board, bool ok, int status, const char *ready)
{
    char text[256];
    if (!ok) {
        snprintf(text, sizeof text, "dfnav: serve: the set could not be loaded (status %d; the server's log says why)\n",
                 status);
        atomic_store(&board->status, status);
        board_say(board, text);
        atomic_store(&board->state, SERVE_FAILED);
    } else {
        board_say(board, ready);
        atomic_store(&board->state, SERVE_READY);
        dfn_warnf(stderr, "serve: %s; Ctrl-C stops the server", ready);
    }
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
    size_t nruns = runs ? n : 1;
    cli_runs_free(&so, runs, n);
    if (cli_dist_dir()) serve_drop_rank_images(*dir, nruns);
    if (status < 3 && strlen(*dir) >= sizeof board->dir) {
        dfn_warnf(stderr, "serve: the image's directory has too long a name: %s", *dir);
        status = 3;
    }
    snprintf(board->dir, sizeof board->dir, "%s", *dir);
    char text[256];
    snprintf(text, sizeof text, "ready: %" PRIu64 " events", events);
    serve_announce(board, status < 3, status, text);
    return status;
}

/* serve --spread's stop (a signal while the ranks hold the set): what
 * the server leaves goes at once (the token, the socket, the gate), as a
 * launcher ends the ranks soon after; the loop ends after its command. */
static int spread_wake[2] = { -1, -1 };
static void serve_on_signal_spread(int sig)
{
    serve_signal = sig;
    serve_clean();
    if (spread_wake[1] >= 0) (void)!write(spread_wake[1], "", 1);   /* (another thread may have taken it) */
}

/* serve --spread: every rank loads its share and keeps it; rank 0 then
 * runs its clients' commands on the ranks (serve_ranks.c) until a
 * signal. The load's status. */
static int serve_spread(const cli_opts *o, serve_board *board, const char *priv)
{
    char text[256], *path = NULL;
    /* (the socket before the load: a TMPDIR too long for it is said at once) */
    int lfd = serve_ranks_listen(priv, &path), status = 3;
    uint64_t events = 0;
    if (lfd < 0) {
        cli_dist_settle();   /* (the other ranks hear stop, before MPI ends) */
    } else {
        snprintf(text, sizeof text, "the %d rank%s load their shares of the set", dfn_dist_size(),
                 dfn_dist_size() == 1 ? "" : "s");
        board_say(board, text);
        /* (the ranks' progress on the board as they load) */
        cli_opts so = *o;
        so.progress = serve_progress;
        so.serve = true;
        status = cli_dist_spread_load(&so, &events);
    }
    bool kept = lfd >= 0 && status < 2;
    snprintf(board->dir, sizeof board->dir, "%s", priv);
    snprintf(text, sizeof text, "ready: %" PRIu64 " events, in shares on %d rank%s", events, dfn_dist_size(),
             dfn_dist_size() == 1 ? "" : "s");
    serve_announce(board, kept, status, text);
    if (kept) {
        if (pipe2(spread_wake, O_CLOEXEC | O_NONBLOCK) != 0) spread_wake[0] = spread_wake[1] = -1;
        /* (restarted, not cut short: a command's writes run on) */
        cli_signal_install_flags(serve_on_signal_spread, NULL, SA_RESTART);
        serve_ranks_loop(lfd, spread_wake[0], priv, &serve_signal);
    } else {
        serve_linger();
    }
    serve_clean();
    if (kept) {
        dfn_warnf(stderr, "serve: stopped by signal %d", (int)serve_signal);
        serve_ranks_end();
        cli_dist_spread_free();
    }
    if (lfd >= 0) close(lfd);
    for (int i = 0; i < 2; i++) if (spread_wake[i] >= 0) close(spread_wake[i]);
    free(path);
    return status;
}

/* Waits for INT, TERM or HUP. */
static void serve_wait(void)
{
    sigset_t stops, during;
    cli_signal_stops(&stops, &during);
    while (!serve_signal) sigsuspend(&during);
}

/* Starts the gate; its pid, or -1. */
static pid_t serve_gate_start(const serve_ctx *c)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) return pid;
    /* gone with the server, however it ends */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(0);
    serve_gate_run(c);
}

/* The listening socket, the token and its file, the private directory
 * and the shared board: false with a message when one fails. */
static bool serve_setup(serve_ctx *c, const cli_opts *o, char **tokpath, char **priv)
{
    char shown[NI_MAXHOST + NI_MAXSERV + 4], err[512], host[256];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    c->exe = realpath("/proc/self/exe", NULL);
    *tokpath = o->token_file ? dfn_xstrdup(o->token_file) : dfn_token_path();
    if (!c->exe || !*tokpath) {
        fprintf(stderr, "dfnav: serve: %s\n", !c->exe ? "cannot find this program (/proc/self/exe)" :
                "no home directory for the token: --token-file names its file");
        return false;
    }
    if (!serve_token_free(*tokpath, host)) return false;
    /* for the signal handler, which is in place already: the file is ours
     * once it holds our token, which it compares */
    sig_tokpath = *tokpath;
    sig_token = c->token;
    c->lfd = serve_listen(o->listen ? o->listen : "127.0.0.1:0", shown, sizeof shown, err, sizeof err);
    if (c->lfd < 0 || !dfn_token_new(c->token, err, sizeof err) ||
        !dfn_token_write(*tokpath, c->token, host, (long)getpid(), err, sizeof err)) {
        fprintf(stderr, "dfnav: serve: %s\n", err);
        return false;
    }
    *priv = serve_mkdir();
    sig_dir = *priv;
    c->board = mmap(NULL, sizeof *c->board, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!*priv || c->board == MAP_FAILED) {
        if (c->board == MAP_FAILED) fprintf(stderr, "dfnav: serve: %s\n", strerror(errno));
        c->board = NULL;
        return false;
    }
    board_say(c->board, "loading");
    dfn_warnf(stderr, "serve: listening on %s; token in %s", shown, *tokpath);
    dfn_warnf(stderr, "serve: connect with: dfnav --connect %s (from another machine: ssh -N -L PORT:%s NODE, "
              "then dfnav --connect localhost:PORT)", shown, shown);
    return true;
}

/* Whether every input is a file that can be read again: each client's
 * command reopens the set (from its image, checked against each file),
 * and a pipe, a process substitution or standard input gives its bytes
 * once: a client's command would wait on it forever. Said when not. */
static bool serve_inputs_reread(const cli_opts *o)
{
    for (size_t i = 0; i < o->npaths; i++)
        if (strcmp(o->paths[i], "-") == 0) {
            fprintf(stderr, "dfnav: serve reads trace files, not standard input (each client's command reopens the set)\n");
            return false;
        }
    dfn_runspec *specs;
    size_t n, m;
    char msg[512];
    if (!dfn_runs_parse(o->paths, o->npaths, o->compare, &specs, &n, msg, sizeof msg)) return true;   /* (the load says it) */
    const char **files = dfn_runs_paths(specs, n, &m);
    bool ok = true;
    for (size_t i = 0; i < m && ok; i++) {
        struct stat st;
        if (stat(files[i], &st) == 0 && !S_ISREG(st.st_mode)) {
            dfn_warnf(stderr, "serve reads trace files, and %s is none (a pipe gives its bytes once, and each "
                      "client's command reopens the set): save it to a file first", files[i]);
            ok = false;
        }
    }
    free(files);
    dfn_runs_free(specs, n);
    return ok;
}

int cmd_serve(const cli_opts *o)
{
    if (!serve_inputs_reread(o)) return 2;
    serve_ctx c = { .o = o, .lfd = -1 };
    char *tokpath = NULL, *priv = NULL;
    int status = 2;
    pid_t gate = -1;
    /* before the token file and the first word on stderr: a signal that
     * came after "listening" and found the handler missing was lost where
     * the shell started the server with SIGINT ignored (a script's &),
     * and elsewhere left the token file behind */
    cli_signal_install(serve_on_signal_loading, sig_prev);
    if (!serve_setup(&c, o, &tokpath, &priv)) goto out;
    g_board = c.board;
    c.server = getpid();
    c.tokpath = tokpath;
    c.priv = priv;
    gate = serve_gate_start(&c);
    sig_gate = gate;
    if (gate < 0) { fprintf(stderr, "dfnav: serve: no process for the gate: %s\n", strerror(errno)); goto out; }
    close(c.lfd);
    c.lfd = -1;
    const char *dir = priv;
    if (o->spread) {
        status = serve_spread(o, c.board, priv);
        dfn_dist_end();
        goto out;
    }
    status = serve_load(o, c.board, &dir);
    /* the other ranks are done: they end now, not with the server */
    dfn_dist_end();
    if (status < 3) {
        cli_signal_install(serve_on_signal, NULL);
        serve_wait();
        dfn_warnf(stderr, "serve: stopped by signal %d", (int)serve_signal);
    } else {
        serve_linger();
    }
out:
    sig_gate = 0;
    if (gate > 0) { kill(gate, SIGTERM); waitpid(gate, NULL, 0); }
    if (c.lfd >= 0) close(c.lfd);
    sig_tokpath = NULL;
    if (tokpath && c.token[0]) serve_token_remove(tokpath, c.token);
    sig_dir = NULL;
    if (priv) cli_rmdir(priv);
    g_board = NULL;
    if (c.board) munmap(c.board, sizeof *c.board);
    free(c.exe);
    free(tokpath);
    free(priv);
    return status;
}
