/* test_tok_hf_added.c - loading is linear in the number of added tokens
 * (issue 29: 10^5 added tokens took 69.6 s, 10^6 did not end in 120 s, from
 * a scan of the earlier tokens per token). A tokenizer.json with 10^6
 * generated added tokens (5 x 10^4 under SANITIZE=1) must load, give every
 * token the id the reference gives it, and encode with them; at that size a
 * quadratic load takes hours, so the alarm below (far above the seconds a
 * linear load takes) ends such a run as a failure instead of a hang. Then
 * 10^5 special tokens made one by one (tok_hf_add_special, as a
 * tokenizer_config.json names them) get consecutive new ids.
 *
 * The ids, as the Rust HF tokenizers' AddedVocabulary assigns them (the
 * file's "id" is only a hint): a text already an added token keeps that
 * token's id, a vocabulary text its vocabulary id, any other the next id
 * after the vocabulary and the added tokens so far. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "test.h"
#include "tok/hf.h"

#define NV 95 /* the vocabulary: the printable ASCII characters, id = c - 32 */

/* The i-th added token's text: every 7th repeats an earlier one, every
 * 1000th is a vocabulary character, the rest are new. */
static void added_text(size_t i, char *buf, size_t cap)
{
    if (i % 1000 == 999) snprintf(buf, cap, "%c", (char)('a' + i / 1000 % 26));
    else if (i % 7 == 6) snprintf(buf, cap, "<t%zu>", i / 2);
    else snprintf(buf, cap, "<t%zu>", i);
}

static char *make_json(size_t n)
{
    cal_buf b = { 0 };
    cal_buf_addf(&b, "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[");
    char t[64];
    for (size_t i = 0; i < n; i++) {
        added_text(i, t, sizeof t);
        cal_buf_addf(&b, "%s{\"id\":0,\"content\":\"%s\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
                     "\"normalized\":false,\"special\":%s}", i ? "," : "", t, i % 2 ? "true" : "false");
    }
    cal_buf_addf(&b, "],\"normalizer\":null,\"pre_tokenizer\":null,\"post_processor\":null,\"decoder\":null,"
                 "\"model\":{\"type\":\"BPE\",\"vocab\":{");
    for (int c = 32; c < 127; c++) {
        if (c == '"' || c == '\\') cal_buf_addf(&b, "%s\"\\%c\":%d", c > 32 ? "," : "", c, c - 32);
        else cal_buf_addf(&b, "%s\"%c\":%d", c > 32 ? "," : "", c, c - 32);
    }
    cal_buf_addf(&b, "},\"merges\":[]}}");
    cal_buf_addc(&b, 0);
    return b.p;
}

/* The expected id of every added token, computed by the rule above with a
 * plain array indexed by the token's number (no hashing, no scanning). */
static uint32_t *expected_ids(size_t n, uint32_t *next_out)
{
    uint32_t *want = malloc(n * sizeof *want), next = NV;
    uint32_t *first = malloc(n * sizeof *first); /* id of "<tK>" by K, once seen */
    for (size_t k = 0; k < n; k++) first[k] = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        if (i % 1000 == 999) { want[i] = (uint32_t)('a' + i / 1000 % 26 - 32); continue; }
        size_t k = i % 7 == 6 ? i / 2 : i;
        if (first[k] == UINT32_MAX) first[k] = next++;
        want[i] = first[k];
    }
    free(first);
    *next_out = next;
    return want;
}

static void alarm_fail(int sig)
{
    (void)sig;
    static const char m[] = "not ok - loading many added tokens ended within the time budget (a quadratic load)\n";
    (void)!write(1, m, sizeof m - 1);
    _exit(1);
}

int main(void)
{
    const char *san = getenv("CAL_SANITIZE");
    size_t n = san && !strcmp(san, "1") ? 50000 : 1000000; /* ASan: memory checks, not the size */
    signal(SIGALRM, alarm_fail);
    alarm(600); /* linear: a few seconds (30 under ASan); quadratic: hours */

    char *json = make_json(n), err[512] = "";
    tok_hf *t = tok_hf_load(json, strlen(json), "added.json", err, sizeof err);
    free(json);
    CHECK(t != NULL, "a tokenizer.json with %zu added tokens loads (%s)", n, err);
    if (!t) TEST_END();

    uint32_t next, *want = expected_ids(n, &next);
    size_t bad = 0, first_bad = 0;
    char text[64];
    for (size_t i = 0; i < n; i++) {
        added_text(i, text, sizeof text);
        int64_t id = tok_hf_token_id(t, text, strlen(text));
        if (id != (int64_t)want[i] && !bad++) first_bad = i;
    }
    CHECK(bad == 0, "every added token has the reference's id (%zu wrong, the first #%zu)", bad, first_bad);
    CHECK(tok_hf_vocab_size(t) == next, "vocabulary size %u = %u (95 + the distinct new texts)", tok_hf_vocab_size(t), next);

    /* encoding with them: <t3> is non-special (odd numbers are special) */
    size_t last = n - 1; /* a late token that is new text */
    while (last % 1000 == 999 || last % 7 == 6) last--;
    snprintf(text, sizeof text, "a<t3>b<t%zu>c<t1>", last);
    cal_ids out = { 0 };
    int rc = tok_hf_encode(t, text, strlen(text), 2 /* CAL_TOK_PARSE_SPECIAL */, &out, err, sizeof err);
    CHECK(rc == 0 && out.n == 6 && out.v[0] == 'a' - 32 && out.v[1] == want[3] && out.v[2] == 'b' - 32 &&
              out.v[3] == want[last] && out.v[4] == 'c' - 32 && out.v[5] == want[1],
          "added tokens are cut out of a text (%zu ids)", out.n);
    out.n = 0;
    rc = tok_hf_encode(t, "<t1>", 4, 0, &out, err, sizeof err);
    CHECK(rc == 0 && out.n == 4 && out.v[0] == '<' - 32, "without --parse-special a special token stays text");
    cal_ids_free(&out);

    /* 10^5 special tokens made one by one, as a configuration names them */
    size_t m = san && !strcmp(san, "1") ? 10000 : 100000, wrong = 0;
    for (size_t i = 0; i < m; i++) {
        int is_new;
        snprintf(text, sizeof text, "<s%zu>", i);
        int64_t id = tok_hf_add_special(t, text, strlen(text), 0, 0, 0, 0, &is_new, err, sizeof err);
        wrong += id != (int64_t)(next + i) || !is_new;
    }
    int is_new;
    int64_t again = tok_hf_add_special(t, "<s7>", 4, 0, 0, 0, 0, &is_new, err, sizeof err);
    int64_t old = tok_hf_add_special(t, "<t0>", 4, 0, 0, 0, 0, &is_new, err, sizeof err);
    CHECK(wrong == 0 && again == next + 7 && old == want[0] && !is_new,
          "%zu special tokens made one by one take the next ids; existing ones keep theirs", m);
    free(want);
    tok_hf_free(t);
    TEST_END();
}
