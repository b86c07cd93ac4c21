/* The interactive explorer: the view model (view.h, no curses), the key
 * map (keymap.h), drawing (draw.c) and the program around them (app.h):
 * the main loop (app.c), keys (keys.c), line editing (edit.c), background
 * loading (loading.c) and worker jobs (jobs.c), and the headless replay
 * that tests and measures it (replay.c). Only the UI thread touches
 * curses. */
#ifndef DFNAV_UI_H
#define DFNAV_UI_H

#include "view.h"
#include "keymap.h"
#include "dfnav/remote.h"

int ui_run(const ui_opts *o, char **paths, size_t npaths);
/* The explorer on a set other processes hold (dfnav serve --spread's
 * ranks): ol's runs (their stores taken over), queried through rem. */
int ui_run_remote(const ui_opts *o, dfn_outline *ol, const dfn_remote *rem);
/* Whether this machine's terminfo has the terminal TERM names. */
bool ui_term_known(const char *term);

/* ---- the program around the view ---- */

typedef enum {
    MODE_TABLE, MODE_HELP, MODE_PIVOT, MODE_COLUMNS, MODE_DETAIL, MODE_DAMAGE, MODE_PROMPT,
    MODE_CONFIRM, MODE_DIAG, MODE_MEMORY
} app_mode;

typedef enum { PROMPT_FILTER, PROMPT_SEARCH, PROMPT_EXPORT, PROMPT_ARG, PROMPT_N } prompt_kind;
/* E saves calls as a Chrome trace (for Perfetto) when the name ends in
 * .json, else as CSV. */
bool ui_export_chrome(const char *path);

typedef struct {
    char *buf;
    size_t len, cap, cur;     /* bytes; the cursor is a byte offset */
    bool sel;                 /* the whole text is selected: typing replaces it */
} line_edit;

typedef struct {
    char **v; size_t n;       /* oldest first */
    size_t pos;               /* where Up and Down are; n: past the newest */
} edit_hist;

struct app {
    ui_opts opts;
    view v;
    bool have_view;
    bool utf8, color;
    int rows, cols;
    app_mode mode;
    int menu_sel;
    prompt_kind pk;
    line_edit edit;
    char perr[1024];          /* the prompt's error, shown above it */
    char msg[1024];           /* the status line's message */
    bool msg_middle;          /* cut it in the middle: a failed save's reason follows a path of any length */
    char progress[256];       /* loading: percent, events, rate, ETA */
    char *mem_warning;        /* MODE_MEMORY: why the set may not fit, before it loads */
    char *mem_advice;         /* ... and where it would (dfn_runs_advice's lines) */
    bool loading;
    /* every run's final store is on screen: only its analyses (call tree,
     * access patterns) may still come, which jobs that read the stores
     * need not wait for */
    bool settled;
    uint64_t malformed;       /* damage: malformed lines in all */
    uint64_t set_aside;       /* records of kinds not used, over every file */
    dfn_phcount set_aside_ph[DFN_PH_KINDS];   /* ... by their ph */
    size_t bad_files;         /* files with an error or malformed lines */
    const dfn_store **damage_store;   /* each run's final store */
    size_t nruns;
    char **input_errors;      /* paths that gave no file ("PATH: reason") */
    size_t ninput_errors;
    uint32_t detail_event;
    size_t detail_run;
    char **detail_lines;      /* what the detail says of it, made when it opened */
    size_t ndetail_lines;
    size_t scroll;            /* of the help, detail and damage screens */
    bool export_calls;        /* the export prompt is for E */
    bool exporting;
    edit_hist hist[PROMPT_N];   /* each prompt's */
    char **arg_names;         /* the argument prompt: the names the selection's calls have */
    size_t narg_names;
    char pnote[1024];         /* under a prompt when it has no error: what it can take */
    dfn_findings *diag;       /* the diagnostics screen's findings */
    char *diag_where;         /* the selection they were made for */
    bool diagnosing;          /* running on the worker thread */
    size_t diag_sel;
};

typedef struct app app;


/* Colour pairs; nothing depends on colour alone (selection is reverse
 * video, the sort column bold, warnings bold). */
enum { PAIR_TITLE = 1, PAIR_SPARK, PAIR_WARN, PAIR_HINT, PAIR_SEL_SPARK };

/* Drawing: the whole screen from the app's state (draw.c). */
void draw_screen(app *a);
/* Text for the screen: control bytes escaped (non-ASCII too in ASCII
 * mode), as wide characters, cut to width with an ellipsis in the middle
 * (paths keep their file name). Returns the display width used. */
int draw_text(int y, int x, int width, const char *s, size_t len, bool right, bool middle, bool ascii);

#endif
