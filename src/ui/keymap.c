/* The key map: every key of every screen, what it does, how the help
 * screen describes it and what the key bar says. The dispatch (keys.c),
 * the help screen and the key bar all read this one table, so what a key
 * does and what the screen says it does cannot drift apart. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "keymap.h"
#include "dfnav/util.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENTER '\n', '\r', KEY_ENTER
#define BKSP KEY_BACKSPACE, 127, 8

/* In table order: the help screen lists them so, under their sections.
 * bar: the key bar's order (1 first; 0 not in the bar). */
const keymap_entry keymap[] = {
    { KM_TABLE, ACT_UP, { KEY_UP, 'k' }, "Up k", NULL, 0, "move the cursor up", "Moving" },
    { KM_TABLE, ACT_DOWN, { KEY_DOWN, 'j' }, "Down j", NULL, 0, "move the cursor down", NULL },
    { KM_TABLE, ACT_PGUP, { KEY_PPAGE, 2 }, "PgUp C-b", NULL, 0, "a page up", NULL },
    { KM_TABLE, ACT_PGDN, { KEY_NPAGE, ' ', 6 }, "PgDn Space C-f", NULL, 0, "a page down", NULL },
    { KM_TABLE, ACT_TOP, { KEY_HOME, 'g', KEY_FIND }, "Home g", NULL, 0, "the first row", NULL },
    { KM_TABLE, ACT_BOTTOM, { KEY_END, 'G', KEY_SELECT }, "End G", NULL, 0, "the last row", NULL },
    { KM_TABLE, ACT_OPEN, { ENTER, KEY_RIGHT, 'l' }, "Enter Right l", "Enter drill", 1,
      "drill into the row: the next level (time > process > layer > file > calls); on a call, all its fields", NULL },
    { KM_TABLE, ACT_BACK, { BKSP, KEY_LEFT, 'h', 27 }, "Bksp Left h Esc", "Bksp back", 2,
      "back one level, with its cursor, sort and scroll", NULL },
    { KM_TABLE, ACT_PIVOT, { 'p' }, "p", "p pivot", 3,
      "group this level by another dimension (time, host, process, thread, layer, file, argument, ...)",
      "Grouping and sorting" },
    { KM_TABLE, ACT_SORT_PREV, { '<' }, "<", "</> sort", 6, "sort by the column to the left", NULL },
    { KM_TABLE, ACT_SORT_NEXT, { '>' }, ">", NULL, 0, "sort by the column to the right", NULL },
    { KM_TABLE, ACT_REVERSE, { 'r' }, "r", "r reverse", 10, "reverse the sort", NULL },
    { KM_TABLE, ACT_COLUMNS, { 'c' }, "c", "c columns", 12, "choose columns", NULL },
    { KM_TABLE, ACT_ZOOM_IN, { 'z' }, "z", "z/Z zoom", 8, "zoom in, around the cursor's time range", "Time" },
    { KM_TABLE, ACT_ZOOM_OUT, { 'Z' }, "Z", NULL, 0, "zoom out", NULL },
    { KM_TABLE, ACT_EARLIER, { '[' }, "[", "[ ] move", 9, "move the window earlier", NULL },
    { KM_TABLE, ACT_LATER, { ']' }, "]", NULL, 0, "move the window later", NULL },
    { KM_TABLE, ACT_LANES, { 'L' }, "L", "L lanes", 7,
      "lanes: a row per process (thread, host, rank), time across, each cell shaded by the process's I/O busy "
      "share in it; Enter on a cell opens that process and time range", NULL },
    { KM_TABLE, ACT_FLAME, { 'F' }, "F", "F flame", 9,
      "call paths: the selection's calls as a tree of the calls that enclose them, each path with its total "
      "and self time and a bar of its share; Enter lists a path's calls; F again goes back", NULL },
    { KM_TABLE, ACT_TRACKS, { 'C' }, "C", "C counters", 13,
      "counter tracks (CPU, memory, GPU samples) under the timeline: mean per cell, scale at the right; "
      "C again: the next page of series, then none", NULL },
    { KM_TABLE, ACT_FILTER, { 'f' }, "f", "f filter", 4,
      "filter this level with an expression, e.g. cat=POSIX dur>1ms file~lustre (an empty filter clears it; "
      "man dfnav, FILTERS)", "Filtering and finding" },
    { KM_TABLE, ACT_SEARCH, { '/' }, "/", "/ search", 5, "find a row whose name holds the text", NULL },
    { KM_TABLE, ACT_NEXT, { 'n' }, "n", NULL, 0, "the next match", NULL },
    { KM_TABLE, ACT_PREV, { 'N' }, "N", NULL, 0, "the previous match", NULL },
    { KM_TABLE, ACT_EXPORT, { 'e' }, "e", "e/E export", 8,
      "save this table as CSV: all rows, the report's columns and those on screen", "Export" },
    { KM_TABLE, ACT_EXPORT_CALLS, { 'E' }, "E", NULL, 0,
      "save the calls of the selected row (or of this level) as CSV, one line per call, or (a name ending in "
      ".json; C-t in the prompt switches) as a Chrome trace that Perfetto UI opens: a track per process and "
      "thread, counters as counter tracks", NULL },
    { KM_TABLE, ACT_DIAG, { 'd' }, "d", "d diagnose", 11,
      "diagnostics of this level's selection, its layers and processes; Enter on a finding opens the level "
      "that shows its evidence; on the time and file levels '!' marks the rows the rules find something in",
      "Screens" },
    { KM_TABLE, ACT_DAMAGE, { '!' }, "!", NULL, 0, "damaged files and lines, and records set aside", NULL },
    { KM_TABLE, ACT_HELP, { '?', KEY_F(1) }, "? F1", "? help", 98, "this help", NULL },
    { KM_TABLE, ACT_REDRAW, { 12 }, "C-l", NULL, 0, "draw the screen again", NULL },
    { KM_TABLE, ACT_QUIT_LEVEL, { 'q' }, "q", "q quit", 99,
      "back one level; quits at the top (asks while an export runs)", NULL },
    { KM_TABLE | KM_SCREEN | KM_DIAG, ACT_QUIT, { 'Q' }, "Q", NULL, 0, "quit at once", NULL },

    /* lanes */
    { KM_LANES, ACT_UP, { KEY_UP, 'k' }, "Up k", NULL, 0, "the lane above", "Lanes (L)" },
    { KM_LANES, ACT_DOWN, { KEY_DOWN, 'j' }, "Down j", NULL, 0, "the lane below", NULL },
    { KM_LANES, ACT_PGUP, { KEY_PPAGE, 2 }, "PgUp C-b", NULL, 0, "a page of lanes up", NULL },
    { KM_LANES, ACT_PGDN, { KEY_NPAGE, ' ', 6 }, "PgDn Space C-f", NULL, 0, "a page of lanes down", NULL },
    { KM_LANES, ACT_TOP, { KEY_HOME, 'g', KEY_FIND }, "Home g", NULL, 0, "the first lane", NULL },
    { KM_LANES, ACT_BOTTOM, { KEY_END, 'G', KEY_SELECT }, "End G", NULL, 0, "the last lane", NULL },
    { KM_LANES, ACT_LEFT, { KEY_LEFT, 'h' }, "Left h", "Left/Right time", 2, "the cell before", NULL },
    { KM_LANES, ACT_RIGHT, { KEY_RIGHT, 'l' }, "Right l", NULL, 0, "the cell after", NULL },
    { KM_LANES, ACT_LINE_START, { '0', '^' }, "0 ^", NULL, 0, "the first cell", NULL },
    { KM_LANES, ACT_LINE_END, { '$' }, "$", NULL, 0, "the last cell", NULL },
    { KM_LANES, ACT_OPEN, { ENTER }, "Enter", "Enter open", 1, "open the cell: that lane's calls in that time range, by layer", NULL },
    { KM_LANES, ACT_SHADE, { 'm' }, "m", "m shade", 3, "shade by I/O busy, compute or call time in turn", NULL },
    { KM_LANES, ACT_PIVOT, { 'p' }, "p", "p pivot", 4, "lanes of processes, threads, hosts or ranks in turn", NULL },
    { KM_LANES, ACT_ZOOM_IN, { 'z' }, "z", "z/Z zoom", 5, "zoom in around the cursor's cell", NULL },
    { KM_LANES, ACT_ZOOM_OUT, { 'Z' }, "Z", NULL, 0, "zoom out", NULL },
    { KM_LANES, ACT_EARLIER, { '[' }, "[", "[ ] move", 6, "move the window earlier", NULL },
    { KM_LANES, ACT_LATER, { ']' }, "]", NULL, 0, "move the window later", NULL },
    { KM_LANES, ACT_FILTER, { 'f' }, "f", "f filter", 7, "filter the lanes' calls", NULL },
    { KM_LANES, ACT_SEARCH, { '/' }, "/", NULL, 0, "find a lane by its name", NULL },
    { KM_LANES, ACT_NEXT, { 'n' }, "n", NULL, 0, "the next match", NULL },
    { KM_LANES, ACT_PREV, { 'N' }, "N", NULL, 0, "the previous match", NULL },
    { KM_LANES, ACT_BACK, { BKSP, 27, 'L', 'q' }, "Bksp Esc L q", "Esc back", 97, "back to the table", NULL },
    { KM_LANES, ACT_HELP, { '?', KEY_F(1) }, "? F1", "? help", 98, "this help", NULL },
    { KM_LANES, ACT_QUIT, { 'Q' }, "Q", NULL, 0, "quit at once", NULL },
    { KM_LANES, ACT_REDRAW, { 12 }, "C-l", NULL, 0, "draw the screen again", NULL },

    /* help, call detail, damage */
    { KM_SCREEN, ACT_UP, { KEY_UP, 'k' }, "Up k", "Up/Down scroll", 2, "scroll up", "Help, call detail and damage screens" },
    { KM_SCREEN, ACT_DOWN, { KEY_DOWN, 'j' }, "Down j", NULL, 0, "scroll down", NULL },
    { KM_SCREEN, ACT_PGUP, { KEY_PPAGE, 2 }, "PgUp C-b", "PgUp/PgDn page", 3, "a page up", NULL },
    { KM_SCREEN, ACT_PGDN, { KEY_NPAGE, ' ', 6 }, "PgDn Space C-f", NULL, 0, "a page down", NULL },
    { KM_SCREEN, ACT_TOP, { KEY_HOME, 'g', KEY_FIND }, "Home g", "g/G top/end", 4, "the top", NULL },
    { KM_SCREEN, ACT_BOTTOM, { KEY_END, 'G', KEY_SELECT }, "End G", NULL, 0, "the end", NULL },
    { KM_SCREEN, ACT_BACK, { 27, 'q', BKSP, KEY_LEFT, 'h', '?', '!' }, "Esc q Bksp", "Esc/q back", 1,
      "back to the table", NULL },

    /* diagnostics */
    { KM_DIAG, ACT_UP, { KEY_UP, 'k' }, "Up k", "Up/Down choose", 1, "the finding above", "Diagnostics screen" },
    { KM_DIAG, ACT_DOWN, { KEY_DOWN, 'j' }, "Down j", NULL, 0, "the finding below", NULL },
    { KM_DIAG, ACT_TOP, { KEY_HOME, 'g', KEY_FIND }, "Home g", NULL, 0, "the first finding", NULL },
    { KM_DIAG, ACT_BOTTOM, { KEY_END, 'G', KEY_SELECT }, "End G", NULL, 0, "the last finding", NULL },
    { KM_DIAG, ACT_OPEN, { ENTER, KEY_RIGHT, 'l' }, "Enter", "Enter evidence", 2,
      "open the level that shows the finding's evidence", NULL },
    { KM_DIAG, ACT_BACK, { 27, 'q', 'd', BKSP, KEY_LEFT, 'h' }, "Esc q d", "Esc/q/d back", 3, "back to the table", NULL },

    /* pivot and column menus */
    { KM_MENU, ACT_UP, { KEY_UP, 'k' }, "Up k", "Up/Down choose", 1, "the item above", "Menus (p, c)" },
    { KM_MENU, ACT_DOWN, { KEY_DOWN, 'j' }, "Down j", NULL, 0, "the item below", NULL },
    { KM_MENU, ACT_OPEN, { ENTER }, "Enter", "Enter picks", 2, "pivot: group by the item; columns: close", NULL },
    { KM_MENU, ACT_TOGGLE, { ' ' }, "Space", "Space toggles", 3, "columns: show or hide the column", NULL },
    { KM_MENU, ACT_BACK, { 27, 'q' }, "Esc q", "Esc closes", 4, "close the menu (columns: keeping the choice)", NULL },

    /* prompts */
    { KM_PROMPT, ACT_SUBMIT, { ENTER }, "Enter", "Enter accepts", 1, "accept", "Prompts (/, f, save, argument)" },
    { KM_PROMPT, ACT_CANCEL, { 27, 7 }, "Esc C-g", "Esc cancels", 2, "cancel", NULL },
    { KM_PROMPT, ACT_LEFT, { KEY_LEFT, 2 }, "Left C-b", NULL, 0, "a character left", NULL },
    { KM_PROMPT, ACT_RIGHT, { KEY_RIGHT, 6 }, "Right C-f", NULL, 0, "a character right", NULL },
    { KM_PROMPT, ACT_TOP, { KEY_HOME, 1, KEY_FIND }, "Home C-a", NULL, 0, "the start of the line", NULL },
    { KM_PROMPT, ACT_BOTTOM, { KEY_END, 5, KEY_SELECT }, "End C-e", NULL, 0, "the end of the line", NULL },
    { KM_PROMPT, ACT_DEL_BACK, { BKSP }, "Bksp", NULL, 0, "delete the character before the cursor", NULL },
    { KM_PROMPT, ACT_DEL, { KEY_DC, 4 }, "Del C-d", NULL, 0, "delete the character under the cursor", NULL },
    { KM_PROMPT, ACT_KILL, { 21 }, "C-u", NULL, 0, "delete to the start of the line", NULL },
    { KM_PROMPT, ACT_UP, { KEY_UP, 16 }, "Up C-p", "Up history", 3, "the previous text given to this prompt", NULL },
    { KM_PROMPT, ACT_DOWN, { KEY_DOWN, 14 }, "Down C-n", NULL, 0, "the next text given to this prompt", NULL },
    { KM_PROMPT, ACT_COMPLETE, { '\t' }, "Tab", "Tab completes", 4, "save: complete the file name", NULL },
    { KM_PROMPT, ACT_FORMAT, { 20 }, "C-t", NULL, 0,
      "saving calls (E): switch between CSV (.csv) and a Chrome trace for Perfetto (.json)", NULL },
};
const size_t keymap_n = sizeof keymap / sizeof keymap[0];

key_action keymap_action(unsigned mode, int key)
{
    for (size_t i = 0; i < keymap_n; i++) {
        if (!(keymap[i].modes & mode)) continue;
        for (size_t k = 0; k < KEYMAP_KEYS && keymap[i].keys[k]; k++)
            if (keymap[i].keys[k] == key) return keymap[i].act;
    }
    return ACT_NONE;
}

/* The bar's items of a mode, in bar order. */
static size_t bar_items(unsigned mode, const keymap_entry **out, size_t cap)
{
    size_t n = 0;
    for (int rank = 1; rank < 100; rank++)
        for (size_t i = 0; i < keymap_n && n < cap; i++)
            if ((keymap[i].modes & mode) && keymap[i].bar_rank == rank && keymap[i].bar) out[n++] = &keymap[i];
    return n;
}

size_t keymap_bar(unsigned mode, int width, char *out, size_t cap)
{
    const keymap_entry *items[64];
    size_t n = bar_items(mode, items, sizeof items / sizeof items[0]);
    /* help and quit always show, last; before them as many of the others
     * as fit, whole and in the same order at every width */
    size_t ntail = 0, tail_w = 0;
    while (ntail < n && items[n - 1 - ntail]->bar_rank >= 97) tail_w += 2 + strlen(items[n - 1 - ntail++]->bar);
    size_t w = 0;
    if (cap) out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        bool tail = i >= n - ntail;
        size_t add = (w ? 2 : 0) + strlen(items[i]->bar);
        if (!tail && w + add + tail_w > (size_t)width) { i = n - ntail - 1; continue; }
        if (w + add > (size_t)width || w + add >= cap) break;
        w += (size_t)snprintf(out + w, cap - w, "%s%s", w ? "  " : "", items[i]->bar);
    }
    return w;
}

/* Appends text to lines, wrapped at width with a hanging indent. */
static void help_wrap(char ***lines, size_t *n, size_t *cap, const char *first, const char *text, int width)
{
    int indent = (int)strlen(first);
    int room = width - indent;
    if (room < 20) room = 20;
    const char *p = text;
    bool head = true;
    while (*p) {
        size_t len = strlen(p), take = len;
        if ((int)len > room) {
            take = (size_t)room;
            while (take > 0 && p[take] != ' ') take--;
            if (take == 0) take = (size_t)room;
        }
        dfn_grow((void **)lines, cap, *n + 1, sizeof **lines);
        (*lines)[(*n)++] = dfn_xasprintf("%-*s%.*s", indent, head ? first : "", (int)take, p);
        head = false;
        p += take;
        while (*p == ' ') p++;
    }
}

size_t keymap_help(int width, char ***out)
{
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < keymap_n; i++) {
        const keymap_entry *e = &keymap[i];
        if (e->section) {
            dfn_grow((void **)&lines, &cap, n + 2, sizeof *lines);
            if (n) lines[n++] = dfn_xstrdup("");
            lines[n++] = dfn_xstrdup(e->section);
        }
        char first[64];
        snprintf(first, sizeof first, "  %-16s ", e->names);
        help_wrap(&lines, &n, &cap, first, e->help, width);
    }
    *out = lines;
    return n;
}
