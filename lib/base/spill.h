/* spill.h - a growing byte store kept in memory up to a limit and beyond it
 * in an unlinked temporary file in $TMPDIR (default /tmp), so that the
 * programs that need their whole input twice (cal-pack's random windows
 * and stratified samples, cal-select's records from a pipe), or sort it
 * (rows/extsort.h), hold at most the limit in memory whatever the input's
 * size.
 *
 * The file is written in blocks of 1 MiB (one write call per MiB, never
 * one per record) and read with pread, so it costs one descriptor and no
 * file position is shared. It is unlinked as soon as it is made: it goes
 * away when the program ends, however it ends.
 *
 *     cal_spill *s = cal_spill_new(64 << 20);
 *     cal_spill_add(s, p, n);                      // ... appends
 *     cal_spill_get_at(s, off, buf, n);            // random reads
 *     cal_spill_rewind(s);                         // then, in order:
 *     while ((p = cal_spill_next(s, n))) use(p);   // n bytes at a time
 *     cal_spill_free(s);
 *
 * Any I/O error ends the program with "PROG: TMPDIR: cannot write a
 * temporary file: why" (or "... read ..."). */
#ifndef CAL_BASE_SPILL_H
#define CAL_BASE_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct cal_spill cal_spill;

/* mem_limit: bytes kept in memory; 0 puts everything in the file. */
cal_spill *cal_spill_new(size_t mem_limit);
/* Appends n bytes (p may be NULL when n is 0). */
void cal_spill_add(cal_spill *s, const void *p, size_t n);
/* Appends n zero bytes (a sparse extent once in the file). */
void cal_spill_add_zeros(cal_spill *s, uint64_t n);
/* Overwrites n bytes at off; off + n must not pass the size. */
void cal_spill_put_at(cal_spill *s, uint64_t off, const void *p, size_t n);
/* Copies n bytes from off to p; off + n must not pass the size. */
void cal_spill_get_at(cal_spill *s, uint64_t off, void *p, size_t n);
/* Writes out what the buffer holds: until the next add, cal_spill_get_at
 * only reads (pread), so threads may call it at once. */
void cal_spill_flush(cal_spill *s);
uint64_t cal_spill_size(const cal_spill *s);
/* Sequential reading from the start: the next n bytes, valid until the next
 * call, or NULL when fewer than n are left (nothing is consumed then). */
void cal_spill_rewind(cal_spill *s);
const void *cal_spill_next(cal_spill *s, size_t n);
/* Whether the bytes went to the file, and the write calls that took them. */
int cal_spill_on_disk(const cal_spill *s);
uint64_t cal_spill_writes(const cal_spill *s);
void cal_spill_free(cal_spill *s);

#endif
