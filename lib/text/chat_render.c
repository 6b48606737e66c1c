/* chat_render.c - see chat_render.h. */
#include "text/chat_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "base/datadir.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "io/mapfile.h"
#include "jinja/jinja.h"

/* A template of the model: its text (or the file holding it) is kept,
 * and it is parsed only if records can use it (transformers compiles the
 * one it picks): a config of 100000 named templates costs their text, not
 * 100000 parses. */
typedef struct {
    char *name;  /* NULL: the one unnamed template */
    char *src;   /* its text, or NULL: read from path when used */
    size_t n;
    char *path;
    char *where; /* for messages: the file, "... chat_template" */
    cal_jinja *t;
} named;

struct cal_chat_render {
    named *tpl;
    size_t ntpl;
    const cal_jinja *fixed; /* chosen once (one template, or --chat-template-name) */
    const cal_jinja *dflt, *tool_use;
    json_t *base;           /* add_generation_prompt, special tokens, documents */
    cal_pyjson **var_marks; /* --chat-var's numbers jansson cannot hold, one set per var */
    size_t nvar_marks;
    json_t *system;         /* --system: the turn put first, or NULL */
    int retry;              /* render again without system turns */
    char *source;
    cal_jinja_opts opts;
};

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = cal_xmalloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static char *dir_of(const char *path) {
    const char *s = strrchr(path, '/');
    if (!s) return cal_xstrdup(".");
    char *d = cal_xstrdup(path);
    d[s == path ? 1 : s - path] = 0;
    return d;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* The folder of a bare NAME fetched by `make tokenizers`, or NULL. */
static char *fetched(const char *name) {
    if (strchr(name, '/') || !*name || name[0] == '.') return NULL;
    char **dirs = cal_data_dirs("tokenizers", "CAL_TOKENIZERS"), *found = NULL;
    for (size_t i = 0; dirs[i] && !found; i++) {
        char *d = join(dirs[i], name), *cfg = join(d, "tokenizer_config.json");
        if (is_file(cfg)) found = d;
        else free(d);
        free(cfg);
    }
    cal_data_dirs_free(dirs);
    return found;
}

static void free_list(char **v) {
    for (size_t i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* DIR/NAME by the model folder policy (base/modelfile.h): 1 with *path, 0
 * when absent, -1 with err. */
static int model_file(const char *dir, const char *name, char **path, char *err, size_t errlen) {
    return cal_model_file(dir, name, path, err, errlen);
}

/* The named templates of DIR/additional_chat_templates/NAME.jinja, as
 * transformers lists them (files ending in .jinja), sorted, NULL-terminated;
 * but default.jinja, which transformers reads after the root's
 * chat_template.jinja and so in its place, goes to *dflt. A name that is
 * not a regular file the policy allows is an error (-1, with err). */
static int additional(const char *dir, char ***out, char **dflt, char *err, size_t errlen) {
    char *sub = join(dir, "additional_chat_templates"), **names = cal_xcalloc(1, sizeof *names);
    size_t n = 0;
    int rc = 0;
    DIR *d = opendir(sub);
    for (struct dirent *e; d && !rc && (e = readdir(d));) {
        size_t k = strlen(e->d_name);
        if (k <= 6 || strcmp(e->d_name + k - 6, ".jinja")) continue;
        char *rel = join("additional_chat_templates", e->d_name), *path = NULL;
        rc = model_file(dir, rel, &path, err, errlen) < 0 ? -1 : 0;
        free(rel);
        if (!path) continue;
        if (!strcmp(e->d_name, "default.jinja")) {
            free(*dflt);
            *dflt = path;
        } else {
            names = cal_xrealloc(names, (n + 2) * sizeof *names);
            names[n++] = path;
            names[n] = NULL;
        }
    }
    if (d) closedir(d);
    free(sub);
    qsort(names, n, sizeof *names, by_name);
    *out = names;
    return rc;
}

/* The config and template files of a model argument: *cfg may be NULL (a
 * lone .jinja), *jinja NULL (the template is the config's); *extra the
 * files of additional_chat_templates/ (a NULL-terminated list). A file the
 * user names is read as it is; the files found in a folder by name follow
 * the model folder policy (base/modelfile.h). */
static int locate(const char *model, char **cfg, char **jinja, char ***extra, char *err, size_t errlen) {
    char *dir = NULL, kind[600];
    *cfg = *jinja = NULL;
    *extra = NULL;
    if (is_dir(model)) dir = cal_xstrdup(model);
    else if (is_file(model) && ends_with(model, ".jinja")) *jinja = cal_xstrdup(model), *extra = cal_xcalloc(1, sizeof **extra), dir = dir_of(model);
    else if (is_file(model)) *cfg = cal_xstrdup(model), dir = dir_of(model);
    else if (cal_path_kind(model, kind, sizeof kind))
        return cal_errf(err, errlen, "%s: %s, not a model folder, tokenizer_config.json or .jinja file", model, kind);
    else if (!(dir = fetched(model)))
        return cal_errf(err, errlen, "%s: no such model folder, tokenizer_config.json or .jinja file (nor a fetched "
                     "tokenizer of that name)", model);
    if (!*cfg && model_file(dir, "tokenizer_config.json", cfg, err, errlen) < 0) {
        free(dir);
        return -1;
    }
    if (!*jinja) { /* transformers: chat_template.jinja beside the config wins */
        char *d = NULL;
        if (model_file(dir, "chat_template.jinja", jinja, err, errlen) < 0 || additional(dir, extra, &d, err, errlen) < 0) {
            free(dir), free(d);
            return -1;
        }
        if (d) free(*jinja), *jinja = d;
    }
    free(dir);
    if (!*cfg && !*jinja && !**extra)
        return cal_errf(err, errlen, "%s: no tokenizer_config.json or chat_template.jinja", model);
    return 0;
}

static void add_template(cal_chat_render *c, const char *name, const char *src, size_t n, const char *path,
                         const char *where) {
    named e = {name ? cal_xstrdup(name) : NULL, NULL, n, path ? cal_xstrdup(path) : NULL, cal_xstrdup(where), NULL};
    if (src) {
        e.src = cal_xmalloc(n + 1);
        memcpy(e.src, src, n);
        e.src[n] = 0;
    }
    c->tpl = cal_xrealloc(c->tpl, (c->ntpl + 1) * sizeof *c->tpl);
    c->tpl[c->ntpl++] = e;
}

/* Parses template i (reading its file first): 0, or -1 with err. */
static int compile(cal_chat_render *c, size_t i, char *err, size_t errlen) {
    named *e = &c->tpl[i];
    if (e->t) return 0;
    char label[600];
    snprintf(label, sizeof label, "%s%s%s", e->where, e->name ? " " : "", e->name ? e->name : "");
    if (e->src) {
        e->t = cal_jinja_load(label, e->src, e->n, err, errlen);
        return e->t ? 0 : -1;
    }
    cal_mapfile m;
    if (!cal_mapfile_open(&m, e->path, err, errlen)) return -1;
    e->t = cal_jinja_load(label, m.p, m.len, err, errlen);
    cal_mapfile_close(&m);
    return e->t ? 0 : -1;
}

/* apply_chat_template passes the special tokens that are set, strings or
 * AddedToken objects {"content": ...}. */
static void special_tokens(const json_t *cfg, json_t *vars) {
    static const char *const keys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                       "pad_token", "cls_token", "mask_token"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *v = json_object_get(cfg, keys[i]);
        if (json_is_object(v)) v = json_object_get(v, "content");
        if (json_is_string(v)) json_object_set_new(vars, keys[i], json_stringn(json_string_value(v), json_string_length(v)));
    }
}

static int load_config(cal_chat_render *c, const char *cfg_path, int want_template, char *err, size_t errlen) {
    json_error_t je;
    /* model_max_length is often 1e30 written as an integer: only strings matter */
    json_t *cfg = json_load_file(cfg_path, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &je);
    if (!cfg) return cal_errf(err, errlen, "%s: line %d: invalid JSON: %s", cfg_path, je.line, je.text);
    int rc = 0;
    special_tokens(cfg, c->base);
    const json_t *t = json_object_get(cfg, "chat_template");
    char where[520];
    snprintf(where, sizeof where, "%s chat_template", cfg_path);
    if (!want_template) {
    } else if (json_is_string(t)) {
        add_template(c, NULL, json_string_value(t), json_string_length(t), NULL, where);
    } else if (json_is_array(t) && json_array_size(t)) {
        for (size_t i = 0; i < json_array_size(t) && !rc; i++) {
            const json_t *e = json_array_get(t, i), *n = json_object_get(e, "name"), *s = json_object_get(e, "template");
            if (!json_is_string(n) || !json_is_string(s))
                rc = cal_errf(err, errlen, "%s: chat_template entry %zu is not {name, template} strings", cfg_path, i);
            else add_template(c, json_string_value(n), json_string_value(s), json_string_length(s), NULL, where);
        }
    } else {
        rc = cal_errf(err, errlen, "%s: no chat_template (the tokenizer has no chat template)", cfg_path);
    }
    json_decref(cfg);
    return rc;
}

/* A template file: unnamed, or named (its name a copy of n bytes). */
static void load_jinja(cal_chat_render *c, const char *path, const char *name, size_t n) {
    char *nm = name ? cal_xmalloc(n + 1) : NULL;
    if (nm) memcpy(nm, name, n), nm[n] = 0;
    add_template(c, nm, NULL, 0, path, path);
    free(nm);
}

/* Template files, as transformers reads them: chat_template.jinja alone is
 * the one template; with additional_chat_templates/NAME.jinja they are
 * named templates (the root one "default"), and the config's are unused. */
static void load_files(cal_chat_render *c, const char *jinja, char **extra) {
    if (!extra || !*extra) {
        load_jinja(c, jinja, NULL, 0);
        return;
    }
    if (jinja) load_jinja(c, jinja, "default", 7);
    for (size_t i = 0; extra[i]; i++) {
        const char *base = strrchr(extra[i], '/') + 1;
        load_jinja(c, extra[i], base, strlen(base) - 6);
    }
}

/* Which template records use: fixed, or default/tool_use per record, as
 * transformers' get_chat_template chooses; those (and only those) are
 * parsed. */
static int choose(cal_chat_render *c, const char *want, char *err, size_t errlen) {
    if (c->ntpl == 1 && !c->tpl[0].name) {
        if (want) return cal_errf(err, errlen, "%s: --chat-template-name %s: the model has one unnamed template", c->source, want);
        if (compile(c, 0, err, errlen)) return -1;
        c->fixed = c->tpl[0].t;
        return 0;
    }
    size_t fixed = SIZE_MAX, dflt = SIZE_MAX, tool_use = SIZE_MAX;
    for (size_t i = 0; i < c->ntpl; i++) {
        /* a name given twice: the last one, as a dict built from the list keeps */
        if (want && !strcmp(c->tpl[i].name, want)) fixed = i;
        if (!strcmp(c->tpl[i].name, "default")) dflt = i;
        if (!strcmp(c->tpl[i].name, "tool_use")) tool_use = i;
    }
    if (want && fixed == SIZE_MAX) {
        cal_buf names = {0};
        for (size_t i = 0; i < c->ntpl && names.n < 400; i++) cal_buf_addf(&names, "%s%s", i ? ", " : "", c->tpl[i].name);
        cal_errf(err, errlen, "%s: no chat template named '%s' (%.*s%s)", c->source, want, (int)names.n, names.p,
                 names.n >= 400 ? ", ..." : "");
        cal_buf_free(&names);
        return -1;
    }
    if (fixed != SIZE_MAX) {
        if (compile(c, fixed, err, errlen)) return -1;
        c->fixed = c->tpl[fixed].t;
        return 0;
    }
    if (dflt != SIZE_MAX) {
        if (compile(c, dflt, err, errlen)) return -1;
        c->dflt = c->tpl[dflt].t;
    }
    if (tool_use != SIZE_MAX) {
        if (compile(c, tool_use, err, errlen)) return -1;
        c->tool_use = c->tpl[tool_use].t;
    }
    return 0;
}

/* --chat-var KEY=JSON: its value (a new reference, with *marks), or NULL
 * with err. */
static json_t *parse_var(const char *kv, cal_pyjson **marks, char *err, size_t errlen) {
    *marks = NULL; /* every early return leaves none */
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        cal_errf(err, errlen, "--chat-var '%s': not KEY=JSON (e.g. enable_thinking=false)", kv);
        return NULL;
    }
    static const char *const fixed[] = {"messages", "tools", "add_generation_prompt"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (strlen(fixed[i]) == (size_t)(eq - kv) && !memcmp(kv, fixed[i], (size_t)(eq - kv))) {
            cal_errf(err, errlen, "--chat-var '%s': %s is set by cal-read itself", kv, fixed[i]);
            return NULL;
        }
    json_t *v;
    char why[256];
    if (cal_pyjson_loads(eq + 1, strlen(eq + 1), &v, marks, why, sizeof why) < 0) {
        cal_errf(err, errlen, "--chat-var '%s': the value is not JSON (%s; a string needs quotes: k='\"x\"')", kv, why);
        return NULL;
    }
    return v;
}

int cal_chat_var_check(const char *kv, char *err, size_t errlen) {
    cal_pyjson *marks;
    json_t *v = parse_var(kv, &marks, err, errlen);
    json_decref(v);
    cal_pyjson_free(marks);
    return v ? 0 : -1;
}

/* --chat-var KEY=JSON into the template's variables. */
static int set_var(cal_chat_render *c, const char *kv, char *err, size_t errlen) {
    cal_pyjson *marks;
    json_t *v = parse_var(kv, &marks, err, errlen);
    if (!v) return -1;
    if (marks) {
        c->var_marks = cal_xrealloc(c->var_marks, (c->nvar_marks + 1) * sizeof *c->var_marks);
        c->var_marks[c->nvar_marks++] = marks;
    }
    size_t n = (size_t)(strchr(kv, '=') - kv);
    char *key = cal_xmalloc(n + 1);
    memcpy(key, kv, n);
    key[n] = 0;
    json_object_set_new(c->base, key, v);
    free(key);
    return 0;
}

cal_chat_render *cal_chat_render_open(const cal_chat_spec *spec, char *err, size_t errlen) {
    char *cfg, *jinja, **extra;
    if (locate(spec->model, &cfg, &jinja, &extra, err, errlen)) {
        free_list(extra);
        return NULL;
    }
    int files = jinja || (extra && *extra);
    cal_chat_render *c = cal_xcalloc(1, sizeof *c);
    c->base = json_object();
    c->source = cal_xstrdup(jinja ? jinja : files ? extra[0] : cfg);
    c->opts.now = spec->now;
    int rc = cfg ? load_config(c, cfg, !files, err, errlen) : 0;
    if (!rc && files) load_files(c, jinja, extra);
    free_list(extra);
    if (!rc) rc = choose(c, spec->name, err, errlen);
    for (size_t i = 0; !rc && i < spec->nvars; i++) rc = set_var(c, spec->vars[i], err, errlen);
    if (!json_object_get(c->base, "documents")) json_object_set_new(c->base, "documents", json_null());
    json_object_set_new(c->base, "add_generation_prompt", json_boolean(spec->add_generation_prompt));
    if (spec->system) c->system = json_pack("{s:s,s:s%}", "role", "system", "content", spec->system, strlen(spec->system));
    c->retry = spec->retry_without_system;
    free(cfg);
    free(jinja);
    if (rc) {
        cal_chat_render_free(c);
        return NULL;
    }
    return c;
}

const char *cal_chat_render_source(const cal_chat_render *c) { return c->source; }

/* ShareGPT {from, value} as the {role, content} templates read. */
static json_t *sharegpt(const json_t *msgs) {
    json_t *out = json_array();
    for (size_t i = 0; i < json_array_size(msgs); i++) {
        json_t *m = json_array_get(msgs, i), *from = json_object_get(m, "from");
        if (!json_is_object(m) || !json_is_string(from) || json_object_get(m, "role")) {
            json_array_append(out, m);
            continue;
        }
        const char *r = json_string_value(from);
        json_t *x = json_object();
        json_object_set_new(x, "role", json_string(!strcmp(r, "human") ? "user" : !strcmp(r, "gpt") ? "assistant" : r));
        const char *k;
        json_t *v;
        json_object_foreach(m, k, v) {
            if (!strcmp(k, "value")) json_object_set(x, "content", v);
            else if (strcmp(k, "from")) json_object_set(x, k, v);
        }
        json_array_append_new(out, x);
    }
    return out;
}

static int is_role(const json_t *m, const char *role) {
    const json_t *r = json_object_get(m, "role");
    return json_is_string(r) && !strcmp(json_string_value(r), role);
}

/* Where assistant message msg ends in full, its turn starting at start,
 * when the turn renders otherwise with later turns after it (Qwen 3 drops
 * the empty <think> block of earlier turns): its content (a string) found
 * in full from start, followed by what follows the content in alone (the
 * turn rendered last: its end-of-turn text); 0 when not found so. */
static size_t turn_end(const json_t *msg, const cal_buf *alone, const cal_buf *full, size_t start) {
    const json_t *c = json_object_get(msg, "content");
    size_t cn = json_string_length(c);
    if (!json_is_string(c) || !cn || alone->n < cn) return 0;
    const char *cs = json_string_value(c);
    size_t at = alone->n - cn + 1, tail;
    while (at-- > 0 && memcmp(alone->p + at, cs, cn)) {
    }
    if (at == (size_t)-1) return 0;
    tail = alone->n - at - cn; /* the end-of-turn text */
    for (size_t i = start; i + cn + tail <= full->n; i++)
        if (!memcmp(full->p + i, cs, cn)) return memcmp(full->p + i + cn, alone->p + at + cn, tail) ? 0 : i + cn + tail;
    return 0;
}

/* The assistant turns of messages m as byte spans of full (the rendering
 * of m), for a template without {% generation %} blocks: for each assistant
 * message k, from the end of m[:k] rendered with the generation prompt to
 * the end of m[:k+1] rendered without it, where both renderings are
 * prefixes of full (so the span holds the turn's text and its end-of-turn
 * tokens, what the model generates); when only the first is (the template
 * renders earlier turns differently when later ones follow), to the end of
 * the turn found by turn_end. A turn whose span cannot be found so (or the
 * template refuses the shorter conversation) is counted in *lost. */
static void turn_spans(const cal_jinja_opts *opts, const cal_jinja *t, json_t *vars, json_t *m, const cal_buf *full,
                       cal_buf *spans, uint64_t *lost) {
    cal_buf a = {0}, b = {0};
    json_t *agp = json_object_get(vars, "add_generation_prompt");
    json_incref(agp);
    json_incref(m); /* vars' own reference goes while the shorter conversations are set */
    uint32_t last = 0;
    char err[256];
    for (size_t k = 0; k < json_array_size(m); k++) {
        if (!is_role(json_array_get(m, k), "assistant")) continue;
        json_t *pre = json_array(), *upto;
        for (size_t i = 0; i < k; i++) json_array_append(pre, json_array_get(m, i));
        upto = json_copy(pre);
        json_array_append(upto, json_array_get(m, k));
        a.n = b.n = 0;
        json_object_set_new(vars, "messages", pre);
        json_object_set_new(vars, "add_generation_prompt", json_true());
        int ok = cal_jinja_render(t, vars, opts, &a, err, sizeof err) == 0;
        json_object_set_new(vars, "messages", upto);
        json_object_set_new(vars, "add_generation_prompt", json_false());
        ok = ok && cal_jinja_render(t, vars, opts, &b, err, sizeof err) == 0;
        size_t end = 0;
        if (ok && b.n > a.n && a.n >= last && b.n <= full->n && !memcmp(b.p, full->p, b.n) && !memcmp(a.p, b.p, a.n))
            end = b.n;
        else if (ok && a.n >= last && a.n <= full->n && !memcmp(a.p, full->p, a.n))
            end = turn_end(json_array_get(m, k), &b, full, a.n); /* later turns change how this one renders */
        if (end > a.n) {
            uint32_t se[2] = {(uint32_t)a.n, (uint32_t)end};
            cal_buf_add(spans, se, sizeof se);
            last = (uint32_t)end;
        } else {
            ++*lost;
        }
    }
    json_object_set_new(vars, "messages", m);
    json_object_set_new(vars, "add_generation_prompt", agp);
    cal_buf_free(&a), cal_buf_free(&b);
}

/* The literal callback of the render: the record's marks, then --chat-var's. */
typedef struct {
    const cal_chat_render *c;
    const cal_pyjson *record;
} literals;

static const char *literal(void *ctx, const json_t *node) {
    const literals *l = ctx;
    const char *t = cal_pyjson_literal(l->record, node);
    for (size_t i = 0; !t && i < l->c->nvar_marks; i++) t = cal_pyjson_literal(l->c->var_marks[i], node);
    return t;
}

int cal_chat_render_record(const cal_chat_render *c, const json_t *record, const json_t *msgs,
                           const cal_pyjson *marks, cal_buf *out, char *err, size_t errlen) {
    return cal_chat_render_spans(c, record, msgs, marks, out, NULL, NULL, err, errlen);
}

int cal_chat_render_spans(const cal_chat_render *c, const json_t *record, const json_t *msgs,
                          const cal_pyjson *marks, cal_buf *out, cal_buf *spans, uint64_t *lost, char *err,
                          size_t errlen) {
    if (!json_is_array(msgs)) return cal_errf(err, errlen, "the messages are not a list");
    const json_t *tools = json_is_object(record) ? json_object_get(record, "tools") : NULL;
    if (tools && !json_is_null(tools) && !json_is_array(tools))
        return cal_errf(err, errlen, "'tools' is not a list");
    const json_t *docs = json_is_object(record) ? json_object_get(record, "documents") : NULL;
    if (docs && !json_is_null(docs) && !json_is_array(docs)) return cal_errf(err, errlen, "'documents' is not a list");
    int has_tools = tools && json_is_array(tools);
    const cal_jinja *t = c->fixed ? c->fixed : has_tools && c->tool_use ? c->tool_use : c->dflt;
    if (!t) return cal_errf(err, errlen, "the model has several chat templates and none named default%s",
                         has_tools ? " or tool_use" : " (use --chat-template-name)");
    json_t *vars = json_copy(c->base), *m = sharegpt(msgs);
    if (c->system && !is_role(json_array_get(m, 0), "system")) json_array_insert(m, 0, c->system);
    json_object_set_new(vars, "messages", m);
    json_object_set_new(vars, "tools", has_tools ? json_incref((json_t *)tools) : json_null());
    if (docs) json_object_set(vars, "documents", (json_t *)docs); /* the record's, over --chat-var's */
    int gen = cal_jinja_has_generation(t); /* as parsed: a comment naming endgeneration is no block */
    cal_buf *gs = spans && gen ? spans : NULL;
    size_t s0 = spans ? spans->n : 0;
    out->n = 0;
    cal_jinja_opts opts = c->opts;
    literals lits = {c, marks};
    if (marks || c->nvar_marks) opts.literal = literal, opts.literal_ctx = &lits;
    uint64_t unspanned = 0; /* generation blocks in captured output: no span, counted as lost turns */
    int rc = cal_jinja_render_spans(t, vars, &opts, out, gs, &unspanned, err, errlen);
    if (rc && c->retry) { /* auto-round: again without the system turns */
        json_t *kept = json_array();
        for (size_t i = 0; i < json_array_size(m); i++)
            if (!is_role(json_array_get(m, i), "system")) json_array_append(kept, json_array_get(m, i));
        if (json_array_size(kept) == json_array_size(m)) { /* no system turn: it would fail the same again */
            json_decref(kept);
        } else {
            json_object_set_new(vars, "messages", m = kept);
            out->n = 0;
            unspanned = 0;
            rc = cal_jinja_render_spans(t, vars, &opts, out, gs, &unspanned, err, errlen) ? -1 : 1;
            size_t k = strlen(err);
            if (rc < 0 && k < errlen) /* the message is the retry's: its positions are the shorter conversation's */
                snprintf(err + k, errlen - k, " (at the retry without its system turns)");
        }
    }
    if (rc >= 0 && spans && !gen) turn_spans(&opts, t, vars, m, out, spans, lost);
    if (rc >= 0 && gs && lost) *lost += unspanned;
    if (rc < 0 && spans) spans->n = s0;
    json_decref(vars);
    return rc;
}

int cal_chat_render_user(const cal_chat_render *c, const char *text, size_t n, cal_buf *out, char *err, size_t errlen) {
    json_t *msgs = json_pack("[{s:s,s:s%}]", "role", "user", "content", text, n);
    if (!msgs) return cal_errf(err, errlen, "the text is not UTF-8");
    if (c->system) json_array_insert(msgs, 0, c->system);
    int rc = cal_chat_render_record(c, NULL, msgs, NULL, out, err, errlen);
    json_decref(msgs);
    return rc;
}

void cal_chat_render_free(cal_chat_render *c) {
    if (!c) return;
    for (size_t i = 0; i < c->ntpl; i++) {
        free(c->tpl[i].name);
        free(c->tpl[i].src);
        free(c->tpl[i].path);
        free(c->tpl[i].where);
        cal_jinja_free(c->tpl[i].t);
    }
    free(c->tpl);
    json_decref(c->base);
    for (size_t i = 0; i < c->nvar_marks; i++) cal_pyjson_free(c->var_marks[i]);
    free(c->var_marks);
    json_decref(c->system);
    free(c->source);
    free(c);
}
