/* test_hostile_tok.c - tokenizer files cut short: a tokenizer.json at every
 * byte and a SentencePiece .model at 48 places each load or fail with a
 * reason, never crash; whatever loads encodes text without a crash. Uses the
 * fetched llama2-spm.model (make tokenizers) and a small hand-made
 * tokenizer.json; skips what is missing. */
#include <stdio.h>
#include <sys/stat.h>

#include "hostile.h"
#include "tok/tokenizer.h"

static char dir[] = "/tmp/test_hostile_tok.XXXXXX";

static const char tok_json[] =
    "{\"added_tokens\":[{\"id\":5,\"content\":\"<s>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
    "\"normalized\":false,\"special\":true}],\"normalizer\":{\"type\":\"NFC\"},"
    "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
    "\"decoder\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,"
    "\"fuse_unk\":false,\"byte_fallback\":false,\"vocab\":{\"H\":0,\"e\":1,\"l\":2,\"o\":3,\"He\":4,\"<s>\":5,"
    "\"ll\":6,\"Hell\":7},\"merges\":[\"H e\",\"l l\",\"He ll\"]}}";

/* Loads the first n bytes of p as a tokenizer file; encodes with it if it loads. */
static int try_cut(const char *p, size_t n, size_t *loaded) {
    const char *path = h_file(dir, "cut", p, n);
    char err[512] = "";
    cal_tok *t = cal_tok_load(path, err, sizeof err);
    if (!t) return err[0] != 0; /* a reason is given */
    ++*loaded;
    cal_ids ids = {0};
    int rc = cal_tok_encode(t, "Hello  world, caf\xc3\xa9 \xff!", 20, CAL_TOK_PARSE_SPECIAL, &ids, err, sizeof err);
    cal_ids_free(&ids);
    cal_tok_free(t);
    return rc == 0 || err[0] != 0;
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    size_t n = strlen(tok_json), bad = 0, loaded = 0;
    for (size_t k = 0; k < n; k++) bad += !try_cut(tok_json, k, &loaded);
    CHECK(bad == 0 && try_cut(tok_json, n, &loaded), "a tokenizer.json cut at each of %zu bytes fails with a reason "
                                                     "(%zu loaded, %zu without a reason)", n, loaded, bad);
    const char *model = "build/tokenizers/llama2-spm.model";
    size_t len;
    uint8_t *p = h_slurp(model, &len);
    if (!p || len >= (1u << 20)) {
        printf("skip - a .model cut short: %s is missing (make tokenizers)\n", model);
    } else {
        bad = loaded = 0;
        for (size_t k = 0; k < 48; k++) bad += !try_cut((const char *)p, len * k / 48 + (k & 1), &loaded);
        CHECK(bad == 0, "a .model cut at 48 places loads and encodes, or fails with a reason (%zu loaded, %zu without "
                        "a reason)", loaded, bad);
    }
    free(p);
    if (h_rmdir(dir)) return 1;
    TEST_END();
}
