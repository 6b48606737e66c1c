/* find.h - resolve the -t TOKENIZER argument of cal-encode and cal-cat. */
#ifndef CAL_TOK_FIND_H
#define CAL_TOK_FIND_H

/* An existing file ARG is used as it is. A bare NAME (no '/') that is not a
 * file is looked up, first match wins, as DIR/NAME/tokenizer.json, then
 * DIR/NAME.model, then DIR/NAME, for DIR in cal_data_dirs("tokenizers",
 * "CAL_TOKENIZERS") (base/datadir.h): $CAL_TOKENIZERS, the `make tokenizers`
 * output beside the current directory or the running program, and the
 * installed data directory. Returns a malloc'd path; when nothing matches, a
 * copy of ARG (so the load error names it). */
char *cal_tok_find(const char *arg);

#endif
