/* summary_svg.c - cal_summary_svg: the summary as a picture a browser opens.
 * Four panels, top to bottom: the domain mix (each label's share of the
 * tokens, or of the records of a TEXT stream), real tokens and padding per
 * label, the length histogram, and what the stages lost. Plain SVG 1.1 with
 * no script and no external reference, so any viewer renders it alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"

#define W 860
#define LEFT 170  /* labels column */
#define BARW (W - LEFT - 120)

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* Text content, XML-escaped, cut to at most max characters (bytes of UTF-8
 * continuation are kept with their character). */
static void xml(cal_buf *b, const char *s, size_t max) {
    size_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xC0) != 0x80 && chars++ == max) {
            cal_buf_add(b, "...", 3);
            return;
        }
        switch (*p) {
        case '&': cal_buf_add(b, "&amp;", 5); break;
        case '<': cal_buf_add(b, "&lt;", 4); break;
        case '>': cal_buf_add(b, "&gt;", 4); break;
        case '"': cal_buf_add(b, "&quot;", 6); break;
        default: cal_buf_addc(b, (char)*p);
        }
    }
}

static void text(cal_buf *b, int x, int y, const char *anchor, const char *style, const char *s, size_t max) {
    cal_buf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" %s>", x, y, anchor, style);
    xml(b, s, max);
    cal_buf_add(b, "</text>\n", 8);
}

static void rect(cal_buf *b, double x, double y, double w, double h, const char *fill) {
    cal_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x, y, w, h, fill);
}

/* What a label weighs in the mix: its real tokens, else its records. */
static double weight(const cal_sum_group *g, int by_tokens) {
    return by_tokens ? (double)g->real : (double)(g->kinds[1] + g->kinds[2] + g->kinds[3] + g->kinds[4]);
}

void cal_summary_svg(const cal_summary *s, cal_buf *out) {
    const cal_sum_group *t = &s->total;
    int by_tokens = t->real > 0;
    size_t ng = s->ng;
    cal_sum_drop *d;
    size_t nd = cal_summary_drops(&s->meta, &d);
    int nbuckets = 0;
    for (int k = 0; k < CAL_SUM_BUCKETS; k++) nbuckets += t->hist[k] > 0;
    int h_mix = 70 + 22 * (int)((ng + 3) / 4), h_pad = t->positions ? 40 + 22 * (int)ng : 0, h_hist = 230,
        h_lost = 40 + 18 * (int)(nd ? nd : 1);
    int height = 60 + h_mix + h_pad + h_hist + h_lost;
    cal_buf b = {0};
    cal_buf_addf(&b,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
                 "font-size=\"13\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                 W, height, W, height);
    char line[512];
    const char *tok = cal_meta_get(&s->meta, "tokenizer");
    if (t->kinds[3])
        snprintf(line, sizeof line, "%llu rows, %llu positions, tokenizer %s", (unsigned long long)t->kinds[3],
                 (unsigned long long)t->positions, tok ? tok : "none");
    else
        snprintf(line, sizeof line, "%llu records, %llu %s, tokenizer %s",
                 (unsigned long long)(t->kinds[1] + t->kinds[2] + t->kinds[4]),
                 (unsigned long long)(t->tokens ? t->tokens : t->text_bytes), t->tokens ? "tokens" : "bytes",
                 tok ? tok : "none");
    text(&b, 20, 30, "start", "font-size=\"18\" font-weight=\"bold\"", "Calibration set", 40);
    text(&b, 190, 30, "start", "fill=\"#444\"", line, 90);
    int y = 60;

    /* The domain mix: one stacked bar, a legend below it. */
    text(&b, 20, y + 14, "start", "font-weight=\"bold\"", by_tokens ? "Domain mix (share of real tokens)"
                                                                     : "Domain mix (share of records)", 60);
    double all = weight(t, by_tokens), x = 20;
    for (size_t i = 0; i < ng; i++) {
        double w = all > 0 ? (W - 40) * weight(&s->g[i], by_tokens) / all : 0;
        rect(&b, x, y + 24, w, 26, palette[i % 10]);
        x += w;
    }
    for (size_t i = 0; i < ng; i++) {
        int lx = 20 + (int)(i % 4) * ((W - 40) / 4), ly = y + 70 + 22 * (int)(i / 4);
        rect(&b, lx, ly - 11, 12, 12, palette[i % 10]);
        snprintf(line, sizeof line, "%s %.1f%%", s->g[i].label,
                 all > 0 ? 100 * weight(&s->g[i], by_tokens) / all : 0.0);
        text(&b, lx + 18, ly, "start", "", line, 28);
    }
    y += h_mix;

    /* Real tokens and padding, per label. */
    if (t->positions) {
        text(&b, 20, y + 14, "start", "font-weight=\"bold\"", "Real tokens (colour) and padding (grey) per label", 70);
        for (size_t i = 0; i < ng; i++) {
            const cal_sum_group *g = &s->g[i];
            int ly = y + 30 + 22 * (int)i;
            double real = (double)(g->real - g->tokens), pos = (double)g->positions;
            text(&b, LEFT - 8, ly + 13, "end", "", g->label, 22);
            rect(&b, LEFT, ly, BARW, 16, "#dddddd");
            rect(&b, LEFT, ly, pos > 0 ? BARW * real / pos : 0, 16, palette[i % 10]);
            snprintf(line, sizeof line, "%.1f%% real", pos > 0 ? 100 * real / pos : 0.0);
            text(&b, LEFT + BARW + 8, ly + 13, "start", "", line, 20);
        }
        y += h_pad;
    }

    /* The length histogram: a bar per power-of-two bucket that has any. */
    const char *unit = t->kinds[3] ? "real tokens per row" : t->kinds[2] ? "tokens per record" : "bytes per record";
    snprintf(line, sizeof line, "Lengths (%s)", unit);
    text(&b, 20, y + 14, "start", "font-weight=\"bold\"", line, 60);
    uint64_t most = 1;
    for (int k = 0; k < CAL_SUM_BUCKETS; k++)
        if (t->hist[k] > most) most = t->hist[k];
    int base = y + h_hist - 40, slot = nbuckets ? (W - 80) / nbuckets : 0, j = 0;
    cal_buf_addf(&b, "<line x1=\"40\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", base, W - 40, base);
    for (int k = 0; k < CAL_SUM_BUCKETS; k++) {
        if (!t->hist[k]) continue;
        double h = 150.0 * (double)t->hist[k] / (double)most;
        int bx = 40 + j * slot;
        rect(&b, bx + slot * 0.1, base - h, slot * 0.8, h, "#4e79a7");
        char name[48], count[32];
        cal_sum_bucket_name(k, t->longest, name, sizeof name);
        snprintf(count, sizeof count, "%llu", (unsigned long long)t->hist[k]);
        text(&b, bx + slot / 2, (int)(base - h) - 4, "middle", "font-size=\"11\"", count, 12);
        text(&b, bx + slot / 2, base + 16, "middle", "font-size=\"11\"", name, 12);
        j++;
    }
    y += h_hist;

    /* What the stages lost. */
    text(&b, 20, y + 14, "start", "font-weight=\"bold\"", "Lost on the way", 40);
    if (!nd) text(&b, 30, y + 36, "start", "fill=\"#444\"", "nothing recorded", 40);
    for (size_t i = 0; i < nd; i++) {
        int n = snprintf(line, sizeof line, "%s: %llu %s %s", d[i].prog, (unsigned long long)d[i].n, d[i].noun,
                         d[i].why);
        if (d[i].unit[0] && n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, " (%llu %s)", (unsigned long long)d[i].amount, d[i].unit);
        text(&b, 30, y + 36 + 18 * (int)i, "start", "", line, 110);
    }
    free(d);
    cal_buf_add(&b, "</svg>\n", 7);
    cal_buf_add(out, b.p, b.n);
    cal_buf_free(&b);
}
