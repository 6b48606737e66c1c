/* list.h - cal-encode --list: the fetched tokenizers, loaded. */
#ifndef CAL_TOK_LIST_H
#define CAL_TOK_LIST_H

#include <stdio.h>

/* Prints each name a bare -t NAME finds (tok/find.h) with its vocabulary
 * size and where it came from (else its path), one per line:
 * NAME<TAB>VOCAB<TAB>SOURCE. Returns how many. */
size_t cal_tok_list(FILE *out);

#endif
