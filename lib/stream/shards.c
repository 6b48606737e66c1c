/* shards.c - see shards.h. Memory grows with the shards seen, never with a
 * shard count N that a stage line claims. */
#include "stream/shards.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/hash.h"

typedef struct {
    uint64_t i;
    uint32_t streams; /* streams of this shard alone */
    uint32_t sig;     /* index into the family's signatures; UINT32_MAX: none */
} shard;

typedef struct {
    uint64_t hash;
    char *lines; /* sorted, '\n'-joined: for messages */
} signature;

typedef struct {
    char *name; /* the family: the stage line with the letter I for I */
    uint64_t n;
    shard *v;   /* sorted by i */
    size_t nv, cap;
    signature *sig;
    size_t nsig;
    int accepted; /* a `partial` line names it */
    uint64_t streams;     /* streams that named it */
    uint64_t stream_mark; /* the last stream counted */
    int merged;           /* a stream named several of its shards */
    int unknown;          /* a stream that named it stopped reading early */
} family;

struct cal_shards {
    family *f;
    size_t nf;
    cal_meta cur; /* the lines of the stream being read (its headers' union) */
    int open;
    uint64_t nstreams; /* streams ended, from 1 */
};

cal_shards *cal_shards_new(void) { return cal_xcalloc(1, sizeof(cal_shards)); }

/* ---- stage lines ---- */

static int digits(const char *p, size_t n, uint64_t *v) {
    if (!n || n > 10) return 0;
    uint64_t x = 0;
    for (size_t k = 0; k < n; k++) {
        if (p[k] < '0' || p[k] > '9') return 0;
        x = x * 10 + (uint64_t)(p[k] - '0');
    }
    *v = x;
    return 1;
}

/* I/N at p (n bytes, one argument): 1 when it is one. */
static int shard_arg(const char *p, size_t n, uint64_t *i, uint64_t *N) {
    const char *sl = memchr(p, '/', n);
    return sl && digits(p, (size_t)(sl - p), i) && digits(sl + 1, n - (size_t)(sl - p) - 1, N) && *N >= 1 && *i < *N;
}

int cal_stage_shard(const char *stage, uint64_t *i, uint64_t *n, cal_buf *fam) {
    /* Arguments are separated by single spaces; one that needs quoting is in
     * '...' or $'...' (cal_meta_add_stage), so a space inside quotes is no
     * boundary. */
    size_t len = strlen(stage);
    int want_value = 0;
    for (size_t k = 0; k <= len;) {
        size_t e = k;
        while (e < len && stage[e] != ' ') {
            if (stage[e] == '\'') { /* to the closing quote; \' inside $'...' */
                int dollar = e > 0 && stage[e - 1] == '$';
                for (e++; e < len && stage[e] != '\''; e++)
                    if (dollar && stage[e] == '\\' && e + 1 < len) e++;
            }
            if (e < len) e++;
        }
        const char *p = stage + k;
        size_t m = e - k;
        size_t vstart = 0;
        int is = 0;
        if (want_value) is = shard_arg(p, m, i, n), vstart = k;
        else if (m > 8 && !memcmp(p, "--shard=", 8)) is = shard_arg(p + 8, m - 8, i, n), vstart = k + 8;
        want_value = m == 7 && !memcmp(p, "--shard", 7);
        if (is) {
            fam->n = 0;
            cal_buf_add(fam, stage, vstart);
            cal_buf_addf(fam, "I/%llu", (unsigned long long)*n);
            cal_buf_add(fam, stage + e, len - e);
            cal_buf_addc(fam, 0);
            fam->n--;
            return 1;
        }
        k = e + 1;
    }
    return 0;
}

/* ---- the ledger ---- */

static family *find(cal_shards *s, const char *name, uint64_t n, int add) {
    for (size_t k = 0; k < s->nf; k++)
        if (s->f[k].n == n && !strcmp(s->f[k].name, name)) return &s->f[k];
    if (!add) return NULL;
    s->f = cal_xrealloc(s->f, (s->nf + 1) * sizeof *s->f);
    family *f = &s->f[s->nf++];
    memset(f, 0, sizeof *f);
    f->name = cal_xstrdup(name);
    f->n = n;
    return f;
}

static shard *get(family *f, uint64_t i) {
    size_t lo = 0, hi = f->nv;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (f->v[mid].i < i) lo = mid + 1;
        else hi = mid;
    }
    if (lo < f->nv && f->v[lo].i == i) return &f->v[lo];
    if (f->nv == f->cap) f->v = cal_xrealloc(f->v, (f->cap = f->cap ? 2 * f->cap : 8) * sizeof *f->v);
    memmove(f->v + lo + 1, f->v + lo, (f->nv - lo) * sizeof *f->v);
    f->nv++;
    f->v[lo] = (shard){i, 0, UINT32_MAX};
    return &f->v[lo];
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* What must be equal across a family's shards: the stream's input lines and
 * its stage lines other than the shard's own, sorted. */
static uint32_t signature_of(family *f, const cal_meta *m, const char *own) {
    char **l = cal_xcalloc(m->n + 1, sizeof *l);
    size_t n = 0;
    cal_buf line = {0};
    for (size_t k = 0; k < m->n; k++) {
        int stage = !strcmp(m->key[k], "stage");
        if (!(stage || !strcmp(m->key[k], "input")) || (stage && !strcmp(m->val[k], own))) continue;
        line.n = 0;
        cal_buf_addf(&line, "%s=%s", m->key[k], m->val[k]);
        l[n++] = cal_xstrdup(line.p);
    }
    qsort(l, n, sizeof *l, cmp_str);
    line.n = 0;
    for (size_t k = 0; k < n; k++) {
        cal_buf_add(&line, l[k], strlen(l[k]));
        cal_buf_addc(&line, '\n');
        free(l[k]);
    }
    free(l);
    uint64_t h = cal_hash(line.p ? line.p : "", line.n);
    for (size_t k = 0; k < f->nsig; k++)
        if (f->sig[k].hash == h) {
            cal_buf_free(&line);
            return (uint32_t)k;
        }
    cal_buf_addc(&line, 0);
    f->sig = cal_xrealloc(f->sig, (f->nsig + 1) * sizeof *f->sig);
    f->sig[f->nsig] = (signature){h, line.p ? line.p : cal_xstrdup("")};
    return (uint32_t)f->nsig++;
}

/* The stream read so far is complete: enter its shards. */
static void end_stream(cal_shards *s) {
    if (!s->open) return;
    s->open = 0;
    s->nstreams++;
    cal_meta *m = &s->cur;
    cal_buf fam = {0};
    for (size_t k = 0; k < m->n; k++)
        if (!strcmp(m->key[k], "partial")) {
            /* the family's N: after its " --shard I/" (or "--shard=I/") */
            const char *v = m->val[k], *st = strstr(v, " --shard I/"), *eq = strstr(v, " --shard=I/");
            const char *num = st ? st + 11 : eq ? eq + 11 : NULL;
            uint64_t n;
            if (num && digits(num, strcspn(num, " "), &n)) find(s, v, n, 1)->accepted = 1;
        }
    /* Each family's shards in this stream. */
    for (size_t k = 0; k < m->n; k++) {
        uint64_t i, n;
        if (strcmp(m->key[k], "stage") || !cal_stage_shard(m->val[k], &i, &n, &fam)) continue;
        family *f = find(s, fam.p, n, 1);
        if (f->stream_mark != s->nstreams) f->stream_mark = s->nstreams, f->streams++; /* once a stream */
        size_t here = 0;
        cal_buf f2 = {0};
        for (size_t j = 0; j < m->n; j++) {
            uint64_t i2, n2;
            if (!strcmp(m->key[j], "stage") && cal_stage_shard(m->val[j], &i2, &n2, &f2) && n2 == n &&
                !strcmp(f2.p, fam.p))
                here++;
        }
        cal_buf_free(&f2);
        shard *sh = get(f, i);
        f->merged |= here > 1;
        f->unknown |= cal_meta_get(m, "stopped") != NULL;
        if (here == 1) { /* this shard's own stream */
            sh->streams++;
            if (sh->sig == UINT32_MAX) sh->sig = signature_of(f, m, m->val[k]);
        }
    }
    cal_buf_free(&fam);
    cal_meta_free(m);
}

void cal_shards_header(cal_shards *s, const cal_meta *m, int continues) {
    if (!continues) end_stream(s);
    s->open = 1;
    char err[256]; /* a conflict between headers is the reader's to report */
    cal_meta_merge(&s->cur, m, err, sizeof err);
}

/* "0-3, 5, 7" of the indices where pick(f, k) holds, at most 12 runs. */
static void ranges(cal_buf *b, const uint64_t *v, size_t n) {
    size_t runs = 0;
    for (size_t k = 0; k < n; runs++) {
        size_t e = k;
        while (e + 1 < n && v[e + 1] == v[e] + 1) e++;
        if (runs == 12) {
            cal_buf_add(b, ", ...", 5);
            return;
        }
        cal_buf_addf(b, "%s%llu", runs ? ", " : "", (unsigned long long)v[k]);
        if (e > k) cal_buf_addf(b, "-%llu", (unsigned long long)v[e]);
        k = e + 1;
    }
}

/* The first problem of family f, appended to b; 1 when there is one. */
static int problem(const family *f, int whole, cal_buf *b) {
    if (f->accepted || f->unknown || (f->streams < 2 && !f->merged && !whole)) return 0;
    uint64_t *idx = cal_xcalloc(f->nv + 13, sizeof *idx);
    size_t k = 0;
    int bad = 1;
    for (size_t j = 0; j < f->nv; j++)
        if (f->v[j].streams > 1) idx[k++] = f->v[j].i;
    if (k) {
        cal_buf_addf(b, "shard%s ", k > 1 ? "s" : "");
        ranges(b, idx, k);
        cal_buf_addf(b, " of '%s' came twice or more (a file given twice?)", f->name);
        goto done;
    }
    if (f->nv < f->n) {
        /* The missing ones, from the gaps (at most 13 listed). */
        uint64_t next = 0;
        for (size_t j = 0; j <= f->nv && k < 13; j++) {
            uint64_t upto = j < f->nv ? f->v[j].i : f->n;
            for (; next < upto && k < 13; next++) idx[k++] = next;
            next = upto + 1;
        }
        cal_buf_addf(b, "shards of '%s': %zu of %llu present, missing ", f->name, f->nv, (unsigned long long)f->n);
        ranges(b, idx, k);
        cal_buf_add(b, " (did a shard's run fail?)", 26);
        goto done;
    }
    if (f->nsig > 1) {
        /* Two ways the shards were made: the indices of each, and a line
         * that one has and the other lacks. */
        const signature *a = &f->sig[0], *o = &f->sig[1];
        uint32_t which[2] = {0, 1};
        cal_buf_addf(b, "shards of '%s' were made differently: shards ", f->name);
        for (int w = 0; w < 2; w++) {
            k = 0;
            for (size_t j = 0; j < f->nv; j++)
                if (f->v[j].sig == which[w]) idx[k++] = f->v[j].i;
            if (w) cal_buf_add(b, " vs shards ", 11);
            ranges(b, idx, k);
            const signature *me = w ? o : a, *other = w ? a : o;
            const char *p = me->lines, *line = NULL;
            size_t ln = 0;
            while (*p) {
                size_t n = strcspn(p, "\n");
                cal_buf probe = {0};
                cal_buf_addc(&probe, '\n');
                cal_buf_add(&probe, p, n + 1);
                cal_buf_addc(&probe, 0);
                int in_other = !strncmp(other->lines, p, n + 1) || strstr(other->lines, probe.p);
                cal_buf_free(&probe);
                if (!in_other) {
                    line = p, ln = n;
                    break;
                }
                p += n + (p[n] == '\n');
            }
            if (line) cal_buf_addf(b, " (%.*s)", (int)(ln > 200 ? 200 : ln), line);
            else cal_buf_add(b, " (no line of their own)", 23);
        }
        goto done;
    }
    bad = 0;
done:
    free(idx);
    return bad;
}

int cal_shards_check(cal_shards *s, int whole, cal_buf *why) {
    end_stream(s);
    why->n = 0;
    int bad = 0;
    for (size_t k = 0; k < s->nf; k++) {
        cal_buf one = {0};
        if (problem(&s->f[k], whole, &one)) {
            if (!bad) cal_buf_add(why, one.p, one.n);
            bad++;
        }
        cal_buf_free(&one);
    }
    if (bad > 1) cal_buf_addf(why, " (and %d more famil%s of shards)", bad - 1, bad > 2 ? "ies" : "y");
    if (why->p) why->p[why->n] = 0;
    return bad;
}

void cal_shards_accept(cal_shards *s, int whole, cal_meta *m) {
    end_stream(s);
    for (size_t k = 0; k < s->nf; k++) {
        cal_buf one = {0};
        if (problem(&s->f[k], whole, &one)) {
            cal_meta line = {0};
            cal_meta_add(&line, "partial", s->f[k].name);
            char err[64];
            cal_meta_merge(m, &line, err, sizeof err);
            cal_meta_free(&line);
        }
        cal_buf_free(&one);
    }
}

void cal_shards_describe(cal_shards *s, cal_buf *out) {
    end_stream(s);
    for (size_t k = 0; k < s->nf; k++) {
        const family *f = &s->f[k];
        cal_buf_addf(out, "%s: %zu of %llu%s\n", f->name, f->nv, (unsigned long long)f->n,
                     f->accepted  ? " (accepted partial upstream)"
                     : f->unknown && f->nv < f->n ? " (a stage stopped reading early: not all may be named)"
                                  : "");
    }
}

void cal_shards_absorb(cal_shards *dst, cal_shards *src) {
    end_stream(src);
    end_stream(dst);
    for (size_t k = 0; k < src->nf; k++) {
        const family *f = &src->f[k];
        family *d = find(dst, f->name, f->n, 1);
        d->accepted |= f->accepted;
        d->streams += f->streams;
        d->merged |= f->merged;
        d->unknown |= f->unknown;
        for (size_t j = 0; j < f->nv; j++) {
            uint32_t sig = UINT32_MAX;
            if (f->v[j].sig != UINT32_MAX) {
                const signature *g = &f->sig[f->v[j].sig];
                for (size_t q = 0; q < d->nsig && sig == UINT32_MAX; q++)
                    if (d->sig[q].hash == g->hash) sig = (uint32_t)q;
                if (sig == UINT32_MAX) {
                    d->sig = cal_xrealloc(d->sig, (d->nsig + 1) * sizeof *d->sig);
                    d->sig[d->nsig] = (signature){g->hash, cal_xstrdup(g->lines)};
                    sig = (uint32_t)d->nsig++;
                }
            }
            shard *sh = get(d, f->v[j].i);
            sh->streams += f->v[j].streams;
            if (sh->sig == UINT32_MAX) sh->sig = sig;
        }
    }
}

void cal_shards_enforce(cal_shards *s, int whole, int allow_partial, const char *where, cal_meta *out) {
    cal_buf why = {0};
    if (cal_shards_check(s, whole, &why)) {
        if (!allow_partial) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s (--allow-partial accepts them)", why.p);
            cal_buf_free(&why);
            cal_die("%s: %s", where, msg);
        }
        cal_warn("warning: %s: %s; accepted (--allow-partial)", where, why.p);
        if (out) cal_shards_accept(s, whole, out);
    }
    cal_buf_free(&why);
}

void cal_shards_free(cal_shards *s) {
    if (!s) return;
    for (size_t k = 0; k < s->nf; k++) {
        free(s->f[k].name);
        free(s->f[k].v);
        for (size_t j = 0; j < s->f[k].nsig; j++) free(s->f[k].sig[j].lines);
        free(s->f[k].sig);
    }
    free(s->f);
    cal_meta_free(&s->cur);
    free(s);
}
