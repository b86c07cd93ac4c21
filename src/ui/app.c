/* The explorer program: curses set-up and teardown, the main loop that
 * polls the background work between keys, the headless replay, the
 * screen's size and signals. Signals only set flags; the loop restores the
 * terminal. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "app.h"
#include "dfnav/cache.h"
#include "replay.h"
#include "dfnav/estimate.h"
#include "dfnav/export.h"
#include "dfnav/loader.h"
#include "dfnav/strtab.h"
#include "dfnav/callplace.h"
#include "dfnav/util.h"

#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Signals only set these; the loop acts on them between screens, where
 * curses is in a known state (drawing from a handler would interleave with
 * the loop's own output). */
static volatile sig_atomic_t got_signal;   /* INT TERM HUP QUIT: restore the terminal, die of the signal */
static volatile sig_atomic_t got_stop;     /* TSTP: restore the terminal, then stop */
static volatile sig_atomic_t got_cont;     /* CONT: take the terminal back, redraw */

static void on_signal(int sig) { got_signal = sig; }
static void on_stop(int sig) { (void)sig; got_stop = 1; }
static void on_cont(int sig) { (void)sig; got_cont = 1; }

/* Whether the view was queried again for the new size. */
bool app_set_size(runner *r, int rows, int cols)
{
    app *a = &r->a;
    a->rows = rows;
    a->cols = cols;
    if (a->have_view) {
        /* the tracks a page holds first: they take lines from the table */
        int old_max = a->v.track_max;
        a->v.track_max = rows / 8 < 1 ? 1 : rows / 8 > 8 ? 8 : rows / 8;   /* 3 at 24 rows */
        int tr = view_table_lines(&a->v, rows) - (view_header_lines(&a->v) - 1);
        if (tr < 1) tr = 1;
        int x0, sw, scale_w;
        view_timeline_geom(&a->v, cols, &x0, &sw, &scale_w);
        bool changed = tr != a->v.table_rows || sw != a->v.spark_w || cols != a->v.screen_cols ||
                       old_max != a->v.track_max;
        a->v.table_rows = tr;
        a->v.spark_w = sw;
        a->v.screen_cols = cols;
        if (changed && rows >= 24 && cols >= 80) {
            char err[256];
            view_refresh(&a->v, err, sizeof err);
            return true;
        }
    }
    return false;
}

static void init_colors(app *a)
{
    a->color = false;
    if (a->opts.color == 0 || (a->opts.color < 0 && getenv("NO_COLOR") && *getenv("NO_COLOR"))) return;
    if (!has_colors() || start_color() != OK) return;
    use_default_colors();
    init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_SPARK, COLOR_GREEN, -1);
    init_pair(PAIR_WARN, COLOR_YELLOW, -1);
    init_pair(PAIR_HINT, COLOR_BLACK, COLOR_WHITE);
    init_pair(PAIR_SEL_SPARK, COLOR_CYAN, -1);
    a->color = true;
}

static void runner_free(runner *r)
{
    for (size_t k = 0; k < r->nruns; k++) {
        /* the images saved while the explorer ran: what went wrong (the
         * terminal is back by now) */
        const char *note = r->runs[k].final ? dfn_store_saved(r->runs[k].final) : NULL;
        if (note) fprintf(stderr, "dfnav: cache: %s\n", note);
    }
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        if (rl->loader) {
            atomic_store(&rl->sn.stop, true);
            dfn_loader_cancel(rl->loader);
            if (rl->sn.started) pthread_join(rl->sn.thread, NULL);
            dfn_store_free(dfn_loader_finish(rl->loader));
            rl->loader = NULL;
        }
        view_set_free(atomic_exchange(&rl->sn.ready, NULL));
        if (rl->ix.started) {
            atomic_store(&rl->ix.go, true);   /* a table it still waits for will not come */
            pthread_join(rl->ix.thread, NULL);
            view_set *vs = atomic_exchange(&rl->ix.ready, NULL);
            /* its store is the final one, which no set owns yet */
            if (vs) view_set_free(vs);
            dfn_analysis *x = atomic_exchange(&rl->ix.extra, NULL);
            if (x) { dfn_analysis_free(x); free(x); }
            rl->ix.started = false;
        }
    }
    export_poll(r, true);
    diag_poll(r, true);
    if (job_finished(&r->mk.job, true)) {   /* marks no level will show */
        dfn_strtab_free(r->mk.keys);
        dfn_filter_free(&r->mk.filter);
    }
    if (job_finished(&r->fc.job, true)) {   /* and slowest processes */
        dfn_result_free(r->fc.res);
        dfn_filter_free(&r->fc.filter);
        free(r->fc.by.arg);
    }
    dfn_findings_free(r->a.diag);
    free(r->a.diag_where);
    for (size_t k = 0; k < r->a.ndetail_lines; k++) free(r->a.detail_lines[k]);
    free(r->a.detail_lines);
    if (r->a.have_view) view_free(&r->a.v);
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        view_set_free(rl->cur);
    }
    free(r->runs);
    dfn_runs_free(r->specs, r->nruns);
    free(r->labels);
    free(r->a.damage_store);
    free(r->a.input_errors);
    for (size_t k = 0; k < PROMPT_N; k++) edit_hist_free(&r->a.hist[k]);
    for (size_t i = 0; i < r->a.narg_names; i++) free(r->a.arg_names[i]);
    free(r->a.arg_names);
    free(r->a.edit.buf);
    free(r->a.mem_warning);
    free(r->a.mem_advice);
    free(r->pending_path);
}

/* The keys terminals send for Home, End, PgUp, PgDn, Del and the arrows,
 * bound where TERM's description lacks them (vt100 under tmux or screen
 * has no Home or PgDn): unbound, "Esc [ 5 ~" would arrive as Esc, '[',
 * '5' and '~', and Esc and '[' are keys here. A sequence the description
 * gives another meaning keeps it (xterm's Find and Select, \e[1~ and
 * \e[4~, which the key map takes as Home and End). */
static void keys_define_missing(void)
{
    static const struct { const char *seq; int key; } seqs[] = {
        { "\033[1~", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[5~", KEY_PPAGE }, { "\033[6~", KEY_NPAGE },
        { "\033[7~", KEY_HOME }, { "\033[8~", KEY_END }, { "\033[H", KEY_HOME }, { "\033[F", KEY_END },
        { "\033OH", KEY_HOME }, { "\033OF", KEY_END }, { "\033[3~", KEY_DC },
        { "\033[A", KEY_UP }, { "\033[B", KEY_DOWN }, { "\033[C", KEY_RIGHT }, { "\033[D", KEY_LEFT },
        { "\033OA", KEY_UP }, { "\033OB", KEY_DOWN }, { "\033OC", KEY_RIGHT }, { "\033OD", KEY_LEFT },
    };
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        if (key_defined(seqs[i].seq) == 0) define_key(seqs[i].seq, seqs[i].key);
}

/* Reads one key: a wide character or a function key. */
static int read_key(char *utf8, size_t *ulen)
{
    wint_t wc;
    int rc = get_wch(&wc);
    *ulen = 0;
    if (rc == ERR) return ERR;
    if (rc == KEY_CODE_YES) return (int)wc;
    if (wc >= 32 && wc != 127) {
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t n = wcrtomb(utf8, (wchar_t)wc, &st);
        *ulen = n == (size_t)-1 ? 0 : n;
    }
    return (int)wc;
}

/* ---- signals ---- */

/* INT, TERM, HUP and QUIT end the program and TSTP stops it, each once
 * the loop has put the terminal back. A signal the program was started
 * with ignored (nohup, a background job of a script) stays ignored. */
static void signals_install(void)
{
    static const int ends[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        sigaction(ends[i], NULL, &old);
        if (old.sa_handler != SIG_IGN) sigaction(ends[i], &sa, NULL);
    }
    /* our own TSTP and CONT handlers also keep ncurses from installing
     * its TSTP handler, which draws from inside the signal handler */
    sa.sa_handler = on_stop;
    sigaction(SIGTSTP, &sa, NULL);
    sa.sa_handler = on_cont;
    sigaction(SIGCONT, &sa, NULL);
}

/* Ctrl-Z: the shell gets the terminal back as it was, then the whole
 * process stops (a load or an export pauses with it) until SIGCONT. */
static void app_suspend(void)
{
    got_stop = 0;
    endwin();
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    sigemptyset(&dfl.sa_mask);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTSTP, &dfl, &ours);
    raise(SIGTSTP);   /* returns once continued */
    sigaction(SIGTSTP, &ours, NULL);
    got_cont = 1;
}

/* Continued (after Ctrl-Z, or a SIGSTOP that could not be caught): the
 * shell may have changed the terminal modes and the size meanwhile (a
 * stopped process gets no SIGWINCH), so both are taken again and the
 * whole screen is redrawn. */
static void app_resume(runner *r)
{
    got_cont = 0;
    reset_prog_mode();
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
        (ws.ws_row != LINES || ws.ws_col != COLS))
        resizeterm(ws.ws_row, ws.ws_col);
    app_set_size(r, LINES, COLS);
    clearok(curscr, TRUE);
}

/* After the screen is restored: a signal ends the program at once. An
 * export in progress loses its temporary file, never leaving part of a
 * table under its name; loader and worker threads end with the process,
 * which holds nothing that outlives it. Dies of the signal (the shell sees
 * 128 + its number). r may be NULL once freed. */
static void app_oom(void) { endwin(); }

static _Noreturn void die_of_signal(runner *r)
{
    int sig = got_signal;
    if (r && atomic_load(&r->ex.job.running) && r->ex.tmp) unlink(r->ex.tmp);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

/* Quitting while an export runs: q finishes it, Q cancels it. The status
 * line is gone, so its outcome goes to stderr. */
static void export_after_screen(runner *r)
{
    exporter *x = &r->ex;
    if (!atomic_load(&x->job.running)) return;
    if (r->abandon_export) atomic_store(&x->save.cancel, true);
    else dfn_warnf(stderr, "finishing the export to %s ...", x->path);
    while (!atomic_load(&x->job.done)) {
        if (got_signal) die_of_signal(r);
        struct timespec ts = { 0, 20 * 1000000 };
        nanosleep(&ts, NULL);
    }
    export_poll(r, true);
    dfn_warnf(stderr, "%s", r->a.msg);
}

/* The replay: a fixed screen size, the load finished before the first
 * screen, every key handled exactly as from a terminal, the screen written
 * as text after each, and the time each key took. */
static int run_headless(runner *r, const ui_opts *o)
{
    app *a = &r->a;
    replay_key *keys;
    size_t nkeys;
    char err[512];
    if (!replay_parse(o->replay, &keys, &nkeys, err, sizeof err)) {
        fprintf(stderr, "dfnav: --replay: %s\n", err);
        return 2;
    }
    FILE *out = stdout;
    if (o->screens && strcmp(o->screens, "-") != 0) {
        out = fopen(o->screens, "w");
        if (!out) {
            fprintf(stderr, "dfnav: %s: %s\n", o->screens, strerror(errno));
            replay_free(keys, nkeys);
            return 2;
        }
    }
    FILE *tout = fopen("/dev/null", "w"), *tin = fopen("/dev/null", "r");
    SCREEN *scr = tout && tin ? newterm("xterm-256color", tout, tin) : NULL;
    if (!scr) {
        fprintf(stderr, "dfnav: cannot set up the replay screen (terminfo for xterm-256color)\n");
        if (tout) fclose(tout);
        if (tin) fclose(tin);
        if (out != stdout) fclose(out);
        replay_free(keys, nkeys);
        return 2;
    }
    set_term(scr);
    resizeterm(o->rows, o->cols);
    init_colors(a);
    a->rows = o->rows;
    a->cols = o->cols;
    for (;;) {
        load_poll(r);
        if (!a->loading) break;
        struct timespec ts = { 0, 5 * 1000000 };
        nanosleep(&ts, NULL);
    }
    app_set_size(r, o->rows, o->cols);
    double *lat = dfn_xmalloc((nkeys ? nkeys : 1) * sizeof *lat);
    size_t nlat = 0;
    marks_poll(a, &r->mk, true);
    facts_poll(a, &r->fc, true);
    draw_screen(a);
    wnoutrefresh(stdscr);
    doupdate();
    replay_dump(out, "start", a->rows, a->cols);
    for (size_t k = 0; k < nkeys && !r->quit; k++) {
        double t0 = dfn_now();
        if (keys[k].rows) {
            resizeterm(keys[k].rows, keys[k].cols);
            app_set_size(r, keys[k].rows, keys[k].cols);
        } else {
            keys_handle(r, keys[k].key, keys[k].utf8, keys[k].ulen);
        }
        export_poll(r, true);
        diag_poll(r, true);
        /* marks and the slowest processes come in the background: not
         * part of the key's latency (waited for, so that every replay
         * draws the same screens) */
        double m0 = dfn_now();
        marks_poll(a, &r->mk, true);
        facts_poll(a, &r->fc, true);
        t0 += dfn_now() - m0;
        draw_screen(a);
        wnoutrefresh(stdscr);
        doupdate();
        lat[nlat++] = (dfn_now() - t0) * 1e3;
        fprintf(stderr, "latency %s: %.1f ms\n", keys[k].label, lat[nlat - 1]);
        replay_dump(out, keys[k].label, a->rows, a->cols);
    }
    replay_latency(stderr, lat, nlat);
    free(lat);
    endwin();
    delscreen(scr);
    fclose(tout);
    fclose(tin);
    if (out != stdout) fclose(out);
    else fflush(stdout);
    replay_free(keys, nkeys);
    return r->status;
}

/* The explorer's loop (or the replay's) until it quits, then the runner
 * freed; the status (missing: some path gave no file). */
static int ui_loop(runner *r, const ui_opts *o, bool missing)
{
    app *a = &r->a;
    int status;
    if (r->headless) {
        status = run_headless(r, o);
    } else {
        signals_install();
        if (!initscr()) {
            fprintf(stderr, "dfnav: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
            runner_free(r);
            free(r);
            return 2;
        }
        dfn_set_oom_hook(app_oom);   /* the message must reach a usable terminal */
        cbreak();
        noecho();
        nonl();
        keypad(stdscr, TRUE);
        keys_define_missing();
        set_escdelay(25);
        timeout(50);          /* the loop polls the loader between keys */
        curs_set(0);
        init_colors(a);
        app_set_size(r, LINES, COLS);
        double started = dfn_now();
        while (!r->quit && !got_signal) {
            if (got_stop) app_suspend();
            if (got_cont) app_resume(r);
            /* the first second polls often: a set from the cache is
             * there within it, and each poll's wait would add to it */
            timeout(a->loading && dfn_now() - started < 1 ? 10 : 50);
            load_poll(r);
            export_poll(r, false);
            diag_poll(r, false);
            marks_poll(a, &r->mk, false);
            facts_poll(a, &r->fc, false);
            curs_set(a->mode == MODE_PROMPT ? 1 : 0);
            draw_screen(a);
            refresh();
            char u[8];
            size_t ul;
            int key = read_key(u, &ul);
            if (key == ERR || got_signal || got_stop) continue;
            if (key == KEY_RESIZE) { app_set_size(r, LINES, COLS); continue; }
            keys_handle(r, key, u, ul);
        }
        endwin();
        if (got_signal) die_of_signal(r);
        export_after_screen(r);
        status = r->status;
    }
    if (a->loading && !r->headless) status = 0;   /* quit while loading: cancelled on purpose */
    if (status == 0 && missing) status = 1;
    runner_free(r);
    free(r);
    if (got_signal) die_of_signal(NULL);   /* one that came while cleaning up */
    return status;
}

/* A runner of the explorer with options o, and the terminal's locale. */
static runner *runner_new(const ui_opts *o)
{
    runner *r = dfn_xcalloc(1, sizeof *r);
    r->a.opts = *o;
    setlocale(LC_ALL, "");
    r->a.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    r->headless = o->replay != NULL;
    return r;
}

int ui_run_remote(const ui_opts *o, dfn_outline *ol, const dfn_remote *rem)
{
    runner *r = runner_new(o);
    app *a = &r->a;
    r->nruns = ol->n;
    r->runs = dfn_xcalloc(r->nruns, sizeof *r->runs);
    a->damage_store = dfn_xcalloc(r->nruns, sizeof *a->damage_store);
    a->nruns = r->nruns;
    if (ol->n > 1) {   /* (runs side by side: each named, the outline checked) */
        r->labels = dfn_xcalloc(r->nruns, sizeof *r->labels);
        for (size_t k = 0; k < r->nruns; k++) r->labels[k] = ol->run[k].label;
    }
    load_remote(r, ol, rem);
    return ui_loop(r, o, false);
}

int ui_run(const ui_opts *o, char **paths, size_t npaths)
{
    runner *r = runner_new(o);
    app *a = &r->a;

    /* comparing, each path is a run of its own; else all are one */
    char err[1024];
    if (!dfn_runs_parse(paths, npaths, o->compare, &r->specs, &r->nruns, err, sizeof err)) {
        fprintf(stderr, "dfnav: %s\n", err);
        runner_free(r);
        free(r);
        return 2;
    }
    r->runs = dfn_xcalloc(r->nruns, sizeof *r->runs);
    a->damage_store = dfn_xcalloc(r->nruns, sizeof *a->damage_store);
    a->nruns = r->nruns;
    if (o->compare) r->labels = dfn_xcalloc(r->nruns, sizeof *r->labels);
    bool missing = false, empty = false;
    for (size_t k = 0; k < r->nruns; k++) {
        run_load *rl = &r->runs[k];
        rl->in = &r->specs[k].in;
        if (r->labels) r->labels[k] = r->specs[k].label;
        missing |= rl->in->nerrors > 0;
        for (size_t i = 0; i < rl->in->nerrors; i++) {
            a->input_errors = dfn_xreallocarray(a->input_errors, a->ninput_errors + 1, sizeof *a->input_errors);
            a->input_errors[a->ninput_errors++] = rl->in->errors[i];
        }
        if (rl->in->n == 0) {
            for (size_t i = 0; i < rl->in->nerrors; i++) dfn_warnf(stderr, "%s", rl->in->errors[i]);
            if (r->labels) dfn_warnf(stderr, "%s: no trace file to read", r->labels[k]);
            else fprintf(stderr, "dfnav: no trace file to read\n");
            empty = true;
        }
    }
    if (empty) {
        runner_free(r);
        free(r);
        return 3;
    }
    /* a bad layer file or compute definition is a usage error, before
     * any screen */
    const char *bad = NULL;
    dfn_layers l;
    dfn_filter f;
    if (o->layers && !dfn_layers_load(o->layers, &l, err, sizeof err)) bad = "layers";
    else if (o->layers) dfn_layers_free(&l);
    if (!bad && o->compute && !dfn_filter_parse(o->compute, &f, err, sizeof err)) bad = "--compute";
    else if (!bad && o->compute) dfn_filter_free(&f);
    if (bad) {
        fprintf(stderr, "dfnav: %s: %s\n", bad, err);
        runner_free(r);
        free(r);
        return 2;
    }
    /* a set that would not fit is said before the load fills the memory:
     * the replay gives up as the command line does, the explorer asks */
    char msg[512];
    dfn_estimate est;
    if (!o->force && !dfn_runs_fit(r->specs, r->nruns, o->threads, DFN_EST_EXPLORER_PER_EVENT, &est, msg, sizeof msg)) {
        /* and where it would fit: a larger node, through dfnav serve */
        char *advice = dfn_runs_advice(r->specs, r->nruns, &est, o->threads, DFN_ADVICE_EXPLORER,
                                       npaths ? paths[0] : NULL, npaths > 1, o->compare);
        if (r->headless) {
            fprintf(stderr, "dfnav: %s\ndfnav: --force loads it anyway; fewer files need less\n", msg);
            dfn_warn_lines(stderr, advice);
            free(advice);
            runner_free(r);
            free(r);
            return 4;
        }
        a->mem_advice = advice;
        a->mem_warning = dfn_xstrdup(msg);
        a->mode = MODE_MEMORY;
    }
    if (a->mode != MODE_MEMORY) load_start(r);
    return ui_loop(r, o, missing);
}

