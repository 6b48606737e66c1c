/* hf_wordpiece.c - a tokenizer.json "WordPiece" model (BERT), as the Rust
 * tokenizers' models/wordpiece tokenize (0.22.2): a word of more than
 * max_input_chars_per_word characters is the unknown token; else from its
 * start, the longest prefix in the vocabulary (after the first piece, with
 * continuing_subword_prefix before it) is taken, shrinking one character at
 * a time, and the rest goes on the same way; a word with a position where
 * no prefix is in the vocabulary is the unknown token as a whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "tok/hf_int.h"

static int unknown(const tok_hf *t, cal_ids *out, char *err, size_t errlen)
{
    if (t->unk_id == TH_NONE) {
        snprintf(err, errlen, "%s: WordPiece: a word it cannot piece, and no unk_token", t->path);
        return -1;
    }
    cal_ids_push(out, t->unk_id);
    return 0;
}

int th_wordpiece(const tok_hf *t, const char *s, size_t len, cal_ids *out, char *err, size_t errlen)
{
    size_t chars = 0;
    for (size_t i = 0; i < len; i++) chars += ((unsigned char)s[i] & 0xC0) != 0x80;
    if (chars > t->wp_max) return unknown(t, out, err, errlen);
    size_t mark = out->n, start = 0;
    char small[256];
    char *key = len + t->wp_prefix_len <= sizeof small ? small : cal_xmalloc(len + t->wp_prefix_len);
    memcpy(key, t->wp_prefix, t->wp_prefix_len);
    while (start < len) {
        size_t end = len;
        uint32_t id = TH_NONE;
        while (start < end) {
            const char *k = s + start;
            size_t kl = end - start;
            if (start > 0) { /* the prefix before it */
                memcpy(key + t->wp_prefix_len, s + start, end - start);
                k = key;
                kl += t->wp_prefix_len;
            }
            id = th_strmap_get(&t->vocab, k, kl);
            if (id != TH_NONE) break;
            do end--; /* one character back */
            while (end > start && ((unsigned char)s[end] & 0xC0) == 0x80);
        }
        if (id == TH_NONE) {
            out->n = mark;
            if (key != small) free(key);
            return unknown(t, out, err, errlen);
        }
        cal_ids_push(out, id);
        start = end;
    }
    if (key != small) free(key);
    return 0;
}
