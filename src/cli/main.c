/* dfnav: the program. Parses the command line and hands over to a command;
 * each command is a thin layer over the engine library. */
#include "cli.h"
#include "serve.h"
#include "dfnav/cache.h"
#include "dfnav/dist.h"
#include "dfnav/estimate.h"
#include "../ui/ui.h"
#include "dfnav/reader.h"
#include "dfnav/util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

static void usage(FILE *f)
{
    fputs(
"Usage: dfnav [OPTIONS] PATH...          the explorer (on a terminal)\n"
"       dfnav compare [OPTIONS] RUN RUN...  the explorer over runs side by side\n"
"       dfnav overview [OPTIONS] PATH... layers, I/O classes, busiest files\n"
"       dfnav report [OPTIONS] PATH...   one table of grouped events\n"
"       dfnav info [OPTIONS] PATH...     what each trace file holds\n"
"       dfnav info --list args|layers PATH...  the set's argument or layer names\n"
"       dfnav extract -o OUT [--where EXPR] PATH...  the events EXPR selects,\n"
"                                        as a DFTracer trace (.pfw, .pfw.gz, -)\n"
"       dfnav cache [--clear]            the cache of sets read before, or empty it\n"
"       mpirun -n N dfnav report|overview|info|extract ...  the files divided\n"
"                                        among MPI ranks, most queries run on\n"
"                                        each rank's share (built with MPI;\n"
"                                        see MPI in dfnav(1))\n"
"       [mpirun -n N] dfnav serve [--spread] [--listen [HOST:]PORT] PATH...\n"
"                                        load the set once and run clients'\n"
"                                        commands on it\n"
"       dfnav [report|overview|info] --connect HOST:PORT [OPTIONS]  a command,\n"
"                                        or the explorer, run by a server\n"
"\n"
"PATH is a DFTracer trace (*.pfw, *.pfw.gz), a directory searched for them\n"
"(not in hidden directories; each file is read once, by whatever path), a\n"
"quoted glob, or - for standard input. A RUN is a PATH, or NAME=PATH to\n"
"name it (default: the PATH's last part); reports take up to 8 runs, the\n"
"explorer up to 4.\n"
"\n"
"Options:\n"
"  -b, --by DIMS          group by dimensions, comma separated: time host pid tid\n"
"                         proc rank cat func type class op layer file pattern part\n"
"                         dir fs sizebin size path arg.NAME event (without --by:\n"
"                         one row of totals; path: the enclosing calls' functions,\n"
"                         outermost first, 'a;b;c')\n"
"  -w, --where EXPR       keep events matching every term KEY OP VALUE, with OP\n"
"                         one of = != ~ !~ < <= > >= (see dfnav(1), FILTERS);\n"
"                         the explorer's first filter (it refuses --by, --sort,\n"
"                         --top, --bin, -m, --sizes, --diagnose, --counters, -o)\n"
"  -s, --sort METRIC[@RUN][:asc|desc]  sort rows by a metric, or by 'key' (numbers\n"
"                         by value: 1, 2, 10);\n"
"                         comparing, by a run's column or @diff, @ratio\n"
"      --compare          each PATH is a run (RUN): report, overview and the\n"
"                         explorer show every metric per run, and for two runs\n"
"                         the difference (second - first) and ratio\n"
"  -n, --top N            keep the first N rows\n"
"  -m, --metrics LIST     metrics to show: names and groups (basic, overlap,\n"
"                         analysis, all); +LIST adds to basic, -NAME removes\n"
"      --sizes            also each row's calls per transfer-size bin\n"
"      --compute EXPR     what counts as compute for overlap and exposed I/O\n"
"                         (default: the layer 'compute' when there is one)\n"
"      --io EXPR          what counts as I/O for io_busy_s and exposed_s, e.g.\n"
"                         'cat=IO' or 'layer=fetch_data' (default: POSIX and\n"
"                         STDIO calls)\n"
"      --overlap-by UNIT  process (default): I/O is hidden only by compute of\n"
"                         its own process; host: by compute anywhere on its host\n"
"      --diagnose         report: the diagnostics of the selection, its layers\n"
"                         and processes, with the report that shows each finding;\n"
"                         with --by DIM (time, file, ...), of each row of DIM\n"
"      --threshold LIST   diagnostics limits, e.g. metadata=40,small_size=512KiB\n"
"                         (metadata small_time small_size imbalance random exposed)\n"
"      --bin SECONDS      width of time bins (default: chosen from the span)\n"
"      --counters         report: counter samples (CPU, memory, GPU ... series)\n"
"                         instead of events: samples, mean, min, max per row of\n"
"                         --by counter,time,host,pid\n"
"      --time-unit UNIT   us, ns, ms or sec: the unit of ts and dur in files\n"
"                         whose end record does not name one (default us)\n"
"  -l, --layers NAME|FILE layer definitions: posix, dlio (DLIO's AI logging\n"
"                         names), dlio-legacy (older DLIO) or a file (default:\n"
"                         the DLIO preset whose names are present, else posix)\n"
"  -f, --format FMT       table (default), csv, json, or chrome: with report --by\n"
"                         event, Chrome trace JSON that Perfetto UI opens (a\n"
"                         track per process and thread, counters as counter\n"
"                         tracks). CSV text that a spreadsheet would run as a\n"
"                         formula (= + - @ first) gets a leading '\n"
"  -o, --output FILE      extract: where the subset goes (.gz: gzip; -: stdout)\n"
"  -j, --threads N        threads to load and query with (default: one per core)\n"
"      --cache DIR        keep the images of sets read in DIR (default:\n"
"                         $DFNAV_CACHE, else $XDG_CACHE_HOME/dfnav, else\n"
"                         ~/.cache/dfnav); a set opened again maps its image\n"
"      --no-cache         neither read nor write the cache\n"
"  -q, --quiet            no progress line and no damage report on stderr\n"
"      --force            load even a set estimated not to fit in the memory\n"
"                         available (see dfnav(1), MEMORY)\n"
"      --ascii            explorer: ASCII sparklines and marks, even in UTF-8\n"
"      --color WHEN       explorer: auto (default; off with NO_COLOR), always, never\n"
"      --replay KEYS      explorer without a terminal: replay KEYS (see dfnav(1)),\n"
"                         write each screen as text and the latency per key\n"
"      --size COLSxROWS   screen size for --replay (default 80x24)\n"
"      --screens FILE     where --replay writes the screens (default: stdout)\n"
"      --keys             the explorer's keys, as its help screen (?) lists them\n"
"      --list WHAT        info: the names the set has, one a line: args (of\n"
"                         arg.NAME, sorted) or layers (of --layers, else the\n"
"                         preset chosen, in its order, 'other' last); for\n"
"                         scripts and the shell's completion\n"
"      --listen [HOST:]PORT  serve: where to listen (default 127.0.0.1 and a\n"
"                         free port, printed; 0.0.0.0:PORT listens on every\n"
"                         network, which the token alone then guards)\n"
"      --spread           serve: keep the set in shares on the MPI ranks (a set\n"
"                         no one node holds) for clients' commands and\n"
"                         explorers (see SERVING)\n"
"      --connect HOST:PORT  run the command, or the explorer, on the set a\n"
"                         dfnav serve holds there (no PATH; see SERVING in\n"
"                         dfnav(1))\n"
"      --token-file FILE  serve writes its token there (mode 0600), --connect\n"
"                         reads it (default: $DFNAV_TOKEN_FILE, else\n"
"                         ~/.cache/dfnav-token)\n"
"  -h, --help             this help\n"
"  -V, --version          version and gzip backend\n"
"\n"
"Metrics: count time_s busy_s max_proc_s bytes bw_mibps ops_per_s mean_us\n"
"         p50_us p90_us p99_us max_us files procs pct_time (basic), and\n"
"         compute_s io_busy_s exposed_s overlap_pct self_s seq_pct shared_files\n"
"         max_proc (analysis; overlap = the first four), agg_calls (calls\n"
"         folded in aggregated records; shown by default when there are any),\n"
"         min_proc_s mean_proc_s std_proc_s max_proc_bytes mean_proc_bytes (the\n"
"         spread across the processes of a row), size_mean size_p50 size_min\n"
"         size_max (bytes per read or write call), active (calls overlapping a\n"
"         row's time range; count is those that start in it), idle_s (the row's\n"
"         time range, or the window, with none of its calls running: the gaps\n"
"         between them), ctr.SERIES (mean\n"
"         of a counter's samples while the row's calls ran; in the explorer,\n"
"         c's counter column)\n"
"\n"
"Environment: DFNAV_MEM_AVAILABLE=SIZE replaces the memory the machine says is\n"
"available; DFNAV_CACHE=DIR is the cache; DFNAV_CACHE_MAX=SIZE caps it (default\n"
"20G or a tenth of its file system, whichever is less); NO_COLOR=1 draws without\n"
"colour; SOURCE_DATE_EPOCH dates export names; DFNAV_TOKEN_FILE=FILE is where\n"
"serve and --connect keep the token.\n"
"\n"
"Exit status: 0 all loaded (or the explorer quit while loading), 1 some lines\n"
"or files damaged or missing, or a hash defined with two names (the rest\n"
"loaded), 2 usage error or output that could not be written, 3 nothing could\n"
"be read, 4 the set would not fit in memory (the estimate is printed; --force\n"
"loads it), 5 --connect: no server there, the server refused, or the\n"
"connection dropped.\n", f);
}

/* The counter metrics' names live as long as the program: freed at its
 * end, whichever way main returns. */
static dfn_ctrs main_ctrs;
static void main_ctrs_free(void) { dfn_ctrs_free(&main_ctrs); }
static char *cache_path;
static void cache_path_free(void) { free(cache_path); }
static char **main_words;   /* main's parsed words, which its paths point into */
static void main_words_free(void) { free(main_words); }

/* The explorer takes --where as its first filter; report's shaping
 * options have keys of their own there, and were ignored without a word. */
static bool explorer_opts(const cli_opts *o, ui_opts *ui)
{
    static const char *keys = "p pivots, s sorts, c picks columns, z and ] set the time bins, e saves";
    const char *what = o->by ? "--by" : o->sort ? "--sort" : o->top ? "--top" : o->bin_s > 0 ? "--bin" :
                       o->metrics || o->ctrs->n ? "--metrics" : o->sizes ? "--sizes" : o->diagnose ? "--diagnose" :
                       o->counters ? "--counters" : o->output ? "--output" : NULL;
    if (what) {
        fprintf(stderr, "dfnav: %s shapes report's table; in the explorer %s (dfnav report takes %s)\n", what, keys, what);
        return false;
    }
    if (o->where) {
        dfn_filter f;
        char err[512];
        if (!dfn_filter_parse(o->where, &f, err, sizeof err)) {
            fprintf(stderr, "dfnav: --where: %s\n", err);
            return false;
        }
        dfn_filter_free(&f);
        ui->where = o->where;
    }
    return true;
}

enum { OPT_LISTEN = 1000, OPT_TOKEN, OPT_CONNECT, OPT_SERVED, OPT_RANKS, OPT_SPREAD };

/* Every option: the one table getopt reads, --connect forwards by and
 * dfnav serve checks a client's options against. */
const struct option cli_longopts[] = {
    {"by", required_argument, 0, 'b'}, {"where", required_argument, 0, 'w'},
    {"sort", required_argument, 0, 's'}, {"top", required_argument, 0, 'n'},
    {"bin", required_argument, 0, 'B'}, {"layers", required_argument, 0, 'l'},
    {"format", required_argument, 0, 'f'}, {"threads", required_argument, 0, 'j'},
    {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'}, {"ascii", no_argument, 0, 'A'},
    {"color", required_argument, 0, 'C'}, {"colour", required_argument, 0, 'C'},
    {"replay", required_argument, 0, 'R'}, {"size", required_argument, 0, 'S'},
    {"screens", required_argument, 0, 'O'}, {"metrics", required_argument, 0, 'm'},
    {"sizes", no_argument, 0, 'Z'}, {"compute", required_argument, 0, 'P'},
    {"diagnose", no_argument, 0, 'D'}, {"overlap-by", required_argument, 0, 'U'}, {"threshold", required_argument, 0, 'T'},
    {"compare", no_argument, 0, 'K'}, {"force", no_argument, 0, 'F'},
    {"time-unit", required_argument, 0, 'u'}, {"counters", no_argument, 0, 'c'},
    {"io", required_argument, 0, 'I'}, {"keys", no_argument, 0, 'k'},
    {"output", required_argument, 0, 'o'},
    {"cache", required_argument, 0, 'X'}, {"no-cache", no_argument, 0, 'x'}, {"clear", no_argument, 0, 'L'},
    {"list", required_argument, 0, 'E'},
    {"listen", required_argument, 0, OPT_LISTEN}, {"token-file", required_argument, 0, OPT_TOKEN},
    {"connect", required_argument, 0, OPT_CONNECT}, {"served", no_argument, 0, OPT_SERVED},
    {"ranks", required_argument, 0, OPT_RANKS}, {"spread", no_argument, 0, OPT_SPREAD},
    {0, 0, 0, 0}};
const char cli_shortopts[] = "b:w:s:n:l:f:j:m:o:qhV";

/* What a client's command may not set (see --served): the cache and the
 * set's shape, files written on the server, and another server. */
static bool served_refuses(int c)
{
    return strchr("XxOuFKoL", c) != NULL || c == OPT_LISTEN || c == OPT_TOKEN || c == OPT_CONNECT || c == OPT_RANKS ||
           c == OPT_SPREAD;
}

/* The option of cli_longopts that word names ("--by", "--by=x", "--b"
 * as getopt would take it, "-b..."), or NULL; *val the value it carries
 * in the word itself (NULL when none). */
static const struct option *connect_option(const char *w, const char **val)
{
    *val = NULL;
    if (w[0] != '-' || !w[1]) return NULL;
    if (w[1] != '-') {
        for (size_t k = 0; cli_longopts[k].name; k++)
            if (cli_longopts[k].val == (unsigned char)w[1]) {
                if (cli_longopts[k].has_arg && w[2]) *val = w + 2;
                return &cli_longopts[k];
            }
        return NULL;
    }
    size_t n = strcspn(w + 2, "=");
    if (w[2 + n] == '=') *val = w + 3 + n;
    const struct option *found = NULL;
    for (size_t k = 0; cli_longopts[k].name; k++) {
        if (strncmp(cli_longopts[k].name, w + 2, n) != 0) continue;
        if (strlen(cli_longopts[k].name) == n) return &cli_longopts[k];
        found = found ? found : &cli_longopts[k];
    }
    return found;
}

/* The command line --connect sends: the command, then each option by its
 * whole long name, its value the word after it, whatever way it was
 * typed ("-bfunc", "--by=func", "--by func"), all but --connect and
 * --token-file. The server runs nothing else: it takes no abbreviation
 * and no word that is no option or an option's value. */
static bool connect_args(cli_opts *o, char **argv, int argc)
{
    o->fwd = dfn_xcalloc(2 * (size_t)argc + 1, sizeof *o->fwd);
    o->nfwd = 0;
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') o->fwd[o->nfwd++] = dfn_xstrdup(argv[i++]);
    for (; i < argc; i++) {
        const char *val;
        const struct option *opt = connect_option(argv[i], &val);
        if (!opt) continue;   /* (getopt took the line: no such word is left) */
        /* a cluster, "-qh" or "-qbfunc": each flag its own, and an
         * option that takes a value takes the rest of the word */
        if (argv[i][1] != '-' && !opt->has_arg && argv[i][2]) {
            for (const char *c = argv[i] + 1; *c; c++) {
                char one[3] = { '-', *c, 0 };
                const struct option *f = connect_option(one, &val);
                if (!f) continue;
                if (!cli_client_option(f->name)) {
                    fprintf(stderr, "dfnav: --%s is the server's to set, not a client's (see SERVING in dfnav(1))\n",
                            f->name);
                    return false;
                }
                o->fwd[o->nfwd++] = dfn_xasprintf("--%s", f->name);
                if (!f->has_arg) continue;
                const char *v = c[1] ? c + 1 : i + 1 < argc ? argv[++i] : "";
                char err[256];
                if (!cli_client_value_ok(f->name, v, err, sizeof err)) {
                    fprintf(stderr, "dfnav: %s\n", err);
                    return false;
                }
                o->fwd[o->nfwd++] = dfn_xstrdup(v);
                break;
            }
            continue;
        }
        if (opt->has_arg && !val && i + 1 < argc) val = argv[++i];
        if (opt->val == OPT_CONNECT || opt->val == OPT_TOKEN) continue;
        if (!cli_client_option(opt->name)) {
            fprintf(stderr, "dfnav: --%s is the server's to set, not a client's (see SERVING in dfnav(1))\n", opt->name);
            return false;
        }
        char err[256];
        if (opt->has_arg && !cli_client_value_ok(opt->name, val ? val : "", err, sizeof err)) {
            fprintf(stderr, "dfnav: %s\n", err);
            return false;
        }
        o->fwd[o->nfwd++] = dfn_xasprintf("--%s", opt->name);
        if (opt->has_arg) o->fwd[o->nfwd++] = dfn_xstrdup(val ? val : "");
    }
    return true;
}
static char **connect_fwd;
static size_t connect_nfwd;
static void connect_fwd_free(void)
{
    for (size_t i = 0; i < connect_nfwd; i++) free(connect_fwd[i]);
    free(connect_fwd);
}

/* dfnav [COMMAND] --connect HOST:PORT [OPTIONS]: the command, or the
 * explorer, run by the server on its set. */
static int main_connect(cli_opts *o, const ui_opts *ui, int (*cmd)(const cli_opts *), char **argv, int argc)
{
    if (o->npaths) {
        fprintf(stderr, "dfnav: --connect runs on the server's set: give no PATH\n");
        return 2;
    }
    if (cmd == cmd_extract || cmd == cmd_serve || (argc > 1 && strcmp(argv[1], "cache") == 0)) {
        fprintf(stderr, "dfnav: --connect runs report, overview, info and the explorer, not '%s'\n", argv[1]);
        return 2;
    }
    if (dfn_dist_size() > 1) {
        fprintf(stderr, "dfnav: --connect is a client: start it on its own, not under mpirun\n");
        return 2;
    }
    bool ok = connect_args(o, argv, argc);
    connect_fwd = o->fwd;
    connect_nfwd = o->nfwd;
    if (!ok) return 2;
    atexit(connect_fwd_free);
    bool pty = !cmd && !ui->replay && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    return cli_connect(o, pty);
}

/* A command line, parsed. */
typedef struct {
    cli_opts o;
    ui_opts ui;
    int (*cmd)(const cli_opts *);   /* NULL: the explorer */
    bool cache_cmd, clear, no_cache;
    const char *cache_dir;
    char **av;                /* the words o.paths points into (malloc'd; the strings are argv's) */
    /* while parsing: a served command's, and its client's part still
     * (before --served); where ctr.SERIES metrics go */
    bool served, client_part;
    dfn_ctrs *ctrs;
} main_args;

/* Option c (its value arg) of those that shape a table or a load: -1
 * taken, 0 another kind, else the exit status (said). */
static int main_opt_table(main_args *a, int c, const char *arg)
{
    char *end, err[1024];
    switch (c) {
    case 'b': a->o.by = arg; return -1;
    case 'w': a->o.where = arg; return -1;
    case 's': a->o.sort = arg; return -1;
    case 'n':
        errno = 0;
        a->o.top = strtoul(arg, &end, 10);
        if (*end || errno || arg[0] == '-') { fprintf(stderr, "dfnav: --top takes a whole number, not '%s'\n", arg); return 2; }
        return -1;
    case 'B':
        a->o.bin_s = strtod(arg, &end);
        if (*end || !(a->o.bin_s > 0) || a->o.bin_s > 1e9) { fprintf(stderr, "dfnav: --bin takes seconds > 0, not '%s'\n", arg); return 2; }
        return -1;
    case 'l': a->o.layers = arg; return -1;
    case 'o':
        if (a->cmd != cmd_extract) { fprintf(stderr, "dfnav: -o/--output belongs to 'dfnav extract'\n"); return 2; }
        a->o.output = arg;
        return -1;
    case 'f':
        if (!dfn_format_parse(arg, &a->o.format)) { fprintf(stderr, "dfnav: --format is table, csv, json or chrome, not '%s'\n", arg); return 2; }
        return -1;
    case 'j':
        errno = 0;
        a->o.threads = (int)strtol(arg, &end, 10);
        if (*end || errno || a->o.threads < 1 || a->o.threads > 256) { fprintf(stderr, "dfnav: -j takes 1 to 256, not '%s'\n", arg); return 2; }
        return -1;
    case 'm':
        if (!dfn_metrics_parse(arg, &a->o.metrics, a->ctrs, err, sizeof err)) { fprintf(stderr, "dfnav: --metrics: %s\n", err); return 2; }
        return -1;
    case 'Z': a->o.sizes = true; return -1;
    case 'U':
        if (strcmp(arg, "process") == 0) a->o.overlap_host = false;
        else if (strcmp(arg, "host") == 0) a->o.overlap_host = true;
        else { fprintf(stderr, "dfnav: --overlap-by is process or host, not '%s'\n", arg); return 2; }
        return -1;
    case 'P': a->o.compute = arg; return -1;
    case 'I': a->o.io = arg; return -1;
    case 'D': a->o.diagnose = true; return -1;
    case 'K': a->o.compare = true; return -1;
    case 'F': a->o.force = true; return -1;
    case 'u':
        a->o.time_unit = dfn_unit_parse(arg, strlen(arg));
        if (!a->o.time_unit) { fprintf(stderr, "dfnav: --time-unit is us, ns, ms or sec, not '%s'\n", arg); return 2; }
        return -1;
    case 'c': a->o.counters = true; return -1;
    case 'E':
        if (a->cmd != cmd_info) { fprintf(stderr, "dfnav: --list belongs to 'dfnav info'\n"); return 2; }
        if (strcmp(arg, "args") != 0 && strcmp(arg, "layers") != 0) {
            fprintf(stderr, "dfnav: --list is args or layers, not '%s'\n", arg);
            return 2;
        }
        a->o.list = arg;
        return -1;
    case 'T':
        if (!dfn_thresholds_parse(arg, &a->o.thresholds, err, sizeof err)) { fprintf(stderr, "dfnav: --threshold: %s\n", err); return 2; }
        return -1;
    default: return 0;
    }
}

/* Option c of the others: the server's and client's, the explorer's,
 * the cache's, help: -1 taken, else the exit status (said). */
static int main_opt_other(main_args *a, int c, const char *arg)
{
    switch (c) {
    case OPT_LISTEN:
        if (a->cmd != cmd_serve) { fprintf(stderr, "dfnav: --listen belongs to 'dfnav serve'\n"); return 2; }
        a->o.listen = arg;
        return -1;
    case OPT_TOKEN: a->o.token_file = arg; return -1;
    case OPT_CONNECT: a->o.connect = arg; return -1;
    case OPT_SERVED:
        if (!a->client_part) { fprintf(stderr, "dfnav: --served is dfnav serve's own\n"); return 2; }
        a->client_part = false;
        return -1;
    case OPT_RANKS:   /* (what serve --spread gives its clients' commands: where its ranks take them) */
        if (!a->served || a->client_part) { fprintf(stderr, "dfnav: --ranks is dfnav serve's own\n"); return 2; }
        a->o.ranks = arg;
        return -1;
    case OPT_SPREAD:
        if (a->cmd != cmd_serve) { fprintf(stderr, "dfnav: --spread belongs to 'dfnav serve'\n"); return 2; }
        a->o.spread = true;
        return -1;
    case 'q': a->o.quiet = true; return -1;
    case 'A': a->ui.ascii = true; return -1;
    case 'C':
        if (strcmp(arg, "auto") == 0) a->ui.color = -1;
        else if (strcmp(arg, "always") == 0) a->ui.color = 1;
        else if (strcmp(arg, "never") == 0) a->ui.color = 0;
        else { fprintf(stderr, "dfnav: --color is auto, always or never, not '%s'\n", arg); return 2; }
        return -1;
    case 'R': a->ui.replay = arg; return -1;
    case 'S':
        if (sscanf(arg, "%dx%d", &a->ui.cols, &a->ui.rows) != 2 || a->ui.cols < 1 || a->ui.rows < 1 || a->ui.cols > 2000 || a->ui.rows > 1000) {
            fprintf(stderr, "dfnav: --size is COLSxROWS such as 80x24, not '%s'\n", arg);
            return 2;
        }
        return -1;
    case 'O': a->ui.screens = arg; return -1;
    case 'X': a->cache_dir = arg; return -1;
    case 'x': a->no_cache = true; return -1;
    case 'L':
        if (!a->cache_cmd) { fprintf(stderr, "dfnav: --clear belongs to 'dfnav cache'\n"); return 2; }
        a->clear = true;
        return -1;
    case 'h': usage(stdout); return cli_write_status(stdout) ? 2 : 0;
    case 'k': {
        /* the explorer's help screen, from the same key table */
        char **lines;
        size_t n = keymap_help(78, &lines);
        for (size_t i = 0; i < n; i++) { puts(lines[i]); free(lines[i]); }
        free(lines);
        return cli_write_status(stdout) ? 2 : 0;
    }
    case 'V':
        printf("dfnav %s (gzip: %s, MPI: %s)\n", PACKAGE_VERSION, dfn_reader_backend(), dfn_dist_backend());
        return 0;
    default: usage(stderr); return 2;
    }
}

/* argv into a (its ctr.SERIES metrics into ctrs); served: a client's
 * command run by dfnav serve, whose options come before --served. -1 to
 * go on, else the exit status (help and errors said). */
static int main_parse_opts(int argc, char **argv, bool served, dfn_ctrs *ctrs, main_args *a)
{
    *a = (main_args){ .o = { .format = DFN_FMT_TABLE, .ctrs = ctrs }, .ui = { .color = -1, .rows = 24, .cols = 80 },
                      .served = served, .ctrs = ctrs };
    dfn_thresholds_default(&a->o.thresholds);
    int first = 1;
    const char *word = argc > 1 ? argv[1] : "";
    if (strcmp(word, "report") == 0) a->cmd = cmd_report;
    else if (strcmp(word, "compare") == 0) a->o.compare = true;
    else if (strcmp(word, "info") == 0) a->cmd = cmd_info;
    else if (strcmp(word, "overview") == 0) a->cmd = cmd_overview;
    else if (strcmp(word, "extract") == 0) a->cmd = cmd_extract;
    else if (strcmp(word, "serve") == 0) a->cmd = cmd_serve;
    else a->cache_cmd = strcmp(word, "cache") == 0;
    if (a->cmd || a->o.compare || a->cache_cmd) first = 2;
    /* a client's command run by dfnav serve: its options come before
     * --served, the server's after, and the client's may not choose what
     * the server holds (its set, cache, files it writes) */
    a->client_part = a->ui.served = a->o.served = served;
    /* the program and the words after the command (optind 0 starts
     * getopt afresh, as a second parse in one process needs, at 1) */
    int ac = argc - first + 1, c;
    char **av = a->av = dfn_xcalloc((size_t)ac + 1, sizeof *av);
    av[0] = argv[0];
    for (int i = first; i < argc; i++) av[i - first + 1] = argv[i];
    optind = 0;
    while ((c = getopt_long(ac, av, cli_shortopts, cli_longopts, NULL)) != -1) {
        if (a->client_part && served_refuses(c)) {
            const char *name = "?";
            for (size_t k = 0; cli_longopts[k].name; k++)
                if (cli_longopts[k].val == c) { name = cli_longopts[k].name; break; }
            fprintf(stderr, "dfnav: --%s is the server's to set, not a client's\n", name);
            return 2;
        }
        int rc = main_opt_table(a, c, optarg);
        if (rc == 0) rc = main_opt_other(a, c, optarg);
        if (rc >= 0) return rc;
    }
    a->o.paths = av + optind;
    a->o.npaths = (size_t)(ac - optind);
    if (a->client_part) { fprintf(stderr, "dfnav: a served command without the server's --served\n"); return 2; }
    return -1;
}

/* main_parse_opts, its words freed when it ends the program. */
static int main_parse(int argc, char **argv, bool served, dfn_ctrs *ctrs, main_args *a)
{
    a->av = NULL;
    int rc = main_parse_opts(argc, argv, served, ctrs, a);
    if (rc >= 0) {
        free(a->av);
        a->av = NULL;
    }
    return rc;
}

int cli_request_opts(int argc, char **argv, cli_opts *o, dfn_ctrs *ctrs, char ***words)
{
    main_args a;
    int rc = main_parse(argc, argv, true, ctrs, &a);
    if (rc >= 0) return rc;
    *o = a.o;
    *words = a.av;
    return -1;
}

int main(int argc, char **argv)
{
    dfn_malloc_policy();
    /* under mpirun, srun or flux: MPI first (it may take its own
     * arguments), then finalized last of all at exit */
    char dist_err[512];
    if (!dfn_dist_start(&argc, &argv, dist_err, sizeof dist_err)) {
        fprintf(stderr, "dfnav: %s\n", dist_err);
        return 2;
    }
    atexit(dfn_dist_end);
    cli_dist_quiet();
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is seen as EPIPE and ends quietly */
    signal(SIGXFSZ, SIG_IGN);   /* a file over ulimit -f fails with EFBIG and is reported, not a silent death */
    atexit(main_ctrs_free);
    main_args a;
    int rc = main_parse(argc, argv, getenv("DFNAV_SERVED") != NULL, &main_ctrs, &a);
    if (rc >= 0) return rc;
    main_words = a.av;
    atexit(main_words_free);
    cli_opts o = a.o;
    ui_opts ui = a.ui;
    int (*cmd)(const cli_opts *) = a.cmd;
    bool cache_cmd = a.cache_cmd;
    char envmsg[256];
    if (!dfn_mem_env_check(envmsg, sizeof envmsg)) {
        fprintf(stderr, "dfnav: %s\n", envmsg);
        return 2;
    }
    /* the cache's directory lives as long as the program */
    if (!a.no_cache) {
        cache_path = dfn_cache_dir(a.cache_dir);
        atexit(cache_path_free);
    }
    o.cache = cache_path;
    if (o.connect) return main_connect(&o, &ui, cmd, argv, argc);
    /* from here the ranks past the first follow rank 0's word */
    cli_dist_arm();
    if (dfn_dist_rank() > 0) return cli_dist_worker(&o);
    if (cache_cmd) {
        if (o.npaths) { fprintf(stderr, "dfnav: 'dfnav cache' takes no path\n"); return 2; }
        return cmd_cache(&o, a.clear);
    }
    if (o.npaths == 0) {
        fprintf(stderr, "dfnav: no trace given\n\n");
        usage(stderr);
        return 2;
    }
    if (o.compare && cmd != cmd_info && (o.npaths < 2 || o.npaths > DFN_COMPARE_MAX_RUNS)) {
        fprintf(stderr, "dfnav: comparing needs 2 to %d runs, not %zu\n", DFN_COMPARE_MAX_RUNS, o.npaths);
        return 2;
    }
    /* a Chrome trace is of calls: the rows of report --by event */
    if (o.format == DFN_FMT_CHROME &&
        (cmd != cmd_report || !o.by || strcmp(o.by, "event") != 0 || o.counters || o.diagnose)) {
        fprintf(stderr, "dfnav: --format chrome writes calls: use it with 'dfnav report --by event'\n");
        return 2;
    }
    /* a client's command on a set held by serve --spread's ranks */
    bool piped = !ui.replay && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
    if (o.ranks && (cmd || piped)) return serve_ranks_ask(&o, cmd, piped, argc, argv);
    if (cmd) return cmd(&o);
    /* no command: the explorer on a terminal (or replaying), else the overview */
    if (!ui.replay && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))) return cmd_overview(&o);
    if (dfn_dist_size() > 1) {
        fprintf(stderr, "dfnav: the explorer runs as one process, not under mpirun (%d ranks): give the ranks a "
                "command (report, overview, info, extract), or serve the set (dfnav serve --spread) and run the "
                "explorer with --connect, or run it on its own\n", dfn_dist_size());
        return 2;
    }
    if (o.compare && o.npaths > 4) {
        /* a column per run and metric: more do not fit a terminal */
        fprintf(stderr, "dfnav: the explorer compares up to 4 runs; dfnav report --compare takes up to %d\n", DFN_COMPARE_MAX_RUNS);
        return 2;
    }
    ui.layers = o.layers;
    ui.compute = o.compute;
    ui.io = o.io;
    ui.overlap_host = o.overlap_host;
    ui.thresholds = o.thresholds;
    ui.threads = o.threads;
    ui.compare = o.compare;
    ui.force = o.force;
    ui.time_unit = o.time_unit;
    ui.cache_dir = o.cache;
    if (!explorer_opts(&o, &ui)) return 2;
    /* the explorer of a set held by serve --spread's ranks */
    if (o.ranks) return serve_remote_explore(&o, &ui, argc, argv);
    return ui_run(&ui, o.paths, o.npaths);
}
