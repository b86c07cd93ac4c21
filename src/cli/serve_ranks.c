/* dfnav serve --spread: the set stays in shares on the MPI ranks, each
 * holding its own (dist_report.c keeps them), and a client's report,
 * overview or info runs on every rank at once, as report does under
 * mpirun. A client's command is still dfnav started by its handler
 * (serve_handler.c); here it asks the ranks: it sends its command line,
 * and its stdout and stderr, over a socket in the server's private
 * directory to rank 0, which hands the command line to the other ranks,
 * runs the command with its output going to the client's descriptors,
 * and answers its exit status. One command at a time: every rank takes
 * part in each.
 *
 * What this file owns: that socket and its messages (both ends), rank
 * 0's loop over them, and the other ranks' loop over rank 0's word. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "serve.h"
#include "dfnav/dist.h"
#include "dfnav/util.h"
#include "dfnav/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* A command's status, answered on the socket: an i32, little-endian. */
static void status_put(uint8_t *p, int v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)((uint32_t)v >> (8 * i));
}

static int status_get(const uint8_t *p)
{
    return (int)(int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Whether a command's word is one the ranks answer. */
static bool word_ok(int word)
{
    return word == CLI_DIST_REPORT || word == CLI_DIST_OVERVIEW || word == CLI_DIST_INFO;
}

/* What a command's queries took goes back to the system between
 * commands: a server waits long with its shares (glibc keeps freed
 * memory in its heaps otherwise). */
static void ranks_idle(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* ---- the client's command (a handler's child) ---- */

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

/* Sends the request with fds 1 and 2 beside its first bytes. */
static bool ask_send(int fd, const uint8_t *req, size_t len)
{
    int fds[2] = { STDOUT_FILENO, STDERR_FILENO };
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof fds)]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)req, len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    ssize_t w;
    do w = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w > 0 && send_all(fd, req + w, len - (size_t)w);
}

int serve_ranks_ask(const cli_opts *o, int (*cmd)(const cli_opts *), bool piped, int argc, char **argv)
{
    int word = cmd == cmd_report ? CLI_DIST_REPORT : cmd == cmd_overview || (!cmd && piped) ? CLI_DIST_OVERVIEW
               : cmd == cmd_info ? CLI_DIST_INFO : -1;
    if (word < 0) {
        fprintf(stderr, "dfnav: this server holds the set in shares on its ranks (serve --spread), which answer report, "
                "overview and info; the explorer needs the set in one process (dfnav serve without --spread, on a node "
                "that holds it)\n");
        return 2;
    }
    size_t len;
    uint8_t *req = dfn_ranksreq_encode(word, (size_t)argc, argv, &len);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = -1;
    bool ok = req && strlen(o->ranks) < sizeof a.sun_path;
    if (ok) {
        memcpy(a.sun_path, o->ranks, strlen(o->ranks) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && ask_send(fd, req, len);
    }
    free(req);
    uint8_t st[4];
    size_t got = 0;
    while (ok && got < sizeof st) {
        ssize_t r = recv(fd, st + got, sizeof st - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (fd >= 0) close(fd);
    if (got != sizeof st) {
        fprintf(stderr, "dfnav: serve: the ranks did not answer (%s)\n", ok ? "the server is gone" : strerror(errno));
        return 2;
    }
    return status_get(st);
}

/* ---- rank 0 ---- */

int serve_ranks_listen(const char *dir, char **path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    *path = dfn_xasprintf("%s/ranks", dir);
    if (strlen(*path) >= sizeof a.sun_path) {
        dfn_warnf(stderr, "serve: the private directory's name is too long for a socket: %s", dir);
        return -1;
    }
    memcpy(a.sun_path, *path, strlen(*path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    /* (in a directory of mode 0700, and 0600 itself: the server's user only) */
    mode_t old = umask(0177);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 64) == 0;
    umask(old);
    if (!ok) {
        dfn_warnf(stderr, "serve: the ranks' socket %s: %s", *path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

static bool recv_all(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= (size_t)r;
    }
    return true;
}

/* A request from connection fd (its bytes malloc'd, *len) and the
 * descriptors that came with it; NULL, said in why, when it is none. */
static uint8_t *req_recv(int fd, size_t *len, int out[2], char *why, size_t cap)
{
    out[0] = out[1] = -1;
    uint8_t head[DFN_RANKSREQ_HEAD];
    int fds[2] = { -1, -1 };
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof fds)]; } ctl;
    struct iovec iov = { head, sizeof head };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf };
    ssize_t r;
    do r = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    for (struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            int got[8];
            if (k > 8) k = 8;
            memcpy(got, CMSG_DATA(c), k * sizeof(int));
            for (size_t i = 0; i < k; i++) {
                if (i < 2 && fds[i] < 0) fds[i] = got[i];
                else close(got[i]);
            }
        }
    size_t body = 0;
    bool whole = r > 0 && !(m.msg_flags & MSG_CTRUNC) && fds[1] >= 0 &&
                 recv_all(fd, head + r, sizeof head - (size_t)r);
    if (!whole || !dfn_ranksreq_head(head, &body, why, cap)) {
        if (!whole) snprintf(why, cap, "%s", r <= 0 ? "nothing came" : fds[1] < 0 ? "no descriptors came" : "cut short");
        for (int i = 0; i < 2; i++) if (fds[i] >= 0) close(fds[i]);
        return NULL;
    }
    uint8_t *b = dfn_xmalloc(DFN_RANKSREQ_HEAD + body);
    memcpy(b, head, DFN_RANKSREQ_HEAD);
    if (!recv_all(fd, b + DFN_RANKSREQ_HEAD, body)) {
        snprintf(why, cap, "the command was cut short");
        free(b);
        for (int i = 0; i < 2; i++) close(fds[i]);
        return NULL;
    }
    *len = DFN_RANKSREQ_HEAD + body;
    out[0] = fds[0];
    out[1] = fds[1];
    return b;
}

/* The command of request b on every rank: the bytes to the others, then
 * the command here with its output on the client's descriptors. Its
 * exit status. */
static int ranks_run(const uint8_t *b, size_t len, const int out[2], char *why, size_t cap)
{
    dfn_ranksreq q;
    bool decoded = dfn_ranksreq_decode(b, len, &q, why, cap);
    if (!decoded || !word_ok(q.word)) {
        if (decoded) snprintf(why, cap, "a command of word %d", q.word);
        dfn_ranksreq_free(&q);
        return -1;
    }
    for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, b, len);
    fflush(stdout);
    fflush(stderr);
    int keep[2] = { dup(STDOUT_FILENO), dup(STDERR_FILENO) };
    dup2(out[0], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    clearerr(stdout);   /* (a client that left early set its error) */
    clearerr(stderr);
    cli_opts o;
    dfn_ctrs ctrs = {0};
    char **words = NULL;
    cli_dist_reopen();
    int rc = cli_request_opts((int)q.argc, q.argv, &o, &ctrs, &words);
    if (rc < 0) rc = q.word == CLI_DIST_REPORT ? cmd_report(&o) : q.word == CLI_DIST_INFO ? cmd_info(&o) : cmd_overview(&o);
    cli_dist_settle();   /* (the other ranks hear a word for every command) */
    fflush(stdout);
    fflush(stderr);
    dup2(keep[0], STDOUT_FILENO);
    dup2(keep[1], STDERR_FILENO);
    close(keep[0]);
    close(keep[1]);
    clearerr(stdout);
    clearerr(stderr);
    free(words);
    dfn_ctrs_free(&ctrs);
    dfn_ranksreq_free(&q);
    ranks_idle();
    return rc;
}

/* Whether the peer of connection fd runs as this server's user. */
static bool peer_ours(int fd)
{
    struct ucred cr;
    socklen_t l = sizeof cr;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0 && cr.uid == getuid();
}

/* One connection: its request run, its status answered. */
static void ranks_take(int fd)
{
    char why[128], peer[64] = "a local command";
    int out[2];
    size_t len;
    struct timeval tv = { 5, 0 };   /* (a request is sent at once: no peer holds the ranks) */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    uint8_t *b = peer_ours(fd) ? req_recv(fd, &len, out, why, sizeof why) : NULL;
    if (!b) {
        serve_log(peer, "ranks: refused: %s", peer_ours(fd) ? why : "another user");
        return;
    }
    int rc = ranks_run(b, len, out, why, sizeof why);
    free(b);
    close(out[0]);
    close(out[1]);
    if (rc < 0) {   /* (no command of a client's: its connection just ends) */
        serve_log(peer, "ranks: refused: %s", why);
        return;
    }
    uint8_t st[4];
    status_put(st, rc);
    (void)send_all(fd, st, sizeof st);
}

void serve_ranks_loop(int lfd, volatile sig_atomic_t *stop)
{
    sigset_t stops, during;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGHUP);
    sigprocmask(SIG_BLOCK, &stops, &during);
    sigdelset(&during, SIGINT);
    sigdelset(&during, SIGTERM);
    sigdelset(&during, SIGHUP);
    while (!*stop) {
        struct pollfd p = { lfd, POLLIN, 0 };
        if (ppoll(&p, 1, NULL, &during) <= 0) continue;   /* (a signal: *stop says) */
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        ranks_take(fd);
        close(fd);
    }
    sigprocmask(SIG_UNBLOCK, &stops, NULL);
}

void serve_ranks_end(void)
{
    for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, "E", 1);
}

/* ---- the other ranks ---- */

int serve_ranks_worker(const cli_opts *o)
{
    uint64_t events;
    int status = cli_dist_spread_load(o, &events);
    if (status >= 3) return status;
    /* rank 0 ends the server, cleaning up what it owns (the token file),
     * and then tells these the end: a launcher passes Ctrl-C to every
     * rank, and a rank that died of it would take rank 0 down first */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    for (;;) {
        size_t len;
        char *b = dfn_dist_recv_bytes(0, &len), why[128];
        dfn_ranksreq q;
        /* (rank 0 sends only what it decoded: else 'E', the end) */
        if (!b || !dfn_ranksreq_decode((const uint8_t *)b, len, &q, why, sizeof why)) {
            dfn_ranksreq_free(&q);
            free(b);
            break;
        }
        cli_opts ro;
        dfn_ctrs ctrs = {0};
        char **words = NULL;
        bool parsed = cli_request_opts((int)q.argc, q.argv, &ro, &ctrs, &words) < 0;
        /* (rank 0 gives a word for every command, whatever its parse said) */
        int w = dfn_dist_bcast_int(CLI_DIST_STOP);
        if (parsed && (w == CLI_DIST_REPORT || w == CLI_DIST_OVERVIEW || w == CLI_DIST_INFO))
            (void)cli_dist_report_worker(&ro, w);
        free(words);
        dfn_ctrs_free(&ctrs);
        dfn_ranksreq_free(&q);
        free(b);
        ranks_idle();
    }
    cli_dist_spread_free();
    return 0;
}
