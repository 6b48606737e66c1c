/* recstore.h - records kept for a later pass, in bounded memory.
 *
 * A program that must see every record before it writes any (cal-select:
 * features of all documents, then the chosen ones) keeps only where each
 * record lies: its offset in the input when the input is a regular file
 * (read again with pread), else its bytes appended to an unlinked temporary
 * file in $TMPDIR (a pipe cannot be read twice). Memory: 24 bytes a record.
 * A record read back is checked against its checksum again, so an input
 * file changed between the passes is an error, never a wrong record.
 *
 *     cal_recstore *s = cal_recstore_new();
 *     int src = cal_recstore_source(s, path);   // before reading path
 *     while (cal_read(r, &rec)) cal_recstore_add(s, src, &rec);
 *     cal_recstore_end(s);
 *     cal_rec rec; cal_buf b = {0};
 *     cal_recstore_get(s, i, &b, &rec, err, sizeof err);  // any thread
 */
#ifndef CAL_STREAM_RECSTORE_H
#define CAL_STREAM_RECSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stream/stream.h"

typedef struct cal_recstore cal_recstore;

cal_recstore *cal_recstore_new(void);
/* Registers an input (NULL or "-": standard input) before it is read and
 * returns its number. A regular file is read again in place (opened once
 * more: the reader keeps its own descriptor); anything else is spilled. */
int cal_recstore_source(cal_recstore *s, const char *path);
/* Whether source src is spilled (not a regular file). */
int cal_recstore_spilled(const cal_recstore *s, int src);
/* Keeps record rec (just returned by cal_read on source src); returns its
 * number, counting from 0 over all sources. Dies when the spill cannot be
 * written. */
size_t cal_recstore_add(cal_recstore *s, int src, const cal_rec *rec);
/* After the last cal_recstore_add, before the first cal_recstore_get:
 * writes out what the spill still buffers. Dies when it cannot. */
void cal_recstore_end(cal_recstore *s);
size_t cal_recstore_count(const cal_recstore *s);
/* Bytes written to the spill file so far. */
uint64_t cal_recstore_spill_bytes(const cal_recstore *s);
/* Reads record i back into buf and points rec at it (rec->offset is its
 * offset in its input, rec->raw its whole encoding): 0, or -1 with err
 * ("NAME: byte OFF: ...") on a read error or a changed record. Safe to call
 * from several threads at once, each with its own buf. */
int cal_recstore_get(const cal_recstore *s, size_t i, cal_buf *buf, cal_rec *rec, char *err, size_t errlen);
void cal_recstore_free(cal_recstore *s);

#endif
