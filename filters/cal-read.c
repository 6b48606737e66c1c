/* cal-read - turns text, JSON Lines, Parquet files and the built-in corpora
 * into a cal-stream of TEXT records (see man/cal-read.1). */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#include "base/buf.h"
#include "base/datadir.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"
#include "base/progress.h"
#include "base/utf8.h"
#include "io/insrc.h"
#include "io/jsonscan.h"
#include "io/parquet.h"
#include "stream/stream.h"

static const char USAGE[] =
    "Usage: cal-read [OPTION]... SOURCE...\n"
    "Reads documents and writes a cal-stream of TEXT records to stdout.\n"
    "SOURCE is a built-in corpus (wiki, web|c4, code, stories|tiny, multilingual,\n"
    "technical), a file, a directory (files in sorted order) or - for stdin.\n"
    "gzip and zstd compression is detected and removed.\n"
    "\n"
    "  -f, --format FMT     text (whole file), lines, paragraphs, wikiextractor,\n"
    "                       wikitext, jsonl, parquet (default: from name and content)\n"
    "      --sep STR        text documents separated by the literal STR\n"
    "      --field PATH     JSON/Parquet field with the text, dotted (default text)\n"
    "      --template T     chat records: plain, chatml, llama3 (default plain)\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "  -L, --label NAME     record label (default: corpus or file base name)\n"
    "      --min-chars N    skip documents shorter than N characters\n"
    "      --max-chars N    split documents longer than N characters\n"
    "  -n, --max-docs N     stop after N documents\n"
    "      --dedup          drop exact duplicates (same content) across all sources\n"
    "      --shard I/N      keep only shard I (0..N-1) of N, by document id\n"
    "      --sample N       keep a seeded uniform sample of N documents\n"
    "      --seed S         seed of --sample (default 0)\n"
    "      --strict         invalid UTF-8 or NUL bytes are errors, not U+FFFD\n"
    "      --crlf           turn CRLF line ends into LF\n"
    "      --nfc            normalize text to Unicode NFC\n"
    "      --strip          strip surrounding whitespace as Python's str.strip()\n"
    "      --lines          each line of each document is a document (text.split\n"
    "                       on newlines; empty lines kept)\n"
    "      --drop-blank     skip documents of only whitespace (not empty ones)\n"
    "      --join SEP       join all documents (empty ones too) into one, separated\n"
    "                       by SEP (\\n, \\t, \\r and \\\\ understood)\n"
    "      --empty STR      with --join: an empty document joins as STR\n"
    "      --list           list the built-in corpora and exit\n"
    "  -v, --verbose        print a summary on stderr\n"
    "      --progress       show progress on stderr\n"
    "  -h, --help           show this help and exit\n"
    "      --version        show the version and exit\n";

enum { F_AUTO, F_TEXT, F_LINES, F_PARA, F_SEP, F_WIKIEX, F_WIKITEXT, F_JSONL, F_PARQUET };
static const char *const FMT_NAMES[] = {"auto", "text", "lines", "paragraphs", "sep",
                                        "wikiextractor", "wikitext", "jsonl", "parquet"};
enum { T_PLAIN, T_CHATML, T_LLAMA3 };

static const char *const CORPORA[][2] = {
    {"wiki", "wiki"}, {"web", "web"}, {"c4", "web"}, {"code", "code"}, {"stories", "stories"},
    {"tiny", "stories"}, {"multilingual", "multilingual"}, {"technical", "technical"}};
#define N_CORPORA (sizeof CORPORA / sizeof CORPORA[0])

/* ---- options and counters ------------------------------------------------ */
static struct {
    int format, template, strict, crlf, nfc, dedup, verbose, progress, strip, lines, drop_blank;
    const char *sep, *field, *label, *output;
    char *join, *empty;  /* --join, --empty (unescaped), or NULL */
    uint64_t min_chars, max_chars, max_docs, shard_i, shard_n, sample, seed;
    int have_seed, have_sample;
} opt = {.field = "text"};

static struct {
    uint64_t docs, bytes, sources, bad_utf8, nuls, nulls, short_docs, dups, other_shard, split;
} st;

static cal_writer *W;
static cal_progress P;
static cal_buf tmp1, tmp2;  /* scratch for hygiene */
static int done;            /* -n reached */

/* ---- dedup set (open addressing on document ids) ------------------------- */
static uint64_t *dset;
static size_t dset_cap, dset_n;
static int dset_zero;

static int dedup_seen(uint64_t id) {
    if (id == 0) {
        int was = dset_zero;
        dset_zero = 1;
        return was;
    }
    if (2 * (dset_n + 1) > dset_cap) {
        size_t nc = dset_cap ? 2 * dset_cap : 1024;
        uint64_t *nt = cal_xcalloc(nc, sizeof *nt);
        for (size_t i = 0; i < dset_cap; i++)
            if (dset[i]) {
                size_t j = (size_t)(dset[i] & (nc - 1));
                while (nt[j]) j = (j + 1) & (nc - 1);
                nt[j] = dset[i];
            }
        free(dset);
        dset = nt, dset_cap = nc;
    }
    size_t j = (size_t)(id & (dset_cap - 1));
    while (dset[j]) {
        if (dset[j] == id) return 1;
        j = (j + 1) & (dset_cap - 1);
    }
    dset[j] = id;
    dset_n++;
    return 0;
}

/* ---- bottom-k sample: the N documents with the smallest keyed hash -------- */
typedef struct {
    uint64_t key, id;
    char *label, *text;
    size_t n;
} sdoc;
static sdoc *heap;
static size_t heap_n;

static void heap_down(size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap_n && heap[l].key > heap[m].key) m = l;
        if (r < heap_n && heap[r].key > heap[m].key) m = r;
        if (m == i) return;
        sdoc t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
}

static void heap_up(size_t i) {
    while (i > 0 && heap[(i - 1) / 2].key < heap[i].key) {
        sdoc t = heap[i]; heap[i] = heap[(i - 1) / 2]; heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static void sample_add(const char *label, uint64_t id, const char *text, size_t n) {
    uint8_t b[8];
    cal_st64(b, id);
    uint64_t key = cal_hash_seed(b, 8, opt.seed);
    if (heap_n == opt.sample) {
        if (opt.sample == 0 || key >= heap[0].key) return;
        free(heap[0].label), free(heap[0].text);
        heap[0] = heap[--heap_n];
        heap_down(0);
    }
    sdoc d = {key, id, cal_xstrdup(label), cal_xmalloc(n + 1), n};
    memcpy(d.text, text, n);
    heap[heap_n] = d;
    heap_up(heap_n++);
}

static int cmp_key(const void *a, const void *b) {
    const sdoc *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* ---- the last steps of every document ------------------------------------ */
/* ---- --join: every written document appended to one ----------------------- */
static cal_buf joined;
static char join_label[CAL_MAX_LABEL + 1];
static uint64_t joined_docs;

static void write_doc(const char *label, uint64_t id, const char *text, size_t n) {
    if (!opt.join) {
        cal_write_text(W, label, id, text, n);
        return;
    }
    if (joined_docs++) cal_buf_add(&joined, opt.join, strlen(opt.join));
    else snprintf(join_label, sizeof join_label, "%s", label);
    if (!n && opt.empty) cal_buf_add(&joined, opt.empty, strlen(opt.empty));
    else cal_buf_add(&joined, text, n);
}

static void write_joined(void) {
    if (opt.join && joined_docs)
        cal_write_text(W, join_label, cal_hash(joined.p ? joined.p : "", joined.n), joined.p ? joined.p : "", joined.n);
    cal_buf_free(&joined);
}

/* "\n\n" as written on the command line to the two newlines it means. */
static char *unescape(const char *opt_name, const char *v) {
    char *out = cal_xmalloc(strlen(v) + 1), *o = out;
    for (; *v; v++) {
        if (*v != '\\') { *o++ = *v; continue; }
        switch (*++v) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case '\\': *o++ = '\\'; break;
        default: {
            char c = *v ? *v : ' ';
            free(out);
            cal_usage_error("%s: unknown escape '\\%c' (\\n, \\t, \\r, \\\\)", opt_name, c);
        }
        }
    }
    *o = 0;
    return out;
}

static void output(const char *label, const char *text, size_t n) {
    uint64_t id = cal_hash(text, n);
    if (opt.dedup && dedup_seen(id)) { st.dups++; return; }
    if (opt.shard_n && id % opt.shard_n != opt.shard_i) { st.other_shard++; return; }
    if (opt.have_sample) { sample_add(label, id, text, n); return; }
    write_doc(label, id, text, n);
    st.docs++, st.bytes += n;
    cal_progress_tick(&P, st.docs, st.bytes);
    if (opt.max_docs && st.docs >= opt.max_docs) done = 1;
}

static size_t utf8_chars(const char *p, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += ((uint8_t)p[i] & 0xC0) != 0x80;
    return c;
}

/* Splits at most max_chars characters per piece, at the last newline or
 * space of the second half of the piece when there is one. */
static void length_rules(const char *label, const char *p, size_t n) {
    if (opt.max_chars && utf8_chars(p, n) > opt.max_chars) {
        while (n > 0 && !done) {
            size_t i = 0, c = 0, cut_nl = 0, cut_sp = 0;
            while (i < n && c < opt.max_chars) {
                size_t k = 1;
                while (i + k < n && ((uint8_t)p[i + k] & 0xC0) == 0x80) k++;
                i += k, c++;
                if (p[i - 1] == '\n' && c > opt.max_chars / 2) cut_nl = i;
                else if (p[i - 1] == ' ' && c > opt.max_chars / 2) cut_sp = i;
            }
            size_t cut = i;
            if (i < n) cut = cut_nl ? cut_nl : cut_sp ? cut_sp : i;
            st.split++;
            if (!opt.min_chars || utf8_chars(p, cut) >= opt.min_chars) output(label, p, cut);
            else st.short_docs++;
            p += cut, n -= cut;
        }
        st.split--;  /* count extra pieces, not pieces */
        return;
    }
    if (opt.min_chars && utf8_chars(p, n) < opt.min_chars) { st.short_docs++; return; }
    output(label, p, n);
}

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when invalid. */
static size_t utf8_seq(const uint8_t *p, size_t n) {
    uint8_t c = p[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;
    if (c < 0xE0) return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && p[1] < 0xA0) return 0;
        if (c == 0xED && p[1] >= 0xA0) return 0;
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && p[1] < 0x90) return 0;
        if (c == 0xF4 && p[1] >= 0x90) return 0;
        return 4;
    }
    return 0;
}

/* Text hygiene, then the length rules. mapped: byte i of the document is
 * byte off+i of the input (else errors name off, the record's offset). */
/* One piece (a document, or with --lines one of its lines): --drop-blank,
 * then the length rules. */
static void piece(const char *label, const char *text, size_t n) {
    if (opt.drop_blank && cal_utf8_py_isspace(text, n)) st.short_docs++;
    else length_rules(label, text, n);
}

/* --strip and --lines, then each piece. The peers that strip, split lines
 * or join keep the empty documents these leave (exllamav3 encodes an empty
 * line with BOS and EOS), so those are written too. */
static void pieces(const char *label, const char *text, size_t n) {
    if (opt.strip) {
        size_t a, b;
        cal_utf8_py_strip(text, n, &a, &b);
        text += a, n = b - a;
    }
    if (!opt.lines) {
        piece(label, text, n);
        return;
    }
    for (size_t i = 0; !done;) { /* text.split("\n") */
        const char *nl = memchr(text + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - text) : n;
        piece(label, text + i, end - i);
        if (!nl) break;
        i = end + 1;
    }
}

static void document(const char *name, const char *label, const char *text, size_t n,
                     uint64_t off, int mapped) {
    if (done || (n == 0 && !opt.join && !opt.lines && !opt.strip)) return;
    const uint8_t *p = (const uint8_t *)text;
    size_t i = 0;
    int clean = 1;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            /* no byte >= 0x80, no zero byte, no '\r' needing work */
            if (!(w & 0x8080808080808080ull) && !((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull)) {
                if (!opt.crlf || !memchr(p + i, '\r', 8)) { i += 8; continue; }
            }
        }
        size_t k = p[i] ? utf8_seq(p + i, n - i) : 0;
        if (k == 0 || (opt.crlf && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')) { clean = 0; break; }
        i += k;
    }
    if (!clean) {
        cal_buf *b = &tmp1;
        b->n = 0;
        cal_buf_add(b, p, i);
        while (i < n) {
            if (p[i] == 0) {
                if (opt.strict) cal_die_at(name, mapped ? off + i : off, "NUL byte in text");
                st.nuls++;
                cal_buf_add(b, "\xEF\xBF\xBD", 3);
                i++;
                continue;
            }
            if (opt.crlf && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') { i++; continue; }
            size_t k = utf8_seq(p + i, n - i);
            if (k == 0) {
                if (opt.strict) cal_die_at(name, mapped ? off + i : off, "invalid UTF-8");
                st.bad_utf8++;
                cal_buf_add(b, "\xEF\xBF\xBD", 3);
                i++;
                continue;
            }
            cal_buf_add(b, p + i, k);
            i += k;
        }
        text = b->p, n = b->n;
    }
    if (opt.nfc) {
        utf8proc_uint8_t *out = NULL;
        utf8proc_ssize_t r = utf8proc_map((const utf8proc_uint8_t *)text, (utf8proc_ssize_t)n, &out,
                                          UTF8PROC_STABLE | UTF8PROC_COMPOSE);
        if (r < 0) cal_die_at(name, off, "NFC normalization failed: %s", utf8proc_errmsg(r));
        tmp2.n = 0;
        cal_buf_add(&tmp2, out, (size_t)r);
        free(out);
        text = tmp2.p, n = tmp2.n;
    }
    pieces(label, text, n);
}

/* Trims surrounding whitespace (mapped offsets follow). */
static void document_trim(const char *name, const char *label, const char *t, size_t n, uint64_t off) {
    size_t a = 0;
    while (a < n && (t[a] == ' ' || t[a] == '\n' || t[a] == '\r' || t[a] == '\t')) a++;
    while (n > a && (t[n - 1] == ' ' || t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == '\t')) n--;
    document(name, label, t + a, n - a, off + a, 1);
}

/* ---- text layouts ----------------------------------------------------------- */
static int blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
    return 1;
}

static void read_whole(cal_insrc *s, const char *label) {
    cal_buf b = {0};
    const uint8_t *p;
    size_t n;
    uint64_t off = cal_insrc_skip_bom(s) ? 3 : 0;
    while ((n = cal_insrc_chunk(s, &p)) > 0) cal_buf_add(&b, p, n);
    document(cal_insrc_name(s), label, b.p, b.n, off, 1);
    cal_buf_free(&b);
}

static void read_lines(cal_insrc *s, const char *label, int fmt) {
    cal_buf line = {0}, doc = {0};
    uint64_t off = 0, doc_off = 0;
    const char *name = cal_insrc_name(s);
    int in_doc = 0;
    while (!done && cal_insrc_line(s, &line, &off)) {
        const char *p = line.p;
        size_t n = line.n;
        if (fmt == F_LINES) {
            if (!blank(p, n)) document(name, label, p, n, off, 1);
        } else if (fmt == F_PARA) {
            if (blank(p, n)) {
                if (doc.n) document_trim(name, label, doc.p, doc.n, doc_off);
                doc.n = 0;
            } else {
                if (!doc.n) doc_off = off;
                else cal_buf_addc(&doc, '\n');
                cal_buf_add(&doc, p, n);
            }
        } else if (fmt == F_WIKIEX) {
            if (n >= 5 && memcmp(p, "<doc ", 5) == 0 && n && p[n - 1] == '>') {
                in_doc = 1, doc.n = 0, doc_off = off + n + 1;
            } else if (n >= 6 && memcmp(p, "</doc>", 6) == 0) {
                if (in_doc) document_trim(name, label, doc.p, doc.n, doc_off);
                in_doc = 0, doc.n = 0;
            } else if (in_doc) {
                cal_buf_add(&doc, p, n);
                cal_buf_addc(&doc, '\n');
            }
        } else { /* wikitext: " = Title = " starts an article */
            int title = n >= 5 && p[0] == ' ' && p[1] == '=' && p[2] == ' ' && p[3] != '=' &&
                        ((n >= 4 && memcmp(p + n - 3, " = ", 3) == 0) || memcmp(p + n - 2, " =", 2) == 0);
            if (title) {
                if (doc.n) document_trim(name, label, doc.p, doc.n, doc_off);
                doc.n = 0, doc_off = off;
            }
            if (doc.n || !blank(p, n)) {
                if (!doc.n) doc_off = off;
                cal_buf_add(&doc, p, n);
                cal_buf_addc(&doc, '\n');
            }
        }
    }
    if (doc.n && fmt != F_WIKIEX) document_trim(name, label, doc.p, doc.n, doc_off);
    cal_buf_free(&line), cal_buf_free(&doc);
}

static void read_sep(cal_insrc *s, const char *label) {
    const char *sep = opt.sep;
    size_t sl = strlen(sep), scan = 0;
    cal_buf b = {0};
    uint64_t b_off = cal_insrc_offset(s);
    const uint8_t *p;
    size_t n;
    int end = 0;
    while (!done && !end) {
        n = cal_insrc_chunk(s, &p);
        if (n == 0) end = 1;
        else cal_buf_add(&b, p, n);
        size_t start = 0;
        for (size_t i = scan; i + sl <= b.n;) {
            const char *hit = memchr(b.p + i, sep[0], b.n - sl + 1 - i);
            if (!hit) break;
            i = (size_t)(hit - b.p);
            if (memcmp(hit, sep, sl) == 0) {
                document_trim(cal_insrc_name(s), label, b.p + start, i - start, b_off + start);
                start = i + sl;
                i += sl;
            } else i++;
        }
        if (end) document_trim(cal_insrc_name(s), label, b.p + start, b.n - start, b_off + start);
        memmove(b.p, b.p + start, b.n - start);
        b.n -= start, b_off += start;
        scan = b.n >= sl ? b.n - sl + 1 : 0;
    }
    cal_buf_free(&b);
}

/* ---- JSON Lines -------------------------------------------------------------- */
static json_t *json_path(json_t *v, const char *path) {
    char part[256];
    while (v && *path) {
        size_t k = strcspn(path, ".");
        if (k >= sizeof part) return NULL;
        memcpy(part, path, k);
        part[k] = 0;
        path += k + (path[k] == '.');
        if (json_is_object(v)) v = json_object_get(v, part);
        else if (json_is_array(v)) {
            char *e;
            unsigned long i = strtoul(part, &e, 10);
            v = (*part && !*e) ? json_array_get(v, i) : NULL;
        } else return NULL;
    }
    return v;
}

/* Text of a message content: a string, or a list of {type, text} parts. */
static int content_text(json_t *c, cal_buf *b) {
    if (json_is_string(c)) { cal_buf_add(b, json_string_value(c), json_string_length(c)); return 1; }
    if (!json_is_array(c)) return 0;
    size_t i;
    json_t *x;
    json_array_foreach(c, i, x) {
        json_t *t = json_is_object(x) ? json_object_get(x, "text") : x;
        if (json_is_string(t)) cal_buf_add(b, json_string_value(t), json_string_length(t));
    }
    return 1;
}

/* Flattens a chat (see man page: plain, chatml, llama3). */
static int flatten_chat(json_t *msgs, cal_buf *b) {
    size_t i;
    json_t *m;
    b->n = 0;
    json_array_foreach(msgs, i, m) {
        json_t *r = json_object_get(m, "role"), *c = json_object_get(m, "content");
        if (!r && !c) r = json_object_get(m, "from"), c = json_object_get(m, "value");
        if (!json_is_string(r)) return 0;
        const char *role = json_string_value(r);
        if (strcmp(role, "human") == 0) role = "user";
        else if (strcmp(role, "gpt") == 0) role = "assistant";
        if (opt.template == T_CHATML) cal_buf_addf(b, "<|im_start|>%s\n", role);
        else if (opt.template == T_LLAMA3) cal_buf_addf(b, "<|start_header_id|>%s<|end_header_id|>\n\n", role);
        else {
            if (i) cal_buf_add(b, "\n\n", 2);
            cal_buf_addf(b, "%c%s: ", role[0] >= 'a' && role[0] <= 'z' ? role[0] - 32 : role[0], role + (role[0] != 0));
        }
        if (c && !json_is_null(c) && !content_text(c, b)) return 0;
        if (opt.template == T_CHATML) cal_buf_add(b, "<|im_end|>\n", 11);
        else if (opt.template == T_LLAMA3) cal_buf_add(b, "<|eot_id|>", 10);
    }
    return 1;
}

static void read_jsonl(cal_insrc *s, const char *label) {
    cal_buf line = {0}, chat = {0}, str = {0};
    uint64_t off = 0;
    const char *name = cal_insrc_name(s);
    cal_insrc_skip_bom(s);
    int chat_field = strcmp(opt.field, "messages") == 0 || strcmp(opt.field, "conversations") == 0;
    int fast = !chat_field && !strchr(opt.field, '.');
    while (!done && cal_insrc_line(s, &line, &off)) {
        if (fast && cal_json_field(line.p, line.n, opt.field, &str)) {
            document(name, label, str.p ? str.p : "", str.n, off, 0);
            continue;
        }
        if (blank(line.p, line.n)) continue;
        json_error_t e;
        json_t *root = json_loadb(line.p, line.n, JSON_ALLOW_NUL | JSON_DECODE_ANY, &e);
        if (!root) cal_die_at(name, off + (uint64_t)(e.position > 0 ? e.position : 0), "invalid JSON: %s", e.text);
        json_t *v = json_is_string(root) ? root : json_path(root, opt.field);
        if (!v && !chat_field && json_is_object(root)) {
            v = json_object_get(root, "messages");
            if (!v) v = json_object_get(root, "conversations");
        }
        if (json_is_string(v)) {
            document(name, label, json_string_value(v), json_string_length(v), off, 0);
        } else if (json_is_array(v) && (chat_field || !json_path(root, opt.field))) {
            if (!flatten_chat(v, &chat)) cal_die_at(name, off, "chat record without role/content strings");
            document(name, label, chat.p, chat.n, off, 0);
        } else if (json_is_null(v)) {
            st.nulls++;
        } else {
            cal_die_at(name, off, v ? "field '%s' is not a string" : "no field '%s' (and no chat 'messages')", opt.field);
        }
        json_decref(root);
    }
    cal_buf_free(&line), cal_buf_free(&chat), cal_buf_free(&str);
}

/* ---- Parquet ------------------------------------------------------------------ */
static void read_parquet(const char *path, const char *label) {
    char err[512];
    if (strcmp(path, "-") == 0) cal_die("stdin: Parquet input must be a file, not a pipe");
    cal_pq *q = cal_pq_open(path, opt.field, err, sizeof err);
    if (!q) cal_die("%s: %s", path, err);
    const uint8_t *p;
    size_t n;
    uint64_t off;
    int r;
    while (!done && (r = cal_pq_next(q, &p, &n, &off, err, sizeof err)) == 1)
        document(path, label, (const char *)p, n, off, 0);
    if (!done && r < 0) cal_die("%s: %s", path, err);
    st.nulls += cal_pq_nulls(q);
    cal_pq_close(q);
}

/* ---- sources ------------------------------------------------------------------- */
static int has_suffix(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n >= k && strncmp(s + n - k, suf, k) == 0;
}

/* Base name without compression and format extensions. */
static void base_label(const char *path, char *out, size_t cap) {
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/') end--;  /* "data/" -> "data" */
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    const char *b = path + start;
    size_t n = end - start;
    static const char *const ext[] = {".gz", ".gzip", ".zst", ".zstd", ".jsonl", ".json", ".ndjson",
                                      ".parquet", ".pq", ".txt", ".raw", ".tokens", ".text"};
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
            if (n > strlen(ext[i]) && has_suffix(b, n, ext[i])) { n -= strlen(ext[i]); again = 1; }
    }
    if (n > CAL_MAX_LABEL) n = CAL_MAX_LABEL;
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = 0;
}

static int format_from_name(const char *path) {
    size_t n = strlen(path);
    const char *cz[] = {".gz", ".gzip", ".zst", ".zstd"};
    for (int i = 0; i < 4; i++)
        if (has_suffix(path, n, cz[i])) { n -= strlen(cz[i]); break; }
    if (has_suffix(path, n, ".parquet") || has_suffix(path, n, ".pq")) return F_PARQUET;
    if (has_suffix(path, n, ".jsonl") || has_suffix(path, n, ".json") || has_suffix(path, n, ".ndjson"))
        return F_JSONL;
    return F_AUTO;
}

static int format_from_content(const uint8_t *p, size_t n) {
    if (n >= 4 && memcmp(p, "PAR1", 4) == 0) return F_PARQUET;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3, n -= 3;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i < n && p[i] == '{') return F_JSONL;
    if (n >= 5 && memcmp(p, "<doc ", 5) == 0) return F_WIKIEX;
    /* wikitext-2 raw: the first non-blank line is " = Title = " */
    size_t a = 0;
    while (a < n && (p[a] == '\n' || (p[a] == ' ' && a + 1 < n && p[a + 1] == '\n'))) a++;
    if (a + 4 < n && p[a] == ' ' && p[a + 1] == '=' && p[a + 2] == ' ' && p[a + 3] != '=') return F_WIKITEXT;
    return opt.sep ? F_SEP : F_TEXT;
}

static void read_file(const char *path, const char *label) {
    int fmt = opt.format;
    if (fmt == F_AUTO) fmt = format_from_name(path);
    if ((fmt == F_AUTO || fmt == F_TEXT) && opt.sep) fmt = F_SEP;
    st.sources++;
    if (fmt == F_PARQUET) { read_parquet(path, label); return; }
    cal_insrc *s = cal_insrc_open(path);
    if (fmt == F_AUTO) {
        const uint8_t *p;
        size_t n = cal_insrc_peek(s, &p, 4096);
        fmt = format_from_content(p, n);
        if (fmt == F_PARQUET) {
            if (strcmp(cal_insrc_codec(s), "none") != 0) cal_die("%s: compressed Parquet files are not supported", path);
            cal_insrc_close(s);
            read_parquet(path, label);
            return;
        }
    }
    if (fmt == F_TEXT) read_whole(s, label);
    else if (fmt == F_JSONL) read_jsonl(s, label);
    else if (fmt == F_SEP) { cal_insrc_skip_bom(s); read_sep(s, label); }
    else { cal_insrc_skip_bom(s); read_lines(s, label, fmt); }
    cal_insrc_close(s);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void read_path(const char *path, const char *label);

static void read_dir(const char *path, const char *label) {
    DIR *d = opendir(path);
    if (!d) cal_die("%s: %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) names = cal_xrealloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        names[n++] = cal_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n && !done; i++) {
        cal_buf p = {0};
        cal_buf_addf(&p, "%s/%s", path, names[i]);
        read_path(p.p, label);
        cal_buf_free(&p);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}

static void read_path(const char *path, const char *label) {
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) read_dir(path, label);
    else read_file(path, label);
}

static const char *corpus_canon(const char *name) {
    for (size_t i = 0; i < N_CORPORA; i++)
        if (strcmp(name, CORPORA[i][0]) == 0) return CORPORA[i][1];
    return NULL;
}

/* Path of the built corpus file, or NULL (with the places looked at). */
static char *corpus_file(const char *canon, cal_buf *looked) {
    char **dirs = cal_data_dirs("corpora", "CAL_CORPORA");
    for (size_t i = 0; dirs[i]; i++) {
        cal_buf p = {0};
        cal_buf_addf(&p, "%s/%s.jsonl.zst", dirs[i], canon);
        if (access(p.p, R_OK) == 0) {
            cal_data_dirs_free(dirs);
            return p.p;
        }
        cal_buf_free(&p);
        if (looked) cal_buf_addf(looked, "%s%s", i ? ", " : "", dirs[i]);
    }
    cal_data_dirs_free(dirs);
    return NULL;
}

static void read_source(const char *src) {
    struct stat sb;
    const char *canon = corpus_canon(src);
    if (canon && stat(src, &sb) != 0) {
        cal_buf looked = {0};
        char *f = corpus_file(canon, &looked);
        if (!f) cal_die("corpus '%s' is not built (looked in %s): run 'make corpora'", src, looked.p);
        int ofmt = opt.format;
        const char *ofield = opt.field;
        opt.format = F_JSONL, opt.field = "text";
        read_file(f, opt.label ? opt.label : src);
        opt.format = ofmt, opt.field = ofield;
        free(f);
        cal_buf_free(&looked);
        return;
    }
    if (strcmp(src, "-") != 0 && stat(src, &sb) != 0) {
        if (!strchr(src, '/') && !strchr(src, '.'))
            cal_die("%s: no such file, and not a built-in corpus (wiki, web, c4, code, stories, tiny, multilingual, technical)", src);
        cal_die("%s: %s", src, strerror(errno));
    }
    char label[CAL_MAX_LABEL + 1];
    if (opt.label) snprintf(label, sizeof label, "%s", opt.label);
    else if (strcmp(src, "-") == 0) snprintf(label, sizeof label, "stdin");
    else base_label(src, label, sizeof label);
    read_path(src, label);
}

static void list_corpora(void) {
    printf("%-13s %-9s %9s %12s  %s\n", "NAME", "ALIAS", "DOCS", "BYTES", "SOURCES");
    const char *names[] = {"wiki", "web", "code", "stories", "multilingual", "technical"};
    const char *alias[] = {"", "c4", "", "tiny", "", ""};
    for (int i = 0; i < 6; i++) {
        char *f = corpus_file(names[i], NULL);
        char docs[32] = "-", bytes[32] = "-", srcs[1024] = "not built (run 'make corpora')";
        if (f) {
            char idx[4200];
            snprintf(idx, sizeof idx, "%.*s/index.tsv", (int)(strrchr(f, '/') - f), f);
            FILE *fp = fopen(idx, "r");
            char line[2048];
            snprintf(srcs, sizeof srcs, "%s", f);
            while (fp && fgets(line, sizeof line, fp)) {
                char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL,
                     *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;
                if (!t3 || (size_t)(t1 - line) != strlen(names[i]) || strncmp(line, names[i], (size_t)(t1 - line)))
                    continue;
                *t1 = *t2 = *t3 = 0;
                line[strcspn(line, "\n")] = 0;
                t3[1 + strcspn(t3 + 1, "\n")] = 0;
                snprintf(docs, sizeof docs, "%s", t1 + 1);
                snprintf(bytes, sizeof bytes, "%s", t2 + 1);
                snprintf(srcs, sizeof srcs, "%s", t3 + 1);
            }
            if (fp) fclose(fp);
            free(f);
        }
        printf("%-13s %-9s %9s %12s  %s\n", names[i], alias[i], docs, bytes, srcs);
    }
}

/* ---- main ------------------------------------------------------------------ */
static const char *need(int argc, char **argv, int *i, const char *o) {
    const char *eq = strchr(argv[*i], '=');
    if (argv[*i][1] == '-' && eq) return eq + 1;
    if (*i + 1 >= argc) cal_usage_error("option %s needs a value", o);
    return argv[++*i];
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    const char **srcs = cal_xmalloc(sizeof *srcs * (size_t)(argc + 1));
    int nsrc = 0, list = 0, only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t al = strcspn(a, "=");
#define IS(s) (strlen(s) == al && strncmp(a, s, al) == 0)
        if (only || a[0] != '-' || strcmp(a, "-") == 0) srcs[nsrc++] = a;
        else if (strcmp(a, "--") == 0) only = 1;
        else if (IS("-h") || IS("--help")) { fputs(USAGE, stdout); free(srcs); return 0; }
        else if (IS("--version")) { free(srcs); cal_print_version(); }
        else if (IS("-f") || IS("--format")) {
            const char *v = need(argc, argv, &i, "--format");
            opt.format = -1;
            for (int k = 1; k < (int)(sizeof FMT_NAMES / sizeof *FMT_NAMES); k++)
                if (strcmp(v, FMT_NAMES[k]) == 0 && k != F_SEP) opt.format = k;
            if (opt.format < 0) cal_usage_error("unknown format '%s'", v);
        } else if (IS("--sep")) {
            opt.sep = need(argc, argv, &i, "--sep");
            if (!*opt.sep) cal_usage_error("--sep needs a non-empty separator");
        } else if (IS("--field")) {
            opt.field = need(argc, argv, &i, "--field");
            if (!*opt.field) cal_usage_error("--field needs a name");
        } else if (IS("--template")) {
            const char *v = need(argc, argv, &i, "--template");
            if (strcmp(v, "plain") == 0) opt.template = T_PLAIN;
            else if (strcmp(v, "chatml") == 0) opt.template = T_CHATML;
            else if (strcmp(v, "llama3") == 0) opt.template = T_LLAMA3;
            else cal_usage_error("unknown template '%s' (plain, chatml, llama3)", v);
        } else if (IS("-o") || IS("--output")) opt.output = need(argc, argv, &i, "--output");
        else if (IS("-L") || IS("--label")) {
            opt.label = need(argc, argv, &i, "--label");
            if (strlen(opt.label) > CAL_MAX_LABEL) cal_usage_error("--label longer than %u bytes", CAL_MAX_LABEL);
        } else if (IS("--min-chars")) opt.min_chars = cal_parse_u64("--min-chars", need(argc, argv, &i, "--min-chars"), 0, UINT64_MAX);
        else if (IS("--max-chars")) opt.max_chars = cal_parse_u64("--max-chars", need(argc, argv, &i, "--max-chars"), 1, UINT64_MAX);
        else if (IS("-n") || IS("--max-docs")) opt.max_docs = cal_parse_u64("--max-docs", need(argc, argv, &i, "--max-docs"), 1, UINT64_MAX);
        else if (IS("--dedup")) opt.dedup = 1;
        else if (IS("--shard")) {
            const char *v = need(argc, argv, &i, "--shard");
            const char *sl = strchr(v, '/');
            if (!sl) cal_usage_error("--shard wants I/N, e.g. 0/4");
            char ib[32];
            snprintf(ib, sizeof ib, "%.*s", (int)(sl - v < 31 ? sl - v : 31), v);
            opt.shard_n = cal_parse_u64("--shard", sl + 1, 1, UINT32_MAX);
            opt.shard_i = cal_parse_u64("--shard", ib, 0, opt.shard_n - 1);
        } else if (IS("--sample")) {
            opt.sample = cal_parse_u64("--sample", need(argc, argv, &i, "--sample"), 0, 100000000);
            opt.have_sample = 1;
        } else if (IS("--seed")) {
            opt.seed = cal_parse_u64("--seed", need(argc, argv, &i, "--seed"), 0, UINT64_MAX);
            opt.have_seed = 1;
        } else if (IS("--strict")) opt.strict = 1;
        else if (IS("--crlf")) opt.crlf = 1;
        else if (IS("--nfc")) opt.nfc = 1;
        else if (IS("--strip")) opt.strip = 1;
        else if (IS("--lines")) opt.lines = 1;
        else if (IS("--drop-blank")) opt.drop_blank = 1;
        else if (IS("--join")) free(opt.join), opt.join = unescape("--join", need(argc, argv, &i, "--join"));
        else if (IS("--empty")) free(opt.empty), opt.empty = unescape("--empty", need(argc, argv, &i, "--empty"));
        else if (IS("--list")) list = 1;
        else if (IS("-v") || IS("--verbose")) opt.verbose = 1;
        else if (IS("--progress")) opt.progress = 1;
        else cal_usage_error("unknown option '%s'", a);
#undef IS
    }
    if (list) { free(srcs); list_corpora(); return 0; }
    if (nsrc == 0) cal_usage_error("no SOURCE given (a corpus name, file, directory or -)");
    if (opt.have_seed && !opt.have_sample) cal_usage_error("--seed goes with --sample");
    if (opt.template != T_PLAIN && opt.format == F_PARQUET) cal_usage_error("--template applies to JSON chat records");
    if (opt.empty && !opt.join) cal_usage_error("--empty goes with --join");

    W = cal_writer_open(opt.output);
    char extra[128] = "";
    if (opt.have_sample && !opt.have_seed) snprintf(extra, sizeof extra, "--seed 0");
    cal_meta_add_stage(cal_writer_meta(W), argc, argv, *extra ? extra : NULL);
    if (opt.have_sample) heap = cal_xmalloc(sizeof *heap * (size_t)(opt.sample + 1));
    cal_progress_init(&P, opt.progress);
    double t0 = cal_now();
    for (int i = 0; i < nsrc && !done; i++) read_source(srcs[i]);
    if (opt.have_sample) {
        qsort(heap, heap_n, sizeof *heap, cmp_key);
        for (size_t i = 0; i < heap_n; i++) {
            if (!opt.max_docs || st.docs < opt.max_docs) {
                write_doc(heap[i].label, heap[i].id, heap[i].text, heap[i].n);
                st.docs++, st.bytes += heap[i].n;
            }
            free(heap[i].label), free(heap[i].text);
        }
        free(heap);
    }
    write_joined();
    cal_writer_close(W);
    cal_progress_done(&P);
    if (opt.verbose)
        fprintf(stderr,
                "%s: %llu documents, %llu bytes from %llu files in %.2fs; skipped %llu short, %llu duplicate, "
                "%llu other-shard; %llu split; %llu nulls; %llu invalid UTF-8 and %llu NUL bytes replaced\n",
                cal_progname(), (unsigned long long)st.docs, (unsigned long long)st.bytes,
                (unsigned long long)st.sources, cal_now() - t0, (unsigned long long)st.short_docs,
                (unsigned long long)st.dups, (unsigned long long)st.other_shard,
                (unsigned long long)st.split, (unsigned long long)st.nulls,
                (unsigned long long)st.bad_utf8, (unsigned long long)st.nuls);
    cal_buf_free(&tmp1), cal_buf_free(&tmp2);
    free(opt.join), free(opt.empty);
    free(dset);
    free(srcs);
    return 0;
}
