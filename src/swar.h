/* Byte scans eight bytes at a time, shared by the JSON tokenizer and the
 * line scanner: both spend most of their time finding where strings and
 * digit runs end. Never reads past len. */
#ifndef DFNAV_SWAR_H
#define DFNAV_SWAR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SWAR_ONES 0x0101010101010101ULL
#define SWAR_HIGHS 0x8080808080808080ULL

/* Where the first flagged byte of a word is: the flag tests below may
 * also flag bytes after the first hit (a borrow runs upward), never
 * before it, so only the lowest flag is trusted. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR 1
static inline size_t swar_first(uint64_t m) { return (size_t)__builtin_ctzll(m) >> 3; }
#else
#define SWAR 0
#endif

/* The mask of the first n bytes of a word (all of it from 8 on): the
 * hints and the parser's memos hold short texts as masked words. */
static inline uint64_t swar_prefix_mask(size_t n)
{
    return n >= 8 ? ~0ULL : n ? ~0ULL >> (64 - 8 * n) : 0;
}

/* Index of the first '"', '\\' or control byte at or after i, or len. */
static inline size_t swar_string_stop(const unsigned char *s, size_t i, size_t len)
{
#if SWAR
    for (; i + 8 <= len; i += 8) {
        uint64_t x, q, b, m;
        memcpy(&x, s + i, 8);
        q = x ^ (SWAR_ONES * '"');
        b = x ^ (SWAR_ONES * '\\');
        m = (((q - SWAR_ONES) & ~q) | ((b - SWAR_ONES) & ~b) | ((x - SWAR_ONES * 0x20) & ~x)) & SWAR_HIGHS;
        if (m) return i + swar_first(m);
    }
#endif
    while (i < len && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\') i++;
    return i;
}

/* The end of a run of digits starting at i. */
static inline size_t swar_digits_end(const unsigned char *s, size_t i, size_t len)
{
#if SWAR
    for (; i + 8 <= len; i += 8) {
        uint64_t x, m;
        memcpy(&x, s + i, 8);
        /* a byte is a digit when b - '0' does not borrow and b + ('\x7f' - '9') does not carry */
        m = ((x - SWAR_ONES * '0') | (x + SWAR_ONES * (0x7f - '9')) | x) & SWAR_HIGHS;
        if (m) return i + swar_first(m);
    }
#endif
    while (i < len && s[i] >= '0' && s[i] <= '9') i++;
    return i;
}

#endif
