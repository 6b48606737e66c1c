/* test_hostile_files.c - .npy and .safetensors readers against lying
 * headers, overflowing shapes and truncation at every byte, the row-file
 * import against lying calkit metadata, and the round trip of UTF-8 labels
 * and metadata through a .safetensors export (nothing lost, nothing
 * altered). Headers are written by hand from the format descriptions
 * (numpy's NEP 1 format, the safetensors README). */
#include <stdio.h>
#include <sys/stat.h>

#include "base/num.h"
#include "hostile.h"
#include "io/npy.h"
#include "io/rowfile.h"
#include "io/safetensors.h"
#include "stream/stream.h"

static char dir[] = "/tmp/test_hostile_files.XXXXXX";

/* ---- .npy ----------------------------------------------------------------- */

/* A version 1.0 file with this header dict (padded as np.save pads) and
 * `data` bytes of little-endian values 0, 1, 2, ... */
static void npy(cal_buf *b, const char *dict, size_t data, int es) {
    size_t n = strlen(dict), total = (10 + n + 1 + 63) / 64 * 64;
    b->n = 0;
    cal_buf_add(b, "\x93NUMPY\x01\x00", 8);
    h_le(b, total - 10, 2);
    cal_buf_add(b, dict, n);
    while (b->n < total - 1) cal_buf_addc(b, ' ');
    cal_buf_addc(b, '\n');
    for (size_t i = 0; i < data / (size_t)es; i++) h_le(b, i, es);
}

static int npy_ok(const cal_buf *b, cal_npy *a, char *err, size_t errlen) {
    return cal_npy_parse(a, b->p, b->n, "a.npy", err, errlen);
}

static void test_npy(void) {
    cal_buf b = {0};
    cal_npy a;
    char err[512];
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 48, 8);
    CHECK(npy_ok(&b, &a, err, sizeof err) && a.shape[0] == 2 && a.shape[1] == 3 && cal_npy_at(&a, 5) == 5,
          "np.save's header for int64 (2, 3) reads: %s", err);
    /* a fake 'shape' inside another value once won over the real one */
    npy(&b, "{'descr': '<i8', 'note': \"'shape': (1, 1), \", 'fortran_order': False, 'shape': (2, 3), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "a.npy: byte 27: unknown key in the header"),
          "an extra key (faking the shape in a string) is rejected: %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), 'shape': (2, 3), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "repeated key"), "a repeated key: %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), } 'shape': (6,)", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "bytes after the header dict"), "text after the dict: %s", err);
    npy(&b, "{'descr': '<i8', 'shape': (2, 3), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "lacks descr, fortran_order or shape"), "a missing key: %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (6), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "trailing comma"), "(6) is an int, not a shape: %s", err);
    npy(&b, "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (3L, 2L)}", 24, 4);
    CHECK(npy_ok(&b, &a, err, sizeof err) && a.elem == 4 && a.shape[0] == 3, "double quotes and Python 2 longs: %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", 56, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "a.npy: byte 128: shape (2, 3) needs 48-byte data, the file has 56"),
          "data beyond the shape (which would be ignored) is rejected: %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "is larger than any file"),
          "a shape whose byte count wraps (2^62 x 4 x 8 = 2^67): %s", err);
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", 48, 8);
    CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, "shape size overflows"), "a size over 2^64: %s", err);
    static const char *const bad[][2] = {
        {"{'descr': '>i8', 'fortran_order': False, 'shape': (6,), }", "dtype '>i8' is not int64"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", "dtype '<f8' is not int64"},
        {"{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (6,), }", "descr is not a quoted dtype"},
        {"{'descr': '<i8', 'fortran_order': True, 'shape': (6,), }", "Fortran-order"},
        {"{'descr': '<i8', 'fortran_order': 0, 'shape': (6,), }", "not True or False"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2, 3), }", "a 3-D array"},
        {"{'descr': '<i8', 'fortran_order': False, 'shape': (), }", "a 0-D array"},
        {"{'descr': '<i\\x38', 'fortran_order': False, 'shape': (6,), }", "unterminated or escaped string"},
        {"['descr', '<i8']", "header is not a dict"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        npy(&b, bad[i][0], 48, 8);
        CHECK(!npy_ok(&b, &a, err, sizeof err) && strstr(err, bad[i][1]), "%s: %s", bad[i][1], err);
    }
    npy(&b, "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }", 20, 4);
    size_t bad_prefix = 0;
    for (size_t n = 0; n < b.n; n++)
        if (cal_npy_parse(&a, b.p, n, "a.npy", err, sizeof err) || !strstr(err, "a.npy: byte ")) bad_prefix++;
    CHECK(bad_prefix == 0, "each of %zu proper prefixes is an error (%zu are not)", b.n, bad_prefix);
    cal_buf_free(&b);
}

/* ---- .safetensors ----------------------------------------------------------- */

static void st_file(cal_buf *b, const char *json, size_t data) {
    b->n = 0;
    h_le(b, strlen(json), 8);
    cal_buf_add(b, json, strlen(json));
    for (size_t i = 0; i < data; i++) cal_buf_addc(b, (char)i);
}

static void test_safetensors(void) {
    cal_buf b = {0};
    char err[1024];
    st_file(&b, "{\"t\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[0,32]}}", 32);
    cal_st_file *f = cal_st_open_mem(b.p, b.n, "m.st", err, sizeof err);
    CHECK(f && cal_st_count(f) == 1, "a valid file reads: %s", f ? "" : err);
    cal_st_close(f);
    static const char *const bad[][2] = {
        {"{\"t\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}", "shape overflows"},
        {"{\"t\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952,1],\"data_offsets\":[0,0]}}", "shape overflows"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[5,1],\"data_offsets\":[0,40]}}", "runs past the end"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[16,48]}}", "runs past the end"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[0,24]}}", "shape needs 32 bytes"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[32,0]}}", "not [BEGIN, END]"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[-2,2],\"data_offsets\":[0,32]}}", "shape is not a list"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,8]}}", "shape is not a list"},
        {"{\"t\":{\"dtype\":\"Q4\",\"shape\":[2,2],\"data_offsets\":[0,32]}}", "unknown dtype"},
        {"{\"a\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]},"
         "\"b\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[8,24]}}", "overlap"},
        {"{\"t\":{\"dtype\":\"I64\",\"shape\":[2,2],\"data_offsets\":[0,32]},\"t\":{}}", "bad JSON header"},
        {"{\"__metadata__\":{\"k\":1}}", "is not a string"},
        {"{\"__metadata__\":{\"k\":\"caf\xe9\"}}", "bad JSON header"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st_file(&b, bad[i][0], 32);
        f = cal_st_open_mem(b.p, b.n, "m.st", err, sizeof err);
        CHECK(!f && strstr(err, bad[i][1]) && strstr(err, "m.st: byte "), "%s: %s", bad[i][1], f ? "accepted" : err);
        cal_st_close(f);
    }
    st_file(&b, "{}", 0);
    cal_st64(b.p, 1ull << 63); /* a header length near 2^64 */
    f = cal_st_open_mem(b.p, b.n, "m.st", err, sizeof err);
    CHECK(!f && strstr(err, "header length 9223372036854775808 runs past"), "header length 2^63: %s", err);
    st_file(&b, "{\"__metadata__\":{\"k\":\"v\"},\"t\":{\"dtype\":\"U8\",\"shape\":[5],\"data_offsets\":[0,5]}}", 5);
    size_t bad_prefix = 0;
    for (size_t n = 0; n < b.n; n++) {
        f = cal_st_open_mem(b.p, n, "m.st", err, sizeof err);
        if (f || !strstr(err, "m.st: byte ")) bad_prefix++;
        cal_st_close(f);
    }
    CHECK(bad_prefix == 0, "each of %zu proper prefixes is an error (%zu are not)", b.n, bad_prefix);
    cal_buf_free(&b);
}

static void st_meta_latin1(void *arg) {
    (void)arg;
    cal_st_writer *w = cal_st_writer_new();
    cal_st_add_meta(w, "stage", "cal-read caf\xe9.txt");
}

static void st_shape_wraps(void *arg) {
    (void)arg;
    cal_st_writer *w = cal_st_writer_new();
    uint64_t shape[2] = {1ull << 62, 8};
    cal_st_add(w, "t", "F32", 2, shape, NULL);
}

static void test_st_writer(void) {
    EXPECT_DIE(1, "^hostile: safetensors: metadata value of stage is not UTF-8 \\(byte 12 of 'cal-read caf\\\\xe9.txt'\\)$",
               st_meta_latin1, NULL, "the safetensors writer refuses non-UTF-8 metadata (jansson dropped it)");
    EXPECT_DIE(1, "tensor 't': shape overflows", st_shape_wraps, NULL, "a tensor size over 2^64 is refused");
}

/* ---- row files ---------------------------------------------------------------- */

static const char *import_path;

static void import(void *arg) {
    (void)arg;
    char *argv[] = {"cal-cat", "--import", (char *)import_path, NULL};
    cal_writer *w = cal_writer_open(h_path(dir, "import.cal"));
    cal_rowfile_import(import_path, w, 3, argv);
    cal_writer_close(w);
}

static void test_rowfile(void) {
    cal_buf b = {0};
    /* rows of length 0: imported, with no memcpy from a NULL ids array */
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 0), }", 0, 8);
    import_path = h_file(dir, "empty.npy", b.p, b.n);
    EXPECT_OK(import, NULL, "a .npy of 2 rows of length 0 imports");
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'shape': (1099511627776, 0), }", 0, 8);
    import_path = h_file(dir, "many.npy", b.p, b.n);
    EXPECT_DIE(1, "many.npy: byte 128: 1099511627776 rows of length 0", import, NULL,
               "2^40 rows of length 0 (no data bytes) are refused, not written out");
    npy(&b, "{'descr': '<i8', 'fortran_order': False, 'x': 1, 'shape': (2, 3), }", 48, 8);
    import_path = h_file(dir, "extra.npy", b.p, b.n);
    EXPECT_DIE(1, "extra.npy: byte 51: unknown key", import, NULL, "--import of a .npy with an extra key fails");
    /* calkit.rows counts that wrap past 2^64 back to the row count */
    const char *json =
        "{\"__metadata__\":{\"calkit.stream\":\"stage=x\\n\",\"calkit.ids\":\"0000000000000001\","
        "\"calkit.rows\":\"[[\\\"a\\\",0,9223372036854775807],[\\\"b\\\",0,9223372036854775807],[\\\"c\\\",0,3]]\"},"
        "\"input_ids\":{\"dtype\":\"I64\",\"shape\":[1,2],\"data_offsets\":[0,16]}}";
    st_file(&b, json, 0);
    h_le(&b, 5, 8);
    h_le(&b, 6, 8);
    import_path = h_file(dir, "wrap.safetensors", b.p, b.n);
    EXPECT_DIE(1, "wrap.safetensors: byte 8: calkit.rows metadata does not describe the 1 rows", import, NULL,
               "calkit.rows counts summing to 2^64 + 1 do not pass for 1 row");
    /* UTF-8 labels and metadata survive stream -> .safetensors -> stream */
    const char *src = h_path(dir, "src.cal"), *st = h_path(dir, "rows.safetensors");
    cal_writer *w = cal_writer_open(src);
    cal_meta_add(cal_writer_meta(w), "stage", "cal-read 'd\xc3\xa9j\xc3\xa0 vu.txt' $'caf\\xe9'");
    uint32_t ids[3] = {1, 2, 3};
    uint8_t mask[3] = {1, 1, 0};
    cal_write_row(w, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 9, ids, mask, 3, 0);
    cal_write_row(w, "caf\xc3\xa9", 10, ids, NULL, 3, 0);
    cal_writer_close(w);
    cal_reader *r = cal_reader_open(src);
    cal_rowset *s = cal_rowset_new(CAL_RF_SAFETENSORS);
    cal_rec rec;
    while (cal_read(r, &rec)) cal_rowset_add(s, r, &rec);
    cal_rowset_write(s, st, cal_reader_meta(r));
    cal_rowset_free(s);
    cal_reader_close(r);
    cal_st_file *f = cal_st_open(st);
    CHECK(cal_st_meta_get(f, "calkit.rows") && cal_st_meta_get(f, "calkit.stream"),
          "the export keeps calkit.rows and calkit.stream for non-ASCII labels and metadata");
    cal_st_close(f);
    import_path = st;
    EXPECT_OK(import, NULL, "the export imports");
    size_t n1, n2;
    uint8_t *a = h_slurp(src, &n1), *c = h_slurp(h_path(dir, "import.cal"), &n2);
    CHECK(a && c && n1 == n2 && !memcmp(a, c, n1), "stream -> .safetensors -> stream is byte-identical (%zu, %zu bytes)",
          n1, n2);
    free(a);
    free(c);
    cal_buf_free(&b);
}

int main(void) {
    cal_set_progname("hostile");
    if (!mkdtemp(dir)) return 1;
    test_npy();
    test_safetensors();
    test_st_writer();
    test_rowfile();
    if (h_rmdir(dir)) return 1;
    TEST_END();
}
