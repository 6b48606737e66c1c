/* test_stream.c - cal-stream writer/reader round trips, the byte layout of
 * cal-stream(5) rebuilt by hand with libxxhash, metadata merging,
 * concatenated streams, and the RNG against reference values computed by an
 * independent Python implementation of xoshiro256** / SplitMix64 / Lemire. */
#include <stdlib.h>
#include <unistd.h>

#include <xxhash.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/rng.h"
#include "stream/stream.h"
#include "test.h"

static char tmpdir[] = "/tmp/test_stream.XXXXXX";

static char *path_of(const char *name) {
    static char buf[4][256];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = malloc(1 << 20);
    *n = fread(p, 1, 1 << 20, f);
    fclose(f);
    return p;
}

static void set_meta(cal_meta *m, const char *fp) {
    cal_meta_set(m, "tokenizer", "tok.json");
    cal_meta_set(m, "tokenizer_fp", fp);
    cal_meta_set(m, "vocab", "32000");
    cal_meta_add(m, "stage", "test-writer --seed 0");
    cal_meta_add(m, "note", "line one\nline two \\ backslash");
}

static const uint32_t tok[] = {1, 2, 3, 4000000000u, 0};
static const uint32_t rowids[] = {7, 8, 9, 10};
static const uint8_t rowmask[] = {1, 1, 0, 0};
static const float f32v[] = {1.5f, -2.0f, 0.25f, 3.0f, 4.0f, 5.0f};
static const uint16_t f16v[] = {0x3c00, 0xc000}; /* 1.0, -2.0 */
static const uint16_t bf16v[] = {0x3f80, 0x4040}; /* 1.0, 3.0 */
static const char text[] = "Hello, w\xc3\xb6rld\nsecond line";

/* Writes one record of every kind to PATH. */
static void write_all(const char *path, const char *fp) {
    cal_writer *w = cal_writer_open(path);
    set_meta(cal_writer_meta(w), fp);
    cal_write_text(w, "wiki", 11, text, strlen(text));
    cal_write_tokens(w, "code", 12, tok, 5);
    cal_write_tokens(w, "", 13, tok, 0);
    cal_write_row(w, "wiki", 14, rowids, NULL, 4, 0);
    cal_write_row(w, "wiki", 15, rowids, rowmask, 4, 0);
    cal_write_row(w, "noise", 16, (const uint32_t[]){0, 0}, NULL, 2, CAL_ROW_NOISE);
    cal_write_vectors(w, "layer.0", 17, 2, 3, CAL_F32, f32v);
    cal_write_vectors(w, "layer.1", 18, 1, 2, CAL_F16, f16v);
    cal_write_vectors(w, "layer.2", 19, 2, 1, CAL_BF16, bf16v);
    cal_writer_close(w);
}

static int label_is(const cal_rec *r, const char *s) {
    return r->label_len == strlen(s) && memcmp(r->label, s, r->label_len) == 0;
}

/* Reads the records of write_all() and checks every field. */
static void check_all(cal_reader *r, const char *how) {
    cal_rec rec;
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_TEXT && rec.id == 11 && label_is(&rec, "wiki") &&
              rec.payload_len == strlen(text) && !memcmp(rec.payload, text, rec.payload_len),
          "%s: TEXT record", how);
    /* (A memory reader reads its first header lazily, so look after a read.) */
    const cal_meta *m = cal_reader_meta(r);
    CHECK(cal_meta_get(m, "tokenizer") && !strcmp(cal_meta_get(m, "tokenizer"), "tok.json"), "%s: metadata tokenizer", how);
    CHECK(cal_meta_get_int(m, "vocab") == 32000, "%s: metadata vocab", how);
    CHECK(cal_meta_get(m, "note") && !strcmp(cal_meta_get(m, "note"), "line one\nline two \\ backslash"),
          "%s: metadata value with newline and backslash", how);
    cal_ids ids = {0};
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_TOKENS && rec.id == 12 && label_is(&rec, "code") &&
              cal_tokens_len(&rec) == 5 && cal_token(&rec, 3) == 4000000000u,
          "%s: TOKENS record", how);
    cal_rec_ids(&rec, &ids);
    CHECK(ids.n == 5 && !memcmp(ids.v, tok, sizeof tok), "%s: cal_rec_ids of TOKENS", how);
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_TOKENS && rec.id == 13 && rec.label_len == 0 &&
              cal_tokens_len(&rec) == 0,
          "%s: empty TOKENS record with empty label", how);
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_ROW && rec.id == 14, "%s: ROW record", how);
    cal_row_view v = cal_row(&rec);
    CHECK(v.len == 4 && v.flags == 0 && !v.mask && cal_ld32(v.ids + 12) == 10, "%s: ROW view", how);
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_ROW && rec.id == 15, "%s: masked ROW record", how);
    v = cal_row(&rec);
    CHECK(v.len == 4 && v.flags == CAL_ROW_MASK && v.mask && !memcmp(v.mask, rowmask, 4), "%s: ROW mask", how);
    cal_rec_ids(&rec, &ids);
    CHECK(ids.n == 4 && !memcmp(ids.v, rowids, sizeof rowids), "%s: cal_rec_ids of ROW", how);
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_ROW && label_is(&rec, "noise") &&
              cal_row(&rec).flags == CAL_ROW_NOISE && cal_row(&rec).len == 2,
          "%s: noise ROW", how);
    CHECK(cal_read(r, &rec) == 1 && rec.kind == CAL_VECTORS, "%s: VECTORS f32", how);
    cal_vec_view vv = cal_vectors(&rec);
    float f;
    uint32_t u = cal_ld32(vv.data + 8);
    memcpy(&f, &u, 4);
    CHECK(vv.n == 2 && vv.d == 3 && vv.dtype == CAL_F32 && f == 0.25f, "%s: VECTORS f32 view", how);
    CHECK(cal_read(r, &rec) == 1 && (vv = cal_vectors(&rec)).dtype == CAL_F16 &&
              cal_f16_to_f32((uint16_t)cal_ld32(vv.data)) == 1.0f &&
              cal_f16_to_f32((uint16_t)(vv.data[2] | vv.data[3] << 8)) == -2.0f,
          "%s: VECTORS f16 values", how);
    CHECK(cal_read(r, &rec) == 1 && (vv = cal_vectors(&rec)).dtype == CAL_BF16 && vv.n == 2 && vv.d == 1 &&
              cal_bf16_to_f32((uint16_t)(vv.data[2] | vv.data[3] << 8)) == 3.0f,
          "%s: VECTORS bf16 values", how);
    CHECK(cal_read(r, &rec) == 0, "%s: clean end", how);
    CHECK(cal_reader_headers(r) == 1, "%s: one header", how);
    cal_ids_free(&ids);
}

/* The encoded bytes of a record, built from the man page alone. */
static size_t hand_record(uint8_t *o, int kind, const char *label, uint64_t id, const void *p, size_t n) {
    size_t l = strlen(label);
    o[0] = (uint8_t)kind;
    o[1] = 0;
    o[2] = (uint8_t)l;
    o[3] = 0;
    cal_st32(o + 4, (uint32_t)n);
    cal_st64(o + 8, id);
    memcpy(o + 16, label, l);
    memcpy(o + 16 + l, p, n);
    cal_st64(o + 16 + l + n, XXH3_64bits(o, 16 + l + n));
    return 16 + l + n + 8;
}

static size_t hand_header(uint8_t *o, const char *meta) {
    size_t n = strlen(meta);
    memcpy(o, "\x89" "CAL\r\n\x1a\n", 8);
    o[8] = 1, o[9] = 0, o[10] = 0, o[11] = 0;
    cal_st32(o + 12, (uint32_t)n);
    memcpy(o + 16, meta, n);
    cal_st64(o + 16 + n, XXH3_64bits(o, 16 + n));
    return 16 + n + 8;
}

static void test_layout(void) {
    uint8_t want[512];
    size_t n = hand_header(want, "tokenizer_fp=00000000000000aa\nstage=x\n"), first = n;
    uint8_t tk[8];
    cal_st32(tk, 5), cal_st32(tk + 4, 70000);
    n += hand_record(want + n, CAL_TOKENS, "web", 0x0102030405060708ull, tk, 8);
    uint8_t row[8 + 8 + 2] = {0};
    cal_st32(row, 2), cal_st32(row + 4, CAL_ROW_MASK), cal_st32(row + 8, 1), cal_st32(row + 12, 2);
    row[16] = 1;
    n += hand_record(want + n, CAL_ROW, "r", 9, row, sizeof row);
    uint8_t count[8];
    cal_st64(count, 2);
    n += hand_record(want + n, CAL_END, "", 0, count, 8);

    cal_writer *w = cal_writer_open(path_of("layout.cal"));
    cal_meta_add(cal_writer_meta(w), "tokenizer_fp", "00000000000000aa");
    cal_meta_add(cal_writer_meta(w), "stage", "x");
    cal_write_tokens(w, "web", 0x0102030405060708ull, (const uint32_t[]){5, 70000}, 2);
    cal_write_row(w, "r", 9, (const uint32_t[]){1, 2}, (const uint8_t[]){1, 0}, 2, 0);
    cal_writer_close(w);
    size_t got_n;
    uint8_t *got = slurp(path_of("layout.cal"), &got_n);
    CHECK(got && got_n == n && !memcmp(got, want, n), "writer bytes equal the hand-built cal-stream(5) layout");
    /* And the reader accepts the hand-built bytes. */
    cal_reader *r = cal_reader_mem(want, n, "hand");
    cal_rec rec;
    char err[512];
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.kind == CAL_TOKENS && rec.offset == first &&
              rec.id == 0x0102030405060708ull,
          "reader decodes hand-built TOKENS after the %zu-byte header", first);
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.kind == CAL_ROW && cal_row(&rec).mask[1] == 0,
          "reader decodes hand-built ROW with mask");
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 0, "hand-built stream ends cleanly");
    cal_reader_close(r);
    /* Without its END record the same bytes are a truncated stream. */
    r = cal_reader_mem(want, n - 32, "hand");
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && cal_read_soft(r, &rec, err, sizeof err) == 1 &&
              cal_read_soft(r, &rec, err, sizeof err) == -1 && strstr(err, "no end record after 2 records"),
          "a stream cut between records is an error: %s", err);
    cal_reader_close(r);
    free(got);
}

/* Records encoded apart (cal_encode_tokens, as the workers of cal-encode do)
 * and written in pieces (cal_write_encoded) give the bytes that
 * cal_write_tokens gives record by record: the header, a new header when the
 * metadata changes between pieces, the END counts; pieces of any size (those
 * over 128 KB skip the writer's buffer). */
static void test_encoded(void) {
    enum { NREC = 300 };
    static uint32_t ids[40000 + NREC]; /* record r: ids + r, len[r] of them */
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) ids[i] = (uint32_t)(i * 2654435761u);
    const char *labels[] = {"wiki", "", "caf\xc3\xa9"};
    size_t len[NREC];
    for (size_t r = 0; r < NREC; r++) len[r] = r == 7 ? 40000 : r == 8 ? 0 : (r * 97) % 700; /* one of 160 KB */
    cal_writer *w = cal_writer_open(path_of("tokens.cal"));
    for (size_t r = 0; r < NREC; r++) {
        if (r == 0 || r == 150) cal_meta_set(cal_writer_meta(w), "part", r ? "2" : "1");
        cal_write_tokens(w, labels[r % 3], 1000 + r, ids + r, len[r]);
    }
    cal_writer_close(w);

    w = cal_writer_open(path_of("encoded.cal"));
    cal_buf out = {0};
    char err[512];
    int ok = 1;
    size_t pieces[] = {0, 5, 8, 9, 100, 150, 151, 299, NREC}; /* piece k: records [pieces[k], pieces[k+1]) */
    for (size_t k = 0; k + 1 < sizeof pieces / sizeof *pieces; k++) {
        out.n = 0;
        for (size_t r = pieces[k]; r < pieces[k + 1]; r++)
            ok &= !cal_encode_tokens(&out, labels[r % 3], strlen(labels[r % 3]), 1000 + r, ids + r, len[r], err,
                                     sizeof err);
        cal_meta_set(cal_writer_meta(w), "part", pieces[k] < 150 ? "1" : "2");
        cal_write_encoded(w, out.p, out.n, pieces[k + 1] - pieces[k]);
    }
    cal_writer_close(w);
    CHECK(ok, "cal_encode_tokens encodes every record");
    size_t na, nb;
    uint8_t *a = slurp(path_of("tokens.cal"), &na), *b = slurp(path_of("encoded.cal"), &nb);
    CHECK(a && b && na == nb && !memcmp(a, b, na), "records encoded apart and written in pieces = written one by one "
          "(%zu and %zu bytes)", na, nb);
    free(a);
    free(b);
    /* the reader checks the END counts and the checksums */
    cal_reader *r = cal_reader_open(path_of("encoded.cal"));
    cal_rec rec;
    size_t n = 0;
    while (cal_read(r, &rec)) n += rec.kind == CAL_TOKENS && rec.payload_len == 4 * len[n] && rec.id == 1000 + n;
    CHECK(n == NREC && cal_reader_headers(r) == 2, "read back: %zu records, %u headers", n, cal_reader_headers(r));
    cal_reader_close(r);

    out.n = 0;
    CHECK(cal_encode_tokens(&out, "a\nb", 3, 1, ids, 1, err, sizeof err) == -1 && out.n == 0 &&
              strstr(err, "control character"), "a label with a control character is refused: %s", err);
    cal_buf_free(&out);
}

/* Record flags: bit 0 (CAL_TEXT_CHAT) is valid on TEXT only, kept on write
 * and read; any other bit, or bit 0 on another kind, is an error. */
static void test_record_flags(void) {
    cal_writer *w = cal_writer_open(path_of("flags.cal"));
    cal_write_text_flags(w, "c", 7, "<|im_start|>", 12, CAL_TEXT_CHAT | 0x80);
    cal_write_text(w, "p", 8, "plain", 5);
    cal_write_rec_flags(w, CAL_TOKENS, CAL_TEXT_CHAT, "t", 1, 9, "\1\0\0\0", 4);
    cal_writer_close(w);
    size_t n;
    uint8_t *p = slurp(path_of("flags.cal"), &n);
    cal_reader *r = cal_reader_mem(p, n, "flags");
    cal_rec rec;
    char err[512];
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.flags == CAL_TEXT_CHAT && rec.raw[1] == 1,
          "a TEXT record written with CAL_TEXT_CHAT carries byte 1 = 1 (other bits dropped)");
    size_t first = (size_t)rec.offset;
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.flags == 0, "cal_write_text writes flags 0");
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.kind == CAL_TOKENS && rec.flags == 0,
          "the chat flag is dropped on other kinds");
    size_t tok = (size_t)rec.offset;
    cal_reader_close(r);
    uint8_t *q = malloc(n);
    memcpy(q, p, n);
    q[first + 1] = 5; /* the flags are checked before the checksum */
    r = cal_reader_mem(q, n, "bad");
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == -1 && strstr(err, "unknown record flags 0x05"),
          "TEXT flags other than bits 0 (CHAT) and 1 (SPANS) are an error: %s", err);
    cal_reader_close(r);
    memcpy(q, p, n);
    q[tok + 1] = 1;
    r = cal_reader_mem(q, n, "bad");
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && cal_read_soft(r, &rec, err, sizeof err) == 1 &&
              cal_read_soft(r, &rec, err, sizeof err) == -1 && strstr(err, "unknown record flags 0x01"),
          "bit 0 on a TOKENS record is an error: %s", err);
    cal_reader_close(r);
    free(q);
    free(p);
}

static void test_files_and_memory(void) {
    write_all(path_of("all.cal"), "1111111111111111");
    cal_reader *r = cal_reader_open(path_of("all.cal"));
    check_all(r, "file");
    cal_reader_close(r);
    size_t n;
    uint8_t *p = slurp(path_of("all.cal"), &n);
    r = cal_reader_mem(p, n, "mem");
    cal_rec rec;
    char err[512];
    CHECK(cal_read_soft(r, &rec, err, sizeof err) == 1 && rec.raw == p + rec.offset && rec.raw_len > 24,
          "memory reader: raw bytes point into the input");
    cal_reader_close(r);
    r = cal_reader_mem(p, n, "mem");
    check_all(r, "memory");
    cal_reader_close(r);

    /* cal_write_raw of every record reproduces the file byte for byte. */
    r = cal_reader_open(path_of("all.cal"));
    cal_writer *w = cal_writer_open(path_of("copy.cal"));
    cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
    while (cal_read(r, &rec)) cal_write_raw(w, &rec);
    cal_writer_close(w);
    cal_reader_close(r);
    size_t n2;
    uint8_t *q = slurp(path_of("copy.cal"), &n2);
    CHECK(q && n == n2 && !memcmp(p, q, n), "pass-through with cal_write_raw is byte-identical");
    free(q);

    /* An empty stream: just a header. */
    w = cal_writer_open(path_of("empty.cal"));
    cal_meta_add(cal_writer_meta(w), "stage", "empty");
    cal_writer_close(w);
    r = cal_reader_open(path_of("empty.cal"));
    CHECK(cal_read(r, &rec) == 0 && cal_reader_headers(r) == 1 &&
              !strcmp(cal_meta_get(cal_reader_meta(r), "stage"), "empty"),
          "a header-only stream has metadata and no records");
    cal_reader_close(r);

    /* Concatenated streams: headers merge, records continue. */
    write_all(path_of("b.cal"), "1111111111111111");
    size_t nb;
    uint8_t *b = slurp(path_of("b.cal"), &nb);
    uint8_t *cat = malloc(2 * n);
    memcpy(cat, p, n);
    memcpy(cat + n, b, nb);
    r = cal_reader_mem(cat, n + nb, "cat");
    size_t recs = 0;
    uint64_t last_off = 0;
    while (cal_read_soft(r, &rec, err, sizeof err) == 1) recs++, last_off = rec.offset;
    CHECK(recs == 18 && cal_reader_headers(r) == 2 && last_off > n, "concatenated streams: 18 records, 2 headers");
    cal_reader_close(r);

    /* A second header with another tokenizer fingerprint is an error naming both. */
    write_all(path_of("c.cal"), "2222222222222222");
    free(b);
    b = slurp(path_of("c.cal"), &nb);
    memcpy(cat + n, b, nb);
    r = cal_reader_mem(cat, n + nb, "cat");
    int rc;
    recs = 0;
    while ((rc = cal_read_soft(r, &rec, err, sizeof err)) == 1) recs++;
    char want[128];
    snprintf(want, sizeof want, "cat: byte %zu: ", n);
    CHECK(rc == -1 && recs == 9 && strstr(err, want) && strstr(err, "tokenizer_fp") &&
              strstr(err, "1111111111111111") && strstr(err, "2222222222222222"),
          "tokenizer_fp mismatch at byte %zu names both values: %s", n, err);
    cal_reader_close(r);
    free(b);
    free(cat);
    free(p);
}

static void test_meta_rules(void) {
    cal_meta a = {0}, b = {0};
    char err[256];
    cal_meta_add(&a, "tokenizer_fp", "aaaa");
    cal_meta_add(&a, "stage", "cal-encode");
    cal_meta_add(&a, "seed", "1");
    cal_meta_add(&b, "tokenizer_fp", "aaaa");
    cal_meta_add(&b, "stage", "cal-encode");
    cal_meta_add(&b, "stage", "cal-pack");
    cal_meta_add(&b, "seed", "2");
    cal_meta_add(&b, "extra", "x");
    CHECK(cal_meta_merge(&a, &b, err, sizeof err) == 1, "merge of agreeing metadata succeeds");
    size_t stages = 0;
    for (size_t i = 0; i < a.n; i++) stages += !strcmp(a.key[i], "stage");
    CHECK(stages == 2, "merge appends only new stage lines (got %zu)", stages);
    CHECK(!strcmp(cal_meta_get(&a, "seed"), "1"), "merge keeps the first value of a free key");
    CHECK(cal_meta_get(&a, "extra") && !strcmp(cal_meta_get(&a, "extra"), "x"), "merge adds missing keys");
    const char *agree[] = {"tokenizer_fp", "vocab", "bos", "eos", "pad"};
    for (int i = 0; i < 5; i++) {
        cal_meta x = {0}, y = {0};
        cal_meta_add(&x, agree[i], "1");
        cal_meta_add(&y, agree[i], "2");
        CHECK(cal_meta_merge(&x, &y, err, sizeof err) == 0 && strstr(err, agree[i]), "%s must agree: %s",
              agree[i], err);
        cal_meta_free(&x);
        cal_meta_free(&y);
    }
    cal_meta_set(&a, "seed", "9");
    cal_meta_del(&a, "extra");
    CHECK(!strcmp(cal_meta_get(&a, "seed"), "9") && !cal_meta_get(&a, "extra") && cal_meta_get_int(&a, "nokey") == -1,
          "set, del and get_int of an absent key");
    cal_meta c = {0};
    cal_meta_copy(&c, &a);
    CHECK(cal_meta_equal(&c, &a), "copy is equal");
    cal_meta_free(&a);
    cal_meta_free(&b);
    cal_meta_free(&c);
}

/* The stage line leaves out the output name in every form, but not after "--". */
static void test_stage_line(void) {
    char *argv[] = {"x", "-l", "8", "-o", "out.cal", "--output=o2", "-oo3", "--output", "o4", "in.cal", "--", "-o", NULL};
    cal_meta m = {0};
    cal_meta_add_stage(&m, 12, argv, "--seed 0");
    const char *got = cal_meta_get(&m, "stage");
    char want[64];
    snprintf(want, sizeof want, "%s -l 8 in.cal -- -o --seed 0", cal_progname());
    CHECK(got && !strcmp(got, want), "stage line without -o/--output forms: %s", got ? got : "(none)");
    cal_meta_free(&m);
}

static void test_rng(void) {
    cal_rng r;
    cal_rng_init(&r, 0);
    const uint64_t want0[] = {0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull,
                              0x6aa594f1262d2d2cull};
    int ok = 1;
    for (int i = 0; i < 4; i++) ok &= cal_rng_next(&r) == want0[i];
    CHECK(ok, "xoshiro256** seed 0 first outputs");
    cal_rng_init(&r, 42);
    const uint64_t want42[] = {0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull, 0xae17533239e499a1ull};
    ok = 1;
    for (int i = 0; i < 3; i++) ok &= cal_rng_next(&r) == want42[i];
    CHECK(ok, "xoshiro256** seed 42 first outputs");
    cal_rng_init(&r, 1);
    const uint64_t below10[] = {7, 5, 5, 3, 6, 1, 0, 3, 8, 5, 9, 9};
    ok = 1;
    for (int i = 0; i < 12; i++) ok &= cal_rng_below(&r, 10) == below10[i];
    CHECK(ok, "Lemire bounded draws below 10, seed 1");
    cal_rng_init(&r, 7);
    const uint64_t big[] = {2101729446, 836253688, 2518882385, 2943293175};
    ok = 1;
    for (int i = 0; i < 4; i++) ok &= cal_rng_below(&r, 3000000000ull) == big[i];
    CHECK(ok, "Lemire bounded draws below 3e9, seed 7");
    cal_rng_init(&r, 5);
    double d0 = cal_rng_double(&r), d1 = cal_rng_double(&r);
    CHECK(d0 == 0.2884112281702357 && d1 == 0.6020823331320106, "doubles, seed 5");
    cal_rng_init2(&r, 3, "shuffle");
    CHECK(cal_rng_next(&r) == 0x5359f37fe804d7e1ull && cal_rng_next(&r) == 0xd85d92dae2e1bf35ull,
          "cal_rng_init2(3, \"shuffle\") = seed ^ XXH3(\"shuffle\")");
    CHECK(cal_hash("", 0) == 0x2d06800538d394c2ull && cal_hash("abc", 3) == 0x78af5f94892f3950ull,
          "cal_hash is XXH3-64 with seed 0");
    cal_rng a, b;
    cal_rng_init(&a, 123);
    cal_rng_init(&b, 123);
    ok = 1;
    for (int i = 0; i < 1000; i++) ok &= cal_rng_next(&a) == cal_rng_next(&b);
    CHECK(ok, "same seed, same sequence");
    ok = 1;
    uint64_t hist[7] = {0};
    cal_rng_init(&a, 9);
    for (int i = 0; i < 70000; i++) {
        uint64_t x = cal_rng_below(&a, 7);
        if (x >= 7) ok = 0;
        else hist[x]++;
        double d = cal_rng_double(&a);
        if (!(d >= 0.0 && d < 1.0)) ok = 0;
        if (cal_rng_below(&a, 1) != 0) ok = 0;
    }
    CHECK(ok, "bounded draws stay in range, doubles in [0, 1)");
    ok = 1;
    for (int i = 0; i < 7; i++) ok &= hist[i] > 9500 && hist[i] < 10500;
    CHECK(ok, "draws below 7 are roughly uniform");
}

int main(void) {
    cal_set_progname("test_stream");
    if (!mkdtemp(tmpdir)) return 2;
    test_layout();
    test_record_flags();
    test_encoded();
    test_files_and_memory();
    test_meta_rules();
    test_stage_line();
    test_rng();
    const char *names[] = {"layout.cal", "all.cal", "copy.cal", "empty.cal", "b.cal", "c.cal", "flags.cal", "tokens.cal", "encoded.cal"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) unlink(path_of(names[i]));
    rmdir(tmpdir);
    TEST_END();
}
