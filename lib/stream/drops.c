/* drops.c - see drops.h. */
#include "stream/drops.h"
#include "stream/shards.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

static size_t reason(cal_drops *d, const char *noun, const char *why) {
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->v[i].why, why) && !strcmp(d->v[i].noun, noun)) return i;
    if (d->n == CAL_DROPS_MAX) cal_die("internal error: more than %d kinds of drops", CAL_DROPS_MAX);
    cal_drop *x = &d->v[d->n];
    memset(x, 0, sizeof *x);
    snprintf(x->why, sizeof x->why, "%s", why);
    snprintf(x->noun, sizeof x->noun, "%s", noun);
    return d->n++;
}

size_t cal_drops_reason(cal_drops *d, const char *why) { return reason(d, "", why); }

void cal_drops_note(cal_drops *d, const char *noun, const char *why, uint64_t n, uint64_t amount, const char *unit) {
    if (strchr(noun, ' ') || (unit && strchr(unit, ' '))) /* they are words of the drop lines */
        cal_die("internal error: a drop's noun and unit are one word each ('%s', '%s')", noun, unit ? unit : "");
    cal_drop *x = &d->v[reason(d, noun, why)];
    snprintf(x->unit, sizeof x->unit, "%s", unit ? unit : "");
    x->whole = 1;
    x->docs += n;
    x->tokens += amount;
}

void cal_drops_count(cal_drops *d, size_t i, uint64_t docs, uint64_t tokens) {
    cal_drop *x = &d->v[i];
    x->whole |= docs > 0;
    x->docs += docs;
    x->tokens += tokens;
}

void cal_drops_cut(cal_drops *d, size_t i, uint64_t docs, uint64_t tokens) {
    cal_drop *x = &d->v[i];
    x->cut = 1;
    x->docs += docs;
    x->tokens += tokens;
}

void cal_drops_add(cal_drops *d, const char *why, uint64_t docs, uint64_t tokens) {
    cal_drops_count(d, cal_drops_reason(d, why), docs, tokens);
}

uint64_t cal_drops_docs(const cal_drops *d) {
    uint64_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += d->v[i].noun[0] || d->v[i].cut ? 0 : d->v[i].docs;
    return n;
}

uint64_t cal_drops_tokens(const cal_drops *d) {
    uint64_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += d->v[i].noun[0] ? 0 : d->v[i].tokens;
    return n;
}

/* A cause as n NOUN WHY (amount UNIT), whatever form counted it. */
typedef struct {
    const char *noun, *verb, *why, *unit;
    uint64_t n, amount;
} cause;

static cause cause_of(const cal_drop *x) {
    if (x->noun[0]) return (cause){x->noun, "", x->why, x->unit, x->docs, x->tokens};
    if (x->cut) return (cause){"documents", "truncated ", x->why, "tokens", x->docs, x->tokens};
    if (x->whole) return (cause){"documents", "dropped ", x->why, "tokens", x->docs, x->tokens};
    return (cause){"tokens", "dropped ", x->why, "", x->tokens, 0};
}

static void format_one(const cal_drop *x, cal_buf *out) {
    cause c = cause_of(x);
    cal_buf_addf(out, "%llu %s %s%s", (unsigned long long)c.n, c.noun, c.verb, c.why);
    if (c.unit[0]) cal_buf_addf(out, " (%llu %s%s)", (unsigned long long)c.amount, c.unit, x->cut ? " dropped" : "");
}

void cal_drops_format(const cal_drops *d, cal_buf *out) {
    int first = 1;
    for (size_t i = 0; i < d->n; i++) {
        if (!d->v[i].docs && !d->v[i].tokens) continue;
        if (!first) cal_buf_add(out, ", ", 2);
        first = 0;
        format_one(&d->v[i], out);
    }
}

void cal_drops_report(const cal_drops *d, const char *summary) {
    if (summary && *summary) cal_warn("%s", summary);
    cal_buf b = {0};
    for (size_t i = 0; i < d->n; i++) {
        if (!d->v[i].docs && !d->v[i].tokens) continue;
        b.n = 0;
        format_one(&d->v[i], &b);
        cal_buf_addc(&b, 0);
        cal_warn("%s", b.p);
    }
    cal_buf_free(&b);
}

uint64_t cal_drops_chain(const cal_meta *m) {
    XXH3_state_t *st = XXH3_createState();
    if (!st) cal_die("out of memory");
    XXH3_64bits_reset(st);
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], "stage") || !strcmp(m->key[i], "input")) {
            XXH3_64bits_update(st, m->key[i], strlen(m->key[i]) + 1);
            XXH3_64bits_update(st, m->val[i], strlen(m->val[i]) + 1);
        }
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}

void cal_drops_record(const cal_drops *d, cal_meta *m) {
    char chain[17];
    snprintf(chain, sizeof chain, "%016llx", (unsigned long long)cal_drops_chain(m));
    cal_buf b = {0};
    for (size_t i = 0; i < d->n; i++) {
        if (!d->v[i].docs && !d->v[i].tokens) continue;
        cause c = cause_of(&d->v[i]);
        b.n = 0;
        cal_buf_addf(&b, "%s %s %llu %s %llu %s %s%s", chain, cal_progname(), (unsigned long long)c.n, c.noun,
                     (unsigned long long)c.amount, c.unit[0] ? c.unit : "-", c.verb, c.why);
        cal_meta one = {0};
        cal_meta_add(&one, "drop", b.p);
        char err[64];
        cal_meta_merge(m, &one, err, sizeof err);
        cal_meta_free(&one);
    }
    cal_buf_free(&b);
}

int cal_drop_parse(const char *v, cal_drop_line *out) {
    char chain[17], prog[64], noun[32], unit[32];
    unsigned long long n, amount;
    int at = 0;
    if (sscanf(v, "%16[0-9a-f] %63s %llu %31s %llu %31s %n", chain, prog, &n, noun, &amount, unit, &at) != 6 || !at ||
        strlen(chain) != 16)
        return -1;
    memset(out, 0, sizeof *out);
    out->chain = strtoull(chain, NULL, 16);
    snprintf(out->prog, sizeof out->prog, "%s", prog);
    snprintf(out->noun, sizeof out->noun, "%s", noun);
    snprintf(out->unit, sizeof out->unit, "%s", strcmp(unit, "-") ? unit : "");
    out->n = n, out->amount = amount;
    out->why = v + at;
    return 0;
}

void cal_drops_finish(const cal_drops *d, cal_writer *w, cal_reader *r, const char *summary) {
    cal_meta *m = cal_writer_meta(w);
    if (r) {
        char err[512];
        if (!cal_meta_merge(m, cal_reader_meta(r), err, sizeof err)) cal_die("%s: %s", cal_reader_name(r), err);
        cal_reader_accept_partial(r, m);
    }
    if (d) cal_drops_record(d, m);
    static const cal_drops none;
    cal_drops_report(d ? d : &none, summary);
}
