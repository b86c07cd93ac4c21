/* dfnav estimate: the memory a trace set will take once loaded, from the
 * files' sizes and a sample of their text, against what the process can
 * still get (MemAvailable, the cgroup's limit, ulimit -v and -d), so that a
 * set that would not fit is refused with figures before the machine swaps.
 * Cheap: one stat per file and a few samples of at most 512 KiB of text. */
#ifndef DFNAV_ESTIMATE_H
#define DFNAV_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many files are sampled (spread over the list) and how much text of
 * each: the text per event and the gzip ratio barely vary along a set. */
#define DFN_EST_SAMPLE_FILES 4
#define DFN_EST_SAMPLE_BYTES ((size_t)512 << 10)

/* Peak resident bytes of a load, measured on generated sets of 1 to 6 M
 * events (README, Performance): a fixed part, the blocks in flight of each
 * loader thread, and a part per event: the store's columns, arguments,
 * strings and indexes (the command line), plus the explorer's layer
 * index, call tree, access patterns and loading snapshots. A little above
 * the measurements, so that a set refused would really not have fitted
 * with room to spare. The fixed part: a one-line file peaks at 4.7 MB,
 * 85,000 events with one thread at 12.6 MB, 7.5 M at 30.4 B an event
 * (the command line; the explorer's replay 50.9) and 9 MB a thread more.
 * The per-event parts stay above that for sets past 65,536 lanes,
 * functions or files, whose ids take 4 bytes and not 2 (about 36.5 and
 * 57 B an event), which the estimate cannot tell before the load. */
#define DFN_EST_BASE ((uint64_t)8 << 20)
#define DFN_EST_PER_THREAD ((uint64_t)12 << 20)
#define DFN_EST_CLI_PER_EVENT 40
#define DFN_EST_EXPLORER_PER_EVENT 64
/* A rank of dfnav serve --spread: its share's store, kept while a
 * command's partial results and busy-time slices join it (report under
 * mpirun frees the store first); measured, 63 to 77 B an event of the
 * share at 4 ranks beside MPI's own 18 MB. */
#define DFN_EST_SERVED_PER_EVENT 80
/* A distinct string (a name, a key, a string value) interned by the
 * store costs its bytes, this many more of its own (its length and end in
 * the arena, 5 to 8, and its id in the argument record that holds it, 3
 * or 4 past 16,384 strings), and its share of the table's index, which
 * grows by doubling (dfn_estimate_strtab). Measured, 64 distinct a line,
 * 2,500 to 60,000 lines: 35 to 53 B more than its bytes, the most just
 * after the index doubles. The per-event figure holds
 * STRINGS_IN_PER_EVENT bytes of them, the few a set usually has; values
 * that differ on every line come on top. */
#define DFN_EST_STRING_OWN 12
/* ... and one that starts with / is taken for a path, whose file costs
 * this more: its entry in the store's files (20 B) and the loader's map
 * from the string to it (2 M distinct paths, one a call: 58 B a path
 * more than its text at the peak, against 37 for the string alone). */
#define DFN_EST_PATH_OWN 24
#define DFN_EST_STRINGS_IN_PER_EVENT 8
/* A file costs this at the peak whatever its events (its figures, its
 * place in a pack, its process's lane: 355 to 415 B measured on 20,000
 * one-line files of a process each, 370 B on 100,000), plus PATH_COPIES
 * copies of its path: the loader's, which the store then keeps, and the
 * command line's while the loader takes its own; the explorer keeps its
 * list and a loading snapshot's store has its own. */
#define DFN_EST_PER_FILE 640
#define DFN_EST_PATH_COPIES 3

typedef struct {
    uint64_t files;                       /* trace files seen */
    uint64_t path_bytes;                  /* the lengths of their paths */
    uint64_t unsized;                     /* of which with no size to go by (standard input, unreadable) */
    uint64_t plain_bytes, gzip_bytes;     /* sizes as stored (gzip: by the name's .gz) */
    uint64_t sample_text, sample_events;  /* text read from the samples, and the events in it */
    uint64_t sample_gz_in, sample_gz_out; /* gzip bytes the samples consumed, and the text they gave */
    uint64_t sample_strings;              /* the bytes of the strings new in the samples' second halves, ... */
    uint64_t sample_nstrings;             /* ... how many they are, */
    uint64_t sample_half_events;          /* ... and the events of those halves */
} dfn_estimate;

/* Adds files to e: the size of each, and a sample of a few (every file
 * from a list this short, else DFN_EST_SAMPLE_FILES spread over it, and
 * the first gzip file when those missed every one). */
void dfn_estimate_add(dfn_estimate *e, const char *const *files, size_t n);
/* Events in complete lines of text: lines with a "ts" that are not
 * metadata (ph "M", or 4 in the newest era). */
uint64_t dfn_estimate_count(const char *text, size_t len);
/* The bytes the distinct strings of text first seen at or after offset
 * from take once interned, but for the table's index (each once, with
 * DFN_EST_STRING_OWN more, and a path DFN_EST_PATH_OWN more again);
 * *count, when given, gets how many they are. */
uint64_t dfn_estimate_strings(const char *text, size_t len, size_t from, uint64_t *count);
/* The index of a string table of n strings at its peak: the ids' text
 * pointers and the slots with their hashes, both grown by doubling, and
 * at the last doubling of the slots the old and the new for a moment. */
uint64_t dfn_estimate_strtab(uint64_t n);
/* Events of the whole set: its text (plain sizes, gzip sizes times the
 * samples' ratio) over the samples' text per event; 0 without samples. */
uint64_t dfn_estimate_events(const dfn_estimate *e);
/* Peak resident bytes of loading events with this many loader threads in
 * all (each run of a comparison has its own). */
uint64_t dfn_estimate_bytes(uint64_t events, uint64_t threads, uint64_t per_event);

/* Bytes the process can still get: the least of MemAvailable, the headroom
 * under each cgroup memory limit above it (v1 and v2) and under ulimit -v
 * and -d; DFNAV_MEM_AVAILABLE (a size such as 512M or 2GiB) replaces them
 * all. UINT64_MAX when nothing says. *why names the one that decided. */
uint64_t dfn_mem_available(const char **why);
/* The parts, for tests. MemAvailable of /proc/meminfo's text, in bytes. */
bool dfn_mem_meminfo(const char *meminfo, uint64_t *out);
/* The least headroom under the memory limits of the cgroups that
 * proc_cgroup (the text of /proc/self/cgroup) names and their ancestors,
 * with the cgroup file systems mounted under root (/sys/fs/cgroup);
 * UINT64_MAX when none is limited. */
uint64_t dfn_mem_cgroup(const char *proc_cgroup, const char *root);
/* A byte count, in the grammar of the filter's sizes: digits, optionally
 * with a fraction, and K, M, G or T in any case (powers of 1024),
 * optionally followed by B or iB; blanks around the unit are allowed. */
bool dfn_size_parse(const char *s, uint64_t *out);
/* False with a message when DFNAV_MEM_AVAILABLE is set but is no size. */
bool dfn_mem_env_check(char *msg, size_t cap);

/* Whether loading fits what the process can get; when it does not, msg
 * gets the sentence to show: "this set needs about 6.2 GiB (8 files, ~150.3
 * M events estimated), only 3.9 GiB available (MemAvailable)". runs: the
 * set is several runs side by side. */
bool dfn_estimate_fits(const dfn_estimate *e, uint64_t threads, uint64_t per_event, bool runs, char *msg, size_t cap);
/* The bytes loading e's files needs (what dfn_estimate_fits compares with
 * the memory there is); 0 without samples. */
uint64_t dfn_estimate_need(const dfn_estimate *e, uint64_t threads, uint64_t per_event);
/* b bytes as the verdicts write them: "478 MiB", "6.2 GiB". */
void dfn_estimate_size_text(uint64_t b, char *buf, size_t cap);
/* How many machines with this one's available memory hold e's files
 * between them, each loading a share (MPI ranks, one a node): what the
 * events need over what a node has past its fixed costs, rounded up (1
 * when it fits here; 0 when the fixed costs alone do not fit). */
uint64_t dfn_estimate_nodes(const dfn_estimate *e, uint64_t threads, uint64_t per_event);

#endif
