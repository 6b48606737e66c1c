/* find.h - resolve the -t TOKENIZER argument of cal-encode and cal-cat, and
 * list the tokenizers that `make tokenizers` fetched. */
#ifndef CAL_TOK_FIND_H
#define CAL_TOK_FIND_H

#include <stdio.h>

/* An existing file or folder ARG is used as it is. A bare NAME (no '/') is
 * looked up, first match wins, as the model folder DIR/NAME (a folder with
 * tokenizer.json or tokenizer.model), then DIR/NAME.model, then DIR/NAME,
 * for DIR in cal_data_dirs("tokenizers", "CAL_TOKENIZERS"): $CAL_TOKENIZERS,
 * the `make tokenizers` output beside the current directory or the running
 * program, and the installed data directory. Returns a malloc'd path; when
 * nothing matches, a copy of ARG (so the load error names it). */
char *cal_tok_find(const char *arg);

/* The names a bare -t NAME finds, each once (the first directory wins),
 * sorted within a directory: the folder or file each resolves to, and where
 * it came from (DIR/index.tsv, written by scripts/fetch-tokenizers.sh), or
 * NULL. */
typedef struct {
    char *name, *path, *source;
} cal_tok_entry;
cal_tok_entry *cal_tok_entries(size_t *n);
void cal_tok_entries_free(cal_tok_entry *v, size_t n);

/* The names, comma-separated (malloc'd; "" for none). */
char *cal_tok_names(void);

#endif
