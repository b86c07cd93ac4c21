/* Key handling for every screen: the table, menus, scrolled screens, the
 * diagnostics list and prompts, dispatched from one place for the terminal
 * and the replay alike. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "app.h"
#include "dfnav/util.h"

#include <curses.h>
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

static void start_prompt(app *a, prompt_kind k, const char *init)
{
    a->mode = MODE_PROMPT;
    a->pk = k;
    a->perr[0] = 0;
    edit_set(&a->edit, init ? init : "");
    a->fhist_pos = a->nfhist;
}

static void key_diag(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    size_t n = a->diag ? a->diag->n : 0;
    if (key == 27 || key == 'q' || key == 'd' || key == KEY_BACKSPACE || key == 127 || key == 8 || key == KEY_LEFT || key == 'h') {
        a->mode = MODE_TABLE;
        return;
    }
    if (key == 'Q') { r->quit = true; return; }
    if ((key == KEY_UP || key == 'k') && a->diag_sel > 0) a->diag_sel--;
    if ((key == KEY_DOWN || key == 'j') && a->diag_sel + 1 < n) a->diag_sel++;
    if (key == KEY_HOME || key == 'g') a->diag_sel = 0;
    if ((key == KEY_END || key == 'G') && n) a->diag_sel = n - 1;
    if ((key == '\n' || key == '\r' || key == KEY_ENTER || key == KEY_RIGHT || key == 'l') && a->diag_sel < n) {
        a->mode = MODE_TABLE;
        if (!view_open_finding(&a->v, &a->diag->v[a->diag_sel], err, sizeof err))
            snprintf(a->msg, sizeof a->msg, "%.1000s", err);
    }
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
        if (*text && (a->nfhist == 0 || strcmp(a->fhist[a->nfhist - 1], text) != 0)) {
            a->fhist = dfn_xreallocarray(a->fhist, a->nfhist + 1, sizeof *a->fhist);
            a->fhist[a->nfhist++] = dfn_xstrdup(text);
        }
        a->msg[0] = 0;
        break;
    case PROMPT_SEARCH:
        free(a->v.search);
        a->v.search = dfn_xstrdup(text);
        if (*text && !view_search(&a->v, 1)) snprintf(a->msg, sizeof a->msg, "not found: %s", text);
        else a->msg[0] = 0;
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
        if (!*text) { a->mode = MODE_TABLE; return; }
        struct stat st;
        /* a file, or a link (even dangling): asked; anything else fails with its reason */
        if (lstat(text, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
            free(r->pending_path);
            r->pending_path = dfn_xstrdup(text);
            a->mode = MODE_CONFIRM;
            return;
        }
        a->mode = MODE_TABLE;
        export_start(r, text, false);
        return;
    }
    a->mode = MODE_TABLE;
}

static void key_prompt(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    line_edit *e = &a->edit;
    switch (key) {
    case 27: a->mode = MODE_TABLE; a->perr[0] = 0; return;
    case '\n': case '\r': case KEY_ENTER: submit_prompt(r); return;
    case KEY_LEFT: e->cur = edit_prev(e, e->cur); return;
    case KEY_RIGHT: e->cur = edit_next(e, e->cur); return;
    case KEY_HOME: case 1: e->cur = 0; return;
    case KEY_END: case 5: e->cur = e->len; return;
    case KEY_BACKSPACE: case 127: case 8:
        if (e->cur) edit_delete(e, edit_prev(e, e->cur), e->cur);
        return;
    case KEY_DC: if (e->cur < e->len) edit_delete(e, e->cur, edit_next(e, e->cur)); return;
    case 21: edit_delete(e, 0, e->cur); return;   /* Ctrl-U */
    case KEY_UP: case KEY_DOWN:
        if (a->pk != PROMPT_FILTER || !a->nfhist) return;
        if (key == KEY_UP && a->fhist_pos > 0) a->fhist_pos--;
        else if (key == KEY_DOWN && a->fhist_pos < a->nfhist) a->fhist_pos++;
        edit_set(e, a->fhist_pos < a->nfhist ? a->fhist[a->fhist_pos] : "");
        return;
    default:
        if (utf8 && ulen) edit_insert(e, utf8, ulen);
    }
}

static void open_detail(app *a)
{
    level *l = view_top(&a->v);
    if (!l->res || !l->res->nrows) return;
    a->detail_event = view_call(l, l->cursor, &a->detail_run);
    const dfn_run *run = &a->v.runs[a->detail_run];
    /* the children once, not on every redraw: finding them scans the
     * events the call spans */
    free(a->detail_kids);
    a->detail_kids = NULL;
    a->ndetail_kids = 0;
    if (run->an && run->an->tree) {
        /* one scan fills the first DETAIL_KIDS and counts them all */
        a->detail_kids = dfn_xmalloc(DETAIL_KIDS * sizeof *a->detail_kids);
        a->ndetail_kids = dfn_calltree_children(run->an->tree, run->s, a->detail_event, a->detail_kids, DETAIL_KIDS);
    }
    a->scroll = 0;
    a->mode = MODE_DETAIL;
}

static void key_table(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    a->msg[0] = 0;
    if (!a->have_view) {
        if (key == 'q' || key == 'Q') r->quit = true;
        return;
    }
    level *l = view_top(&a->v);
    long page = a->v.table_rows > 1 ? a->v.table_rows - 1 : 1;
    switch (key) {
    case KEY_UP: case 'k': view_move(&a->v, -1); break;
    case KEY_DOWN: case 'j': view_move(&a->v, 1); break;
    case KEY_PPAGE: view_move(&a->v, -page); break;
    case KEY_NPAGE: case ' ': view_move(&a->v, page); break;
    case KEY_HOME: case 'g': view_move(&a->v, -(long)l->cursor); break;
    case KEY_END: case 'G': view_move(&a->v, l->res ? (long)l->res->nrows : 0); break;
    case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: case 'l':
        if (view_is_calls(l)) { open_detail(a); break; }
        if (!view_drill(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case KEY_BACKSPACE: case 127: case 8: case KEY_LEFT: case 'h':
        view_back(&a->v);
        break;
    case 'q':
        if (view_back(&a->v)) break;
        if (a->exporting) { snprintf(a->msg, sizeof a->msg, "an export is running: q again waits for it and quits, Q quits at once"); a->exporting = false; break; }
        r->quit = true;
        break;
    case 'Q': r->quit = true; break;
    case 'p': a->mode = MODE_PIVOT; a->menu_sel = 0; break;
    case 'c': a->mode = MODE_COLUMNS; a->menu_sel = 0; break;
    case '?': a->mode = MODE_HELP; a->scroll = 0; break;
    case '!': a->mode = MODE_DAMAGE; a->scroll = 0; break;
    case 'C':
        /* the tracks take lines from the table and columns from the
         * timeline: a new size queries the level again */
        if (view_tracks_next(&a->v, a->msg, sizeof a->msg) && !app_set_size(r, a->rows, a->cols))
            view_tracks_refresh(&a->v, l);
        break;
    case 'd':
        if (a->diag && !a->diagnosing && a->diag_where) {
            /* the same selection shows the findings it already has */
            dfn_filter f;
            view_filter(&a->v, l, &f);
            char *w = dfn_filter_text(&f);
            dfn_filter_free(&f);
            bool same = strcmp(w, a->diag_where) == 0;
            free(w);
            if (same) { a->mode = MODE_DIAG; break; }
        }
        diag_start(r);
        break;
    case '<': view_sort_move(&a->v, -1); break;
    case '>': view_sort_move(&a->v, 1); break;
    case 'r': view_sort_reverse(&a->v); break;
    case 'z': case 'Z': case '[': case ']':
        if (key == 'z' || key == 'Z') view_zoom(&a->v, key == 'z');
        else view_shift(&a->v, key == ']' ? 1 : -1);
        if (!view_refresh(&a->v, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
        break;
    case 'f': start_prompt(a, PROMPT_FILTER, l->user); break;
    case '/': start_prompt(a, PROMPT_SEARCH, a->v.search); break;
    case 'n': case 'N':
        if (!view_search(&a->v, key == 'n' ? 1 : -1))
            snprintf(a->msg, sizeof a->msg, a->v.search ? "not found: %s" : "no search yet: / searches", a->v.search ? a->v.search : "");
        break;
    case 'e': case 'E': {
        if (a->loading) { snprintf(a->msg, sizeof a->msg, "wait for the load to finish before exporting"); break; }
        if (atomic_load(&r->ex.job.running)) { snprintf(a->msg, sizeof a->msg, "an export is already running"); break; }
        a->export_calls = key == 'E';
        char name[256];
        view_export_name(&a->v, a->export_calls, now_seconds(), name, sizeof name);
        start_prompt(a, PROMPT_EXPORT, name);
        break;
    }
    case 12: clearok(curscr, TRUE); break;   /* Ctrl-L */
    default: break;
    }
}

static void key_menu(runner *r, int key)
{
    app *a = &r->a;
    char err[1024];
    int n = a->mode == MODE_PIVOT ? (int)view_npivots : COL_N - 1;
    if (key == 27 || key == 'q' || (a->mode == MODE_COLUMNS && (key == '\n' || key == '\r' || key == KEY_ENTER))) {
        bool cols = a->mode == MODE_COLUMNS;
        a->mode = MODE_TABLE;
        if (cols) view_refresh(&a->v, err, sizeof err);
        return;
    }
    if (key == KEY_UP || key == 'k') { a->menu_sel = (a->menu_sel + n - 1) % n; return; }
    if (key == KEY_DOWN || key == 'j') { a->menu_sel = (a->menu_sel + 1) % n; return; }
    if (a->mode == MODE_COLUMNS) {
        if (key == ' ') a->v.col_on[a->menu_sel + 1] = !a->v.col_on[a->menu_sel + 1];
        return;
    }
    int pick = -1;
    if (key == '\n' || key == '\r' || key == KEY_ENTER) pick = a->menu_sel;
    for (size_t i = 0; i < view_npivots && pick < 0; i++) if (view_pivots[i].key == key) pick = (int)i;
    if (pick < 0) return;
    a->mode = MODE_TABLE;
    if (view_pivots[pick].kind == DFN_DIM_ARG) { start_prompt(a, PROMPT_ARG, "epoch"); return; }
    dfn_dim d = { .kind = view_pivots[pick].kind };
    if (!view_pivot(&a->v, &d, err, sizeof err)) snprintf(a->msg, sizeof a->msg, "%s", err);
}

static void key_screen(runner *r, int key)
{
    app *a = &r->a;
    if (key == 27 || key == 'q' || key == KEY_BACKSPACE || key == 127 || key == 8 || key == KEY_LEFT || key == 'h' ||
        (a->mode == MODE_HELP && key == '?') || (a->mode == MODE_DAMAGE && key == '!')) {
        a->mode = MODE_TABLE;
        return;
    }
    if (key == 'Q') { r->quit = true; return; }
    if ((key == KEY_UP || key == 'k') && a->scroll) a->scroll--;
    if (key == KEY_DOWN || key == 'j') a->scroll++;
    if (key == KEY_NPAGE || key == ' ') a->scroll += (size_t)(a->rows > 4 ? a->rows - 4 : 1);
    if (key == KEY_PPAGE) a->scroll = a->scroll > (size_t)a->rows ? a->scroll - (size_t)a->rows : 0;
}

/* One key: the whole dispatch, shared by the terminal and the replay. */
void keys_handle(runner *r, int key, const char *utf8, size_t ulen)
{
    app *a = &r->a;
    if (key == KEY_RESIZE) return;
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

