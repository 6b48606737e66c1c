/* tok_find.h - resolve the -t TOKENIZER argument of cal-encode and cal-cat. */
#ifndef CAL_TOK_FIND_H
#define CAL_TOK_FIND_H

/* An existing file ARG is used as it is. A bare NAME (no '/') that is not a
 * file is looked up, first match wins, as DIR/NAME/tokenizer.json, then
 * DIR/NAME.model, then DIR/NAME, for DIR in: $CAL_TOKENIZERS, build/tokenizers
 * (the `make tokenizers` output, relative to the current directory and to
 * the program's ../), and CAL_DATADIR/tokenizers. Returns a malloc'd path;
 * when nothing matches, a copy of ARG (so the load error names it). */
char *cal_tok_find(const char *arg, const char *argv0);

#endif
