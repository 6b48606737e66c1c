/* config.c - a model folder's tokenizer configuration (see config.h). */
#include "tok/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/modelfile.h"
#include "tok/automap.h"
#include "tok/hf_json.h"

char *tok_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO is refused below, not waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        char kind[4200];
        snprintf(err, errlen, "%s", cal_open_error(path, e, kind, sizeof kind));
        errno = e;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        char kind[600];
        if (S_ISDIR(st.st_mode)) snprintf(err, errlen, "is a directory");
        else snprintf(err, errlen, "%s, not a regular file", cal_path_kind(path, kind, sizeof kind) ? kind : "not a regular file");
        errno = EINVAL;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 16, n = 0;
    char *p = cal_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) p = cal_xrealloc(p, cap *= 2);
        ssize_t k = read(fd, p + n, cap - n - 1);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(err, errlen, "read error: %s", strerror(errno));
            free(p);
            close(fd);
            return NULL;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    close(fd);
    p[n] = 0;
    *len = n;
    return p;
}

/* The defaults of the tokenizer classes calkit knows (transformers 4.x,
 * models/<name>/tokenization_<name>_fast.py: the __init__ keyword defaults;
 * CodeLlama's fill-in-the-middle tokens join additional_special_tokens). */
static const struct {
    const char *cls, *token[TC_NNAMED];
    int rebuild, add_bos, add_eos;
} classes[] = {
    {"LlamaTokenizerFast", {[TC_BOS] = "<s>", [TC_EOS] = "</s>", [TC_UNK] = "<unk>"}, 1, 1, 0},
    {"CodeLlamaTokenizerFast", {[TC_BOS] = "<s>", [TC_EOS] = "</s>", [TC_UNK] = "<unk>"}, 1, 1, 0},
    {"GemmaTokenizerFast", {[TC_BOS] = "<bos>", [TC_EOS] = "<eos>", [TC_PAD] = "<pad>", [TC_UNK] = "<unk>"}, 1, 1, 0},
    {"CohereTokenizerFast", {[TC_BOS] = "<BOS_TOKEN>", [TC_EOS] = "<|END_OF_TURN_TOKEN|>", [TC_PAD] = "<PAD>",
                             [TC_UNK] = "<UNK>"}, 1, 1, 0},
    {"Qwen2TokenizerFast", {[TC_EOS] = "<|endoftext|>", [TC_PAD] = "<|endoftext|>", [TC_UNK] = "<|endoftext|>"}, 0, 0, 0},
    {"GPT2TokenizerFast", {[TC_BOS] = "<|endoftext|>", [TC_EOS] = "<|endoftext|>", [TC_UNK] = "<|endoftext|>"}, 0, 0, 0},
    {"PreTrainedTokenizerFast", {NULL}, 0, 0, 0},
};
static const char *const keys[TC_NNAMED] = {"bos_token", "eos_token", "pad_token", "unk_token", "sep_token",
                                            "cls_token", "mask_token"};
static const char *const fim_keys[] = {"prefix_token", "middle_token", "suffix_token", "eot_token"};
static const char *const fim_default[] = {"\xe2\x96\x81<PRE>", "\xe2\x96\x81<MID>", "\xe2\x96\x81<SUF>", "\xe2\x96\x81<EOT>"};

static char *dupn(const char *s, size_t n)
{
    char *r = cal_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

/* whether s[0..n) is a Python identifier of ASCII letters, digits and _
 * shorter than max (a class name safe to echo in messages) */
static int ident(const char *s, size_t n, size_t max)
{
    if (!n || n >= max || (s[0] >= '0' && s[0] <= '9')) return 0;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || ((s[i] | 32) >= 'a' && (s[i] | 32) <= 'z'))) return 0;
    return 1;
}

static char *fmt(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = cal_xmalloc(n);
    snprintf(r, n, "%s %s", a, b);
    return r;
}

typedef struct {
    char *text;  /* the parsed strings point into it */
    tj_doc *doc;
    tj *root;
} json_file;

static void json_free(json_file *f)
{
    if (f->doc) tj_free(f->doc);
    free(f->text);
}

/* Parses DIR/NAME when it exists: 1, 0 when absent, -1 with err. */
static int read_json(const char *dir, const char *name, json_file *f, tok_config *c, char *err, size_t errlen)
{
    char *path, why[256];
    int got = cal_model_file(dir, name, &path, err, errlen); /* a regular file of the folder */
    if (got <= 0) return got;
    size_t len;
    char *s = tok_read_file(path, &len, why, sizeof why);
    if (!s) {
        snprintf(err, errlen, "%s: %s", path, why);
        free(path);
        return -1;
    }
    f->text = s;
    f->doc = tj_parse(s, len, &f->root, why, sizeof why);
    if (!f->doc || f->root->type != TJ_OBJ) {
        snprintf(err, errlen, "%s: %s", path, f->doc ? "expected a JSON object" : why);
        free(path);
        return -1;
    }
    free(path);
    size_t k = strlen(c->files);
    snprintf(c->files + k, sizeof c->files - k, "%s%s", k ? " " : "", name);
    return 1;
}

static int get_bool(const tj *o, const char *key, int dflt)
{
    const tj *v = tj_get(o, key);
    return v && v->type == TJ_TRUE ? 1 : v && v->type == TJ_FALSE ? 0 : dflt;
}

static void token_clear(tc_token *t)
{
    free(t->text);
    free(t->from);
    memset(t, 0, sizeof *t);
}

/* A special token's value v: a string, an AddedToken object ({"content": ...},
 * with or without "__type"; its lstrip, rstrip, single_word, normalized,
 * which tokenizers defaults to false for a special token), or null (*out
 * cleared). 0, or -1 for another type. */
static int token_value(const tj *v, const char *from, tc_token *out)
{
    const tj *o = v->type == TJ_OBJ ? v : NULL;
    if (o) v = tj_get(o, "content");
    if (!v || (v->type != TJ_STR && (o || v->type != TJ_NULL))) return -1;
    token_clear(out);
    if (v->type == TJ_NULL) return 0;
    out->text = dupn(v->u.s, v->n);
    out->from = cal_xstrdup(from);
    if (o) {
        out->lstrip = get_bool(o, "lstrip", 0);
        out->rstrip = get_bool(o, "rstrip", 0);
        out->single_word = get_bool(o, "single_word", 0);
        out->normalized = get_bool(o, "normalized", 0);
    }
    return 0;
}

static int bad_token(const char *file, const char *key, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s: expected a string, an AddedToken object or null", file, key);
    return -1;
}

/* Takes the special tokens that the object o of FILE sets. */
static int take_tokens(tok_config *c, const tj *o, const char *file, char *err, size_t errlen)
{
    for (int k = 0; k < TC_NNAMED; k++) {
        const tj *v = tj_get(o, keys[k]);
        char *from = fmt(file, keys[k]);
        int rc = v ? token_value(v, from, &c->tok[k]) : 0;
        free(from);
        if (rc) return bad_token(file, keys[k], err, errlen);
    }
    const tj *a = tj_get(o, "additional_special_tokens");
    if (!a || a->type == TJ_NULL) return 0;
    if (a->type != TJ_ARR) {
        snprintf(err, errlen, "%s: additional_special_tokens: expected a list", file);
        return -1;
    }
    for (size_t i = 0; i < c->nextra; i++) token_clear(&c->extra[i]);
    free(c->extra);
    c->extra = cal_xcalloc(a->n + 4, sizeof *c->extra);  /* + CodeLlama's four */
    c->nextra = 0;
    char *from = fmt(file, "additional_special_tokens");
    for (uint32_t i = 0; i < a->n; i++) {
        tc_token *t = &c->extra[c->nextra];
        if (token_value(&a->u.kids[i], from, t)) {
            free(from);
            return bad_token(file, "additional_special_tokens", err, errlen);
        }
        if (t->text) c->nextra++;
    }
    free(from);
    return 0;
}

/* CodeLlamaTokenizerFast appends prefix/middle/suffix/eot_token (defaults
 * "\u2581<PRE>", ...; null drops one) to additional_special_tokens. */
static int take_fim(tok_config *c, const tj *o, char *err, size_t errlen)
{
    if (!c->extra) c->extra = cal_xcalloc(4, sizeof *c->extra);
    for (size_t i = 0; i < 4; i++) {
        const tj *v = o ? tj_get(o, fim_keys[i]) : NULL;
        tc_token *t = &c->extra[c->nextra];
        if (v) {
            char *from = fmt("tokenizer_config.json", fim_keys[i]);
            int rc = token_value(v, from, t);
            free(from);
            if (rc) return bad_token("tokenizer_config.json", fim_keys[i], err, errlen);
        } else {
            t->text = cal_xstrdup(fim_default[i]);
            t->from = fmt(c->cls, "default");
        }
        if (t->text) c->nextra++;
    }
    return 0;
}

size_t tok_config_specials(const tok_config *c, const tc_token **out, size_t max)
{
    static const int order[] = {TC_BOS, TC_EOS, TC_UNK, TC_SEP, TC_PAD, TC_CLS, TC_MASK};
    size_t n = 0;
    for (size_t i = 0; i < 7 + c->nextra; i++) {
        const tc_token *t = i < 7 ? &c->tok[order[i]] : &c->extra[i - 7];
        if (!t->text) continue;
        size_t k = 0;
        while (k < n && k < max && strcmp(out[k]->text, t->text)) k++;
        if (k < n && k < max) continue;
        if (n < max) out[n] = t;
        n++;
    }
    return n;
}

/* config.json's limit of positions, as GPTQModel's prepare_calibration_dataset
 * resolves it: max_position_embeddings, else max_sequence_length, max_seq_len,
 * n_positions or seq_length (the first positive integer). Opened as every
 * file of the folder is (cal_model_file: a link out of it is refused, -1);
 * a missing or odd file gives none (the model's own loader reports that).
 * The parse is kept in *model for the class lookup below. */
static int max_positions(const char *dir, tok_config *c, json_file *model, char *err, size_t errlen)
{
    char *path, why[256];
    int got = cal_model_file(dir, "config.json", &path, err, errlen);
    if (got <= 0) return got;
    size_t len;
    char *s = tok_read_file(path, &len, why, sizeof why);
    free(path);
    if (!s) return 0;
    tj *root;
    tj_doc *doc = tj_parse(s, len, &root, why, sizeof why);
    if (!doc || root->type != TJ_OBJ) {
        if (doc) tj_free(doc);
        free(s);
        return 0;
    }
    static const char *const keys[] = {"max_position_embeddings", "max_sequence_length", "max_seq_len", "n_positions",
                                       "seq_length"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys && !c->max_positions; i++) {
        const tj *v = tj_get(root, keys[i]);
        if (v && v->type == TJ_NUM && v->u.num >= 1 && v->u.num < 1e15 && v->u.num == (double)(uint64_t)v->u.num) {
            c->max_positions = (uint64_t)v->u.num;
            snprintf(c->max_positions_from, sizeof c->max_positions_from, "config.json %s", keys[i]);
        }
    }
    *model = (json_file){s, doc, root};
    return 1;
}

int tok_config_load(const char *dir, tok_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    json_file cfg = {0}, map = {0}, gen = {0}, model = {0};
    int rc = -1, have_cfg = 0;
    if (max_positions(dir, c, &model, err, errlen) < 0) goto out;
    have_cfg = read_json(dir, "tokenizer_config.json", &cfg, c, err, errlen);
    if (have_cfg < 0) goto out;
    int have_map = have_cfg == 1 && tj_get(cfg.root, "added_tokens_decoder") ? 0
                   : read_json(dir, "special_tokens_map.json", &map, c, err, errlen);
    if (have_map < 0) goto out;
    int have_gen = read_json(dir, "generation_config.json", &gen, c, err, errlen);
    if (have_gen < 0) goto out;
    if (have_gen) {
        const tj *e = tj_get(gen.root, "eos_token_id");
        char buf[256] = "";
        size_t n = 0;
        for (uint32_t i = 0; e && i < (e->type == TJ_ARR ? e->n : 1); i++) {
            const tj *x = e->type == TJ_ARR ? &e->u.kids[i] : e;
            if (x->type == TJ_NUM && n < sizeof buf - 24) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.0f", n ? "," : "", x->u.num);
        }
        if (n) c->gen_eos = dupn(buf, n);
    }
    /* the class: tokenizer_config.json's, else config.json's tokenizer_class
     * or model_type (AutoTokenizer reads config.json only then) */
    const tj *cls = have_cfg == 1 ? tj_get(cfg.root, "tokenizer_class") : NULL;
    const char *mapped = NULL;
    if (cls && cls->type == TJ_STR && cls->n) {
        snprintf(c->cls_from, sizeof c->cls_from, "tokenizer_config.json");
    } else {
        int have_model = 1;
        if (model.doc) { /* parsed for its positions: now read for the class too */
            size_t k = strlen(c->files);
            snprintf(c->files + k, sizeof c->files - k, "%sconfig.json", k ? " " : "");
        } else {
            have_model = read_json(dir, "config.json", &model, c, err, errlen);
        }
        if (have_model < 0) goto out;
        cls = have_model ? tj_get(model.root, "tokenizer_class") : NULL;
        const tj *mt = have_model ? tj_get(model.root, "model_type") : NULL;
        char mtype[64] = "";
        if (mt && mt->type == TJ_STR && mt->n < sizeof mtype) snprintf(mtype, sizeof mtype, "%.*s", (int)mt->n, mt->u.s);
        if (cls && cls->type == TJ_STR && cls->n) {
            snprintf(c->cls_from, sizeof c->cls_from, "config.json tokenizer_class");
        } else if (*mtype && (mapped = tok_class_of_model_type(mtype))) {
            snprintf(c->cls_from, sizeof c->cls_from, "config.json model_type %s", mtype);
        }
        if (!(cls && cls->type == TJ_STR && cls->n)) cls = NULL;
    }
    if (!cls && !mapped && have_cfg != 1 && have_map != 1) { rc = 0; goto out; }
    if (cls && !tok_class_known(cls->u.s, cls->n)) {
        /* transformers v5 loads a tokenizer_config.json class it does not have
         * with TokenizersBackend (tokenizer.json as it is, no class defaults);
         * config.json's it looks up with no fallback and fails (automap.h) */
        char name[48] = ""; /* fits cls_from with the words around it */
        if (ident(cls->u.s, cls->n, sizeof name - 1)) snprintf(name, sizeof name, " %.*s", (int)cls->n, cls->u.s);
        if (strcmp(c->cls_from, "tokenizer_config.json")) {
            cal_errf(err, errlen, "config.json: tokenizer_class%s is not a transformers tokenizer class", name);
            goto out;
        }
        snprintf(c->cls_from, sizeof c->cls_from, "tokenizer_config.json%s, not a transformers class", name);
        c->cls = cal_xstrdup("TokenizersBackend");
    } else if (cls) {  /* a slow name means its Fast class, as AutoTokenizer loads it */
        int fast = cls->n > 4 && !memcmp(cls->u.s + cls->n - 4, "Fast", 4);
        c->cls = cal_xmalloc(cls->n + 5);
        snprintf(c->cls, cls->n + 5, "%.*s%s", (int)cls->n, cls->u.s, fast ? "" : "Fast");
    } else if (mapped) {
        c->cls = cal_xstrdup(mapped);
    } else {
        c->cls = cal_xstrdup("PreTrainedTokenizerFast");
        snprintf(c->cls_from, sizeof c->cls_from, "default");
    }
    size_t k = 0, nk = sizeof classes / sizeof *classes;
    while (k < nk && strcmp(classes[k].cls, c->cls)) k++;
    if (k < nk) {
        for (int i = 0; i < TC_NNAMED; i++)
            if (classes[k].token[i]) {
                c->tok[i].text = cal_xstrdup(classes[k].token[i]);
                c->tok[i].from = fmt(c->cls, "default");
            }
        c->rebuild = classes[k].rebuild;
    }
    if (have_cfg == 1 && take_tokens(c, cfg.root, "tokenizer_config.json", err, errlen)) goto out;
    if (have_map == 1 && take_tokens(c, map.root, "special_tokens_map.json", err, errlen)) goto out;
    if (!strcmp(c->cls, "CodeLlamaTokenizerFast") && take_fim(c, have_cfg == 1 ? cfg.root : NULL, err, errlen)) goto out;
    c->add_bos = get_bool(cfg.root, "add_bos_token", k < nk ? classes[k].add_bos : 0);
    c->add_eos = get_bool(cfg.root, "add_eos_token", k < nk ? classes[k].add_eos : 0);
    rc = 0;
out:
    json_free(&cfg);
    json_free(&map);
    json_free(&gen);
    json_free(&model);
    if (rc) tok_config_free(c);
    return rc;
}

void tok_config_free(tok_config *c)
{
    free(c->cls);
    for (int k = 0; k < TC_NNAMED; k++) token_clear(&c->tok[k]);
    for (size_t i = 0; i < c->nextra; i++) token_clear(&c->extra[i]);
    free(c->extra);
    free(c->gen_eos);
    memset(c, 0, sizeof *c);
}
