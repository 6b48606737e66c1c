/* spm_unigram.c - a SentencePiece unigram model by calkit's normalizer and
 * Viterbi search (see spm_unigram.h). */
#include "tok/spm_unigram.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "tok/charsmap.h"
#include "tok/spm_proto.h"
#include "tok/hf_int.h"
#include "tok/unigram.h"

enum { NFLAGS = 7 + 256 }; /* the image's settings: 7 numbers, then user_first */

struct spm_unigram {
    ug_model ug;
    int dummy_prefix, remove_extra, escape, suffix, has_user;
    uint8_t user_first[256];   /* bytes a user-defined piece starts with */
    uint32_t user_max;         /* the longest user-defined piece, in bytes */
    charsmap cm;
    int has_cm;
    const uint8_t *blob;  /* the character map as the model holds it (for the image) */
    size_t blob_len;
    uint8_t *own_blob;
    uint64_t num[UG_IMAGE_NUMS], flags[NFLAGS]; /* the image's numbers, kept until it is written */
};

#define SPACE_SYMBOL "\xe2\x96\x81" /* U+2581 */

/* ---- building ---- */

spm_unigram *spm_unigram_build(const void *data, size_t len, char *why, size_t whylen) {
    spm_model m;
    if (spm_model_read(&m, data, len, why, whylen)) return NULL;
    if (m.model_type != 1) {
        snprintf(why, whylen, "not a unigram model");
        spm_model_free(&m);
        return NULL;
    }
    spm_unigram *u = cal_xcalloc(1, sizeof *u);
    if (m.charsmap) {
        if (charsmap_init(&u->cm, m.charsmap, m.charsmap_len, why, whylen)) {
            spm_model_free(&m);
            free(u);
            return NULL;
        }
        u->has_cm = 1;
        u->own_blob = cal_xmalloc(m.charsmap_len);
        memcpy(u->own_blob, m.charsmap, m.charsmap_len);
        u->blob = u->own_blob;
        u->blob_len = m.charsmap_len;
        /* the strings must outlive the model's bytes */
        charsmap_free(&u->cm);
        charsmap_init(&u->cm, u->blob, u->blob_len, why, whylen);
    }
    u->dummy_prefix = m.dummy_prefix;
    u->remove_extra = m.remove_extra;
    u->escape = m.escape;
    u->suffix = m.suffix;
    uint32_t n = (uint32_t)m.n, unk = UG_NONE, byte_id[256];
    for (int c = 0; c < 256; c++) byte_id[c] = UG_NONE;
    const char **text = cal_xmalloc((n ? n : 1) * sizeof *text);
    uint32_t *tlen = cal_xmalloc((n ? n : 1) * sizeof *tlen);
    double *score = cal_xmalloc((n ? n : 1) * sizeof *score);
    uint8_t *kind = cal_xmalloc(n ? n : 1);
    /* Model::Model: min and max over the normal pieces, from FLT_MAX and FLT_MIN */
    float min_score = FLT_MAX, max_score = FLT_MIN;
    for (uint32_t id = 0; id < n; id++) {
        const spm_piece *p = &m.pieces[id];
        text[id] = p->text;
        tlen[id] = p->len;
        score[id] = p->score;
        kind[id] = p->type == SPM_P_NORMAL ? UG_K_NORMAL : p->type == SPM_P_USER ? UG_K_USER
                 : p->type == SPM_P_UNUSED ? UG_K_UNUSED : UG_K_OUT;
        if (p->type == SPM_P_USER && p->len) {
            u->has_user = 1;
            u->user_first[(uint8_t)p->text[0]] = 1;
            if (p->len > u->user_max) u->user_max = p->len;
        }
        if (p->type == SPM_P_NORMAL) {
            if (p->score < min_score) min_score = p->score;
            if (p->score > max_score) max_score = p->score;
        }
        if (p->type == SPM_P_UNKNOWN && unk == UG_NONE) unk = id;
        if (p->type == SPM_P_BYTE && p->len == 6 && !memcmp(p->text, "<0x", 3) && p->text[5] == '>') {
            unsigned v;
            char hex[3] = {p->text[3], p->text[4], 0};
            if (sscanf(hex, "%2X", &v) == 1) byte_id[v] = id;
        }
    }
    const char *no = unk == UG_NONE ? "no unknown piece" : NULL;
    for (int c = 0; c < 256 && m.byte_fallback && !no; c++)
        if (byte_id[c] == UG_NONE) no = "byte_fallback without its 256 byte pieces";
    if (!no) {
        float unk_score = min_score - 10.0f; /* kUnkPenalty */
        ug_build(&u->ug, UG_SPM, n, text, tlen, score, kind, unk, m.byte_fallback, byte_id, unk_score, max_score);
    }
    free(text), free(tlen), free(score), free(kind);
    spm_model_free(&m);
    if (no) {
        snprintf(why, whylen, "%s", no);
        spm_unigram_free(u);
        return NULL;
    }
    return u;
}

void spm_unigram_free(spm_unigram *u) {
    if (!u) return;
    ug_free(&u->ug);
    charsmap_free(&u->cm);
    free(u->own_blob);
    free(u);
}

/* ---- the normalizer ---- */

/* string_util::DecodeUTF8's length of the character at s (n > 0), 0 when
 * malformed (one byte is then consumed as U+FFFD). */
static size_t utf8_len(const uint8_t *s, size_t n) {
    uint32_t c;
    if (s[0] < 0x80) return 1;
    if (n >= 2 && (s[0] & 0xE0) == 0xC0) {
        c = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
        return (s[1] & 0xC0) == 0x80 && c >= 0x80 ? 2 : 0;
    }
    if (n >= 3 && (s[0] & 0xF0) == 0xE0) {
        c = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
        return (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && c >= 0x800 && (c < 0xD800 || c > 0xDFFF) ? 3 : 0;
    }
    if (n >= 4 && (s[0] & 0xF8) == 0xF0) {
        c = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
        return (s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 && c >= 0x10000 && c <= 0x10FFFF
                   ? 4 : 0;
    }
    return 0;
}

/* Normalizer::NormalizePrefix: the replacement of the prefix of s[0..n)
 * it consumes (its length returned). */
static size_t norm_prefix(const spm_unigram *u, const char *s, size_t n, const char **rep, size_t *replen) {
    if (u->has_user && u->user_first[(uint8_t)s[0]]) { /* the longest user-defined piece (PrefixMatcher) */
        size_t best = 0, lim = n < u->user_max ? n : u->user_max;
        uint32_t node = 0;
        for (size_t k = 0; k < lim;) {
            uint32_t id;
            node = ug_child(&u->ug, node, (uint8_t)s[k], &id);
            if (!node) break;
            k++;
            if (id != UG_NONE && u->ug.kind[id] == UG_K_USER) best = k;
        }
        if (best) {
            *rep = s;
            *replen = best;
            return best;
        }
    }
    if (u->has_cm && charsmap_starts(&u->cm, (uint8_t)s[0])) {
        size_t k = charsmap_longest(&u->cm, s, n, rep, replen);
        if (k) return k;
    }
    size_t k = utf8_len((const uint8_t *)s, n);
    if (!k) {
        *rep = "\xef\xbf\xbd";
        *replen = 3;
        return 1;
    }
    *rep = s;
    *replen = k;
    return k;
}

static void add_ws(const spm_unigram *u, cal_buf *out) {
    if (u->escape) cal_buf_add(out, SPACE_SYMBOL, 3);
    else cal_buf_addc(out, ' ');
}

/* Normalizer::Normalize into out; -1 as soon as out exceeds limit bytes. */
static int normalize(const spm_unigram *u, const char *s, size_t n, cal_buf *out, size_t limit) {
    const char *rep;
    size_t rl;
    if (u->remove_extra) /* heading spaces */
        while (n) {
            size_t k = norm_prefix(u, s, n, &rep, &rl);
            if (!(rl == 1 && rep[0] == ' ')) break;
            s += k, n -= k;
        }
    if (!n) return 0;
    if (!u->suffix && u->dummy_prefix) add_ws(u, out);
    int prev_space = u->remove_extra;
    while (n) {
        size_t k = norm_prefix(u, s, n, &rep, &rl);
        while (prev_space && rl && rep[0] == ' ') rep++, rl--;
        if (rl) {
            if (!u->escape || !memchr(rep, ' ', rl)) cal_buf_add(out, rep, rl);
            else
                for (size_t i = 0; i < rl; i++) {
                    if (rep[i] == ' ') cal_buf_add(out, SPACE_SYMBOL, 3);
                    else cal_buf_addc(out, rep[i]);
                }
            prev_space = rep[rl - 1] == ' ';
        }
        s += k, n -= k;
        if (!u->remove_extra) prev_space = 0;
        if (out->n > limit) return -1;
    }
    if (u->remove_extra) { /* trailing spaces */
        const char *sp = u->escape ? SPACE_SYMBOL : " ";
        size_t sl = u->escape ? 3 : 1;
        while (out->n >= sl && !memcmp(out->p + out->n - sl, sp, sl)) out->n -= sl;
    }
    if (u->suffix && u->dummy_prefix) add_ws(u, out);
    return 0;
}

void spm_unigram_normalize(const spm_unigram *u, const char *s, size_t n, cal_buf *out) {
    normalize(u, s, n, out, SIZE_MAX);
}

int spm_unigram_encode(const spm_unigram *u, const char *text, size_t n, cal_ids *out, char *err, size_t errlen) {
    cal_buf norm = {0};
    int rc = 0;
    if (normalize(u, text, n, &norm, SPM_UG_MAX) || norm.n > SPM_UG_MAX)
        rc = cal_errf(err, errlen,
                      "SentencePiece unigram: a text of %zu bytes normalizes to over %zu MiB; calkit's unigram search "
                      "takes at most that at a time (about 13 bytes of memory per byte): cut long documents first "
                      "(cal-read --max-chars)",
                      n, SPM_UG_MAX >> 20);
    else if (norm.n) {
        ug_scratch sc = {0};
        rc = ug_encode(&u->ug, norm.p, norm.n, &sc, out, err, errlen);
        ug_scratch_free(&sc);
    }
    cal_buf_free(&norm);
    return rc;
}

/* ---- image ---- */

void spm_unigram_image_parts(spm_unigram *u, tok_image_parts *w, uint32_t tag0) {
    static const uint8_t none = 0;
    uint64_t f[7] = {(uint64_t)u->dummy_prefix, (uint64_t)u->remove_extra, (uint64_t)u->escape, (uint64_t)u->suffix,
                     (uint64_t)u->has_user, (uint64_t)u->has_cm, u->user_max};
    memcpy(u->flags, f, sizeof f);
    for (int c = 0; c < 256; c++) u->flags[7 + c] = u->user_first[c];
    ug_image_parts(&u->ug, w, tag0, u->num);
    tok_image_add(w, tag0 + 4, 8, u->flags, NFLAGS);
    tok_image_add(w, tag0 + 5, 1, u->has_cm ? u->blob : &none, u->has_cm ? u->blob_len : 0);
}

spm_unigram *spm_unigram_from_image(const tok_image *im, uint32_t tag0, char *err, size_t errlen) {
    uint64_t nf, nb;
    const uint64_t *f = tok_image_get(im, tag0 + 4, 8, &nf);
    const uint8_t *blob = tok_image_get(im, tag0 + 5, 1, &nb);
    if (!f || nf != NFLAGS || !blob) {
        cal_errf(err, errlen, "its SentencePiece unigram sections do not fit together");
        return NULL;
    }
    spm_unigram *u = cal_xcalloc(1, sizeof *u);
    if (ug_image_restore(&u->ug, im, tag0, err, errlen)) {
        free(u);
        return NULL;
    }
    u->dummy_prefix = f[0] != 0;
    u->remove_extra = f[1] != 0;
    u->escape = f[2] != 0;
    u->suffix = f[3] != 0;
    u->has_user = f[4] != 0;
    u->has_cm = f[5] != 0;
    u->user_max = f[6] > UINT32_MAX ? UINT32_MAX : (uint32_t)f[6];
    for (int c = 0; c < 256; c++) u->user_first[c] = f[7 + c] != 0;
    if (u->ug.mode != UG_SPM || (u->has_cm && charsmap_init(&u->cm, blob, nb, err, errlen))) {
        if (u->ug.mode != UG_SPM) cal_errf(err, errlen, "its SentencePiece unigram sections do not fit together");
        spm_unigram_free(u);
        return NULL;
    }
    u->blob = blob;
    u->blob_len = nb;
    return u;
}
