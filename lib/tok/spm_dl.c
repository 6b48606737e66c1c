/* spm_dl.c - spm_shim.h over libcal-spm.so (see spm_dl.h), which is loaded
 * on the first spm_shim_load: from the running program's folder (the build
 * tree, a bundle), else from the installed cal_libdir(). A program that
 * never parses a .model afresh nor decodes through libsentencepiece never
 * maps it, nor libsentencepiece and libstdc++. */
#include "tok/spm_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/datadir.h"
#include "base/err.h"
#include "tok/spm_dl.h"

static const spm_dl_table *api;
static char api_err[1024];
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

/* 1 with api set, or 0 with why in api_err */
static int try_open(const char *dir, char *tried, size_t tlen)
{
    size_t n = strlen(dir) + sizeof "/" SPM_DL_FILE;
    char *path = cal_xmalloc(n);
    snprintf(path, n, "%s/%s", dir, SPM_DL_FILE);
    size_t k = strlen(tried);
    if (access(path, F_OK)) { /* the usual case of a missing shim: said briefly */
        snprintf(tried + k, tlen - k, "%sno %s", k ? ", " : "", path);
        free(path);
        return 0;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror(); /* it names the path */
        snprintf(tried + k, tlen - k, "%s%s", k ? "; " : "", e ? e : path);
        free(path);
        return 0;
    }
    spm_dl_entry entry;
    void *sym = dlsym(h, SPM_DL_SYMBOL);
    memcpy(&entry, &sym, sizeof entry); /* ISO C: no cast from object to function pointer */
    const spm_dl_table *t = sym ? entry() : NULL;
    if (!t || t->abi != SPM_DL_ABI || t->size != sizeof *t) {
        snprintf(tried + k, tlen - k, "%s%s: from another build of calkit", k ? ", " : "", path);
        dlclose(h);
        free(path);
        return 0;
    }
    api = t; /* kept loaded for the life of the process */
    free(path);
    return 1;
}

static void open_shim(void)
{
    char tried[900] = "";
    char *exe = cal_exe_dir();
    int ok = (exe && try_open(exe, tried, sizeof tried)) || try_open(cal_libdir(), tried, sizeof tried);
    free(exe);
    if (!ok)
        snprintf(api_err, sizeof api_err, "libsentencepiece, which it needs, is reached through calkit's %s: %s",
                 SPM_DL_FILE, tried);
}

int spm_shim_available(char *err, size_t errlen)
{
    pthread_once(&api_once, open_shim);
    if (!api && err && errlen) snprintf(err, errlen, "%s", api_err);
    return api != NULL;
}

spm_shim *spm_shim_load(const void *data, size_t len, char *err, size_t errlen)
{
    if (!spm_shim_available(err, errlen)) return NULL;
    return api->load(data, len, err, errlen);
}

void spm_shim_free(spm_shim *s)
{
    if (s) api->free(s);
}

int spm_shim_encode(const spm_shim *s, const char *text, size_t len, cal_ids *out, char *err, size_t errlen)
{
    uint32_t *ids = NULL;
    size_t n = 0;
    if (api->encode(s, text, len, &ids, &n, err, errlen)) return -1;
    cal_ids_reserve(out, out->n + n);
    for (size_t i = 0; i < n; i++) cal_ids_push(out, ids[i]);
    free(ids);
    return 0;
}

int spm_shim_decode(const spm_shim *s, const uint32_t *ids, size_t n, cal_buf *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    if (api->decode(s, ids, n, &text, &len, err, errlen)) return -1;
    cal_buf_add(out, text, len);
    free(text);
    return 0;
}

uint32_t spm_shim_vocab_size(const spm_shim *s) { return api->vocab_size(s); }
int64_t spm_shim_bos(const spm_shim *s) { return api->bos(s); }
int64_t spm_shim_eos(const spm_shim *s) { return api->eos(s); }
int64_t spm_shim_pad(const spm_shim *s) { return api->pad(s); }
int64_t spm_shim_unk(const spm_shim *s) { return api->unk(s); }
int spm_shim_is_special(const spm_shim *s, uint32_t id) { return api->is_special(s, id); }
const char *spm_shim_piece(const spm_shim *s, uint32_t id, size_t *len) { return api->piece(s, id, len); }
int spm_shim_type(const spm_shim *s, uint32_t id) { return api->type(s, id); }
float spm_shim_score(const spm_shim *s, uint32_t id) { return api->score(s, id); }
