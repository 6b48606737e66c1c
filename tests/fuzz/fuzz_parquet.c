/* fuzz_parquet.c - libFuzzer target for the Parquet reader: open the input
 * as a Parquet file from memory and read every value of column "text".
 * Any outcome but a clean error or a clean end is a bug. */
#include <stddef.h>
#include <stdint.h>

#include "io/parquet.h"

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[256];
    cal_pq *q = cal_pq_open_mem(data, size, "text", err, sizeof err);
    if (!q) return 0;
    const uint8_t *p;
    size_t n, sum = 0;
    uint64_t off;
    int r;
    while ((r = cal_pq_next(q, &p, &n, &off, err, sizeof err)) == 1)
        if (n) sum += p[0] + p[n - 1];  /* touch both ends of every value */
    cal_pq_close(q);
    sink = sum;
    return 0;
}
