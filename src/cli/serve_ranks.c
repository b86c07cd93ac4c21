/* dfnav serve --spread: the set stays in shares on the MPI ranks, each
 * holding its own (dist_report.c keeps them), and a client's report,
 * overview or info runs on every rank at once, as report does under
 * mpirun. A client's command is still dfnav started by its handler
 * (serve_handler.c); here it asks the ranks: it sends its command line
 * (dfn_ranksreq, wire.h) over a socket in the server's private directory
 * to rank 0, which hands it to the other ranks and runs the command with
 * its output going to two files of its own. The answer is the exit
 * status, with those two files (their descriptors), which the client's
 * command copies to its own output at its client's pace: a client that
 * stops reading holds up no rank. One command at a time: every rank
 * takes part in each.
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Whether a command's word is one the ranks answer. */
static bool word_ok(int word)
{
    return word == CLI_DIST_REPORT || word == CLI_DIST_OVERVIEW || word == CLI_DIST_INFO || word == CLI_DIST_QUERY;
}

/* An explorer's query (CLI_DIST_QUERY) is the words: its op, the run, the
 * query's bytes in hex, then the explorer's command line. */
enum { QUERY_WORDS = 3 };

/* The query's parts of request q; false when they are none. */
static bool query_parts(const dfn_ranksreq *q, int *op, size_t *run, uint8_t **spec, size_t *len)
{
    char *end;
    if (q->argc <= QUERY_WORDS) return false;
    unsigned long o = strtoul(q->argv[0], &end, 10), r;
    if (*end || o < CLI_QUERY_OUTLINE || o > CLI_QUERY_END) return false;
    r = strtoul(q->argv[1], &end, 10);
    if (*end || !*q->argv[1] || r > 4096) return false;
    *spec = dfn_unhex(q->argv[2], len);
    if (!*spec) return false;
    *op = (int)o;
    *run = r;
    return true;
}

/* The query of request q on every rank (this one's o parsed from its
 * command line); rank 0 tells the others once its parts are whole. Its
 * status. */
static int query_run(const cli_opts *o, const dfn_ranksreq *q)
{
    int op;
    size_t run, len;
    uint8_t *spec;
    if (!query_parts(q, &op, &run, &spec, &len)) {
        fprintf(stderr, "dfnav: serve: an explorer's query that is none\n");   /* (rank 0 alone: it told none) */
        return 2;
    }
    if (dfn_dist_rank() == 0) cli_dist_tell(CLI_DIST_QUERY);
    int rc = cli_dist_query(o, op, run, spec, len);
    free(spec);
    return rc;
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

/* The answer on fd: its EXIT frame, and the command's output and error
 * files (fds[0], fds[1]); false when none came whole. */
static bool ask_answer(int fd, int *status, int fds[2])
{
    uint8_t buf[DFN_WIRE_HEAD + 4];
    int got[2];
    union { struct cmsghdr h; char b[CMSG_SPACE(sizeof got)]; } ctl;
    struct iovec iov = { buf, sizeof buf };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
    ssize_t r;
    do r = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (r < 0 && errno == EINTR);
    struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof got)) {
        /* (what came instead is not kept open) */
        for (; c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
                for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
                    int x;
                    memcpy(&x, CMSG_DATA(c) + i * sizeof x, sizeof x);
                    close(x);
                }
        return false;
    }
    memcpy(got, CMSG_DATA(c), sizeof got);
    fds[0] = got[0];
    fds[1] = got[1];
    dfn_msg msg;
    size_t used;
    char err[128];
    if (r != (ssize_t)sizeof buf || dfn_wire_next(buf, sizeof buf, &msg, &used, err, sizeof err) != 1 ||
        msg.type != DFN_MSG_EXIT) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    *status = dfn_wire_i32(msg.data);
    return true;
}

/* The file at fd, from its start, to out. */
static void copy_file(int fd, int out)
{
    static char buf[1 << 16];
    ssize_t n;
    (void)lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return;   /* (the client is gone) */
            done += w;
        }
}

bool serve_ranks_call(const char *sock, int word, size_t argc, char *const *argv, int *status, int fds[2])
{
    size_t len;
    uint8_t *req = dfn_ranksreq_encode(word, argc, argv, &len);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = -1;
    bool ok = req && strlen(sock) < sizeof a.sun_path;
    if (ok) {
        memcpy(a.sun_path, sock, strlen(sock) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        dfn_wirebuf w = { req, len, len };   /* (the request's bytes as they are: no frame) */
        ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0 && dfn_wire_send(fd, &w) &&
             ask_answer(fd, status, fds);
    }
    free(req);
    if (fd >= 0) close(fd);
    return ok;
}

int serve_ranks_ask(const cli_opts *o, int (*cmd)(const cli_opts *), bool piped, int argc, char **argv)
{
    int word = cmd == cmd_report ? CLI_DIST_REPORT : cmd == cmd_overview || (!cmd && piped) ? CLI_DIST_OVERVIEW
               : cmd == cmd_info ? CLI_DIST_INFO : -1;
    if (word < 0) {   /* (main takes the explorer to serve_remote_explore) */
        fprintf(stderr, "dfnav: serve: no command the ranks answer\n");
        return 2;
    }
    int status = 2, fds[2];
    if (!serve_ranks_call(o->ranks, word, (size_t)argc, argv, &status, fds)) {
        fprintf(stderr, "dfnav: serve: the ranks did not answer (the server is gone, or refused the command)\n");
        return 2;
    }
    /* (what the command says comes before its table, as on a terminal) */
    copy_file(fds[1], STDERR_FILENO);
    copy_file(fds[0], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    return status;
}

/* ---- rank 0 ---- */

int serve_ranks_listen(const char *dir, char **path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    *path = dfn_xasprintf("%s/ranks", dir);
    if (strlen(*path) >= sizeof a.sun_path) {
        dfn_warnf(stderr, "serve: the private directory's name is too long for a socket: %s (a shorter TMPDIR)", dir);
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

/* A request from connection fd (its bytes malloc'd, *len); NULL, said in
 * why, when it is none. */
static uint8_t *req_recv(int fd, size_t *len, char *why, size_t cap)
{
    uint8_t head[DFN_RANKSREQ_HEAD];
    size_t body = 0;
    if (!recv_all(fd, head, sizeof head)) {
        snprintf(why, cap, "a command cut short");
        return NULL;
    }
    if (!dfn_ranksreq_head(head, &body, why, cap)) return NULL;
    uint8_t *b = dfn_xmalloc(DFN_RANKSREQ_HEAD + body);
    memcpy(b, head, DFN_RANKSREQ_HEAD);
    if (!recv_all(fd, b + DFN_RANKSREQ_HEAD, body)) {
        snprintf(why, cap, "a command cut short");
        free(b);
        return NULL;
    }
    *len = DFN_RANKSREQ_HEAD + body;
    return b;
}

/* A file for a command's output, of this user's only, gone once closed:
 * in dir, else in memory; -1 when neither can be had. */
static int output_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#ifdef MFD_CLOEXEC
    if (fd < 0) fd = memfd_create("dfnav-output", MFD_CLOEXEC);
#endif
    return fd;
}

/* The command of request q here, its output on files out (which it
 * writes from their start); its exit status. The other ranks have the
 * request. */
static int ranks_command(const dfn_ranksreq *q, const int out[2])
{
    fflush(stdout);
    fflush(stderr);
    int keep[2] = { dup(STDOUT_FILENO), dup(STDERR_FILENO) };
    bool moved = keep[0] >= 0 && keep[1] >= 0 && dup2(out[0], STDOUT_FILENO) >= 0 && dup2(out[1], STDERR_FILENO) >= 0;
    clearerr(stdout);   /* (a command that could not write set them) */
    clearerr(stderr);
    cli_opts o;
    dfn_ctrs ctrs = {0};
    char **words = NULL;
    cli_dist_reopen();
    size_t skip = q->word == CLI_DIST_QUERY ? QUERY_WORDS : 0;
    int rc = q->argc > skip ? cli_request_opts((int)(q->argc - skip), q->argv + skip, &o, &ctrs, &words) : 2;
    if (rc < 0 && !moved) {
        rc = 2;   /* (nowhere to say anything: the ranks hear stop) */
    } else if (rc < 0 && q->word == CLI_DIST_QUERY) {
        rc = query_run(&o, q);
    } else if (rc < 0) {
        rc = q->word == CLI_DIST_REPORT ? cmd_report(&o) : q->word == CLI_DIST_INFO ? cmd_info(&o) : cmd_overview(&o);
    }
    cli_dist_settle();   /* (the other ranks hear a word for every command) */
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 2; i++)
        if (keep[i] >= 0) {
            dup2(keep[i], i ? STDERR_FILENO : STDOUT_FILENO);
            close(keep[i]);
        }
    clearerr(stdout);
    clearerr(stderr);
    free(words);
    dfn_ctrs_free(&ctrs);
    return rc;
}

/* Whether the peer of connection fd runs as this server's user. */
static bool peer_ours(int fd)
{
    struct ucred cr;
    socklen_t l = sizeof cr;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0 && cr.uid == getuid();
}

/* Whether the client of connection fd left (it sends nothing after its
 * request: readable means gone). */
static bool peer_gone(int fd)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, 0) > 0;
}

/* Sends the status and the output files on fd. */
static void answer(int fd, int status, const int out[2])
{
    dfn_wirebuf w = {0};
    dfn_wire_put_i32(&w, DFN_MSG_EXIT, status);
    union { struct cmsghdr h; char b[CMSG_SPACE(2 * sizeof(int))]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct iovec iov = { w.buf, w.len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), out, 2 * sizeof(int));
    ssize_t r;
    do r = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    dfn_wirebuf_free(&w);
}

/* One connection: its command run on every rank, its answer sent;
 * none once the server stops. */
static void ranks_take(int fd, const char *dir, volatile sig_atomic_t *stop)
{
    const char *peer = "a local command";
    char why[128];
    size_t len;
    struct timeval tv = { 5, 0 };   /* (a client's command sends its request at once) */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    bool ours = peer_ours(fd);
    uint8_t *b = ours ? req_recv(fd, &len, why, sizeof why) : NULL;
    dfn_ranksreq q = {0};
    int out[2] = { -1, -1 };
    bool decoded = b && dfn_ranksreq_decode(b, len, &q, why, sizeof why);
    if (b && (!decoded || !word_ok(q.word))) {
        if (decoded) snprintf(why, sizeof why, "a command of word %d", q.word);
        free(b);
        b = NULL;
    } else if (b && ((out[0] = output_file(dir)) < 0 || (out[1] = output_file(dir)) < 0)) {
        snprintf(why, sizeof why, "no file for its output: %s", strerror(errno));
        free(b);
        b = NULL;
    } else if (b && (peer_gone(fd) || *stop)) {
        snprintf(why, sizeof why, "%s", *stop ? "the server stops" : "gone before its command ran");
        free(b);
        b = NULL;
    }
    if (b) {
        for (int r = 1; r < dfn_dist_size(); r++) (void)dfn_dist_send_bytes(r, b, len);
        answer(fd, ranks_command(&q, out), out);
    } else {
        serve_log(peer, "ranks: refused: %s", ours ? why : "another user's");
    }
    for (int i = 0; i < 2; i++) if (out[i] >= 0) close(out[i]);
    dfn_ranksreq_free(&q);
    free(b);
    ranks_idle();
}

void serve_ranks_loop(int lfd, int wake, const char *dir, volatile sig_atomic_t *stop)
{
    /* the stops wait while *stop is read, and come during ppoll (and
     * while a command runs: their handler cleans up at once); one that
     * another thread took (MPI's own) says so on wake */
    sigset_t stops, during;
    cli_signal_stops(&stops, &during);
    struct timespec rest = { 0, 50 * 1000000 };
    while (!*stop) {
        struct pollfd p[2] = { { lfd, POLLIN, 0 }, { wake, POLLIN, 0 } };
        int n = ppoll(p, 2, NULL, &during);
        if (n < 0 && errno != EINTR) nanosleep(&rest, NULL);   /* (a rest, not a spin) */
        if (n <= 0 || *stop || !(p[0].revents & POLLIN)) continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {   /* (no descriptor to spare) */
            nanosleep(&rest, NULL);
            continue;
        }
        sigprocmask(SIG_SETMASK, &during, NULL);
        ranks_take(fd, dir, stop);
        sigprocmask(SIG_BLOCK, &stops, NULL);
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
    if (status >= 2) return status;
    /* rank 0 ends the server, cleaning up what it owns (the token file),
     * and then tells these the end: a launcher passes Ctrl-C to every
     * rank, and a rank that died of it would take rank 0 down first */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    for (;;) {
        dfn_dist_wait_bytes(0);
        size_t len;
        char *b = dfn_dist_recv_bytes(0, &len), why[128];
        dfn_ranksreq q = {0};
        /* (rank 0 sends only what it decoded: else 'E', the end) */
        if (!b || !dfn_ranksreq_decode((const uint8_t *)b, len, &q, why, sizeof why)) {
            dfn_ranksreq_free(&q);
            free(b);
            break;
        }
        cli_opts ro;
        dfn_ctrs ctrs = {0};
        char **words = NULL;
        size_t skip = q.word == CLI_DIST_QUERY ? QUERY_WORDS : 0;
        bool parsed = q.argc > skip && cli_request_opts((int)(q.argc - skip), q.argv + skip, &ro, &ctrs, &words) < 0;
        /* (rank 0 gives a word for every command, whatever its parse said) */
        int w = dfn_dist_bcast_int(CLI_DIST_STOP);
        if (parsed && w == CLI_DIST_QUERY) (void)query_run(&ro, &q);
        else if (parsed && word_ok(w)) (void)cli_dist_report_worker(&ro, w);
        free(words);
        dfn_ctrs_free(&ctrs);
        dfn_ranksreq_free(&q);
        free(b);
        ranks_idle();
    }
    cli_dist_spread_free();
    return 0;
}
