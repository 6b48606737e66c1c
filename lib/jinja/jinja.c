/* jinja.c - the public API of the Jinja interpreter (jinja/jinja.h): load
 * (normalize newlines as Jinja does, lex, parse), render (variables from
 * JSON, limits, the time strftime_now sees), free. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "jinja/jinja.h"
#include "jinja/jinja_int.h"

struct cal_jinja {
    jj_template t;
};

static void set_err(char *err, size_t errlen, const char *name, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", name ? name : "template", msg);
}

cal_jinja *cal_jinja_load(const char *name, const char *src, size_t n, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    size_t valid = cal_utf8_valid_prefix(src, n);
    if (valid != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "the template is not valid UTF-8 at byte %zu", valid);
        set_err(err, errlen, name, msg);
        return NULL;
    }
    cal_jinja *j = calloc(1, sizeof *j);
    if (!j) {
        set_err(err, errlen, name, "out of memory");
        return NULL;
    }
    jj_template *t = &j->t;
    t->err.msg = err;
    t->err.cap = errlen;
    t->ar.err = &t->err;
    t->ar.limit = (size_t)1 << 30;
    if (setjmp(t->err.jb)) {
        jj_arena_free(&t->ar);
        free(j);
        return NULL;
    }
    t->name = jj_strndup(&t->ar, name ? name : "template", strlen(name ? name : "template"));
    t->err.name = t->name;
    /* Jinja's lexer: \r\n, \r and \n all become \n; one trailing newline
     * is dropped (keep_trailing_newline is off). */
    char *s = jj_alloc(&t->ar, n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '\r') {
            s[k++] = '\n';
            if (i + 1 < n && src[i + 1] == '\n') i++;
        } else {
            s[k++] = src[i];
        }
    }
    if (k && s[k - 1] == '\n') k--;
    s[k] = 0;
    jj_toks toks = {0};
    jj_lex(&t->ar, s, k, &toks);
    jj_parse(t, &toks);
    t->err.msg = NULL;
    t->err.cap = 0;
    return j;
}

int cal_jinja_has_generation(const cal_jinja *j) {
    return j && j->t.has_generation;
}

void cal_jinja_free(cal_jinja *j) {
    if (!j) return;
    jj_arena_free(&j->t.ar);
    free(j);
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void fix_tm(struct tm *tm) {
    int64_t y = (int64_t)tm->tm_year + 1900, m = tm->tm_mon + 1, d = tm->tm_mday;
    int64_t days = days_from_civil(y, m, d);
    int64_t wd = (days + 4) % 7;
    tm->tm_wday = (int)(wd < 0 ? wd + 7 : wd);
    tm->tm_yday = (int)(days - days_from_civil(y, 1, 1));
    tm->tm_isdst = 0;
}

int cal_jinja_render(const cal_jinja *j, const json_t *vars, const cal_jinja_opts *opts,
                     cal_buf *out, char *err, size_t errlen) {
    return cal_jinja_render_spans(j, vars, opts, out, NULL, NULL, err, errlen);
}

int cal_jinja_render_spans(const cal_jinja *j, const json_t *vars, const cal_jinja_opts *opts, cal_buf *out,
                           cal_buf *spans, uint64_t *unspanned, char *err, size_t errlen) {
    size_t spans0 = spans ? spans->n : 0;
    if (err && errlen) err[0] = 0;
    const char *name = j->t.name;
    if (vars && !json_is_object(vars)) {
        set_err(err, errlen, name, "the template variables must be a JSON object");
        return -1;
    }
    jj_rt *rt = calloc(1, sizeof *rt);
    if (!rt) {
        set_err(err, errlen, name, "out of memory");
        return -1;
    }
    rt->err.msg = err;
    rt->err.cap = errlen;
    rt->err.name = name;
    rt->ar.err = &rt->err;
    rt->ar.line = &rt->line;
    rt->ar.limit = opts && opts->max_memory ? opts->max_memory : (size_t)1 << 30;
    rt->max_output = opts && opts->max_output ? opts->max_output : (size_t)256 << 20;
    rt->ar.max_work = opts && opts->max_steps ? opts->max_steps : CAL_JINJA_BUDGET;
    rt->max_depth = opts && opts->max_depth ? opts->max_depth : 200;
    rt->literal = opts ? opts->literal : NULL;
    rt->literal_ctx = opts ? opts->literal_ctx : NULL;
    if (opts && opts->now) {
        rt->now = *opts->now;
    } else {
        time_t now = time(NULL);
        localtime_r(&now, &rt->now);
    }
    fix_tm(&rt->now);
    if (setjmp(rt->err.jb)) {
        jj_gc_free(rt);
        jj_arena_free(&rt->ar);
        free(rt);
        if (spans) spans->n = spans0;
        return -1;
    }
    jj_scope *globals = jj_alloc(&rt->ar, sizeof *globals);
    memset(globals, 0, sizeof *globals);
    jj_add_globals(rt, &globals->vars);
    jj_scope *root = jj_alloc(&rt->ar, sizeof *root);
    memset(root, 0, sizeof *root);
    root->parent = globals;
    if (vars) {
        const char *k;
        json_t *v;
        size_t kn;
        json_object_keylen_foreach((json_t *)vars, k, kn, v)
            jj_dict_set(rt, &root->vars, jj_strn(rt, k, kn), jj_from_json(rt, v, 0));
    }
    jj_buf b = {0};
    rt->root_out = &b, rt->spans = spans;
    jj_render(rt, &j->t, root, &b);
    if (spans) /* offsets in out */
        for (size_t k = spans0; k + 4 <= spans->n; k += 4) {
            uint32_t v;
            memcpy(&v, spans->p + k, 4);
            v += (uint32_t)out->n;
            memcpy(spans->p + k, &v, 4);
        }
    if (b.n) cal_buf_add(out, b.p, b.n);
    if (unspanned) *unspanned += rt->unspanned;
    jj_gc_free(rt);
    jj_arena_free(&rt->ar);
    free(rt);
    return 0;
}
