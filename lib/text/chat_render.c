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
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        cal_errf(err, errlen, "--chat-var '%s': not KEY=JSON (e.g. enable_thinking=false)", kv);
        return NULL;
    }
    static const char *const fixed[] = {"messages", "tools", "documents", "add_generation_prompt"};
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
    json_object_set_new(c->base, "documents", json_null());
    json_object_set_new(c->base, "add_generation_prompt", json_boolean(spec->add_generation_prompt));
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
    if (!json_is_array(msgs)) return cal_errf(err, errlen, "the messages are not a list");
    const json_t *tools = json_is_object(record) ? json_object_get(record, "tools") : NULL;
    if (tools && !json_is_null(tools) && !json_is_array(tools))
        return cal_errf(err, errlen, "'tools' is not a list");
    int has_tools = tools && json_is_array(tools);
    const cal_jinja *t = c->fixed ? c->fixed : has_tools && c->tool_use ? c->tool_use : c->dflt;
    if (!t) return cal_errf(err, errlen, "the model has several chat templates and none named default%s",
                         has_tools ? " or tool_use" : " (use --chat-template-name)");
    json_t *vars = json_copy(c->base);
    json_object_set_new(vars, "messages", sharegpt(msgs));
    json_object_set_new(vars, "tools", has_tools ? json_incref((json_t *)tools) : json_null());
    out->n = 0;
    cal_jinja_opts opts = c->opts;
    literals lits = {c, marks};
    if (marks || c->nvar_marks) opts.literal = literal, opts.literal_ctx = &lits;
    int rc = cal_jinja_render(t, vars, &opts, out, err, errlen);
    json_decref(vars);
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
    free(c->source);
    free(c);
}
