/* stream_internal.h - pieces shared by the stream reader and writer. */
#ifndef CAL_STREAM_INTERNAL_H
#define CAL_STREAM_INTERNAL_H
#include "base/buf.h"
#include "stream/stream.h"

/* 0 when every key and value can be written (keys of A-Z a-z 0-9 _ . -,
 * values of UTF-8), else -1 with err naming the first that cannot. */
int cal__meta_check(const cal_meta *m, char *err, size_t errlen);
/* -1 when the metadata is over CAL_MAX_META serialized. */
int cal__header_encode(const cal_meta *m, unsigned flags, cal_buf *out);
/* writev(2) calls of the writer that failed and went on by write(2) (for
 * tests: a writev given more than IOV_MAX parts fails with EINVAL, and the
 * fallback would hide it). */
extern uint64_t cal__writev_fallbacks;
#endif
