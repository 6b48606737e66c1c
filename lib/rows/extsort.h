/* extsort.h - sort byte records by a 64-bit key in bounded memory.
 *
 * Records are kept in memory up to a byte limit; beyond it, sorted runs are
 * spilled to an unlinked temporary file in $TMPDIR (default /tmp) and merged
 * k-way when read back, in passes of at most 128 runs, with at most two
 * temporary files open whatever the number of runs. Ties on the key keep
 * insertion order, so the output is a pure function of the (key, record)
 * sequence, whatever the limit.
 *
 *     cal_extsort *s = cal_extsort_new(256 << 20);
 *     cal_extsort_add(s, key, bytes, n);      // ... for every record
 *     while (cal_extsort_next(s, &p, &n)) use(p, n);  // ascending keys
 *     cal_extsort_free(s);
 */
#ifndef CAL_EXTSORT_H
#define CAL_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_extsort cal_extsort;

/* mem_limit: bytes of records plus per-record bookkeeping held in memory. */
cal_extsort *cal_extsort_new(size_t mem_limit);
void cal_extsort_add(cal_extsort *s, uint64_t key, const void *p, size_t n);
/* Next record in (key, insertion) order: 1, or 0 at the end. The first
 * call ends the adding phase. *p is valid until the next call. */
int cal_extsort_next(cal_extsort *s, const void **p, size_t *n);
/* Number of runs spilled to disk so far (0 = everything fit in memory). */
size_t cal_extsort_spills(const cal_extsort *s);
/* Bytes written to temporary files so far (runs, and merge passes), and the
 * write calls that wrote them: blocks of 1 MiB, not a call per record. */
void cal_extsort_spill_io(const cal_extsort *s, uint64_t *bytes, uint64_t *writes);
void cal_extsort_free(cal_extsort *s);

#endif
