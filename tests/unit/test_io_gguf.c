/* test_io_gguf.c - lib/io/gguf.c: the writer's exact bytes (ggml's layout:
 * trailing dimensions of 1 dropped, every tensor padded, the last too), a
 * round trip, and the reader's rejection of each thing ggml's
 * gguf_init_from_file rejects (and of every truncation), each with the
 * expected message. The file-level check against an independent reader is
 * tests/sh/test_hessian_gguf.sh. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/num.h"
#include "io/gguf.h"
#include "test.h"

/* ---- a raw image builder: every field written by hand ------------------- */
static void u32(cal_buf *b, uint32_t v) {
    uint8_t t[4];
    cal_st32(t, v);
    cal_buf_add(b, t, 4);
}
static void u64(cal_buf *b, uint64_t v) {
    uint8_t t[8];
    cal_st64(t, v);
    cal_buf_add(b, t, 8);
}
static void str(cal_buf *b, const char *s) {
    u64(b, strlen(s));
    cal_buf_add(b, s, strlen(s));
}
static void pad32(cal_buf *b) {
    while (b->n % 32) cal_buf_addc(b, 0);
}
static void head(cal_buf *b, uint32_t version, uint64_t nt, uint64_t nkv) {
    b->n = 0;
    cal_buf_add(b, "GGUF", 4);
    u32(b, version);
    u64(b, nt);
    u64(b, nkv);
}
static void tinfo(cal_buf *b, const char *name, uint32_t nd, const uint64_t *ne, uint32_t type, uint64_t off) {
    str(b, name);
    u32(b, nd);
    for (uint32_t i = 0; i < nd; i++) u64(b, ne[i]);
    u32(b, type);
    u64(b, off);
}

static void expect_error(const char *what, const cal_buf *b, const char *want) {
    char err[512] = "";
    cal_gguf_file *f = cal_gguf_open_mem(b->p, b->n, "t.gguf", err, sizeof err);
    CHECK(!f && strstr(err, want), "%s: %s", what, err);
    cal_gguf_close(f);
}

/* One key and one f32 tensor of n values, the data padded. */
static void one_tensor(cal_buf *b, uint64_t n) {
    head(b, 3, 1, 1);
    str(b, "general.type");
    u32(b, CAL_GGUF_STRING);
    str(b, "imatrix");
    tinfo(b, "w", 1, &n, 0, 0);
    pad32(b);
    for (uint64_t i = 0; i < n; i++) u32(b, 0x3f800000);
    pad32(b);
}

static void writer_bytes(void) {
    float v[3] = {1, 2, 3}, c[1] = {7};
    cal_gguf_writer *w = cal_gguf_writer_new();
    cal_gguf_add_str(w, "general.type", "imatrix");
    const char *ds[] = {"a.cal", "b"};
    cal_gguf_add_str_array(w, "imatrix.datasets", ds, 2);
    cal_gguf_add_u32(w, "imatrix.chunk_count", 5);
    int64_t ne[2] = {3, 1}, ne1[2] = {1, 1};
    cal_gguf_add_tensor(w, "x.in_sum2", CAL_GGML_F32, 2, ne, v);
    cal_gguf_add_tensor(w, "x.counts", CAL_GGML_F32, 2, ne1, c);
    cal_buf got = {0}, want = {0};
    cal_gguf_serialize(w, &got);
    cal_gguf_writer_free(w);
    head(&want, 3, 2, 3);
    str(&want, "general.type");
    u32(&want, 8);
    str(&want, "imatrix");
    str(&want, "imatrix.datasets");
    u32(&want, 9);
    u32(&want, 8);
    u64(&want, 2);
    str(&want, "a.cal");
    str(&want, "b");
    str(&want, "imatrix.chunk_count");
    u32(&want, 4);
    u32(&want, 5);
    uint64_t n3 = 3, n1 = 1;
    tinfo(&want, "x.in_sum2", 1, &n3, 0, 0);
    tinfo(&want, "x.counts", 1, &n1, 0, 32);
    pad32(&want);
    for (int i = 0; i < 3; i++) u32(&want, (uint32_t[]){0x3f800000, 0x40000000, 0x40400000}[i]);
    pad32(&want);
    u32(&want, 0x40e00000);
    pad32(&want);
    CHECK(got.n == want.n && !memcmp(got.p, want.p, got.n),
          "writer: ggml's bytes (1-D shapes, data padded after every tensor): %zu bytes, want %zu", got.n, want.n);

    char err[512] = "";
    cal_gguf_file *f = cal_gguf_open_mem(got.p, got.n, "w.gguf", err, sizeof err);
    CHECK(f != NULL, "round trip opens: %s", err);
    if (f) {
        const cal_gguf_kv *k = cal_gguf_find_kv(f, "imatrix.datasets");
        CHECK(cal_gguf_version(f) == 3 && cal_gguf_nkv(f) == 3 && cal_gguf_ntensors(f) == 2 &&
                  cal_gguf_alignment(f) == 32,
              "round trip: version, counts, alignment");
        CHECK(k && k->is_array && k->type == CAL_GGUF_STRING && k->n == 2 && k->str[0].n == 5 &&
                  !memcmp(k->str[0].p, "a.cal", 5) && k->str[1].n == 1,
              "round trip: string array");
        const cal_gguf_kv *cc = cal_gguf_find_kv(f, "imatrix.chunk_count");
        CHECK(cc && !cc->is_array && cc->type == CAL_GGUF_U32 && cal_ld32(cc->val) == 5, "round trip: u32 key");
        const cal_gguf_tensor *t = cal_gguf_find_tensor(f, "x.in_sum2"), *u = cal_gguf_find_tensor(f, "x.counts");
        CHECK(t && t->ndim == 1 && t->ne[0] == 3 && t->ne[1] == 1 && t->nbytes == 12 && t->pos % 32 == 0 &&
                  cal_ld32(t->data + 8) == 0x40400000,
              "round trip: tensor shape, position, data");
        CHECK(u && u->offset == 32 && u->pos == t->pos + 32 && cal_ld32(u->data) == 0x40e00000,
              "round trip: second tensor at the padded offset");
        CHECK(!cal_gguf_find_tensor(f, "x") && !cal_gguf_find_kv(f, "nope"), "round trip: absent names");
        cal_gguf_close(f);
    }
    /* every proper prefix is rejected: the padding after the last tensor
     * belongs to the file too */
    int all = 1;
    for (size_t n = 0; n < got.n && all; n++) {
        cal_gguf_file *p = cal_gguf_open_mem(got.p, n, "t", err, sizeof err);
        if (p) all = 0;
        cal_gguf_close(p);
    }
    CHECK(all, "every truncation is rejected (%zu prefixes)", got.n);
    cal_buf_free(&got);
    cal_buf_free(&want);
}

static void rejections(void) {
    cal_buf b = {0};
    one_tensor(&b, 3);
    char err[512] = "";
    cal_gguf_file *f = cal_gguf_open_mem(b.p, b.n, "t.gguf", err, sizeof err);
    CHECK(f != NULL, "hand-made file opens: %s", err);
    cal_gguf_close(f);

    one_tensor(&b, 3);
    b.n -= 4; /* the old calkit writer: the data ends right after the last tensor */
    expect_error("data section not padded after the last tensor", &b, "byte 96: the data section needs 32 bytes");
    one_tensor(&b, 3);
    b.p[0] = 'g';
    expect_error("magic", &b, "byte 0: not a GGUF file");
    const uint32_t versions[] = {0, 1, 4, 0x03000000};
    for (int i = 0; i < 4; i++) {
        one_tensor(&b, 3);
        cal_st32(b.p + 4, versions[i]);
        expect_error("versions 0, 1, 4 and big-endian 3", &b, "is not supported");
    }
    head(&b, 3, 1u << 20, 0);
    expect_error("tensor count beyond the file", &b, "byte 8: tensor count 1048576 does not fit");
    head(&b, 3, 0, (uint64_t)1 << 63);
    expect_error("negative key count", &b, "byte 16: key count");

    head(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, 13);
    u32(&b, 0);
    expect_error("unknown key type", &b, "key 'k' has invalid type 13");
    head(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, CAL_GGUF_ARRAY);
    u32(&b, CAL_GGUF_ARRAY);
    u64(&b, 0);
    expect_error("array of arrays", &b, "invalid type 9");
    head(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, CAL_GGUF_ARRAY);
    u32(&b, CAL_GGUF_U8);
    u64(&b, (1u << 30) + 1);
    expect_error("array over 2^30 values", &b, "over ggml's limit");
    head(&b, 3, 0, 1);
    str(&b, "k");
    u32(&b, CAL_GGUF_BOOL);
    cal_buf_addc(&b, 2);
    expect_error("bool that is not 0 or 1", &b, "boolean value 2");
    head(&b, 3, 0, 1);
    u64(&b, 0);
    u32(&b, CAL_GGUF_U8);
    cal_buf_addc(&b, 2);
    expect_error("empty key", &b, "byte 24: empty key");
    head(&b, 3, 0, 1);
    u64(&b, (1ull << 30) + 1);
    u64(&b, 0);
    expect_error("key over 2^30 bytes", &b, "byte 24: key: length 1073741825 is over");
    head(&b, 3, 0, 1);
    u64(&b, 5);
    cal_buf_add(&b, "a\0bcd", 5);
    u32(&b, CAL_GGUF_U8);
    cal_buf_addc(&b, 0);
    expect_error("key with a NUL byte", &b, "key holds a NUL byte");
    head(&b, 3, 0, 2);
    for (int i = 0; i < 2; i++) {
        str(&b, "k");
        u32(&b, CAL_GGUF_U8);
        cal_buf_addc(&b, 0);
    }
    expect_error("repeated key", &b, "byte 38: key 'k' appears twice");
    head(&b, 3, 0, 1);
    str(&b, "s");
    u32(&b, CAL_GGUF_STRING);
    u64(&b, 100);
    cal_buf_add(&b, "short", 5);
    expect_error("string past the end", &b, "100 bytes needed");
    head(&b, 3, 0, 1);
    str(&b, "general.alignment");
    u32(&b, CAL_GGUF_U64);
    u64(&b, 32);
    expect_error("alignment of type u64", &b, "general.alignment must be of type u32");
    head(&b, 3, 0, 1);
    str(&b, "general.alignment");
    u32(&b, CAL_GGUF_U32);
    u32(&b, 48);
    expect_error("alignment not a power of 2", &b, "general.alignment 48 is not a power of 2");

    uint64_t ne[5] = {4, 1, 1, 1, 1};
    const struct {
        const char *what, *name;
        uint32_t nd, type;
        uint64_t ne0, ne1, off;
        const char *want;
    } bad[] = {
        {"name of 64 bytes", "0123456789012345678901234567890123456789012345678901234567890123", 1, 0, 4, 1, 0,
         "tensor name of 64 bytes is too long"},
        {"5 dimensions", "t", 5, 0, 4, 1, 0, "has 5 dimensions"},
        {"negative dimension", "t", 2, 0, 4, (uint64_t)1 << 63, 0, "dimension 1 is negative"},
        {"element count overflow", "t", 2, 0, (uint64_t)1 << 62, 2, 0, "too many elements"},
        {"removed ggml type 4", "t", 1, 4, 4, 1, 0, "invalid ggml type 4"},
        {"ggml type 40", "t", 1, 40, 4, 1, 0, "invalid ggml type 40"},
        {"q4_0 row of 33", "t", 1, 2, 33, 1, 0, "not a multiple of 32"},
        {"size over SIZE_MAX", "t", 2, 28, (uint64_t)1 << 61, 3, 0, "is too large"},
        {"misaligned offset", "t", 1, 0, 4, 1, 16, "has offset 16, expected 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        head(&b, 3, 1, 0);
        ne[0] = bad[i].ne0;
        ne[1] = bad[i].ne1;
        tinfo(&b, bad[i].name, bad[i].nd, ne, bad[i].type, bad[i].off);
        pad32(&b);
        for (int k = 0; k < 64; k++) cal_buf_addc(&b, 0);
        expect_error(bad[i].what, &b, bad[i].want);
    }
    head(&b, 3, 2, 0);
    ne[0] = 8;
    tinfo(&b, "t", 1, ne, 0, 0);
    tinfo(&b, "t", 1, ne, 0, 32);
    pad32(&b);
    for (int k = 0; k < 64; k++) cal_buf_addc(&b, 0);
    expect_error("repeated tensor name", &b, "tensor 't' appears twice");
    head(&b, 3, 2, 0);
    tinfo(&b, "a", 1, ne, 0, 0);
    tinfo(&b, "b", 1, ne, 0, 64);
    pad32(&b);
    for (int k = 0; k < 128; k++) cal_buf_addc(&b, 0);
    expect_error("a gap between tensors", &b, "tensor 'b' has offset 64, expected 32");
    head(&b, 3, 1, 0);
    tinfo(&b, "a", 1, ne, 0, 0);
    expect_error("data section past the end", &b, "past the end of the file");

    /* what ggml accepts is accepted: a 4-D q4_0 tensor, an empty tensor, a
     * 64-byte alignment, trailing bytes after the data */
    head(&b, 3, 2, 1);
    str(&b, "general.alignment");
    u32(&b, CAL_GGUF_U32);
    u32(&b, 64);
    uint64_t q[4] = {64, 2, 1, 3}, z[1] = {0};
    tinfo(&b, "q", 4, q, 2, 0);
    tinfo(&b, "z", 1, z, 0, 256);
    while (b.n % 64) cal_buf_addc(&b, 0);
    for (int k = 0; k < 256 + 5; k++) cal_buf_addc(&b, (char)k);
    f = cal_gguf_open_mem(b.p, b.n, "t.gguf", err, sizeof err);
    const cal_gguf_tensor *t = f ? cal_gguf_find_tensor(f, "q") : NULL;
    CHECK(t && t->nbytes == 12 * 18 && cal_gguf_alignment(f) == 64 && !strcmp(cal_ggml_type_name(t->type), "q4_0"),
          "q4_0 [64,2,1,3] with alignment 64 and trailing bytes: %s", f ? "" : err);
    cal_gguf_close(f);
    cal_buf_free(&b);
}

int main(void) {
    writer_bytes();
    rejections();
    TEST_END();
}
