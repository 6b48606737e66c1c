/* zipstore.c - stored ZIP members (PKWARE APPNOTE 4.3). See zipstore.h. */
#include "io/zipstore.h"

#include <string.h>

#include "base/err.h"

#define DOS_DATE 0x21 /* 1980-01-01: the earliest DOS date; time 00:00 */

static void put16(cal_buf *b, unsigned v) {
    cal_buf_addc(b, (char)(v & 0xff));
    cal_buf_addc(b, (char)(v >> 8 & 0xff));
}
static void put32(cal_buf *b, uint32_t v) {
    put16(b, v & 0xffff);
    put16(b, v >> 16);
}

static void check32(const cal_zip *z, uint64_t v) {
    if (v >= 0xffffffffu) cal_die("%s: 4 GiB or more does not fit a ZIP without ZIP64; write .safetensors", z->path);
}

void cal_zip_begin(cal_zip *z, cal_file *f, const char *path) {
    memset(z, 0, sizeof *z);
    z->f = f;
    z->path = path;
}

/* The fields that local and central headers share, from "version needed". */
static void common(cal_buf *b, uint32_t crc, uint64_t size, size_t namelen) {
    put16(b, 20); /* version needed: 2.0 */
    put16(b, 0);  /* flags */
    put16(b, 0);  /* method: stored */
    put16(b, 0);  /* time */
    put16(b, DOS_DATE);
    put32(b, crc);
    put32(b, (uint32_t)size); /* compressed = uncompressed */
    put32(b, (uint32_t)size);
    put16(b, (unsigned)namelen);
    put16(b, 0); /* extra field length */
}

void cal_zip_member(cal_zip *z, const char *name, uint32_t crc, uint64_t size) {
    size_t nl = strlen(name);
    check32(z, z->off);
    check32(z, size);
    cal_buf_add(&z->cd, "PK\1\2", 4);
    put16(&z->cd, 20); /* made by: 2.0, MS-DOS attributes */
    common(&z->cd, crc, size, nl);
    put16(&z->cd, 0); /* comment length */
    put16(&z->cd, 0); /* disk number */
    put16(&z->cd, 0); /* internal attributes */
    put32(&z->cd, 0); /* external attributes */
    put32(&z->cd, (uint32_t)z->off);
    cal_buf_add(&z->cd, name, nl);
    cal_buf h = {0};
    cal_buf_add(&h, "PK\3\4", 4);
    common(&h, crc, size, nl);
    cal_buf_add(&h, name, nl);
    cal_zip_write(z, h.p, h.n);
    cal_buf_free(&h);
    z->n++;
}

void cal_zip_write(cal_zip *z, const void *p, size_t n) {
    cal_file_write(z->f, p, n);
    z->off += n;
}

void cal_zip_end(cal_zip *z) {
    check32(z, z->off + z->cd.n);
    cal_buf e = {0};
    cal_buf_add(&e, "PK\5\6", 4);
    put16(&e, 0); /* this disk */
    put16(&e, 0); /* disk of the central directory */
    put16(&e, z->n);
    put16(&e, z->n);
    put32(&e, (uint32_t)z->cd.n);
    put32(&e, (uint32_t)z->off);
    put16(&e, 0); /* comment length */
    cal_zip_write(z, z->cd.p, z->cd.n);
    cal_zip_write(z, e.p, e.n);
    cal_buf_free(&e);
    cal_buf_free(&z->cd);
}
