/* hf_split.c - Split patterns as cal-encode matches them, for
 * tests/sh/test_encode_onig.sh: each input line is a JSON object
 * {"pattern": P, "texts": [S...]}; each output line is {"error": MESSAGE}
 * when P does not compile, else {"isolated": [[PIECE...]...], "removed":
 * [[PIECE...]...]}: the pieces of each text under the Split behaviours
 * Isolated (matches and the text between them) and Removed (only the text
 * between), empty pieces left out, as the reference's Split makes them
 * (tests/ref/hf_split.js prints the same from the Rust tokenizers).
 * Matching is tok's own: th_pcre_compile and th_pattern_next, leftmost-
 * first, an empty match moving the search one character on.
 *
 *     hf_split <CASES.jsonl >OUT.jsonl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/utf8.h"
#include "tok/hf_int.h"

static json_t *piece(const char *s, size_t a, size_t b) { return json_stringn(s + a, b - a); }

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        json_error_t je;
        json_t *c = json_loadb(line, (size_t)len, JSON_ALLOW_NUL, &je);
        const char *pat = c ? json_string_value(json_object_get(c, "pattern")) : NULL;
        json_t *texts = c ? json_object_get(c, "texts") : NULL;
        if (!pat || !json_is_array(texts)) {
            fprintf(stderr, "hf_split: bad input line: %s\n", je.text);
            return 2;
        }
        json_t *out = json_object();
        char err[300];
        th_pattern p = {0};
        p.is_regex = 1;
        p.scanner = TH_RE_PCRE;
        p.re = th_pcre_compile(pat, json_string_length(json_object_get(c, "pattern")), err, sizeof err);
        if (!p.re) json_object_set_new(out, "error", json_string(err));
        else {
            pcre2_match_data *md = pcre2_match_data_create_from_pattern(p.re, NULL);
            json_t *iso = json_array(), *rem = json_array();
            size_t k;
            json_t *t;
            json_array_foreach(texts, k, t) {
                const char *s = json_string_value(t);
                size_t n = json_string_length(t), from = 0, prev = 0, ms, me;
                json_t *a = json_array(), *b = json_array();
                int rc;
                while (from <= n && (rc = th_pattern_next(&p, md, s, n, from, &ms, &me)) > 0) {
                    if (prev != ms) {
                        json_array_append_new(a, piece(s, prev, ms));
                        json_array_append_new(b, piece(s, prev, ms));
                    }
                    if (me > ms) json_array_append_new(a, piece(s, ms, me));
                    prev = me;
                    if (me == ms) {
                        if (ms >= n) break;
                        int32_t cp;
                        from = ms + cal_utf8_next(s, n, ms, &cp);
                    } else from = me;
                }
                if (prev < n) {
                    json_array_append_new(a, piece(s, prev, n));
                    json_array_append_new(b, piece(s, prev, n));
                }
                json_array_append_new(iso, a);
                json_array_append_new(rem, b);
            }
            json_object_set_new(out, "isolated", iso);
            json_object_set_new(out, "removed", rem);
            pcre2_match_data_free(md);
            pcre2_code_free(p.re);
        }
        char *o = json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII);
        puts(o);
        free(o);
        json_decref(out);
        json_decref(c);
    }
    free(line);
    return 0;
}
