/* The string table and its per-thread cache: ids are dense and stable,
 * any bytes (NUL included) intern, and threads interning the same strings
 * through caches agree on every id. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dfnav/strtab.h"

Test(strtab, intern_find_and_lengths)
{
    dfn_strtab *t = dfn_strtab_new();
    uint32_t a = dfn_strtab_intern(t, "read", 4);
    uint32_t b = dfn_strtab_intern(t, "write", 5);
    cr_assert_eq(a, 0);
    cr_assert_eq(b, 1);
    cr_assert_eq(dfn_strtab_intern(t, "read", 4), a);
    cr_assert_eq(dfn_strtab_find(t, "write", 5), b);
    cr_assert_eq(dfn_strtab_find(t, "writ", 4), DFN_NOID);
    uint32_t z = dfn_strtab_intern(t, "a\0b", 3);
    cr_assert_eq(dfn_strtab_len(t, z), 3);
    cr_assert_eq(memcmp(dfn_strtab_str(t, z), "a\0b", 4), 0);
    cr_assert_neq(dfn_strtab_intern(t, "a", 1), z);
    uint32_t e = dfn_strtab_intern(t, "", 0);
    cr_assert_str_eq(dfn_strtab_str(t, e), "");
    dfn_strtab_free(t);
}

Test(strtab, many_strings_keep_their_ids_and_pointers)
{
    dfn_strtab *t = dfn_strtab_new();
    const char *first = dfn_strtab_str(t, dfn_strtab_intern(t, "s0", 2));
    char buf[32];
    for (int i = 0; i < 200000; i++) {
        int n = snprintf(buf, sizeof buf, "s%d", i);
        cr_assert_eq(dfn_strtab_intern(t, buf, (size_t)n), (uint32_t)i);
    }
    cr_assert_eq(dfn_strtab_count(t), 200000);
    cr_assert_eq(dfn_strtab_str(t, 0), first, "the arena never moves");
    for (int i = 0; i < 200000; i += 997) {
        int n = snprintf(buf, sizeof buf, "s%d", i);
        cr_assert_eq(dfn_strtab_find(t, buf, (size_t)n), (uint32_t)i);
        cr_assert_str_eq(dfn_strtab_str(t, (uint32_t)i), buf);
    }
    dfn_strtab_free(t);
}

typedef struct { dfn_strtab *t; pthread_mutex_t *lock; uint32_t ids[5000]; int reverse; } job;

static void *worker(void *arg)
{
    job *j = arg;
    dfn_strcache *c = dfn_strcache_new(j->t, j->lock);
    char buf[32];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 5000; i++) {
            int x = j->reverse ? 4999 - i : i;
            int n = snprintf(buf, sizeof buf, "name-%d", x);
            j->ids[x] = dfn_strcache_intern(c, buf, (size_t)n);
        }
    dfn_strcache_free(c);
    return NULL;
}

Test(strtab, caches_on_threads_agree)
{
    dfn_strtab *t = dfn_strtab_new();
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    job a = { t, &lock, {0}, 0 }, b = { t, &lock, {0}, 1 };
    pthread_t ta, tb;
    pthread_create(&ta, NULL, worker, &a);
    pthread_create(&tb, NULL, worker, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_assert_eq(dfn_strtab_count(t), 5000);
    char buf[32];
    for (int i = 0; i < 5000; i++) {
        cr_assert_eq(a.ids[i], b.ids[i]);
        snprintf(buf, sizeof buf, "name-%d", i);
        cr_assert_str_eq(dfn_strtab_str(t, a.ids[i]), buf);
    }
    dfn_strtab_free(t);
}

/* A set of texts: add says whether a text was new, with its id either way. */
Test(strtab, add_says_whether_a_text_was_new)
{
    dfn_strtab *t = dfn_strtab_new();
    uint32_t a, b, c;
    cr_assert(dfn_strtab_add(t, "x\0y", 3, &a));
    cr_assert(dfn_strtab_add(t, "x", 1, &b), "a prefix up to a NUL is another text");
    cr_assert_not(dfn_strtab_add(t, "x\0y", 3, &c));
    cr_assert_eq(c, a);
    cr_assert_neq(a, b);
    cr_assert_not(dfn_strtab_add(t, "x", 1, NULL));
    cr_assert_eq(dfn_strtab_count(t), 2);
    dfn_strtab_free(t);
}
