/* docin.c - see docin.h. */
#include "rows/docin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/spill.h"

struct cal_docin {
    int fd, own_fd, regular;
    off_t start;          /* where the stream starts in a regular file */
    cal_reader *first;    /* the first read */
    cal_reader *again;    /* the current second read, or NULL */
    cal_spill *sums;      /* the first read's record checksums (regular files) */
    uint64_t docs;        /* documents the first read gave */
    uint64_t at;          /* documents of the current second read */
    cal_ids ids;
};

cal_docin *cal_docin_open(const char *path, size_t mem) {
    int std = !path || !strcmp(path, "-");
    int fd = std ? 0 : open(path, O_RDONLY);
    char why[4200];
    if (fd < 0) cal_die("%s: %s", path, cal_open_error(path, errno, why, sizeof why));
    cal_docin *in = cal_xcalloc(1, sizeof *in);
    in->fd = fd;
    in->own_fd = !std;
    struct stat st;
    in->start = !fstat(fd, &st) && S_ISREG(st.st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;
    in->regular = in->start >= 0;
    if (in->regular) in->sums = cal_spill_new(mem);
    in->first = cal_reader_fdopen(fd, std ? "stdin" : path);
    return in;
}

cal_reader *cal_docin_reader(cal_docin *in) { return in->first; }
int cal_docin_rereadable(const cal_docin *in) { return in->regular; }

int cal_docin_next(cal_docin *in, cal_pack_doc *d) {
    cal_reader *r = in->again ? in->again : in->first;
    if (in->again && in->at == in->docs) return 0;
    cal_rec rec;
    if (!cal_read(r, &rec)) {
        if (in->again)
            cal_die_at(cal_reader_name(r), cal_reader_offset(r),
                       "the input ended after %llu of the %llu documents its first read gave (it changed while it "
                       "was read)", (unsigned long long)in->at, (unsigned long long)in->docs);
        return 0;
    }
    if (rec.kind != CAL_TOKENS) cal_reader_die(r, &rec, "expected TOKENS records, got %s", cal_kind_name(rec.kind));
    const uint8_t *sum = rec.raw + rec.raw_len - 8;
    if (in->again) {
        uint8_t was[8];
        cal_spill_get_at(in->sums, 8 * in->at, was, 8);
        if (memcmp(was, sum, 8))
            cal_reader_die(r, &rec, "this record is not the one the first read found here (the input changed while "
                                    "it was read)");
        in->at++;
    } else {
        if (in->sums) cal_spill_add(in->sums, sum, 8);
        in->docs++;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (((uintptr_t)rec.payload & 3) == 0) { /* the ids as they lie in the reader's buffer: no copy */
        *d = (cal_pack_doc){(const uint32_t *)(const void *)rec.payload, cal_tokens_len(&rec), rec.id, rec.label,
                            rec.label_len, cal_tokens_role(&rec)};
        return 1;
    }
#endif
    cal_rec_ids(&rec, &in->ids);
    *d = (cal_pack_doc){in->ids.v, in->ids.n, rec.id, rec.label, rec.label_len, cal_tokens_role(&rec)};
    return 1;
}

void cal_docin_rewind(cal_docin *in) {
    if (!in->regular) cal_die("%s: cannot be read twice", cal_reader_name(in->first));
    cal_reader_close(in->again);
    if (lseek(in->fd, in->start, SEEK_SET) < 0) cal_die("%s: %s", cal_reader_name(in->first), strerror(errno));
    in->again = cal_reader_fdopen(in->fd, cal_reader_name(in->first));
    cal_reader_shards_mode(in->again, 0, 0, 0); /* the first read checked them */
    in->at = 0;
}

void cal_docin_close(cal_docin *in) {
    if (!in) return;
    cal_reader_close(in->again);
    cal_reader_close(in->first);
    if (in->own_fd) close(in->fd);
    cal_spill_free(in->sums);
    cal_ids_free(&in->ids);
    free(in);
}
