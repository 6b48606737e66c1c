/* fuzz_tokjson.c - libFuzzer target: the tokenizer.json loader (its own JSON
 * parser and every model/normalizer/pre-tokenizer section) and, for files it
 * accepts, encode and decode of a fixed mixed-script text. Load errors must
 * come back as NULL with a message, never a crash or a hang. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "tok/hf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char text[] = "Hello  world's 12345 caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 <s>\n\t\xf0\x9f\x99\x82 \xff";
    char err[512];
    tok_hf *t = tok_hf_load((const char *)data, size, "fuzz.json", err, sizeof err);
    if (!t) return 0;
    cal_ids ids = {0};
    cal_buf out = {0};
    for (unsigned flags = 0; flags < 4; flags++) {
        ids.n = 0;
        if (tok_hf_encode(t, text, sizeof text - 1, flags, &ids, err, sizeof err) == 0) {
            out.n = 0;
            tok_hf_decode(t, ids.v, ids.n, &out);
        }
    }
    cal_ids_free(&ids);
    cal_buf_free(&out);
    tok_hf_free(t);
    return 0;
}
