/* stream_internal.h - pieces shared by the stream reader and writer. */
#ifndef CAL_STREAM_INTERNAL_H
#define CAL_STREAM_INTERNAL_H
#include "stream.h"

void cal__meta_serialize(const cal_meta *m, cal_buf *out);
int cal__meta_parse(const char *p, size_t n, cal_meta *m, char *err, size_t errlen);
void cal__header_encode(const cal_meta *m, cal_buf *out);
/* Remove registered temp files (atomic outputs) on error exits and signals. */
void cal__temp_register(const char *path);
void cal__temp_unregister(const char *path);
/* write(2) all bytes; EPIPE on a pipe exits quietly with status 0. */
void cal__write_all(int fd, const void *p, size_t n, const char *name);
#endif
