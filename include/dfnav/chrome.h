/* dfnav Chrome trace export: the calls of a selection as Chrome trace-event
 * JSON (the JSON object format), which Perfetto UI and chrome://tracing
 * open: a track per process and thread with their names, each call with
 * its arguments, and the counter samples of the selection's hosts and time
 * as counter tracks, all in the trace's own clock (µs since the epoch). */
#ifndef DFNAV_CHROME_H
#define DFNAV_CHROME_H

#include <stdatomic.h>
#include <stdio.h>

#include "dfnav/compare.h"

/* Writes the calls of c (a comparison whose rows are calls: grouped by
 * event) with their tracks and counters. Several runs get tracks of their
 * own, their process names prefixed with the run's name. Stops between
 * calls once *cancel is set (NULL: never), failing with ECANCELED.
 * Returns 0, or -1 with errno set. */
int dfn_chrome_write(FILE *out, const dfn_compare *c, atomic_bool *cancel);

#endif
