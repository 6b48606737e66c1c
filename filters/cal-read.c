/* cal-read - turns text, JSON Lines, Parquet files and the built-in corpora
 * into a cal-stream of TEXT records (see man/cal-read.1). The mechanisms are
 * in lib/text: sources and corpora, formats, document splitting, JSON Lines
 * and chats, hygiene, lengths, dedup, shards and samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/modelfile.h"
#include "base/num.h"
#include "base/opt.h"
#include "base/progress.h"
#include "stream/drops.h"
#include "stream/stream.h"
#include "text/chat.h"
#include "text/chat_render.h"
#include "text/corpus.h"
#include "text/dedup.h"
#include "text/docfile.h"
#include "text/fieldfmt.h"
#include "text/format.h"
#include "text/hygiene.h"
#include "text/length.h"
#include "text/pystr.h"
#include "text/sample.h"
#include "text/source.h"

enum { O_SEP = 256, O_FIELD, O_TEMPLATE, O_MIN, O_MAX, O_DEDUP, O_SHARD, O_SAMPLE, O_SEED, O_STRICT, O_CRLF, O_NFC,
       O_STRIP, O_LINES, O_DROP_BLANK, O_JOIN, O_EMPTY, O_LIST, O_PROGRESS, O_CHAT, O_CHAT_NAME, O_GEN_PROMPT,
       O_DATE, O_SKIP_BAD, O_MISSING, O_CHAT_VAR, O_AS_USER, O_SYSTEM, O_RETRY_NO_SYSTEM, O_ASSISTANT_MASK,
       O_FOLLOW_LINKS };
static const cal_opt opts[] = {
    {'f', "format", "FMT", CAL_STAGE,
     "text (whole file), lines, paragraphs, wikiextractor,\nwikitext, jsonl, json, csv, tsv, parquet (default:\nfrom the name and the first bytes)",
     0},
    {0, "sep", "STR", CAL_STAGE, "text documents separated by the literal STR", O_SEP},
    {0, "field", "PATH", CAL_STAGE,
     "JSON/Parquet field of the text, dotted (default text);\nwith braces a template of fields, e.g.\n'{instruction}\\n\\n{input}\\n\\n{output}'",
     O_FIELD},
    {0, "missing", "M", CAL_STAGE, "a missing or null template field: error or empty\n(default error)", O_MISSING},
    {0, "template", "T", CAL_STAGE, "chat records: plain, chatml, llama3 (default plain)", O_TEMPLATE},
    {0, "chat", "MODEL", CAL_STAGE, "chat records rendered with MODEL's chat template, as\n"
     "apply_chat_template does: a model folder, a\ntokenizer_config.json, a .jinja file or a fetched name", O_CHAT},
    {0, "chat-template-name", "NAME", CAL_STAGE, "the named template of a model that has several\n"
     "(default: default, or tool_use for records with tools)", O_CHAT_NAME},
    {0, "add-generation-prompt", NULL, CAL_STAGE, "--chat: end with the assistant's turn header", O_GEN_PROMPT},
    {0, "date", "YYYY-MM-DD", CAL_STAGE, "--chat: the date of strftime_now (default: today)", O_DATE},
    {0, "skip-bad", NULL, CAL_STAGE, "--chat: skip (and count) records the template refuses", O_SKIP_BAD},
    {0, "as-user", NULL, CAL_STAGE, "--chat: each text document is a user turn (auto-round's\n"
     "apply_chat_template_to_samples); chat records stay chats", O_AS_USER},
    {0, "system", "TEXT", CAL_STAGE, "--chat: a system turn TEXT first (also '': llm-compressor's\n"
     "ultrachat), unless a conversation starts with one", O_SYSTEM},
    {0, "retry-without-system", NULL, CAL_STAGE, "--chat: a conversation the template refuses is rendered\n"
     "again without its system turns (auto-round; counted)", O_RETRY_NO_SYSTEM},
    {0, "assistant-mask", NULL, CAL_STAGE, "--chat: records carry the spans of the assistant's\n"
     "output ({% generation %} blocks, else its turns), for\nlabels and loss masks downstream", O_ASSISTANT_MASK},
    {0, "chat-var", "KEY=JSON", CAL_STAGE, "--chat: one more template variable, as a keyword\nargument of apply_chat_template (repeatable), e.g.\nenable_thinking=false", O_CHAT_VAR},
    {0, "follow-links", NULL, CAL_STAGE, "--chat: read a model folder's files through links\nthat lead out of it (see MODEL FOLDERS)", O_FOLLOW_LINKS},
    {'o', "output", "FILE", 0, "write to FILE (atomically) instead of stdout", 0},
    {'L', "label", "NAME", CAL_STAGE, "record label (default: corpus or file base name)", 0},
    {0, "min-chars", "N", CAL_STAGE, "skip documents shorter than N characters", O_MIN},
    {0, "max-chars", "N", CAL_STAGE, "split documents longer than N characters", O_MAX},
    {'n', "max-docs", "N", CAL_STAGE, "stop after N documents", 0},
    {0, "dedup", NULL, CAL_STAGE, "drop exact duplicates across all sources", O_DEDUP},
    {0, "shard", "I/N", CAL_STAGE, "keep only shard I (0..N-1) of N, by document id", O_SHARD},
    {0, "sample", "N", CAL_STAGE, "keep a seeded uniform sample of N documents", O_SAMPLE},
    {0, "seed", "S", CAL_STAGE, "seed of --sample (default 0)", O_SEED},
    {0, "strict", NULL, CAL_STAGE, "invalid UTF-8 is an error, not U+FFFD", O_STRICT},
    {0, "crlf", NULL, CAL_STAGE, "turn CRLF line ends into LF", O_CRLF},
    {0, "nfc", NULL, CAL_STAGE, "normalize text to Unicode NFC", O_NFC},
    {0, "strip", NULL, CAL_STAGE, "strip surrounding whitespace as Python's str.strip()", O_STRIP},
    {0, "lines", NULL, CAL_STAGE,
     "each line of each document is a document (text.split\non newlines; empty lines kept)", O_LINES},
    {0, "drop-blank", NULL, CAL_STAGE, "skip documents of only whitespace (not empty ones)", O_DROP_BLANK},
    {0, "join", "SEP", CAL_STAGE,
     "join all documents (empty ones too) into one, separated\nby SEP (\\n, \\t, \\r and \\\\ understood)", O_JOIN},
    {0, "empty", "STR", CAL_STAGE, "with --join: an empty document joins as STR", O_EMPTY},
    {0, "list", NULL, 0, "list the built-in corpora and exit", O_LIST},
    {'v', "verbose", NULL, 0, "print a summary on stderr", 0},
    {0, "progress", NULL, 0, "show progress on stderr", O_PROGRESS},
    {0},
};
static const cal_prog prog = {
    "cal-read [OPTION]... SOURCE...\ncal-read --list",
    "Reads documents and writes a cal-stream of TEXT records to stdout.\n"
    "SOURCE is a built-in corpus (foldoc|wiki, prose|web|c4|pile, code, stories|tiny,\n"
    "multilingual, technical), a file, a directory (files in sorted order) or -\n"
    "for stdin. gzip, zstd, xz and bzip2 compression is detected and removed; an\n"
    "input that is not text (an image, an archive, binary data) is refused unless\n"
    "-f is given.",
    opts, NULL};

static struct {
    int format, dedup, sampling, strip, lines, drop_blank;
    const char *field;
    uint64_t min_chars, max_chars, max_docs, shard_i, shard_n;
} opt = {.field = "text"};

static struct {
    uint64_t docs, bytes, other_shard, split, empty;
} st;
static cal_drops drops; /* said on stderr and recorded in the stream's trailer */
static char why_min[64];

static cal_writer *W;
static cal_progress P;
static cal_docfile F = {.max = CAL_MAX_PAYLOAD};
static cal_hygiene H;
static cal_dedup D;
static cal_sample S;
static cal_join J = {.max = CAL_MAX_PAYLOAD}; /* --join */
static unsigned join_flags = ~0u;             /* the joined text is chat only if every part is */
static cal_chat_spec chat;
static const char **chat_vars; /* --chat-var, in order */
static struct tm date;
static const cal_chat_render *R; /* --chat */
static int as_user;               /* --as-user */
static int assistant_mask;        /* --assistant-mask */
static cal_buf rendered;          /* a text as a user turn */
static const char *label; /* of the source being read */
static int done;          /* -n reached */

static const cal_doc *cur_doc; /* --assistant-mask: the document whose spans the text has */

static void write_doc(const char *lab, uint64_t id, const char *p, size_t n, unsigned flags) {
    if (assistant_mask && (flags & CAL_TEXT_CHAT)) /* the spans of the rendered conversation (none: --as-user) */
        cal_write_text_spans(W, lab, id, p, n, flags, cur_doc && cur_doc->spans ? cur_doc->spans : NULL,
                             cur_doc ? cur_doc->nspans : 0);
    else if (!J.sep) cal_write_text_flags(W, lab, id, p, n, flags);
    else if (join_flags &= flags, cal_join_add(&J, lab, p, n) < 0)
        cal_die("--join: the joined text exceeds the record limit (%u bytes)", CAL_MAX_PAYLOAD);
    st.docs++, st.bytes += n;
    if (opt.max_docs && st.docs >= opt.max_docs) done = 1;
}

/* The last steps of every piece: the record limit, dedup, shard, sample. */
static void keep(const cal_doc *d, const char *p, size_t n) {
    int chat = d->chat;
    if (as_user && !chat) { /* --as-user: the text as a user turn */
        char err[400];
        int k = cal_chat_render_user(R, p, n, &rendered, err, sizeof err);
        if (k < 0 && !F.skip_bad) cal_die_at(d->file, d->off, "--as-user: the chat template refused the text: %s", err);
        if (k < 0) {
            F.bad++;
            if (!F.first_bad[0][0]) snprintf(F.first_bad[0], sizeof F.first_bad[0], "%s: byte %llu: %s", d->file,
                                             (unsigned long long)d->off, err);
            return;
        }
        F.json.retried += k == 1;
        p = rendered.p ? rendered.p : "", n = rendered.n, chat = 1;
        cur_doc = NULL; /* a user turn: no assistant output */
    } else {
        cur_doc = d;
        if (assistant_mask && (p != d->text || n != d->n)) cal_die("internal error: --assistant-mask on a changed text");
    }
    if (n > CAL_MAX_PAYLOAD)
        cal_die_at(d->file, d->off, "a document of %zu bytes exceeds the record limit (%u bytes)", n, CAL_MAX_PAYLOAD);
    uint64_t id = cal_hash(p, n);
    if (opt.dedup && cal_dedup_seen(&D, id)) {
        cal_drops_note(&drops, "documents", "dropped by --dedup (exact duplicates)", 1, n, "bytes");
    } else if (!cal_shard_keeps(id, opt.shard_i, opt.shard_n)) {
        st.other_shard++;
    } else if (opt.sampling) {
        cal_sample_add(&S, label, id, p, n, chat ? CAL_TEXT_CHAT : 0);
    } else {
        write_doc(label, id, p, n, chat ? CAL_TEXT_CHAT : 0);
        cal_progress_tick(&P, st.docs, st.bytes);
    }
}

/* A document or, with --lines, one of its lines: --drop-blank, then cut
 * into pieces of --max-chars. An empty one (only --strip, --lines and --join
 * let one through) is kept as the peers keep it, unless --min-chars. */
static void piece(const cal_doc *d, const char *p, size_t n) {
    if (opt.drop_blank && cal_py_isspace(p, n)) {
        cal_drops_note(&drops, "documents", "dropped by --drop-blank (only whitespace)", 1, n, "bytes");
        return;
    }
    if (n == 0) {
        if (opt.min_chars) cal_drops_note(&drops, "documents", why_min, 1, 0, "bytes");
        else keep(d, "", 0);
        return;
    }
    size_t pieces = 0;
    for (size_t cut; n > 0 && !done; p += cut, n -= cut, pieces++) {
        cut = cal_text_piece(p, n, opt.max_chars);
        if (opt.min_chars && cal_text_chars(p, cut) < opt.min_chars)
            cal_drops_note(&drops, "documents", why_min, 1, cut, "bytes");
        else keep(d, p, cut);
    }
    if (pieces) st.split += pieces - 1;
}

/* Every document: hygiene, --strip, then each line (--lines) or the whole. */
static int on_doc(void *ctx, const cal_doc *d) {
    (void)ctx;
    if (done) return done;
    if (d->n == 0 && !opt.strip && !opt.lines && !J.sep) { /* counted in one shard only: the empty text's */
        st.empty += cal_shard_keeps(cal_hash("", 0), opt.shard_i, opt.shard_n);
        return 0;
    }
    if (R && !as_user && !d->chat) { /* --chat: text that is not a conversation (a text file, a string column) */
        static const char why[] = "--chat: a text document, not a conversation record (--as-user renders text as a user turn)";
        if (!F.skip_bad) cal_die_at(d->file, d->off, "%s", why);
        if (!F.nochat++) snprintf(F.first_bad[1], sizeof F.first_bad[1], "%s: byte %llu: %s", d->file, (unsigned long long)d->off, why);
        return 0;
    }
    size_t n;
    const char *p = cal_hygiene_apply(&H, d, &n);
    if (opt.strip) {
        size_t a, b;
        cal_py_strip(p, n, &a, &b);
        p += a, n = b - a;
    }
    for (size_t len; !done; p += len + 1, n -= len + 1) {
        len = opt.lines ? cal_py_line(p, n) : n;
        piece(d, p, len);
        if (len == n) break;
    }
    return done;
}

/* What the chat paths left out or changed, said without -v and recorded
 * in the stream (cal_drops). */
static void chat_drops(cal_drops *d) {
    if (F.nochat) cal_drops_note(d, "records", "skipped by --skip-bad: not conversations (--chat)", F.nochat, 0, NULL);
    if (F.json.retried)
        cal_drops_note(d, "conversations", "rendered without their system turns (--retry-without-system)",
                       F.json.retried, 0, NULL);
    if (F.json.lost_turns)
        cal_drops_note(d, "turns", "of the assistant left out of the mask (not found by rendering up to them,"
                       " or a {% generation %} block run in captured output)",
                       F.json.lost_turns, 0, NULL);
}

/* The first record of each kind that was skipped, and chat records laid
 * out without the model's template: said after the counts. */
static void chat_notices(int template_given) {
    for (int k = 0; k < 2; k++)
        if (F.first_bad[k][0]) fprintf(stderr, "%s: the first %s: %s\n", cal_progname(), k ? "record skipped as no conversation" : "refused record", F.first_bad[k]);
    if (F.json.plain_chats && !template_given)
        fprintf(stderr, "%s: %llu chat records laid out as plain \"User: ... Assistant: ...\" text; to render them as the "
                "model reads them: --chat MODEL (its chat template)\n", cal_progname(), (unsigned long long)F.json.plain_chats);
}

/* --date: strftime_now's time is that day at midnight. */
static void parse_date(const char *v) {
    unsigned y, m, d;
    char end;
    static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (sscanf(v, "%4u-%2u-%2u%c", &y, &m, &d, &end) != 3 || strlen(v) != 10 || y < 1 || m < 1 || m > 12 || d < 1 ||
        d > mdays[m - 1] || (m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
        cal_usage_error("--date wants YYYY-MM-DD, not '%s'", v);
    date = (struct tm){.tm_year = (int)y - 1900, .tm_mon = (int)m - 1, .tm_mday = (int)d};
    chat.now = &date;
}

static cal_source_fp fp; /* of the SOURCE being read */

static int on_file(void *ctx, const char *path) {
    int stop = cal_docfile_read(&F, path, opt.format, opt.field, on_doc, ctx);
    cal_source_fp_file(&fp, path, F.file_fp, F.file_bytes, F.file_whole);
    return stop;
}

static void on_corpus(const char *path) {
    cal_docfile_read(&F, path, CAL_FMT_JSONL, "text", on_doc, NULL);
    cal_source_fp_file(&fp, path, F.file_fp, F.file_bytes, F.file_whole);
}

int main(int argc, char **argv) {
    cal_set_progname(argv[0]);
    cal_args a;
    cal_args_init(&a, &prog, argc, argv);
    const char *output = NULL, *lab = NULL;
    uint64_t sample = 0, seed = 0;
    int list = 0, verbose = 0, progress = 0;
    cal_fieldfmt *fmt = NULL;
    char ferr[256];
    for (int c; (c = cal_args_next(&a)) != -1;) switch (c) {
        case 'f':
            if ((opt.format = cal_fmt_parse(a.val)) < 0) cal_usage_error("unknown format '%s'", a.val);
            break;
        case O_SEP:
            if (!*(F.sep = a.val)) cal_usage_error("--sep needs a non-empty separator");
            break;
        case O_FIELD:
            if (!*(opt.field = a.val)) cal_usage_error("--field needs a name");
            cal_fieldfmt_free(fmt), fmt = NULL;
            if (cal_fieldfmt_is(a.val) && !(fmt = cal_fieldfmt_parse(a.val, ferr, sizeof ferr)))
                cal_usage_error("--field: %s", ferr);
            F.json.fmt = fmt;
            break;
        case O_MISSING:
            if (strcmp(a.val, "error") && strcmp(a.val, "empty")) cal_usage_error("--missing takes error or empty");
            F.json.missing_empty = !strcmp(a.val, "empty");
            break;
        case O_TEMPLATE:
            if ((F.json.tmpl = cal_chat_template(a.val)) < 0)
                cal_usage_error("unknown template '%s' (plain, chatml, llama3)", a.val);
            break;
        case 'o': output = a.val; break;
        case 'L': {
            char err[512];
            if (cal_label_check(lab = a.val, strlen(a.val), err, sizeof err)) cal_usage_error("%s", err);
            break;
        }
        case O_MIN: opt.min_chars = cal_parse_u64(a.name, a.val, 0, UINT64_MAX); break;
        case O_MAX: opt.max_chars = cal_parse_u64(a.name, a.val, 1, UINT64_MAX); break;
        case 'n': opt.max_docs = cal_parse_u64(a.name, a.val, 1, UINT64_MAX); break;
        case O_DEDUP: opt.dedup = 1; break;
        case O_SHARD: cal_shard_parse(a.name, a.val, &opt.shard_i, &opt.shard_n); break;
        case O_SAMPLE: sample = cal_parse_u64(a.name, a.val, 0, 100000000), opt.sampling = 1; break;
        case O_SEED: seed = cal_parse_u64(a.name, a.val, 0, UINT64_MAX); break;
        case O_STRICT: H.strict = F.json.strict = 1; break;
        case O_CRLF: H.crlf = 1; break;
        case O_NFC: H.nfc = 1; break;
        case O_STRIP: opt.strip = 1; break;
        case O_LINES: opt.lines = 1; break;
        case O_DROP_BLANK: opt.drop_blank = 1; break;
        case O_JOIN: free((char *)J.sep), J.sep = cal_py_unescape(a.name, a.val); break;
        case O_EMPTY: free((char *)J.empty), J.empty = cal_py_unescape(a.name, a.val); break;
        case O_CHAT: chat.model = a.val; break;
        case O_CHAT_NAME: chat.name = a.val; break;
        case O_GEN_PROMPT: chat.add_generation_prompt = 1; break;
        case O_DATE: parse_date(a.val); break;
        case O_SKIP_BAD: F.skip_bad = 1; break;
        case O_AS_USER: as_user = F.json.as_user = 1; break;
        case O_SYSTEM: chat.system = a.val; break;
        case O_RETRY_NO_SYSTEM: chat.retry_without_system = 1; break;
        case O_ASSISTANT_MASK: assistant_mask = F.json.want_spans = 1; break;
        case O_CHAT_VAR:
            if (cal_chat_var_check(a.val, ferr, sizeof ferr)) cal_usage_error("%s", ferr);
            chat_vars = cal_xrealloc(chat_vars, (chat.nvars + 1) * sizeof *chat_vars);
            chat_vars[chat.nvars++] = a.val, chat.vars = chat_vars;
            break;
        case O_FOLLOW_LINKS: cal_model_follow_links(1); break;
        case O_LIST: list = 1; break;
        case 'v': verbose = 1; break;
        case O_PROGRESS: progress = 1; break;
        }
    if (list) {
        if (cal_corpus_list(stdout) != 0) cal_die("standard output: write error");
        cal_args_free(&a);
        return 0;
    }
    if (a.noperands == 0) cal_usage_error("no SOURCE given (a corpus name, file, directory or -)");
    if (cal_args_given(&a, O_SEED) && !opt.sampling) cal_usage_error("--seed goes with --sample");
    if (J.empty && !J.sep) cal_usage_error("--empty goes with --join");
    if (!chat.model && (chat.name || chat.add_generation_prompt || chat.now || F.skip_bad || chat.nvars || as_user ||
                        chat.system || chat.retry_without_system || cal_args_given(&a, O_FOLLOW_LINKS)))
        cal_usage_error("--chat-template-name, --chat-var, --add-generation-prompt, --date, --skip-bad, --as-user, "
                        "--system, --retry-without-system and --follow-links go with --chat");
    if (assistant_mask && !chat.model) cal_usage_error("--assistant-mask goes with --chat");
    if (assistant_mask && (H.nfc || H.crlf || opt.strip || opt.lines || opt.max_chars || J.sep || opt.sampling))
        cal_usage_error("--assistant-mask keeps the rendered text as it is: not with --nfc, --crlf, --strip, --lines, "
                        "--max-chars, --join or --sample");
    if (chat.model && (cal_args_given(&a, O_TEMPLATE) || (fmt && !as_user)))
        cal_usage_error("--chat renders chat records (not with --template, nor a template --field without --as-user)");
    char err[1024];
    cal_chat_render *Rw = NULL;
    if (chat.model && !(F.json.render = R = Rw = cal_chat_render_open(&chat, err, sizeof err))) cal_die("%s", err);
    if (cal_args_given(&a, O_MISSING) && !fmt) cal_usage_error("--missing goes with a template --field '{...}'");

    snprintf(why_min, sizeof why_min, "dropped by --min-chars %llu", (unsigned long long)opt.min_chars);
    W = cal_writer_open(output);
    int sargc;
    char **sargv = cal_args_stage(&a, &sargc);
    int implicit_seed = opt.sampling && !cal_args_given(&a, O_SEED);
    cal_meta_add_stage(cal_writer_meta(W), sargc, sargv, implicit_seed ? "--seed 0" : NULL);
    if (opt.sampling) cal_sample_init(&S, sample, seed);
    cal_progress_init(&P, progress);
    double t0 = cal_now();
    for (int i = 0; i < a.noperands && !done; i++) {
        cal_source src;
        cal_source_open(&src, a.operands[i], lab);
        label = src.label;
        cal_source_fp_begin(&fp, src.path);
        if (src.corpus) on_corpus(src.path);
        else cal_source_files(src.path, on_file, NULL, &drops);
        /* what was read, by content: shards made from different data are
         * told apart where they meet (cal-stream(5), SHARDS) */
        cal_buf line = {0};
        struct stat sb;
        cal_source_fp_end(&fp, a.operands[i], !src.corpus && !stat(src.path, &sb) && S_ISDIR(sb.st_mode), &line);
        cal_meta one = {0};
        cal_meta_add(&one, "input", line.p);
        cal_meta_merge(cal_writer_meta(W), &one, ferr, sizeof ferr);
        cal_meta_free(&one);
        cal_buf_free(&line);
        cal_source_close(&src);
    }
    if (opt.sampling) { /* the sample, in ascending keyed hash, up to -n */
        cal_sample_sort(&S);
        for (size_t i = 0; i < S.n && !done; i++) write_doc(S.doc[i].label, S.doc[i].id, S.doc[i].text, S.doc[i].n, S.doc[i].flags);
        cal_sample_free(&S);
    }
    if (J.docs) { /* --join: the one document */
        const char *t = J.text.p ? J.text.p : "";
        cal_write_text_flags(W, J.label, cal_hash(t, J.text.n), t, J.text.n, join_flags);
    }
    if (F.bad) cal_drops_note(&drops, "records", "refused by the chat template (--skip-bad)", F.bad, 0, NULL);
    chat_drops(&drops);
    if (F.nulls) cal_drops_note(&drops, "records", "skipped: the text field is null", F.nulls, 0, NULL);
    if (st.empty) /* (--strip, --lines and --join keep them: AutoAWQ and exllamav3 encode them, cal-read(1)) */
        cal_drops_note(&drops, "documents", "skipped: empty (no text; --strip keeps them)", st.empty, 0, NULL);
    uint64_t replaced = H.replaced + F.json.replaced;
    if (replaced) /* not lost, but changed: said as plainly */
        cal_drops_note(&drops, "sequences", "of invalid UTF-8 replaced by U+FFFD (--strict refuses them)", replaced,
                       0, NULL);
    char sum[512] = "";
    if (verbose)
        snprintf(sum, sizeof sum,
                 "%llu documents, %llu bytes from %llu files in %.2fs; %llu in other shards; %llu split by "
                 "--max-chars",
                 (unsigned long long)st.docs, (unsigned long long)st.bytes, (unsigned long long)F.files,
                 cal_now() - t0, (unsigned long long)st.other_shard, (unsigned long long)st.split);
    cal_drops_finish(&drops, W, NULL, sum);
    cal_writer_close(W);
    cal_progress_done(&P);
    chat_notices(cal_args_given(&a, O_TEMPLATE));
    cal_hygiene_free(&H);
    cal_join_free(&J), free((char *)J.sep), free((char *)J.empty);
    cal_docfile_free(&F);
    cal_chat_render_free(Rw);
    cal_buf_free(&rendered);
    free(chat_vars);
    cal_fieldfmt_free(fmt);
    cal_dedup_free(&D);
    cal_args_free(&a);
    return 0;
}
