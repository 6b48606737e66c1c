/* test_rows_extsort.c - lib/rows/extsort.c (external sort): sorted by
 * (key, insertion) whatever the memory limit, multi-pass merges, and a
 * bounded number of open files however many runs spill. */
#include <stdlib.h>
#include <sys/resource.h>

#include "base/hash.h"
#include "base/num.h"
#include "base/rng.h"
#include "rows/extsort.h"
#include "stream/stream.h"
#include "test.h"

/* Adds n records (key = a draw, payload = its index) and checks that they
 * come out sorted by (key, index) with every payload intact. */
static uint64_t out_hash; /* of every record sort_ok read back, in order */

static size_t max_len = 40; /* payload bytes: 8 to max_len - 1 */

static uint64_t io_bytes, io_writes; /* of the last sort_ok's temporary files */

static int sort_ok(size_t n, size_t limit, uint64_t keyspace, size_t *spills) {
    cal_extsort *s = cal_extsort_new(limit);
    cal_rng r;
    cal_rng_init(&r, 42);
    uint64_t *keys = malloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        static uint8_t b[1 << 18];
        size_t len = 8 + (size_t)cal_rng_below(&r, max_len - 8);
        keys[i] = cal_rng_below(&r, keyspace);
        cal_st64(b, i);
        for (size_t j = 8; j < len; j++) b[j] = (uint8_t)(i + j);
        cal_extsort_add(s, keys[i], b, len);
    }
    const void *p;
    size_t len, got = 0;
    int ok = 1;
    uint64_t prev_key = 0, prev_i = 0;
    out_hash = 0;
    while (cal_extsort_next(s, &p, &len)) {
        const uint8_t *b = p;
        out_hash = cal_hash_seed(p, len, out_hash);
        uint64_t i = cal_ld64(b);
        if (i >= n || len < 8) { ok = 0; break; }
        for (size_t j = 8; j < len; j++) ok &= b[j] == (uint8_t)(i + j);
        if (got && (keys[i] < prev_key || (keys[i] == prev_key && i <= prev_i))) ok = 0;
        prev_key = keys[i], prev_i = i;
        got++;
    }
    *spills = cal_extsort_spills(s);
    cal_extsort_spill_io(s, &io_bytes, &io_writes);
    cal_extsort_free(s);
    free(keys);
    return ok && got == n;
}

int main(void) {
    size_t sp;
    CHECK(sort_ok(5000, 1 << 20, UINT64_MAX, &sp) && sp == 0, "5000 records in memory, sorted (%zu spills)", sp);
    CHECK(sort_ok(20000, 4096, UINT64_MAX, &sp) && sp > 128, "20000 records, 4 KB limit: %zu runs, multi-pass merge", sp);
    CHECK(sort_ok(5000, 16384, 3, &sp) && sp > 1, "many equal keys keep insertion order across %zu runs", sp);
    /* spills go out in blocks of 1 MiB, not a write per record: 400000
     * records of ~24+24 bytes in runs of about 3 MB (and no merge pass) */
    CHECK(sort_ok(400000, 4 << 20, UINT64_MAX, &sp) && sp > 4 && io_bytes > 16000000 &&
              io_writes <= io_bytes / (1 << 20) + sp + 1,
          "%zu runs, %llu bytes spilled in %llu writes (at most one per MiB and run)", sp,
          (unsigned long long)io_bytes, (unsigned long long)io_writes);
    CHECK(sort_ok(0, 4096, 10, &sp), "empty input");
    max_len = 1 << 18; /* records up to 4x the limit: chunks of their own, replaced when too small */
    CHECK(sort_ok(300, 1 << 16, UINT64_MAX, &sp) && sp > 100, "records of 8 B to 256 KB, 64 KB limit: %zu runs", sp);
    CHECK(sort_ok(300, 1 << 30, UINT64_MAX, &sp) && sp == 0, "the same in memory");
    max_len = 40;

    /* 3000 runs with 16 descriptors: runs share one file (issue 16 item 6) */
    CHECK(sort_ok(200000, 1 << 30, 1000, &sp) && sp == 0, "200000 records in memory");
    uint64_t mem_hash = out_hash;
    struct rlimit old, low;
    getrlimit(RLIMIT_NOFILE, &old);
    low = old;
    low.rlim_cur = 16;
    CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0, "ulimit -n 16");
    int ok = sort_ok(200000, 4096, 1000, &sp);
    setrlimit(RLIMIT_NOFILE, &old);
    CHECK(ok && sp > 2000 && out_hash == mem_hash,
          "%zu runs under ulimit -n 16: a merge pass, then the last merge; the same records in the same order as in memory", sp);
    TEST_END();
}
