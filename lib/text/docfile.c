/* docfile.c - see docfile.h. */
#include "text/docfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/utf8.h"
#include "io/csv.h"
#include "io/insrc.h"
#include "io/jsonsplit.h"
#include "io/parquet.h"
#include "io/parquet_rec.h"
#include "text/format.h"
#include "text/source.h"
#include "text/split.h"

/* The top-level column of a dotted path ("meta" of "meta.source"). */
static void add_top(cal_buf *names, const char *path) {
    cal_buf_add(names, path, strcspn(path, "."));
    cal_buf_addc(names, 0);
}

/* What one record gave (got: as cal_jsonl_doc returns): its document to fn,
 * nothing (a null, counted by jsonl), a refusal of the chat template
 * (counted with skip_bad, else an error), or a malformed record: errors name
 * the file, the byte (off + pos) and `where` ("record 3", "line 5"). */
static int deliver(cal_docfile *r, int got, cal_doc *d, const char *where, size_t pos, const char *err, cal_doc_fn fn,
                   void *ctx) {
    if (got <= -2 && r->skip_bad) {
        *(got == -2 ? &r->bad : &r->nochat) += 1;
        if (!r->first_bad[got == -2 ? 0 : 1][0])
            snprintf(r->first_bad[got == -2 ? 0 : 1], sizeof r->first_bad[0], "%s: %s: %s", d->file, where, err);
    } else if (got <= -2 && !strncmp(where, "line ", 5)) { /* JSON Lines: named by line, as a person counts them */
        cal_die("%s: %s: %s", d->file, where, err);
    } else if (got < 0) {
        cal_die_at(d->file, d->off + pos, "%s: %s", where, err);
    }
    d->chat = r->json.chat;
    d->spans = d->chat && r->json.want_spans ? (const uint32_t *)(const void *)r->json.spans.p : NULL;
    d->nspans = d->spans ? r->json.spans.n / 8 : 0;
    return got > 0 ? fn(ctx, d) : 0;
}

/* Rows as records (lists, structs, templates): each one through the JSON
 * Lines logic (text/jsonl.h), as if it were a line of JSON. */
static int read_pq_rows(cal_docfile *r, const char *path, const char *field, cal_doc_fn fn, void *ctx) {
    char err[512];
    cal_buf names = {0};
    size_t n = 0;
    if (r->json.fmt) {
        for (; n < cal_fieldfmt_nfields(r->json.fmt); n++) add_top(&names, cal_fieldfmt_field(r->json.fmt, n));
    } else {
        add_top(&names, field), n = 1;
    }
    const char **cols = cal_xcalloc(n + 1, sizeof *cols);
    for (size_t i = 0, at = 0; i < n; i++, at += strlen(names.p + at) + 1) cols[i] = names.p + at;
    cal_pqrec *q = cal_pqrec_open(path, cols, n, err, sizeof err);
    free(cols);
    cal_buf_free(&names);
    if (!q) cal_die("%s: %s", path, err);
    cal_doc d = {path, NULL, 0, 0, 0, 0, NULL, 0};
    json_t *row;
    int got, stop = 0;
    uint64_t nulls = r->json.nulls;
    while (!stop && (got = cal_pqrec_next(q, &row, &d.off, err, sizeof err)) == 1) {
        char msg[512];
        char where[64];
        int k = cal_jsonl_record(&r->json, row, &d.text, &d.n, msg, sizeof msg);
        snprintf(where, sizeof where, "row %llu", (unsigned long long)cal_pqrec_rows(q) - 1);
        stop = deliver(r, k, &d, where, 0, msg, fn, ctx);
    }
    if (!stop && got < 0) cal_die("%s: %s", path, err);
    r->nulls += r->json.nulls - nulls;
    cal_pqrec_close(q);
    return stop;
}

static int read_parquet(cal_docfile *r, const char *path, const char *field, cal_doc_fn fn, void *ctx) {
    char err[512];
    if (strcmp(path, "-") == 0) cal_die("stdin: Parquet input must be a file, not a pipe");
    if (!r->json.fmt) { /* a string column is read as it is; others as rows */
        int kind = cal_pqrec_kind(path, field, err, sizeof err);
        if (kind < 0) cal_die("%s: %s", path, err);
        if (kind == CAL_PQ_NONE && !strcmp(field, "text")) /* chat data, as in JSON Lines */
            for (int c = 0; c < 2 && kind == CAL_PQ_NONE; c++)
                if ((kind = cal_pqrec_kind(path, c ? "conversations" : "messages", err, sizeof err)) != CAL_PQ_NONE)
                    field = c ? "conversations" : "messages";
        if (kind == CAL_PQ_OTHER) return read_pq_rows(r, path, field, fn, ctx);
    } else {
        return read_pq_rows(r, path, field, fn, ctx);
    }
    cal_pq *q = cal_pq_open(path, field, err, sizeof err);
    if (!q) cal_die("%s: %s", path, err);
    cal_doc d = {path, NULL, 0, 0, 0, 0, NULL, 0};
    const uint8_t *p;
    int got, stop = 0;
    while (!stop && (got = cal_pq_next(q, &p, &d.n, &d.off, err, sizeof err)) == 1) {
        d.text = (const char *)p;
        stop = fn(ctx, &d);
    }
    if (!stop && got < 0) cal_die("%s: %s", path, err);
    r->nulls += cal_pq_nulls(q);
    cal_pq_close(q);
    return stop;
}

static int read_jsonl(cal_docfile *r, cal_insrc *s, cal_doc_fn fn, void *ctx) {
    cal_buf line = {0};
    cal_doc d = {cal_insrc_name(s), NULL, 0, 0, 0, 0, NULL, 0};
    uint64_t nulls = r->json.nulls, lineno = 0;
    int stop = 0, got;
    cal_insrc_skip_bom(s);
    const char *lp;
    size_t ln;
    while (!stop && (got = cal_insrc_line_view(s, &line, &lp, &ln, &d.off, r->max)) != 0) {
        char err[512];
        size_t pos;
        if (got < 0) cal_die_at(d.file, d.off, "line of more than %zu bytes (the record limit)", r->max);
        lineno++;
        got = cal_jsonl_doc(&r->json, lp, ln, &d.text, &d.n, err, sizeof err, &pos);
        if (got == -1) cal_die_at(d.file, d.off + pos, "%s", err);
        char where[64];
        snprintf(where, sizeof where, "line %llu", (unsigned long long)lineno);
        stop = deliver(r, got, &d, where, 0, err, fn, ctx);
    }
    r->nulls += r->json.nulls - nulls;
    cal_buf_free(&line);
    return stop;
}

/* A lone top-level object: one record when it has the text (the field's
 * first name, a template's fields, or a chat list); otherwise, when every
 * member is an object, an object of records, each member's value a record
 * in order (as auto-round's `local` reads a dict; a dict of strings is read
 * as one record, whose fields a template names). */
static int lone_object(cal_docfile *r, const char *p, size_t n, cal_doc *d, cal_doc_fn fn, void *ctx) {
    char err[512], where[300];
    size_t pos;
    json_t *root = cal_jsonl_parse(&r->json, p, n, err, sizeof err, &pos);
    if (!root) cal_die_at(d->file, d->off + pos, "%s", err);
    int record = json_object_get(root, "messages") || json_object_get(root, "conversations"), members = 0;
    cal_buf top = {0};
    size_t nf = r->json.fmt ? cal_fieldfmt_nfields(r->json.fmt) : 1;
    for (size_t i = 0; i < nf && !record; i++) {
        const char *f = r->json.fmt ? cal_fieldfmt_field(r->json.fmt, i) : r->json.field;
        top.n = 0;
        cal_buf_add(&top, f, strcspn(f, "."));
        cal_buf_addc(&top, 0);
        record = json_object_get(root, top.p) != NULL;
    }
    cal_buf_free(&top);
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v) members += json_is_object(v) ? 1 : -(int)json_object_size(root);
    int stop = 0;
    if (record || members <= 0) {
        int got = cal_jsonl_record(&r->json, root, &d->text, &d->n, err, sizeof err);
        stop = deliver(r, got, d, "record 0", 0, err, fn, ctx);
    } else {
        json_object_foreach(root, k, v) {
            if (stop) break;
            snprintf(where, sizeof where, "member '%.200s' of the object of records", k);
            int got = cal_jsonl_record(&r->json, v, &d->text, &d->n, err, sizeof err);
            stop = deliver(r, got, d, where, 0, err, fn, ctx);
        }
    }
    json_decref(root);
    cal_jsonl_done(&r->json);
    return stop;
}

/* A JSON document: the elements of top-level lists and the other top-level
 * values, each a record as a line of JSON Lines is (io/jsonsplit.h). */
static int read_json(cal_docfile *r, cal_insrc *s, cal_doc_fn fn, void *ctx) {
    cal_jsonsplit *js = cal_jsonsplit_new(s, r->max);
    cal_doc d = {cal_insrc_name(s), NULL, 0, 0, 0, 0, NULL, 0};
    uint64_t nulls = r->json.nulls;
    const char *p;
    size_t n;
    int lone, stop = 0;
    while (!stop && cal_jsonsplit_next(js, &p, &n, &d.off, &lone)) {
        if (lone) {
            stop = lone_object(r, p, n, &d, fn, ctx);
            continue;
        }
        char err[512], where[64];
        size_t pos = 0;
        int got = cal_jsonl_doc(&r->json, p, n, &d.text, &d.n, err, sizeof err, &pos);
        snprintf(where, sizeof where, "record %llu", (unsigned long long)cal_jsonsplit_count(js) - 1);
        stop = deliver(r, got, &d, where, pos, err, fn, ctx);
    }
    r->nulls += r->json.nulls - nulls;
    cal_jsonsplit_free(js);
    return stop;
}

/* A field's bytes as a JSON string: invalid UTF-8 repaired (counted), or an
 * error with --strict. */
static json_t *csv_string(cal_docfile *r, const char *p, size_t n, const char *file, uint64_t line, uint64_t off) {
    size_t ok = cal_utf8_valid_prefix(p, n);
    if (ok == n) return json_stringn(p, n);
    if (r->json.strict) cal_die_at(file, off, "line %llu: invalid UTF-8", (unsigned long long)line);
    r->fix.n = 0;
    r->json.replaced += cal_utf8_repair(p, n, &r->fix);
    return json_stringn(r->fix.p, r->fix.n);
}

/* Ends the program for a CSV file's header or row, its memory freed first
 * (the message is made before). */
static CAL_NORETURN void csv_die(cal_csv *c, json_t *cols, const char *file, uint64_t off, const char *fmt, ...)
    CAL_PRINTF(5, 6);
static void csv_die(cal_csv *c, json_t *cols, const char *file, uint64_t off, const char *fmt, ...) {
    char msg[1200], name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(name, sizeof name, "%s", file);
    json_decref(cols);
    cal_csv_free(c);
    cal_die_at(name, off, "%s", msg);
}

/* CSV/TSV: the first row names the columns; every other row is a record
 * {column: string} (the last columns of a short row are null, as
 * csv.DictReader fills them; a long row is an error, as in pandas), read as JSON Lines records are (--field, templates, chats). */
static int read_csv(cal_docfile *r, cal_insrc *s, char delim, cal_doc_fn fn, void *ctx) {
    cal_csv *c = cal_csv_new(s, delim, r->max);
    cal_doc d = {cal_insrc_name(s), NULL, 0, 0, 0, 0, NULL, 0};
    size_t nf;
    const char *const *f;
    const size_t *len;
    uint64_t line;
    if (!cal_csv_next(c, &nf, &f, &len, &line, &d.off)) {
        cal_csv_free(c);
        return 0;
    }
    json_t *cols = json_array();
    for (size_t i = 0; i < nf; i++) {
        json_array_append_new(cols, csv_string(r, f[i], len[i], d.file, line, d.off));
        for (size_t k = 0; k < i; k++)
            if (json_equal(json_array_get(cols, k), json_array_get(cols, i)))
                csv_die(c, cols, d.file, d.off, "line %llu: column '%s' appears twice in the header",
                        (unsigned long long)line, json_string_value(json_array_get(cols, i)));
    }
    const char *want = r->json.field;
    int found = r->json.fmt != NULL;
    for (size_t i = 0; i < nf && !found; i++)
        found = !strcmp(json_string_value(json_array_get(cols, i)), want) ||
                !strcmp(json_string_value(json_array_get(cols, i)), "messages");
    if (!found) {
        char names[600] = "";
        for (size_t i = 0, at = 0; i < nf && at < sizeof names; i++)
            at += (size_t)snprintf(names + at, sizeof names - at, "%s'%s'", i ? ", " : "",
                                   json_string_value(json_array_get(cols, i)));
        csv_die(c, cols, d.file, d.off, "line %llu: no column '%s' (the columns: %s; choose one with --field, or a "
                "template --field '{a}...')", (unsigned long long)line, want, names);
    }
    uint64_t nulls = r->json.nulls;
    int stop = 0;
    while (!stop && cal_csv_next(c, &nf, &f, &len, &line, &d.off)) {
        if (nf > json_array_size(cols))
            csv_die(c, cols, d.file, d.off, "line %llu: %zu fields, the header has %zu", (unsigned long long)line, nf,
                    json_array_size(cols));
        json_t *rec = json_object();
        for (size_t i = 0; i < nf; i++)
            json_object_set_new(rec, json_string_value(json_array_get(cols, i)), csv_string(r, f[i], len[i], d.file, line, d.off));
        for (size_t i = nf; i < json_array_size(cols); i++) /* None, as csv.DictReader fills a short row */
            json_object_set_new(rec, json_string_value(json_array_get(cols, i)), json_null());
        char err[512], where[64];
        int got = cal_jsonl_record(&r->json, rec, &d.text, &d.n, err, sizeof err);
        snprintf(where, sizeof where, "line %llu", (unsigned long long)line);
        stop = deliver(r, got, &d, where, 0, err, fn, ctx);
        json_decref(rec);
    }
    r->nulls += r->json.nulls - nulls;
    json_decref(cols);
    cal_csv_free(c);
    return stop;
}

/* A Parquet file is mapped, not streamed: hashed after, when read whole. */
static int parquet_hashed(cal_docfile *r, const char *path, const char *field, cal_doc_fn fn, void *ctx) {
    int stop = read_parquet(r, path, field, fn, ctx);
    if (!stop) r->file_fp = cal_source_file_hash(path, &r->file_bytes), r->file_whole = 1;
    return stop;
}

int cal_docfile_read(cal_docfile *r, const char *path, int fmt, const char *field, cal_doc_fn fn, void *ctx) {
    int told = fmt != CAL_FMT_AUTO; /* -f: read as told, whatever the bytes look like */
    if (fmt == CAL_FMT_AUTO) fmt = cal_fmt_from_name(path);
    if ((fmt == CAL_FMT_AUTO || fmt == CAL_FMT_TEXT) && r->sep) fmt = CAL_FMT_SEP;
    r->files++;
    r->json.field = field;
    r->file_fp = r->file_bytes = 0, r->file_whole = 0;
    if (fmt == CAL_FMT_PARQUET) return parquet_hashed(r, path, field, fn, ctx);
    cal_insrc *s = cal_insrc_open(path);
    cal_insrc_hash_raw(s); /* the file's fingerprint as it is read (stdin is read once) */
    const uint8_t *p;
    size_t n = cal_insrc_peek(s, &p, 4096);
    const char *what = told ? NULL : cal_fmt_binary(p, n);
    if (what && !(n >= 4 && !memcmp(p, "PAR1", 4))) {
        char name[1024];
        snprintf(name, sizeof name, "%s", cal_insrc_name(s));
        const char *codec = cal_insrc_codec(s);
        cal_insrc_close(s);
        cal_die("%s: %s%s%s, not text (-f text reads it anyway)", name, what, strcmp(codec, "none") ? " inside " : "",
                strcmp(codec, "none") ? codec : "");
    }
    if (fmt == CAL_FMT_AUTO || fmt == CAL_FMT_JSON) {
        fmt = fmt == CAL_FMT_JSON ? cal_fmt_json_layout(p, n) : cal_fmt_from_content(p, n);
        if (fmt == CAL_FMT_PARQUET) {
            if (strcmp(cal_insrc_codec(s), "none") != 0) cal_die("%s: compressed Parquet files are not supported", path);
            cal_insrc_close(s);
            return parquet_hashed(r, path, field, fn, ctx);
        }
    }
    int stop = fmt == CAL_FMT_JSONL ? read_jsonl(r, s, fn, ctx)
             : fmt == CAL_FMT_JSON  ? read_json(r, s, fn, ctx)
             : fmt == CAL_FMT_CSV || fmt == CAL_FMT_TSV ? read_csv(r, s, fmt == CAL_FMT_CSV ? ',' : '\t', fn, ctx)
                                    : cal_split(s, fmt, r->sep, r->max, fn, ctx);
    r->file_fp = cal_insrc_raw_digest(s, &r->file_bytes);
    r->file_whole = !stop;
    cal_insrc_close(s);
    return stop;
}

void cal_docfile_free(cal_docfile *r) {
    cal_jsonl_free(&r->json);
    cal_buf_free(&r->fix);
}
