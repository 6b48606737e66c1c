/* list.c - cal-encode --list (see list.h). */
#include "tok/list.h"

#include "tok/find.h"
#include "tok/tokenizer.h"

size_t cal_tok_list(FILE *out) {
    size_t n;
    cal_tok_entry *v = cal_tok_entries(&n);
    for (size_t i = 0; i < n; i++) {
        char err[512];
        const char *src = v[i].source ? v[i].source : v[i].path;
        cal_tok *t = cal_tok_load(v[i].path, err, sizeof err);
        if (t) fprintf(out, "%s\t%u\t%s\n", v[i].name, cal_tok_vocab_size(t), src);
        else fprintf(out, "%s\t-\t%s (does not load: %s)\n", v[i].name, src, err);
        cal_tok_free(t);
    }
    cal_tok_entries_free(v, n);
    return n;
}
