/* test_safetensors.c - the safetensors writer/reader (exact header bytes,
 * validation errors with offsets, close names, sharded checkpoints and their
 * name lists) and the .npy reader/writer. The file-level checks against
 * numpy live in tests/sh/test_cat.sh. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "test.h"

static char dir[] = "/tmp/test_st.XXXXXX";

static const char *p(const char *name) {
    static char buf[4][300];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void put(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
}

/* A file image: 8-byte length, JSON header as given, then data. */
static size_t image(uint8_t *out, const char *json, const void *data, size_t n) {
    size_t h = strlen(json);
    cal_st64(out, h);
    memcpy(out + 8, json, h);
    memcpy(out + 8 + h, data, n);
    return 8 + h + n;
}

static void expect_error(const char *what, const char *json, size_t datalen, const char *want) {
    uint8_t img[1024];
    uint8_t zeros[256] = {0};
    size_t n = image(img, json, zeros, datalen);
    char err[512] = "";
    cal_st_file *f = cal_st_open_mem(img, n, "t.st", err, sizeof err);
    CHECK(!f && strstr(err, want), "%s: %s", what, err);
    cal_st_close(f);
}

static void test_writer_reader(void) {
    int64_t ids[6] = {1, 2, 3, -1, 5, 6};
    float w[3] = {0.5f, -1.0f, 2.0f};
    uint64_t s2[2] = {2, 3}, s1[1] = {3};
    cal_st_writer *wr = cal_st_writer_new();
    cal_st_add_meta(wr, "format", "pt");
    cal_st_add_meta(wr, "note", "q\"uote");
    cal_st_add(wr, "input_ids", "I64", 2, s2, ids);
    cal_st_add(wr, "model.embed_tokens.weight", "F32", 1, s1, w);
    cal_buf hb = {0};
    cal_st_header(wr, &hb);
    const char *want = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"q\\\"uote\"},"
                       "\"input_ids\":{\"dtype\":\"I64\",\"shape\":[2,3],\"data_offsets\":[0,48]},"
                       "\"model.embed_tokens.weight\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[48,60]}}";
    size_t wl = strlen(want), padded = (wl + 7) / 8 * 8;
    int ok = hb.n == 8 + padded && cal_ld64(hb.p) == padded && !memcmp(hb.p + 8, want, wl);
    for (size_t i = 8 + wl; i < hb.n; i++) ok &= hb.p[i] == ' ';
    CHECK(ok, "header bytes: insertion order, compact JSON, space padding to 8");
    cal_buf_free(&hb);
    cal_st_write(wr, p("a.safetensors"));
    cal_st_writer_free(wr);

    cal_st_file *f = cal_st_open(p("a.safetensors"));
    const cal_st_tensor *t = cal_st_find(f, "input_ids");
    CHECK(t && !strcmp(t->dtype, "I64") && t->ndim == 2 && t->shape[1] == 3 && t->numel == 6 && t->size == 48 &&
              (int64_t)cal_ld64(t->data + 24) == -1 && t->offset == 8 + padded,
          "read back input_ids");
    t = cal_st_find(f, "model.embed_tokens.weight");
    float x;
    memcpy(&x, t->data + 8, 4);
    CHECK(t && t->ndim == 1 && x == 2.0f, "read back an F32 tensor");
    CHECK(cal_st_count(f) == 2 && cal_st_tensor_at(f, 0)->offset < cal_st_tensor_at(f, 1)->offset,
          "tensors listed in file order");
    CHECK(cal_st_meta_count(f) == 2 && !strcmp(cal_st_meta_get(f, "note"), "q\"uote") && !cal_st_meta_get(f, "x"),
          "metadata");
    CHECK(!strcmp(cal_st_hint(f, "embed_tokens.weight"), "; close names: 'model.embed_tokens.weight'"),
          "hint by substring");
    CHECK(!strcmp(cal_st_hint(f, "input_idx"), "; close names: 'input_ids'"), "hint by edit distance");
    CHECK(!strcmp(cal_st_hint(f, "lm_head.weight"), ""), "no hint for a far name");
    cal_st_close(f);
}

static void test_suggest(void) {
    const char *names[] = {"model.layers.1.mlp.weight", "b.embed_tokens.weight", "embed_tokens.weigh",
                           "model.embed_tokens.weight", "a.embed_tokens.weight", "x"};
    const char *out[6];
    size_t k = cal_st_suggest(names, 6, "embed_tokens.weight", out, 6);
    CHECK(k == 4 && !strcmp(out[0], "a.embed_tokens.weight") && !strcmp(out[1], "b.embed_tokens.weight") &&
              !strcmp(out[2], "model.embed_tokens.weight") && !strcmp(out[3], "embed_tokens.weigh"),
          "suggest: containing names shortest first (ties by name), then near ones");
    CHECK(cal_st_suggest(names, 6, "embed_tokens.weight", out, 2) == 2 && !strcmp(out[1], "b.embed_tokens.weight"),
          "suggest: at most k");
    CHECK(cal_st_suggest(names, 6, "lm_head.weight", out, 6) == 0, "suggest: nothing close");
    /* Four names near "l3.w", in scrambled order: the three nearest, sorted. */
    uint8_t img[512];
    const char *z = "{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}";
    char json[400];
    snprintf(json, sizeof json, "{\"l2.w\":%s,\"l10.w\":%s,\"l0.w\":%s,\"l1.w\":%s}", z, z, z, z);
    char err[256];
    cal_st_file *f = cal_st_open_mem(img, image(img, json, "", 0), "t.st", err, sizeof err);
    CHECK(f && !strcmp(cal_st_hint(f, "l3.w"), "; close names: 'l0.w', 'l1.w', 'l2.w'"), "hint lists three close names: %s",
          f ? cal_st_hint(f, "l3.w") : err);
    cal_st_close(f);
}

static void test_errors(void) {
    expect_error("unknown dtype", "{\"a\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
                 "t.st: byte 8: tensor 'a': unknown dtype 'Q4'");
    expect_error("shape and offsets disagree", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4,
                 "byte 8: tensor 'a': F32 shape needs 8 bytes, data_offsets give 4");
    expect_error("data past the end", "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]}}", 8,
                 "byte 66: tensor 'a': data [4, 12) runs past the end of the file (8 data bytes)");
    expect_error("overlapping tensors",
                 "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                 "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 8,
                 "tensors 'a' and 'b' overlap");
    expect_error("bad JSON", "{\"a\":{\"dtype\" \"U8\"}}", 0, "t.st: byte 26: bad JSON header");
    expect_error("duplicate names", "{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},"
                 "\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0, "bad JSON header: duplicate");
    expect_error("metadata not strings", "{\"__metadata__\":{\"k\":1}}", 0, "__metadata__ value of 'k' is not a string");
    expect_error("negative offsets", "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[-1,0]}}", 0,
                 "data_offsets is not [BEGIN, END]");
    expect_error("not an object", "[1, 2]", 0, "byte 8: header is not a JSON object");
    uint8_t img[16];
    cal_st64(img, 1000);
    char err[256];
    cal_st_file *f = cal_st_open_mem(img, 16, "t.st", err, sizeof err);
    CHECK(!f && strstr(err, "t.st: byte 0: header length 1000 runs past the end of the file (16 bytes)"),
          "header length past the end: %s", err);
    f = cal_st_open_mem(img, 3, "t.st", err, sizeof err);
    CHECK(!f && strstr(err, "t.st: byte 0: not a safetensors file (3 bytes)"), "a 3-byte file: %s", err);
    f = cal_st_open_soft(p("missing"), err, sizeof err);
    CHECK(!f && strstr(err, "missing: No such file"), "a missing file: %s", err);
    uint8_t ok_img[256];
    size_t n = image(ok_img, "{\"s\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[0,2]}}  ", "\1\2", 2);
    f = cal_st_open_mem(ok_img, n, "t.st", err, sizeof err);
    CHECK(f && cal_st_find(f, "s")->ndim == 0 && cal_st_find(f, "s")->numel == 1, "a scalar tensor");
    cal_st_close(f);
}

static void test_sharded(void) {
    uint64_t s1[1] = {2};
    int32_t a[2] = {1, 2}, b[2] = {3, 4};
    cal_st_writer *w = cal_st_writer_new();
    cal_st_add(w, "model.embed_tokens.weight", "I32", 1, s1, a);
    cal_st_write(w, p("model-00001-of-00002.safetensors"));
    cal_st_writer_free(w);
    w = cal_st_writer_new();
    cal_st_add(w, "lm_head.weight", "I32", 1, s1, b);
    cal_st_write(w, p("model-00002-of-00002.safetensors"));
    cal_st_writer_free(w);
    const char *idx = "{\"metadata\":{\"total_size\":16},\"weight_map\":{"
                      "\"model.embed_tokens.weight\":\"model-00001-of-00002.safetensors\","
                      "\"lm_head.weight\":\"model-00002-of-00002.safetensors\"}}";
    put(p("model.safetensors.index.json"), idx, strlen(idx));
    cal_st_model *m = cal_st_model_open(dir);
    const char *file = NULL;
    const cal_st_tensor *t = cal_st_model_find(m, "lm_head.weight", &file);
    CHECK(t && cal_ld32(t->data + 4) == 4 && file && strstr(file, "model-00002-of-00002"),
          "a folder with an index resolves a tensor to its shard");
    t = cal_st_model_find(m, "model.embed_tokens.weight", &file);
    CHECK(t && cal_ld32(t->data) == 1 && strstr(file, "00001"), "the other shard");
    CHECK(!cal_st_model_find(m, "nope", NULL), "an unknown name is NULL");
    CHECK(cal_st_model_count(m) == 2 && !strcmp(cal_st_model_name_at(m, 0), "model.embed_tokens.weight") &&
              !strcmp(cal_st_model_name_at(m, 1), "lm_head.weight") && !cal_st_model_name_at(m, 2),
          "an index lists its names in index order");
    cal_st_model_close(m);
    m = cal_st_model_open(p("model-00002-of-00002.safetensors"));
    CHECK(cal_st_model_find(m, "lm_head.weight", NULL) != NULL, "a single file as a model");
    CHECK(cal_st_model_count(m) == 1 && !strcmp(cal_st_model_name_at(m, 0), "lm_head.weight") &&
              !cal_st_model_name_at(m, 1),
          "a single file lists its tensors");
    cal_st_model_close(m);
    /* Listing reads only the index: its shards need not exist. */
    const char *lazy = "{\"weight_map\":{\"b.w\":\"gone-1.safetensors\",\"a.w\":\"gone-2.safetensors\"}}";
    put(p("lazy.index.json"), lazy, strlen(lazy));
    m = cal_st_model_open(p("lazy.index.json"));
    CHECK(cal_st_model_count(m) == 2 && !strcmp(cal_st_model_name_at(m, 0), "b.w") &&
              !strcmp(cal_st_model_name_at(m, 1), "a.w"),
          "an index lists its names without opening a shard");
    cal_st_model_close(m);
    /* A folder holding one model.safetensors: listed before any lookup. */
    mkdir(p("one"), 0700);
    w = cal_st_writer_new();
    cal_st_add(w, "x.embed_tokens.weight", "I32", 1, s1, a);
    cal_st_write(w, p("one/model.safetensors"));
    cal_st_writer_free(w);
    m = cal_st_model_open(p("one"));
    CHECK(cal_st_model_count(m) == 1 && !strcmp(cal_st_model_name_at(m, 0), "x.embed_tokens.weight"),
          "a folder with one file lists its tensors before any lookup");
    cal_st_model_close(m);
    unlink(p("one/model.safetensors"));
    rmdir(p("one"));
    const char *empty = "{\"weight_map\":{}}";
    put(p("empty.index.json"), empty, strlen(empty));
    m = cal_st_model_open(p("empty.index.json"));
    CHECK(cal_st_model_count(m) == 0 && !cal_st_model_find(m, "a", NULL), "an index with an empty weight_map");
    cal_st_model_close(m);
}

static void test_npy(void) {
    cal_buf h = {0};
    uint64_t shape[2] = {3, 4};
    cal_npy_header_i64(&h, 2, shape);
    const char *dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }";
    CHECK(h.n == 128 && !memcmp(h.p, "\x93NUMPY\x01\x00\x76\x00", 10) && !memcmp(h.p + 10, dict, strlen(dict)) &&
              h.p[127] == '\n' && h.p[126] == ' ',
          "npy v1.0 header padded to 64 bytes");
    uint8_t img[256];
    memcpy(img, h.p, h.n);
    for (int i = 0; i < 12; i++) cal_st64(img + 128 + 8 * i, (uint64_t)(int64_t)(i - 1));
    cal_npy a;
    char err[256];
    CHECK(cal_npy_parse(&a, img, 128 + 96, "a.npy", err, sizeof err) && a.ndim == 2 && a.shape[0] == 3 &&
              a.shape[1] == 4 && cal_npy_at(&a, 0) == -1 && cal_npy_at(&a, 11) == 10,
          "parse our own int64 file");
    CHECK(!cal_npy_parse(&a, img, 128 + 95, "a.npy", err, sizeof err) &&
              strstr(err, "a.npy: byte 128: shape (3, 4) needs 96-byte data, the file has 95"),
          "short data: %s", err);
    uint64_t one[1] = {5};
    cal_npy_header_i64(&h, 1, one);
    const char *dict1 = "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }";
    CHECK(h.n == 128 && !memcmp(h.p + 10, dict1, strlen(dict1)), "1-D shape is written as (5,)");
    CHECK(!cal_npy_parse(&a, "\x93NUMPY\x04\x00", 10, "b.npy", err, sizeof err) &&
              strstr(err, "b.npy: byte 6: unsupported .npy version 4.0"),
          "unknown version: %s", err);
    cal_buf_free(&h);
}

int main(void) {
    cal_set_progname("test_safetensors");
    if (!mkdtemp(dir)) return 2;
    test_writer_reader();
    test_suggest();
    test_errors();
    test_sharded();
    test_npy();
    const char *names[] = {"a.safetensors", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
                           "model.safetensors.index.json", "lazy.index.json", "empty.index.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(p(names[i]));
    rmdir(dir);
    TEST_END();
}
