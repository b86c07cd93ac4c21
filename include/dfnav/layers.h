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
} dfn_layer_def;

typedef struct {
    char *source;             /* preset name or file path */
    dfn_layer_def *defs;
    size_t n;                 /* not counting "other" */
} dfn_layers;

/* Text format, one layer a line ('#' starts a comment):
 *     NAME [< PARENT] : FILTER
 * A filter may use  layer=NAME  for layers defined above it. */
bool dfn_layers_parse(const char *text, const char *source, dfn_layers *out, char *err, size_t errlen);
/* NAME is a preset ("posix", "dlio") or a file path. */
bool dfn_layers_load(const char *name, dfn_layers *out, char *err, size_t errlen);
/* The preset that fits a store: dlio when DLIO's categories are present. */
const char *dfn_layers_auto(const dfn_store *s);
/* Name of layer k; k == n is "other". */
const char *dfn_layers_name(const dfn_layers *l, size_t k);
int dfn_layers_find(const dfn_layers *l, const char *name, size_t len);
void dfn_layers_free(dfn_layers *l);

/* Preset texts compiled in from the .layers files in data/. */
const char *dfn_preset_text(const char *name);

#endif
