/* stream_internal.h - pieces shared by the stream reader and writer. */
#ifndef CAL_STREAM_INTERNAL_H
#define CAL_STREAM_INTERNAL_H
#include "base/buf.h"
#include "stream/stream.h"

void cal__meta_serialize(const cal_meta *m, cal_buf *out);
int cal__meta_parse(const char *p, size_t n, cal_meta *m, char *err, size_t errlen);
void cal__header_encode(const cal_meta *m, cal_buf *out);
#endif
