/* test_stream_shards.c - lib/stream/shards.c: stage lines parsed into
 * families (quotes respected), and the ledger's verdicts over every way N
 * shards can meet: whole, missing, doubled, made differently, merged
 * before, continued by a trailer, accepted partial; for N = 1..6 every
 * subset and every doubling is checked against the rule computed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream/shards.h"
#include "test.h"

static int parse(const char *stage, uint64_t *i, uint64_t *n, const char **fam) {
    static cal_buf b;
    b.n = 0;
    int r = cal_stage_shard(stage, i, n, &b);
    *fam = b.p ? b.p : "";
    return r;
}

/* A shard's own stream: its cal-read stage, an input line, a later stage. */
static void shard_stream(cal_shards *s, unsigned i, unsigned n, const char *input, const char *enc, int trailer) {
    cal_meta m = {0};
    char st[128];
    snprintf(st, sizeof st, "cal-read big.jsonl --shard %u/%u", i, n);
    cal_meta_add(&m, "stage", st);
    cal_meta_add(&m, "stage", enc);
    if (!trailer) cal_meta_add(&m, "input", input); /* with a trailer it comes there */
    cal_shards_header(s, &m, 0);
    if (trailer) {
        cal_meta_add(&m, "input", input);
        cal_meta_add(&m, "drop", "0123456789abcdef cal-read 1 documents 3 bytes dropped by --min-chars 9");
        cal_shards_header(s, &m, 1);
    }
    cal_meta_free(&m);
}

static const char *verdict(cal_shards *s, int whole) {
    static cal_buf why;
    int bad = cal_shards_check(s, whole, &why);
    return bad ? why.p : "ok";
}

int main(void) {
    uint64_t i, n;
    const char *f;
    CHECK(parse("cal-read big.jsonl --shard 3/8", &i, &n, &f) && i == 3 && n == 8 &&
              !strcmp(f, "cal-read big.jsonl --shard I/8"),
          "--shard I/N: shard %llu of %llu, family '%s'", (unsigned long long)i, (unsigned long long)n, f);
    CHECK(parse("cal-read --shard=0/2 -n 5 x", &i, &n, &f) && i == 0 && n == 2 && !strcmp(f, "cal-read --shard=I/2 -n 5 x"),
          "--shard=I/N: '%s'", f);
    CHECK(!parse("cal-read 'a --shard 1/2' b", &i, &n, &f), "inside quotes it is a file name, not a shard");
    CHECK(!parse("cal-read $'a\\' --shard 1/2' b", &i, &n, &f), "inside $'...' with an escaped quote, too");
    CHECK(parse("cal-read 'x y' --shard 1/2", &i, &n, &f) && !strcmp(f, "cal-read 'x y' --shard I/2"),
          "after a quoted argument: '%s'", f);
    CHECK(!parse("cal-read x --shard 2/2", &i, &n, &f) && !parse("cal-read x --shard 1/0", &i, &n, &f) &&
              !parse("cal-read x --shard a/2", &i, &n, &f) && !parse("cal-read x --shard", &i, &n, &f) &&
              !parse("cal-read x --shards 1/2", &i, &n, &f),
          "not a shard: I >= N, N = 0, not numbers, no value, another option");
    CHECK(!parse("cal-read x --shard 1/99999999999", &i, &n, &f), "a shard count of 11 digits is not a shard");

    /* Every subset of 0..N-1, each shard once or twice, alike or not. */
    int wrong = 0, cases = 0;
    for (unsigned N = 1; N <= 6; N++)
        for (unsigned set = 1; set < (1u << N); set++)
            for (unsigned twice = 0; twice <= N; twice++)    /* N: none doubled */
                for (unsigned odd = 0; odd <= N; odd++) {    /* N: none made differently */
                    if ((twice < N && !(set >> twice & 1)) || (odd < N && !(set >> odd & 1))) continue;
                    for (int whole = 0; whole <= 1; whole++) {
                        cal_shards *s = cal_shards_new();
                        unsigned present = 0;
                        for (unsigned k = 0; k < N; k++) {
                            if (!(set >> k & 1)) continue;
                            present++;
                            for (unsigned c = 0; c < (k == twice ? 2u : 1u); c++)
                                shard_stream(s, k, N, k == odd ? "bbbb 9 big.jsonl" : "aaaa 9 big.jsonl",
                                             "cal-encode -t llama3", (k + c) % 2);
                        }
                        unsigned streams = present + (twice < N);
                        int want_bad = (streams >= 2 || whole) &&
                                       (present < N || twice < N || (odd < N && present >= 2));
                        const char *v = verdict(s, whole);
                        int bad = strcmp(v, "ok") != 0;
                        if (bad != want_bad) {
                            if (wrong++ < 5)
                                printf("# N=%u set=%x twice=%u odd=%u whole=%d: %s\n", N, set, twice, odd, whole, v);
                        }
                        cases++;
                        cal_shards_free(s);
                    }
                }
    CHECK(!wrong, "%d ways shards meet (N = 1..6: every subset, doubled, made differently, whole or not): %d "
          "verdicts wrong", cases, wrong);

    /* The messages name what is wrong. */
    cal_shards *s = cal_shards_new();
    for (unsigned k = 0; k < 8; k += 2) shard_stream(s, k, 8, "aaaa 9 big.jsonl", "cal-encode -t llama3", 1);
    CHECK(!strcmp(verdict(s, 0), "shards of 'cal-read big.jsonl --shard I/8': 4 of 8 present, missing 1, 3, 5, 7 "
                                 "(did a shard's run fail?)"),
          "missing: %s", verdict(s, 0));
    cal_shards_free(s);
    s = cal_shards_new();
    for (unsigned k = 0; k < 4; k++) shard_stream(s, k, 4, k < 2 ? "aaaa 9 big.jsonl" : "bbbb 9 big.jsonl", "e", 0);
    CHECK(!strcmp(verdict(s, 0), "shards of 'cal-read big.jsonl --shard I/4' were made differently: shards 0-1 "
                                 "(input=aaaa 9 big.jsonl) vs shards 2-3 (input=bbbb 9 big.jsonl)"),
          "different inputs: %s", verdict(s, 0));
    cal_shards_free(s);
    s = cal_shards_new();
    for (unsigned k = 0; k < 3; k++) shard_stream(s, k, 3, "aaaa 9 big.jsonl", k == 1 ? "cal-encode -t qwen3" : "e", 0);
    CHECK(strstr(verdict(s, 0), "shards 0, 2 (stage=e) vs shards 1 (stage=cal-encode -t qwen3)") != NULL,
          "different options: %s", verdict(s, 0));
    cal_shards_free(s);

    /* A merged stream (every shard's stage line in one header) is whole;
     * with a shard missing it is not, and a partial line accepts it. */
    cal_meta m = {0};
    for (unsigned k = 0; k < 4; k++) {
        char st[64];
        snprintf(st, sizeof st, "cal-read big.jsonl --shard %u/4", k);
        if (k != 2) cal_meta_add(&m, "stage", st);
    }
    cal_meta_add(&m, "stage", "cal-shuffle --by-id --allow-partial --seed 0");
    s = cal_shards_new();
    cal_shards_header(s, &m, 0);
    CHECK(strstr(verdict(s, 0), "3 of 4 present, missing 2") != NULL, "merged, one missing: %s", verdict(s, 0));
    cal_meta acc = {0};
    cal_shards_accept(s, 0, &acc);
    CHECK(acc.n == 1 && !strcmp(acc.key[0], "partial") && !strcmp(acc.val[0], "cal-read big.jsonl --shard I/4"),
          "accepted: a partial line names the family");
    cal_shards_free(s);
    cal_meta_add(&m, "partial", acc.val[0]);
    s = cal_shards_new();
    cal_shards_header(s, &m, 0);
    CHECK(!strcmp(verdict(s, 1), "ok"), "a family accepted upstream is not checked again");
    cal_buf d = {0};
    cal_shards_describe(s, &d);
    CHECK(d.p && !strcmp(d.p, "cal-read big.jsonl --shard I/4: 3 of 4 (accepted partial upstream)\n"),
          "described: %s", d.p ? d.p : "");
    cal_buf_free(&d);
    cal_shards_free(s);
    cal_meta_free(&m);
    cal_meta_free(&acc);

    /* A stage that stopped reading early names only the shards it met. */
    cal_meta st = {0};
    cal_meta_add(&st, "stage", "cal-read big.jsonl --shard 0/4");
    cal_meta_add(&st, "stage", "cal-read big.jsonl --shard 1/4");
    cal_meta_add(&st, "stage", "cal-pack -l 8 -n 2");
    s = cal_shards_new();
    cal_shards_header(s, &st, 0);
    CHECK(strstr(verdict(s, 0), "2 of 4 present") != NULL, "merged, half named: %s", verdict(s, 0));
    cal_meta_add(&st, "stopped", "cal-pack read 9 records and stopped (its rows were made)");
    cal_shards_header(s, &st, 1); /* its trailer */
    CHECK(!strcmp(verdict(s, 0), "ok"), "... with the trailer saying it stopped early: not an error");
    cal_shards_free(s);
    cal_meta_free(&st);

    /* Two ledgers (two files) absorbed into one meet there. */
    cal_shards *a = cal_shards_new(), *b = cal_shards_new(), *all = cal_shards_new();
    shard_stream(a, 0, 2, "aaaa 9 big.jsonl", "e", 1);
    shard_stream(b, 1, 2, "bbbb 9 big.jsonl", "e", 1);
    CHECK(!strcmp(verdict(a, 0), "ok"), "one shard alone is a shard's own stream: no check");
    cal_shards_absorb(all, a);
    cal_shards_absorb(all, b);
    CHECK(strstr(verdict(all, 0), "were made differently") != NULL, "absorbed ledgers meet: %s", verdict(all, 0));
    cal_shards_free(a), cal_shards_free(b), cal_shards_free(all);
    TEST_END();
}
