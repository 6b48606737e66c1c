/* relay.c - see relay.h. tee(2), splice(2) and sendfile(2) are Linux's
 * (_GNU_SOURCE); elsewhere cal_relay_new gives NULL and nothing changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/sendfile.h>
#endif

#include "base/err.h"
#include "base/outfile.h"
#include "base/relay.h"

/* The private pipe: 256 KiB, as oshint.h sizes pipes (1 MiB cost more in
 * copies downstream that missed the cache; measured again for this pipe:
 * 256 KiB 0.038 s of CPU for 256 MB, 1 MiB 0.048). */
#define RELAY_PIPE (1u << 18)

enum { R_COPY, R_TEE, R_FILE };

struct cal_relay {
    int mode;          /* R_COPY once tee or splice failed: write from the copy */
    int in, out, out_sock;
    int p[2];          /* R_TEE: the private pipe */
    uint64_t head, end; /* R_TEE: stream bytes [head, end) are in p; end: read so far */
    off_t file0;       /* R_FILE: the file offset of stream offset 0 */
    uint64_t spliced;
};

static int fd_kind(int fd) {
    struct stat st;
    return fstat(fd, &st) ? 0 : (int)(st.st_mode & S_IFMT);
}

cal_relay *cal_relay_new(int in_fd, int out_fd, uint64_t at) {
#if defined(__linux__) && defined(SPLICE_F_MOVE)
    int ik = fd_kind(in_fd), ok = fd_kind(out_fd);
    if (ok != S_IFIFO && ok != S_IFSOCK) return NULL;
    cal_relay *rl;
    if (ik == S_IFREG) {
        off_t pos = lseek(in_fd, 0, SEEK_CUR);
        if (pos < 0 || (uint64_t)pos < at) return NULL;
        rl = cal_xcalloc(1, sizeof *rl);
        rl->mode = R_FILE;
        rl->file0 = pos - (off_t)at;
    } else if (ik == S_IFIFO) {
        int p[2];
        if (pipe2(p, O_CLOEXEC)) return NULL;
        if (fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE) < (int)RELAY_PIPE) { /* a smaller pipe would fill in slots first */
            close(p[0]), close(p[1]);
            return NULL;
        }
        rl = cal_xcalloc(1, sizeof *rl);
        rl->mode = R_TEE;
        rl->p[0] = p[0], rl->p[1] = p[1];
        rl->head = rl->end = at;
    } else {
        return NULL;
    }
    rl->in = in_fd, rl->out = out_fd, rl->out_sock = ok == S_IFSOCK;
    return rl;
#else
    (void)in_fd, (void)out_fd, (void)at;
    return NULL;
#endif
}

/* The private pipe cannot be trusted or used any more: from now on every
 * byte goes from the caller's copy. */
static void give_up(cal_relay *rl) {
    if (rl->mode == R_TEE) close(rl->p[0]), close(rl->p[1]);
    rl->mode = R_COPY;
}

/* Discards the private pipe's bytes below stream offset upto (<= end). */
static void drop(cal_relay *rl, uint64_t upto) {
    char sink[16384];
    while (rl->mode == R_TEE && rl->head < upto) {
        size_t want = upto - rl->head < sizeof sink ? (size_t)(upto - rl->head) : sizeof sink;
        ssize_t k = read(rl->p[0], sink, want);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) give_up(rl);
        else rl->head += (uint64_t)k;
    }
}

#if defined(__linux__) && defined(SPLICE_F_MOVE)
/* Reads exactly the k bytes just teed (nobody else reads this pipe). */
static ssize_t read_teed(cal_relay *rl, char *buf, size_t k) {
    size_t got = 0;
    while (got < k) {
        ssize_t g = read(rl->in, buf + got, k - got);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) break;
        got += (size_t)g;
    }
    rl->end += got;
    if (got < k) give_up(rl); /* another reader took bytes: the pipe no longer matches */
    return got ? (ssize_t)got : -1;
}
#endif

ssize_t cal_relay_read(cal_relay *rl, void *buf, size_t n) {
#if defined(__linux__) && defined(SPLICE_F_MOVE)
    int waited = 0;
    while (rl->mode == R_TEE && n) {
        uint64_t held = rl->end - rl->head;
        if (held >= RELAY_PIPE) { /* full: what it holds goes from the copy */
            drop(rl, rl->end);
            continue;
        }
        size_t room = RELAY_PIPE - (size_t)held;
        /* Not blocking: the private pipe may be full in slots (pages part
         * used) before it is in bytes, and only this thread empties it. */
        ssize_t k = tee(rl->in, rl->p[1], n < room ? n : room, SPLICE_F_NONBLOCK);
        if (k > 0) return read_teed(rl, buf, (size_t)k);
        if (k == 0) return 0; /* the end of input */
        if (errno == EINTR) continue;
        if (errno != EAGAIN) {
            give_up(rl);
            break;
        }
        if (!waited) { /* the input is empty (or the private pipe full): wait for input */
            struct pollfd pf = {rl->in, POLLIN, 0};
            if (poll(&pf, 1, -1) < 0 && errno != EINTR) give_up(rl);
            if (pf.revents & (POLLERR | POLLNVAL)) give_up(rl);
            waited = 1;
        } else if (held) { /* input waits and the pipe takes none: full in slots */
            drop(rl, rl->end);
            waited = 0;
        } else {
            give_up(rl);
        }
    }
#endif
    for (;;) {
        ssize_t k = read(rl->in, buf, n);
        if (k < 0 && errno == EINTR) continue;
        return k;
    }
}

size_t cal_relay_send(cal_relay *rl, uint64_t off, const void *copy, size_t n, const char *name) {
    const char *c = copy;
#if defined(__linux__) && defined(SPLICE_F_MOVE)
    if (rl->mode == R_TEE) {
        if (off < rl->head) { /* read before the relay began, or dropped */
            size_t k = rl->head - off < n ? (size_t)(rl->head - off) : n;
            cal__write_all(rl->out, c, k, name);
            c += k, off += k, n -= k;
        }
        if (n && off + n > rl->end) give_up(rl); /* never read: a caller's error; the copy decides */
        if (n) drop(rl, off);
        while (n && rl->mode == R_TEE) {
            ssize_t k = splice(rl->p[0], NULL, rl->out, NULL, n, SPLICE_F_MOVE);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) { /* EPIPE included: write reports it as it always does */
                give_up(rl);
                break;
            }
            rl->head += (uint64_t)k, rl->spliced += (uint64_t)k;
            c += k, n -= (size_t)k;
        }
    }
    while (n && rl->mode == R_FILE) {
        off_t at = rl->file0 + (off_t)off;
        ssize_t k = rl->out_sock ? sendfile(rl->out, rl->in, &at, n) : splice(rl->in, &at, rl->out, NULL, n, SPLICE_F_MOVE);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) /* the file ends before the range: it shrank since it was read; the caller's copy may be gone too */
            return n;
        if (k < 0) { /* the output failed: write decides */
            give_up(rl);
            break;
        }
        rl->spliced += (uint64_t)k;
        c += k, off += (uint64_t)k, n -= (size_t)k;
    }
#endif
    if (n) cal__write_all(rl->out, c, n, name);
    return 0;
}

uint64_t cal_relay_spliced(const cal_relay *rl) { return rl ? rl->spliced : 0; }

void cal_relay_free(cal_relay *rl) {
    if (!rl) return;
    give_up(rl);
    free(rl);
}
