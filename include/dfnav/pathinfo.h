/* dfnav path derivations: file pattern (digit runs collapsed), directory
 * and file-system prefix, the dimensions users compare checkpoint parts
 * and PFS versus node-local storage with. */
#ifndef DFNAV_PATHINFO_H
#define DFNAV_PATHINFO_H

#include <stddef.h>

/* Each writes into out (capacity outcap, at least len + 1 is always
 * enough) and returns the length written. */
size_t dfn_path_pattern(const char *path, size_t len, char *out);
size_t dfn_path_dir(const char *path, size_t len, char *out);
/* First two components of the directory: /p/lustre2, /l/ssd, /tmp. */
size_t dfn_path_fs(const char *path, size_t len, char *out);
/* The file's own name with digit runs as '#', folders dropped: checkpoint
 * parts of runs whose folders differ line up (layer-#-#.pt, model-#.pt). */
size_t dfn_path_part(const char *path, size_t len, char *out);

#endif
