/* The key map: every key of every screen, what it does, and how the help
 * screen and the key bar describe it (keymap.c). */
#ifndef DFNAV_UI_KEYMAP_H
#define DFNAV_UI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

/* What keys do. One table maps keys to them per screen, and the help
 * screen and the key bar are written from the same table. */
typedef enum {
    ACT_NONE, ACT_UP, ACT_DOWN, ACT_PGUP, ACT_PGDN, ACT_TOP, ACT_BOTTOM, ACT_OPEN, ACT_BACK, ACT_QUIT_LEVEL, ACT_QUIT,
    ACT_PIVOT, ACT_COLUMNS, ACT_SORT_PREV, ACT_SORT_NEXT, ACT_REVERSE, ACT_ZOOM_IN, ACT_ZOOM_OUT, ACT_EARLIER,
    ACT_LATER, ACT_TRACKS, ACT_FILTER, ACT_SEARCH, ACT_NEXT, ACT_PREV, ACT_EXPORT, ACT_EXPORT_CALLS, ACT_DIAG,
    ACT_DAMAGE, ACT_HELP, ACT_REDRAW, ACT_TOGGLE, ACT_SUBMIT, ACT_CANCEL, ACT_LEFT, ACT_RIGHT, ACT_DEL_BACK, ACT_DEL,
    ACT_KILL, ACT_COMPLETE, ACT_LANES, ACT_SHADE, ACT_LINE_START, ACT_LINE_END, ACT_FLAME,
    ACT_FORMAT
} key_action;

/* The screens a binding works on. */
enum { KM_TABLE = 1, KM_SCREEN = 2, KM_DIAG = 4, KM_MENU = 8, KM_PROMPT = 16, KM_LANES = 32 };

#define KEYMAP_KEYS 10
typedef struct {
    unsigned modes;           /* KM_ bits */
    key_action act;
    int keys[KEYMAP_KEYS];    /* characters or curses KEY_ codes; 0 ends */
    const char *names;        /* the keys as the help writes them */
    const char *bar;          /* its item in the key bar, or NULL */
    int bar_rank;             /* the bar's order; 97 and up: always shown, last */
    const char *help;         /* what it does */
    const char *section;      /* starts a section of the help screen */
} keymap_entry;

extern const keymap_entry keymap[];
extern const size_t keymap_n;
/* The action of key on the screens of mode (one KM_ bit); ACT_NONE. */
key_action keymap_action(unsigned mode, int key);
/* The key bar of mode for a screen width columns wide: whole items only,
 * in the same order at every width. Returns its length. */
size_t keymap_bar(unsigned mode, int width, char *out, size_t cap);
/* The help screen's key lines, wrapped at width; returns how many
 * (malloc'd lines, each malloc'd). */
size_t keymap_help(int width, char ***lines);

#endif
