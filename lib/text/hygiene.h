/* hygiene.h - the only changes cal-read makes to a document's text: invalid
 * UTF-8 repaired by the one policy of base/utf8.h (one U+FFFD per maximal
 * invalid subpart, as Python's errors="replace" and the reference
 * tokenizers' decoders) or refused with --strict, and on request CRLF line
 * ends turned into LF (--crlf) and NFC normalization (--nfc). Valid UTF-8,
 * NUL and every C0/C1 control included, passes unchanged otherwise. */
#ifndef CAL_TEXT_HYGIENE_H
#define CAL_TEXT_HYGIENE_H

#include <stdint.h>

#include "base/buf.h"
#include "text/doc.h"

typedef struct {
    int strict, crlf, nfc; /* options */
    uint64_t replaced;     /* invalid UTF-8 sequences replaced by U+FFFD */
    cal_buf a, b;          /* scratch */
} cal_hygiene;

/* The text of d as it goes on, its length in *n (valid until the next call;
 * d's own bytes when nothing changes). With strict, invalid UTF-8 ends the
 * program with "FILE: byte OFF: invalid UTF-8" (OFF: the bad byte when d is
 * mapped, else d->off). */
const char *cal_hygiene_apply(cal_hygiene *h, const cal_doc *d, size_t *n);
void cal_hygiene_free(cal_hygiene *h);

#endif
