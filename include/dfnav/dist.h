/* dfnav distribution: the ranks of an MPI job (mpirun, srun, flux) and the
 * load divided among them. Every rank parses a share of the trace files,
 * balanced by bytes, into an image of its share (image.h); rank 0 takes
 * the events of the others' files from those images, as it takes files
 * from the cache's images of other sets, and so builds the very store a
 * single process builds: every command's output is the same bytes.
 *
 * Without MPI support (configure --without-mpi), or when dfnav was not
 * started by an MPI launcher, there is one rank and nothing is sent. */
#ifndef DFNAV_DIST_H
#define DFNAV_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which rank reads each of n files of the given sizes: the largest first,
 * each onto the rank with the fewest bytes so far (the lowest on a tie);
 * files of one nonzero group (group may be NULL: none), the files of one
 * traced process (filehead.h), go together as one of their summed size;
 * a file of no known size (UINT64_MAX: standard input, a pipe) stays on
 * rank 0, the only one that can read it. The same plan on every rank. */
void dfn_dist_plan(const uint64_t *bytes, const uint64_t *group, size_t n, int nranks, int *rank_of);

/* Starts MPI when an MPI launcher started this process (its environment
 * says so) and this build has MPI support; false, with why in err, when
 * MPI was wanted and could not start. Call once, before any thread. */
bool dfn_dist_start(int *argc, char ***argv, char *err, size_t cap);
/* This process's rank and the job's size: 0 and 1 without MPI. */
int dfn_dist_rank(void);
int dfn_dist_size(void);
/* Rank 0's value of v, on every rank. */
int dfn_dist_bcast_int(int v);
/* The largest of every rank's v, on every rank. */
int dfn_dist_max_int(int v);
uint64_t dfn_dist_max_u64(uint64_t v);
/* The sum of every rank's v (saturating at UINT64_MAX), on every rank. */
uint64_t dfn_dist_sum_u64(uint64_t v);
/* Sends the file at path to rank `to` (in 1 GiB pieces), or word that
 * there is none when path is NULL or cannot be read; false when the
 * transport failed. */
bool dfn_dist_send_file(int to, const char *path);
/* Receives what rank `from` sends with dfn_dist_send_file into a new
 * file at path; false when it sent none or the file could not be
 * written (nothing is left at path then). */
bool dfn_dist_recv_file(int from, const char *path);
/* Sends len bytes to rank `to` (in pieces); false without MPI. */
bool dfn_dist_send_bytes(int to, const void *data, size_t len);
/* What rank `from` sends with dfn_dist_send_bytes, malloc'd with a NUL
 * after its *len bytes; NULL without MPI. */
char *dfn_dist_recv_bytes(int from, size_t *len);
/* Waits, resting, until rank `from` has sent bytes (dfn_dist_send_bytes)
 * to this rank: for a rank that idles between messages, as a served
 * set's ranks do between commands, where a receive would keep a core
 * busy. Up to 20 ms later than a receive. */
void dfn_dist_wait_bytes(int from);
/* Sends len bytes to rank `to` while receiving what rank `from` sends
 * it the same way (a ring's step: every rank calls it at once); what came,
 * malloc'd with a NUL after its *rlen bytes; NULL without MPI. */
char *dfn_dist_swap_bytes(int to, const void *data, size_t len, int from, size_t *rlen);
/* Every rank's len bytes on rank 0, in rank order (its own copied too):
 * dfn_dist_size() buffers, each malloc'd with a NUL after its (*lens)[r]
 * bytes (NULL where none came); NULL on the other ranks, which send. Free
 * with dfn_dist_gathered_free. */
char **dfn_dist_gather_bytes(const void *data, size_t len, size_t **lens);
void dfn_dist_gathered_free(char **bufs, size_t *lens);
/* A merge up the binary tree of ranks to rank 0: rank r takes what rank
 * r + step sends, for each step (1, 2, 4 ...) below r's lowest set bit,
 * take(ctx, bytes, len, from) (bytes malloc'd as dfn_dist_recv_bytes
 * gives them, NULL when none came; take frees them); then every rank but
 * 0 sends what give(ctx, &len) makes (malloc'd, freed here; NULL: none)
 * to the rank above. Every rank calls it: log2(ranks) steps. */
void dfn_dist_tree(void *ctx, void (*take)(void *ctx, char *bytes, size_t len, int from),
                   uint8_t *(*give)(void *ctx, size_t *len));
/* Notes: a few words a rank tells rank 0 while both go on with their
 * own work (how a rank's load goes, distload.h). A note is at most
 * DFN_DIST_NOTE_MAX words; notes from one rank come in the order sent.
 * Send: not from rank 0; false without MPI. Take: rank 0 only; false
 * when no note waits, else the words (n of them) and the sender. */
#define DFN_DIST_NOTE_MAX 16
bool dfn_dist_note_send(const uint64_t *v, size_t n);
bool dfn_dist_note_take(uint64_t *v, size_t n, int *from);
/* The MPI this build uses ("Open MPI 4.1.4", "MPICH 4.0"), or "none". */
const char *dfn_dist_backend(void);
/* Ends MPI (every rank must call it before exiting). */
void dfn_dist_end(void);

#endif
