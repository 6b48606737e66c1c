/* modelfile.c - see modelfile.h. */
/* realpath is XSI */
#define _XOPEN_SOURCE 700
#include "base/modelfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"

static int follow_anywhere;

void cal_model_follow_links(int yes) { follow_anywhere = yes; }

static const char *mode_kind(mode_t m) {
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    return "not a regular file";
}

const char *cal_path_kind(const char *path, char *buf, size_t n) {
    struct stat st, lst;
    if (stat(path, &st) == 0) {
        snprintf(buf, n, "%s", mode_kind(st.st_mode));
        return buf;
    }
    int e = errno;
    if (e == ELOOP) {
        snprintf(buf, n, "a symbolic link loop");
        return buf;
    }
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        char target[PATH_MAX];
        ssize_t k = readlink(path, target, sizeof target - 1);
        if (k < 0) k = 0;
        target[k] = 0;
        snprintf(buf, n, "a dangling symbolic link to %s", target);
        return buf;
    }
    if (e == ENOENT || e == ENOTDIR) return NULL;
    snprintf(buf, n, "unreadable (%s)", strerror(e));
    return buf;
}

const char *cal_open_error(const char *path, int e, char *buf, size_t n) {
    char kind[PATH_MAX + 64];
    const char *k = e == ENXIO || e == ELOOP || e == ENOENT || e == EOPNOTSUPP ? cal_path_kind(path, kind, sizeof kind) : NULL;
    if (k && strcmp(k, "a regular file") && strncmp(k, "unreadable", 10)) snprintf(buf, n, "%s", k);
    else snprintf(buf, n, "%s", strerror(e));
    return buf;
}

/* Whether path is root or below it (both resolved). */
static int inside(const char *path, const char *root) {
    size_t k = strlen(root);
    if (k == 1 && root[0] == '/') return 1;
    return !strncmp(path, root, k) && (path[k] == '/' || path[k] == 0);
}

int cal_model_file(const char *dir, const char *name, char **path, char *err, size_t errlen) {
    *path = NULL;
    size_t pn = strlen(dir) + strlen(name) + 2;
    char *p = cal_xmalloc(pn), kind[PATH_MAX + 64];
    snprintf(p, pn, "%s/%s", dir, name);
    const char *k = cal_path_kind(p, kind, sizeof kind);
    if (!k) {
        free(p);
        return 0;
    }
    if (strcmp(k, "a regular file") != 0) {
        cal_errf(err, errlen, "%s: %s, not a regular file", p, k);
        free(p);
        return -1;
    }
    struct stat lst;
    int linked = lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode);
    /* a link anywhere on the way (NAME/... or the file): where it leads */
    char *real = realpath(p, NULL), *root = realpath(dir, NULL);
    if (!real || !root) {
        cal_errf(err, errlen, "%s: %s", p, strerror(errno));
        free(real), free(root), free(p);
        return -1;
    }
    int ok = follow_anywhere || inside(real, root);
    if (!ok) {
        /* a snapshot of the Hugging Face cache: REPO/snapshots/REV/ links into REPO/blobs/ */
        char *rev = strrchr(root, '/');
        if (rev && rev > root) {
            *rev = 0;
            char *snaps = strrchr(root, '/');
            if (snaps && !strcmp(snaps + 1, "snapshots")) {
                *snaps = 0;
                ok = *root && inside(real, root);
                *snaps = '/';
            }
            *rev = '/';
        }
    }
    if (!ok) {
        cal_errf(err, errlen, "%s: %s to %s, outside the model folder (refused: a model's files stay in its folder; "
                 "--follow-links reads it)", p, linked ? "a symbolic link" : "a path through a symbolic link", real);
        free(real), free(root), free(p);
        return -1;
    }
    free(root);
    free(real);
    *path = p; /* the name as given: messages keep naming it */
    return 1;
}
