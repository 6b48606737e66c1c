/* drops.c - see drops.h. */
#include "stream/drops.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"

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

void cal_drops_add(cal_drops *d, const char *why, uint64_t docs, uint64_t tokens) {
    cal_drops_count(d, cal_drops_reason(d, why), docs, tokens);
}

uint64_t cal_drops_docs(const cal_drops *d) {
    uint64_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += d->v[i].noun[0] ? 0 : d->v[i].docs;
    return n;
}

uint64_t cal_drops_tokens(const cal_drops *d) {
    uint64_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += d->v[i].noun[0] ? 0 : d->v[i].tokens;
    return n;
}

void cal_drops_format(const cal_drops *d, cal_buf *out) {
    int first = 1;
    for (size_t i = 0; i < d->n; i++) {
        const cal_drop *x = &d->v[i];
        if (!x->docs && !x->tokens) continue;
        if (!first) cal_buf_add(out, ", ", 2);
        first = 0;
        if (x->noun[0]) {
            cal_buf_addf(out, "%llu %s %s", (unsigned long long)x->docs, x->noun, x->why);
            if (x->unit[0]) cal_buf_addf(out, " (%llu %s)", (unsigned long long)x->tokens, x->unit);
        } else if (x->whole)
            cal_buf_addf(out, "%llu documents dropped %s (%llu tokens)", (unsigned long long)x->docs, x->why,
                         (unsigned long long)x->tokens);
        else
            cal_buf_addf(out, "%llu tokens dropped %s", (unsigned long long)x->tokens, x->why);
    }
}

void cal_drops_report(const cal_drops *d, const char *summary) {
    cal_buf b = {0};
    if (summary && *summary) cal_buf_addf(&b, "%s; ", summary);
    size_t at = b.n;
    cal_drops_format(d, &b);
    if (b.n == at && at) b.n -= 2; /* nothing dropped: no "; " */
    if (b.n) {
        cal_buf_addc(&b, 0);
        cal_warn("%s", b.p);
    }
    cal_buf_free(&b);
}
