/* parquet.c - placeholder */
#include "parquet.h"
#include <stdio.h>
cal_pq *cal_pq_open(const char *path, const char *column, char *err, size_t errlen) {
    (void)path, (void)column;
    snprintf(err, errlen, "byte 0: Parquet reading is not implemented yet");
    return NULL;
}
cal_pq *cal_pq_open_mem(const void *p, size_t n, const char *column, char *err, size_t errlen) {
    (void)p, (void)n;
    return cal_pq_open("", column, err, errlen);
}
int cal_pq_next(cal_pq *q, const uint8_t **p, size_t *n, uint64_t *off, char *err, size_t errlen) {
    (void)q, (void)p, (void)n, (void)off, (void)err, (void)errlen;
    return -1;
}
uint64_t cal_pq_rows(const cal_pq *q) { (void)q; return 0; }
uint64_t cal_pq_nulls(const cal_pq *q) { (void)q; return 0; }
void cal_pq_close(cal_pq *q) { (void)q; }
