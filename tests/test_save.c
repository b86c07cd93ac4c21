/* Saving a table to a file (what the explorer's e and E do): the file
 * appears complete under its name or not at all, an existing file is
 * replaced only when asked, and every failure (a directory or device in
 * the way, a directory that takes no file, a file size limit, a cancel)
 * says which file and why and leaves no temporary file behind. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "dfnav/compare.h"
#include "dfnav/export.h"
#include "dfnav/util.h"
#include "storeutil.h"
#include "testutil.h"

static const char *trace =
    "[\n"
    EV("write", "POSIX", 1, 1, 1000, 400, "\"fname\":\"/p/a.pt\",\"ret\":4000")
    EV("read", "POSIX", 2, 2, 2100, 100, "\"fname\":\"/p/x\",\"ret\":10")
    "]\n";

static dfn_store *st;
static dfn_compare *cmp;
static char *dir;

/* The function table of the trace, as the explorer would export it. */
static void setup(void)
{
    st = su_load_text("t.pfw", trace, 1);
    dir = tu_tmpdir();
    const dfn_store *stores[1] = { st };
    cmp = su_compare(stores, 1, NULL, (dfn_query){ .sort = -1 }, "func", NULL, 0);
}

static void teardown(void)
{
    dfn_compare_free(cmp);
    dfn_store_free(st);
    free(dir);
}

TestSuite(save, .init = setup, .fini = teardown);

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(f)) != EOF) fputc(c, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* The names in dir, sorted, joined by spaces: what a save left there. */
static char *listing(void)
{
    struct dirent **v;
    int n = scandir(dir, &v, NULL, alphasort);
    cr_assert_geq(n, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) {
            fprintf(m, "%s%s", first ? "" : " ", v[i]->d_name);
            first = false;
        }
        free(v[i]);
    }
    free(v);
    fclose(m);
    return buf;
}

static int save(const char *path, bool overwrite, char *err, size_t errlen)
{
    dfn_save s;
    if (dfn_save_open(&s, path, overwrite, err, errlen) != 0) return -1;
    int rc = dfn_save_write(&s, cmp, DFN_FMT_CSV, err, errlen);
    return dfn_save_close(&s, rc, err, errlen);
}

static char *in_dir(const char *name) { return dfn_xasprintf("%s/%s", dir, name); }

static void assert_listing(const char *want)
{
    char *l = listing();
    cr_assert_str_eq(l, want, "left in the directory: '%s', expected '%s'", l, want);
    free(l);
}

Test(save, new_file_complete_and_nothing_else)
{
    char *path = in_dir("t.csv"), err[512] = "";
    cr_assert_eq(save(path, false, err, sizeof err), 0, "%s", err);
    char *got = slurp(path), *want = su_compare_text(cmp, DFN_FMT_CSV);
    cr_assert_str_eq(got, want);
    assert_listing("t.csv");
    free(got); free(want); free(path);
}

Test(save, existing_file_kept_unless_asked)
{
    char *path = tu_write_file(dir, "t.csv", "OLD\n", 4), err[512] = "";
    cr_assert_eq(save(path, false, err, sizeof err), -1);
    cr_assert(strstr(err, path) && strstr(err, "exists"), "%s", err);
    char *got = slurp(path);
    cr_assert_str_eq(got, "OLD\n");
    free(got);
    assert_listing("t.csv");

    cr_assert_eq(save(path, true, err, sizeof err), 0, "%s", err);
    char *want = su_compare_text(cmp, DFN_FMT_CSV);
    got = slurp(path);
    cr_assert_str_eq(got, want, "replaced when asked");
    assert_listing("t.csv");
    free(got); free(want); free(path);
}

/* The name taken by another program between the start and the end of a
 * save without overwrite: that file wins, the save fails. */
Test(save, never_clobbers_a_file_that_appeared_meanwhile)
{
    char *path = in_dir("t.csv"), err[512] = "";
    dfn_save s;
    cr_assert_eq(dfn_save_open(&s, path, false, err, sizeof err), 0, "%s", err);
    cr_assert_eq(dfn_save_write(&s, cmp, DFN_FMT_CSV, err, sizeof err), 0, "%s", err);
    free(tu_write_file(dir, "t.csv", "THEIRS\n", 7));
    cr_assert_eq(dfn_save_close(&s, 0, err, sizeof err), -1);
    cr_assert(strstr(err, path) && strstr(err, "File exists"), "%s", err);
    char *got = slurp(path);
    cr_assert_str_eq(got, "THEIRS\n");
    assert_listing("t.csv");
    free(got); free(path);
}

Test(save, directory_or_fifo_never_replaced)
{
    char err[512] = "";
    cr_assert_eq(save(dir, true, err, sizeof err), -1);
    cr_assert(strstr(err, dir) && strstr(err, "is a directory"), "%s", err);
    /* a FIFO stands for devices: a test must not risk /dev/null */
    char *fifo = in_dir("fifo");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(save(fifo, true, err, sizeof err), -1);
    char *want = dfn_xasprintf("%s is not a regular file", fifo);
    cr_assert_str_eq(err, want);
    assert_listing("fifo");
    free(want);
    free(fifo);
}

Test(save, directory_that_takes_no_file)
{
    char *f = tu_write_file(dir, "plain", "x", 1);
    char *path = dfn_xasprintf("%s/t.csv", f), err[512] = "";
    cr_assert_eq(save(path, false, err, sizeof err), -1);
    char *want = dfn_xasprintf("%s: cannot create a file in %s: Not a directory", path, f);
    cr_assert_str_eq(err, want);
    assert_listing("plain");
    free(want); free(path); free(f);
}

Test(save, file_size_limit_is_a_clear_failure)
{
    /* as a full disk: the write fails (EFBIG rather than SIGXFSZ) */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = { 16, 16 };
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    char *path = in_dir("t.csv"), err[512] = "";
    cr_assert_eq(save(path, false, err, sizeof err), -1);
    char *want = dfn_xasprintf("%s: File too large", path);
    cr_assert_str_eq(err, want);
    assert_listing("");
    free(want); free(path);
}

Test(save, cancelled_leaves_nothing)
{
    char *path = in_dir("t.csv"), err[512] = "";
    dfn_save s;
    cr_assert_eq(dfn_save_open(&s, path, false, err, sizeof err), 0, "%s", err);
    atomic_store(&s.cancel, true);
    int rc = dfn_save_write(&s, cmp, DFN_FMT_CSV, err, sizeof err);
    cr_assert_eq(rc, -1);
    char *want = dfn_xasprintf("%s: cancelled", path);
    cr_assert_str_eq(err, want);
    cr_assert_eq(dfn_save_close(&s, rc, err, sizeof err), -1);
    cr_assert_str_eq(err, want, "the first reason stays");
    assert_listing("");
    free(want); free(path);
}

/* While the save runs, its temporary file sits beside the target under a
 * name that says what it is: a killed program leaves only that. */
Test(save, temporary_file_beside_the_target)
{
    char *path = in_dir("t.csv"), err[512] = "";
    dfn_save s;
    cr_assert_eq(dfn_save_open(&s, path, false, err, sizeof err), 0, "%s", err);
    char *l = listing();
    cr_assert_eq(strncmp(l, "t.csv.tmp.", 10), 0, "%s", l);
    cr_assert_eq(strlen(l), strlen("t.csv.tmp.XXXXXX"), "%s", l);
    free(l);
    cr_assert_eq(dfn_save_close(&s, 0, err, sizeof err), 0, "%s", err);
    char *got = slurp(path);
    cr_assert_str_eq(got, "", "nothing was written: an empty file");
    assert_listing("t.csv");
    free(got); free(path);
}
