/* tokenizer.c - cal_tok: loads a tokenizer file, dispatches on its content
 * to the native tokenizer.json engine (tok_hf_*.c) or to libsentencepiece
 * (spm_shim.cc; a BPE .model that spm_bpe.h replays exactly is encoded by
 * the native engine), keeps the prepared image of a tokenizer.json load in
 * the cache (tok/cache.h), and applies the policy both share:
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
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/hash.h"
#include "base/utf8.h"
#include "stream/stream.h"
#include "tok/cache.h"
#include "tok/config.h"
#include "tok/find.h"
#include "tok/hf.h"
#include "tok/spm_bpe.h"
#include "tok/spm_chunk.h"
#include "tok/spm_proto.h"
#include "tok/spm_shim.h"
#include "tok/spm_unigram.h"

typedef struct {
    const char *text; /* owned by the spm processor */
    size_t len;
    uint32_t id;
} special_piece;

struct cal_tok {
    tok_hf *hf;
    spm_shim *spm;
    tok_hf *spm_bpe;         /* spm: the model encoded by calkit's BPE (spm_bpe.h), or NULL */
    spm_unigram *spm_ug;     /* spm: the model encoded by calkit's unigram search (spm_unigram.h), or NULL */
    char *spm_engine;        /* spm: which engine encodes, and why */
    /* A .model restored from a prepared image has spm_bpe or spm_ug but no spm: the
     * library is loaded from spm_file only to decode (spm_lazy). */
    int spm_image;
    uint32_t spm_vocab;
    char *spm_file;
    pthread_mutex_t spm_lock;
    char *name;
    uint64_t fp;
    spm_chunking chunking;   /* spm only: how long texts are encoded */
    special_piece *specials; /* spm only: longest first */
    size_t nspecials;
    unsigned char first_byte[256]; /* first bytes of special pieces */
    int64_t special[TC_NSPECIAL];  /* bos, eos, pad ids, or -1 */
    char *from[TC_NSPECIAL];       /* where each came from */
    int spm_bos, spm_eos;          /* spm: what --add-special adds */
    char *tmpl_from;               /* where the --add-special template came from */
    tok_config cfg;                /* a model folder's configuration (cfg.cls NULL: none) */
    char *made;                    /* special tokens the configuration made new tokens, as recorded */
    char *files;                   /* the files read */
    tok_image *image;              /* spm_ug restored from an image: the mapping its tables point into */
};

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

/* Loads the tokenizer file itself (tokenizer.json or a .model, by content). */
static int load_file(cal_tok *t, const char *path, char *err, size_t errlen) {
    size_t len;
    char why[256];
    char *data = tok_read_file(path, &len, why, sizeof why);
    if (!data) {
        /* a bare name that is neither a file nor a fetched tokenizer */
        if (errno == ENOENT && !strchr(path, '/')) {
            char *names = cal_tok_names();
            cal_errf(err, errlen, "no such file or folder, nor a fetched tokenizer name (%s; see cal-encode --list)",
                    *names ? names : "none fetched: make tokenizers");
            free(names);
        } else cal_errf(err, errlen, "%s", why);
        return -1;
    }
    t->fp = cal_hash(data, len);
    size_t i = len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3) ? 3 : 0; /* a BOM */
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
    if (i < len && data[i] == '{') {
        size_t bom = data[0] == '{' || i < 3 || memcmp(data, "\xef\xbb\xbf", 3) ? 0 : 3;
        t->hf = tok_hf_load(data + bom, len - bom, path, err, errlen);
    } else if (len == 0) {
        cal_errf(err, errlen, "empty file: neither tokenizer.json nor a SentencePiece model");
    } else if (!spm_shim_available(NULL, 0)) {
        /* a .model parsed afresh needs libsentencepiece; say so only of one */
        char no[1024];
        spm_model sm;
        if (spm_model_read(&sm, data, len, why, sizeof why) == 0) {
            spm_model_free(&sm);
            spm_shim_available(no, sizeof no);
            cal_errf(err, errlen, "a SentencePiece model, but %s", no);
        } else cal_errf(err, errlen, "neither JSON (tokenizer.json) nor a SentencePiece model (%s)", why);
    } else {
        t->spm = spm_shim_load(data, len, why, sizeof why);
        if (t->spm) {
            spm_collect_specials(t);
            t->chunking = spm_chunking_of(t->spm, data, len);
            char no[512], no_ug[512] = "";
            t->spm_bpe = spm_bpe_build(t->spm, data, len, path, no, sizeof no);
            if (!t->spm_bpe) t->spm_ug = spm_unigram_build(data, len, no_ug, sizeof no_ug);
            size_t k = strlen(no) + strlen(no_ug) + 64;
            t->spm_engine = cal_xmalloc(k);
            if (t->spm_bpe) snprintf(t->spm_engine, k, "calkit's BPE");
            else if (t->spm_ug) snprintf(t->spm_engine, k, "calkit's unigram");
            else snprintf(t->spm_engine, k, "libsentencepiece (%s; %s)", no, no_ug);
        }
        else cal_errf(err, errlen, "neither JSON (tokenizer.json) nor a SentencePiece model (%s)", why);
    }
    free(data);
    return t->hf || t->spm ? 0 : -1;
}

static int64_t token_id(const cal_tok *t, const char *s) {
    size_t n = strlen(s);
    if (t->hf) return tok_hf_token_id(t->hf, s, n);
    for (uint32_t id = 0; id < spm_shim_vocab_size(t->spm); id++) {
        size_t len;
        const char *p = spm_shim_piece(t->spm, id, &len);
        if (len == n && !memcmp(p, s, n)) return id;
    }
    return -1;
}

static char *dup_join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 1;
    char *r = cal_xmalloc(n);
    snprintf(r, n, "%s%s", a, b);
    return r;
}

/* Every special token the configuration names becomes a special added token
 * of the tokenizer.json, as transformers' PreTrainedTokenizerFast.__init__
 * adds those its added tokens lack (tok_hf_add_special): one missing from
 * the vocabulary gets the next id. Those are recorded in t->made. */
static int make_specials(cal_tok *t, char *err, size_t errlen) {
    const tc_token *sp[256];
    size_t n = tok_config_specials(&t->cfg, sp, 256);
    if (n > 256) {
        cal_errf(err, errlen, "%zu special tokens in %s: at most 256", n, t->cfg.files);
        return -1;
    }
    cal_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (!*sp[i]->text) continue; /* tokenizers ignores an empty one */
        int is_new;
        char why[256];
        int64_t id = tok_hf_add_special(t->hf, sp[i]->text, strlen(sp[i]->text), sp[i]->lstrip, sp[i]->rstrip,
                                        sp[i]->single_word, sp[i]->normalized, &is_new, why, sizeof why);
        if (id < 0) {
            cal_errf(err, errlen, "%s '%s' (%s): %s", "special token", sp[i]->text, sp[i]->from, why);
            cal_buf_free(&b);
            return -1;
        }
        if (is_new) cal_buf_addf(&b, "%s%s=%lld (%s)", b.n ? "; " : "", sp[i]->text, (long long)id, sp[i]->from);
    }
    if (b.n) {
        cal_buf_addc(&b, 0);
        t->made = b.p;
    }
    return 0;
}

/* The special ids and the --add-special template from the folder's
 * configuration (transformers' rules: config.h). */
static int apply_config(cal_tok *t, const char *tokfile, char *err, size_t errlen) {
    tok_config *c = &t->cfg;
    if (t->hf && make_specials(t, err, errlen)) return -1;
    static const char *const what[TC_NSPECIAL] = {"bos_token", "eos_token", "pad_token"};
    for (int k = 0; k < TC_NSPECIAL; k++) {
        t->special[k] = -1;
        if (!c->tok[k].text) continue;
        t->special[k] = token_id(t, c->tok[k].text);
        if (t->special[k] < 0) {
            cal_errf(err, errlen, "%s '%s' (%s) is not a piece of %s (calkit adds no tokens to a SentencePiece model)",
                    what[k], c->tok[k].text, c->tok[k].from, tokfile);
            return -1;
        }
        t->from[k] = cal_xstrdup(c->tok[k].from);
    }
    if (!c->rebuild && t->hf) {
        t->tmpl_from = cal_xstrdup("tokenizer.json post_processor");
        return 0;
    }
    /* LlamaTokenizerFast & co (and every .model, converted as LlamaTokenizer):
     * [bos] $A [eos] from add_bos_token and add_eos_token */
    if ((c->add_bos && t->special[TC_BOS] < 0) || (c->add_eos && t->special[TC_EOS] < 0)) {
        cal_errf(err, errlen, "add_%s_token is true but there is no %s_token (%s)", c->add_bos && t->special[TC_BOS] < 0 ? "bos" : "eos",
                c->add_bos && t->special[TC_BOS] < 0 ? "bos" : "eos", c->files);
        return -1;
    }
    uint32_t pre = (uint32_t)t->special[TC_BOS], post = (uint32_t)t->special[TC_EOS];
    if (t->hf) tok_hf_set_template(t->hf, &pre, c->add_bos ? 1 : 0, &post, c->add_eos ? 1 : 0);
    t->spm_bos = c->add_bos;
    t->spm_eos = c->add_eos;
    t->tmpl_from = dup_join("add_bos_token add_eos_token ", c->cls);
    return 0;
}

/* Without a configuration: what the tokenizer file alone says. */
static void file_defaults(cal_tok *t) {
    const char *f[TC_NSPECIAL];
    if (t->hf) {
        t->special[TC_BOS] = tok_hf_bos(t->hf, &f[TC_BOS]);
        t->special[TC_EOS] = tok_hf_eos(t->hf, &f[TC_EOS]);
        t->special[TC_PAD] = tok_hf_pad(t->hf, &f[TC_PAD]);
        t->tmpl_from = cal_xstrdup("tokenizer.json post_processor");
    } else {
        t->special[TC_BOS] = spm_shim_bos(t->spm);
        t->special[TC_EOS] = spm_shim_eos(t->spm);
        t->special[TC_PAD] = spm_shim_pad(t->spm);
        f[TC_BOS] = f[TC_EOS] = f[TC_PAD] = "model";
        t->spm_bos = t->special[TC_BOS] >= 0;
        t->tmpl_from = cal_xstrdup("LlamaTokenizer's add_bos_token default");
    }
    for (int k = 0; k < TC_NSPECIAL; k++)
        if (t->special[k] >= 0) t->from[k] = cal_xstrdup(f[k]);
}

static cal_tok *load_files(const char *path, char *err, size_t errlen) {
    cal_tok *t = cal_xcalloc(1, sizeof *t);
    struct stat st;
    char *tokfile = NULL;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* a model folder: tokenizer.json as AutoTokenizer prefers it, else tokenizer.model */
        static const char *const files[] = {"tokenizer.json", "tokenizer.model"};
        for (size_t i = 0; i < 2 && !tokfile; i++) {
            /* what is there must be a regular file of the folder (base/modelfile.h) */
            int got = cal_model_file(path, files[i], &tokfile, err, errlen);
            if (got < 0) {
                free(t);
                return NULL;
            }
            if (got) t->files = cal_xstrdup(files[i]);
        }
        if (!tokfile) {
            cal_errf(err, errlen, "a folder without tokenizer.json or tokenizer.model");
            free(t);
            return NULL;
        }
        char why[512];
        if (tok_config_load(path, &t->cfg, why, sizeof why)) {
            cal_errf(err, errlen, "%s", why);
            free(tokfile), free(t->files), free(t);
            return NULL;
        }
    } else {
        tokfile = cal_xstrdup(path);
        const char *b = strrchr(path, '/');
        t->files = cal_xstrdup(b ? b + 1 : path);
    }
    int rc = load_file(t, tokfile, err, errlen);
    if (!rc && t->cfg.cls) {
        char *all = cal_xmalloc(strlen(t->files) + strlen(t->cfg.files) + 2);
        sprintf(all, "%s %s", t->files, t->cfg.files);
        free(t->files);
        t->files = all;
        rc = apply_config(t, tokfile, err, errlen);
    } else if (!rc) file_defaults(t);
    free(tokfile);
    if (rc) {
        cal_tok_free(t);
        return NULL;
    }
    t->name = name_of(path);
    return t;
}

/* ---- the prepared image (tok/cache.h): the engine's sections and these ---- */
enum { CT_NUM = 200, CT_STR, CT_SPM, CT_SPMSPEC, CT_SPMSPECTXT, CT_UG = 220 /* .. CT_UG + 5 */ };

static void put_str(cal_buf *b, const char *s) {
    uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
    cal_buf_add(b, &n, 4);
    if (s) cal_buf_add(b, s, n);
}

/* The next string of the CT_STR section (NULL for none); -1 past its end. */
static int take_str(const char **p, const char *end, char **out) {
    uint32_t n;
    *out = NULL;
    if (end - *p < 4) return -1;
    memcpy(&n, *p, 4);
    *p += 4;
    if (n == UINT32_MAX) return 0;
    if ((size_t)(end - *p) < n || memchr(*p, 0, n)) return -1;
    *out = cal_xmalloc((size_t)n + 1);
    memcpy(*out, *p, n);
    (*out)[n] = 0;
    *p += n;
    return 0;
}

static void save_image(const cal_tok *t, tok_cache *c) {
    tok_image_parts w = {0};
    uint64_t num[6] = {t->fp, (uint64_t)t->special[0], (uint64_t)t->special[1], (uint64_t)t->special[2],
                       (uint64_t)t->spm_bos, (uint64_t)t->spm_eos};
    cal_buf s = {0};
    put_str(&s, t->files);
    put_str(&s, t->made);
    put_str(&s, t->tmpl_from);
    for (int k = 0; k < TC_NSPECIAL; k++) put_str(&s, t->from[k]);
    put_str(&s, t->cfg.cls);
    put_str(&s, t->cfg.cls ? t->cfg.cls_from : NULL);
    put_str(&s, t->cfg.gen_eos);
    tok_image_add(&w, CT_NUM, 8, num, 6);
    tok_image_add(&w, CT_STR, 1, s.p, s.n);
    uint32_t *spec = NULL, nv = 0;
    cal_buf spectxt = {0};
    if (t->spm_bpe || t->spm_ug) { /* a .model: its vocabulary size and special pieces (longest first) */
        nv = spm_shim_vocab_size(t->spm);
        spec = cal_xmalloc((t->nspecials + 1) * sizeof *spec);
        for (size_t i = 0; i < t->nspecials; i++) {
            spec[i] = t->specials[i].id;
            uint32_t l = (uint32_t)t->specials[i].len;
            cal_buf_add(&spectxt, &l, 4);
            cal_buf_add(&spectxt, t->specials[i].text, l);
        }
        tok_image_add(&w, CT_SPM, 4, &nv, 1);
        tok_image_add(&w, CT_SPMSPEC, 4, spec, t->nspecials);
    }
    if (t->spm_ug) {
        tok_image_add(&w, CT_SPMSPECTXT, 1, spectxt.p ? spectxt.p : "", spectxt.n);
        spm_unigram_image_parts(t->spm_ug, &w, CT_UG);
    } else tok_hf_image_parts(t->hf ? t->hf : t->spm_bpe, &w);
    tok_cache_save(c, &w);
    cal_buf_free(&s);
    cal_buf_free(&spectxt);
    free(spec);
}

/* The parts of a .model restored from an image that both engines share. */
static void spm_restored(cal_tok *t, uint32_t vocab, uint64_t nspec, const char *tokfile, const char *engine) {
    t->spm_vocab = vocab;
    t->spm_image = 1;
    t->spm_file = cal_xstrdup(tokfile);
    t->spm_engine = cal_xstrdup(engine);
    pthread_mutex_init(&t->spm_lock, NULL);
    t->specials = cal_xcalloc(nspec ? nspec : 1, sizeof *t->specials);
}

static cal_tok *from_image(tok_image *im, const char *path, const char *tokfile, char *err, size_t errlen) {
    uint64_t nn, ns;
    const uint64_t *num = tok_image_get(im, CT_NUM, 8, &nn);
    const char *s = tok_image_get(im, CT_STR, 1, &ns), *end = s + ns;
    cal_tok *t = cal_xcalloc(1, sizeof *t);
    char *cls_from = NULL;
    int bad = !num || nn != 6 || !s || take_str(&s, end, &t->files) || take_str(&s, end, &t->made) ||
              take_str(&s, end, &t->tmpl_from);
    for (int k = 0; k < TC_NSPECIAL && !bad; k++) bad = take_str(&s, end, &t->from[k]);
    bad = bad || take_str(&s, end, &t->cfg.cls) || take_str(&s, end, &cls_from) ||
          take_str(&s, end, &t->cfg.gen_eos) || s != end || !t->files || !t->tmpl_from;
    if (!bad) {
        t->fp = num[0];
        for (int k = 0; k < TC_NSPECIAL; k++) t->special[k] = (int64_t)num[1 + k];
        t->spm_bos = num[4] != 0;
        t->spm_eos = num[5] != 0;
        if (cls_from) snprintf(t->cfg.cls_from, sizeof t->cfg.cls_from, "%s", cls_from);
        uint64_t nv, nspec;
        const uint32_t *vs = tok_image_get(im, CT_SPM, 4, &nv), *spec = tok_image_get(im, CT_SPMSPEC, 4, &nspec);
        uint64_t ntxt;
        const char *txt = tok_image_get(im, CT_SPMSPECTXT, 1, &ntxt);
        if (vs && nv == 1 && spec && txt) { /* a unigram .model */
            spm_restored(t, vs[0], nspec, tokfile, "calkit's unigram");
            t->image = cal_xmalloc(sizeof *t->image);
            *t->image = *im;
            t->spm_ug = spm_unigram_from_image(t->image, CT_UG, err, errlen);
            const char *p = txt, *end = txt + ntxt;
            for (uint64_t i = 0; i < nspec && t->spm_ug; i++) {
                uint32_t l;
                if (end - p < 4) break;
                memcpy(&l, p, 4);
                p += 4;
                if ((uint64_t)(end - p) < l || spec[i] >= vs[0]) break;
                special_piece *sp = &t->specials[t->nspecials];
                *sp = (special_piece){p, l, spec[i]};
                p += l;
                if (!l) continue;
                t->first_byte[(unsigned char)sp->text[0]] = 1;
                t->nspecials++;
            }
        } else if (vs && nv == 1 && spec) { /* a BPE .model */
            spm_restored(t, vs[0], nspec, tokfile, "calkit's BPE");
            t->spm_bpe = tok_hf_from_image(im, tokfile, err, errlen);
            for (uint64_t i = 0; i < nspec && t->spm_bpe; i++) {
                special_piece *sp = &t->specials[t->nspecials];
                sp->id = spec[i];
                sp->text = tok_hf_id_text(t->spm_bpe, spec[i], &sp->len);
                if (!sp->text || !sp->len) continue;
                t->first_byte[(unsigned char)sp->text[0]] = 1;
                t->nspecials++;
            }
        } else t->hf = tok_hf_from_image(im, tokfile, err, errlen);
    } else {
        tok_image_close(im);
        cal_errf(err, errlen, "its calkit sections do not fit together");
    }
    free(cls_from);
    if (!t->hf && !t->spm_bpe && !t->spm_ug) {
        cal_tok_free(t);
        return NULL;
    }
    t->name = name_of(path);
    return t;
}

/* The files a load may read: a model folder's candidates, else the file. */
static size_t inputs(const char *path, char **in) {
    static const char *const names[] = {"tokenizer.json", "tokenizer.model", "tokenizer_config.json",
                                        "special_tokens_map.json", "generation_config.json", "config.json"};
    size_t n = 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        for (size_t i = 0; i < 6; i++) {
            in[n] = cal_xmalloc(strlen(path) + strlen(names[i]) + 2);
            sprintf(in[n++], "%s/%s", path, names[i]);
        }
    } else in[n++] = cal_xstrdup(path);
    return n;
}

int cal_tok_cached(const char *path) {
    char *in[6];
    size_t n = inputs(path, in);
    tok_cache c;
    tok_cache_begin(&c, 1, in, n);
    int ready = tok_cache_ready(&c);
    tok_cache_end(&c);
    for (size_t i = 0; i < n; i++) free(in[i]);
    return ready;
}

cal_tok *cal_tok_load_cached(const char *path, int use_cache, char *note, size_t notelen, char *err, size_t errlen) {
    char *in[6];
    size_t n = inputs(path, in);
    tok_cache c;
    tok_cache_begin(&c, use_cache, in, n);
    tok_image im;
    cal_tok *t = NULL;
    if (tok_cache_open(&c, &im)) {
        char why[512];
        const char *tokfile = n > 1 && c.st[0][0] ? in[0] : in[0 + (n > 1)];
        t = from_image(&im, path, n > 1 ? tokfile : path, why, sizeof why);
        if (!t) (void)cal_errf(c.note, sizeof c.note, "rebuilt: %s", why);
    }
    if (!t) {
        t = load_files(path, err, errlen);
        if (t && (t->hf || t->spm_bpe || t->spm_ug) && c.dir) save_image(t, &c);
        else if (t && t->spm && c.dir)
            (void)cal_errf(c.note, sizeof c.note, "not used: a SentencePiece .model encoded by %s", t->spm_engine);
    }
    if (note) snprintf(note, notelen, "%s", c.note);
    tok_cache_end(&c);
    for (size_t i = 0; i < n; i++) free(in[i]);
    return t;
}

cal_tok *cal_tok_load(const char *path, char *err, size_t errlen) {
    return cal_tok_load_cached(path, 1, NULL, 0, err, errlen);
}

void cal_tok_free(cal_tok *t) {
    if (!t) return;
    if (t->hf) tok_hf_free(t->hf);
    if (t->spm) spm_shim_free(t->spm);
    if (t->spm_bpe) tok_hf_free(t->spm_bpe);
    spm_unigram_free(t->spm_ug);
    if (t->image) {
        tok_image_close(t->image);
        free(t->image);
    }
    free(t->spm_engine);
    free(t->spm_file);
    if (t->spm_image) pthread_mutex_destroy(&t->spm_lock);
    free(t->specials);
    free(t->name);
    for (int k = 0; k < TC_NSPECIAL; k++) free(t->from[k]);
    free(t->tmpl_from);
    free(t->files);
    free(t->made);
    tok_config_free(&t->cfg);
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

static int spm_encode_text(const cal_tok *t, const char *s, size_t n, unsigned flags, cal_ids *out,
                           char *err, size_t errlen);

static int spm_encode(const cal_tok *t, const char *s, size_t n, unsigned flags, cal_ids *out,
                      char *err, size_t errlen) {
    int add = (flags & CAL_TOK_ADD_SPECIAL) != 0;
    if (add && t->spm_bos) cal_ids_push(out, (uint32_t)t->special[TC_BOS]);
    int rc = spm_encode_text(t, s, n, flags, out, err, errlen);
    if (!rc && add && t->spm_eos) cal_ids_push(out, (uint32_t)t->special[TC_EOS]);
    return rc;
}

/* One piece of text through SentencePiece: calkit's engines, else the library. */
static int spm_encode_piece(const cal_tok *t, const char *s, size_t n, cal_ids *out, char *err, size_t errlen) {
    if (t->spm_bpe) return tok_hf_encode(t->spm_bpe, s, n, 0, out, err, errlen);
    if (t->spm_ug) return spm_unigram_encode(t->spm_ug, s, n, out, err, errlen);
    return spm_chunk_encode(t->spm, &t->chunking, s, n, out, err, errlen);
}

static int spm_encode_text(const cal_tok *t, const char *s, size_t n, unsigned flags, cal_ids *out,
                           char *err, size_t errlen) {
    if (!(flags & CAL_TOK_PARSE_SPECIAL) || !t->nspecials)
        return spm_encode_piece(t, s, n, out, err, errlen);
    size_t start = 0;
    for (size_t i = 0; i < n;) {
        const special_piece *sp = special_at(t, s, i, n);
        if (!sp) {
            i++;
            continue;
        }
        if (i > start && spm_encode_piece(t, s + start, i - start, out, err, errlen)) return -1;
        cal_ids_push(out, sp->id);
        i += sp->len;
        start = i;
    }
    if (n > start) return spm_encode_piece(t, s + start, n - start, out, err, errlen);
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

/* The library for a .model restored from an image: loaded on the first
 * decode, from the file whose bytes made the image; when it changed since,
 * or the shim is missing, the program stops with one line (exit 1). */
static const spm_shim *spm_lazy(const cal_tok *t) {
    if (t->spm || !t->spm_image) return t->spm;
    cal_tok *w = (cal_tok *)t; /* the one late field, under its lock */
    pthread_mutex_lock(&w->spm_lock);
    if (!w->spm) {
        size_t len;
        char why[1024];
        char *data = tok_read_file(w->spm_file, &len, why, sizeof why);
        if (data && cal_hash(data, len) != w->fp) snprintf(why, sizeof why, "it changed since its image was made");
        else if (data) w->spm = spm_shim_load(data, len, why, sizeof why);
        free(data);
        /* U+FFFD for every id would be text nobody asked for: stop instead */
        if (!w->spm) cal_die("%s: cannot decode (%s)", w->spm_file, why);
        /* the image's vocabulary size, unhashed when its identity was
         * trusted, must be the library's: ids it allows reach the library */
        if (spm_shim_vocab_size(w->spm) != w->spm_vocab)
            cal_die("%s: cannot decode (its cached image says %u pieces, the file has %u: remove the cache file)",
                    w->spm_file, w->spm_vocab, spm_shim_vocab_size(w->spm));
    }
    pthread_mutex_unlock(&w->spm_lock);
    return w->spm;
}

/* spm: control pieces decode to their text (the reference keeps special
 * tokens); runs of ordinary pieces go through SentencePiece. */
static void spm_decode(const cal_tok *t, const uint32_t *ids, size_t n, cal_buf *out) {
    spm_lazy(t);
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
     * decoded by the engine (which may assume valid ids): for a .model, the
     * library's vocabulary, so it is loaded first. */
    if (!t->hf) spm_lazy(t);
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

void cal_tok_expect(cal_tok *t, uint64_t bytes) {
    if (t->hf) tok_hf_expect(t->hf, bytes);
    if (t->spm_bpe) tok_hf_expect(t->spm_bpe, bytes);
}

void cal_tok_expect_files(cal_tok *t, char *const *files, size_t n) {
    uint64_t bytes = 0;
    struct stat st;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(files[i], "-") || stat(files[i], &st) || !S_ISREG(st.st_mode)) {
            bytes = 0;
            break;
        }
        bytes += (uint64_t)st.st_size;
    }
    cal_tok_expect(t, bytes);
}

const char *cal_tok_name(const cal_tok *t) { return t->name; }
const char *cal_tok_engine(const cal_tok *t) { return t->hf ? NULL : t->spm_engine; }
uint64_t cal_tok_fingerprint(const cal_tok *t) { return t->fp; }
uint32_t cal_tok_vocab_size(const cal_tok *t) {
    return t->hf ? tok_hf_vocab_size(t->hf) : t->spm ? spm_shim_vocab_size(t->spm) : t->spm_vocab;
}
int64_t cal_tok_bos(const cal_tok *t) { return t->special[TC_BOS]; }
int64_t cal_tok_eos(const cal_tok *t) { return t->special[TC_EOS]; }
int64_t cal_tok_pad(const cal_tok *t) { return t->special[TC_PAD]; }

/* A token's text for the template description. */
static void put_token(const cal_tok *t, uint32_t id, cal_buf *b) {
    size_t len = 0;
    const char *p = t->hf ? tok_hf_id_text(t->hf, id, &len)
                  : t->spm ? spm_shim_piece(t->spm, id, &len)
                  : t->spm_bpe ? tok_hf_id_text(t->spm_bpe, id, &len) : NULL;
    for (size_t i = 0; !p && i < t->nspecials; i++) /* a unigram .model from its image: its control pieces */
        if (t->specials[i].id == id) p = t->specials[i].text, len = t->specials[i].len;
    if (p) cal_buf_add(b, p, len);
    else cal_buf_addf(b, "%u", id);
    cal_buf_addc(b, ' ');
}

void cal_tok_meta(const cal_tok *t, cal_meta *m) {
    cal_meta_set(m, "tokenizer", t->name);
    cal_meta_setf(m, "tokenizer_fp", "%016llx", (unsigned long long)t->fp);
    cal_meta_set(m, "tokenizer_files", t->files);
    if (t->cfg.cls) cal_meta_setf(m, "tokenizer_class", "%s (%s)", t->cfg.cls, t->cfg.cls_from);
    else cal_meta_del(m, "tokenizer_class");
    cal_meta_setf(m, "vocab", "%u", cal_tok_vocab_size(t));
    static const char *const keys[TC_NSPECIAL] = {"bos", "eos", "pad"}, *const fkeys[TC_NSPECIAL] = {"bos_from", "eos_from", "pad_from"};
    for (int k = 0; k < TC_NSPECIAL; k++) {
        if (t->special[k] >= 0) {
            cal_meta_setf(m, keys[k], "%lld", (long long)t->special[k]);
            cal_meta_set(m, fkeys[k], t->from[k]);
        } else {
            cal_meta_del(m, keys[k]);
            cal_meta_del(m, fkeys[k]);
        }
    }
    /* the template --add-special applies, in the reference's notation */
    cal_buf b = {0};
    const uint32_t *ids;
    size_t n;
    if (t->hf) {
        n = tok_hf_template(t->hf, 0, &ids);
        for (size_t i = 0; i < n; i++) put_token(t, ids[i], &b);
    } else if (t->spm_bos) put_token(t, (uint32_t)t->special[TC_BOS], &b);
    cal_buf_add(&b, "$A", 2);
    if (t->hf) {
        n = tok_hf_template(t->hf, 1, &ids);
        for (size_t i = 0; i < n; i++) cal_buf_addc(&b, ' '), put_token(t, ids[i], &b), b.n--;
    } else if (t->spm_eos) cal_buf_addc(&b, ' '), put_token(t, (uint32_t)t->special[TC_EOS], &b), b.n--;
    cal_buf_addc(&b, 0);
    cal_meta_set(m, "add_special", b.p);
    cal_meta_set(m, "add_special_from", t->tmpl_from);
    if (t->made) cal_meta_set(m, "specials_added", t->made);
    else cal_meta_del(m, "specials_added");
    if (t->cfg.gen_eos) cal_meta_set(m, "generation_eos", t->cfg.gen_eos);
    else cal_meta_del(m, "generation_eos");
    if (t->cfg.max_positions) { /* cal-pack refuses rows longer than the model's positions */
        cal_meta_setf(m, "max_positions", "%llu", (unsigned long long)t->cfg.max_positions);
        cal_meta_set(m, "max_positions_from", t->cfg.max_positions_from);
    } else {
        cal_meta_del(m, "max_positions");
        cal_meta_del(m, "max_positions_from");
    }
    cal_buf_free(&b);
}
