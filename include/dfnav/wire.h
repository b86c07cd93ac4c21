/* dfnav wire: the messages between `dfnav serve` and `dfnav --connect`.
 * Every message is a frame: its payload's length (4 bytes, big-endian),
 * its type (1 byte), then the payload, at most DFN_WIRE_MAX bytes.
 *
 * The server opens with CHALLENGE (the protocol's version and a random
 * nonce); the client answers HELLO (its own nonce, its proof that it holds
 * the token, its terminal and command line); the server answers WELCOME
 * (its own proof, which the client checks before it shows anything) or
 * REFUSE, then PROGRESS while the set loads, OUT and ERR with what the
 * command writes, and EXIT last. The client sends IN (keys) and SIZE (its
 * terminal's new size). The token itself never crosses the link: each
 * proof is an HMAC-SHA-256 keyed by it of the server's nonce and the whole
 * greeting, so a listener on the wrong port (a tunnel not yet up) learns
 * nothing it can use, a server without the token cannot pass for the
 * user's, and the command line cannot be changed on the way. What follows
 * the welcome is neither encrypted nor signed: the link is for SSH
 * tunnels and localhost. Every byte that
 * arrives is untrusted: the decoders check each length against what is
 * there and refuse what does not fit. */
#ifndef DFNAV_WIRE_H
#define DFNAV_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFN_WIRE_VERSION 1
#define DFN_WIRE_HEAD 5                 /* length and type */
#define DFN_WIRE_MAX ((size_t)1 << 20)  /* largest payload */
#define DFN_TOKEN_LEN 64                /* hex digits: 256 random bits */
#define DFN_NONCE_LEN 32
#define DFN_PROOF_LEN 32                /* HMAC-SHA-256 */
#define DFN_HELLO_MAX_ARGS 256
#define DFN_HELLO_MAX_TERM 64

typedef enum {
    DFN_MSG_HELLO = 1,    /* client: version, nonce, proof, terminal, command line */
    DFN_MSG_WELCOME,      /* server: accepted (its version, u16, and its proof) */
    DFN_MSG_REFUSE,       /* server: why not (text); the server closes */
    DFN_MSG_PROGRESS,     /* server: how the set's load goes (text) */
    DFN_MSG_OUT,          /* server: bytes for standard output (the screen) */
    DFN_MSG_ERR,          /* server: bytes for standard error */
    DFN_MSG_EXIT,         /* server: the command's exit status (i32); the last message */
    DFN_MSG_IN,           /* client: bytes typed */
    DFN_MSG_SIZE,         /* client: the terminal's rows and columns (u16 each) */
    DFN_MSG_CHALLENGE,    /* server, first: magic, version (u16), nonce */
    DFN_MSG_TYPES_
} dfn_msgtype;

/* One message, pointing into the bytes it was found in. */
typedef struct {
    uint8_t type;
    const uint8_t *data;
    size_t len;
} dfn_msg;

/* Bytes to send, or received and not yet taken. */
typedef struct {
    uint8_t *buf;
    size_t len, cap;
} dfn_wirebuf;

/* The first whole message in buf[0, len): 1 with *m and the bytes it
 * takes in *used; 0 when more bytes are needed; -1 when the bytes are no
 * message of this protocol (an unknown type, a length past DFN_WIRE_MAX,
 * a payload of the wrong size for its type), with why in err. */
int dfn_wire_next(const uint8_t *buf, size_t len, dfn_msg *m, size_t *used, char *err, size_t cap);
/* Appends a frame (len at most DFN_WIRE_MAX: larger data goes in several
 * OUT or IN frames, see dfn_wire_put_split). */
void dfn_wire_put(dfn_wirebuf *b, uint8_t type, const void *data, size_t len);
void dfn_wire_put_split(dfn_wirebuf *b, uint8_t type, const void *data, size_t len);
void dfn_wire_put_u16s(dfn_wirebuf *b, uint8_t type, uint16_t x, uint16_t y);
void dfn_wire_put_i32(dfn_wirebuf *b, uint8_t type, int32_t v);
uint16_t dfn_wire_u16(const uint8_t *p);
int32_t dfn_wire_i32(const uint8_t *p);
/* Sends b whole on socket fd (blocking, no SIGPIPE); false when the
 * peer is gone. */
bool dfn_wire_send(int fd, const dfn_wirebuf *b);
/* Drops the first n bytes. */
void dfn_wirebuf_take(dfn_wirebuf *b, size_t n);
void dfn_wirebuf_free(dfn_wirebuf *b);

/* What a client says first. */
typedef struct {
    uint16_t version;
    uint8_t nonce[DFN_NONCE_LEN];     /* the client's */
    uint8_t proof[DFN_PROOF_LEN];     /* dfn_hello_proof(token, true, ...) of this greeting */
    bool pty;                 /* the explorer, on the client's terminal */
    bool utf8;                /* the client's terminal takes UTF-8 */
    uint16_t rows, cols;
    char *term;               /* its TERM: letters, digits and . _ + - */
    char **argv;              /* the command and its options, without paths */
    size_t argc;
} dfn_hello;

/* A HELLO frame of h; false when it would be larger than a frame holds
 * (a command line of more than about a MiB). */
bool dfn_hello_put(dfn_wirebuf *b, const dfn_hello *h);
/* A HELLO payload: false with why when it is none of this version (a
 * version other than ours sets h->version and says so), has a string
 * with a NUL byte or a length past what is there, or bytes left over.
 * Free h with dfn_hello_free either way. */
bool dfn_hello_decode(const uint8_t *p, size_t len, dfn_hello *h, char *err, size_t cap);
void dfn_hello_free(dfn_hello *h);

/* A CHALLENGE frame with the server's nonce. */
void dfn_challenge_put(dfn_wirebuf *b, const uint8_t nonce[DFN_NONCE_LEN]);
/* A CHALLENGE payload: the server's nonce; false with why when it is no
 * dfnav server's or speaks another version. */
bool dfn_challenge_decode(const uint8_t *p, size_t len, uint8_t nonce[DFN_NONCE_LEN], char *err, size_t cap);
/* A WELCOME frame with the server's proof, and its payload decoded. */
void dfn_welcome_put(dfn_wirebuf *b, const uint8_t proof[DFN_PROOF_LEN]);
bool dfn_welcome_decode(const uint8_t *p, size_t len, uint8_t proof[DFN_PROOF_LEN], char *err, size_t cap);
/* Where a HELLO payload keeps its proof. */
#define DFN_HELLO_PROOF_AT (6 + 2 + 1 + 2 + 2 + DFN_NONCE_LEN)
/* The proof of holding token, bound to a greeting: HMAC-SHA-256 keyed by
 * it of "dfnav-client" (client true) or "dfnav-server", the server's
 * nonce, and the HELLO payload (which holds the client's nonce, terminal
 * and command line) with its proof bytes zeroed. So neither proof can be
 * replayed as the other or on another connection, and a program between
 * the two cannot change the command line without the token. */
void dfn_hello_proof(const char *token, bool client, const uint8_t server_nonce[DFN_NONCE_LEN], const uint8_t *payload,
                     size_t len, uint8_t out[DFN_PROOF_LEN]);
/* Whether two proofs are equal, in a time that does not depend on where
 * they differ. */
bool dfn_proof_equal(const uint8_t *a, const uint8_t *b);
/* n bytes of the system's random source; false with why. */
bool dfn_random_bytes(void *out, size_t n, char *err, size_t cap);

/* A new token: DFN_TOKEN_LEN hex digits of the system's random source;
 * false with why. */
bool dfn_token_new(char out[DFN_TOKEN_LEN + 1], char *err, size_t cap);
/* Whether two tokens are equal, in a time that does not depend on where
 * they differ. */
bool dfn_token_equal(const char *a, const char *b);
/* Where the token goes when no file is named: $DFNAV_TOKEN_FILE, else
 * dfnav-token beside the cache ($XDG_CACHE_HOME, else ~/.cache; malloc'd,
 * NULL without a home). A home directory is what a login node and the
 * compute nodes of a cluster share. */
char *dfn_token_path(void);
/* Writes token to path, readable by its user only (mode 0600), whole or
 * not at all (a new file renamed into place), with the server's host and
 * pid on a second line. */
bool dfn_token_write(const char *path, const char *token, const char *host, long pid, char *err, size_t cap);
/* The host and pid of the server that wrote the token file at path;
 * false when there is none to read. */
bool dfn_token_owner(const char *path, char *host, size_t cap, long *pid);
/* Reads the token at path; refuses a file that is not the user's own or
 * that others may read (the token is the key to the user's traces). */
bool dfn_token_read(const char *path, char out[DFN_TOKEN_LEN + 1], char *err, size_t cap);

/* A command for the ranks of `dfnav serve --spread`, which a client's
 * command (a process the server started) sends to rank 0 on a socket in
 * the server's private directory: "DFNR", the version, a word (which
 * command: nonzero, the receiver's to check), two zero bytes, how many
 * words the command line has and their bytes (u32 each, big-endian as
 * every number here), then each word and a NUL. Rank 0 hands the same
 * bytes to the other ranks. */
#define DFN_RANKSREQ_HEAD 16
#define DFN_RANKSREQ_VERSION 1
#define DFN_RANKSREQ_MAX_WORDS 4096
#define DFN_RANKSREQ_MAX_BYTES ((size_t)1 << 20)
typedef struct {
    int word;
    size_t argc;
    char **argv;              /* argc words and a NULL, pointing into one block (argv[0]) */
} dfn_ranksreq;
/* The bytes of a command (malloc'd, *len); NULL past the limits. */
uint8_t *dfn_ranksreq_encode(int word, size_t argc, char *const *argv, size_t *len);
/* The length of the words that follow a head (DFN_RANKSREQ_HEAD bytes):
 * false with why when it is no head of this version and its limits. */
bool dfn_ranksreq_head(const uint8_t *h, size_t *body, char *err, size_t cap);
/* A whole command into r (free with dfn_ranksreq_free either way): false
 * with why unless it is a head and exactly its words, each ended. */
bool dfn_ranksreq_decode(const uint8_t *p, size_t len, dfn_ranksreq *r, char *err, size_t cap);
void dfn_ranksreq_free(dfn_ranksreq *r);

#endif
