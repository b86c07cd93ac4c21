/* Key handling for every screen: the table, menus, scrolled screens, the
 * diagnostics list and prompts, dispatched from one place for the terminal
 * and the replay alike. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "app.h"
#include "dfnav/callplace.h"
#include "dfnav/util.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static long long now_seconds(void)
{
    /* reproducible names for tests and builds */
    const char *e = getenv("SOURCE_DATE_EPOCH");
    if (e && *e) return atoll(e);
    return (long long)time(NULL);
}

/* A prompt starts with its last text (or init) selected: typing replaces
 * it, a move keeps it for editing. */
/* The argument prompt's names, and the note under the prompt that lists
 * them (Tab completes them). */
static void arg_names_load(app *a)
{
    for (size_t i = 0; i < a->narg_names; i++) free(a->arg_names[i]);
    free(a->arg_names);
    a->arg_names = view_arg_names(&a->v, &a->narg_names);
    size_t w = (size_t)snprintf(a->pnote, sizeof a->pnote, a->narg_names ? "arguments here (Tab completes):" :
                                "the calls here have no arguments");
    for (size_t i = 0; i < a->narg_names && w < sizeof a->pnote; i++)
        w += (size_t)snprintf(a->pnote + w, sizeof a->pnote - w, " %s", a->arg_names[i]);
}

/* Tab in the argument prompt: the name as far as the names that start
 * with it agree (after arg. or own.). */
static void arg_complete(app *a)
{
    line_edit *e = &a->edit;
    const char *text = e->buf ? e->buf : "";
    size_t skip = strncmp(text, "arg.", 4) == 0 || strncmp(text, "own.", 4) == 0 ? 4 : 0;
    char *pre = dfn_xstrdup(text + skip);   /* the line grows under it */
    if (edit_extend(e, pre, (const char *const *)a->arg_names, a->narg_names)) a->perr[0] = 0;
    else snprintf(a->perr, sizeof a->perr, "no argument here starts with '%s'", pre);
    free(pre);
}

static void start_prompt(app *a, prompt_kind k, const char *init)
{
    a->mode = MODE_PROMPT;
    a->pk = k;
    a->perr[0] = 0;
    a->pnote[0] = 0;
    if (k == PROMPT_ARG) arg_names_load(a);
    edit_set(&a->edit, init ? init : "");
    a->edit.sel = a->edit.len > 0;
    a->hist[k].pos = a->hist[k].n;
}

static void key_diag(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    size_t n = a->diag ? a->diag->n : 0;
    switch (keymap_action(KM_DIAG, key)) {
    case ACT_BACK: a->mode = MODE_TABLE; break;
    case ACT_QUIT: r->quit = true; break;
    case ACT_UP: if (a->diag_sel > 0) a->diag_sel--; break;
    case ACT_DOWN: if (a->diag_sel + 1 < n) a->diag_sel++; break;
    case ACT_TOP: a->diag_sel = 0; break;
    case ACT_BOTTOM: if (n) a->diag_sel = n - 1; break;
    case ACT_OPEN:
        if (a->diag_sel >= n) break;
        a->mode = MODE_TABLE;
        if (!view_open_finding(&a->v, &a->diag->v[a->diag_sel], err, sizeof err))
            snprintf(a->msg, sizeof a->msg, "%.1000s", err);
        break;
    default: break;
    }
}

static void submit_export(runner *r, const char *typed)
{
    app *a = &r->a;
    char *text = edit_expand_home(typed);
    struct stat st;
    /* a file, or a link (even dangling): asked; anything else fails with its reason */
    if (lstat(text, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
        free(r->pending_path);
        r->pending_path = text;
        a->mode = MODE_CONFIRM;
        return;
    }
    a->mode = MODE_TABLE;
    export_start(r, text, false);
    free(text);
}

static void submit_prompt(runner *r)
{
    app *a = &r->a;
    char err[1024];
    const char *text = a->edit.buf ? a->edit.buf : "";
    switch (a->pk) {
    case PROMPT_FILTER:
        if (!view_set_user_filter(&a->v, text, err, sizeof err)) {
            snprintf(a->perr, sizeof a->perr, "%s", err);
            /* one line: keep the message, drop the quoted expression */
            char *nl = strchr(a->perr, '\n');
            if (nl) *nl = 0;
            return;
        }
        a->msg[0] = 0;
        break;
    case PROMPT_SEARCH:
        free(a->v.search);
        a->v.search = dfn_xstrdup(text);
        a->msg[0] = 0;
        if (!*text) break;
        bool found = view_search(&a->v, 0);
        if (!found && view_search_below(&a->v, a->msg, sizeof a->msg)) break;
        view_search_status(&a->v, found, a->msg, sizeof a->msg);
        break;
    case PROMPT_ARG: {
        if (!*text) break;
        /* "epoch" or "arg.epoch" inherits from enclosing calls; "own.epoch" does not */
        bool own = strncmp(text, "own.", 4) == 0 && text[4];
        const char *name = own || (strncmp(text, "arg.", 4) == 0 && text[4]) ? text + 4 : text;
        dfn_dim d = { .kind = DFN_DIM_ARG, .arg = (char *)name, .own = own };
        if (!view_pivot(&a->v, &d, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    }
    case PROMPT_EXPORT:
        edit_hist_add(&a->hist[a->pk], text);
        if (!*text) { a->mode = MODE_TABLE; return; }
        submit_export(r, text);
        return;
    case PROMPT_N: break;
    }
    edit_hist_add(&a->hist[a->pk], text);
    a->mode = MODE_TABLE;
}

bool ui_export_chrome(const char *path)
{
    size_t n = strlen(path);
    return n >= 5 && strcmp(path + n - 5, ".json") == 0;
}

/* C-t in E's prompt: the name's .csv becomes .json (a Chrome trace) and
 * back; a name with neither gets .json. */
static void export_format_switch(line_edit *e)
{
    bool json = e->buf && ui_export_chrome(e->buf);
    size_t drop = json ? 5 : e->len >= 4 && strcmp(e->buf + e->len - 4, ".csv") == 0 ? 4 : 0;
    if (drop) edit_delete(e, e->len - drop, e->len);
    e->cur = e->len;
    edit_insert(e, json ? ".csv" : ".json", json ? 4 : 5);
}

static void key_prompt(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    line_edit *e = &a->edit;
    key_action act = keymap_action(KM_PROMPT, key);
    bool sel = e->sel;
    e->sel = false;
    switch (act) {
    case ACT_CANCEL: a->mode = MODE_TABLE; a->perr[0] = 0; return;
    case ACT_SUBMIT: submit_prompt(r); return;
    case ACT_LEFT: e->cur = edit_prev(e, e->cur); return;
    case ACT_RIGHT: e->cur = edit_next(e, e->cur); return;
    case ACT_TOP: e->cur = 0; return;
    case ACT_BOTTOM: e->cur = e->len; return;
    case ACT_DEL_BACK:
        if (sel) edit_delete(e, 0, e->len);
        else if (e->cur) edit_delete(e, edit_prev(e, e->cur), e->cur);
        return;
    case ACT_DEL:
        if (sel) edit_delete(e, 0, e->len);
        else if (e->cur < e->len) edit_delete(e, e->cur, edit_next(e, e->cur));
        return;
    case ACT_KILL: edit_delete(e, 0, e->cur); return;
    case ACT_UP: case ACT_DOWN: edit_hist_move(&a->hist[a->pk], e, act == ACT_UP ? -1 : 1); return;
    case ACT_FORMAT:
        if (a->pk == PROMPT_EXPORT && a->export_calls) export_format_switch(e);
        else e->sel = sel;
        return;
    case ACT_COMPLETE:
        if (a->pk == PROMPT_ARG) { arg_complete(a); return; }
        if (a->pk != PROMPT_EXPORT) { e->sel = sel; return; }
        if (edit_complete_path(e, a->perr, sizeof a->perr) == 0) snprintf(a->perr, sizeof a->perr, "no such file or folder");
        return;
    default:
        if (!utf8 || !ulen) { e->sel = sel; return; }
        if (sel) edit_delete(e, 0, e->len);   /* typing replaces the selected text */
        edit_insert(e, utf8, ulen);
    }
}

static void open_detail(app *a)
{
    level *l = view_top(&a->v);
    if (!l->res || !l->res->nrows) return;
    a->detail_event = view_call(l, l->cursor, &a->detail_run);
    const dfn_store *s = view_call_store(l, a->detail_run);
    const dfn_run *run = &a->v.runs[a->detail_run];
    /* made once, not on every redraw: finding its children scans the
     * events the call spans (a remote run's: where its process is) */
    char **place = NULL, err[512] = "";
    size_t n = 0;
    const dfn_remote *rem = run->remote;
    if (rem) place = rem->call_place(rem->ctx, run->remote_run, s, a->detail_event, &n, err, sizeof err);
    else if (run->an && run->an->tree) place = dfn_call_place(run->s, run->an->tree, run->an->access, a->detail_event, &n);
    detail_make(a, s, a->detail_event, place, n, err);
    dfn_call_place_free(place, n);
    a->scroll = 0;
    a->mode = MODE_DETAIL;
}

/* d: the findings already made for the same selection, else new ones. */
static void key_diagnose(runner *r, level *l)
{
    app *a = &r->a;
    if (a->diag && !a->diagnosing && a->diag_where) {
        dfn_filter f;
        view_filter(&a->v, l, &f);
        char *w = dfn_filter_text(&f);
        dfn_filter_free(&f);
        bool same = strcmp(w, a->diag_where) == 0;
        free(w);
        if (same) { a->mode = MODE_DIAG; return; }
    }
    diag_start(r);
}

static void key_export(runner *r, bool calls)
{
    app *a = &r->a;
    if (a->loading) { snprintf(a->msg, sizeof a->msg, "wait for the load to finish before exporting"); return; }
    /* over --connect a file would be written on the server's machine,
     * where the client neither chose nor sees it */
    if (a->opts.served) {
        snprintf(a->msg, sizeof a->msg, "no saving over --connect (it would write on the server): "
                 "dfnav report --connect ... -f csv > FILE saves a table here");
        return;
    }
    if (atomic_load(&r->ex.job.running)) { snprintf(a->msg, sizeof a->msg, "an export is already running"); return; }
    a->export_calls = calls;
    char name[256];
    view_export_name(&a->v, calls, now_seconds(), name, sizeof name);
    start_prompt(a, PROMPT_EXPORT, name);
}

/* The lanes screen: the cursor is a lane and a cell of it. */
/* What keys do alike on the table and on lanes: the cursor by rows and
 * pages, back, filter, search, help, quit, redraw. False for the others. */
static bool key_common(runner *r, level *l, key_action act, long page)
{
    app *a = &r->a;
    switch (act) {
    case ACT_UP: view_move(&a->v, -1); return true;
    case ACT_DOWN: view_move(&a->v, 1); return true;
    case ACT_PGUP: view_move(&a->v, -page); return true;
    case ACT_PGDN: view_move(&a->v, page); return true;
    case ACT_TOP: view_move(&a->v, -(long)l->cursor); return true;
    case ACT_BOTTOM: view_move(&a->v, l->res ? (long)l->res->nrows : 0); return true;
    case ACT_BACK: view_back(&a->v); return true;
    case ACT_FILTER: start_prompt(a, PROMPT_FILTER, l->user); return true;
    case ACT_SEARCH: start_prompt(a, PROMPT_SEARCH, a->v.search); return true;
    case ACT_NEXT: case ACT_PREV:
        if (!a->v.search || !*a->v.search) snprintf(a->msg, sizeof a->msg, "no search yet: / searches");
        else view_search_status(&a->v, view_search(&a->v, act == ACT_NEXT ? 1 : -1), a->msg, sizeof a->msg);
        return true;
    case ACT_HELP: a->mode = MODE_HELP; a->scroll = 0; return true;
    case ACT_QUIT: r->quit = true; return true;
    case ACT_REDRAW: clearok(curscr, TRUE); return true;
    default: return false;
    }
}

static void key_lanes(runner *r, level *l, key_action act)
{
    app *a = &r->a;
    char err[1024];
    long page = a->rows - 7 > 1 ? a->rows - 7 : 1;   /* the lanes on screen (draw_lanes), less one */
    size_t ncells = l->res && l->res->nruns ? l->res->res[0]->spark_bins : 0;
    if (key_common(r, l, act, page)) return;
    switch (act) {
    case ACT_LEFT: if (l->lane_col > 0) l->lane_col--; break;
    case ACT_RIGHT: if (l->lane_col + 1 < ncells) l->lane_col++; break;
    case ACT_LINE_START: l->lane_col = 0; break;
    case ACT_LINE_END: l->lane_col = ncells ? ncells - 1 : 0; break;
    case ACT_OPEN: if (!view_lanes_drill(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err); break;
    case ACT_SHADE: l->shade = (l->shade + 1) % LANE_SHADES; break;
    case ACT_PIVOT: if (!view_lanes_pivot(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err); break;
    case ACT_ZOOM_IN: case ACT_ZOOM_OUT: case ACT_EARLIER: case ACT_LATER: {
        double lo = 0, hi = 0;
        if (act == ACT_ZOOM_IN && l->res && l->res->nrows) view_lane_cell(l, l->lane_col, &lo, &hi);
        if (act == ACT_ZOOM_IN && hi > lo) view_zoom_around(&a->v, true, (lo + hi) / 2);
        else if (act == ACT_ZOOM_IN || act == ACT_ZOOM_OUT) view_zoom(&a->v, act == ACT_ZOOM_IN);
        else view_shift(&a->v, act == ACT_LATER ? 1 : -1);
        if (!view_refresh(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        /* the cursor's cell: the one at the time it was at */
        ncells = l->res && l->res->nruns ? l->res->res[0]->spark_bins : 0;
        if (hi > lo && l->win_hi > l->win_lo && ncells)   /* (the query keeps it on a cell otherwise) */
            l->lane_col = (size_t)fmin((double)(ncells - 1), fmax(0, ((lo + hi) / 2 - l->win_lo) / (l->win_hi - l->win_lo) * (double)ncells));
        break;
    }
    default: break;
    }
}

static void key_table(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    a->msg[0] = 0;
    if (a->have_view && view_top(&a->v)->lanes) {
        key_lanes(r, view_top(&a->v), keymap_action(KM_LANES, key));
        return;
    }
    key_action act = keymap_action(KM_TABLE, key);
    if (!a->have_view) {
        if (act == ACT_QUIT || act == ACT_QUIT_LEVEL) r->quit = true;
        return;
    }
    level *l = view_top(&a->v);
    long page = a->v.table_rows > 1 ? a->v.table_rows - 1 : 1;
    if (key_common(r, l, act, page)) return;
    switch (act) {
    case ACT_OPEN:
        if (view_is_calls(l)) { open_detail(a); break; }
        if (!view_drill(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case ACT_QUIT_LEVEL:
        if (view_back(&a->v)) break;
        if (a->exporting) { snprintf(a->msg, sizeof a->msg, "an export is running: q again waits for it and quits, Q quits at once"); a->exporting = false; break; }
        r->quit = true;
        break;
    case ACT_PIVOT:
        /* call paths are a tree of their own: another grouping is another level */
        if (l->flame) { snprintf(a->msg, sizeof a->msg, "call paths stay call paths: Enter lists a path's calls, F goes back"); break; }
        a->mode = MODE_PIVOT;
        a->menu_sel = 0;
        break;
    case ACT_COLUMNS: a->mode = MODE_COLUMNS; a->menu_sel = 0; break;
    case ACT_DAMAGE: a->mode = MODE_DAMAGE; a->scroll = 0; break;
    case ACT_TRACKS:
        /* the tracks take lines from the table and columns from the
         * timeline: a new size queries the level again */
        if (view_tracks_next(&a->v, a->msg, sizeof a->msg) && !app_set_size(r, a->rows, a->cols))
            view_tracks_refresh(&a->v, l);
        break;
    case ACT_DIAG: key_diagnose(r, l); break;
    case ACT_SORT_PREV: case ACT_SORT_NEXT: case ACT_REVERSE:
        if (l->flame) { snprintf(a->msg, sizeof a->msg, "call paths keep the tree's order: callers above, larger first"); break; }
        if (act == ACT_REVERSE) view_sort_reverse(&a->v);
        else view_sort_move(&a->v, act == ACT_SORT_NEXT ? 1 : -1);
        break;
    case ACT_ZOOM_IN: case ACT_ZOOM_OUT: case ACT_EARLIER: case ACT_LATER:
        if (act == ACT_ZOOM_IN || act == ACT_ZOOM_OUT) view_zoom(&a->v, act == ACT_ZOOM_IN);
        else view_shift(&a->v, act == ACT_LATER ? 1 : -1);
        if (!view_refresh(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case ACT_EXPORT: case ACT_EXPORT_CALLS: key_export(r, act == ACT_EXPORT_CALLS); break;
    case ACT_LANES: if (!view_lanes_open(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err); break;
    case ACT_FLAME: if (!view_flame_open(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err); break;
    default: break;
    }
}

static void key_menu(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    bool cols = a->mode == MODE_COLUMNS;
    int n = cols ? COL_N - 1 : (int)view_npivots;
    key_action act = keymap_action(KM_MENU, key);
    if (act == ACT_BACK || (cols && act == ACT_OPEN)) {
        a->mode = MODE_TABLE;
        if (cols) view_refresh(&a->v, err, sizeof err);
        return;
    }
    if (act == ACT_UP) { a->menu_sel = (a->menu_sel + n - 1) % n; return; }
    if (act == ACT_DOWN) { a->menu_sel = (a->menu_sel + 1) % n; return; }
    if (cols) {
        if (act == ACT_TOGGLE) a->v.col_on[a->menu_sel + 1] = !a->v.col_on[a->menu_sel + 1];
        return;
    }
    int pick = act == ACT_OPEN ? a->menu_sel : -1;
    for (size_t i = 0; i < view_npivots && pick < 0; i++) if (view_pivots[i].key == key) pick = (int)i;
    if (pick < 0) return;
    a->mode = MODE_TABLE;
    if (view_pivots[pick].kind == DFN_DIM_ARG) {
        start_prompt(a, PROMPT_ARG, a->hist[PROMPT_ARG].n ? a->hist[PROMPT_ARG].v[a->hist[PROMPT_ARG].n - 1] : "epoch");
        return;
    }
    dfn_dim d = { .kind = view_pivots[pick].kind };
    if (!view_pivot(&a->v, &d, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
}

static void key_screen(runner *r, int key)
{
    app *a = &r->a;
    size_t page = (size_t)(a->rows > 4 ? a->rows - 4 : 1);
    switch (keymap_action(KM_SCREEN, key)) {
    case ACT_BACK: a->mode = MODE_TABLE; break;
    case ACT_QUIT: r->quit = true; break;
    case ACT_UP: if (a->scroll) a->scroll--; break;
    case ACT_DOWN: a->scroll++; break;   /* the drawing stops it at the end */
    case ACT_PGDN: a->scroll += page; break;
    case ACT_PGUP: a->scroll = a->scroll > page ? a->scroll - page : 0; break;
    case ACT_TOP: a->scroll = 0; break;
    case ACT_BOTTOM: a->scroll = SIZE_MAX / 2; break;
    default: break;
    }
}

/* One key: the whole dispatch, shared by the terminal and the replay. */
void keys_handle(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    if (key == KEY_RESIZE) return;
    /* the screen says it is too small: keys would act on what no one sees */
    if (a->rows < 24 || a->cols < 80) {
        if (key == 'Q' || key == 3) r->quit = true;
        return;
    }
    a->msg_middle = false;
    if (a->mode == MODE_MEMORY) {
        /* the set may not fit: y loads it anyway, anything that quits quits */
        if (key == 'y' || key == 'Y') { a->mode = MODE_TABLE; load_start(r); }
        else if (key == 'n' || key == 'N' || key == 'q' || key == 'Q' || key == 27 || key == 3) { r->status = 4; r->quit = true; }
        return;
    }
    if (a->loading && !a->have_view && (key == 'q' || key == 'Q' || key == 3)) { r->quit = true; return; }
    if (a->loading && ((key == 'Q' && a->mode != MODE_PROMPT) || key == 3 || (key == 'q' && a->mode == MODE_TABLE && a->v.nlv <= 1))) {
        r->quit = true;   /* cancels the load */
        return;
    }
    switch (a->mode) {
    case MODE_PROMPT: key_prompt(r, key, utf8, ulen); break;
    case MODE_CONFIRM:
        if (key == 'y' || key == 'Y') { a->mode = MODE_TABLE; export_start(r, r->pending_path, true); }
        else if (key == 'n' || key == 'N' || key == 27) { a->mode = MODE_TABLE; snprintf(a->msg, sizeof a->msg, "not saved"); }
        break;
    case MODE_PIVOT: case MODE_COLUMNS: key_menu(r, key); break;
    case MODE_HELP: case MODE_DETAIL: case MODE_DAMAGE: key_screen(r, key); break;
    case MODE_DIAG: key_diag(r, key); break;
    default: key_table(r, key); break;
    }
    if (a->mode == MODE_TABLE) load_compute_note(r);
    if (r->quit && key == 'Q') r->abandon_export = true;   /* "quit at once" */
}

