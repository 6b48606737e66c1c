/* cal-cat - show, check, pass through and convert cal-streams (see cal-cat(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/num.h"
#include "base/outfile.h"
#include "base/progress.h"
#include "io/rowfile.h"
#include "stream/stream.h"
#include "tok/find.h"
#include "tok/tokenizer.h"

static const char usage[] =
    "Usage: cal-cat [OPTION]... [FILE]...\n"
    "       cal-cat --import FILE [-o OUT.cal]\n"
    "Show, check, pass through or convert cal-streams. With no FILE, or when\n"
    "FILE is -, read standard input; several FILEs are one concatenated stream.\n"
    "\n"
    "  (default)        print the header metadata and one line per record\n"
    "      --json       print the header and each record as one JSON object per line\n"
    "      --text       print the text of TEXT records, each ending in a newline\n"
    "      --check      verify every header and checksum; print counts per kind\n"
    "      --pass       verify and copy the stream unchanged to standard output\n"
    "  -o, --output OUT write ROW records to OUT by its extension: .safetensors,\n"
    "                   .npy, .jsonl; or copy the stream to OUT.cal\n"
    "      --import FILE  read a .safetensors, .npy or .jsonl file of rows and\n"
    "                   write it as a cal-stream of ROW records (stdout or -o OUT.cal)\n"
    "  -t, --tokenizer TOKENIZER  decode TOKENS and ROW records with TOKENIZER (a\n"
    "                   tokenizer.json, a .model or a NAME as in cal-encode): in\n"
    "                   the previews, in --json (\"text\") and in --text\n"
    "  -v, --verbose    print a one-line summary on standard error\n"
    "      --progress   show progress on standard error\n"
    "      --help       show this help and exit\n"
    "      --version    show the version and exit\n"
    "\n"
    "Errors name the file and byte offset; exit status 1 for bad data, 2 for usage.\n";

enum { M_SUMMARY, M_JSON, M_TEXT, M_CHECK, M_PASS, M_OUTPUT };

typedef struct {
    int mode, verbose, progress;
    const char *out, *import;
    cal_rf_type out_type;
    const char *tokenizer;
    cal_tok *tok; /* -t: decodes TOKENS and ROW records */
} options;

static void parse_args(options *o, int argc, char **argv, char ***files, int *nfiles) {
    int nmode = 0;
    *files = cal_xcalloc((size_t)argc + 1, sizeof **files);
    *nfiles = 0;
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || !strcmp(a, "-")) {
            (*files)[(*nfiles)++] = argv[i];
            continue;
        }
#define NEED_ARG() do { if (i + 1 >= argc) cal_usage_error("option %s needs an argument", a); } while (0)
        if (!strcmp(a, "--")) only_files = 1;
        else if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) cal_print_version();
        else if (!strcmp(a, "--json")) o->mode = M_JSON, nmode++;
        else if (!strcmp(a, "--text")) o->mode = M_TEXT, nmode++;
        else if (!strcmp(a, "--check")) o->mode = M_CHECK, nmode++;
        else if (!strcmp(a, "--pass")) o->mode = M_PASS, nmode++;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEED_ARG();
            o->out = argv[++i];
            o->mode = M_OUTPUT, nmode++;
        } else if (!strncmp(a, "--output=", 9)) o->out = a + 9, o->mode = M_OUTPUT, nmode++;
        else if (!strcmp(a, "--import")) {
            NEED_ARG();
            o->import = argv[++i];
        } else if (!strncmp(a, "--import=", 9)) o->import = a + 9;
        else if (!strcmp(a, "-t") || !strcmp(a, "--tokenizer")) {
            NEED_ARG();
            o->tokenizer = argv[++i];
        } else if (!strncmp(a, "--tokenizer=", 12)) o->tokenizer = a + 12;
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o->verbose = 1;
        else if (!strcmp(a, "--progress")) o->progress = 1;
        else cal_usage_error("unknown option %s", a);
    }
    if (nmode > 1) cal_usage_error("--json, --text, --check, --pass and -o exclude each other");
    if (o->out) {
        o->out_type = cal_rf_type_of(o->out);
        size_t n = strlen(o->out);
        if (o->out_type == CAL_RF_NONE && !(n >= 4 && !strcmp(o->out + n - 4, ".cal")) && strcmp(o->out, "-"))
            cal_usage_error("-o %s: the name must end in .safetensors, .npy, .jsonl or .cal", o->out);
    }
    if (o->tokenizer && o->mode != M_SUMMARY && o->mode != M_JSON && o->mode != M_TEXT)
        cal_usage_error("-t decodes for printing: use it alone, with --json or with --text");
    if (o->import) {
        if (o->tokenizer) cal_usage_error("--import and -t exclude each other");
        if (*nfiles) cal_usage_error("--import reads one file; no other input files");
        if (o->mode != M_SUMMARY && !(o->mode == M_OUTPUT && o->out_type == CAL_RF_NONE))
            cal_usage_error("--import writes a cal-stream (stdout or -o OUT.cal); pipe it into cal-cat to convert");
    }
}

/* ---- text output helpers ------------------------------------------------ */

/* Length of a valid UTF-8 sequence at p (n bytes left), or 0. */
static size_t utf8_len(const uint8_t *p, size_t n) {
    size_t k = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    uint32_t c = k == 1 ? p[0] : k == 2 ? (p[0] & 0x1fu) << 6 | (p[1] & 0x3f)
               : k == 3 ? (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3f)
                        : (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 | (p[2] & 0x3fu) << 6 | (p[3] & 0x3f);
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[k] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    return k;
}

/* A JSON string; invalid UTF-8 bytes become U+FFFD. */
static void json_str(cal_buf *b, const void *s, size_t n) {
    const uint8_t *p = s;
    cal_buf_addc(b, '"');
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        if (c == '"' || c == '\\') cal_buf_addc(b, '\\'), cal_buf_addc(b, (char)c), i++;
        else if (c == '\n') cal_buf_add(b, "\\n", 2), i++;
        else if (c == '\t') cal_buf_add(b, "\\t", 2), i++;
        else if (c < 0x20 || c == 0x7f) cal_buf_addf(b, "\\u%04x", c), i++;
        else {
            size_t k = utf8_len(p + i, n - i);
            if (k) cal_buf_add(b, p + i, k), i += k;
            else cal_buf_add(b, "\\ufffd", 6), i++;
        }
    }
    cal_buf_addc(b, '"');
}

#define PREVIEW_IDS 8
#define PREVIEW_CHARS 60

static void ids_preview(cal_buf *b, const uint8_t *ids, size_t n) {
    for (size_t i = 0; i < n && i < PREVIEW_IDS; i++) cal_buf_addf(b, " %u", cal_ld32(ids + 4 * i));
    if (n > PREVIEW_IDS) cal_buf_add(b, " ...", 4);
}

/* The text of the ids of a TOKENS record, or of a ROW record's unmasked ids
 * (nothing for a noise row), decoded with tok. */
static void decoded(cal_buf *b, const cal_tok *tok, const cal_rec *r) {
    cal_ids ids = {0};
    if (r->kind == CAL_ROW) {
        cal_row_view v = cal_row(r);
        if (!(v.flags & CAL_ROW_NOISE))
            for (uint32_t i = 0; i < v.len; i++)
                if (!v.mask || v.mask[i]) cal_ids_push(&ids, cal_ld32(v.ids + 4 * (size_t)i));
    } else {
        cal_rec_ids(r, &ids);
    }
    cal_tok_decode(tok, ids.v, ids.n, b);
    cal_ids_free(&ids);
}

/* ' text="..."': the first PREVIEW_CHARS characters of the decoded ids. */
static void text_preview(cal_buf *b, const cal_tok *tok, const cal_rec *r) {
    cal_buf t = {0};
    decoded(&t, tok, r);
    size_t i = 0, chars = 0;
    while (i < t.n && chars < PREVIEW_CHARS) {
        size_t k = utf8_len((const uint8_t *)t.p + i, t.n - i);
        i += k ? k : 1;
        chars++;
    }
    cal_buf_add(b, " text=", 6);
    json_str(b, t.p, i);
    if (i < t.n) cal_buf_add(b, " ...", 4);
    cal_buf_free(&t);
}

static double vec_value(const cal_vec_view *v, size_t i) {
    if (v->dtype == CAL_F32) {
        uint32_t u = cal_ld32(v->data + 4 * i);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    uint16_t h = (uint16_t)(v->data[2 * i] | v->data[2 * i + 1] << 8);
    return v->dtype == CAL_F16 ? cal_f16_to_f32(h) : cal_bf16_to_f32(h);
}

static void summary_line(cal_buf *b, const cal_rec *r, const cal_tok *tok) {
    cal_buf_addf(b, "%s %.*s %016llx", cal_kind_name(r->kind), (int)r->label_len, r->label,
                 (unsigned long long)r->id);
    switch (r->kind) {
    case CAL_TEXT: {
        cal_buf_addf(b, " len=%zu ", r->payload_len);
        size_t i = 0, chars = 0;
        while (i < r->payload_len && chars < PREVIEW_CHARS) {
            size_t k = utf8_len(r->payload + i, r->payload_len - i);
            i += k ? k : 1;
            chars++;
        }
        json_str(b, r->payload, i);
        if (i < r->payload_len) cal_buf_add(b, " ...", 4);
        break;
    }
    case CAL_TOKENS:
        cal_buf_addf(b, " len=%zu", r->payload_len / 4);
        ids_preview(b, r->payload, r->payload_len / 4);
        if (tok) text_preview(b, tok, r);
        break;
    case CAL_ROW: {
        cal_row_view v = cal_row(r);
        cal_buf_addf(b, " len=%u", v.len);
        if (v.flags & CAL_ROW_NOISE) cal_buf_add(b, " noise", 6);
        if (v.mask) {
            uint32_t pad = 0;
            for (uint32_t i = 0; i < v.len; i++) pad += !v.mask[i];
            cal_buf_addf(b, " mask(%u padded)", pad);
        }
        if (!(v.flags & CAL_ROW_NOISE)) ids_preview(b, v.ids, v.len);
        if (tok && !(v.flags & CAL_ROW_NOISE)) text_preview(b, tok, r);
        break;
    }
    case CAL_VECTORS: {
        cal_vec_view v = cal_vectors(r);
        cal_buf_addf(b, " %ux%u %s", v.n, v.d, cal_dtype_name(v.dtype));
        size_t n = (size_t)v.n * v.d;
        for (size_t i = 0; i < n && i < 4; i++) cal_buf_addf(b, " %g", vec_value(&v, i));
        if (n > 4) cal_buf_add(b, " ...", 4);
        break;
    }
    }
    cal_buf_addc(b, '\n');
}

static void json_ids(cal_buf *b, const char *key, const uint8_t *ids, size_t n) {
    cal_buf_addf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) cal_buf_addf(b, i ? ",%u" : "%u", cal_ld32(ids + 4 * i));
    cal_buf_addc(b, ']');
}

static void json_line(cal_buf *b, const cal_rec *r, const cal_tok *tok) {
    cal_buf_addf(b, "{\"offset\":%llu,\"kind\":\"%s\",\"label\":", (unsigned long long)r->offset,
                 cal_kind_name(r->kind));
    json_str(b, r->label, r->label_len);
    cal_buf_addf(b, ",\"id\":\"%016llx\"", (unsigned long long)r->id);
    switch (r->kind) {
    case CAL_TEXT:
        cal_buf_addf(b, ",\"len\":%zu,\"text\":", r->payload_len);
        json_str(b, r->payload, r->payload_len);
        break;
    case CAL_TOKENS:
        cal_buf_addf(b, ",\"len\":%zu", r->payload_len / 4);
        json_ids(b, "ids", r->payload, r->payload_len / 4);
        break;
    case CAL_ROW: {
        cal_row_view v = cal_row(r);
        cal_buf_addf(b, ",\"len\":%u,\"noise\":%s", v.len, (v.flags & CAL_ROW_NOISE) ? "true" : "false");
        json_ids(b, "ids", v.ids, v.len);
        if (v.mask) {
            cal_buf_add(b, ",\"mask\":[", 9);
            for (uint32_t i = 0; i < v.len; i++) cal_buf_addf(b, i ? ",%u" : "%u", v.mask[i]);
            cal_buf_addc(b, ']');
        }
        break;
    }
    case CAL_VECTORS: {
        cal_vec_view v = cal_vectors(r);
        cal_buf_addf(b, ",\"n\":%u,\"d\":%u,\"dtype\":\"%s\",\"values\":[", v.n, v.d, cal_dtype_name(v.dtype));
        size_t n = (size_t)v.n * v.d;
        for (size_t i = 0; i < n; i++) cal_buf_addf(b, i ? ",%.9g" : "%.9g", vec_value(&v, i));
        cal_buf_addc(b, ']');
        break;
    }
    }
    if (tok && (r->kind == CAL_TOKENS || r->kind == CAL_ROW)) {
        cal_buf t = {0};
        decoded(&t, tok, r);
        cal_buf_add(b, ",\"text\":", 8);
        json_str(b, t.p ? t.p : "", t.n);
        cal_buf_free(&t);
    }
    cal_buf_add(b, "}\n", 2);
}

static void header_out(cal_buf *b, int mode, const char *file, unsigned n, const cal_meta *m) {
    if (mode == M_JSON) {
        cal_buf_add(b, "{\"file\":", 8);
        json_str(b, file, strlen(file));
        cal_buf_addf(b, ",\"header\":%u,\"meta\":[", n);
        for (size_t i = 0; i < m->n; i++) {
            cal_buf_add(b, i ? ",[" : "[", i ? 2 : 1);
            json_str(b, m->key[i], strlen(m->key[i]));
            cal_buf_addc(b, ',');
            json_str(b, m->val[i], strlen(m->val[i]));
            cal_buf_addc(b, ']');
        }
        cal_buf_add(b, "]}\n", 3);
        return;
    }
    cal_buf_addf(b, "# %s: header %u\n", file, n);
    for (size_t i = 0; i < m->n; i++) {
        cal_buf_addf(b, "#   %s=", m->key[i]);
        for (const char *p = m->val[i]; *p; p++) {
            if (*p == '\n') cal_buf_add(b, "\\n", 2);
            else if (*p == '\\') cal_buf_add(b, "\\\\", 2);
            else cal_buf_addc(b, *p);
        }
        cal_buf_addc(b, '\n');
    }
}

/* ---- the main loop ------------------------------------------------------ */

typedef struct {
    uint64_t kinds[5], records, bytes, headers;
} counts;

static void count(counts *c, const cal_rec *r) {
    c->kinds[r->kind >= 1 && r->kind <= 4 ? r->kind : 0]++;
    c->records++;
}

static void check_line(cal_file *out, const char *name, const counts *c, uint64_t bytes) {
    cal_file_printf(out, "%s: ok: %llu header%s, %llu records (TEXT %llu, TOKENS %llu, ROW %llu, VECTORS %llu), %llu bytes\n",
                    name, (unsigned long long)c->headers, c->headers == 1 ? "" : "s",
                    (unsigned long long)c->records, (unsigned long long)c->kinds[CAL_TEXT],
                    (unsigned long long)c->kinds[CAL_TOKENS], (unsigned long long)c->kinds[CAL_ROW],
                    (unsigned long long)c->kinds[CAL_VECTORS], (unsigned long long)bytes);
}

static int run_import(const options *o, int argc, char **argv) {
    cal_writer *w = cal_writer_open(o->out ? o->out : "-");
    size_t n = cal_rowfile_import(o->import, w, argc, argv);
    cal_writer_close(w);
    if (o->verbose) cal_warn("imported %zu rows from %s", n, o->import);
    return 0;
}

/* Decoding with another tokenizer than the stream's gives wrong text: warn once. */
static void check_fingerprint(const cal_tok *tok, const cal_meta *m, const char *name) {
    static int warned;
    const char *fp = cal_meta_get(m, "tokenizer_fp");
    char mine[17];
    snprintf(mine, sizeof mine, "%016llx", (unsigned long long)cal_tok_fingerprint(tok));
    if (fp && strcmp(fp, mine) && !warned) {
        warned = 1;
        cal_warn("warning: %s: the stream was encoded with tokenizer_fp %s (%s), -t %s is %s", name, fp,
                 cal_meta_get(m, "tokenizer") ? cal_meta_get(m, "tokenizer") : "?", cal_tok_name(tok), mine);
    }
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    options o = {0};
    char **files;
    int nfiles;
    parse_args(&o, argc, argv, &files, &nfiles);
    if (o.import) return free(files), run_import(&o, argc, argv);
    char *tok_path = NULL;
    if (o.tokenizer) {
        char terr[1024];
        tok_path = cal_tok_find(o.tokenizer, argv[0]);
        if (!(o.tok = cal_tok_load(tok_path, terr, sizeof terr))) cal_die("%s: %s", tok_path, terr);
    }
    static char *stdin_only[] = {"-"};
    if (!nfiles) files = (free(files), stdin_only), nfiles = 1;

    double t0 = cal_now();
    cal_progress pg;
    cal_progress_init(&pg, o.progress);
    int stream_out = o.mode == M_PASS || (o.mode == M_OUTPUT && o.out_type == CAL_RF_NONE);
    cal_writer *w = stream_out ? cal_writer_open(o.mode == M_PASS ? "-" : o.out) : NULL;
    cal_rowset *rows = o.mode == M_OUTPUT && o.out_type != CAL_RF_NONE ? cal_rowset_new(o.out_type) : NULL;
    cal_file *out = (o.mode == M_SUMMARY || o.mode == M_JSON || o.mode == M_TEXT || o.mode == M_CHECK)
                        ? cal_file_create("-") : NULL;
    cal_meta all = {0};
    cal_buf b = {0};
    counts total = {0};
    char err[768];

    for (int f = 0; f < nfiles; f++) {
        cal_reader *r = cal_reader_open(files[f]);
        const char *name = cal_reader_name(r);
        unsigned seen = 0;
        counts c = {0};
        cal_rec rec;
        for (;;) {
            int rc = o.mode == M_CHECK ? cal_read_soft(r, &rec, err, sizeof err) : cal_read(r, &rec);
            if (rc < 0) {
                cal_file_commit(out);
                cal_die("%s", err);
            }
            if (cal_reader_headers(r) != seen) {
                /* A header (the first, or a new one mid-stream): merge, show, re-emit. */
                c.headers += cal_reader_headers(r) - seen;
                seen = cal_reader_headers(r);
                if (!cal_meta_merge(&all, cal_reader_meta(r), err, sizeof err))
                    cal_die_at(name, rc ? rec.offset : cal_reader_offset(r), "%s", err);
                if (o.tok) check_fingerprint(o.tok, &all, name);
                if (w && !cal_meta_equal(cal_writer_meta(w), &all)) cal_meta_copy(cal_writer_meta(w), &all);
                if (o.mode == M_SUMMARY || o.mode == M_JSON) {
                    header_out(&b, o.mode, name, seen, cal_reader_meta(r));
                    cal_file_write(out, b.p, b.n);
                    b.n = 0;
                }
            }
            if (!rc) break;
            count(&c, &rec);
            c.bytes += rec.raw_len;
            cal_progress_tick(&pg, total.records + c.records, total.bytes + c.bytes);
            switch (o.mode) {
            case M_SUMMARY: summary_line(&b, &rec, o.tok); break;
            case M_JSON: json_line(&b, &rec, o.tok); break;
            case M_TEXT:
                if (rec.kind == CAL_TEXT) {
                    cal_file_write(out, rec.payload, rec.payload_len);
                    if (!rec.payload_len || rec.payload[rec.payload_len - 1] != '\n') cal_file_write(out, "\n", 1);
                } else if (o.tok && (rec.kind == CAL_TOKENS || rec.kind == CAL_ROW)) {
                    decoded(&b, o.tok, &rec);
                    if (!b.n || b.p[b.n - 1] != '\n') cal_buf_addc(&b, '\n');
                }
                break;
            case M_PASS: cal_write_raw(w, &rec); break;
            case M_OUTPUT:
                if (w) cal_write_raw(w, &rec);
                else cal_rowset_add(rows, r, &rec);
                break;
            }
            if (b.n) {
                cal_file_write(out, b.p, b.n);
                b.n = 0;
            }
        }
        if (o.mode == M_CHECK) check_line(out, name, &c, cal_reader_offset(r));
        total.bytes += cal_reader_offset(r);
        total.records += c.records;
        total.headers += c.headers;
        for (int k = 0; k < 5; k++) total.kinds[k] += c.kinds[k];
        cal_reader_close(r);
    }
    if (o.mode == M_CHECK && nfiles > 1) check_line(out, "total", &total, total.bytes);
    if (w) {
        if (!total.headers) cal_meta_copy(cal_writer_meta(w), &all);
        cal_writer_close(w);
    }
    if (rows) {
        cal_rowset_write(rows, o.out, &all);
        cal_rowset_free(rows);
    }
    if (out) cal_file_commit(out);
    cal_progress_done(&pg);
    if (o.verbose)
        cal_warn("%llu records, %llu headers, %llu bytes in %.2f s", (unsigned long long)total.records,
                 (unsigned long long)total.headers, (unsigned long long)total.bytes, cal_now() - t0);
    cal_meta_free(&all);
    cal_buf_free(&b);
    cal_tok_free(o.tok);
    free(tok_path);
    if (files != stdin_only) free(files);
    return 0;
}
