/* dfnav serve's parts: the command (cmd_serve.c: the token, the load, the
 * signals), the gate (serve_gate.c: a small process that takes
 * connections, proves the token both ways and starts a handler for each
 * client that passes), and the handler (serve_handler.c: one client's
 * command run on a pseudo-terminal or pipes, its bytes relayed). */
#ifndef DFNAV_SERVE_H
#define DFNAV_SERVE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli.h"
#include "dfnav/wire.h"
#include "../ui/view.h"

/* What the server tells the gate and the handlers, which are other
 * processes: a page shared with them. The text is written under a
 * sequence count (odd while it changes), so a handler never sends half of
 * one line and half of another; the directory before the state says
 * ready. */
enum { SERVE_LOADING, SERVE_READY, SERVE_FAILED };
typedef struct {
    atomic_int state, status;
    atomic_uint seq;
    _Atomic unsigned char text[256];
    char dir[4096];           /* the set's image */
} serve_board;

typedef struct {
    const cli_opts *o;
    serve_board *board;
    int lfd;                  /* the listening socket */
    char *exe;                /* this program, for the clients' commands */
    char token[DFN_TOKEN_LEN + 1];
    pid_t server;             /* the server's pid */
    const char *tokpath;      /* the token's file and the image's directory, which */
    const char *priv;         /* the gate removes when the server died without doing so */
} serve_ctx;

/* The board's text when it is whole; false while it changes. */
bool serve_board_read(serve_board *b, char *out, size_t cap, unsigned *seq);
/* A line "dfnav: serve: PEER: ..." on the server's stderr in one write, no
 * stdio lock (the gate and handlers are forks of a threaded process). */
void serve_log(const char *peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The command line as the log shows it ("the explorer" when none). */
void serve_args_text(const dfn_hello *h, char *buf, size_t cap);
/* Removes the token file, unless another server has written its own
 * there since. */
void serve_token_remove(const char *path, const char *token);
/* "host:port" ("[v6]:port") of a socket address. */
struct sockaddr;
void serve_peer_name(const struct sockaddr *sa, unsigned len, char *buf, size_t cap);
/* A message sent whole (blocking); false when the peer is gone. */
bool serve_send_msg(int fd, uint8_t type, const void *data, size_t len);
bool serve_send_exit(int fd, int status);

/* Whether a client's command line is one the server runs (see
 * serve_gate.c); false with why. */
bool serve_hello_ok(const dfn_hello *h, char *err, size_t cap);
/* The gate: takes connections on c->lfd until SIGTERM (or the server's
 * death), and ends its handlers then. Never returns. */
_Noreturn void serve_gate_run(const serve_ctx *c);
/* Runs an admitted client's command (h) on connection fd, in a process of
 * its own; in holds what the client sent past its greeting. The exit
 * status of the handler. */
int serve_handler_run(const serve_ctx *c, int fd, const char *peer, const dfn_hello *h, dfn_wirebuf *in);
/* serve --spread (serve_ranks.c), rank 0: the socket its clients'
 * commands ask the ranks through, dir/ranks (*path malloc'd), or -1
 * (said); the loop that runs their commands on every rank (their output
 * in files in dir) until *stop (whose handler also writes to the pipe
 * whose read end is wake); and the word that ends the other ranks'
 * loop. */
int serve_ranks_listen(const char *dir, char **path);
void serve_ranks_loop(int lfd, int wake, const char *dir, volatile sig_atomic_t *stop);
void serve_ranks_end(void);
/* The explorer of a client of serve --spread (serve_remote.c): on the
 * set's outline from the ranks on o->ranks, its queries asked of them;
 * its status (argv: its command line, which every query carries). */
int serve_remote_explore(const cli_opts *o, const ui_opts *ui, int argc, char **argv);
/* The largest terminal a client may ask for (those of --size). */
#define SERVE_MAX_ROWS 1000
#define SERVE_MAX_COLS 2000

#endif
