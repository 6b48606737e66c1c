/* test_hostile_stream.c - the cal-stream reader and writer against hostile
 * bytes: sizes whose products wrap, lying lengths, truncation at every byte,
 * labels and metadata that are not UTF-8 text, and a writer that must refuse
 * what no reader would accept (naming it), never write it. Streams are built
 * by hand (hostile.h) from man/cal-stream.5. */
#include <stdio.h>

#include "base/utf8.h"
#include "hostile.h"
#include "stream/stream.h"

/* The reader's verdict on bytes: records read, and the error (if any). */
typedef struct {
    int rc;      /* last cal_read_soft result: 0 clean end, -1 error */
    size_t recs;
    char err[512];
} verdict;

static verdict read_all(const void *p, size_t n) {
    verdict v = {0, 0, ""};
    cal_reader *r = cal_reader_mem(p, n, "x.cal");
    cal_rec rec;
    while ((v.rc = cal_read_soft(r, &rec, v.err, sizeof v.err)) == 1) v.recs++;
    cal_reader_close(r);
    return v;
}

/* One record of `kind` with payload p/n in a complete stream. */
static void one(cal_buf *b, int kind, const char *label, size_t llen, const void *p, size_t n) {
    b->n = 0;
    h_header(b, "stage=hostile\n");
    h_record(b, kind, label, llen, 7, p, n);
    h_end(b, 1);
}

static void vec_head(uint8_t *h, uint32_t rows, uint32_t d, int dtype) {
    memset(h, 0, 16);
    for (int i = 0; i < 4; i++) h[i] = (uint8_t)(rows >> (8 * i)), h[4 + i] = (uint8_t)(d >> (8 * i));
    h[8] = (uint8_t)dtype;
}

static void test_sizes(void) {
    cal_buf b = {0};
    uint8_t h[16];
    /* rows = d = 2^31, f32: 2^62 values of 4 bytes wrap to 0 bytes. Before,
     * this passed --check and cal-cat --json read past the payload. */
    vec_head(h, 1u << 31, 1u << 31, 1);
    one(&b, 4, "v", 1, h, 16);
    verdict v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && v.recs == 0 && strstr(v.err, "byte 55: VECTORS 2147483648 x 2147483648 f32 exceeds"),
          "VECTORS 2^31 x 2^31 f32 (bytes wrap to 0) is rejected: %s", v.err);
    static const struct { uint32_t rows, d; int dtype; } wrap[] = {
        {0xffffffffu, 0xffffffffu, 3}, {1u << 31, 1u << 30, 2}, {1u << 16, 1u << 16, 1}, {1, 1u << 28, 1}};
    for (size_t i = 0; i < sizeof wrap / sizeof *wrap; i++) {
        vec_head(h, wrap[i].rows, wrap[i].d, wrap[i].dtype);
        one(&b, 4, "v", 1, h, 16);
        v = read_all(b.p, b.n);
        CHECK(v.rc == -1 && strstr(v.err, "VECTORS") && strstr(v.err, "exceeds"), "VECTORS %u x %u dtype %d: %s",
              wrap[i].rows, wrap[i].d, wrap[i].dtype, v.err);
    }
    /* the largest VECTORS that fits is read */
    vec_head(h, 0, 1u << 31, 1);
    one(&b, 4, "v", 1, h, 16);
    v = read_all(b.p, b.n);
    CHECK(v.rc == 0 && v.recs == 1, "VECTORS 0 x 2^31 (no values) is a valid record: %s", v.err);
    /* ROW: len 2^30 with a mask needs 5 * 2^30 + 8 bytes, not what 32 bits say */
    uint8_t row[8] = {0, 0, 0, 0x40, 2, 0, 0, 0};
    one(&b, 3, "r", 1, row, 8);
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "ROW of length 1073741824 needs 5368709128 payload bytes, has 8"),
          "ROW length 2^30 with mask: %s", v.err);
    /* lying record lengths */
    b.n = 0;
    h_header(&b, "");
    size_t rec0 = b.n;
    h_record(&b, 1, "x", 1, 1, "hi", 2);
    b.p[rec0 + 2] = 0, b.p[rec0 + 3] = 1; /* label length 256 */
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "byte 26: label length 256 exceeds 255"), "label length 256: %s", v.err);
    b.p[rec0 + 2] = 1, b.p[rec0 + 3] = 0;
    b.p[rec0 + 4] = 1, b.p[rec0 + 5] = 0, b.p[rec0 + 6] = 0, b.p[rec0 + 7] = 0x40; /* 2^30 + 1 */
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "byte 28: payload length 1073741825 exceeds"), "payload 2^30+1: %s", v.err);
    b.p[rec0 + 7] = 0x3f;
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "truncated TEXT record"), "payload length past the input: %s", v.err);
    cal_buf_free(&b);
}

/* Every proper prefix of a stream of every kind is an error, never fewer
 * records read as a clean end; every byte is under a checksum. */
static void test_truncation(void) {
    cal_buf b = {0};
    h_header(&b, "tokenizer_fp=00000000000000aa\nvocab=100\nstage=hostile\n");
    h_record(&b, 1, "wiki", 4, 1, "caf\xc3\xa9", 5);
    uint8_t tok[8] = {1, 0, 0, 0, 99, 0, 0, 0};
    h_record(&b, 2, "code", 4, 2, tok, 8);
    uint8_t row[14] = {2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 0, 0, 6, 0};
    uint8_t rowm[16];
    memcpy(rowm, row, 8);
    memset(rowm + 8, 0, 8);
    rowm[8] = 5, rowm[12] = 6;
    uint8_t rm[18];
    memcpy(rm, rowm, 16);
    rm[16] = 1, rm[17] = 0;
    h_record(&b, 3, "", 0, 3, rm, 18);
    uint8_t vec[16 + 8];
    vec_head(vec, 2, 2, 2);
    memset(vec + 16, 0x3c, 8);
    h_record(&b, 4, "l0", 2, 4, vec, 24);
    h_end(&b, 4);
    verdict whole = read_all(b.p, b.n);
    CHECK(whole.rc == 0 && whole.recs == 4, "the test stream reads (%s)", whole.err);
    size_t bad = 0, flips = 0;
    for (size_t n = 0; n < b.n; n++) {
        verdict v = read_all(b.p, n);
        if (v.rc != -1 || !strstr(v.err, "x.cal: byte ")) bad++;
    }
    CHECK(bad == 0, "each of %zu proper prefixes is an error with a byte offset (%zu are not)", b.n, bad);
    for (size_t i = 0; i < b.n; i++) {
        b.p[i] ^= 0x40;
        verdict v = read_all(b.p, b.n);
        b.p[i] ^= 0x40;
        if (v.rc != -1) flips++;
    }
    CHECK(flips == 0, "each of %zu one-byte changes is an error (%zu are not)", b.n, flips);
    cal_buf_free(&b);
}

static void test_text_fields(void) {
    cal_buf b = {0};
    one(&b, 1, "caf\xe9", 4, "x", 1);
    verdict v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "byte 57: label is not UTF-8"), "Latin-1 label rejected at its byte: %s", v.err);
    one(&b, 1, "a\nb", 3, "x", 1);
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "byte 55: label has a control character"), "control label: %s", v.err);
    one(&b, 1, "\xed\xa0\x80", 3, "x", 1); /* a UTF-16 surrogate */
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "label is not UTF-8"), "surrogate label: %s", v.err);
    one(&b, 1, "d\xc3\xa9j\xc3\xa0 vu \xf0\x9f\x99\x82", 14, "x", 1);
    v = read_all(b.p, b.n);
    CHECK(v.rc == 0 && v.recs == 1, "UTF-8 label with an emoji reads: %s", v.err);
    b.n = 0;
    h_header(&b, "stage=cal-read caf\xe9.txt\n");
    h_end(&b, 0);
    v = read_all(b.p, b.n);
    CHECK(v.rc == -1 && strstr(v.err, "byte 0: metadata value at header byte 34 is not UTF-8"),
          "Latin-1 metadata value rejected: %s", v.err);
    static const char *const nums[] = {"vocab=abc\n", "bos=-1\n", "eos=4294967296\n", "pad=\n", "vocab=1e3\n"};
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        b.n = 0;
        h_header(&b, nums[i]);
        h_end(&b, 0);
        v = read_all(b.p, b.n);
        CHECK(v.rc == -1 && strstr(v.err, "is not a decimal number below 2^32"), "metadata %.*s rejected when read: %s",
              (int)strlen(nums[i]) - 1, nums[i], v.err);
    }
    b.n = 0;
    h_header(&b, "vocab=4294967295\nbos=0\n");
    h_end(&b, 0);
    v = read_all(b.p, b.n);
    CHECK(v.rc == 0, "vocab=4294967295 bos=0 read: %s", v.err);
    cal_buf_free(&b);
}

/* ---- the writer refuses, naming the output, its offset and the label --- */

static void write_label(void *label) {
    cal_writer *w = cal_writer_open("-");
    cal_write_text(w, "ok", 1, "x", 1);
    cal_write_text(w, label, 2, "y", 1);
    cal_writer_close(w);
}

static void write_meta(void *kv) {
    const char *const *p = kv;
    cal_writer *w = cal_writer_open("-");
    cal_meta_set(cal_writer_meta(w), p[0], p[1]);
    cal_writer_close(w);
}

static void write_huge_text(void *arg) {
    (void)arg;
    cal_writer *w = cal_writer_open("-");
    /* The size is checked before a byte is read: a 1-byte buffer will do. */
    cal_write_text(w, "web", 0x1234, "x", CAL_MAX_PAYLOAD + 1ul);
}

static void write_empty_row(void *arg) {
    (void)arg;
    cal_writer *w = cal_writer_open("-");
    cal_write_row(w, "r", 1, NULL, NULL, 0, 0); /* a 0-length row: no ids pointer */
    cal_writer_close(w);
}

static void test_writer(void) {
    EXPECT_DIE(1, "^hostile: stdout: byte 51: label 'a\\\\nb' has a control character at byte 1 \\(a label is UTF-8",
               write_label, "a\nb", "a label with a newline is refused, named, with the output offset");
    EXPECT_DIE(1, "label 'caf\\\\xe9' is not UTF-8 \\(byte 3\\)", write_label, "caf\xe9",
               "a Latin-1 label is refused");
    EXPECT_DIE(1, "label 'tab\\\\there' has a control character at byte 3", write_label, "tab\there",
               "a label with a tab is refused");
    char long_label[300];
    memset(long_label, 'a', 299);
    long_label[299] = 0;
    EXPECT_DIE(1, "label 'a+\\.\\.\\.' is 299 bytes long", write_label, long_label, "a 299-byte label is refused");
    const char *bad_val[] = {"note", "caf\xe9"}, *bad_key[] = {"my key", "x"}, *bad_vocab[] = {"vocab", "lots"};
    EXPECT_DIE(1, "^hostile: stdout: byte 0: stream metadata value of note is not UTF-8 \\(byte 3 of 'caf\\\\xe9'\\)$",
               write_meta, bad_val, "non-UTF-8 metadata is refused");
    EXPECT_DIE(1, "stream metadata key 'my key' is not", write_meta, bad_key, "a metadata key with a space is refused");
    EXPECT_DIE(1, "stream metadata vocab=lots is not a decimal number", write_meta, bad_vocab,
               "vocab=lots is refused when written");
    EXPECT_DIE(1, "^hostile: stdout: byte 0: TEXT record 0000000000001234 of 1073741825 bytes exceeds the 1073741824-byte limit$",
               write_huge_text, NULL, "an oversize record names the output, offset and record");
    EXPECT_OK(write_empty_row, NULL, "a ROW of length 0 with no ids array (UBSan: no memcpy from NULL)");
}

/* Stage lines stay UTF-8: bytes of invalid UTF-8 in an argument are quoted
 * as $'\xHH', and bash turns that back into the argument's bytes. */
static void test_stage(void) {
    char arg[] = "caf\xe9 'x'\\.txt";
    char *argv[] = {"cal-read", "-L", "d\xc3\xa9j\xc3\xa0", arg, NULL};
    cal_meta m = {0};
    cal_meta_add_stage(&m, 4, argv, NULL);
    const char *st = cal_meta_get(&m, "stage");
    CHECK(!strcmp(st, "hostile -L 'd\xc3\xa9j\xc3\xa0' $'caf\\xe9 \\'x\\'\\\\.txt'"), "stage quotes a Latin-1 name: %s", st);
    CHECK(cal_utf8_valid_prefix(st, strlen(st)) == strlen(st), "the stage line is UTF-8");
    char script[512], got[64] = "";
    snprintf(script, sizeof script, "printf %%s %s", strstr(st, "$'"));
    int p[2];
    size_t n = 0;
    if (pipe(p) == 0) {
        if (fork() == 0) {
            dup2(p[1], 1);
            execl("/bin/bash", "bash", "-c", script, (char *)NULL);
            _exit(127);
        }
        close(p[1]);
        ssize_t k;
        while ((k = read(p[0], got + n, sizeof got - 1 - n)) > 0) n += (size_t)k;
        close(p[0]);
        wait(NULL);
    }
    got[n] = 0;
    CHECK(!strcmp(got, arg), "bash reads the quoted argument back byte for byte (%s)", got);
    cal_meta_free(&m);
    char out[CAL_MAX_LABEL + 1], name[600];
    size_t k = cal_label_from_name("a\nb\xff\x7f" "c", 6, out);
    CHECK(k == 6 && !strcmp(out, "a_b__c"), "label from a name: %s", out);
    for (int i = 0; i < 300; i++) memcpy(name + 2 * i, "\xc3\xa9", 2);
    k = cal_label_from_name(name, 600, out);
    char err[256];
    CHECK(k == 254 && cal_label_check(out, k, err, sizeof err) == 0, "a long name is cut at a character boundary (%zu)", k);
}

int main(void) {
    cal_set_progname("hostile");
    test_sizes();
    test_truncation();
    test_text_fields();
    test_stage();
    test_writer();
    TEST_END();
}
