/* summary.c - see summary.h: the counts, and their text and JSON forms. */
#include "stats/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "io/jsonscan.h"
#include "stream/drops.h"

/* ---- a set of 64-bit hashes (open addressing; 0 stands for itself + 1) ---- */
struct sum_set {
    uint64_t *v;
    size_t n, cap;
};

/* 1 when h was in the set already; adds it. */
static int set_seen(struct sum_set *s, uint64_t h) {
    if (!h) h = 1;
    if (2 * (s->n + 1) > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *v = cal_xcalloc(cap, sizeof *v);
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i])
                for (size_t j = s->v[i] & (cap - 1);; j = (j + 1) & (cap - 1))
                    if (!v[j]) {
                        v[j] = s->v[i];
                        break;
                    }
        free(s->v);
        s->v = v, s->cap = cap;
    }
    for (size_t j = h & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->v[j] == h) return 1;
        if (!s->v[j]) {
            s->v[j] = h;
            s->n++;
            return 0;
        }
    }
}

cal_summary *cal_summary_new(void) {
    cal_summary *s = cal_xcalloc(1, sizeof *s);
    s->vocab = s->bos = s->eos = -1;
    s->all = cal_xcalloc(1, sizeof *s->all);
    s->per = cal_xcalloc(1, sizeof *s->per);
    snprintf(s->total.label, sizeof s->total.label, "total");
    return s;
}

void cal_summary_header(cal_summary *s, const cal_meta *merged, unsigned headers, unsigned streams) {
    s->headers += headers;
    s->streams += streams;
    cal_meta_copy(&s->meta, merged);
    const char *v = cal_meta_get(merged, "vocab");
    s->vocab = v ? strtoll(v, NULL, 10) : -1;
    v = cal_meta_get(merged, "bos");
    s->bos = v ? strtoll(v, NULL, 10) : -1;
    v = cal_meta_get(merged, "eos");
    s->eos = v ? strtoll(v, NULL, 10) : -1;
}

int cal_sum_bucket(uint64_t len) {
    int b = 0;
    while (len && b < CAL_SUM_BUCKETS - 1) len >>= 1, b++;
    return b;
}

void cal_sum_bucket_name(int b, uint64_t longest, char *out, size_t n) {
    unsigned long long lo = b ? 1ull << (b - 1) : 0, hi = b ? (1ull << b) - 1 : 0;
    if (b == CAL_SUM_BUCKETS - 1) hi = longest;
    if (longest >= lo && longest < hi) hi = longest;
    if (hi <= lo) snprintf(out, n, "%llu", lo);
    else snprintf(out, n, "%llu-%llu", lo, hi);
}

static cal_sum_group *group(cal_summary *s, const char *label, size_t n) {
    for (size_t i = 0; i < s->ng; i++)
        if (strlen(s->g[i].label) == n && !memcmp(s->g[i].label, label, n)) return &s->g[i];
    if (s->ng == CAL_SUM_GROUPS) {
        label = "(other labels)", n = strlen(label);
        for (size_t i = 0; i < s->ng; i++)
            if (!strcmp(s->g[i].label, label)) return &s->g[i];
        s->ng--; /* the last label's group becomes the others' */
        memset(&s->g[s->ng], 0, sizeof s->g[s->ng]);
    }
    if (!(s->ng & (s->ng + 1))) s->g = cal_xrealloc(s->g, (2 * s->ng + 2) * sizeof *s->g);
    cal_sum_group *g = &s->g[s->ng++];
    memset(g, 0, sizeof *g);
    memcpy(g->label, label, n);
    return g;
}

/* The id bitmap's size: the vocabulary, else 2^20 ids (ids past it are
 * counted as beyond the vocabulary). */
static void see(cal_summary *s, cal_sum_group *g, uint32_t id) {
    if (!s->bits) s->bits = s->vocab > 0 && s->vocab <= (1 << 28) ? (size_t)s->vocab : (size_t)1 << 20;
    if (id >= s->bits) {
        if (g == &s->total) s->beyond++;
        return;
    }
    if (!g->seen) g->seen = cal_xcalloc((s->bits + 7) / 8, 1);
    uint8_t bit = (uint8_t)(1u << (id & 7));
    if (!(g->seen[id >> 3] & bit)) g->seen[id >> 3] |= bit, g->distinct++;
}

static void count_ids(cal_summary *s, cal_sum_group *g, const uint8_t *ids, const uint8_t *mask, uint32_t len,
                      int row) {
    int first = 1;
    for (uint32_t i = 0; i < len; i++) {
        if (mask && !mask[i]) continue;
        uint32_t id = cal_ld32(ids + 4 * (size_t)i);
        g->real++;
        g->bos += s->bos >= 0 && id == (uint64_t)s->bos;
        g->eos += s->eos >= 0 && id == (uint64_t)s->eos;
        if (row && first) g->rows_bos += s->bos >= 0 && id == (uint64_t)s->bos;
        first = 0;
        see(s, g, id);
    }
}

static void add_to(cal_summary *s, cal_sum_group *g, const cal_rec *r, uint64_t len) {
    g->kinds[r->kind]++;
    g->hist[cal_sum_bucket(len)]++;
    if (len > g->longest) g->longest = len;
    switch (r->kind) {
    case CAL_TEXT: g->text_bytes += r->payload_len; break;
    case CAL_TOKENS:
        g->tokens += cal_tokens_len(r);
        count_ids(s, g, r->payload, NULL, (uint32_t)cal_tokens_len(r), 0);
        break;
    case CAL_ROW: {
        cal_row_view v = cal_row(r);
        g->positions += v.len;
        if (v.flags & CAL_ROW_NOISE) g->noise++;
        else count_ids(s, g, v.ids, v.mask, v.len, 1);
        break;
    }
    }
}

void cal_summary_add(cal_summary *s, const cal_rec *r) {
    if (r->kind < CAL_TEXT || r->kind > CAL_VECTORS) return;
    uint64_t len = r->payload_len;
    if (r->kind == CAL_TOKENS) len = cal_tokens_len(r);
    if (r->kind == CAL_ROW) {
        cal_row_view v = cal_row(r);
        len = 0;
        if (!(v.flags & CAL_ROW_NOISE))
            for (uint32_t i = 0; i < v.len; i++) len += !v.mask || v.mask[i];
    }
    if (r->kind == CAL_VECTORS) len = cal_vectors(r).n;
    cal_sum_group *g = group(s, r->label, r->label_len);
    /* duplicates: the same kind and payload (ids and mask for a row) */
    uint64_t h = cal_hash_seed(r->payload, r->payload_len, (uint64_t)r->kind);
    s->dups += set_seen(s->all, h);
    g->dups += set_seen(s->per, h ^ cal_hash(r->label, r->label_len) * 0x9E3779B97F4A7C15ull);
    add_to(s, g, r, len);
    add_to(s, &s->total, r, len);
    s->total.dups = s->dups;
}

void cal_summary_free(cal_summary *s) {
    if (!s) return;
    for (size_t i = 0; i < s->ng; i++) free(s->g[i].seen);
    free(s->g);
    free(s->total.seen);
    free(s->all->v), free(s->all);
    free(s->per->v), free(s->per);
    cal_meta_free(&s->meta);
    free(s);
}

/* ---- drops, summed over shards ---- */

size_t cal_summary_drops(const cal_meta *m, cal_sum_drop **out) {
    cal_sum_drop *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        cal_drop_line d;
        if (strcmp(m->key[i], "drop") || cal_drop_parse(m->val[i], &d)) continue;
        size_t k = 0;
        while (k < n && (strcmp(v[k].prog, d.prog) || strcmp(v[k].noun, d.noun) || strcmp(v[k].unit, d.unit) ||
                         strcmp(v[k].why, d.why)))
            k++;
        if (k == n) {
            v = cal_xrealloc(v, (n + 1) * sizeof *v);
            memset(&v[n], 0, sizeof v[n]);
            memcpy(v[n].prog, d.prog, sizeof d.prog);
            memcpy(v[n].noun, d.noun, sizeof d.noun);
            memcpy(v[n].unit, d.unit, sizeof d.unit);
            v[n].why = d.why;
            n++;
        }
        v[k].n += d.n, v[k].amount += d.amount, v[k].chains++;
    }
    *out = v;
    return n;
}

/* ---- text ---- */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0; }

static const char *meta_or(const cal_meta *m, const char *k, const char *dflt) {
    const char *v = cal_meta_get(m, k);
    return v ? v : dflt;
}

/* "--seed N" and "--rng K" of every stage that has them. */
static void seeds(const cal_meta *m, cal_buf *out, int json) {
    int any = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->key[i], "stage")) continue;
        const char *st = m->val[i], *p = strstr(st, " --seed ");
        if (!p) continue;
        unsigned long long seed = strtoull(p + 8, NULL, 10);
        size_t prog = strcspn(st, " ");
        if (json) {
            cal_buf_add(out, any ? ",{\"stage\":" : "{\"stage\":", any ? 10 : 9);
            cal_json_put_str(out, st, prog);
            cal_buf_addf(out, ",\"seed\":%llu}", seed);
        } else {
            cal_buf_addf(out, "%s%.*s %llu", any ? ", " : "", (int)prog, st, seed);
        }
        any = 1;
    }
    if (!any && !json) cal_buf_add(out, "none", 4);
}

static void group_line(const cal_summary *s, const cal_sum_group *g, cal_buf *out) {
    uint64_t recs = g->kinds[1] + g->kinds[2] + g->kinds[3] + g->kinds[4];
    cal_buf_addf(out, "  %-16.64s %9llu %9llu", g->label, (unsigned long long)recs, (unsigned long long)g->kinds[CAL_ROW]);
    if (g->positions)
        cal_buf_addf(out, " %11llu %6.1f%%", (unsigned long long)g->real, pct(g->real - g->tokens, g->positions));
    else cal_buf_addf(out, " %11llu %7s", (unsigned long long)(g->real ? g->real : g->text_bytes), "-");
    cal_buf_addf(out, " %8llu %8llu %8llu", (unsigned long long)g->bos, (unsigned long long)g->eos,
                 (unsigned long long)g->distinct);
    if (s->vocab > 0) cal_buf_addf(out, " %5.1f%%", pct(g->distinct, (uint64_t)s->vocab));
    else cal_buf_add(out, "      -", 7);
    cal_buf_addf(out, " %7llu\n", (unsigned long long)g->dups);
}

void cal_summary_text(const cal_summary *s, cal_shards *sh, cal_buf *out) {
    const cal_meta *m = &s->meta;
    const cal_sum_group *t = &s->total;
    cal_buf_addf(out, "stream: %llu header%s, %llu stream%s; records: TEXT %llu, TOKENS %llu, ROW %llu, VECTORS %llu\n",
                 (unsigned long long)s->headers, s->headers == 1 ? "" : "s", (unsigned long long)s->streams,
                 s->streams == 1 ? "" : "s", (unsigned long long)t->kinds[1], (unsigned long long)t->kinds[2],
                 (unsigned long long)t->kinds[3], (unsigned long long)t->kinds[4]);
    cal_buf_addf(out, "tokenizer: %s (fp %s), vocab %s, bos %s, eos %s, pad %s\n", meta_or(m, "tokenizer", "none"),
                 meta_or(m, "tokenizer_fp", "-"), meta_or(m, "vocab", "-"), meta_or(m, "bos", "-"),
                 meta_or(m, "eos", "-"), meta_or(m, "pad", "-"));
    if (t->positions)
        cal_buf_addf(out, "rows: %llu (%llu noise), %llu positions: %llu real tokens (%.1f%%), %llu padding (%.1f%%)\n",
                     (unsigned long long)t->kinds[CAL_ROW], (unsigned long long)t->noise,
                     (unsigned long long)t->positions, (unsigned long long)(t->real - t->tokens),
                     pct(t->real - t->tokens, t->positions),
                     (unsigned long long)(t->positions - (t->real - t->tokens)),
                     pct(t->positions - (t->real - t->tokens), t->positions));
    if (t->kinds[CAL_ROW]) cal_buf_addf(out, "rows starting with BOS: %llu of %llu\n", (unsigned long long)t->rows_bos,
                                        (unsigned long long)t->kinds[CAL_ROW]);
    if (s->beyond) cal_buf_addf(out, "ids past the vocabulary: %llu\n", (unsigned long long)s->beyond);
    cal_buf_addf(out, "\n  %-16s %9s %9s %11s %7s %8s %8s %8s %6s %7s\n", "label", "records", "rows",
                 t->positions || t->tokens ? "tokens" : "bytes", "real%", "bos", "eos", "distinct", "vocab%", "dups");
    for (size_t i = 0; i < s->ng; i++) group_line(s, &s->g[i], out);
    if (s->ng != 1) group_line(s, t, out);

    const char *unit = t->kinds[CAL_ROW] ? "real tokens per row" : t->kinds[CAL_TOKENS] ? "tokens per record"
                       : t->kinds[CAL_VECTORS] ? "vectors per record" : "bytes per record";
    cal_buf_addf(out, "\nlengths (%s):\n", unit);
    uint64_t most = 1;
    for (int b = 0; b < CAL_SUM_BUCKETS; b++)
        if (t->hist[b] > most) most = t->hist[b];
    for (int b = 0; b < CAL_SUM_BUCKETS; b++) {
        if (!t->hist[b]) continue;
        char name[48];
        cal_sum_bucket_name(b, t->longest, name, sizeof name);
        int bar = (int)((40 * t->hist[b] + most - 1) / most);
        cal_buf_addf(out, "  %21s %9llu %.*s\n", name, (unsigned long long)t->hist[b], bar,
                     "########################################");
    }

    cal_sum_drop *d;
    size_t nd = cal_summary_drops(m, &d);
    cal_buf_add(out, "\nlost on the way:", 17);
    if (!nd) cal_buf_add(out, " nothing recorded", 17);
    cal_buf_addc(out, '\n');
    for (size_t i = 0; i < nd; i++) {
        cal_buf_addf(out, "  %s: %llu %s %s", d[i].prog, (unsigned long long)d[i].n, d[i].noun, d[i].why);
        if (d[i].unit[0]) cal_buf_addf(out, " (%llu %s)", (unsigned long long)d[i].amount, d[i].unit);
        if (d[i].chains > 1) cal_buf_addf(out, " [%llu streams]", (unsigned long long)d[i].chains);
        cal_buf_addc(out, '\n');
    }
    free(d);
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->key[i], "stopped"))
            cal_buf_addf(out, "  note: %s: what stages before it dropped after that is not known\n", m->val[i]);
        if (!strcmp(m->key[i], "partial")) cal_buf_addf(out, "  partial set of shards accepted: %s\n", m->val[i]);
    }
    cal_buf shards = {0};
    if (sh) cal_shards_describe(sh, &shards);
    cal_buf_addf(out, "\nshards: %s%s", shards.n ? "\n  " : "none\n", shards.n ? "" : "");
    for (size_t i = 0; i < shards.n; i++) {
        cal_buf_addc(out, shards.p[i]);
        if (shards.p[i] == '\n' && i + 1 < shards.n) cal_buf_add(out, "  ", 2);
    }
    cal_buf_free(&shards);
    cal_buf_add(out, "inputs:", 7);
    int any = 0;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], "input")) cal_buf_addf(out, "\n  %s", m->val[i]), any = 1;
    cal_buf_add(out, any ? "\n" : " none recorded\n", any ? 1 : 15);
    cal_buf_add(out, "seeds: ", 7);
    seeds(m, out, 0);
    cal_buf_add(out, "\nstages:\n", 9);
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], "stage")) cal_buf_addf(out, "  %s\n", m->val[i]);
}

/* ---- JSON ---- */

static void jkey(cal_buf *b, const char *k) {
    cal_json_put_str(b, k, strlen(k));
    cal_buf_addc(b, ':');
}

static void jstr(cal_buf *b, const char *k, const char *v) {
    jkey(b, k);
    if (v) cal_json_put_str(b, v, strlen(v));
    else cal_buf_add(b, "null", 4);
}

static void jgroup(const cal_summary *s, const cal_sum_group *g, cal_buf *b) {
    cal_buf_addc(b, '{');
    jstr(b, "label", g->label);
    cal_buf_addf(b, ",\"records\":%llu,\"text\":%llu,\"tokens_records\":%llu,\"rows\":%llu,\"vectors\":%llu",
                 (unsigned long long)(g->kinds[1] + g->kinds[2] + g->kinds[3] + g->kinds[4]),
                 (unsigned long long)g->kinds[1], (unsigned long long)g->kinds[2], (unsigned long long)g->kinds[3],
                 (unsigned long long)g->kinds[4]);
    cal_buf_addf(b, ",\"text_bytes\":%llu,\"tokens\":%llu,\"positions\":%llu,\"real_tokens\":%llu,\"padding\":%llu",
                 (unsigned long long)g->text_bytes, (unsigned long long)g->tokens, (unsigned long long)g->positions,
                 (unsigned long long)(g->real - g->tokens),
                 (unsigned long long)(g->positions - (g->real - g->tokens)));
    cal_buf_addf(b, ",\"real_share\":%.6f,\"noise_rows\":%llu,\"bos\":%llu,\"eos\":%llu,\"rows_starting_with_bos\":%llu",
                 g->positions ? (double)(g->real - g->tokens) / (double)g->positions : 0.0,
                 (unsigned long long)g->noise, (unsigned long long)g->bos, (unsigned long long)g->eos,
                 (unsigned long long)g->rows_bos);
    cal_buf_addf(b, ",\"distinct_ids\":%llu,\"vocab_share\":", (unsigned long long)g->distinct);
    if (s->vocab > 0) cal_buf_addf(b, "%.6f", (double)g->distinct / (double)s->vocab);
    else cal_buf_add(b, "null", 4);
    cal_buf_addf(b, ",\"duplicates\":%llu,\"lengths\":[", (unsigned long long)g->dups);
    int first = 1;
    for (int k = 0; k < CAL_SUM_BUCKETS; k++) {
        if (!g->hist[k]) continue;
        char name[48];
        cal_sum_bucket_name(k, g->longest, name, sizeof name);
        cal_buf_addf(b, "%s{\"bucket\":\"%s\",\"min\":%llu,\"count\":%llu}", first ? "" : ",", name,
                     k ? 1ull << (k - 1) : 0ull, (unsigned long long)g->hist[k]);
        first = 0;
    }
    cal_buf_add(b, "]}", 2);
}

static void jlines(cal_buf *b, const cal_meta *m, const char *key) {
    cal_buf_addc(b, '[');
    int first = 1;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], key)) {
            if (!first) cal_buf_addc(b, ',');
            cal_json_put_str(b, m->val[i], strlen(m->val[i]));
            first = 0;
        }
    cal_buf_addc(b, ']');
}

void cal_summary_json(const cal_summary *s, cal_shards *sh, cal_buf *b) {
    const cal_meta *m = &s->meta;
    cal_buf_addf(b, "{\"headers\":%llu,\"streams\":%llu,", (unsigned long long)s->headers,
                 (unsigned long long)s->streams);
    jkey(b, "tokenizer");
    cal_buf_addc(b, '{');
    const char *keys[] = {"tokenizer", "tokenizer_fp", "vocab", "bos", "eos", "pad"};
    for (size_t i = 0; i < 6; i++) {
        if (i) cal_buf_addc(b, ',');
        const char *v = cal_meta_get(m, keys[i]);
        if (i >= 2 && v && *v && strspn(v, "0123456789") == strlen(v) && strlen(v) < 20) {
            jkey(b, keys[i]);
            cal_buf_add(b, v, strlen(v)); /* ids and sizes as numbers */
        } else {
            jstr(b, i ? keys[i] : "name", v);
        }
    }
    cal_buf_addf(b, "},\"ids_past_vocab\":%llu,\"labels\":[", (unsigned long long)s->beyond);
    for (size_t i = 0; i < s->ng; i++) {
        if (i) cal_buf_addc(b, ',');
        jgroup(s, &s->g[i], b);
    }
    cal_buf_add(b, "],\"total\":", 10);
    jgroup(s, &s->total, b);
    cal_buf_add(b, ",\"drops\":[", 10);
    cal_sum_drop *d;
    size_t nd = cal_summary_drops(m, &d);
    for (size_t i = 0; i < nd; i++) {
        if (i) cal_buf_addc(b, ',');
        cal_buf_addc(b, '{');
        jstr(b, "stage", d[i].prog);
        cal_buf_addf(b, ",\"count\":%llu,", (unsigned long long)d[i].n);
        jstr(b, "what", d[i].noun);
        cal_buf_addc(b, ',');
        jstr(b, "why", d[i].why);
        cal_buf_addf(b, ",\"amount\":%llu,", (unsigned long long)d[i].amount);
        jstr(b, "unit", d[i].unit[0] ? d[i].unit : NULL);
        cal_buf_addf(b, ",\"streams\":%llu}", (unsigned long long)d[i].chains);
    }
    free(d);
    cal_buf_add(b, "],\"stopped\":", 12);
    jlines(b, m, "stopped");
    cal_buf_add(b, ",\"partial\":", 11);
    jlines(b, m, "partial");
    cal_buf_add(b, ",\"shards\":[", 11);
    cal_buf fams = {0};
    if (sh) cal_shards_describe(sh, &fams);
    for (size_t i = 0, k = 0; i < fams.n; k++) {
        size_t e = i;
        while (e < fams.n && fams.p[e] != '\n') e++;
        if (k) cal_buf_addc(b, ',');
        cal_json_put_str(b, fams.p + i, e - i);
        i = e + 1;
    }
    cal_buf_free(&fams);
    cal_buf_add(b, "],\"inputs\":", 11);
    jlines(b, m, "input");
    cal_buf_add(b, ",\"seeds\":[", 10);
    seeds(m, b, 1);
    cal_buf_add(b, "],\"stages\":", 11);
    jlines(b, m, "stage");
    cal_buf_add(b, "}\n", 2);
}
