/* Runs a fuzz target without libFuzzer: every file named, or found in a
 * directory named, goes through LLVMFuzzerTestOneInput once. This is how
 * `make check` replays the seeds and every input a fuzzer once crashed on
 * (tests/fuzz/regress/), with gcc and, in the sanitizer build, ASan and
 * UBSan. Prints how many inputs ran. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) { perror(path); return -1; }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data != NULL && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (grown == NULL) { free(data); data = NULL; break; }
            data = grown;
            cap *= 2;
        }
    }
    int bad = data == NULL || ferror(f);
    fclose(f);
    if (bad) { fprintf(stderr, "%s: cannot read\n", path); free(data); return -1; }
    fprintf(stderr, "replay: %s\n", path);   /* the last one named is the culprit of a crash */
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

/* Files of a directory in name order, so runs are reproducible; dot files
 * (.gitkeep) are not inputs. */
static int replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL) { perror(dir); return -1; }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL) break;
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (names[n] == NULL) break;
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, replay_cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && replay_file(names[i]) == 0) (*count)++;
        else rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { perror(argv[i]); return 2; }
        int rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count)
                                     : (replay_file(argv[i]) == 0 ? (count++, 0) : -1);
        if (rc != 0) return 2;
    }
    printf("%zu inputs\n", count);
    return 0;
}
