/* imatrix_dat.c - llama.cpp's legacy .dat importance matrix (imatrix_dat.h). */
#include "stats/imatrix_dat.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/num.h"
#include "io/mapfile.h"

int cal_imatrix_dat_sniff(const char *path) {
    size_t n = strlen(path);
    if (n >= 4 && !strcmp(path + n - 4, ".dat")) return 1;
    uint8_t b[8 + CAL_IMATRIX_MAX_NAME];
    struct stat sb;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t got = read(fd, b, sizeof b);
    int st = fstat(fd, &sb);
    close(fd);
    if (got < 9 || st != 0) return 0;
    /* i32 entries, i32 name length, a printable name: no safetensors header
     * length (u64) is that large, no GGUF or cal-stream magic reads so */
    int32_t entries = (int32_t)cal_ld32(b), len = (int32_t)cal_ld32(b + 4);
    if (entries < 1 || entries > (1 << 24) || len < 1 || len > CAL_IMATRIX_MAX_NAME || 8 + len > got) return 0;
    for (int32_t i = 0; i < len; i++)
        if (b[8 + i] < 0x21 || b[8 + i] > 0x7e) return 0;
    return cal_ld64(b) > (uint64_t)sb.st_size;
}

#define BAD(off, ...) cal_err_at(err, errlen, name, (off), __VA_ARGS__)

int cal_imatrix_add_dat(cal_imatrix *m, const uint8_t *p, size_t n, const char *name, uint32_t chunk, char *err,
                        size_t errlen) {
    size_t at = 0;
#define NEED(k, what) do { if (n - at < (size_t)(k)) return BAD(at, "file ends inside %s", what); } while (0)
    NEED(4, "the entry count");
    int32_t entries = (int32_t)cal_ld32(p);
    if (entries < 1) return BAD(0, "no entries (%d): not a legacy imatrix", entries);
    at = 4;
    for (int32_t i = 0; i < entries; i++) {
        NEED(4, "an entry's name length");
        int32_t len = (int32_t)cal_ld32(p + at);
        if (len < 1 || len > CAL_IMATRIX_MAX_NAME)
            return BAD(at, "entry %d: name length %d (1 to %d)", i, len, CAL_IMATRIX_MAX_NAME);
        at += 4;
        NEED(len + 8, "an entry's name and sizes");
        char nm[CAL_IMATRIX_MAX_NAME + 1];
        memcpy(nm, p + at, (size_t)len);
        nm[len] = 0;
        if (strlen(nm) != (size_t)len) return BAD(at, "entry %d: name holds a NUL byte", i);
        at += (size_t)len;
        int32_t ncall = (int32_t)cal_ld32(p + at), nval = (int32_t)cal_ld32(p + at + 4);
        if (ncall < 0) return BAD(at, "entry '%s': negative call count %d", nm, ncall);
        if (nval < 1) return BAD(at + 4, "entry '%s': %d values", nm, nval);
        at += 8;
        NEED(4 * (size_t)nval, "an entry's values");
        double *v = cal_xmalloc((size_t)nval * sizeof *v);
        for (int32_t k = 0; k < nval; k++) {
            uint32_t u = cal_ld32(p + at + 4 * (size_t)k);
            float f;
            memcpy(&f, &u, 4);
            if (!isfinite(f) || f < 0) {
                free(v);
                return BAD(at + 4 * (size_t)k, "entry '%s': value %d is %g (a sum of squares)", nm, k, (double)f);
            }
            v[k] = (double)f * chunk;
        }
        at += 4 * (size_t)nval;
        uint64_t count = (uint64_t)ncall * chunk;
        int ok = cal_imatrix_add(m, nm, (size_t)nval, 1, v, NULL, &count, err, errlen);
        free(v);
        if (!ok) return 0;
    }
    if (at == n) return 1; /* the trailer is optional */
    NEED(8, "the trailer (chunk count, dataset)");
    int32_t chunks = (int32_t)cal_ld32(p + at), len = (int32_t)cal_ld32(p + at + 4);
    if (chunks < 0 || len < 0) return BAD(at, "trailer: chunk count %d, dataset length %d", chunks, len);
    at += 8;
    NEED(len, "the dataset name");
    m->chunk_count += (uint64_t)chunks;
    if (len > 0) {
        char *ds = cal_xmalloc((size_t)len + 1);
        memcpy(ds, p + at, (size_t)len);
        ds[len] = 0;
        cal_imatrix_add_dataset(m, ds);
        free(ds);
    }
    at += (size_t)len;
    if (at != n) return BAD(at, "%zu bytes after the trailer", n - at);
    return 1;
#undef NEED
}

int cal_imatrix_add_dat_file(cal_imatrix *m, const char *path, uint32_t chunk, char *err, size_t errlen) {
    cal_mapfile mf;
    if (!cal_mapfile_open(&mf, path, err, errlen)) return 0;
    int ok = cal_imatrix_add_dat(m, mf.p, mf.len, path, chunk, err, errlen);
    cal_mapfile_close(&mf);
    return ok;
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(const cal_imatrix_entry *const *)a)->name, (*(const cal_imatrix_entry *const *)b)->name);
}

static void put32(cal_buf *out, uint32_t x) {
    uint8_t b[4];
    cal_st32(b, x);
    cal_buf_add(out, b, 4);
}

void cal_imatrix_serialize_dat(const cal_imatrix *m, cal_buf *out) {
    const cal_imatrix_entry **e = cal_xcalloc(m->n + 1, sizeof *e);
    uint64_t most = 0;
    size_t ne = 0;
    for (size_t i = 0; i < m->n; i++) {
        int any = 0;
        for (size_t k = 0; k < m->e[i].nmat; k++) {
            most = m->e[i].counts[k] > most ? m->e[i].counts[k] : most;
            any |= m->e[i].counts[k] != 0;
        }
        if (any) e[ne++] = &m->e[i]; /* llama-imatrix: "has no data - skipping" */
    }
    qsort(e, ne, sizeof *e, by_name);
    uint64_t cs = m->chunk_count ? most / m->chunk_count : most;
    if (!cs) cs = 1;
    put32(out, (uint32_t)ne);
    for (size_t i = 0; i < ne; i++) {
        uint64_t top = 0;
        for (size_t k = 0; k < e[i]->nmat; k++) top = e[i]->counts[k] > top ? e[i]->counts[k] : top;
        uint64_t ncall = (top + cs - 1) / cs;
        size_t nv = e[i]->d * e[i]->nmat;
        put32(out, (uint32_t)strlen(e[i]->name));
        cal_buf_add(out, e[i]->name, strlen(e[i]->name));
        put32(out, (uint32_t)(ncall > INT32_MAX ? INT32_MAX : ncall));
        put32(out, (uint32_t)nv);
        for (size_t j = 0; j < nv; j++) {
            float count = (float)e[i]->counts[j / e[i]->d], value = (float)e[i]->in_sum2[j];
            if (count == 0.0f) value = count = 1.0f; /* "store 1 for partial data" */
            float x = value / count * (float)ncall;
            uint32_t bits;
            memcpy(&bits, &x, 4);
            put32(out, bits);
        }
    }
    put32(out, (uint32_t)(m->chunk_count > INT32_MAX ? INT32_MAX : m->chunk_count));
    const char *ds = m->ndatasets ? m->datasets[m->ndatasets - 1] : "";
    put32(out, (uint32_t)strlen(ds));
    cal_buf_add(out, ds, strlen(ds));
    free(e);
}
