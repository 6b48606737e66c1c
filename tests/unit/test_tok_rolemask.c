/* test_tok_rolemask.c - lib/tok/rolemask.c: for every span [s, e) of an
 * ASCII text (so each token's bytes, decoded alone, give its offsets), the
 * tokens marked are those holding a byte of the span, as char_to_token
 * marks them; spans at special tokens; several spans; bad spans ignored.
 * Uses the fetched llama3 and gemma3 tokenizers (make tokenizers). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "tok/rolemask.h"
#include "tok/tokenizer.h"

/* Every span of text: the mask against the overlap of each token's bytes. */
static void every_span(const char *path, const char *text, unsigned flags) {
    char err[512];
    cal_tok *t = cal_tok_load(path, err, sizeof err);
    if (!t) {
        CHECK(0, "%s loads: %s", path, err);
        return;
    }
    size_t len = strlen(text);
    cal_ids ids = {0}, scratch = {0};
    CHECK(cal_tok_encode(t, text, len, flags, &ids, err, sizeof err) == 0, "%s: encode", path);
    size_t *start = calloc(ids.n + 1, sizeof *start), at = 0;
    cal_buf piece = {0};
    int offsets_ok = 1;
    for (size_t i = 0; i < ids.n; i++) { /* each token's bytes, in order, make the text */
        piece.n = 0;
        cal_tok_decode(t, ids.v + i, 1, &piece);
        start[i] = at;
        at += piece.n;
    }
    start[ids.n] = at;
    offsets_ok = at == len;
    uint8_t *role = malloc(ids.n + 1);
    size_t spans = 0, right = 0, straddling = 0;
    for (uint32_t s = 0; s < len; s++)
        for (uint32_t e = s + 1; e <= len; e++) {
            uint32_t sp[2] = {s, e};
            spans++;
            if (cal_tok_role_mask(t, text, len, flags, ids.v, ids.n, sp, 1, role, &scratch, err, sizeof err)) continue;
            int same = 1, inside = 0;
            for (size_t i = 0; i < ids.n; i++) {
                int want = start[i] < e && start[i + 1] > s;
                same &= role[i] == want;
                inside |= (start[i] < s && start[i + 1] > s) || (start[i] < e && start[i + 1] > e);
            }
            right += same, straddling += inside;
        }
    CHECK(offsets_ok && right == spans && straddling > 0,
          "%s: all %zu spans of a %zu-byte text mark the tokens holding their bytes (%zu right, %zu with an edge "
          "inside a token)", path, spans, len, right, straddling);
    uint32_t two[4] = {0, 3, 10, 12}, bad[4] = {5, 2, 3, 999};
    cal_tok_role_mask(t, text, len, flags, ids.v, ids.n, two, 2, role, &scratch, err, sizeof err);
    size_t marked = 0;
    for (size_t i = 0; i < ids.n; i++) marked += role[i] == (start[i] < 3 || (start[i] < 12 && start[i + 1] > 10));
    CHECK(marked == ids.n, "%s: two spans", path);
    cal_tok_role_mask(t, text, len, flags, ids.v, ids.n, bad, 2, role, &scratch, err, sizeof err);
    marked = 0;
    for (size_t i = 0; i < ids.n; i++) marked += role[i];
    CHECK(marked == 0, "%s: empty and out-of-range spans mark nothing", path);
    free(start), free(role);
    cal_buf_free(&piece);
    cal_ids_free(&ids), cal_ids_free(&scratch);
    cal_tok_free(t);
}

int main(void) {
    every_span("build/tokenizers/llama3/tokenizer.json",
               "<|start_header_id|>assistant<|end_header_id|>\n\nHello, worldwide tokens!<|eot_id|>",
               CAL_TOK_PARSE_SPECIAL);
    every_span("build/tokenizers/qwen3/tokenizer.json", "<|im_start|>user\nabcdefg 12345 xyz<|im_end|>\n",
               CAL_TOK_PARSE_SPECIAL);
    TEST_END();
}
