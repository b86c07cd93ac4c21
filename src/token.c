/* dfnav token: the secret a `dfnav serve` writes for its user only and
 * every `dfnav --connect` presents (see wire.h). The file is the whole of
 * the server's admission: it is made mode 0600 and read only when nobody
 * else could have read or written it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* getrandom, O_NOFOLLOW */
#endif
#include "dfnav/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dfnav/util.h"

bool dfn_random_bytes(void *out, size_t n, char *err, size_t cap)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom((uint8_t *)out + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { snprintf(err, cap, "no random bytes: %s", strerror(errno)); return false; }
        got += (size_t)r;
    }
    return true;
}

bool dfn_token_new(char out[DFN_TOKEN_LEN + 1], char *err, size_t cap)
{
    uint8_t raw[DFN_TOKEN_LEN / 2];
    if (!dfn_random_bytes(raw, sizeof raw, err, cap)) return false;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[DFN_TOKEN_LEN] = 0;
    return true;
}

bool dfn_token_equal(const char *a, const char *b)
{
    unsigned diff = 0;
    for (size_t i = 0; i < DFN_TOKEN_LEN; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

char *dfn_token_path(void)
{
    const char *env = getenv("DFNAV_TOKEN_FILE");
    if (env && *env) return dfn_xstrdup(env);
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') return dfn_xasprintf("%s/dfnav-token", xdg);
    const char *home = getenv("HOME");
    if (home && *home) return dfn_xasprintf("%s/.cache/dfnav-token", home);
    return NULL;
}

/* The directory part of path made if missing (mode 0700: only the user's). */
static void token_mkdir(const char *path)
{
    char *dir = dfn_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        (void)mkdir(dir, 0700);
    }
    free(dir);
}

bool dfn_token_write(const char *path, const char *token, const char *host, long pid, char *err, size_t cap)
{
    token_mkdir(path);
    char *tmp = dfn_xasprintf("%s.%ld.new", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, cap, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return false;
    }
    char *text = dfn_xasprintf("%.*s\n%s %ld\n", DFN_TOKEN_LEN, token, host, pid);
    size_t len = strlen(text);
    /* mode 0600 whatever the umask said */
    bool ok = fchmod(fd, 0600) == 0 && write(fd, text, len) == (ssize_t)len;
    free(text);
    int e = errno;
    if (close(fd) != 0 && ok) { ok = false; e = errno; }
    if (ok && rename(tmp, path) != 0) { ok = false; e = errno; }
    if (!ok) {
        snprintf(err, cap, "%s: %s", path, strerror(e));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

bool dfn_token_owner(const char *path, char *host, size_t cap, long *pid)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= DFN_TOKEN_LEN) return false;
    buf[n] = 0;
    char *line = strchr(buf, '\n');
    if (!line) return false;
    line++;
    size_t hl = strcspn(line, " \n");
    if (!hl || hl >= cap || line[hl] != ' ') return false;
    memcpy(host, line, hl);
    host[hl] = 0;
    char *end;
    *pid = strtol(line + hl + 1, &end, 10);
    return end != line + hl + 1 && *pid > 0;
}

bool dfn_token_read(const char *path, char out[DFN_TOKEN_LEN + 1], char *err, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap, "%s: %s (the token `dfnav serve` writes; --token-file names another)", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
        snprintf(err, cap, "%s: not a token file of yours that only you can read (chmod 600 it, or start the server again)",
                 path);
        close(fd);
        return false;
    }
    char buf[DFN_TOKEN_LEN + 2];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    bool ok = n >= DFN_TOKEN_LEN && (n == DFN_TOKEN_LEN || buf[DFN_TOKEN_LEN] == '\n');
    for (size_t i = 0; ok && i < DFN_TOKEN_LEN; i++)
        ok = (buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f');
    if (!ok) {
        snprintf(err, cap, "%s: no token in it", path);
        return false;
    }
    memcpy(out, buf, DFN_TOKEN_LEN);
    out[DFN_TOKEN_LEN] = 0;
    return true;
}
