/* replay.c - runs a fuzz target's LLVMFuzzerTestOneInput over the files
 * named (folders: every file in them) without libFuzzer, so that the kept
 * corpus (tests/fuzz/corpus/) is a regression test of make check, plain
 * and under SANITIZE=1. Prints "ok - NAME: N inputs" or exits non-zero
 * (a crash, or a sanitizer's report). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        exit(2);
    }
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *p = malloc(cap);
    while (p && (k = fread(p + n, 1, cap - n, f)) > 0)
        if ((n += k) == cap) p = realloc(p, cap *= 2);
    fclose(f);
    if (!p) exit(2);
    /* an exact-size copy, so that ASan sees a read one past the input */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, p, n);
    free(p);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    size_t total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
            total += run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        char **names = NULL;
        size_t n = 0;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            names = realloc(names, (n + 1) * sizeof *names);
            names[n] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
            sprintf(names[n++], "%s/%s", argv[i], e->d_name);
        }
        if (d) closedir(d);
        qsort(names, n, sizeof *names, by_name);
        for (size_t k = 0; k < n; k++) total += run_file(names[k]), free(names[k]);
        free(names);
    }
    const char *name = strrchr(argv[0], '/');
    printf("ok - %s: %zu inputs\n", name ? name + 1 : argv[0], total);
    return 0;
}
