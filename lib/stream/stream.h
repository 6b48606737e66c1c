/* stream.h - the cal-stream format (see man/cal-stream.5) and its C API.
 *
 * A stream is a header followed by records; streams concatenate, so a header
 * may appear again at any record boundary. All integers are little-endian.
 *
 * Reading:
 *     cal_reader *r = cal_reader_open("-");        // "-" = stdin
 *     cal_rec rec;
 *     while (cal_read(r, &rec)) { ... }             // dies with a one-line error on bad data
 *     const cal_meta *m = cal_reader_meta(r);       // merged header metadata
 *     cal_reader_close(r);
 * Writing:
 *     cal_writer *w = cal_writer_open(path_or_NULL); // NULL or "-" = stdout
 *     cal_meta_copy(cal_writer_meta(w), cal_reader_meta(r));
 *     cal_meta_add_stage(cal_writer_meta(w), argc, argv);
 *     cal_write_tokens(w, "wiki", id, ids, n);
 *     cal_writer_close(w);     // flush; for a named file, fsync + rename
 *
 * The header is written lazily before the first record (or at close), from
 * the writer's metadata at that moment. If the metadata changes afterwards,
 * the segment is closed with an END record and a new header is written
 * before the next record. cal_writer_close writes the final END record. */
#ifndef CAL_STREAM_H
#define CAL_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/buf.h"
#include "base/dtype.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/num.h"

#define CAL_MAGIC "\x89" "CAL\r\n\x1a\n"
#define CAL_MAGIC_LEN 8
#define CAL_FORMAT_VERSION 1
#define CAL_MAX_META (1u << 20)      /* header metadata bytes */
#define CAL_MAX_LABEL 255u           /* label bytes */
#define CAL_MAX_PAYLOAD (1u << 30)   /* payload bytes of one record */
#define CAL_REC_HEAD 16              /* fixed part of a record header */
/* Stream header flags (bytes 10-11). */
#define CAL_HDR_CONTINUES 1u         /* this header continues the stream the END
                                      * before it closed (the same writer, its
                                      * metadata changed); without it a header
                                      * starts a stream (a concatenation) */

typedef enum {
    CAL_TEXT = 1,    /* UTF-8 document */
    CAL_TOKENS = 2,  /* u32 ids, any length */
    CAL_ROW = 3,     /* u32 len, u32 flags, len u32 ids, [len u8 mask], [len u8 role] */
    CAL_VECTORS = 4, /* u32 n, u32 d, u8 dtype, 3 zero bytes, u32 zero, n*d values */
    CAL_END = 5      /* u64 record count of the segment; closes it. Written by the
                      * writer, consumed by the reader (never returned): a stream
                      * cut anywhere, even between records, is detected. */
} cal_kind;

/* ROW flags */
#define CAL_ROW_NOISE 1u  /* a noise row: ids meaningless (0), exported as -1 */
#define CAL_ROW_MASK 2u   /* an attention mask of len bytes (0/1) follows the ids */
#define CAL_ROW_ROLE 4u   /* a role mask of len bytes (0/1: 1 where the token is the
                           * assistant's output) follows the ids and attention mask */

#define CAL_VEC_HEAD 16

/* Record flags (byte 1 of a record header); every other bit must be 0. */
#define CAL_TEXT_CHAT 1u  /* TEXT rendered from a chat template: its special-token
                           * strings are special tokens (cal-encode matches them) */
#define CAL_TEXT_SPANS 2u /* TEXT: the text is followed by the byte spans of the
                           * assistant's output: n x (u32 start, u32 end), u32 n */
#define CAL_TOKENS_ROLE 2u /* TOKENS: the ids are followed by a role mask, one
                            * byte (0/1) per id: 1 where the token is the assistant's output */

const char *cal_kind_name(int kind); /* "TEXT", ... or "kind N" */

/* ---- metadata: ordered "key=value" pairs -------------------------------- */
/* Well-known keys. Keys that must agree when streams are merged are marked *.
 *   tokenizer      tokenizer name (file base name)
 *   tokenizer_fp*  16 hex digits: XXH3-64 of the tokenizer file's bytes
 *   vocab*         vocabulary size
 *   bos* eos* pad* special ids (absent when the tokenizer has none)
 *   stage          one per program that touched the stream (repeats):
 *                  "cal-pack -l 2048 --seed 0" (argv, with defaults resolved) */
typedef struct {
    char **key, **val;
    size_t n, cap;
} cal_meta;

const char *cal_meta_get(const cal_meta *m, const char *key);
/* Returns -1 when absent; dies (usage-style, exit 1) when not a number. */
int64_t cal_meta_get_int(const cal_meta *m, const char *key);
void cal_meta_set(cal_meta *m, const char *key, const char *val);    /* replace or add */
void cal_meta_setf(cal_meta *m, const char *key, const char *fmt, ...) CAL_PRINTF(3, 4);
void cal_meta_add(cal_meta *m, const char *key, const char *val);    /* always append */
void cal_meta_del(cal_meta *m, const char *key);
void cal_meta_copy(cal_meta *dst, const cal_meta *src);              /* dst := src */
/* The metadata as cal-stream(5) writes it, "key=value\n" lines with '\\'
 * and newline escaped in values (appended to out), and read back: 1, or 0
 * with err. Also the form of the calkit.stream key in .safetensors and
 * Parquet files. */
void cal_meta_serialize(const cal_meta *m, cal_buf *out);
int cal_meta_parse(const char *p, size_t n, cal_meta *m, char *err, size_t errlen);
/* Keys that may repeat, one fact a line: stage, input (what cal-read read:
 * "FP16 BYTES NAME"), drop (what a program left out: cal_drops_record),
 * partial (a family of shards accepted partial). */
int cal_meta_repeats(const char *key);
/* Merge src into dst: keys that must agree are checked (returns 0 and fills
 * err with "KEY mismatch: A vs B" on conflict); other keys are added when
 * missing; lines of repeating keys are appended when not already present.
 * 1 on success. */
int cal_meta_merge(cal_meta *dst, const cal_meta *src, char *err, size_t errlen);
/* Appends stage="PROG ARGS..." from argv (arguments joined with spaces,
 * shell-quoted when needed), leaving out -o/--output FILE: an output name
 * never changes the records. Extra resolved defaults can follow in `extra`
 * (e.g. "--seed 0"), or NULL. */
void cal_meta_add_stage(cal_meta *m, int argc, char **argv, const char *extra);
/* Appends a as a stage line holds it: as it is when the shell needs no
 * quoting, else in '...' (or $'...' with \xHH for bytes that are not UTF-8),
 * so that the value is UTF-8 and the shell gives back the argument. */
void cal_meta_quote_arg(cal_buf *b, const char *a);
int cal_meta_equal(const cal_meta *a, const cal_meta *b);
void cal_meta_free(cal_meta *m);

/* ---- labels ------------------------------------------------------------- */
/* A record label is at most 255 bytes of UTF-8 text without control
 * characters (bytes below 0x20, and 0x7F): what every reader accepts and
 * every export (JSON, safetensors metadata) can hold exactly. */
/* 0, or -1 with err naming the label and the first bad byte, e.g.
 * "label 'a\nb' has a control character at byte 1 (a label is UTF-8 text
 * without control characters, at most 255 bytes)". For option checks. */
int cal_label_check(const char *label, size_t n, char *err, size_t errlen);
/* A valid label made from a name (a file's base name): control characters
 * and each byte of invalid UTF-8 become '_', cut to at most 255 bytes at a
 * character boundary. out holds CAL_MAX_LABEL + 1 bytes; returns the length. */
size_t cal_label_from_name(const char *name, size_t n, char *out);

/* ---- records ------------------------------------------------------------ */
typedef struct {
    int kind;
    uint64_t id;              /* document id */
    const char *label;        /* NOT NUL-terminated */
    size_t label_len;
    const uint8_t *payload;   /* valid until the next cal_read */
    size_t payload_len;
    const uint8_t *raw;       /* the whole encoded record, checksum included */
    size_t raw_len;
    uint64_t offset;          /* byte offset of the record in its input */
    unsigned flags;           /* record flags: CAL_TEXT_CHAT on TEXT records, else 0 */
} cal_rec;

/* Views of a record's payload (validated by cal_read for their kind). */
static inline size_t cal_tokens_len(const cal_rec *r) { return r->payload_len / ((r->flags & CAL_TOKENS_ROLE) ? 5 : 4); }
static inline uint32_t cal_token(const cal_rec *r, size_t i) { return cal_ld32(r->payload + 4 * i); }
/* A TOKENS record's role mask (cal_tokens_len bytes), or NULL. */
static inline const uint8_t *cal_tokens_role(const cal_rec *r) {
    return (r->flags & CAL_TOKENS_ROLE) ? r->payload + 4 * cal_tokens_len(r) : NULL;
}
typedef struct {
    const char *text;      /* the document (not NUL-terminated) */
    size_t n;
    uint32_t nspans;       /* CAL_TEXT_SPANS: spans of the assistant's output */
    const uint8_t *spans;  /* nspans x (u32 start, u32 end), little-endian, or NULL */
} cal_text_view;
/* The text of a TEXT record, and its spans when it has them. */
cal_text_view cal_text(const cal_rec *r);
/* Copies the ids of a TOKENS or ROW record into out (replacing its content). */
void cal_rec_ids(const cal_rec *r, cal_ids *out);

typedef struct {
    uint32_t len, flags;
    const uint8_t *ids;   /* len little-endian u32 */
    const uint8_t *mask;  /* len bytes, or NULL */
    const uint8_t *role;  /* len bytes (1: assistant output), or NULL */
} cal_row_view;
cal_row_view cal_row(const cal_rec *r);

typedef struct {
    uint32_t n, d;
    int dtype;
    const uint8_t *data;  /* n*d little-endian values */
} cal_vec_view;
cal_vec_view cal_vectors(const cal_rec *r);
/* ---- reading ------------------------------------------------------------ */
typedef struct cal_reader cal_reader;

/* path "-" or NULL = stdin (named "stdin" in messages). Dies if unopenable. */
cal_reader *cal_reader_open(const char *path);
/* Like cal_reader_open but returns NULL instead of dying, with the message
 * ("PATH: why" or "NAME: byte OFF: why") in err: for reader threads, which
 * must leave ending the program to the main thread. */
cal_reader *cal_reader_open_soft(const char *path, char *err, size_t errlen);
/* Reader over an already-open fd; name is used in messages. */
cal_reader *cal_reader_fdopen(int fd, const char *name);
/* Reader over memory (not copied; must outlive the reader). It never dies:
 * its first header is read by the first cal_read/cal_read_soft, so its
 * metadata is valid only after that call. */
cal_reader *cal_reader_mem(const void *p, size_t n, const char *name);
/* A memory reader's memory is a read-only mapping of a file, from a page
 * boundary: pages far behind the reader (16 MiB or more) are let go as for
 * a file the reader maps itself (MADV_DONTNEED; a later touch reads them
 * from the file again), so that the resident size does not grow with the
 * file (cal-blend: 125 MB resident for a 120 MB input). */
void cal_reader_mem_trim(cal_reader *r);
/* Next record: 1, or 0 at a clean end of input. Every problem (truncation,
 * checksum, bad header, metadata conflict between concatenated streams, I/O
 * error) ends the program with "PROG: NAME: byte OFF: ..." and exit 1.
 * Headers met along the way are merged into the reader's metadata. */
int cal_read(cal_reader *r, cal_rec *rec);
/* Like cal_read but returns -1 instead of dying, with the message in err
 * (for cal-cat --check and the fuzzer). */
int cal_read_soft(cal_reader *r, cal_rec *rec, char *err, size_t errlen);
/* fn(ctx) is called before the reader moves, frees or overwrites bytes of
 * records it returned (when it refills its buffer, and when it is closed):
 * a writer given those records by cal_write_raw_lent flushes them there. */
void cal_reader_on_refill(cal_reader *r, void (*fn)(void *ctx), void *ctx);
/* Keeps the bytes read from now on where a later cal_reader_send can pass
 * them to out_fd without a copy (base/relay.h; nothing when no path saves
 * one). cal_writer_lend_from calls it. */
void cal_reader_relay(cal_reader *r, int out_fd);
/* Writes the n bytes at input offset off (p: the same bytes, in r's buffer)
 * to fd, by the relay when there is one; offsets increase from call to
 * call. Write errors as every writer reports them (name: the output). */
void cal_reader_send(cal_reader *r, uint64_t off, const void *p, size_t n, int fd, const char *name);
/* Bytes cal_reader_send passed without a copy (tests). */
uint64_t cal_reader_spliced(const cal_reader *r);
/* Metadata merged from every header seen so far. The first header is read
 * when a file/fd reader is opened (so this is valid before the first cal_read). */
const cal_meta *cal_reader_meta(cal_reader *r);
/* Number of headers met so far (1 after open). */
unsigned cal_reader_headers(cal_reader *r);
/* Whether the last header met continues the stream before it
 * (CAL_HDR_CONTINUES) rather than starting a new one. */
int cal_reader_continues(cal_reader *r);
/* Headers met so far that started a stream (the files of a concatenation). */
unsigned cal_reader_streams(cal_reader *r);
/* Shards (stream/shards.h): every header feeds the reader's ledger, and at
 * the clean end of input the reader checks that shards which met there are
 * whole (whole: even one shard must be, as a merge asks), ending the
 * program with one line naming what is missing, doubled or different;
 * allow_partial (--allow-partial) makes that a warning on stderr instead.
 * check 0: no check at the end (a program reading several files checks
 * their ledgers together, cal_shards_absorb). Default: check, not whole. */
void cal_reader_shards_mode(cal_reader *r, int check, int whole, int allow_partial);
struct cal_shards *cal_reader_shards(cal_reader *r);
/* For a reader that stops before the end of a regular file (or of its
 * memory, for a memory reader): the metadata of
 * the file's trailer (its last header, when it continues the stream and
 * only an END of 0 records follows it), read from the end of the file, into
 * out: 1, or 0 when there is none (or the input is a pipe). What stages
 * upstream dropped is then known without reading the records between. */
int cal_reader_tail_meta(cal_reader *r, cal_meta *out);
/* With allow_partial: a `partial` line in m for each family the reader
 * accepted (later stages accept it too); nothing otherwise. */
void cal_reader_accept_partial(cal_reader *r, cal_meta *m);
const char *cal_reader_name(cal_reader *r);
uint64_t cal_reader_offset(cal_reader *r);
void cal_reader_close(cal_reader *r);
/* Die with "PROG: NAME: byte OFF-of-rec: msg" for a record-level problem
 * found by a filter (e.g. "expected TOKENS records, got TEXT"). */
CAL_NORETURN void cal_reader_die(cal_reader *r, const cal_rec *rec, const char *fmt, ...)
    CAL_PRINTF(3, 4);

/* ---- writing ------------------------------------------------------------ */
typedef struct cal_writer cal_writer;

/* NULL or "-" = stdout. A named file is written to "PATH.tmp.PID" and renamed
 * on cal_writer_close; on any failure exit the temp file is removed. EPIPE on
 * stdout ends the program quietly with status 0 (the `| head` convention). */
cal_writer *cal_writer_open(const char *path);
cal_meta *cal_writer_meta(cal_writer *w);
void cal_write_text(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len);
/* A TEXT record with record flags (CAL_TEXT_CHAT; other bits are dropped). */
void cal_write_text_flags(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len,
                          unsigned flags);
/* The same with the byte spans of the assistant's output: nspans pairs
 * (start, end) in spans[0 .. 2*nspans), increasing and inside the text
 * (CAL_TEXT_SPANS is set; nspans 0 is a text with spans known to be none). */
void cal_write_text_spans(cal_writer *w, const char *label, uint64_t id, const char *text, size_t len, unsigned flags,
                          const uint32_t *spans, size_t nspans);
void cal_write_tokens(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids, size_t n);
/* mask may be NULL (no mask stored). */
void cal_write_row(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids,
                   const uint8_t *mask, uint32_t len, uint32_t flags);
/* The same with a role mask (len bytes, nonzero where the token is the
 * assistant's output), or NULL for none (then as cal_write_row). */
void cal_write_row_role(cal_writer *w, const char *label, uint64_t id, const uint32_t *ids, const uint8_t *mask,
                        const uint8_t *role, uint32_t len, uint32_t flags);
void cal_write_vectors(cal_writer *w, const char *label, uint64_t id, uint32_t n, uint32_t d,
                       int dtype, const void *data);
/* Generic record with a ready payload (label length given explicitly). */
void cal_write_rec(cal_writer *w, int kind, const char *label, size_t label_len, uint64_t id,
                   const void *payload, size_t payload_len);
/* The same with record flags (kept for TEXT: CAL_TEXT_CHAT; 0 for other kinds). */
void cal_write_rec_flags(cal_writer *w, int kind, unsigned flags, const char *label, size_t label_len, uint64_t id,
                         const void *payload, size_t payload_len);
/* Records encoded away from the writer (on worker threads), written later in
 * one piece: cal_encode_tokens appends to out the TOKENS record that
 * cal_write_tokens(w, label, id, ids, n) writes, byte for byte (label of
 * llen bytes, not NUL-terminated); 0, or -1 with err when the label is not
 * a valid label or there are too many ids. It touches no writer. */
int cal_encode_tokens(cal_buf *out, const char *label, size_t llen, uint64_t id, const uint32_t *ids, size_t n,
                      char *err, size_t errlen);
/* The same with a role mask of n bytes (nonzero: the assistant's output),
 * or NULL for none (then as cal_encode_tokens). */
int cal_encode_tokens_role(cal_buf *out, const char *label, size_t llen, uint64_t id, const uint32_t *ids,
                           const uint8_t *role, size_t n, char *err, size_t errlen);
/* Writes recs[0..n): nrecs whole records made by cal_encode_tokens, after a
 * header when one is due, as if each had been written by its own call. */
void cal_write_encoded(cal_writer *w, const void *recs, size_t n, uint64_t nrecs);
/* Pass a record through unchanged (copies its raw bytes; fast path). */
void cal_write_raw(cal_writer *w, const cal_rec *rec);
/* The same without copying: the record's bytes are written by the next
 * cal_writer_flush (or by any write that must follow them) and must stay
 * valid until then. Records of a reader whose refill hook flushes this
 * writer (cal_reader_on_refill) do; consecutive ones go out in one write
 * call, straight from the reader's buffer (cal-cat --pass: one copy of each
 * byte less). */
void cal_write_raw_lent(cal_writer *w, const cal_rec *rec);
/* The same for a record whose bytes stay valid until the writer is closed
 * (a mapped file's): the writer keeps a reference, and records that are not
 * next to each other in memory still go out together, by writev(2) (cal-blend:
 * records of two files, one copy less). They go out once a MiB of them is
 * held (output flows; memory stays bounded), or before anything else. */
void cal_write_raw_kept(cal_writer *w, const cal_rec *rec);
/* Records of r that are written lent (cal_write_raw_lent) go out from r's
 * input without a copy where the kernel allows it (base/relay.h: tee and
 * splice from a pipe, splice from a file, to a pipe or socket), else
 * written from r's buffer; also sets r's refill hook to flush w. Call it
 * before the first record of r is read, for each reader in turn; r's
 * records only are then written lent, until r is closed. */
void cal_writer_lend_from(cal_writer *w, cal_reader *r);
void cal_writer_flush(cal_writer *w);
/* Flushes, writes the header if nothing was written, and for a named file
 * fsyncs and renames into place. Dies on any write error. */
void cal_writer_close(cal_writer *w);

#endif
