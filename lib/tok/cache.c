/* cache.c - the cache of prepared tokenizers (see cache.h). */
#include "tok/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h> /* XXH3 on AVX2/AVX-512 where the CPU has them: 1.6x less CPU for an image */
#endif

#include "base/err.h"
#include "io/mapfile.h"

#ifndef CAL_TOK_BUILD
#define CAL_TOK_BUILD "dev" /* the Makefile passes a hash of lib/tok's sources */
#endif

const char *tok_cache_build(void) { return CAL_VERSION "+" CAL_TOK_BUILD; }

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *r = cal_xmalloc(n);
    snprintf(r, n, "%s/%s", a, b);
    return r;
}

char *tok_cache_dir(void)
{
    const char *c = getenv("CAL_CACHE");
    if (c && *c) {
        if (!strcmp(c, "off") || !strcmp(c, "0")) return NULL;
        return join(c, "tokenizers");
    }
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    char *base = x && *x == '/' ? join(x, "calkit") : h && *h ? join(h, ".cache/calkit") : NULL;
    if (!base) return NULL;
    char *d = join(base, "tokenizers");
    free(base);
    return d;
}

/* mkdir -p; the last level (tokenizers/) private, mode 0700 */
static int make_dirs(char *d)
{
    struct stat st;
    if (stat(d, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : -1;
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(d, 0755);
        *p = '/';
        if (rc && errno != EEXIST) return -1;
    }
    return mkdir(d, 0700) && errno != EEXIST ? -1 : 0;
}

static void identity(const char *path, uint64_t v[8])
{
    struct stat st;
    memset(v, 0, 8 * sizeof *v);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
    tok_file_identity(&st, v);
}

/* an identity is trusted once its times are over two seconds old: a
 * change within a clock tick of the last one could keep its times */
static int settled(const uint64_t v[8], time_t now)
{
    return (time_t)v[4] <= now - 2 && (time_t)v[6] <= now - 2;
}

void tok_cache_begin(tok_cache *c, int enabled, char *const *paths, size_t n)
{
    memset(c, 0, sizeof *c);
    if (n > TOK_CACHE_MAXIN) n = TOK_CACHE_MAXIN;
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->path[i] = cal_xstrdup(paths[i]);
        identity(paths[i], c->st[i]);
    }
    c->dir = enabled ? tok_cache_dir() : NULL;
    snprintf(c->note, sizeof c->note, "%s", !enabled ? "off (--no-cache)" : c->dir ? "" : "off (CAL_CACHE=off, or no HOME)");
}

static void hex(const uint64_t k[2], char out[33]) { snprintf(out, 33, "%016llx%016llx", (unsigned long long)k[0], (unsigned long long)k[1]); }

/* the memo's name: a hash of the build and the files' names and identities */
static char *memo_path(const tok_cache *c)
{
    XXH3_state_t *s = XXH3_createState();
    XXH3_128bits_reset(s);
    const char *b = tok_cache_build();
    XXH3_128bits_update(s, b, strlen(b) + 1);
    for (size_t i = 0; i < c->n; i++) {
        XXH3_128bits_update(s, c->path[i], strlen(c->path[i]) + 1);
        XXH3_128bits_update(s, c->st[i], sizeof c->st[i]);
    }
    XXH128_hash_t h = XXH3_128bits_digest(s);
    XXH3_freeState(s);
    uint64_t k[2] = { h.high64, h.low64 };
    char x[33], name[64];
    hex(k, x);
    snprintf(name, sizeof name, "memo-%s", x);
    return join(c->dir, name);
}

#define MEMO_MAGIC "calkitTM"
typedef struct {
    char magic[8];
    uint64_t st[TOK_CACHE_MAXIN][8];
    uint64_t n, key[2];
    uint64_t image[8]; /* the image's identity when its body was verified (all 0: none yet) */
    uint64_t hash;
} memo;

static int read_memo(tok_cache *c)
{
    char *p = memo_path(c);
    int fd = open(p, O_RDONLY);
    free(p);
    if (fd < 0) return 0;
    memo m;
    ssize_t k = read(fd, &m, sizeof m);
    close(fd);
    if (k != (ssize_t)sizeof m || memcmp(m.magic, MEMO_MAGIC, 8) || m.n != c->n ||
        XXH3_64bits(&m, offsetof(memo, hash)) != m.hash || memcmp(m.st, c->st, sizeof m.st))
        return 0;
    c->key[0] = m.key[0];
    c->key[1] = m.key[1];
    memcpy(c->image, m.image, sizeof c->image);
    return 1;
}

/* the content key, from the files' bytes */
static int hash_files(tok_cache *c)
{
    XXH3_state_t *s = XXH3_createState();
    XXH3_128bits_reset(s);
    const char *b = tok_cache_build();
    XXH3_128bits_update(s, b, strlen(b) + 1);
    int ok = 1;
    for (size_t i = 0; i < c->n && ok; i++) {
        const char *base = strrchr(c->path[i], '/');
        base = base ? base + 1 : c->path[i];
        XXH3_128bits_update(s, base, strlen(base) + 1);
        uint64_t len = 0;
        if (c->st[i][0]) {
            cal_mapfile m;
            char err[256];
            if (!cal_mapfile_open(&m, c->path[i], err, sizeof err)) { ok = 0; break; }
            len = m.len;
            XXH3_128bits_update(s, &len, sizeof len);
            XXH3_128bits_update(s, m.p, m.len);
            cal_mapfile_close(&m);
        } else {
            len = UINT64_MAX; /* absent */
            XXH3_128bits_update(s, &len, sizeof len);
        }
    }
    XXH128_hash_t h = XXH3_128bits_digest(s);
    XXH3_freeState(s);
    c->key[0] = h.high64;
    c->key[1] = h.low64;
    return ok;
}

static char *image_path(const tok_cache *c)
{
    char x[33], name[64];
    hex(c->key, x);
    snprintf(name, sizeof name, "%s.tok", x);
    return join(c->dir, name);
}

/* Writes the memo of c's files when all of them are old enough, with the
 * identity of the image whose body was just verified (im; NULL: none) when
 * that is old enough too. */
static void write_memo(tok_cache *c, const tok_image *im)
{
    time_t now = time(NULL);
    for (size_t i = 0; i < c->n; i++)
        if (c->st[i][0] && !settled(c->st[i], now)) return;
    memo m;
    memset(&m, 0, sizeof m);
    memcpy(m.magic, MEMO_MAGIC, 8);
    memcpy(m.st, c->st, sizeof m.st);
    m.n = c->n;
    m.key[0] = c->key[0];
    m.key[1] = c->key[1];
    if (im && im->body_hashed && settled(im->id, now)) memcpy(m.image, im->id, sizeof m.image);
    m.hash = XXH3_64bits(&m, offsetof(memo, hash));
    char *p = memo_path(c), *tmp = cal_xmalloc(strlen(p) + 32);
    sprintf(tmp, "%s.tmp.%ld", p, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, &m, sizeof m) == (ssize_t)sizeof m;
    if (fd >= 0 && close(fd)) ok = 0;
    if (!ok || rename(tmp, p)) unlink(tmp);
    free(tmp);
    free(p);
}

static int keyed(tok_cache *c)
{
    if (c->keyed) return 1;
    if (!c->dir) return 0;
    c->from_memo = read_memo(c);
    if (!c->from_memo && !hash_files(c)) return 0;
    c->keyed = 1;
    return 1;
}

int tok_cache_open(tok_cache *c, tok_image *im)
{
    if (!keyed(c)) return 0;
    char *p = image_path(c), err[512];
    /* the memo's image identity: the body verified when the image had it */
    int rc = tok_image_open_known(im, p, tok_cache_build(), c->key, c->from_memo && c->image[0] ? c->image : NULL,
                                  err, sizeof err);
    free(p);
    if (rc == 1) {
        snprintf(c->note, sizeof c->note, "%s", !c->from_memo ? "hit (files hashed, image hashed)"
                                                 : im->body_hashed ? "hit (image hashed)" : "hit");
        /* a new memo, or one that can now record the image's identity */
        if (!c->from_memo || (im->body_hashed && settled(im->id, time(NULL)))) write_memo(c, im);
        return 1;
    }
    if (rc < 0) (void)cal_errf(c->note, sizeof c->note, "rebuilt: %s", err);
    return 0;
}

int tok_cache_ready(tok_cache *c)
{
    if (!c->dir || !read_memo(c)) return 0;
    char *p = image_path(c);
    struct stat st;
    int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    return ok;
}

void tok_cache_save(tok_cache *c, const tok_image_parts *w)
{
    if (!keyed(c)) return;
    for (size_t i = 0; i < c->n; i++) { /* changed while loaded: its image would be of other bytes */
        uint64_t v[8];
        identity(c->path[i], v);
        if (memcmp(v, c->st[i], sizeof v)) {
            snprintf(c->note, sizeof c->note, "not written: %s changed while it was read", c->path[i]);
            return;
        }
    }
    if (make_dirs(c->dir)) {
        snprintf(c->note, sizeof c->note, "not written: %s: %s", c->dir, strerror(errno));
        return;
    }
    char *p = image_path(c), err[512];
    if (tok_image_write(p, tok_cache_build(), c->key, w, err, sizeof err)) {
        (void)cal_errf(c->note, sizeof c->note, "not written: %s", err);
    } else {
        size_t k = strlen(c->note);
        snprintf(c->note + k, sizeof c->note - k, "%s%s", k ? ", made " : "made ", p);
        write_memo(c, NULL);
    }
    free(p);
}

void tok_cache_end(tok_cache *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->path[i]);
    free(c->dir);
    memset(c, 0, sizeof *c);
}
