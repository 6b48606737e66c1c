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
#include "tok/hf_json.h"

char *tok_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        snprintf(err, errlen, "is a directory");
        return NULL;
    }
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
 * models/<name>/tokenization_<name>_fast.py). */
static const struct {
    const char *cls, *token[TC_NSPECIAL];
    int rebuild, add_bos, add_eos;
} classes[] = {
    {"LlamaTokenizerFast", {"<s>", "</s>", NULL}, 1, 1, 0},
    {"CodeLlamaTokenizerFast", {"<s>", "</s>", NULL}, 1, 1, 0},
    {"GemmaTokenizerFast", {"<bos>", "<eos>", "<pad>"}, 1, 1, 0},
    {"CohereTokenizerFast", {"<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>", "<PAD>"}, 1, 1, 0},
    {"Qwen2TokenizerFast", {NULL, "<|endoftext|>", "<|endoftext|>"}, 0, 0, 0},
    {"GPT2TokenizerFast", {"<|endoftext|>", "<|endoftext|>", NULL}, 0, 0, 0},
    {"PreTrainedTokenizerFast", {NULL, NULL, NULL}, 0, 0, 0},
};
static const char *const keys[TC_NSPECIAL] = {"bos_token", "eos_token", "pad_token"};

static char *dupn(const char *s, size_t n)
{
    char *r = cal_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
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
    char path[4096], why[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *s = tok_read_file(path, &len, why, sizeof why);
    if (!s) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    f->text = s;
    f->doc = tj_parse(s, len, &f->root, why, sizeof why);
    if (!f->doc || f->root->type != TJ_OBJ) {
        snprintf(err, errlen, "%s: %s", path, f->doc ? "expected a JSON object" : why);
        return -1;
    }
    size_t k = strlen(c->files);
    snprintf(c->files + k, sizeof c->files - k, "%s%s", k ? " " : "", name);
    return 1;
}

/* A special token's value: a string, an AddedToken object ({"content": ...},
 * with or without "__type"), or null. 1 with *out (NULL for null), 0 when
 * the key is absent, -1 for another type. */
static int token_value(const tj *o, const char *key, char **out)
{
    const tj *v = tj_get(o, key);
    if (!v) return 0;
    if (v->type == TJ_NULL) { *out = NULL; return 1; }
    if (v->type == TJ_OBJ) v = tj_get(v, "content");
    if (!v || v->type != TJ_STR) return -1;
    *out = dupn(v->u.s, v->n);
    return 1;
}

/* Takes the special tokens that the object o of FILE sets. */
static int take_tokens(tok_config *c, const tj *o, const char *file, char *err, size_t errlen)
{
    for (int k = 0; k < TC_NSPECIAL; k++) {
        char *v;
        int rc = token_value(o, keys[k], &v);
        if (rc < 0) {
            snprintf(err, errlen, "%s: %s: expected a string, an AddedToken object or null", file, keys[k]);
            return -1;
        }
        if (!rc) continue;
        free(c->token[k]);
        free(c->from[k]);
        c->token[k] = v;
        c->from[k] = fmt(file, keys[k]);
    }
    return 0;
}

static int get_bool(const tj *o, const char *key, int dflt)
{
    const tj *v = tj_get(o, key);
    return v && v->type == TJ_TRUE ? 1 : v && v->type == TJ_FALSE ? 0 : dflt;
}

int tok_config_load(const char *dir, tok_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    json_file cfg = {0}, map = {0}, gen = {0};
    int rc = -1, have_cfg = read_json(dir, "tokenizer_config.json", &cfg, c, err, errlen);
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
    if (have_cfg != 1 && have_map != 1) { rc = 0; goto out; }
    /* the class: a slow name means its Fast class, as AutoTokenizer loads it */
    const tj *cls = have_cfg == 1 ? tj_get(cfg.root, "tokenizer_class") : NULL;
    if (cls && cls->type == TJ_STR && cls->n) {
        int fast = cls->n > 4 && !memcmp(cls->u.s + cls->n - 4, "Fast", 4);
        c->cls = cal_xmalloc(cls->n + 5);
        snprintf(c->cls, cls->n + 5, "%.*s%s", (int)cls->n, cls->u.s, fast ? "" : "Fast");
        c->cls_from = "tokenizer_config.json";
    } else {
        c->cls = cal_xstrdup("PreTrainedTokenizerFast");
        c->cls_from = "default";
    }
    size_t k = 0, nk = sizeof classes / sizeof *classes;
    while (k < nk && strcmp(classes[k].cls, c->cls)) k++;
    if (k < nk) {
        for (int i = 0; i < TC_NSPECIAL; i++)
            if (classes[k].token[i]) {
                c->token[i] = cal_xstrdup(classes[k].token[i]);
                c->from[i] = fmt(c->cls, "default");
            }
        c->rebuild = classes[k].rebuild;
    }
    if (have_cfg == 1 && take_tokens(c, cfg.root, "tokenizer_config.json", err, errlen)) goto out;
    if (have_map == 1 && take_tokens(c, map.root, "special_tokens_map.json", err, errlen)) goto out;
    c->add_bos = get_bool(cfg.root, "add_bos_token", k < nk ? classes[k].add_bos : 0);
    c->add_eos = get_bool(cfg.root, "add_eos_token", k < nk ? classes[k].add_eos : 0);
    rc = 0;
out:
    json_free(&cfg);
    json_free(&map);
    json_free(&gen);
    if (rc) tok_config_free(c);
    return rc;
}

void tok_config_free(tok_config *c)
{
    free(c->cls);
    for (int k = 0; k < TC_NSPECIAL; k++) free(c->token[k]), free(c->from[k]);
    free(c->gen_eos);
    memset(c, 0, sizeof *c);
}
