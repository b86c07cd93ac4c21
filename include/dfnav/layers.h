/* dfnav layers: named filters (with an optional parent) that group events
 * into application phases and the I/O beneath them: reader, compute,
 * checkpoint, ... Loaded from a small text file or a preset ("posix",
 * "dlio"). Every event lands in at least one layer: an implicit last layer
 * "other" takes the events no other layer matched. */
#ifndef DFNAV_LAYERS_H
#define DFNAV_LAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfnav/filter.h"
#include "dfnav/store.h"

#define DFN_LAYERS_MAX 63     /* plus "other": one bit each in a 64-bit mask */

typedef struct {
    char *name;
    int parent;               /* index of the parent layer, -1 for none */
    dfn_filter filter;
    dfn_filter *alts;         /* the filters of later lines naming the layer again: */
    size_t nalts;             /* an event is in it when it matches any */
} dfn_layer_def;

typedef struct {
    char *source;             /* preset name or file path */
    dfn_layer_def *defs;
    size_t n;                 /* not counting "other" */
} dfn_layers;

/* Text format, one layer a line ('#' starts a comment):
 *     NAME [< PARENT] : FILTER
 * A filter may use  layer=NAME  for layers defined above it. A layer named
 * again on a later line (with the same parent) takes the events of either
 * line: "reader : cat=reader" then "reader : func=preprocess". */
bool dfn_layers_parse(const char *text, const char *source, dfn_layers *out, char *err, size_t errlen);
/* NAME is a preset ("posix", "dlio", "dlio-legacy" alias
 * "dlio-pre-ai-logging") or a file path. */
bool dfn_layers_load(const char *name, dfn_layers *out, char *err, size_t errlen);
/* The preset that fits a store: "dlio" when DLIO's AI logging names are
 * present (ai_root, fetch.iter, pipeline train, compute compute),
 * "dlio-legacy" when its older categories are (dlio_benchmark,
 * ai_framework), else "posix"; *why (may be NULL) says what was found. */
const char *dfn_layers_auto(const dfn_store *s, const char **why);
/* The same in two steps, for a set held in shares (MPI ranks): a share's
 * level (2 dlio, 1 dlio-legacy, 0 posix), whose largest over the shares
 * names the whole set's preset. */
int dfn_layers_auto_level(const dfn_store *s);
const char *dfn_layers_auto_name(int level, const char **why);
/* Whether a layer's definition has a time term (time counts from the
 * set's start: shares of a set, each with its own, differ). */
bool dfn_layers_timed(const dfn_layers *l);
/* Whether a preset name is one of DLIO's. */
bool dfn_preset_is_dlio(const char *name);
/* Name of layer k; k == n is "other". */
const char *dfn_layers_name(const dfn_layers *l, size_t k);
int dfn_layers_find(const dfn_layers *l, const char *name, size_t len);
void dfn_layers_free(dfn_layers *l);

/* Preset texts compiled in from the .layers files in data/. */
const char *dfn_preset_text(const char *name);

#endif
