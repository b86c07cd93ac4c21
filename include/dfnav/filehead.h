/* dfnav file heads: which traced process (host, pid) a trace file's first
 * lines name, read before a load, so that an MPI job's plan keeps the
 * files of one process (a process's trace split into parts, the same
 * trace plain and compressed) on one rank, where its call tree, access
 * patterns and compute intervals are whole. A head is a hint: a load
 * still checks which processes each rank holds (dist.h). */
#ifndef DFNAV_FILEHEAD_H
#define DFNAV_FILEHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a head names, as hashes of its texts (0: not found). host: the
 * first args.hostname or args.hhash met; proc: the host and the first
 * pid together (a head without a host hashes its pid alone). */
typedef struct {
    uint64_t host, proc;
} dfn_filehead;

/* The head of the file at path (plain or gzip): its first lines, at most
 * DFN_FILEHEAD_BYTES of text. False (both 0) when it cannot be read or
 * names no pid. */
#define DFN_FILEHEAD_BYTES ((size_t)64 << 10)
bool dfn_filehead_read(const char *path, dfn_filehead *out);
/* The same of text already read (len bytes, whole lines or not). */
bool dfn_filehead_scan(const char *text, size_t len, dfn_filehead *out);

/* Each of n files' group for dfn_dist_plan: its process, or with by_host
 * its host (compute united per host needs a host's files together); 0,
 * a group of its own, for a file without a head (a pipe, no pid). Heads
 * are read by up to 16 threads, no more than threads when it is above 0
 * (the user's --threads). */
uint64_t *dfn_filehead_groups(const char *const *paths, const uint64_t *bytes, size_t n, bool by_host, int threads);

#endif
