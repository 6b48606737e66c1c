/* test_tok_image.c - prepared tokenizer images (tok/image.h, hf_image.c):
 *  - a restored tokenizer gives the same ids (every flag) and decodes as
 *    the one built from JSON, for a byte-level BPE (added tokens special or
 *    not, lstrip/rstrip, single_word, ignore_merges) and a
 *    SentencePiece-style one (normalizers, byte fallback, fused unk,
 *    template, decoder chain);
 *  - damage: every byte of an image changed in turn, checksums left as they
 *    were: every change is refused when the image is opened;
 *  - the body checksum skipped (an image trusted by its identity): every
 *    change of the header and section table still refused; every change
 *    of the body refused or used without a crash;
 *  - forgery: every byte changed to several values and both checksums
 *    recomputed (tok_image_reseal), so that the change passes them: each
 *    image is refused, or restored and then used to encode and decode
 *    (under SANITIZE=1 any read outside a table is an error); no change
 *    may crash or hang it;
 *  - another build or another key is refused. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "scratch.h"
#include "test.h"
#include "tok/hf.h"
#include "tok/image.h"

#define G "\xc4\xa0"     /* byte-level space */
#define M "\xe2\x96\x81" /* SentencePiece space */

static const char *const byte_level =
    "{'added_tokens':["
    "{'id':15,'content':'<|s|>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':true},"
    "{'id':16,'content':'<x>','single_word':false,'lstrip':false,'rstrip':false,'normalized':false,'special':false},"
    "{'id':17,'content':'<m>','single_word':false,'lstrip':true,'rstrip':true,'normalized':false,'special':false},"
    "{'id':18,'content':'cab','single_word':true,'lstrip':false,'rstrip':false,'normalized':true,'special':false}],"
    "'normalizer':null,"
    "'pre_tokenizer':{'type':'ByteLevel','add_prefix_space':false,'trim_offsets':true,'use_regex':true},"
    "'post_processor':{'type':'ByteLevel'},"
    "'decoder':{'type':'ByteLevel'},"
    "'model':{'type':'BPE','ignore_merges':true,"
    "'vocab':{'a':0,'b':1,'c':2,'" G "':3,'ab':4,'abc':5,'" G "a':6,'" G "ab':7,'!':8,"
    "'<':11,'|':12,'s':13,'>':14,'ac':9,'x':19},"
    "'merges':[['a','b'],['ab','c'],['" G "','a'],['" G "','ab']]}}";

/* a Llama-2-like tokenizer.json, lower-cased, with a normalized added token */
static const char *const spm_style =
    "{'added_tokens':["
    "{'id':0,'content':'<unk>','normalized':false,'special':true},"
    "{'id':1,'content':'<s>','normalized':false,'special':true},"
    "{'id':2,'content':'</s>','normalized':false,'special':true},"
    "{'id':11,'content':'HI','normalized':true,'special':false}],"
    "'normalizer':{'type':'Sequence','normalizers':[{'type':'Lowercase'},{'type':'Prepend','prepend':'" M "'},"
    "{'type':'Replace','pattern':{'String':' '},'content':'" M "'}]},"
    "'pre_tokenizer':null,"
    "'post_processor':{'type':'TemplateProcessing','single':[{'SpecialToken':{'id':'<s>','type_id':0}},"
    "{'Sequence':{'id':'A','type_id':0}}],'pair':[],'special_tokens':{'<s>':{'id':'<s>','ids':[1],'tokens':['<s>']}}},"
    "'decoder':{'type':'Sequence','decoders':[{'type':'Replace','pattern':{'String':'" M "'},'content':' '},"
    "{'type':'ByteFallback'},{'type':'Fuse'},{'type':'Strip','content':' ','start':1,'stop':0}]},"
    "'model':{'type':'BPE','unk_token':'<unk>','fuse_unk':true,'byte_fallback':true,"
    "'vocab':{'<unk>':0,'<s>':1,'</s>':2,'<0xC3>':3,'<0xA9>':4,'" M "':5,'h':6,'i':7,'" M "h':8,'" M "hi':9,'hi':10},"
    "'merges':['" M " h','" M "h i','h i']}}";

/* a Unigram tokenizer.json (T5-like): a Precompiled normalizer whose one
 * rule maps A to a (PRECOMPILED is filled in by main), Metaspace, unknown
 * runs fused, byte fallback; 12 pieces */
static char unigram[2048];
static const char *const unigram_fmt =
    "{'added_tokens':[{'id':0,'content':'<unk>','normalized':false,'special':true},"
    "{'id':1,'content':'</s>','normalized':false,'special':true}],"
    "'normalizer':{'type':'Sequence','normalizers':[{'type':'Precompiled','precompiled_charsmap':'%s'},"
    "{'type':'Replace','pattern':{'Regex':' {2,}'},'content':'" M "'}]},"
    "'pre_tokenizer':{'type':'Metaspace','replacement':'" M "','prepend_scheme':'always','split':true},"
    "'post_processor':{'type':'TemplateProcessing','single':[{'Sequence':{'id':'A','type_id':0}},"
    "{'SpecialToken':{'id':'</s>','type_id':0}}],'pair':[],'special_tokens':{'</s>':{'id':'</s>','ids':[1],'tokens':['</s>']}}},"
    "'decoder':{'type':'Metaspace','replacement':'" M "','prepend_scheme':'always','split':true},"
    "'model':{'type':'Unigram','unk_id':0,'byte_fallback':true,'vocab':[['<unk>',0.0],['</s>',0.0],['" M "',-2.0],"
    "['a',-3.0],['b',-3.5],['ab',-4.0],['" M "ab',-4.5],['c',-5.0],['<0xC3>',-1.0],['<0xA9>',-1.0],['hi',-2.5],"
    "['" M "hi',-2.0]]}}";

/* a BERT-like WordPiece tokenizer.json; 20 entries */
static const char *const wordpiece =
    "{'added_tokens':[{'id':0,'content':'[PAD]','normalized':false,'special':true},"
    "{'id':1,'content':'[UNK]','normalized':false,'special':true},{'id':2,'content':'[CLS]','normalized':false,'special':true},"
    "{'id':3,'content':'[SEP]','normalized':false,'special':true}],"
    "'normalizer':{'type':'BertNormalizer','clean_text':true,'handle_chinese_chars':true,'strip_accents':null,'lowercase':true},"
    "'pre_tokenizer':{'type':'BertPreTokenizer'},"
    "'post_processor':{'type':'BertProcessing','sep':['[SEP]',3],'cls':['[CLS]',2]},"
    "'decoder':{'type':'WordPiece','prefix':'##','cleanup':true},"
    "'model':{'type':'WordPiece','unk_token':'[UNK]','continuing_subword_prefix':'##','max_input_chars_per_word':8,"
    "'vocab':{'[PAD]':0,'[UNK]':1,'[CLS]':2,'[SEP]':3,'a':4,'b':5,'c':6,'ab':7,'##b':8,'##c':9,'##bc':10,'hi':11,"
    "'##i':12,'h':13,'!':14,'<':15,'>':16,'x':17,'##x':18,'e':19}}}";

static const char *const texts[] = {
    "abc ab", "abc<x>ab", "a<|s|>b", "a <m> b", "xcab cab", "a\xff" "b", "Hi \xc3\xa9", "hi \xc3\xb1\xc3\xb1 hi", "HI hi",
    "hi<s>hi</s>", "", " ", "ab ab ab abc abcabc", "\xe2\x96\x81hi", "<0xC3>",
};
#define NTEXT (sizeof texts / sizeof *texts)

static tok_hf *load(const char *sq)
{
    char *j = strdup(sq), err[256];
    for (char *p = j; *p; p++) if (*p == '\'') *p = '"';
    tok_hf *t = tok_hf_load(j, strlen(j), "test.json", err, sizeof err);
    if (!t) printf("# %s\n", err);
    free(j);
    return t;
}

/* every text (the first ntext) in every flag mode, then decoded: one
 * buffer to compare */
static void run_some(const tok_hf *t, cal_buf *out, size_t ntext)
{
    char err[256];
    out->n = 0;
    for (size_t i = 0; i < ntext; i++)
        for (unsigned f = 0; f < 4; f++) {
            cal_ids ids = { 0 };
            int rc = tok_hf_encode(t, texts[i], strlen(texts[i]), f, &ids, err, sizeof err);
            cal_buf_addf(out, "%d:", rc);
            for (size_t k = 0; k < ids.n; k++) cal_buf_addf(out, " %u", ids.v[k]);
            cal_buf_addc(out, '|');
            tok_hf_decode(t, ids.v, ids.n, out);
            cal_buf_addc(out, '\n');
            cal_ids_free(&ids);
        }
}
static void run_all(const tok_hf *t, cal_buf *out) { run_some(t, out, NTEXT); }

static const uint64_t key[2] = { 0x1234, 0x5678 };

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    char *p = malloc(*n);
    if (fread(p, 1, *n, f) != *n) *n = 0;
    fclose(f);
    return p;
}

/* An image in memory restored: the tokenizer, or NULL (refused). */
static tok_hf *restore_mem(const char *p, size_t n, char *err, size_t errlen)
{
    tok_image im;
    if (tok_image_open_mem(&im, p, n, "test-build", key, err, errlen) != 1) return NULL;
    return tok_hf_from_image(&im, "(memory)", err, errlen);
}

/* Opens and restores path: the tokenizer, or NULL (refused). */
static tok_hf *restore(const char *path, const char *build, const uint64_t k[2], char *err, size_t errlen)
{
    tok_image im;
    if (tok_image_open(&im, path, build, k, err, errlen) != 1) return NULL;
    return tok_hf_from_image(&im, path, err, errlen);
}

/* forge every stride-th byte only (1: all): the Unigram and WordPiece
 * images compile a regex and decode a map at every restore */
static size_t forge_stride = 1;

static void check_one(const char *name, const char *json, const char *dir, int sanitize)
{
    tok_hf *t = load(json);
    CHECK(t != NULL, "%s: loads from JSON", name);
    if (!t) return;
    char path[4096], err[512] = "";
    snprintf(path, sizeof path, "%s/%s.tok", dir, name);
    tok_image_parts w = { 0 };
    tok_hf_image_parts(t, &w);
    CHECK(tok_image_write(path, "test-build", key, &w, err, sizeof err) == 0, "%s: image written (%s)", name, err);
    cal_buf want = { 0 }, got = { 0 };
    run_all(t, &want);
    tok_hf_free(t);

    tok_hf *r = restore(path, "test-build", key, err, sizeof err);
    CHECK(r != NULL, "%s: image opens and restores (%s)", name, err);
    if (!r) return;
    run_all(r, &got);
    CHECK(got.n == want.n && !memcmp(got.p, want.p, got.n), "%s: same ids in every mode and same decoding", name);
    CHECK(tok_hf_vocab_size(r) == 20 || tok_hf_vocab_size(r) == 12, "%s: vocabulary size kept (%u)", name, tok_hf_vocab_size(r));
    tok_hf_free(r);

    uint64_t other[2] = { key[0], key[1] + 1 };
    CHECK(!restore(path, "other-build", key, err, sizeof err) && strstr(err, "another build"), "%s: another build is refused (%s)", name, err);
    CHECK(!restore(path, "test-build", other, err, sizeof err) && strstr(err, "other tokenizer"), "%s: another key is refused (%s)", name, err);

    /* the sections, to know where the large code point table lies */
    tok_image im;
    uint64_t cp_lo = 0, cp_hi = 0, body = 0;
    if (tok_image_open(&im, path, "test-build", key, err, sizeof err) == 1) {
        body = im.nsec ? im.sec[0].off : 0;
        for (size_t i = 0; i < im.nsec; i++)
            if (im.sec[i].count * im.sec[i].elem >= 65536) cp_lo = im.sec[i].off, cp_hi = cp_lo + im.sec[i].count * im.sec[i].elem;
        tok_image_close(&im);
    }
    size_t n;
    char *orig = read_all(path, &n), *buf = malloc(n);
    /* the header and section table, and the small sections: every byte;
     * a large table (the code points' ids): every 61st */
#define SKIP(i) ((i) >= cp_lo && (i) < cp_hi && ((i) - cp_lo) % 61)

    /* damage: one byte changed, checksums kept */
    size_t tried = 0, taken = 0;
    for (size_t i = 0; i < n; i++) {
        if (SKIP(i)) continue;
        memcpy(buf, orig, n);
        buf[i] ^= 0x55;
        tok_hf *x = restore_mem(buf, n, err, sizeof err);
        tried++;
        if (x) taken++, tok_hf_free(x);
    }
    CHECK(taken == 0, "%s: %zu damaged images (one byte changed each) all refused (%zu taken)", name, tried, taken);

    /* forgery: resealed after the change */
    size_t opened = 0, refused = 0, bytes = 0;
    tried = 0;
    for (size_t i = 0; i < n; i++) {
        if (SKIP(i) || i % forge_stride) continue;
        bytes++;
        for (int v = 0; v < (sanitize ? 2 : 4); v++) {
            memcpy(buf, orig, n);
            buf[i] = (char)(v == 0 ? 0 : v == 1 ? 0xFF : v == 2 ? buf[i] ^ 0x80 : buf[i] + 1);
            if (!memcmp(buf, orig, n)) continue;
            tok_image_reseal(buf, n);
            tok_hf *x = restore_mem(buf, n, err, sizeof err);
            tried++;
            if (!x) { refused++; continue; }
            opened++;
            run_some(x, &got, 5); /* must not crash or hang; the ids may be wrong */
            tok_hf_free(x);
        }
    }
    CHECK(tried == opened + refused && tried >= bytes, "%s: %zu forged images: %zu refused, %zu restored and used without a crash",
          name, tried, refused, opened);

    /* the body checksum skipped, as for an image trusted by its identity
     * (cache.h): every byte changed, nothing resealed: a change in the
     * header or section table is still refused; one in the body is refused
     * or restored and used without a crash */
    size_t head_tried = 0, head_taken = 0;
    opened = refused = tried = 0;
    for (size_t i = 0; i < n; i++) {
        /* the body: a sample (the forgery loop above reaches every body byte) */
        if (SKIP(i) || (i >= body && i % (forge_stride * (sanitize ? 24 : 8)))) continue;
        memcpy(buf, orig, n);
        buf[i] ^= 0x55;
        tok_image ui;
        tok_hf *x = tok_image_open_mem_unhashed(&ui, buf, n, "test-build", key, err, sizeof err) == 1
                        ? tok_hf_from_image(&ui, "(memory)", err, sizeof err) : NULL;
        if (i < body) { head_tried++, head_taken += x != NULL; if (x) tok_hf_free(x); continue; }
        tried++;
        if (!x) { refused++; continue; }
        opened++;
        run_some(x, &got, 5);
        tok_hf_free(x);
    }
    CHECK(body > 0 && head_tried == body && head_taken == 0 && tried > 0 && tried == opened + refused,
          "%s: body checksum skipped: %zu changes of the header and table, %zu taken (none may be); %zu of the body: "
          "%zu refused, %zu restored and used without a crash", name, head_tried, head_taken, tried, refused, opened);
    memcpy(buf, orig, n);
    tok_image ui;
    CHECK(tok_image_open_mem_unhashed(&ui, buf, n, "test-build", key, err, sizeof err) == 1 && !ui.body_hashed,
          "%s: the intact image opens with the body checksum skipped", name);
#undef SKIP
    free(orig);
    free(buf);
    cal_buf_free(&want);
    cal_buf_free(&got);
}

int main(void)
{
    const char *san = getenv("CAL_SANITIZE");
    int sanitize = san && !strcmp(san, "1");
    if (!mkdtemp(t_dir)) return 2;
#ifdef PR_SET_THP_DISABLE
    /* each restored tokenizer maps an 8 MB pre-token cache on huge pages:
     * 2 MB cleared per page a word lands in, times 10^5 images */
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
#endif
    /* the Precompiled map of one rule, A -> a: the darts-clone units (root
     * offset 1; A's unit at 1 ^ 0x41 with a leaf at 64 ^ 1) and "a" */
    uint32_t units[66] = {0};
    units[0] = 1u << 10;
    units[64] = 1u << 10 | 1u << 8 | 0x41;
    units[65] = 1u << 31;
    unsigned char blob[4 + sizeof units + 2];
    uint32_t tl = sizeof units;
    memcpy(blob, &tl, 4);
    memcpy(blob + 4, units, sizeof units);
    memcpy(blob + 4 + sizeof units, "a", 2);
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char enc[512];
    size_t k = 0;
    for (size_t i = 0; i < sizeof blob; i += 3) {
        uint32_t v = (uint32_t)blob[i] << 16 | (i + 1 < sizeof blob ? (uint32_t)blob[i + 1] << 8 : 0) |
                     (i + 2 < sizeof blob ? blob[i + 2] : 0);
        enc[k++] = b64[v >> 18 & 63], enc[k++] = b64[v >> 12 & 63];
        enc[k++] = i + 1 < sizeof blob ? b64[v >> 6 & 63] : '=';
        enc[k++] = i + 2 < sizeof blob ? b64[v & 63] : '=';
    }
    enc[k] = 0;
    snprintf(unigram, sizeof unigram, unigram_fmt, enc);
    tok_hf *u = load(unigram);
    cal_ids x = { 0 }, y = { 0 };
    char err[256];
    CHECK(u && !tok_hf_encode(u, "A\xcc\x81" "b", 4, 0, &x, err, sizeof err) && !tok_hf_encode(u, "ab", 2, 0, &y, err, sizeof err) &&
              x.n == y.n && !memcmp(x.v, y.v, x.n * 4) && x.n == 1 && x.v[0] == 6,
          "Precompiled: the cluster A + U+0301 (3 bytes) becomes the first rule, a, whole: %zu ids", x.n);
    cal_ids_free(&x), cal_ids_free(&y);
    tok_hf_free(u);
    forge_stride = sanitize ? 11 : 3;
    check_one("unigram", unigram, t_dir, sanitize);
    check_one("wordpiece", wordpiece, t_dir, sanitize);
    forge_stride = 1;
    unlink(t_path("unigram.tok"));
    unlink(t_path("wordpiece.tok"));
    check_one("byte-level", byte_level, t_dir, sanitize);
    check_one("spm-style", spm_style, t_dir, sanitize);
    unlink(t_path("byte-level.tok"));
    unlink(t_path("spm-style.tok"));
    rmdir(t_dir);
    TEST_END();
}
