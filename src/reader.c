/* dfnav reader: owns getting a trace's bytes off disk or standard input,
 * inflating gzip (ISA-L when available, zlib otherwise; one or many members),
 * and cutting the text into blocks of whole lines for the parser threads. It
 * knows nothing about JSON; every byte it sees is untrusted. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memrchr, GNU strerror_r */
#endif
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include "dfnav/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#define READER_DEFAULT_BLOCK DFN_BLOCK_SIZE
/* Compressed bytes per read(): big enough that syscalls vanish in the
 * profile, small enough to stay in L2/L3 while the inflater walks it. */
#define READER_IN_SIZE ((size_t)1 << 20)
/* The least buffer a small file gets (see dfn_reader_open). */
#define READER_SMALL ((size_t)4096)
/* A block buffer never grows past one maximal line plus its '\n'; that is
 * what bounds memory when a line never ends. */
#define READER_CAP_MAX ((size_t)DFN_READER_MAX_LINE + 1)

enum reader_state { READER_OK, READER_END, READER_FAILED };
enum reader_gz_phase { GZ_BETWEEN, GZ_MEMBER, GZ_DONE };
enum reader_inflate_result { INFL_OK, INFL_END, INFL_ERROR };

struct dfn_reader {
    int fd;
    bool own_fd;
    bool regular;                 /* a regular file: a read never waits on a writer */
    const atomic_bool *cancel;    /* set by another thread: a wait for input ends */
    dfn_compression comp;
    size_t block_size;
    enum reader_state state;
    uint64_t seq;

    /* The block being assembled. buf[0..len) starts at a line start and
     * buf[0..scanned) is known to hold no '\n'; buf has cap + 1 bytes so a
     * terminating NUL always fits. */
    char *buf;
    size_t cap, len, scanned;
    bool skipping;    /* dropping the rest of a line cut at MAX_LINE */
    bool src_eof;     /* the source has no more text */
    bool src_failed;  /* the source hit damage; err says what */

    /* Raw bytes from fd. Plain files use it only for what was read while
     * sniffing for the gzip magic; later reads go straight into buf. */
    unsigned char *in;
    size_t in_cap, in_pos, in_len;
    bool in_eof;
    uint64_t in_total; /* bytes read from fd */

    uint64_t size, out_total, long_lines, members;
    enum reader_gz_phase phase;
#ifdef HAVE_ISAL
    struct inflate_state *isal;
#else
    z_stream zs;
    bool zs_live;
#endif
    char err[384];
    bool os_error;            /* the failure was the system's (EIO), not the bytes' */
    dfn_blockpool *pool;      /* full-size block buffers come from it, or NULL */
    bool buf_pooled;          /* buf is one of them (full size; growing it for a long line clears this) */
};

/* The block size a reader uses for the one asked: 0 is the default, and
 * no block passes one maximal line (the MAX_LINE memory bound). */
static size_t reader_block_size(size_t asked)
{
    if (asked == 0)
        return READER_DEFAULT_BLOCK;
    return asked > DFN_READER_MAX_LINE ? DFN_READER_MAX_LINE : asked;
}

struct dfn_blockpool {
    pthread_mutex_t lock;
    size_t size;              /* each buffer holds size + 1 bytes (the NUL) */
    size_t keep, n;
    char **bufs;              /* the last given back on top: the warmest */
};

dfn_blockpool *dfn_blockpool_new(size_t block_size, size_t keep)
{
    dfn_blockpool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->bufs = calloc(keep ? keep : 1, sizeof *p->bufs);
    if (p->bufs == NULL) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->size = reader_block_size(block_size);   /* as a reader takes it */
    p->keep = keep;
    return p;
}

void dfn_blockpool_drain(dfn_blockpool *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    while (p->n)
        free(p->bufs[--p->n]);
    pthread_mutex_unlock(&p->lock);
}

void dfn_blockpool_free(dfn_blockpool *p)
{
    if (p == NULL)
        return;
    dfn_blockpool_drain(p);
    pthread_mutex_destroy(&p->lock);
    free(p->bufs);
    free(p);
}

size_t dfn_blockpool_held(dfn_blockpool *p)
{
    if (p == NULL)
        return 0;
    pthread_mutex_lock(&p->lock);
    size_t n = p->n;
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* Gives buf back to p, which keeps it if it has room; freed otherwise,
 * and always without a pool (NULL p). */
static void pool_put(dfn_blockpool *p, char *buf)
{
    if (p != NULL && buf != NULL) {
        pthread_mutex_lock(&p->lock);
        if (p->n < p->keep) {
            p->bufs[p->n++] = buf;
            buf = NULL;
        }
        pthread_mutex_unlock(&p->lock);
    }
    free(buf);
}

/* The warmest buffer p holds, or NULL when it holds none. */
static char *pool_take(dfn_blockpool *p)
{
    pthread_mutex_lock(&p->lock);
    char *buf = p->n ? p->bufs[--p->n] : NULL;
    pthread_mutex_unlock(&p->lock);
    return buf;
}

/* A buffer of cap + 1 bytes: the pool's when it is of the pool's size
 * (*pooled then), else the heap's; NULL when memory ran out. */
static char *reader_buf_new(dfn_reader *r, size_t cap, bool *pooled)
{
    *pooled = r->pool != NULL && cap == r->pool->size;
    char *buf = *pooled ? pool_take(r->pool) : NULL;
    return buf ? buf : malloc(cap + 1);
}

static void reader_buf_release(dfn_reader *r)
{
    pool_put(r->buf_pooled ? r->pool : NULL, r->buf);
    r->buf = NULL;
    r->buf_pooled = false;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void reader_fail(dfn_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
}

/* strerror() is not guaranteed thread-safe; readers run on many threads. */
static const char *reader_strerror(int e, char *tmp, size_t len)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    return strerror_r(e, tmp, len);
#else
    if (strerror_r(e, tmp, len) != 0)
        snprintf(tmp, len, "error %d", e);
    return tmp;
#endif
}

static void reader_set_err(char *err, size_t errlen, const char *name, int e)
{
    char tmp[128];
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", name, reader_strerror(e, tmp, sizeof tmp));
}

/* read() that survives signals and a non-blocking descriptor (stdin can be
 * one when inherited from an interactive shell). */
/* Waits until fd has bytes (or an end or error for read() to report). A
 * pipe, FIFO, socket or terminal may make us wait on a writer for ever, so
 * with a cancel flag the wait looks at it ten times a second and fails with
 * ECANCELED once it is set; that is what lets q end a load that waits on
 * its input. A regular file is always ready: a stalled network mount
 * cannot be woken by anything short of the kernel. */
static int reader_wait(const dfn_reader *r)
{
    int timeout = r->cancel ? 100 : -1;
    for (;;) {
        if (r->cancel && atomic_load(r->cancel)) {
            errno = ECANCELED;
            return -1;
        }
        struct pollfd p = { .fd = r->fd, .events = POLLIN, .revents = 0 };
        int n = poll(&p, 1, timeout);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static ssize_t reader_read_fd(dfn_reader *r, void *dst, size_t room)
{
    if (room > ((size_t)1 << 30))
        room = (size_t)1 << 30;
    for (;;) {
        if (!r->regular && r->cancel && reader_wait(r) < 0)
            return -1;
        ssize_t n = read(r->fd, dst, room);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if ((errno == EAGAIN || errno == EWOULDBLOCK) && reader_wait(r) == 0)
            continue;
        return -1;
    }
}

static void reader_fail_read(dfn_reader *r, int e)
{
    char tmp[128];
    r->os_error = true;
    reader_fail(r, "read error at byte %" PRIu64 ": %s", r->in_total,
                reader_strerror(e, tmp, sizeof tmp));
}

/* Compressed bytes handed to the decoder so far (its file offset). */
static uint64_t reader_consumed(const dfn_reader *r)
{
    return r->in_total - (uint64_t)(r->in_len - r->in_pos);
}

/* Appends raw bytes to r->in, keeping the unconsumed ones. Returns 1 when
 * bytes were added, 0 at end of file, -1 on a read error. */
static int reader_input_more(dfn_reader *r)
{
    if (r->in_eof)
        return 0;
    if (r->in_pos > 0) {
        memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
        r->in_len -= r->in_pos;
        r->in_pos = 0;
    }
    if (r->in_len == r->in_cap)
        return 1; /* callers only ask when nearly empty; never loops */
    ssize_t n = reader_read_fd(r, r->in + r->in_len, r->in_cap - r->in_len);
    if (n < 0) {
        reader_fail_read(r, errno);
        return -1;
    }
    if (n == 0) {
        r->in_eof = true;
        return 0;
    }
    r->in_len += (size_t)n;
    r->in_total += (uint64_t)n;
    return 1;
}

/* ---- gzip backends: both inflate from r->in straight into the block. ---- */

#ifdef HAVE_ISAL
static const char *reader_isal_msg(int ret)
{
    switch (ret) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "need dictionary";
    default: return "inflate failed";
    }
}

static int reader_decoder_init(dfn_reader *r)
{
    r->isal = calloc(1, sizeof *r->isal);
    if (r->isal == NULL)
        return -1;
    isal_inflate_init(r->isal);
    r->isal->crc_flag = ISAL_GZIP;
    return 0;
}

static void reader_decoder_restart(dfn_reader *r)
{
    isal_inflate_reset(r->isal);
    r->isal->crc_flag = ISAL_GZIP; /* parse the header, check CRC and size */
}

static void reader_decoder_end(dfn_reader *r)
{
    free(r->isal);
    r->isal = NULL;
}

static enum reader_inflate_result reader_inflate(dfn_reader *r, char *dst, size_t room,
                                                 size_t *made, const char **msg)
{
    struct inflate_state *s = r->isal;
    /* in_len <= READER_IN_SIZE, so avail_in fits; avail_out is clamped. */
    s->next_in = r->in + r->in_pos;
    s->avail_in = (uint32_t)(r->in_len - r->in_pos);
    s->next_out = (uint8_t *)dst;
    s->avail_out = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
    uint32_t out0 = s->avail_out;
    int ret = isal_inflate(s);
    r->in_pos = (size_t)(s->next_in - r->in);
    *made = (size_t)(out0 - s->avail_out);
    if (ret != ISAL_DECOMP_OK) {
        *msg = reader_isal_msg(ret);
        return INFL_ERROR;
    }
    return s->block_state == ISAL_BLOCK_FINISH ? INFL_END : INFL_OK;
}
#else
static int reader_decoder_init(dfn_reader *r)
{
    memset(&r->zs, 0, sizeof r->zs);
    /* 15+32: gzip header auto-detected; each member's CRC and size are
     * checked by zlib itself. */
    if (inflateInit2(&r->zs, 15 + 32) != Z_OK)
        return -1;
    r->zs_live = true;
    return 0;
}

static void reader_decoder_restart(dfn_reader *r)
{
    inflateReset(&r->zs);
}

static void reader_decoder_end(dfn_reader *r)
{
    if (r->zs_live)
        inflateEnd(&r->zs);
    r->zs_live = false;
}

static enum reader_inflate_result reader_inflate(dfn_reader *r, char *dst, size_t room,
                                                 size_t *made, const char **msg)
{
    z_stream *zs = &r->zs;
    zs->next_in = r->in + r->in_pos;
    zs->avail_in = (uInt)(r->in_len - r->in_pos);
    zs->next_out = (Bytef *)dst;
    zs->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
    uInt out0 = zs->avail_out;
    int ret = inflate(zs, Z_NO_FLUSH);
    r->in_pos = (size_t)(zs->next_in - r->in);
    *made = (size_t)(out0 - zs->avail_out);
    switch (ret) {
    case Z_OK:
    case Z_BUF_ERROR: /* no progress; the caller decides why */
        return INFL_OK;
    case Z_STREAM_END:
        return INFL_END;
    case Z_MEM_ERROR:
        *msg = "out of memory";
        return INFL_ERROR;
    case Z_NEED_DICT:
        *msg = "need dictionary";
        return INFL_ERROR;
    default:
        *msg = zs->msg != NULL ? zs->msg : "invalid data";
        return INFL_ERROR;
    }
}
#endif

const char *dfn_reader_backend(void)
{
#ifdef HAVE_ISAL
    return "isa-l";
#else
    return "zlib";
#endif
}

/* The length of the gzip member header at p (RFC 1952: ten bytes, then the
 * optional extra field, name, comment and header CRC the flags announce),
 * or 0 while avail bytes do not hold all of it. */
static size_t reader_gzip_header_len(const unsigned char *p, size_t avail)
{
    if (avail < 10)
        return 0;
    unsigned flags = p[3];
    size_t n = 10;
    if (flags & 4) { /* FEXTRA */
        if (avail < n + 2)
            return 0;
        n += 2 + (size_t)(p[n] | p[n + 1] << 8);
    }
    for (unsigned f = 8; f <= 16; f <<= 1) { /* FNAME, FCOMMENT: NUL-terminated */
        if (!(flags & f))
            continue;
        while (n < avail && p[n] != 0)
            n++;
        if (n >= avail)
            return 0;
        n++;
    }
    if (flags & 2) /* FHCRC */
        n += 2;
    return n <= avail ? n : 0;
}

/* After a member (or at the start): another member follows, or the rest of
 * the file is zero padding, or it is garbage. Returns 1 when a new member
 * starts, 0 at a clean end, -1 on damage. */
static int reader_gzip_next_member(dfn_reader *r)
{
    while (r->in_len - r->in_pos < 4 && !r->in_eof)
        if (reader_input_more(r) < 0)
            return -1;
    size_t avail = r->in_len - r->in_pos;
    if (avail == 0)
        return 0;
    const unsigned char *p = r->in + r->in_pos;
    /* A lone 0x1f at the very end goes to the decoder too, which then
     * reports it as a truncated member. */
    if (p[0] == 0x1f && (avail < 2 || p[1] == 0x8b)) {
        /* RFC 1952 reserves three flag bits; zlib refuses a member that
         * sets one and ISA-L does not look: decide here, for both. */
        if (avail >= 4 && (p[3] & 0xe0) != 0) {
            reader_fail(r, "corrupt gzip data at byte %" PRIu64 ": unknown header flags set",
                        reader_consumed(r) + 3);
            return -1;
        }
        /* the whole header in the buffer before the decoder sees it: ISA-L
         * checks a header CRC (FHCRC) only over the part it was given */
        while (reader_gzip_header_len(r->in + r->in_pos, r->in_len - r->in_pos) == 0 && !r->in_eof &&
               r->in_len - r->in_pos < r->in_cap) {
            if (reader_input_more(r) < 0)
                return -1;
        }
        reader_decoder_restart(r);
        r->members++;
        r->phase = GZ_MEMBER;
        return 1;
    }
    /* Tape and block devices pad with zeros; gzip(1) accepts that too. */
    uint64_t member_end = reader_consumed(r);
    for (;;) {
        for (size_t i = r->in_pos; i < r->in_len; i++) {
            if (r->in[i] != 0) {
                reader_fail(r, "trailing garbage after gzip member at byte %" PRIu64,
                            member_end);
                return -1;
            }
        }
        r->in_pos = r->in_len;
        int rc = reader_input_more(r);
        if (rc <= 0)
            return rc;
    }
}

/* Inflates up to room bytes into dst. Returns the byte count (0 only at the
 * clean end) or -1; on damage the bytes produced before it are returned
 * first and the -1 comes on the next call. */
static ssize_t reader_fill_gzip(dfn_reader *r, char *dst, size_t room)
{
    size_t got = 0;
    while (got < room && r->phase != GZ_DONE) {
        if (r->phase == GZ_BETWEEN) {
            int rc = reader_gzip_next_member(r);
            if (rc < 0)
                goto failed;
            if (rc == 0) {
                r->phase = GZ_DONE;
                break;
            }
        }
        if (r->in_pos == r->in_len && reader_input_more(r) < 0)
            goto failed;

        size_t before = r->in_len - r->in_pos;
        size_t made = 0;
        const char *msg = NULL;
        enum reader_inflate_result res = reader_inflate(r, dst + got, room - got, &made, &msg);
        size_t used = before - (r->in_len - r->in_pos);
        got += made;
        r->out_total += made;
        if (res == INFL_ERROR) {
            reader_fail(r, "corrupt gzip data at byte %" PRIu64 ": %s", reader_consumed(r), msg);
            goto failed;
        }
        if (res == INFL_END) {
            r->phase = GZ_BETWEEN;
            continue;
        }
        if (made == 0 && used == 0) {
            /* Stalled: the decoder wants bytes we may not have yet. A full
             * buffer it will not touch means it never will. */
            if (r->in_len - r->in_pos == r->in_cap) {
                reader_fail(r, "corrupt gzip data at byte %" PRIu64 ": decoder stalled",
                            reader_consumed(r));
                goto failed;
            }
            int rc = reader_input_more(r);
            if (rc < 0)
                goto failed;
            if (rc == 0) {
                reader_fail(r, "gzip data truncated at byte %" PRIu64, r->in_total);
                goto failed;
            }
        }
    }
    return (ssize_t)got;
failed:
    r->src_failed = true;
    return got > 0 ? (ssize_t)got : -1;
}

static ssize_t reader_fill_plain(dfn_reader *r, char *dst, size_t room)
{
    if (r->in_pos < r->in_len) {
        size_t n = r->in_len - r->in_pos;
        if (n > room)
            n = room;
        memcpy(dst, r->in + r->in_pos, n);
        r->in_pos += n;
        if (r->in_pos == r->in_len) {
            /* Only the sniffed bytes ever live here; reads now go direct. */
            free(r->in);
            r->in = NULL;
            r->in_cap = r->in_pos = r->in_len = 0;
        }
        r->out_total += n;
        return (ssize_t)n;
    }
    if (r->in_eof)
        return 0;
    ssize_t n = reader_read_fd(r, dst, room);
    if (n < 0) {
        reader_fail_read(r, errno);
        r->src_failed = true;
        return -1;
    }
    if (n == 0) {
        r->in_eof = true;
        return 0;
    }
    r->in_total += (uint64_t)n;
    r->out_total += (uint64_t)n;
    return n;
}

/* Text into buf[len..cap), dropping the tail of a cut line when skipping. */
static void reader_fill_block(dfn_reader *r)
{
    while (r->len < r->cap && !r->src_eof && !r->src_failed) {
        char *dst = r->buf + r->len;
        ssize_t n = r->comp == DFN_COMP_GZIP ? reader_fill_gzip(r, dst, r->cap - r->len)
                                             : reader_fill_plain(r, dst, r->cap - r->len);
        if (n < 0) {
            r->src_failed = true;
            break;
        }
        if (n == 0) {
            r->src_eof = true;
            break;
        }
        size_t got = (size_t)n;
        if (r->skipping) {
            /* len is 0 while skipping: the cut line was handed out whole. */
            char *nl = memchr(dst, '\n', got);
            if (nl == NULL)
                continue;
            size_t keep = got - (size_t)(nl + 1 - dst);
            memmove(dst, nl + 1, keep);
            got = keep;
            r->skipping = false;
        }
        r->len += got;
    }
}

/* Capacity of the next block buffer given the carried partial line: leave
 * room for a full block of fresh text unless that would pass the cap. */
static size_t reader_next_cap(const dfn_reader *r, size_t carry)
{
    size_t cap = r->block_size;
    if (carry >= cap / 2)
        cap = carry + r->block_size;
    if (cap > READER_CAP_MAX)
        cap = READER_CAP_MAX;
    return cap; /* > carry: carry <= MAX_LINE < READER_CAP_MAX */
}

/* Gives buf[0..n) to the consumer. When the reader goes on, the bytes after
 * n (a partial line) move to a fresh buffer; otherwise they are dropped. */
static int reader_hand_out(dfn_reader *r, dfn_block *b, size_t n)
{
    char *next = NULL;
    size_t ncap = 0, carry = 0;
    bool next_pooled = false;
    if (r->state == READER_OK) {
        carry = r->len - n;
        ncap = reader_next_cap(r, carry);
        next = reader_buf_new(r, ncap, &next_pooled);
        if (next == NULL) {
            reader_fail(r, "out of memory");
            r->state = READER_FAILED;
            reader_buf_release(r);
            r->cap = r->len = r->scanned = 0;
            return -1;
        }
        memcpy(next, r->buf + n, carry);
    }
    char *data = r->buf;
    /* A mostly empty buffer (last block, a cut line) would pin memory for
     * as long as the consumer keeps the block. */
    if (!r->buf_pooled && r->cap - n > r->cap / 4 && r->cap > 4096) {
        char *shrunk = realloc(data, n + 1);
        if (shrunk != NULL)
            data = shrunk;
    }
    data[n] = '\0'; /* not part of the block; guards parsers like strtod */
    b->data = data;
    b->len = n;
    b->seq = r->seq++;
    b->pool = r->buf_pooled ? r->pool : NULL;
    r->buf = next;
    r->buf_pooled = next_pooled;
    r->cap = ncap;
    r->len = carry;
    r->scanned = carry;
    return 1;
}

static int reader_drop(dfn_reader *r, enum reader_state state)
{
    reader_buf_release(r);
    r->cap = r->len = r->scanned = 0;
    r->state = state;
    return state == READER_END ? 0 : -1;
}

int dfn_reader_next(dfn_reader *r, dfn_block *b)
{
    if (b != NULL) {
        b->data = NULL;
        b->pool = NULL;
        b->len = 0;
        b->seq = r != NULL ? r->seq : 0;
    }
    if (r == NULL || b == NULL)
        return -1;
    if (r->state == READER_END)
        return 0;
    if (r->state == READER_FAILED)
        return -1;

    for (;;) {
        reader_fill_block(r);
        char *nl = NULL;
        if (r->len > r->scanned)
            nl = memrchr(r->buf + r->scanned, '\n', r->len - r->scanned);
        if (nl != NULL) {
            size_t n = (size_t)(nl + 1 - r->buf);
            if (r->src_failed) {
                r->state = READER_FAILED; /* the partial line is dropped */
            } else if (r->src_eof) {
                r->state = READER_END;
                n = r->len; /* last line without '\n' rides along */
            }
            return reader_hand_out(r, b, n);
        }
        /* No '\n' anywhere: the buffer is one unfinished line. */
        r->scanned = r->len;
        if (r->len >= READER_CAP_MAX) {
            if (r->src_failed)
                return reader_drop(r, READER_FAILED);
            r->buf[DFN_READER_MAX_LINE] = '\n';
            r->len = (size_t)DFN_READER_MAX_LINE + 1;
            r->long_lines++;
            r->skipping = true;
            if (r->src_eof)
                r->state = READER_END;
            return reader_hand_out(r, b, r->len);
        }
        if (r->src_failed)
            return reader_drop(r, READER_FAILED);
        if (r->src_eof) {
            if (r->len == 0)
                return reader_drop(r, READER_END);
            r->state = READER_END;
            return reader_hand_out(r, b, r->len);
        }
        /* Buffer full mid-line: grow toward one maximal line. */
        size_t ncap = r->cap <= READER_CAP_MAX / 2 ? r->cap * 2 : READER_CAP_MAX;
        char *grown = realloc(r->buf, ncap + 1);   /* a pooled one too: it is the heap's */
        if (grown == NULL) {
            reader_fail(r, "out of memory");
            return reader_drop(r, READER_FAILED);
        }
        r->buf = grown;
        r->buf_pooled = false;   /* no longer of the pool's size */
        r->cap = ncap;
    }
}

static void reader_free(dfn_reader *r)
{
    if (r->comp == DFN_COMP_GZIP)
        reader_decoder_end(r);
    if (r->own_fd && r->fd >= 0)
        close(r->fd);
    reader_buf_release(r);
    free(r->in);
    free(r);
}

dfn_reader *dfn_reader_open(const char *path, size_t block_size, char *err, size_t errlen)
{
    return dfn_reader_open_cancel(path, block_size, NULL, err, errlen);
}

dfn_reader *dfn_reader_open_cancel(const char *path, size_t block_size, const atomic_bool *cancel,
                                   char *err, size_t errlen)
{
    return dfn_reader_open_pooled(path, block_size, cancel, NULL, err, errlen);
}

dfn_reader *dfn_reader_open_pooled(const char *path, size_t block_size, const atomic_bool *cancel,
                                   dfn_blockpool *pool, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (path == NULL) {
        reader_set_err(err, errlen, "(null)", EINVAL);
        return NULL;
    }
    bool is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "standard input" : path;

    dfn_reader *r = calloc(1, sizeof *r);
    if (r == NULL) {
        reader_set_err(err, errlen, name, ENOMEM);
        return NULL;
    }
    r->fd = -1;
    r->comp = DFN_COMP_NONE;
    r->block_size = reader_block_size(block_size);
    r->pool = pool;

    if (is_stdin) {
        r->fd = STDIN_FILENO;
    } else {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (r->fd < 0) {
            reader_set_err(err, errlen, name, errno);
            reader_free(r);
            return NULL;
        }
        r->own_fd = true;
    }
    struct stat st;
    if (fstat(r->fd, &st) != 0) {
        reader_set_err(err, errlen, name, errno);
        reader_free(r);
        return NULL;
    }
    r->regular = S_ISREG(st.st_mode);
    r->cancel = cancel;
    if (r->regular) {
        /* Standard input may arrive partly read; size what is left. */
        off_t at = is_stdin ? lseek(r->fd, 0, SEEK_CUR) : 0;
        if (at < 0 || at > st.st_size)
            at = 0;
        r->size = (uint64_t)(st.st_size - at);
#ifdef POSIX_FADV_SEQUENTIAL
        (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }

    /* A small file gets buffers of its size, not a block's: 20,000
     * one-line files each took 1 MiB for the sniff and a block for the
     * text, written to (and under ASan poisoned) at every open. One that
     * grows meanwhile still reads whole: its block grows as for a long
     * line, and later blocks are full size. */
    size_t small = r->size < READER_SMALL ? READER_SMALL : (size_t)r->size + 1;   /* when regular */
    r->in_cap = r->regular && small < READER_IN_SIZE ? small : READER_IN_SIZE;
    r->in = malloc(r->in_cap);
    if (r->in == NULL) {
        reader_set_err(err, errlen, name, ENOMEM);
        reader_free(r);
        return NULL;
    }

    /* Content decides the format, not the name: sniff the two magic bytes
     * (a pipe may deliver them one at a time). */
    while (r->in_len < 2 && !r->in_eof) {
        ssize_t n = reader_read_fd(r, r->in + r->in_len, r->in_cap - r->in_len);
        if (n < 0) {
            reader_set_err(err, errlen, name, errno);
            reader_free(r);
            return NULL;
        }
        if (n == 0)
            r->in_eof = true;
        r->in_len += (size_t)n;
        r->in_total += (uint64_t)n;
    }
    if (r->in_len >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b) {
        r->comp = DFN_COMP_GZIP;
        r->phase = GZ_BETWEEN;
        if (reader_decoder_init(r) != 0) {
            reader_set_err(err, errlen, name, ENOMEM);
            reader_free(r);
            return NULL;
        }
    } else if (r->in_len == 0) {
        free(r->in);
        r->in = NULL;
        r->in_cap = 0;
    }
    /* inflated text has no size to go by: a gzip file gets a whole block */
    r->cap = r->comp == DFN_COMP_NONE && r->regular && small < r->block_size ? small : r->block_size;
    r->buf = reader_buf_new(r, r->cap, &r->buf_pooled);
    if (r->buf == NULL) {
        reader_set_err(err, errlen, name, ENOMEM);
        reader_free(r);
        return NULL;
    }
    return r;
}

dfn_compression dfn_reader_compression(const dfn_reader *r)
{
    return r != NULL ? r->comp : DFN_COMP_NONE;
}

uint64_t dfn_reader_bytes_in(const dfn_reader *r)
{
    return r != NULL ? reader_consumed(r) : 0;
}

uint64_t dfn_reader_size(const dfn_reader *r)
{
    return r != NULL ? r->size : 0;
}

uint64_t dfn_reader_bytes_out(const dfn_reader *r)
{
    return r != NULL ? r->out_total : 0;
}

bool dfn_reader_ended(const dfn_reader *r)
{
    return r != NULL && r->state == READER_END;
}

uint64_t dfn_reader_long_lines(const dfn_reader *r)
{
    return r != NULL ? r->long_lines : 0;
}

uint64_t dfn_reader_members(const dfn_reader *r)
{
    return r != NULL ? r->members : 0;
}

const char *dfn_reader_error(const dfn_reader *r)
{
    if (r == NULL || r->state != READER_FAILED || r->err[0] == '\0')
        return NULL;
    return r->err;
}

bool dfn_reader_os_error(const dfn_reader *r)
{
    return r && r->os_error;
}

void dfn_reader_close(dfn_reader *r)
{
    if (r != NULL)
        reader_free(r);
}

void dfn_block_free(dfn_block *b)
{
    if (b == NULL)
        return;
    pool_put(b->pool, b->data);
    b->data = NULL;
    b->pool = NULL;
    b->len = 0;
}
