/* dfnav reader: streams one trace file (plain text, gzip with one or many
 * members, or standard input) as blocks that hold only whole lines, so that
 * blocks can be parsed independently on worker threads. */
#ifndef DFNAV_READER_H
#define DFNAV_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Text a block holds before the parser takes it (see the loader). */
#define DFN_BLOCK_SIZE ((size_t)1 << 20)

typedef enum {
    DFN_COMP_NONE = 0,
    DFN_COMP_GZIP = 1
} dfn_compression;

typedef struct dfn_blockpool dfn_blockpool;

/* A run of whole lines. data[len-1] is '\n' except for the last block of a
 * file whose last line has no newline. The block owns data (malloc'd, or
 * its pool's); the consumer frees it with dfn_block_free(). */
typedef struct dfn_block {
    char *data;
    size_t len;
    uint64_t seq;          /* 0, 1, 2 ... within the file */
    dfn_blockpool *pool;   /* where data goes back to, or NULL (freed) */
} dfn_block;

typedef struct dfn_reader dfn_reader;

/* Block buffers of one size kept for the next block a load reads, shared
 * by its readers: a buffer a parser is done with is the next one filled,
 * its pages already there and its lines likely still in the cache (on
 * this VM a fresh page costs a fault and a zeroing, and the kernel's copy
 * into cold memory was a fifth of a parse; the machine hands freed
 * memory back to its host, and taking it again costs a fault there too).
 * It keeps at most `keep` buffers; any thread may give one back. */
dfn_blockpool *dfn_blockpool_new(size_t block_size, size_t keep);   /* NULL: out of memory */
/* Frees the buffers held (the pool stays usable): for when the load's
 * reading is over and the memory is better given back. */
void dfn_blockpool_drain(dfn_blockpool *p);
/* Frees the pool; every block from it, and every reader on it, must
 * have been freed or closed before. */
void dfn_blockpool_free(dfn_blockpool *p);
/* How many buffers the pool holds now. */
size_t dfn_blockpool_held(dfn_blockpool *p);

/* Lines longer than this are cut to this length (so they parse as malformed
 * and keep their line number) and the rest of the line is skipped. */
#define DFN_READER_MAX_LINE (64u << 20)

/* Opens PATH ("-" is standard input). Compression is detected from the
 * content (gzip magic), not the name. block_size is the target block size
 * (0 = default 4 MiB). Returns NULL with a message in err on failure. */
dfn_reader *dfn_reader_open(const char *path, size_t block_size, char *err, size_t errlen);
/* The same, and while it waits on a pipe, FIFO or terminal for bytes a read
 * looks at *cancel ten times a second and fails with ECANCELED once it is
 * set (the open itself, and reads of regular files, do not wait on it). */
dfn_reader *dfn_reader_open_cancel(const char *path, size_t block_size, const atomic_bool *cancel,
                                   char *err, size_t errlen);
/* The same, taking full-size block buffers from pool (NULL: none) and
 * handing out blocks that go back to it. */
dfn_reader *dfn_reader_open_pooled(const char *path, size_t block_size, const atomic_bool *cancel,
                                   dfn_blockpool *pool, char *err, size_t errlen);

/* Fills *b with the next block. Returns 1 for a block, 0 at the end of the
 * file, -1 on damage (truncated or corrupt gzip, read error): every complete
 * line before the damage has already been returned, and dfn_reader_error()
 * says what happened and where (compressed byte offset). */
int dfn_reader_next(dfn_reader *r, dfn_block *b);

dfn_compression dfn_reader_compression(const dfn_reader *r);
/* Bytes consumed of the file as stored (compressed bytes for gzip). */
uint64_t dfn_reader_bytes_in(const dfn_reader *r);
/* File size as stored, 0 when unknown (pipes). */
uint64_t dfn_reader_size(const dfn_reader *r);
/* Bytes produced (uncompressed text). */
uint64_t dfn_reader_bytes_out(const dfn_reader *r);
/* Whether the last block handed out was the file's last: the next
 * dfn_reader_next returns 0 (a one-block file is known whole at once). */
bool dfn_reader_ended(const dfn_reader *r);
/* Lines cut by DFN_READER_MAX_LINE. */
uint64_t dfn_reader_long_lines(const dfn_reader *r);
/* Number of gzip members seen (0 for plain files). */
uint64_t dfn_reader_members(const dfn_reader *r);
/* Message of the last -1, or NULL. */
const char *dfn_reader_error(const dfn_reader *r);
/* Whether that failure came from the system (a read error), not from
 * the bytes (damaged compression): the next read may differ. */
bool dfn_reader_os_error(const dfn_reader *r);
void dfn_reader_close(dfn_reader *r);

/* Frees b's data, or gives it back to its pool. */
void dfn_block_free(dfn_block *b);

/* Name of the gzip backend compiled in: "isa-l" or "zlib". */
const char *dfn_reader_backend(void);

#endif
