/* dfnav gzip output: a stdio stream whose bytes reach another stream as
 * one gzip member, compressed by ISA-L when dfnav is built with it (several
 * times faster), else by zlib. Extracted trace subsets are written so. */
#ifndef DFNAV_GZWRITE_H
#define DFNAV_GZWRITE_H

#include <stdio.h>

/* A stream writing gzip into raw (which it does not close). fclose on it
 * ends the member (deflate's last block and the gzip trailer) and fails
 * with errno set when raw could not take it all. NULL with errno set when
 * the compressor cannot start. */
FILE *dfn_gzwrite_open(FILE *raw);
/* The compressor's name: "ISA-L" or "zlib". */
const char *dfn_gzwrite_backend(void);

#endif
