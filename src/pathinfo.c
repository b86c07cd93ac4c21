/* Derived path dimensions. Outputs never exceed the input length, so
 * callers size one buffer by the path and no name can overflow it. */
#include "dfnav/pathinfo.h"

#include <string.h>

size_t dfn_path_pattern(const char *path, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (path[i] >= '0' && path[i] <= '9') {
            out[o++] = '#';
            while (i + 1 < len && path[i + 1] >= '0' && path[i + 1] <= '9') i++;
        } else {
            out[o++] = path[i];
        }
    }
    out[o] = 0;
    return o;
}

size_t dfn_path_part(const char *path, size_t len, char *out)
{
    while (len > 1 && path[len - 1] == '/') len--;
    size_t base = len;
    while (base > 0 && path[base - 1] != '/') base--;
    return dfn_path_pattern(path + base, len - base, out);
}

size_t dfn_path_dir(const char *path, size_t len, char *out)
{
    while (len > 1 && path[len - 1] == '/') len--;
    size_t cut = len;
    while (cut > 0 && path[cut - 1] != '/') cut--;
    if (cut == 0) { if (len) { out[0] = '.'; out[1] = 0; return 1; } out[0] = 0; return 0; }
    while (cut > 1 && path[cut - 1] == '/') cut--;
    memcpy(out, path, cut);
    out[cut] = 0;
    return cut;
}

size_t dfn_path_fs(const char *path, size_t len, char *out)
{
    size_t dlen = dfn_path_dir(path, len, out);
    if (dlen == 0 || out[0] != '/') return dlen;
    /* keep up to the end of the second component of the directory */
    size_t comps = 0, i = 0;
    while (i < dlen) {
        while (i < dlen && out[i] == '/') i++;
        if (i >= dlen) break;
        while (i < dlen && out[i] != '/') i++;
        if (++comps == 2) break;
    }
    out[i] = 0;
    return i;
}
