/* docfile.c - see docfile.h. */
#include "text/docfile.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "io/insrc.h"
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
    cal_doc d = {path, NULL, 0, 0, 0, 0};
    json_t *row;
    int got, stop = 0;
    uint64_t nulls = r->json.nulls;
    while (!stop && (got = cal_pqrec_next(q, &row, &d.off, err, sizeof err)) == 1) {
        char msg[512];
        int k = cal_jsonl_record(&r->json, row, &d.text, &d.n, msg, sizeof msg);
        if (k == -2 && r->skip_bad) r->bad++;
        else if (k < 0) cal_die_at(path, d.off, "row %llu: %s", (unsigned long long)cal_pqrec_rows(q) - 1, msg);
        d.chat = r->json.chat;
        if (k > 0) stop = fn(ctx, &d);
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
    cal_doc d = {path, NULL, 0, 0, 0, 0};
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
    cal_doc d = {cal_insrc_name(s), NULL, 0, 0, 0, 0};
    uint64_t nulls = r->json.nulls, lineno = 0;
    int stop = 0, got;
    cal_insrc_skip_bom(s);
    while (!stop && (got = cal_insrc_line(s, &line, &d.off, r->max)) != 0) {
        char err[512];
        size_t pos;
        if (got < 0) cal_die_at(d.file, d.off, "line of more than %zu bytes (the record limit)", r->max);
        lineno++;
        got = cal_jsonl_doc(&r->json, line.p ? line.p : "", line.n, &d.text, &d.n, err, sizeof err, &pos);
        if (got == -2 && r->skip_bad) r->bad++;
        else if (got == -2) cal_die("%s: line %llu: %s", d.file, (unsigned long long)lineno, err);
        else if (got < 0) cal_die_at(d.file, d.off + pos, "%s", err);
        d.chat = r->json.chat;
        if (got > 0) stop = fn(ctx, &d);
    }
    r->nulls += r->json.nulls - nulls;
    cal_buf_free(&line);
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
    if (fmt == CAL_FMT_AUTO) {
        fmt = cal_fmt_from_content(p, n);
        if (fmt == CAL_FMT_PARQUET) {
            if (strcmp(cal_insrc_codec(s), "none") != 0) cal_die("%s: compressed Parquet files are not supported", path);
            cal_insrc_close(s);
            return parquet_hashed(r, path, field, fn, ctx);
        }
    }
    int stop = fmt == CAL_FMT_JSONL ? read_jsonl(r, s, fn, ctx) : cal_split(s, fmt, r->sep, r->max, fn, ctx);
    r->file_fp = cal_insrc_raw_digest(s, &r->file_bytes);
    r->file_whole = !stop;
    cal_insrc_close(s);
    return stop;
}

void cal_docfile_free(cal_docfile *r) { cal_jsonl_free(&r->json); }
