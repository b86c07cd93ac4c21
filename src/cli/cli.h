/* dfnav command line: options shared by every command, loading with
 * progress and damage reports, and the commands themselves. */
#ifndef DFNAV_CLI_H
#define DFNAV_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "dfnav/analysis.h"
#include "dfnav/compare.h"
#include "dfnav/diagnose.h"
#include "dfnav/export.h"
#include "dfnav/extract.h"
#include "dfnav/layers.h"
#include "dfnav/loader.h"
#include "dfnav/query.h"
#include "dfnav/run.h"

typedef struct {
    int threads;
    const char *layers;       /* NULL = chosen from the trace set */
    const char *by, *where, *sort;
    size_t top;
    double bin_s;
    dfn_format format;
    bool quiet;
    uint64_t metrics;         /* 0: the basic metrics */
    const dfn_ctrs *ctrs;     /* ctr.SERIES metrics */
    const char *compute;      /* compute definition for overlap; NULL = the layers' */
    const char *io;           /* what is I/O for overlap; NULL = POSIX and STDIO calls */
    bool diagnose, sizes;
    bool overlap_host;        /* compute hides I/O of its whole host */
    dfn_thresholds thresholds;
    bool compare;             /* each PATH is a run of its own */
    bool force;               /* load even a set estimated not to fit in memory */
    dfn_unit time_unit;       /* of files whose end record names none; NONE = µs */
    bool counters;            /* report: the counter samples instead of events */
    const char *cache;        /* the cache directory; NULL: --no-cache (or no home) */
    const char *output;       /* extract: -o FILE ("-": standard output) */
    const char *list;         /* info --list: "args" or "layers"; NULL: the table */
    char **paths;
    size_t npaths;
    /* dfnav serve: its address and the token's file; the load's progress
     * as it goes (a line of text); and that the set's image is kept */
    const char *listen, *token_file;
    void (*progress)(const char *line);
    bool serve;
    bool served;              /* run by dfnav serve for a client: the set's image is read, never written */
    bool spread;              /* serve --spread: the set stays in shares on the ranks */
    const char *ranks;        /* a client's command of serve --spread: the socket its ranks take commands on */
    /* dfnav --connect: the server; the command line it is sent */
    const char *connect;
    char **fwd;
    size_t nfwd;
} cli_opts;

/* Every option of the command line (getopt_long's tables). */
extern const struct option cli_longopts[];
extern const char cli_shortopts[];

/* One run: a trace set, loaded, and what queries on it need. */
typedef struct {
    char *label;              /* NULL: one set, no comparison */
    dfn_runset set;           /* its store, layers and analyses */
} cli_run;

/* The runs the paths name (dfn_runs_parse), checked to fit in memory and
 * loaded at once, with progress on a terminal and damage on stderr. A run
 * that gives nothing keeps its store NULL. Returns the exit status: 0 all
 * loaded, 1 damage, 2 bad run names (*runs NULL), 3 something could not
 * be read, 4 nothing loaded because the runs were estimated not to fit in
 * memory (unless force). */
int cli_load(const cli_opts *o, cli_run **runs, size_t *n);
/* Loads the runs and compiles their layers: what every table command
 * starts with. Returns the exit status to give up with, or -1 to go on. */
int cli_prepare(const cli_opts *o, cli_run **runs, size_t *n, int *status);
/* Ends a command: stdout flushed, runs freed; rc, else a write error's
 * status, else the load's. */
int cli_finish(const cli_opts *o, cli_run *runs, size_t n, int rc, int status);
/* Frees the runs, after their images are saved (what that had to say
 * goes to stderr unless quiet). */
void cli_runs_free(const cli_opts *o, cli_run *runs, size_t n);
/* The options that shape a run's layers and analysis. */
dfn_run_opts cli_run_opts(const cli_opts *o);
/* Reports a failed write; EPIPE (a closed pipe, as with `| head`) is quiet. */
int cli_write_status(FILE *f);

/* Under an MPI launcher (dist.h). cli_dist_quiet: the ranks past the
 * first print nothing (call once MPI started). cli_dist_arm: the other
 * ranks wait at the dispatch for rank 0's word, which its exit gives if
 * no load did. cli_dist_share: every rank parses its share of the runs'
 * files into an image (go false on rank 0: the load ended before, they
 * stop); rank 0 alone reads the runs (specs; the others pass none) and
 * sends each rank the paths of its share; it gets the directory that
 * holds the images, for its load to take files from (NULL with one
 * rank). cli_dist_worker: what the other
 * ranks do for a command; its exit status. */
void cli_dist_quiet(void);
void cli_dist_arm(void);
/* Rank 0's word to the other ranks waiting at the dispatch (every rank
 * past the first hears it once): stop, share the files as images, run
 * report, overview, info or extract on each share (cli_dist_report), or
 * keep the shares for a server's commands (serve --spread), and answer an
 * explorer's query on them (cli_dist_query). */
enum { CLI_DIST_STOP, CLI_DIST_IMAGES, CLI_DIST_REPORT, CLI_DIST_OVERVIEW, CLI_DIST_INFO, CLI_DIST_EXTRACT,
       CLI_DIST_SPREAD, CLI_DIST_QUERY };
void cli_dist_tell(int word);
/* The other ranks wait for another word (report went back to the images'
 * way): the exit says stop if no load does. */
void cli_dist_reopen(void);
/* Rank 0: the other ranks hear stop unless they heard a word since
 * cli_dist_reopen (a command that ended before its load). */
void cli_dist_settle(void);
/* This rank's share of the runs' files (rank 0 walks specs and sends each
 * rank its paths, a process's files together, or with by_host a host's;
 * the others pass none): *nmine paths, pointing into the runs or *list,
 * which the caller frees with the array. *left (rank 0):
 * the files no share holds, which only rank 0's load of the set can read
 * (standard input, what is no regular file). *place: each path's place
 * among the runs' files (their load order), malloc'd. */
const char **cli_dist_files(const cli_opts *o, const dfn_runspec *specs, size_t n, bool by_host, size_t *nmine,
                            size_t *left, char **list, uint32_t **place);
/* The specs of run k (*ns of them): with --compare its own, else the set
 * of every spec; none on the other ranks (specs NULL). */
const dfn_runspec *cli_dist_run_specs(const cli_opts *o, const dfn_runspec *specs, size_t n, size_t k, size_t *ns);
/* The name of rank's image of its share of run number run in dir (malloc'd). */
char *cli_dist_image_name(const char *dir, int rank, size_t run);
/* Rank 0 said the inputs' errors (cli_dist_report), which a load that
 * follows does not say again. */
void cli_dist_inputs_said(void);
bool cli_dist_inputs_were_said(void);
/* ... and the set's damage and layers (a query on the shares that went
 * the images' way after printing them): the load does not say them again. */
void cli_dist_load_said(void);
bool cli_dist_load_was_said(void);
char *cli_dist_share(const cli_opts *o, const dfn_runspec *specs, size_t n, bool go);
/* This rank's share (n files, maybe none) loaded while every rank
 * takes part, rank 0 saying the ranks' progress through o->progress
 * ("the 4 ranks <doing> their shares of the set: ...", then <done>;
 * comparing, "of run NAME")
 * and, for a server, the ranks' times in its log (done NULL: a load
 * whose figures are not the set's, which the log leaves out). */
dfn_store *cli_dist_load(const cli_opts *o, const char *doing, const char *done, const char *run,
                         const char *const *files, size_t n, const dfn_load_opts *lo);
int cli_dist_worker(const cli_opts *o);
/* Says on stderr how many of the runs' files rank 0 took from the ranks'
 * images, of how many; those it did not, it read again. */
void cli_dist_note(uint64_t files, uint64_t from_images);

/* Empties and removes a directory of images (cache entries and a save's
 * temporary files); cli_rmdir_now does it from a signal handler (only
 * async-signal-safe calls). */
void cli_rmdir(const char *dir);
void cli_rmdir_now(const char *dir);
/* Installs handler for SIGINT, SIGTERM and SIGHUP, keeping the handlers
 * it replaces in prev (NULL: none to hand on to, as for a handler that
 * only sets a flag); cli_signal_chain(sig), at the end of such a handler, runs
 * the one it replaced (which may chain on) and then dies of sig. */
void cli_signal_install(void (*handler)(int), struct sigaction prev[3]);
/* The same with sigaction's flags (SA_RESTART: a system call the signal
 * came during goes on). */
void cli_signal_install_flags(void (*handler)(int), struct sigaction prev[3], int flags);
/* INT, TERM and HUP blocked (*stops), and *during the mask to wait for
 * them with (sigsuspend, ppoll): the one before, without them. */
void cli_signal_stops(sigset_t *stops, sigset_t *during);
void cli_signal_chain(int sig, const struct sigaction prev[3]);
/* Called first in the first such handler to run: true; in any later one
 * (another signal reaching another thread) it never returns, and the
 * first ends the process. */
bool cli_signal_first(void);
/* Under MPI: the directory rank 0's load took the ranks' images from
 * (NULL with one rank, or before the load). */
const char *cli_dist_dir(void);

/* A run's damage as the load reports it (unit notes, malformed lines by
 * file and line), to f. */
void cli_report_damage(const cli_opts *o, const dfn_store *s, FILE *f);
/* report's query of the runs from the options: --by, --where, --sort
 * (METRIC@RUN names one of runs), --top, --metrics (agg: some run has
 * aggregated records, which the default columns then count). 0, or 2
 * after saying what is wrong; q's dimensions and f are the caller's to
 * free then. */
int cli_report_query(const cli_opts *o, const cli_run *runs, size_t nruns, const char *by, const char *where,
                     const char *sort, size_t top, uint64_t metrics, bool agg, dfn_query *q, dfn_filter *f, int *col);
/* Writes c in o's format to out (and frees it), after a warning of rows
 * whose sums passed 2^64. */
int cli_report_write(const cli_opts *o, dfn_compare *c, FILE *out);
/* Under MPI: whether report's query runs on each rank's share of the
 * files, its partial results merged on rank 0 (partial.h), rather than
 * on one store; and that report, on every rank (cli_dist_report_worker
 * on the others). */
bool cli_dist_report_wanted(const cli_opts *o);
/* The same for overview's tables (layers, I/O classes, busiest files). */
bool cli_dist_overview_wanted(const cli_opts *o);
/* The same for info: its files' figures are each file's own. */
bool cli_dist_info_wanted(const cli_opts *o);
/* The same for extract's calls. */
bool cli_dist_extract_wanted(const cli_opts *o);
/* word: CLI_DIST_REPORT, CLI_DIST_OVERVIEW, CLI_DIST_INFO or
 * CLI_DIST_EXTRACT. -1: the set must go the images' way (a hash of two
 * names, a process's files on two ranks), as usual. */
int cli_dist_report(const cli_opts *o, int word);
int cli_dist_report_worker(const cli_opts *o, int word);
/* dfnav serve --spread: every rank loads its share of the set (one run)
 * and keeps it; rank 0 walks the paths and gives the other ranks the word
 * (CLI_DIST_SPREAD). From then on report, overview and info answer on the
 * kept shares, and what needs the set whole is refused (said). The load's
 * status (0, 1 damage, 2, 3 nothing read, 4 too big: said), and the set's
 * events in *events. cli_dist_spread_free: every rank, at the end. */
int cli_dist_spread_load(const cli_opts *o, uint64_t *events);
void cli_dist_spread_free(void);
/* A client's command line (a served one: dfnav serve runs it) parsed
 * into o, its ctr.SERIES metrics into ctrs, *words malloc'd (o's paths
 * point into it). -1 when it parsed, else the status (said). */
int cli_request_opts(int argc, char **argv, cli_opts *o, dfn_ctrs *ctrs, char ***words);
/* serve --spread, an explorer's query on the kept shares, every rank
 * (rank 0 told the others CLI_DIST_QUERY), op one of:
 *   CLI_QUERY_OUTLINE  the set's outline (remote.h);
 *   CLI_QUERY_ROWS     run's merged partial of the query of spec's bytes
 *                      (qspec.h);
 *   CLI_QUERY_COUNTERS run's counter rows of the counter query of spec,
 *                      after the set's span (three µs, each 8 bytes
 *                      little-endian);
 *   CLI_QUERY_ARGS     the argument names of the calls spec's query
 *                      selects, sorted, each ended by a NUL;
 *   CLI_QUERY_CALLS    for a query of calls: the partial of its
 *                      selection's totals (after its length, 8 bytes
 *                      little-endian), then its calls as a subset of the
 *                      set (extract.h);
 *   CLI_QUERY_PLACE    the call detail's lines of the call spec names
 *                      (callplace.h), each ended by a NUL;
 *   CLI_QUERY_END      an explorer gone: its layers and analyses go.
 * Rank 0 writes the answer on stdout, or says why none on stderr. The
 * layers and analyses built stay for the next query of the same options
 * (layers, compute, I/O, overlap by). Rank 0's status, on every rank. */
enum { CLI_QUERY_OUTLINE = 1, CLI_QUERY_ROWS, CLI_QUERY_COUNTERS, CLI_QUERY_ARGS, CLI_QUERY_CALLS, CLI_QUERY_PLACE,
       CLI_QUERY_END };
int cli_dist_query(const cli_opts *o, int op, size_t run, const uint8_t *spec, size_t len);
/* serve --spread (serve_ranks.c). serve_ranks_ask: a client's command
 * (cmd: cmd_report, cmd_overview or cmd_info; NULL: the explorer, or the
 * overview where piped) sent to the ranks on o->ranks, with this
 * process's stdout and stderr for them to write to; its status. */
int serve_ranks_ask(const cli_opts *o, int (*cmd)(const cli_opts *), bool piped, int argc, char **argv);
/* The same for any word and command line: the ranks' answer, its exit
 * status and its output and error files (fds, to close); false when no
 * answer came whole. */
bool serve_ranks_call(const char *sock, int word, size_t argc, char *const *argv, int *status, int fds[2]);
/* The other ranks of serve --spread: their shares loaded, then each
 * command rank 0 hands them, until it says the end. Their status. */
int serve_ranks_worker(const cli_opts *o);
/* What overview's first line says of a set. */
typedef struct { uint64_t events, files, procs, threads, accessed, span_us, malformed; } cli_setsum;
void cli_overview_line(const cli_setsum *t, const char *label);
int cmd_report(const cli_opts *o);
/* extract (cmd_extract.c): a subset written to o->output, as every
 * export is (a temporary file renamed into place), by write; 0, or 2
 * (said). */
typedef int (*cli_extract_fn)(FILE *w, void *ctx, dfn_extract_stats *st);
int cli_extract_save(const cli_opts *o, cli_extract_fn write, void *ctx);
/* The end of f's time window in µs from s's start; the calls f counts on
 * set (count: those that start in the window; active: those that run
 * in it); and the note on the calls the window cuts. */
uint64_t cli_extract_end_us(const dfn_store *s, dfn_filter *f);
void cli_extract_counts(const cli_opts *o, dfn_runset *set, dfn_filter *f, uint64_t *count, uint64_t *active);
void cli_extract_note(uint64_t past, uint64_t before);
/* The paths and runs of o (said and false when they do not parse). */
bool cli_runs_parse(const cli_opts *o, dfn_runspec **specs, size_t *n);
/* That a run (label, of nruns) has no trace file, as a load says it. */
void cli_run_empty_said(const char *label, size_t nruns);
/* overview's busiest files: o's --where and file!="" (malloc'd). */
char *cli_busiest_where(const cli_opts *o);
/* What info prints of a set's sources (s->src: the table, CSV or JSON),
 * the names of its layers (--list layers: 0, or 2 said) and any names,
 * one a line. */
void cli_info_print(const cli_opts *o, const dfn_store *s);
int cli_info_layers(const char *layers);
void cli_info_names(FILE *out, const char *const *names, size_t n);
/* dfnav serve: loads the set (divided among the ranks under MPI) and runs
 * the commands and explorers of clients that present its token. */
int cmd_serve(const cli_opts *o);
/* Whether a client's command may give option --NAME (how the set is
 * shown), where the server's set, cache and files are its own. */
bool cli_client_option(const char *name);
/* Whether a client may give option --NAME that value; false with why. */
bool cli_client_value_ok(const char *name, const char *value, char *err, size_t cap);
/* dfnav --connect: o->fwd run by the server at o->connect, its output
 * here; the explorer on this terminal when pty. */
int cli_connect(const cli_opts *o, bool pty);
int cmd_info(const cli_opts *o);
int cmd_overview(const cli_opts *o);
/* dfnav extract: the events --where selects, as a DFTracer trace. */
int cmd_extract(const cli_opts *o);
/* dfnav cache [--clear]: the cache's entries, or empty it. */
int cmd_cache(const cli_opts *o, bool clear);

#endif
