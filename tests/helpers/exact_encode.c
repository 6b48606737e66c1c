/* exact_encode.c - the C side of the exactness suite (tests/ref/exact.py):
 * loads one tokenizer once and encodes the TEXT records of several streams,
 * each with its own flags, through cal_tok_encode (the call cal-encode makes
 * for every record; its threads, labels and ids are tested by
 * test_encode_cli.sh). Writes per record a little-endian u32 count and the
 * u32 ids: the format of the references (hf_encode.js, spm_encode.py), so a
 * whole file compares byte for byte.
 *
 *     exact_encode TOKENIZER FLAGS IN.cal OUT.ids [FLAGS IN.cal OUT.ids]...
 *     FLAGS: plain, or add-special and/or parse-special joined by ','
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/num.h"
#include "stream/stream.h"
#include "tok/tokenizer.h"

static unsigned parse_flags(const char *s) {
    unsigned f = 0;
    if (!strcmp(s, "plain")) return 0;
    char *copy = cal_xstrdup(s), *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (!strcmp(w, "add-special")) f |= CAL_TOK_ADD_SPECIAL;
        else if (!strcmp(w, "parse-special")) f |= CAL_TOK_PARSE_SPECIAL;
        else cal_usage_error("unknown flag '%s' (plain, add-special, parse-special)", w);
    }
    free(copy);
    return f;
}

static void encode_file(const cal_tok *tok, unsigned flags, const char *in, const char *out) {
    cal_reader *r = cal_reader_open(in);
    FILE *f = fopen(out, "wb");
    if (!f) cal_die("%s: %s", out, strerror(errno));
    cal_ids ids = {0};
    cal_buf le = {0};
    cal_rec rec;
    char err[512];
    while (cal_read(r, &rec)) {
        if (rec.kind != CAL_TEXT) cal_reader_die(r, &rec, "expected TEXT records, got %s", cal_kind_name(rec.kind));
        ids.n = 0;
        if (cal_tok_encode(tok, (const char *)rec.payload, rec.payload_len, flags, &ids, err, sizeof err))
            cal_reader_die(r, &rec, "%s", err);
        le.n = 0;
        cal_buf_reserve(&le, 4 * (ids.n + 1));
        cal_st32((uint8_t *)le.p, (uint32_t)ids.n);
        for (size_t i = 0; i < ids.n; i++) cal_st32((uint8_t *)le.p + 4 * (i + 1), ids.v[i]);
        if (fwrite(le.p, 1, 4 * (ids.n + 1), f) != 4 * (ids.n + 1)) cal_die("%s: %s", out, strerror(errno));
    }
    if (fclose(f)) cal_die("%s: %s", out, strerror(errno));
    cal_ids_free(&ids);
    cal_buf_free(&le);
    cal_reader_close(r);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    if (argc < 5 || (argc - 2) % 3) cal_usage_error("usage: exact_encode TOKENIZER FLAGS IN.cal OUT.ids...");
    char err[512];
    cal_tok *tok = cal_tok_load(argv[1], err, sizeof err);
    if (!tok) cal_die("%s: %s", argv[1], err);
    for (int i = 2; i < argc; i += 3) encode_file(tok, parse_flags(argv[i]), argv[i + 1], argv[i + 2]);
    cal_tok_free(tok);
    return 0;
}
