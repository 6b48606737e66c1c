/* test_rows_docstore.c - lib/rows/docstore.c: tokens appended in order,
 * labels kept, and every stream position mapped to its document (empty
 * documents included). */
#include "rows/docstore.h"
#include "test.h"

int main(void) {
    cal_docstore s = {0};
    uint32_t a[] = {1, 2, 3}, b[] = {4};
    cal_docstore_add(&s, a, 3, 10, "wiki", 4);
    cal_docstore_add(&s, NULL, 0, 11, "empty", 5);
    cal_docstore_add(&s, b, 1, 12, "codeXX", 4);
    CHECK(s.n == 3 && s.all.n == 4 && s.all.v[3] == 4, "tokens appended in order");
    CHECK(!strcmp(cal_docstore_label(&s, 0), "wiki") && !strcmp(cal_docstore_label(&s, 2), "code"),
          "labels kept, NUL-terminated at their length");
    CHECK(s.docs[2].start == 3 && s.docs[2].len == 1 && s.docs[2].id == 12, "start, length, id");
    CHECK(cal_docstore_at(&s, 0) == 0 && cal_docstore_at(&s, 2) == 0, "positions 0-2: the first document");
    CHECK(cal_docstore_at(&s, 3) == 2, "position 3: the last document, not the empty one before it");
    int all = 1;
    cal_docstore big = {0};
    for (uint32_t i = 0; i < 3000; i++) cal_docstore_add(&big, a, i % 3, i, "x", 1);
    for (size_t pos = 0; pos < big.all.n; pos++) {
        size_t d = cal_docstore_at(&big, pos);
        all &= big.docs[d].start <= pos && pos < big.docs[d].start + big.docs[d].len;
    }
    CHECK(all, "3000 documents (a third empty): every position in its document");
    cal_docstore_free(&s);
    cal_docstore_free(&big);
    TEST_END();
}
