/* Chunk memory: where a load's chunks live between the parse and the
 * merge, and how they are given back.
 *
 * The merge frees chunks in time order while the store grows. Handing
 * each one back on its own (one munmap a chunk) made every free a TLB
 * shootdown across the other cores running the merge, and on a
 * paravirtual VM those cross-core calls were most of the load's system
 * time (about 1,700 of them on the 7.5 M-event benchmark set, 0.9-2.7 s).
 * Here the chunks of one file are laid end to end in reserved address
 * space, in the order they are made, which is near the order the merge
 * frees them: freed pieces join a run that is given back in one call once
 * it reaches a step. Runs short of a step are held back, all files
 * together at most DFN_CHUNKMEM_HOLD bytes and a sixteenth of the chunks
 * still out (the largest go first past that), so that little is held at
 * the end of the merge, where the load's peak is. */
#ifndef DFNAV_CHUNKMEM_H
#define DFNAV_CHUNKMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What all files together may hold freed but not yet given back, at
 * most. */
#define DFN_CHUNKMEM_HOLD ((size_t)8 << 20)
/* The address space reserved at a time for one file's chunks, at most
 * (a quarter of the file's size, 256 KiB at least). */
#define DFN_CHUNKMEM_SEGMENT ((size_t)8 << 20)

typedef struct dfn_chunkmem dfn_chunkmem;
typedef struct dfn_chunkseg dfn_chunkseg;

/* Memory for the chunks of nsrcs files of these sizes in bytes (NULL or
 * 0: not known), which size their segments (the step is the hold shared
 * among them). NULL under a limit of address space (ulimit -v), which
 * reserved space counts against: chunks are then mapped alone. */
dfn_chunkmem *dfn_chunkmem_new(size_t nsrcs, const uint64_t *bytes);
/* len bytes (rounded up to pages), populated, for a chunk of file src,
 * right after that file's last piece; *seg names where it lies for
 * dfn_chunkmem_put. NULL when m is NULL or the piece does not suit a
 * segment (larger than a quarter of one, src past nsrcs, address space
 * refused): the caller maps it alone. */
void *dfn_chunkmem_get(dfn_chunkmem *m, uint32_t src, size_t len, dfn_chunkseg **seg);
/* Gives back a piece dfn_chunkmem_get made (same len): at once when it
 * completes a step of its file's run, else with the run. */
void dfn_chunkmem_put(dfn_chunkseg *seg, void *p, size_t len);
/* No more pieces go after those made so far: what is freed of them goes
 * back now, and the rest as it is freed. */
void dfn_chunkmem_close(dfn_chunkmem *m);
/* The owner lets go: m is freed once its last piece is put. */
void dfn_chunkmem_release(dfn_chunkmem *m);

/* Calls that gave memory back, and the bytes they gave (pieces and
 * unused reserved space): what the tests and the benchmark count. */
typedef struct {
    uint64_t unmaps, bytes_freed, pieces, segments;
} dfn_chunkmem_stats;
dfn_chunkmem_stats dfn_chunkmem_stats_of(dfn_chunkmem *m);

#endif
