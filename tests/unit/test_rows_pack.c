/* test_rows_pack.c - lib/rows/pack.c and pack_draw.c: every mode, policy,
 * filter, drop count and error against exact expectations (worked out by
 * hand from the rules in man/cal-pack.1; the seeded draws and row ids from
 * the independent Python model tests/py/packref.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "rows/pack.h"
#include "stream/stream.h"
#include "test.h"

/* Every row as "label:ids[/mask]" lines; ids of the rows kept apart. */
static cal_buf got;
static uint64_t ids[64];
static size_t nrows;

static void keep(void *ctx, const cal_row_out *r) {
    (void)ctx;
    cal_buf_addf(&got, "%s%s%s:", got.n ? "|" : "", r->flags & CAL_ROW_NOISE ? "!" : "", r->label);
    for (uint32_t i = 0; i < r->len; i++) cal_buf_addf(&got, "%s%u", i ? " " : "", r->ids[i]);
    if (r->mask) {
        cal_buf_addc(&got, '/');
        for (uint32_t i = 0; i < r->len; i++) cal_buf_addc(&got, (char)('0' + r->mask[i]));
    }
    if (nrows < 64) ids[nrows] = r->id;
    nrows++;
}

typedef struct {
    const char *label;
    uint64_t id;
    uint32_t ids[12];
    size_t n;
} doc;

static char err[512];
static char drops[512];

/* The documents read again (cal_packer_reread), as a regular file is. */
typedef struct {
    const doc *d;
    size_t nd, at;
} replay;

static void replay_rewind(void *ctx) { ((replay *)ctx)->at = 0; }
static int replay_next(void *ctx, cal_pack_doc *x) {
    replay *r = ctx;
    if (r->at == r->nd) return 0;
    const doc *d = &r->d[r->at++];
    *x = (cal_pack_doc){d->ids, d->n, d->id, d->label, strlen(d->label), NULL};
    return 1;
}

/* Packs docs with o one way: 0 the documents kept in memory, 1 kept in a
 * temporary file (o.mem of 1 byte), 2 read again (cal_packer_reread). */
static const char *pack_way(const cal_pack_opts *opts, const doc *d, size_t nd, int way) {
    cal_pack_opts o = *opts;
    if (way == 1) o.mem = 1;
    got.n = 0;
    nrows = 0;
    cal_packer *p = cal_packer_new(&o, keep, NULL);
    replay rp = {d, nd, 0};
    if (way == 2) cal_packer_reread(p, replay_rewind, replay_next, &rp);
    for (size_t i = 0; i < nd && cal_packer_wants(p); i++)
        cal_packer_add(p, d[i].ids, d[i].n, d[i].id, d[i].label, strlen(d[i].label));
    int rc = cal_packer_finish(p, err, sizeof err);
    cal_buf b = {0};
    cal_drops_format(&cal_packer_stats(p)->drops, &b);
    cal_buf_addc(&b, 0);
    snprintf(drops, sizeof drops, "%s", b.p);
    cal_buf_free(&b);
    cal_packer_free(p);
    if (rc) {
        got.n = 0;
        cal_buf_addf(&got, "ERR: %s", err);
    }
    cal_buf_addc(&got, 0);
    got.n--;
    return got.p;
}

/* Packs docs with o; returns the rows (or "ERR: message" when finish fails),
 * the same whichever way the documents are held (else "WAYS DIFFER"). */
static const char *pack(const cal_pack_opts *o, const doc *d, size_t nd) {
    static char first[4096], fdrops[512];
    static uint64_t fids[64];
    snprintf(first, sizeof first, "%s", pack_way(o, d, nd, 0));
    snprintf(fdrops, sizeof fdrops, "%s", drops);
    memcpy(fids, ids, sizeof ids);
    size_t frows = nrows;
    for (int way = 1; way <= 2; way++)
        if (strcmp(pack_way(o, d, nd, way), first) || strcmp(drops, fdrops) || memcmp(ids, fids, sizeof ids) ||
            nrows != frows) {
            static char why[4200];
            snprintf(why, sizeof why, "WAYS DIFFER (%d): %s", way, got.p);
            return why;
        }
    return first;
}

static cal_pack_opts base(uint32_t len) {
    cal_pack_opts o;
    cal_pack_opts_init(&o);
    o.len = len;
    o.bos_id = 1, o.eos_id = 2, o.pad_id = 0;
    return o;
}

#define IS(got, want, name) CHECK(!strcmp(got, want), "%s: '%s'", name, got)

int main(void) {
    doc d1[] = {{"a", 101, {1, 2, 3, 4, 5}, 5}, {"b", 102, {6, 7, 8}, 3}};
    cal_pack_opts o = base(4);
    IS(pack(&o, d1, 2), "a:1 2 3 4|a:5 6 7 8", "concat: consecutive rows, label of the row's first document");
    CHECK(ids[1] == 0xf6cf6bd6227a4608ULL, "concat: row id = XXH3(doc id 101, offset 4; seed LENGTH)");
    IS(drops, "", "concat: nothing dropped");
    d1[1].n = 2;
    IS(pack(&o, d1, 2), "a:1 2 3 4", "concat: the partial last row is dropped");
    IS(drops, "3 tokens dropped as the last partial row (--tail drop)", "concat: and counted");
    o.tail_pad = 1;
    IS(pack(&o, d1, 2), "a:1 2 3 4|a:5 6 7 0/1110", "--tail pad: padded, with a mask");
    o = base(4);
    o.have_n = 1, o.n = 1;
    IS(pack(&o, d1, 2), "a:1 2 3 4", "-n 1: one row, the rest unread and not a drop");
    IS(drops, "", "-n 1: nothing counted as dropped");

    doc d2[] = {{"x", 1, {10, 11, 12}, 3}, {"y", 2, {13, 14}, 2}};
    o = base(4);
    o.sep = CAL_SEP_EOS, o.bos = CAL_POL_ROW;
    IS(pack(&o, d2, 2), "x:1 10 11 12|y:1 2 13 14", "--sep eos --bos row: the separator belongs to the next document");
    o = base(4);
    o.bos = CAL_POL_DOC, o.eos = CAL_POL_DOC;
    IS(pack(&o, d2, 2), "x:1 10 11 12|x:2 1 13 14", "--bos doc --eos doc: BOS text EOS per document");
    o = base(3);
    o.eos = CAL_POL_ALT;
    o.have_n = 1, o.n = 2;
    IS(pack(&o, d2, 2), "x:10 11 2|x:12 13 14", "--eos alt: even rows end with EOS");

    /* EXL2 wiki: BOS+article+EOS until >= LENGTH+1, first half without BOS */
    doc d3[] = {{"A", 1, {10, 11}, 2}, {"B", 2, {12, 13, 14}, 3}, {"C", 3, {15}, 1}, {"D", 4, {16, 17, 18, 19}, 4}};
    o = base(4);
    o.mode = CAL_PACK_ARTICLE, o.bos = CAL_POL_HALF, o.eos = CAL_POL_DOC, o.have_n = 1, o.n = 2;
    IS(pack(&o, d3, 4), "A:10 11 2 1|C:1 15 2 1", "article --bos half --eos doc (exllamav2)");
    IS(drops, "9 tokens dropped as the rest of each row's last document (--mode article)", "article: rest counted");
    o.n = 3;
    IS(pack(&o, d3, 4), "ERR: the input gives only 2 rows of 4 tokens, -n 3 asked (use --allow-short)",
       "article: too short for -n");
    o.allow_short = 1;
    IS(pack(&o, d3, 4), "A:10 11 2 1|C:1 15 2 1", "article: --allow-short gives what there is");
    IS(drops, "9 tokens dropped as the rest of each row's last document (--mode article), 1 rows short of -n 3 "
              "(--allow-short)", "article: the rows --allow-short let go are said");

    doc d4[] = {{"l", 7, {10, 11, 12, 13, 14, 15, 16}, 7}, {"s", 8, {20, 21}, 2}};
    o = base(5);
    o.mode = CAL_PACK_DOC, o.bos = CAL_POL_ROW;
    IS(pack(&o, d4, 2), "l:1 10 11 12 13|s:1 20 21 0 0/11100", "doc: truncated tail, padded right with a mask");
    IS(drops, "1 documents truncated by --truncate tail (3 tokens dropped), 1 rows padded to -l 5 (2 tokens)",
       "doc: cut tokens counted, padding said");
    o.truncate = 1, o.pad_side = 1;
    IS(pack(&o, d4, 2), "l:1 13 14 15 16|s:0 0 1 20 21/00111", "doc: --truncate head --pad left");
    IS(drops, "1 documents truncated by --truncate head (3 tokens dropped), 1 rows padded to -l 5 (2 tokens)",
       "doc: counted under --truncate head");

    doc d5[] = {{"a", 1, {5}, 1}, {"b", 2, {1, 2, 3, 4, 5}, 5}, {"c", 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 10}};
    o = base(5);
    o.min_tokens = 2, o.max_tokens = 8;
    IS(pack(&o, d5, 3), "b:1 2 3 4 5", "--min-tokens 2 --max-tokens 8 keep the 5-token document");
    IS(drops, "1 documents dropped by --min-tokens 2 (1 tokens), 1 documents dropped by --max-tokens 8 (10 tokens)",
       "filters: each counted under its option");
    o = base(6);
    IS(pack(&o, d5, 1), "ERR: input has 1 tokens in 1 documents; no row of 6 tokens is possible (use --allow-short)",
       "no -n, no row possible: an error (issue 14)");
    o.min_tokens = 3;
    IS(pack(&o, d5, 2),
       "ERR: input has 6 tokens in 2 documents (1 documents dropped by --min-tokens 3 (1 tokens)); "
       "no row of 6 tokens is possible (use --allow-short)",
       "no row possible: the message says what the filters dropped");
    o.allow_short = 1;
    IS(pack(&o, d5, 2), "", "--allow-short: no rows, no error");
    o = base(6);
    IS(pack(&o, d5, 0), "ERR: input has 0 tokens in 0 documents; no row of 6 tokens is possible (use --allow-short)",
       "empty input: an error");
    o.have_n = 1, o.n = 0;
    IS(pack(&o, d5, 0), "", "-n 0: no data rows asked, none made");

    /* windows: the draws of packref.window(docs, 4, 5, seed 7, ...) */
    doc d6[] = {{"a", 101, {10, 11, 12, 13, 14}, 5}, {"b", 102, {20, 21}, 2},
                {"c", 103, {30, 31, 32, 33, 34, 35, 36}, 7}, {"d", 104, {40, 41, 42}, 3}};
    o = base(4);
    o.mode = CAL_PACK_WINDOW, o.have_n = 1, o.n = 5, o.seed = 7, o.bos = CAL_POL_ROW, o.sep = CAL_SEP_EOS;
    IS(pack(&o, d6, 4), "c:1 35 36 2|a:1 13 14 2|b:1 21 2 30|c:1 2 30 31|c:1 30 31 32",
       "window over the concatenation (wikitext2), seed 7");
    CHECK(ids[0] == 0xdcc012d8b8de2482ULL && ids[2] == 0x1d1760066dbfc324ULL, "window: row ids from the window start");
    o.sep = CAL_SEP_NONE, o.per_doc = 1;
    IS(pack(&o, d6, 4), "c:1 30 31 32|a:1 11 12 13|c:1 31 32 33|c:1 33 34 35|a:1 10 11 12",
       "window --per-doc (c4): documents of more than 3 tokens, seed 7");
    o.len = 9;
    IS(pack(&o, d6, 4),
       "ERR: no document has more than 8 tokens; window --per-doc needs one (0 rows possible)",
       "window --per-doc: none long enough");
    o.per_doc = 0, o.len = 22;
    IS(pack(&o, d6, 4), "ERR: input has 17 tokens; window mode needs at least 22 (0 rows possible)",
       "window: input too short");

    /* stratify: bounds 2,4 -> buckets (0,2], (2,...); 2 draws each, seed 3 */
    doc d7[7];
    size_t lens[] = {1, 3, 5, 2, 4, 6, 2};
    for (size_t i = 0; i < 7; i++) {
        d7[i].label = "s";
        d7[i].id = 200 + i;
        d7[i].n = lens[i];
        for (size_t k = 0; k < lens[i]; k++) d7[i].ids[k] = (uint32_t)(100 * i + k);
    }
    uint64_t bounds[] = {2, 4};
    o = base(4);
    o.mode = CAL_PACK_DOC, o.strata = bounds, o.nstrata = 2, o.have_n = 1, o.n = 4, o.seed = 3;
    IS(pack(&o, d7, 7), "s:100 101 102 0/1110|s:200 201 202 203|s:300 301 0 0/1100|s:600 601 0 0/1100",
       "stratify: documents 1 2 3 6 drawn, rows in input order");
    o.n = 8;
    IS(pack(&o, d7, 7), "ERR: length bucket 1-2 has 3 documents, 4 needed for -n 8 (use --allow-short)",
       "stratify: a short bucket is named");

    /* synthetic rows */
    got.n = 0;
    nrows = 0;
    cal_pack_synthetic(4, CAL_RNG_CALKIT, 5, 2, 50, 1, keep, NULL);
    cal_buf_addc(&got, 0);
    IS(got.p, "random:23 1 49 38|random:17 41 45 26|!noise:0 0 0 0", "random rows by the documented RNG, noise flagged");
    CHECK(ids[0] == 0x54802e29ce22cd8fULL && ids[2] == 0x496ef2c0a7d5697dULL, "synthetic row ids");

    /* option checks */
    o = base(0);
    CHECK(cal_pack_check(&o, err, sizeof err) && !strcmp(err, "-l LENGTH is required"), "check: %s", err);
    o = base(4);
    o.mode = CAL_PACK_WINDOW;
    CHECK(cal_pack_check(&o, err, sizeof err) && !strcmp(err, "--mode window needs -n ROWS"), "check: %s", err);
    o = base(4);
    o.pad_side = 0;
    CHECK(cal_pack_check(&o, err, sizeof err) && !strcmp(err, "--truncate and --pad need --mode doc"),
          "check: --pad right given outside doc mode: %s", err);
    o = base(4);
    o.mode = CAL_PACK_ARTICLE, o.bos = CAL_POL_ROW;
    CHECK(cal_pack_check(&o, err, sizeof err) && strstr(err, "--mode article takes"), "check: %s", err);
    o = base(4);
    CHECK(!cal_pack_check(&o, err, sizeof err) && !cal_pack_check_ids(&o, err, sizeof err), "check: defaults pass");
    o.bos = CAL_POL_ROW, o.bos_id = -1;
    CHECK(cal_pack_check_ids(&o, err, sizeof err) && strstr(err, "give --bos-id"), "check ids: %s", err);
    o = base(2);
    o.bos = CAL_POL_ROW, o.eos = CAL_POL_ROW;
    CHECK(cal_pack_check_ids(&o, err, sizeof err) && !strcmp(err, "-l 2 leaves no room for tokens besides BOS/EOS"),
          "check ids: %s", err);
    o.mode = CAL_PACK_ARTICLE, o.bos = CAL_POL_DOC, o.eos = CAL_POL_DOC;
    CHECK(!cal_pack_check_ids(&o, err, sizeof err), "article: BOS/EOS around documents leave the row's room");
    size_t ns;
    uint64_t *st = cal_pack_parse_strata("64,128,,256", &ns);
    CHECK(ns == 3 && st[0] == 64 && st[1] == 128 && st[2] == 256, "--stratify 64,128,,256");
    free(st);
    cal_buf_free(&got);
    TEST_END();
}
