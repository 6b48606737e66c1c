/* corpus.h - the built-in corpora by name: their aliases, where their built
 * files are (base/datadir.h's search order) and the table of --list. */
#ifndef CAL_TEXT_CORPUS_H
#define CAL_TEXT_CORPUS_H

#include <stdio.h>

#include "base/buf.h"

/* The built file's name (wiki, web, code, stories, multilingual, technical)
 * of the corpus a name means, or NULL. The names say what each corpus is
 * (foldoc, prose, code, stories, multilingual, technical); the aliases are
 * the peers' datasets each stands in for: wiki = foldoc; web, c4 and pile =
 * prose; tiny = stories. */
const char *cal_corpus_canon(const char *name);

/* The built file CANON.jsonl.zst in the first data directory that holds
 * it, or NULL; looked (may be NULL) gets the directories searched, joined by
 * ", ". The caller frees the path. */
char *cal_corpus_file(const char *canon, cal_buf *looked);

/* Writes the table of --list (name, alias, documents, bytes, sources from
 * the corpora's index.tsv) to out. Returns 0, or -1 when writing failed. */
int cal_corpus_list(FILE *out);

#endif
