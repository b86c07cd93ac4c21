/* dfnav: the program. Parses the command line and hands over to a command;
 * each command is a thin layer over the engine library. */
#include "cli.h"
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
"Usage: dfnav [OPTIONS] PATH...          overview of a trace set\n"
"       dfnav report [OPTIONS] PATH...   one table of grouped events\n"
"       dfnav info [OPTIONS] PATH...     what each trace file holds\n"
"\n"
"PATH is a DFTracer trace (*.pfw, *.pfw.gz), a directory searched for them,\n"
"a quoted glob, or - for standard input.\n"
"\n"
"Options:\n"
"  -b, --by DIMS          group by dimensions, comma separated: time host pid tid\n"
"                         proc cat func class op layer file pattern dir fs sizebin\n"
"                         arg.NAME event (without --by: one row of totals)\n"
"  -w, --where EXPR       keep events matching every term KEY OP VALUE, with OP\n"
"                         one of = != ~ !~ < <= > >= (see dfnav(1), FILTERS)\n"
"  -s, --sort METRIC[:asc|desc]  sort rows by a metric, or by 'key'\n"
"  -n, --top N            keep the first N rows\n"
"      --bin SECONDS      width of time bins (default: chosen from the span)\n"
"  -l, --layers NAME|FILE layer definitions: posix, dlio or a file\n"
"                         (default: dlio when DLIO categories are present)\n"
"  -f, --format FMT       table (default), csv or json\n"
"  -j, --threads N        loader threads (default: one per online core)\n"
"  -q, --quiet            no progress line and no damage report on stderr\n"
"  -h, --help             this help\n"
"  -V, --version          version and gzip backend\n"
"\n"
"Metrics: count time_s busy_s max_proc_s bytes bw_mibps ops_per_s mean_us\n"
"         p50_us p90_us p99_us max_us files procs pct_time\n"
"\n"
"Exit status: 0 all loaded, 1 some lines or files damaged (the rest loaded),\n"
"2 usage error, 3 nothing could be read.\n", f);
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is seen as EPIPE and ends quietly */
    cli_opts o = { .format = DFN_FMT_TABLE };
    int (*cmd)(const cli_opts *) = cmd_overview;
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "report") == 0) { cmd = cmd_report; first = 2; }
    else if (argc > 1 && strcmp(argv[1], "info") == 0) { cmd = cmd_info; first = 2; }
    static const struct option longopts[] = {
        {"by", required_argument, 0, 'b'}, {"where", required_argument, 0, 'w'},
        {"sort", required_argument, 0, 's'}, {"top", required_argument, 0, 'n'},
        {"bin", required_argument, 0, 'B'}, {"layers", required_argument, 0, 'l'},
        {"format", required_argument, 0, 'f'}, {"threads", required_argument, 0, 'j'},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'}, {0, 0, 0, 0}};
    int c;
    optind = first;
    while ((c = getopt_long(argc, argv, "b:w:s:n:l:f:j:qhV", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'b': o.by = optarg; break;
        case 'w': o.where = optarg; break;
        case 's': o.sort = optarg; break;
        case 'n':
            errno = 0;
            o.top = strtoul(optarg, &end, 10);
            if (*end || errno || optarg[0] == '-') { fprintf(stderr, "dfnav: --top takes a whole number, not '%s'\n", optarg); return 2; }
            break;
        case 'B':
            o.bin_s = strtod(optarg, &end);
            if (*end || !(o.bin_s > 0) || o.bin_s > 1e9) { fprintf(stderr, "dfnav: --bin takes seconds > 0, not '%s'\n", optarg); return 2; }
            break;
        case 'l': o.layers = optarg; break;
        case 'f':
            if (!dfn_format_parse(optarg, &o.format)) { fprintf(stderr, "dfnav: --format is table, csv or json, not '%s'\n", optarg); return 2; }
            break;
        case 'j':
            errno = 0;
            o.threads = (int)strtol(optarg, &end, 10);
            if (*end || errno || o.threads < 1 || o.threads > 256) { fprintf(stderr, "dfnav: -j takes 1 to 256, not '%s'\n", optarg); return 2; }
            break;
        case 'q': o.quiet = true; break;
        case 'h': usage(stdout); return cli_write_status(stdout) ? 2 : 0;
        case 'V':
            printf("dfnav %s (gzip: %s)\n", PACKAGE_VERSION, dfn_reader_backend());
            return 0;
        default: usage(stderr); return 2;
        }
    }
    o.paths = argv + optind;
    o.npaths = (size_t)(argc - optind);
    if (o.npaths == 0) {
        fprintf(stderr, "dfnav: no trace given\n\n");
        usage(stderr);
        return 2;
    }
    return cmd(&o);
}
