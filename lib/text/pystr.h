/* pystr.h - the Python str steps the peers apply to their documents, for
 * cal-read --strip, --lines, --drop-blank, --join and --empty: str.strip()
 * and str.isspace() (Unicode whitespace, not only ASCII), text.split("\n")
 * and sep.join(docs). The text is valid UTF-8 (after hygiene). */
#ifndef CAL_TEXT_PYSTR_H
#define CAL_TEXT_PYSTR_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "stream/stream.h"

/* Python's str.isspace() for one code point: the ASCII whitespace, the
 * separators U+001C..U+001F, U+0085, the Unicode space separators (Zs) and
 * the line and paragraph separators. */
int cal_py_space(int32_t cp);
/* The bounds [*a, *b) of s[0..n) without the surrounding whitespace that
 * str.strip() removes (*a == *b when nothing is left). */
void cal_py_strip(const char *s, size_t n, size_t *a, size_t *b);
/* s.isspace(): n > 0 and every character whitespace. */
int cal_py_isspace(const char *s, size_t n);
/* Bytes of the first piece of text.split("\n") of p[0..n): up to the first
 * newline (n when there is none); the next piece starts after it. */
size_t cal_py_line(const char *p, size_t n);

/* The string an option value written as "\n\n" means: \n, \t, \r and \\ are
 * newline, tab, carriage return and backslash (a new string); any other
 * escape is a usage error naming opt. */
char *cal_py_unescape(const char *opt, const char *v);

/* sep.join(docs), an empty document joining as `empty` when that is set
 * ("" if s == "" else s), under the label of the first document. */
typedef struct {
    const char *sep, *empty; /* options (unescaped) */
    size_t max;              /* bytes of the joined text at most */
    cal_buf text;
    char label[CAL_MAX_LABEL + 1];
    uint64_t docs; /* documents joined */
} cal_join;

/* Appends a document; -1 (nothing appended) when the text would exceed max. */
int cal_join_add(cal_join *j, const char *label, const char *p, size_t n);
void cal_join_free(cal_join *j);

#endif
