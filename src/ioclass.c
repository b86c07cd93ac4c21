/* I/O class tables (analysis.md), including the 64-bit and fortified
 * variants DFAnalyzer misses, the bytes-moved rules and the size bins. */
#include "dfnav/ioclass.h"
#include "dfnav/util.h"

#include <string.h>

typedef struct { const char *name; dfn_op op; } op_entry;

static const op_entry op_table[] = {
    {"read", DFN_OP_READ}, {"pread", DFN_OP_READ}, {"pread64", DFN_OP_READ},
    {"preadv", DFN_OP_READ}, {"preadv2", DFN_OP_READ}, {"readv", DFN_OP_READ},
    {"fread", DFN_OP_READ},
    {"write", DFN_OP_WRITE}, {"pwrite", DFN_OP_WRITE}, {"pwrite64", DFN_OP_WRITE},
    {"pwritev", DFN_OP_WRITE}, {"pwritev2", DFN_OP_WRITE}, {"writev", DFN_OP_WRITE},
    {"fwrite", DFN_OP_WRITE},
    {"fsync", DFN_OP_SYNC}, {"fdatasync", DFN_OP_SYNC}, {"msync", DFN_OP_SYNC},
    {"sync", DFN_OP_SYNC}, {"syncfs", DFN_OP_SYNC}, {"fflush", DFN_OP_SYNC},
    {"open", DFN_OP_OPEN}, {"open64", DFN_OP_OPEN}, {"openat", DFN_OP_OPEN},
    {"openat64", DFN_OP_OPEN}, {"creat", DFN_OP_OPEN}, {"creat64", DFN_OP_OPEN},
    {"fopen", DFN_OP_OPEN}, {"fopen64", DFN_OP_OPEN}, {"fdopen", DFN_OP_OPEN},
    {"opendir", DFN_OP_OPEN},
    {"close", DFN_OP_CLOSE}, {"fclose", DFN_OP_CLOSE}, {"closedir", DFN_OP_CLOSE},
    {"lseek", DFN_OP_SEEK}, {"lseek64", DFN_OP_SEEK}, {"fseek", DFN_OP_SEEK},
    {"fseeko", DFN_OP_SEEK}, {"fseeko64", DFN_OP_SEEK}, {"ftell", DFN_OP_SEEK},
    {"ftello", DFN_OP_SEEK}, {"seek", DFN_OP_SEEK},
    {"stat", DFN_OP_STAT}, {"stat64", DFN_OP_STAT}, {"lstat", DFN_OP_STAT},
    {"lstat64", DFN_OP_STAT}, {"fstat", DFN_OP_STAT}, {"fstat64", DFN_OP_STAT},
    {"fstatat", DFN_OP_STAT}, {"fstatat64", DFN_OP_STAT}, {"newfstatat", DFN_OP_STAT},
    {"statx", DFN_OP_STAT}, {"statfs", DFN_OP_STAT}, {"fstatfs", DFN_OP_STAT},
    {"__xstat", DFN_OP_STAT}, {"__xstat64", DFN_OP_STAT}, {"__lxstat", DFN_OP_STAT},
    {"__lxstat64", DFN_OP_STAT}, {"__fxstat", DFN_OP_STAT}, {"__fxstat64", DFN_OP_STAT},
    {"__fxstatat", DFN_OP_STAT}, {"__fxstatat64", DFN_OP_STAT}, {"access", DFN_OP_STAT},
    {"faccessat", DFN_OP_STAT},
    {"readdir", DFN_OP_METADATA}, {"readdir64", DFN_OP_METADATA}, {"fcntl", DFN_OP_METADATA},
    {"dup", DFN_OP_METADATA}, {"dup2", DFN_OP_METADATA}, {"dup3", DFN_OP_METADATA},
    {"ftruncate", DFN_OP_METADATA}, {"ftruncate64", DFN_OP_METADATA},
    {"truncate", DFN_OP_METADATA}, {"truncate64", DFN_OP_METADATA},
    {"link", DFN_OP_METADATA}, {"linkat", DFN_OP_METADATA}, {"symlink", DFN_OP_METADATA},
    {"symlinkat", DFN_OP_METADATA}, {"unlink", DFN_OP_METADATA}, {"unlinkat", DFN_OP_METADATA},
    {"remove", DFN_OP_METADATA}, {"rename", DFN_OP_METADATA}, {"renameat", DFN_OP_METADATA},
    {"renameat2", DFN_OP_METADATA}, {"rmdir", DFN_OP_METADATA}, {"mkdir", DFN_OP_METADATA},
    {"mkdirat", DFN_OP_METADATA}, {"chmod", DFN_OP_METADATA}, {"fchmod", DFN_OP_METADATA},
    {"fchmodat", DFN_OP_METADATA}, {"chown", DFN_OP_METADATA}, {"fchown", DFN_OP_METADATA},
    {"lchown", DFN_OP_METADATA}, {"fchownat", DFN_OP_METADATA}, {"utime", DFN_OP_METADATA},
    {"utimes", DFN_OP_METADATA}, {"utimensat", DFN_OP_METADATA}, {"futimens", DFN_OP_METADATA},
    {"readlink", DFN_OP_METADATA}, {"readlinkat", DFN_OP_METADATA}, {"chdir", DFN_OP_METADATA},
    {"fchdir", DFN_OP_METADATA}, {"getcwd", DFN_OP_METADATA}, {"mknod", DFN_OP_METADATA},
    {"mknodat", DFN_OP_METADATA}, {"posix_fadvise", DFN_OP_METADATA},
    {"fallocate", DFN_OP_METADATA}, {"posix_fallocate", DFN_OP_METADATA},
    {"fork", DFN_OP_PROCESS}, {"vfork", DFN_OP_PROCESS}, {"clone", DFN_OP_PROCESS},
    {"exec", DFN_OP_PROCESS}, {"execl", DFN_OP_PROCESS}, {"execle", DFN_OP_PROCESS},
    {"execlp", DFN_OP_PROCESS}, {"execv", DFN_OP_PROCESS}, {"execve", DFN_OP_PROCESS},
    {"execvp", DFN_OP_PROCESS}, {"execvpe", DFN_OP_PROCESS}, {"exit", DFN_OP_PROCESS},
    {"_exit", DFN_OP_PROCESS}, {"kill", DFN_OP_PROCESS}, {"pipe", DFN_OP_PROCESS},
    {"pipe2", DFN_OP_PROCESS}, {"wait", DFN_OP_PROCESS}, {"waitpid", DFN_OP_PROCESS},
};

bool dfn_cat_is_io(const char *cat, size_t len)
{
    return dfn_ascii_ieq(cat, len, "POSIX", 5) || dfn_ascii_ieq(cat, len, "STDIO", 5);
}

dfn_op dfn_op_of(const char *func, size_t len)
{
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (strlen(op_table[i].name) == len && memcmp(op_table[i].name, func, len) == 0)
            return op_table[i].op;
    if (len >= 3 && (memcmp(func, "msg", 3) == 0 || memcmp(func, "sem", 3) == 0 ||
                     memcmp(func, "shm", 3) == 0))
        return DFN_OP_IPC;
    return DFN_OP_OTHER;
}

dfn_class dfn_class_of_op(dfn_op op)
{
    switch (op) {
    case DFN_OP_READ: return DFN_CLASS_READ;
    case DFN_OP_WRITE: return DFN_CLASS_WRITE;
    case DFN_OP_OPEN: case DFN_OP_CLOSE: case DFN_OP_SEEK: case DFN_OP_STAT:
    case DFN_OP_METADATA: return DFN_CLASS_METADATA;
    case DFN_OP_SYNC: return DFN_CLASS_SYNC;
    case DFN_OP_PROCESS: return DFN_CLASS_PROCESS;
    case DFN_OP_IPC: return DFN_CLASS_IPC;
    case DFN_OP_GPU_COPY: return DFN_CLASS_GPU_COPY;
    default: return DFN_CLASS_OTHER;
    }
}

dfn_bytes_rule dfn_bytes_rule_of(const char *func, size_t len)
{
    if ((len == 5 && memcmp(func, "fread", 5) == 0) || (len == 6 && memcmp(func, "fwrite", 6) == 0))
        return DFN_BYTES_SIZE_X_RET;
    dfn_op op = dfn_op_of(func, len);
    return op == DFN_OP_READ || op == DFN_OP_WRITE ? DFN_BYTES_RET : DFN_BYTES_NONE;
}

static bool has_prefix(const char *s, size_t len, const char *p)
{
    size_t pl = strlen(p);
    return len >= pl && memcmp(s, p, pl) == 0;
}

static bool has_word(const char *s, size_t len, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= len; i++)
        if (dfn_ascii_ieq(s + i, wl, w, wl)) return true;
    return false;
}

/* MPI_File_read_at_all -> read ... */
static dfn_op mpiio_op(const char *f, size_t len)
{
    const char *r = f + 9;
    size_t rl = len - 9;
    if (has_prefix(r, rl, "read") || has_prefix(r, rl, "iread")) return DFN_OP_READ;
    if (has_prefix(r, rl, "write") || has_prefix(r, rl, "iwrite")) return DFN_OP_WRITE;
    if (has_prefix(r, rl, "open")) return DFN_OP_OPEN;
    if (has_prefix(r, rl, "close")) return DFN_OP_CLOSE;
    if (has_prefix(r, rl, "seek") || has_prefix(r, rl, "get_position")) return DFN_OP_SEEK;
    if (has_prefix(r, rl, "sync")) return DFN_OP_SYNC;
    return DFN_OP_METADATA;
}

/* H5Dread -> read, H5Fopen -> open, H5Fflush -> sync, other calls on
 * files, datasets, groups, attributes, links, objects -> metadata. */
static dfn_op hdf5_op(const char *f, size_t len)
{
    if (len < 3 || !strchr("ADFGLOST", f[2])) return DFN_OP_OTHER;
    const char *r = f + 3;
    size_t rl = len - 3;
    if (has_prefix(r, rl, "read")) return DFN_OP_READ;
    if (has_prefix(r, rl, "write")) return DFN_OP_WRITE;
    if (has_prefix(r, rl, "open") || has_prefix(r, rl, "create")) return DFN_OP_OPEN;
    if (has_prefix(r, rl, "close")) return DFN_OP_CLOSE;
    if (has_prefix(r, rl, "flush")) return DFN_OP_SYNC;
    return DFN_OP_METADATA;
}

dfn_op dfn_op_of_kind(const char *cat, size_t catlen, const char *func, size_t len)
{
    if (dfn_cat_is_io(cat, catlen)) return dfn_op_of(func, len);
    if (has_prefix(func, len, "MPI_File_") && len > 9) return mpiio_op(func, len);
    if (has_prefix(func, len, "H5") && (has_word(cat, catlen, "HDF5") || has_word(cat, catlen, "H5")))
        return hdf5_op(func, len);
    /* the copy activity (CUDA_MEMCPY ...) carries the bytes; the runtime
     * API call that asked for it (cudaMemcpy) stays other, not counted twice */
    if (has_word(cat, catlen, "MEMCPY")) return DFN_OP_GPU_COPY;
    return DFN_OP_OTHER;
}

dfn_bytes_rule dfn_bytes_rule_of_kind(const char *cat, size_t catlen, const char *func, size_t len)
{
    if (dfn_cat_is_io(cat, catlen)) return dfn_bytes_rule_of(func, len);
    dfn_op op = dfn_op_of_kind(cat, catlen, func, len);
    return op == DFN_OP_READ || op == DFN_OP_WRITE || op == DFN_OP_GPU_COPY ? DFN_BYTES_ARG : DFN_BYTES_NONE;
}

const char *dfn_class_name(dfn_class c)
{
    static const char *names[] = {"read", "write", "metadata", "sync", "process", "ipc", "other", "gpu-copy"};
    return c < DFN_CLASS_COUNT ? names[c] : "other";
}

const char *dfn_op_name(dfn_op o)
{
    static const char *names[] = {"read", "write", "open", "close", "seek", "stat",
                                  "metadata", "sync", "process", "ipc", "other", "gpu-copy"};
    return o < DFN_OP_COUNT ? names[o] : "other";
}

const char *dfn_sizebin_name(int bin)
{
    static const char *names[DFN_SIZEBIN_COUNT] = {
        "<=4KiB", "4-16KiB", "16-64KiB", "64-256KiB", "256KiB-1MiB", "1-4MiB",
        "4-16MiB", "16-64MiB", "64-256MiB", "256MiB-1GiB", "1-4GiB", ">4GiB"};
    return bin >= 0 && bin < DFN_SIZEBIN_COUNT ? names[bin] : "";
}
