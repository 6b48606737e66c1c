/* docin.h - the documents (TOKENS records) of cal-pack's input, with a
 * second read for the recipes that draw from the whole input.
 *
 * A regular file (named, or standard input redirected from one) is read
 * again from where its stream started, so the packer need not keep a copy
 * of it: on this VM, writing a 1.3 GB copy to a temporary file cost more
 * CPU than the rest of `cal-pack --mode window` together. The second read
 * checks that every record is the one the first read saw (its checksum,
 * kept as 8 bytes a record in a spill) and ends the program when the file
 * changed in between. Anything else (a pipe) cannot be read again: the
 * packer logs what it needs instead (pack.h).
 *
 *     cal_docin *in = cal_docin_open(path, mem);
 *     cal_pack_doc d;
 *     while (cal_docin_next(in, &d)) ...           // first read
 *     if (cal_docin_rereadable(in)) {
 *         cal_docin_rewind(in);                    // then, as often as needed:
 *         while (cal_docin_next(in, &d)) ...       // the same documents
 *     }
 *     cal_docin_close(in);
 */
#ifndef CAL_ROWS_DOCIN_H
#define CAL_ROWS_DOCIN_H

#include <stddef.h>
#include <stdint.h>

#include "rows/pack.h"
#include "stream/stream.h"

typedef struct cal_docin cal_docin;

/* path NULL or "-": standard input. Dies when the input cannot be opened or
 * does not start with a stream header, like cal_reader_open. mem: memory
 * for the first read's checksums before they spill to $TMPDIR. */
cal_docin *cal_docin_open(const char *path, size_t mem);
/* The first read's reader: metadata merged from its headers, its name for
 * messages. Valid until cal_docin_close. */
cal_reader *cal_docin_reader(cal_docin *in);
/* The next document: 1, or 0 at the end of the input (in a second read: at
 * the end, or after as many documents as the first read gave). Its ids stay
 * valid until the next call. A record other than TOKENS ends the program
 * ("expected TOKENS records, got KIND"), as does, in a second read, a
 * record that is not the first read's. */
int cal_docin_next(cal_docin *in, cal_pack_doc *d);
/* Whether the input can be read again: a regular file. */
int cal_docin_rereadable(const cal_docin *in);
/* Starts another read of the documents the first read gave, from the
 * first; only for a rereadable input. */
void cal_docin_rewind(cal_docin *in);
void cal_docin_close(cal_docin *in);

#endif
