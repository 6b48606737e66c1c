/* fuzz_stream.c - libFuzzer target: the cal-stream decoder (memory reader +
 * cal_read_soft) and the payload views over whatever it accepts. Any crash,
 * sanitizer report or hang is a bug; errors must come back as -1. */
#include <stdint.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cal_reader *r = cal_reader_mem(data, size, "fuzz");
    cal_rec rec;
    char err[512];
    cal_ids ids = {0};
    volatile uint64_t sink = 0;
    while (cal_read_soft(r, &rec, err, sizeof err) == 1) {
        switch (rec.kind) {
        case CAL_TOKENS:
            cal_rec_ids(&rec, &ids);
            for (size_t i = 0; i < ids.n; i++) sink += ids.v[i];
            break;
        case CAL_ROW: {
            cal_row_view v = cal_row(&rec);
            cal_rec_ids(&rec, &ids);
            if (v.mask)
                for (uint32_t i = 0; i < v.len; i++) sink += v.mask[i];
            break;
        }
        case CAL_VECTORS: {
            cal_vec_view v = cal_vectors(&rec);
            size_t n = (size_t)v.n * v.d, es = cal_dtype_size(v.dtype);
            if (n) sink += v.data[n * es - 1];
            break;
        }
        default:
            if (rec.payload_len) sink += rec.payload[rec.payload_len - 1];
        }
    }
    const cal_meta *m = cal_reader_meta(r);
    for (size_t i = 0; i < m->n; i++) sink += (uint8_t)m->val[i][0];
    cal_ids_free(&ids);
    cal_reader_close(r);
    (void)sink;
    return 0;
}
