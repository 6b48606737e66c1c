/* test_stream_drops.c - lib/stream/drops.c: counts by reason (and notes), the report's
 * exact wording and order, and silence when nothing was dropped. */
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
                  "cal-pack: 27 tokens dropped as the last partial row (--tail drop), "
                  "2 documents dropped by --min-tokens 5 (7 tokens)\n"),
          "one line on stderr without -v");
    CHECK(!strcmp(report(&d, "9 documents -> 1 rows"),
                  "cal-pack: 9 documents -> 1 rows; 27 tokens dropped as the last partial row (--tail drop), "
                  "2 documents dropped by --min-tokens 5 (7 tokens)\n"),
          "with -v: the summary, then the drops, in one line");
    cal_drops n = {0};
    cal_drops_note(&n, "documents", "dropped by --min-chars 400", 2, 700, "bytes");
    cal_drops_note(&n, "conversations", "refused by the template", 3, 0, NULL);
    cal_drops_note(&n, "documents", "dropped by --min-chars 400", 1, 50, "bytes");
    CHECK(!strcmp(fmt(&n), "3 documents dropped by --min-chars 400 (750 bytes), 3 conversations refused by the template"),
          "notes: counts add under (noun, why); no unit, no amount: %s", fmt(&n));
    CHECK(cal_drops_docs(&n) == 0 && cal_drops_tokens(&n) == 0, "notes are not documents and tokens of the totals");
    TEST_END();
}
