/* Small helpers shared by the Criterion suites: scratch directories, files
 * with given contents, gzip members, one-byte edits. Every helper aborts the test on failure
 * so callers need no error handling. */
#ifndef DFNAV_TESTUTIL_H
#define DFNAV_TESTUTIL_H

#include <stddef.h>

/* Makes a fresh, unique directory under $DFN_TEST_TMP (or /tmp) and returns
 * its malloc'd path. */
char *tu_tmpdir(void);

/* Writes len bytes of data to DIR/NAME (replacing it) and returns the
 * malloc'd full path. */
char *tu_write_file(const char *dir, const char *name, const void *data, size_t len);

/* Compresses data into one gzip member (zlib, default level) and returns the
 * malloc'd member; *outlen receives its size. */
unsigned char *tu_gzip(const void *data, size_t len, size_t *outlen);

/* One-byte edits, for the suites that check a reader on every edit of
 * sample lines: the line with the byte at pos deleted, replaced by c or
 * with c inserted before it, written to out (cap bytes); returns its
 * length. */
enum { TU_DELETE, TU_REPLACE, TU_INSERT };
size_t tu_edit_byte(const char *line, size_t len, size_t pos, int kind, char c, char *out, size_t cap);

#endif
