/* tokenizer.c - cal_tok: loads a tokenizer file, dispatches on its content
 * to the native tokenizer.json engine (tok_hf_*.c) or to libsentencepiece
 * (spm_shim.cc), and applies the policy both share:
 *
 *  - Input text is repaired first: invalid UTF-8 becomes U+FFFD per maximal
 *    subpart (utf8_repair.h), which is what the references see (they take
 *    JavaScript / Python strings decoded from the same bytes).
 *  - SentencePiece .model files follow spm_encode and the Hugging Face
 *    LlamaTokenizer conventions:
 *      flags 0              spm_encode --output_format=id: no BOS/EOS, and
 *                           control/unknown piece text ("<s>", "</s>",
 *                           "<unk>") in the input is ordinary text (which is
 *                           all SentencePiece itself can do with it);
 *      CAL_TOK_ADD_SPECIAL  BOS first when the model has one; never EOS
 *                           (LlamaTokenizer add_bos_token=True,
 *                           add_eos_token=False; spm_encode has neither);
 *      CAL_TOK_PARSE_SPECIAL  the text of control and unknown pieces is cut
 *                           out longest-first and becomes their id; the
 *                           pieces of text between them are encoded one by
 *                           one (each gets SentencePiece's own dummy prefix),
 *                           as LlamaTokenizer (legacy) splits on its special
 *                           tokens. User-defined pieces are always matched
 *                           by SentencePiece itself.
 *  - Long texts go to SentencePiece in pieces where that gives the same ids
 *    (spm_chunk.h), else up to a limit, so memory stays bounded. */
#include "tok/tokenizer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "stream/stream.h"
#include "tok/hf.h"
#include "tok/spm_chunk.h"
#include "tok/spm_shim.h"

typedef struct {
    const char *text; /* owned by the spm processor */
    size_t len;
    uint32_t id;
} special_piece;

struct cal_tok {
    tok_hf *hf;
    spm_shim *spm;
    char *name;
    uint64_t fp;
    spm_chunking chunking;   /* spm only: how long texts are encoded */
    special_piece *specials; /* spm only: longest first */
    size_t nspecials;
    unsigned char first_byte[256]; /* first bytes of special pieces */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...) CAL_PRINTF(3, 4);
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Reads the whole file; NULL with err on failure. */
static char *read_file(const char *path, size_t *len, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        set_err(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        set_err(err, errlen, "is a directory");
        return NULL;
    }
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16, n = 0;
    char *p = cal_xmalloc(cap);
    for (;;) {
        if (n == cap) p = cal_xrealloc(p, cap *= 2);
        ssize_t k = read(fd, p + n, cap - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            set_err(err, errlen, "read error: %s", strerror(errno));
            free(p);
            close(fd);
            return NULL;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    close(fd);
    *len = n;
    return p;
}

/* "dir/llama3/tokenizer.json" -> "llama3"; "x/llama2-spm.model" -> "llama2-spm";
 * "gemma.json" -> "gemma". */
static char *name_of(const char *path) {
    const char *end = path + strlen(path);
    while (end > path && end[-1] == '/') end--;
    const char *base = end;
    while (base > path && base[-1] != '/') base--;
    size_t blen = (size_t)(end - base);
    if (blen == strlen("tokenizer.json") && !strncmp(base, "tokenizer.json", blen) && base > path) {
        const char *pend = base - 1;
        while (pend > path && pend[-1] == '/') pend--;
        const char *pb = pend;
        while (pb > path && pb[-1] != '/') pb--;
        if (pend > pb && !(pend - pb == 1 && *pb == '.') && !(pend - pb == 2 && !strncmp(pb, "..", 2)))
            base = pb, end = pend, blen = (size_t)(end - base);
    }
    static const char *ext[] = {".json", ".model"};
    for (size_t i = 0; i < 2; i++) {
        size_t el = strlen(ext[i]);
        if (blen > el && !strncmp(end - el, ext[i], el)) {
            blen -= el;
            break;
        }
    }
    char *s = cal_xmalloc(blen + 1);
    memcpy(s, base, blen);
    s[blen] = 0;
    return s;
}

static int by_length_desc(const void *a, const void *b) {
    const special_piece *x = a, *y = b;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void spm_collect_specials(cal_tok *t) {
    uint32_t n = spm_shim_vocab_size(t->spm);
    t->specials = cal_xcalloc(n ? n : 1, sizeof *t->specials);
    for (uint32_t id = 0; id < n; id++) {
        if (!spm_shim_is_special(t->spm, id)) continue;
        special_piece *sp = &t->specials[t->nspecials];
        sp->text = spm_shim_piece(t->spm, id, &sp->len);
        sp->id = id;
        if (!sp->len) continue;
        t->first_byte[(unsigned char)sp->text[0]] = 1;
        t->nspecials++;
    }
    qsort(t->specials, t->nspecials, sizeof *t->specials, by_length_desc);
}

cal_tok *cal_tok_load(const char *path, char *err, size_t errlen) {
    size_t len;
    char *data = read_file(path, &len, err, errlen);
    if (!data) return NULL;
    cal_tok *t = cal_xcalloc(1, sizeof *t);
    t->fp = cal_hash(data, len);
    size_t i = len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3) ? 3 : 0; /* a BOM */
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
    if (i < len && data[i] == '{') {
        size_t bom = data[0] == '{' || i < 3 || memcmp(data, "\xef\xbb\xbf", 3) ? 0 : 3;
        t->hf = tok_hf_load(data + bom, len - bom, path, err, errlen);
    } else if (len == 0) {
        set_err(err, errlen, "empty file: neither tokenizer.json nor a SentencePiece model");
    } else {
        char why[256];
        t->spm = spm_shim_load(data, len, why, sizeof why);
        if (t->spm) {
            spm_collect_specials(t);
            t->chunking = spm_chunking_of(t->spm, data, len);
        }
        else set_err(err, errlen, "neither JSON (tokenizer.json) nor a SentencePiece model (%s)", why);
    }
    free(data);
    if (!t->hf && !t->spm) {
        free(t);
        return NULL;
    }
    t->name = name_of(path);
    return t;
}

void cal_tok_free(cal_tok *t) {
    if (!t) return;
    if (t->hf) tok_hf_free(t->hf);
    if (t->spm) spm_shim_free(t->spm);
    free(t->specials);
    free(t->name);
    free(t);
}

/* The longest special piece starting at s[i..n), or NULL. */
static const special_piece *special_at(const cal_tok *t, const char *s, size_t i, size_t n) {
    if (!t->first_byte[(unsigned char)s[i]]) return NULL;
    for (size_t k = 0; k < t->nspecials; k++) {
        const special_piece *sp = &t->specials[k];
        if (sp->len <= n - i && !memcmp(s + i, sp->text, sp->len)) return sp;
    }
    return NULL;
}

static int spm_encode(const cal_tok *t, const char *s, size_t n, unsigned flags, cal_ids *out,
                      char *err, size_t errlen) {
    if ((flags & CAL_TOK_ADD_SPECIAL) && spm_shim_bos(t->spm) >= 0)
        cal_ids_push(out, (uint32_t)spm_shim_bos(t->spm));
    if (!(flags & CAL_TOK_PARSE_SPECIAL) || !t->nspecials)
        return spm_chunk_encode(t->spm, &t->chunking, s, n, out, err, errlen);
    size_t start = 0;
    for (size_t i = 0; i < n;) {
        const special_piece *sp = special_at(t, s, i, n);
        if (!sp) {
            i++;
            continue;
        }
        if (i > start && spm_chunk_encode(t->spm, &t->chunking, s + start, i - start, out, err, errlen)) return -1;
        cal_ids_push(out, sp->id);
        i += sp->len;
        start = i;
    }
    if (n > start) return spm_chunk_encode(t->spm, &t->chunking, s + start, n - start, out, err, errlen);
    return 0;
}

int cal_tok_encode(const cal_tok *t, const char *text, size_t len, unsigned flags, cal_ids *out,
                   char *err, size_t errlen) {
    cal_buf fixed = {0};
    if (cal_utf8_valid_prefix(text, len) != len) {
        cal_utf8_repair(text, len, &fixed);
        text = fixed.p;
        len = fixed.n;
    }
    int rc = t->hf ? tok_hf_encode(t->hf, text, len, flags, out, err, errlen)
                   : spm_encode(t, text, len, flags, out, err, errlen);
    cal_buf_free(&fixed);
    return rc;
}

/* spm: control pieces decode to their text (the reference keeps special
 * tokens); runs of ordinary pieces go through SentencePiece. */
static void spm_decode(const cal_tok *t, const uint32_t *ids, size_t n, cal_buf *out) {
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !spm_shim_is_special(t->spm, ids[i])) continue;
        char err[256];
        if (i > start && spm_shim_decode(t->spm, ids + start, i - start, out, err, sizeof err))
            cal_buf_add(out, "\xef\xbf\xbd", 3);
        if (i < n) {
            size_t plen;
            const char *p = spm_shim_piece(t->spm, ids[i], &plen);
            cal_buf_add(out, p, plen);
        }
        start = i + 1;
    }
}

void cal_tok_decode(const cal_tok *t, const uint32_t *ids, size_t n, cal_buf *out) {
    /* Ids outside the vocabulary become U+FFFD; the runs between them are
     * decoded by the engine (which may assume valid ids). */
    uint32_t vs = cal_tok_vocab_size(t);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && ids[i] < vs) continue;
        if (i > start) {
            if (t->hf) tok_hf_decode(t->hf, ids + start, i - start, out);
            else spm_decode(t, ids + start, i - start, out);
        }
        if (i < n) cal_buf_add(out, "\xef\xbf\xbd", 3);
        start = i + 1;
    }
    if (!out->p) cal_buf_add(out, "", 0);
}

const char *cal_tok_name(const cal_tok *t) { return t->name; }
uint64_t cal_tok_fingerprint(const cal_tok *t) { return t->fp; }
uint32_t cal_tok_vocab_size(const cal_tok *t) {
    return t->hf ? tok_hf_vocab_size(t->hf) : spm_shim_vocab_size(t->spm);
}
int64_t cal_tok_bos(const cal_tok *t) { return t->hf ? tok_hf_bos(t->hf) : spm_shim_bos(t->spm); }
int64_t cal_tok_eos(const cal_tok *t) { return t->hf ? tok_hf_eos(t->hf) : spm_shim_eos(t->spm); }
int64_t cal_tok_pad(const cal_tok *t) { return t->hf ? tok_hf_pad(t->hf) : spm_shim_pad(t->spm); }
