/* test_tok_hf.c - the tokenizer.json engine on small hand-written files with
 * hand-computed ids: byte-level BPE (merge order, ignore_merges, added tokens
 * with and without special parsing, lstrip/rstrip/single_word, long words),
 * SentencePiece-style BPE (Prepend/Replace, byte fallback, fused unk,
 * template, decoder chain), Split behaviours, NFC, Metaspace + Digits +
 * Lowercase + Strip, and load errors. Every expected id list was checked
 * against the Rust reference (npm @anush008/tokenizers) on the same JSON. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "test.h"
#include "tok/hf.h"

/* JSON written with ' for " to keep the C strings readable */
static tok_hf *load(const char *sq, char *err, size_t errlen)
{
    char *j = strdup(sq);
    for (char *p = j; *p; p++) if (*p == '\'') *p = '"';
    tok_hf *t = tok_hf_load(j, strlen(j), "test.json", err, errlen);
    free(j);
    return t;
}

static int ids_are(const tok_hf *t, const char *text, size_t len, unsigned flags, const uint32_t *want, size_t n)
{
    cal_ids out = { 0 };
    char err[256];
    int ok = tok_hf_encode(t, text, len, flags, &out, err, sizeof err) == 0 && out.n == n &&
             (n == 0 || !memcmp(out.v, want, n * sizeof *want));
    if (!ok) {
        printf("# got");
        for (size_t i = 0; i < out.n; i++) printf(" %u", out.v[i]);
        printf("\n");
    }
    cal_ids_free(&out);
    return ok;
}
#define IDS(t, s, f, ...) ids_are(t, s, strlen(s), f, (const uint32_t[]){ __VA_ARGS__ }, \
                                  sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static int decodes_to(const tok_hf *t, const uint32_t *ids, size_t n, const char *want)
{
    cal_buf b = { 0 };
    tok_hf_decode(t, ids, n, &b);
    int ok = b.n == strlen(want) && !memcmp(b.p, want, b.n);
    if (!ok) printf("# decoded '%.*s'\n", (int)b.n, b.p);
    cal_buf_free(&b);
    return ok;
}

#define G "\xc4\xa0"       /* byte-level space */
#define M "\xe2\x96\x81"   /* SentencePiece space */

static const char *byte_level_json(int ignore_merges)
{
    static char buf[4096];
    snprintf(buf, sizeof buf,
        "{'version':'1.0','truncation':null,'padding':null,"
        "'added_tokens':["
        "{'id':15,'content':'<|s|>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true},"
        "{'id':16,'content':'<x>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':false},"
        "{'id':17,'content':'<m>','single_word':false,'lstrip':true,'rstrip':true,'normalized':false,'special':false},"
        "{'id':18,'content':'cab','single_word':true,'lstrip':false,'rstrip':false,'normalized':false,'special':false}],"
        "'normalizer':null,"
        "'pre_tokenizer':{'type':'ByteLevel','add_prefix_space':false,'trim_offsets':true,'use_regex':true},"
        "'post_processor':{'type':'ByteLevel','add_prefix_space':true,'trim_offsets':false,'use_regex':true},"
        "'decoder':{'type':'ByteLevel','add_prefix_space':true,'trim_offsets':true,'use_regex':true},"
        "'model':{'type':'BPE','dropout':null,'unk_token':null,'continuing_subword_prefix':null,"
        "'end_of_word_suffix':null,'fuse_unk':false,'byte_fallback':false,'ignore_merges':%s,"
        "'vocab':{'a':0,'b':1,'c':2,'" G "':3,'ab':4,'abc':5,'" G "a':6,'" G "ab':7,'!':8,"
        "'<':11,'|':12,'s':13,'>':14,'ac':9,'x':19},"
        "'merges':[['a','b'],['ab','c'],['" G "','a'],['" G "','ab']]}}",
        ignore_merges ? "true" : "false");
    return buf;
}

static void test_byte_level(void)
{
    const char *from;
    char err[256] = "";
    tok_hf *t = load(byte_level_json(0), err, sizeof err);
    CHECK(t != NULL, "byte-level tokenizer loads (%s)", err);
    if (!t) return;
    CHECK(IDS(t, "abc ab", 0, 5, 7), "merges apply by rank: 'abc' ' ab'");
    CHECK(IDS(t, "abc<x>ab", 0, 5, 16, 4), "a non-special added token is always cut out");
    CHECK(IDS(t, "a<|s|>b", 0, 0, 11, 12, 13, 12, 14, 1), "flags 0: special token text stays text");
    CHECK(IDS(t, "a<|s|>b", 2, 0, 15, 1), "PARSE_SPECIAL: special token text becomes its id");
    CHECK(IDS(t, "ac", 0, 0, 2), "without ignore_merges a vocab word is still merged piecewise");
    CHECK(IDS(t, "a <m> b", 0, 0, 17, 1), "lstrip/rstrip added token takes the spaces around it");
    CHECK(IDS(t, "xcab cab", 0, 19, 2, 4, 3, 18), "single_word token only matches as a whole word");
    CHECK(IDS(t, "a\xff" "b", 0, 0, 1), "invalid UTF-8 becomes U+FFFD (bytes without a token are dropped, as the reference)");
    CHECK(ids_are(t, "\xff", 1, 0, NULL, 0), "a text whose every byte lacks a token gives no ids (and no crash)");
    CHECK(tok_hf_vocab_size(t) == 20 && tok_hf_bos(t, &from) == -1 && tok_hf_eos(t, &from) == -1, "vocab size and no BOS/EOS");
    CHECK(decodes_to(t, (const uint32_t[]){ 5, 7, 16 }, 3, "abc ab<x>"), "decode maps bytes back");
    /* a 1 MB word: 'ab' x 500000 -> 500000 x 'ab' (O(n log n) merge loop) */
    size_t n = 1000000;
    char *w = malloc(n);
    for (size_t i = 0; i < n; i++) w[i] = i % 2 ? 'b' : 'a';
    cal_ids out = { 0 };
    int ok = tok_hf_encode(t, w, n, 0, &out, err, sizeof err) == 0 && out.n == n / 2;
    for (size_t i = 0; ok && i < out.n; i++) ok = out.v[i] == 4;
    CHECK(ok, "1 MB word encodes to 500000 'ab' tokens");
    cal_ids_free(&out);
    free(w);
    tok_hf_free(t);

    t = load(byte_level_json(1), err, sizeof err);
    CHECK(t && IDS(t, "ac", 0, 9), "ignore_merges: a pre-token in the vocab is one token");
    tok_hf_free(t);
}

static void test_spm_style(void)
{
    const char *from;
    char err[256] = "";
    tok_hf *t = load(
        "{'added_tokens':["
        "{'id':0,'content':'<unk>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true},"
        "{'id':1,'content':'<s>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true},"
        "{'id':2,'content':'</s>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true}],"
        "'normalizer':{'type':'Sequence','normalizers':[{'type':'Prepend','prepend':'" M "'},"
        "{'type':'Replace','pattern':{'String':' '},'content':'" M "'}]},"
        "'pre_tokenizer':null,"
        "'post_processor':{'type':'TemplateProcessing','single':[{'SpecialToken':{'id':'<s>','type_id':0}},"
        "{'Sequence':{'id':'A','type_id':0}}],'pair':[],'special_tokens':{'<s>':{'id':'<s>','ids':[1],'tokens':['<s>']}}},"
        "'decoder':{'type':'Sequence','decoders':[{'type':'Replace','pattern':{'String':'" M "'},'content':' '},"
        "{'type':'ByteFallback'},{'type':'Fuse'},{'type':'Strip','content':' ','start':1,'stop':0}]},"
        "'model':{'type':'BPE','dropout':null,'unk_token':'<unk>','continuing_subword_prefix':null,"
        "'end_of_word_suffix':null,'fuse_unk':true,'byte_fallback':true,"
        "'vocab':{'<unk>':0,'<s>':1,'</s>':2,'<0xC3>':3,'<0xA9>':4,'" M "':5,'h':6,'i':7,'" M "h':8,'" M "hi':9,'hi':10},"
        "'merges':['" M " h','" M "h i','h i']}}", err, sizeof err);
    CHECK(t != NULL, "SentencePiece-style tokenizer loads (%s)", err);
    if (!t) return;
    CHECK(IDS(t, "hi", 0, 9), "Prepend + merges: 'hi' -> '_hi'");
    CHECK(IDS(t, "hi", 1, 1, 9), "ADD_SPECIAL applies the template's <s>");
    CHECK(IDS(t, "hi \xc3\xa9", 0, 9, 5, 3, 4), "byte fallback for a character without a token");
    CHECK(IDS(t, "hi \xc3\xb1\xc3\xb1", 0, 9, 5, 0), "fuse_unk: consecutive unknown characters are one <unk>");
    CHECK(IDS(t, "hi<s>hi", 2, 9, 1, 9), "each piece around an added token is normalized on its own");
    CHECK(tok_hf_bos(t, &from) == 1 && !strcmp(from, "post_processor") && tok_hf_eos(t, &from) == 2 && !strcmp(from, "token name"), "BOS from the template, EOS from the added tokens");
    CHECK(decodes_to(t, (const uint32_t[]){ 9, 5, 3, 4 }, 4, "hi \xc3\xa9"), "decoder chain: Replace, ByteFallback, Fuse, Strip");
    tok_hf_free(t);
}

static tok_hf *split_tok(const char *behavior, int invert, const char *norm)
{
    char buf[2048], err[256];
    snprintf(buf, sizeof buf,
        "{'added_tokens':[],'normalizer':%s,"
        "'pre_tokenizer':{'type':'Split','pattern':{'Regex':'-'},'behavior':'%s','invert':%s},"
        "'post_processor':null,'decoder':null,"
        "'model':{'type':'BPE','vocab':{'a':0,'b':1,'-':2,'a-':3,'-b':4,'--':5,'ab':6,'\xc3\xa9':7,'e':8},"
        "'merges':['a -','- b','- -','a b']}}", norm, behavior, invert ? "true" : "false");
    tok_hf *t = load(buf, err, sizeof err);
    if (!t) printf("# %s\n", err);
    return t;
}

static void test_split(void)
{
    tok_hf *t;
    t = split_tok("Removed", 0, "null");
    CHECK(t && IDS(t, "a-b", 0, 0, 1), "Split Removed drops the matches");
    tok_hf_free(t);
    t = split_tok("Removed", 1, "null");
    CHECK(t && IDS(t, "a-b", 0, 2), "Split Removed + invert keeps only the matches");
    tok_hf_free(t);
    t = split_tok("Isolated", 0, "null");
    CHECK(t && IDS(t, "a--b", 0, 0, 2, 2, 1), "Split Isolated: each match alone");
    tok_hf_free(t);
    t = split_tok("Contiguous", 0, "null");
    CHECK(t && IDS(t, "a--b", 0, 0, 5, 1), "Split Contiguous joins adjacent matches");
    tok_hf_free(t);
    t = split_tok("MergedWithPrevious", 0, "null");
    CHECK(t && IDS(t, "a-b", 0, 3, 1), "Split MergedWithPrevious");
    tok_hf_free(t);
    t = split_tok("MergedWithNext", 0, "null");
    CHECK(t && IDS(t, "a-b", 0, 0, 4), "Split MergedWithNext");
    tok_hf_free(t);
    t = split_tok("Isolated", 0, "{'type':'NFC'}");
    CHECK(t && IDS(t, "e\xcc\x81", 0, 7), "NFC composes before the model");
    tok_hf_free(t);
}

static void test_metaspace(void)
{
    char err[256] = "";
    tok_hf *t = load(
        "{'added_tokens':[{'id':6,'content':'<s>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true}],"
        "'normalizer':{'type':'Sequence','normalizers':[{'type':'Lowercase'},{'type':'Strip','strip_left':false,'strip_right':true}]},"
        "'pre_tokenizer':{'type':'Sequence','pretokenizers':[{'type':'Digits','individual_digits':false},"
        "{'type':'Metaspace','replacement':'" M "','prepend_scheme':'first','split':true}]},"
        "'post_processor':null,'decoder':{'type':'Metaspace','replacement':'" M "','prepend_scheme':'first','split':true},"
        "'model':{'type':'BPE','vocab':{'" M "':0,'a':1,'b':2,'" M "a':3,'" M "b':4,'ab':5,'<s>':6,'" M "ab':7,'1':8,'11':9},"
        "'merges':['" M " a','" M " b','a b','" M "a b','1 1']}}", err, sizeof err);
    CHECK(t != NULL, "Metaspace tokenizer loads (%s)", err);
    if (!t) return;
    CHECK(IDS(t, "ab ab", 0, 7, 7), "Metaspace replaces spaces, prepends, splits before each replacement");
    CHECK(IDS(t, "AB<s>ab  ", 2, 7, 6, 5), "prepend_scheme first: only the piece at offset 0; Lowercase; Strip right");
    CHECK(IDS(t, "ab111b", 0, 7, 9, 8, 2), "Digits isolates a digit run; later pieces get no prefix");
    CHECK(ids_are(t, "", 0, 0, NULL, 0), "empty text, no ids");
    CHECK(decodes_to(t, (const uint32_t[]){ 7, 6, 5 }, 3, "ab<s>ab"), "Metaspace decoder drops the first token's replacement");
    tok_hf_free(t);
}

static void test_errors(void)
{
    char err[256] = "";
    tok_hf *t = load("{'model':{'type':'BPE','vocab':{'a':0},'merges':['a q']}}", err, sizeof err);
    CHECK(!t && !strcmp(err, "JSON path model.merges[0]: unknown token 'q'"), "unknown merge token: %s", err);
    t = load("{'normalizer':{'type':'Nmt'},'model':{'type':'BPE','vocab':{},'merges':[]}}", err, sizeof err);
    CHECK(!t && !strcmp(err, "JSON path normalizer.type: unsupported normalizer 'Nmt'"), "unsupported normalizer: %s", err);
    t = load("{'model':{'type':'WordLevel','vocab':{}}}", err, sizeof err);
    CHECK(!t && strstr(err, "model.type") && strstr(err, "WordLevel"), "unsupported model: %s", err);
    t = load("{'model':{'type':'BPE','vocab':{'a':0},'merges':[]},'pre_tokenizer':{'type':'Split','pattern':{'Regex':'(a'},'behavior':'Isolated'}}", err, sizeof err);
    CHECK(!t && strstr(err, "pre_tokenizer.pattern"), "bad regex: %s", err);
    /* Found by fuzz_tokjson: raw invalid UTF-8 in a string reached the code
     * point table (heap overflow); a pattern compiled before a bad field leaked
     * (the ASan build of this test checks the leak). */
    t = load("{'normalizer':{'type':'Replace','pattern':{'String':' '},'content':'\xff'},'model':{'type':'BPE','vocab':{'a':0},'merges':[]}}", err, sizeof err);
    CHECK(!t && strstr(err, "invalid UTF-8 in string"), "invalid UTF-8 inside a JSON string: %s", err);
    t = load("{'model':{'type':'BPE','vocab':{'a':0},'merges':[]},'pre_tokenizer':{'type':'Split','pattern':{'Regex':'a+'},'behaVior':'Isolated'}}", err, sizeof err);
    CHECK(!t && strstr(err, "behavior"), "Split without behavior (its compiled pattern freed): %s", err);
    t = load("{'model':{'type':'BPE','vocab':{'a':0,'b':1,'ab':2},'merges':['a b',['a','b']]}}", err, sizeof err);
    CHECK(!t && strstr(err, "model.merges[1]: mixes"), "mixed merge formats are refused as the reference does: %s", err);
    t = load("{'model':", err, sizeof err);
    CHECK(!t && !strncmp(err, "byte ", 5), "truncated JSON names the byte offset: %s", err);
}

/* concurrent encodes on one tokenizer (one cache, written by whichever
 * thread meets a word first) give the ids of another instance encoding alone */
#define NTEXT 4000
typedef struct { const tok_hf *t; const cal_ids *ref; int first, ok; } thr_arg;

/* text i: words of a, b, c and the specials, 1 to 30 bytes, deterministic in i */
static void make_text(int i, char *buf, size_t *n)
{
    static const char *const parts[] = { "ab", " ab", "abc", "<x>", " ", "c", "!", "a<|s|>b", "xcab", " cab " };
    uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    *n = 0;
    for (int k = 0; k < 1 + i % 13; k++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        if (r % 3) {
            const char *p = parts[r / 3 % 10];
            memcpy(buf + *n, p, strlen(p));
            *n += strlen(p);
        } else {
            buf[(*n)++] = ' ';
            for (uint64_t w = 1 + r / 3 % 30, q = r >> 20; w > 0; w--, q /= 3) buf[(*n)++] = (char)('a' + q % 3);
        }
    }
}

static void *thr_main(void *p)
{
    thr_arg *a = p;
    char buf[512], err[128];
    cal_ids x = { 0 };
    a->ok = 1;
    for (int j = 0; j < NTEXT && a->ok; j++) {
        int i = (a->first + j) % NTEXT;
        size_t n;
        make_text(i, buf, &n);
        x.n = 0;
        a->ok = !tok_hf_encode(a->t, buf, n, (unsigned)(i & 2), &x, err, sizeof err) && x.n == a->ref[i].n &&
                !memcmp(x.v, a->ref[i].v, x.n * sizeof *x.v) && x.n > 0;
    }
    cal_ids_free(&x);
    return NULL;
}

static void test_threads(void)
{
    char err[256] = "";
    tok_hf *t = load(byte_level_json(0), err, sizeof err), *alone = load(byte_level_json(0), err, sizeof err);
    if (!t || !alone) return;
    char buf[512];
    static cal_ids ref[NTEXT];
    for (int i = 0; i < NTEXT; i++) {
        size_t n;
        make_text(i, buf, &n);
        memset(&ref[i], 0, sizeof ref[i]);
        tok_hf_encode(alone, buf, n, (unsigned)(i & 2), &ref[i], err, sizeof err);
    }
    pthread_t th[4];
    thr_arg a[4];
    for (int i = 0; i < 4; i++) {
        a[i] = (thr_arg){ t, ref, i * 997, 0 };
        pthread_create(&th[i], NULL, thr_main, &a[i]);
    }
    int ok = 1;
    for (int i = 0; i < 4; i++) { pthread_join(th[i], NULL); ok &= a[i].ok; }
    for (int i = 0; i < NTEXT; i++) cal_ids_free(&ref[i]);
    CHECK(ok, "4 threads encoding %d texts at once agree with another instance encoding alone", NTEXT);
    tok_hf_free(t);
    tok_hf_free(alone);
}

int main(void)
{
    test_byte_level();
    test_spm_style();
    test_split();
    test_metaspace();
    test_errors();
    test_threads();
    TEST_END();
}
