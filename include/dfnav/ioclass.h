/* dfnav I/O classes: which POSIX/STDIO calls read, write, touch metadata,
 * sync, manage processes or do IPC; how many bytes a call moved; and the
 * twelve standard transfer-size bins. */
#ifndef DFNAV_IOCLASS_H
#define DFNAV_IOCLASS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef enum {
    DFN_CLASS_READ, DFN_CLASS_WRITE, DFN_CLASS_METADATA, DFN_CLASS_SYNC,
    DFN_CLASS_PROCESS, DFN_CLASS_IPC, DFN_CLASS_OTHER,
    DFN_CLASS_GPU_COPY,       /* GPU memory copies (CUDA, HIP) */
    DFN_CLASS_COUNT
} dfn_class;

/* The finer split users ask for: metadata divides into open, close, seek
 * and stat (the rest stays "metadata"). */
typedef enum {
    DFN_OP_READ, DFN_OP_WRITE, DFN_OP_OPEN, DFN_OP_CLOSE, DFN_OP_SEEK,
    DFN_OP_STAT, DFN_OP_METADATA, DFN_OP_SYNC, DFN_OP_PROCESS, DFN_OP_IPC,
    DFN_OP_OTHER, DFN_OP_GPU_COPY, DFN_OP_COUNT
} dfn_op;

/* Where a call's bytes come from: ret (POSIX), size x ret (fread,
 * fwrite), or an argument naming them (MPI-IO, HDF5, GPU copies: bytes,
 * else size). */
typedef enum { DFN_BYTES_NONE, DFN_BYTES_RET, DFN_BYTES_SIZE_X_RET, DFN_BYTES_ARG } dfn_bytes_rule;

/* Class by function name, for events whose category is POSIX or STDIO
 * (compared ignoring case); any other category is DFN_CLASS_OTHER. */
bool dfn_cat_is_io(const char *cat, size_t len);
dfn_op dfn_op_of(const char *func, size_t len);
dfn_class dfn_class_of_op(dfn_op op);
dfn_bytes_rule dfn_bytes_rule_of(const char *func, size_t len);
/* The operation of a call of any category: POSIX and STDIO by the table,
 * MPI-IO (MPI_File_*) and HDF5 (H5D, H5F, H5G, H5A, ... in an HDF5
 * category) by their names, GPU copies by their category (CUDA_MEMCPY);
 * everything else is other. */
dfn_op dfn_op_of_kind(const char *cat, size_t catlen, const char *func, size_t len);
/* The bytes rule of such a call. */
dfn_bytes_rule dfn_bytes_rule_of_kind(const char *cat, size_t catlen, const char *func, size_t len);
const char *dfn_class_name(dfn_class c);
const char *dfn_op_name(dfn_op o);

#define DFN_SIZEBIN_COUNT 12
/* Bin of a transfer of BYTES (> 0), right-closed: 4096 is in "<=4KiB".
 * Inline: queries take it for every call. Bin b > 0 holds
 * (4096 * 4^(b-1), 4096 * 4^b], so it follows from the bit length. */
static inline int dfn_sizebin(uint64_t bytes)
{
    if (bytes <= 4096) return 0;
    int bits = 64 - __builtin_clzll(bytes - 1);
    int b = (bits - 11) / 2;
    return b < DFN_SIZEBIN_COUNT - 1 ? b : DFN_SIZEBIN_COUNT - 1;
}
/* Bin of the mean of an aggregated record's calls, bytes / calls (calls
 * > 0), exactly: the bins' edges are whole bytes, so a mean is at most an
 * edge when its ceiling is (4096.5 is past "<=4KiB"). */
static inline int dfn_sizebin_mean(uint64_t bytes, uint64_t calls)
{
    return dfn_sizebin(bytes / calls + (bytes % calls != 0));
}
const char *dfn_sizebin_name(int bin);

#endif
