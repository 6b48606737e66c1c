/* test_stream_drops.c - lib/stream/drops.c: counts by reason (and notes), the report's
 * exact wording and order, and silence when nothing was dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/err.h"
#include "stream/drops.h"
#include "test.h"

static const char *fmt(const cal_drops *d) {
    static cal_buf b;
    b.n = 0;
    cal_drops_format(d, &b);
    cal_buf_addc(&b, 0);
    return b.p;
}

/* What cal_drops_report writes to standard error. */
static const char *report(const cal_drops *d, const char *summary) {
    static char out[512];
    fflush(stderr);
    int saved = dup(2), p[2];
    if (pipe(p)) return "pipe failed";
    dup2(p[1], 2);
    close(p[1]);
    cal_drops_report(d, summary);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = read(p[0], out, sizeof out - 1);
    close(p[0]);
    out[n > 0 ? n : 0] = 0;
    return out;
}

int main(void) {
    cal_set_progname("cal-pack");
    cal_drops d = {0};
    size_t tail = cal_drops_reason(&d, "as the last partial row (--tail drop)");
    size_t min = cal_drops_reason(&d, "by --min-tokens 5");
    CHECK(cal_drops_reason(&d, "by --min-tokens 5") == min && d.n == 2, "a reason is added once");
    CHECK(!strcmp(fmt(&d), ""), "nothing dropped: nothing said");
    CHECK(!strcmp(report(&d, NULL), ""), "nothing dropped: no line without -v");
    CHECK(!strcmp(report(&d, "3 rows"), "cal-pack: 3 rows\n"), "nothing dropped: -v's summary alone");
    cal_drops_count(&d, min, 1, 3);
    cal_drops_count(&d, min, 1, 4);
    CHECK(!strcmp(fmt(&d), "2 documents dropped by --min-tokens 5 (7 tokens)"), "documents: %s", fmt(&d));
    cal_drops_count(&d, tail, 0, 27);
    CHECK(!strcmp(fmt(&d), "27 tokens dropped as the last partial row (--tail drop), "
                           "2 documents dropped by --min-tokens 5 (7 tokens)"),
          "reasons in the order added: %s", fmt(&d));
    CHECK(cal_drops_docs(&d) == 2 && cal_drops_tokens(&d) == 34, "totals");
    cal_drops_add(&d, "by --truncate tail", 0, 0);
    CHECK(d.n == 3 && strstr(fmt(&d), "truncate") == NULL, "a reason with zero counts is not reported");
    CHECK(!strcmp(report(&d, NULL),
                  "cal-pack: 27 tokens dropped as the last partial row (--tail drop)\n"
                  "cal-pack: 2 documents dropped by --min-tokens 5 (7 tokens)\n"),
          "without -v: one line per cause on stderr");
    CHECK(!strcmp(report(&d, "9 documents -> 1 rows"),
                  "cal-pack: 9 documents -> 1 rows\n"
                  "cal-pack: 27 tokens dropped as the last partial row (--tail drop)\n"
                  "cal-pack: 2 documents dropped by --min-tokens 5 (7 tokens)\n"),
          "with -v: the summary, then a line per cause");
    cal_drops n = {0};
    cal_drops_note(&n, "documents", "dropped by --min-chars 400", 2, 700, "bytes");
    cal_drops_note(&n, "conversations", "refused by the template", 3, 0, NULL);
    cal_drops_note(&n, "documents", "dropped by --min-chars 400", 1, 50, "bytes");
    CHECK(!strcmp(fmt(&n), "3 documents dropped by --min-chars 400 (750 bytes), 3 conversations refused by the template"),
          "notes: counts add under (noun, why); no unit, no amount: %s", fmt(&n));
    CHECK(cal_drops_docs(&n) == 0 && cal_drops_tokens(&n) == 0, "notes are not documents and tokens of the totals");

    /* In the stream: a line per cause, the chain telling shards apart, and
     * back again as it was. */
    cal_meta m = {0};
    cal_meta_add(&m, "stage", "cal-read big.jsonl --shard 0/2");
    cal_meta_add(&m, "stage", "cal-pack -l 8");
    cal_drops_record(&d, &m);
    cal_drops_record(&n, &m);
    char chain[17];
    snprintf(chain, sizeof chain, "%016llx", (unsigned long long)cal_drops_chain(&m));
    size_t lines = 0;
    int back = 1;
    for (size_t i = 0; i < m.n; i++) {
        if (strcmp(m.key[i], "drop")) continue;
        lines++;
        cal_drop_line l;
        back &= !cal_drop_parse(m.val[i], &l) && !strncmp(m.val[i], chain, 16) && !strcmp(l.prog, "cal-pack");
        if (lines == 1)
            back &= l.n == 27 && !strcmp(l.noun, "tokens") && l.amount == 0 && !l.unit[0] &&
                    !strcmp(l.why, "dropped as the last partial row (--tail drop)");
        if (lines == 2)
            back &= l.n == 2 && !strcmp(l.noun, "documents") && l.amount == 7 && !strcmp(l.unit, "tokens") &&
                    !strcmp(l.why, "dropped by --min-tokens 5");
        if (lines == 3)
            back &= l.n == 3 && !strcmp(l.noun, "documents") && l.amount == 750 && !strcmp(l.unit, "bytes") &&
                    !strcmp(l.why, "dropped by --min-chars 400");
    }
    CHECK(lines == 4 && back, "drop lines: one per nonzero cause (%zu), parsed back as recorded", lines);
    cal_meta_free(&m);
    cal_meta other = {0};
    cal_meta_add(&other, "stage", "cal-read big.jsonl --shard 1/2");
    cal_meta_add(&other, "stage", "cal-pack -l 8");
    CHECK(cal_drops_chain(&other) != strtoull(chain, NULL, 16), "another shard's chain differs");
    cal_meta_free(&other);
    cal_drop_line l;
    CHECK(cal_drop_parse("12 cal-pack 1 rows 0 - x", &l) == -1 && cal_drop_parse("0123456789abcdef cal-pack x rows", &l) == -1,
          "lines not of the form are refused");
    TEST_END();
}
