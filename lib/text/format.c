/* format.c - see format.h. */
#include "text/format.h"

#include "base/utf8.h"
#include "stream/stream.h"

#include <stdio.h>
#include <string.h>

static const char *const NAMES[] = {
    [CAL_FMT_TEXT] = "text",       [CAL_FMT_LINES] = "lines",
    [CAL_FMT_PARAGRAPHS] = "paragraphs", [CAL_FMT_WIKIEXTRACTOR] = "wikiextractor",
    [CAL_FMT_WIKITEXT] = "wikitext", [CAL_FMT_JSONL] = "jsonl",
    [CAL_FMT_PARQUET] = "parquet", [CAL_FMT_JSON] = "json",
    [CAL_FMT_CSV] = "csv",         [CAL_FMT_TSV] = "tsv",
};

int cal_fmt_parse(const char *name) {
    for (int k = 0; k < (int)(sizeof NAMES / sizeof *NAMES); k++)
        if (NAMES[k] && !strcmp(name, NAMES[k])) return k;
    return -1;
}

static int has_suffix(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n >= k && strncmp(s + n - k, suf, k) == 0;
}

static const char *const COMPRESSED[] = {".gz", ".gzip", ".zst", ".zstd", ".xz", ".bz2"};

int cal_fmt_from_name(const char *path) {
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof COMPRESSED / sizeof *COMPRESSED; i++)
        if (has_suffix(path, n, COMPRESSED[i])) {
            n -= strlen(COMPRESSED[i]);
            break;
        }
    if (has_suffix(path, n, ".parquet") || has_suffix(path, n, ".pq")) return CAL_FMT_PARQUET;
    if (has_suffix(path, n, ".jsonl") || has_suffix(path, n, ".ndjson")) return CAL_FMT_JSONL;
    if (has_suffix(path, n, ".json")) return CAL_FMT_JSON;
    if (has_suffix(path, n, ".csv")) return CAL_FMT_CSV;
    if (has_suffix(path, n, ".tsv") || has_suffix(path, n, ".tab")) return CAL_FMT_TSV;
    return CAL_FMT_AUTO;
}

int cal_fmt_json_layout(const uint8_t *p, size_t n) {
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3, n -= 3;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i < n && p[i] == '[') return CAL_FMT_JSON;
    int depth = 0, in_str = 0;
    for (; i < n; i++) { /* the first value: does it close on its line? */
        uint8_t c = p[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth) continue;
            while (++i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) {
            }
            return i == n && n < 4096 ? CAL_FMT_JSON : CAL_FMT_JSONL; /* alone in the file: an object of records */
        } else if (c == '\n') {
            return CAL_FMT_JSON;
        }
    }
    return CAL_FMT_JSONL;
}

int cal_fmt_from_content(const uint8_t *p, size_t n) {
    if (n >= 4 && memcmp(p, "PAR1", 4) == 0) return CAL_FMT_PARQUET;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3, n -= 3;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) i++;
    if (i < n && (p[i] == '{' || p[i] == '[')) return cal_fmt_json_layout(p, n);
    if (n >= 5 && memcmp(p, "<doc ", 5) == 0) return CAL_FMT_WIKIEXTRACTOR;
    /* wikitext-2 raw: blank lines (or " \n"), then " = Title = " */
    size_t a = 0;
    while (a < n && (p[a] == '\n' || (p[a] == ' ' && a + 1 < n && p[a + 1] == '\n'))) a++;
    if (a + 4 < n && p[a] == ' ' && p[a + 1] == '=' && p[a + 2] == ' ' && p[a + 3] != '=') return CAL_FMT_WIKITEXT;
    return CAL_FMT_TEXT;
}

void cal_label_from_path(const char *path, char *out, size_t cap) {
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/') end--; /* "data/" -> "data" */
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    const char *b = path + start;
    size_t n = end - start;
    static const char *const ext[] = {".gz", ".gzip", ".zst", ".zstd", ".xz", ".bz2", ".jsonl", ".json", ".ndjson",
                                      ".parquet", ".pq", ".txt", ".raw", ".tokens", ".text",
                                      ".csv", ".tsv", ".tab"};
    for (int again = 1; again;) { /* "x.jsonl.gz" -> "x" */
        again = 0;
        for (size_t i = 0; i < sizeof ext / sizeof *ext; i++)
            if (n > strlen(ext[i]) && has_suffix(b, n, ext[i])) {
                n -= strlen(ext[i]);
                again = 1;
            }
    }
    char lab[CAL_MAX_LABEL + 1];
    cal_label_from_name(b, n, lab); /* a valid label: control bytes and bad UTF-8 become '_' */
    snprintf(out, cap, "%s", lab);
}

/* Magic numbers of what people hand to cal-read by mistake. */
static const struct {
    size_t off, n;
    const char *magic, *what;
} MAGIC[] = {
    {0, 8, "\x89PNG\r\n\x1a\n", "a PNG image"},
    {0, 3, "\xFF\xD8\xFF", "a JPEG image"},
    {0, 6, "GIF87a", "a GIF image"},
    {0, 6, "GIF89a", "a GIF image"},
    {0, 5, "%PDF-", "a PDF document"},
    {0, 4, "PK\x03\x04", "a ZIP archive (or .docx, .npz, .whl)"},
    {0, 4, "\x7F" "ELF", "an ELF executable"},
    {0, 8, "\x89" "CAL\r\n\x1a\n", "a cal-stream (read it with cal-cat or pipe it to the next program)"},
    {0, 4, "GGUF", "a GGUF model file"},
    {0, 6, "\x93NUMPY", "a numpy .npy file"},
    {0, 16, "SQLite format 3\0", "an SQLite database"},
    {0, 6, "7z\xBC\xAF\x27\x1C", "a 7-Zip archive (extract it first)"},
    {0, 6, "Rar!\x1A\x07", "a RAR archive (extract it first)"},
    {0, 4, "\x04\x22\x4D\x18", "LZ4-compressed data (decompress it first: lz4 -dc)"},
    {0, 2, "\x1F\x9D", "compress(1) data (decompress it first: uncompress -c)"},
    {0, 4, "RIFF", "a RIFF file (WAV, AVI, WebP)"},
    {0, 4, "OggS", "an Ogg media file"},
    {0, 4, "fLaC", "a FLAC audio file"},
    {0, 3, "ID3", "an MP3 audio file"},
    {257, 5, "ustar", "a tar archive (extract it first, or read its folder)"},
    {0, 2, "\xFF\xFE", "UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8)"},
    {0, 2, "\xFE\xFF", "UTF-16 text (convert it: iconv -f UTF-16 -t UTF-8)"},
};

const char *cal_fmt_binary(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < sizeof MAGIC / sizeof *MAGIC; i++)
        if (n >= MAGIC[i].off + MAGIC[i].n && !memcmp(p + MAGIC[i].off, MAGIC[i].magic, MAGIC[i].n))
            return MAGIC[i].what;
    /* a safetensors file: an 8-byte header length, then its JSON */
    if (n >= 10 && p[8] == '{' && p[9] == '"' && p[6] == 0 && p[7] == 0) return "a safetensors file";
    /* A sample of NUL bytes only: a preallocated or sparse file whose data
     * never came (a cut download), or /dev/zero; a NUL here and there is text. */
    size_t z = 0;
    while (z < n && !p[z]) z++;
    if (n >= 64 && z == n) return "zero-filled (every byte of its start is NUL: a preallocated or sparse file, or /dev/zero)";
    /* Text in any language is mostly valid UTF-8 (Latin-1 text: a byte in
     * a word or two); binary data is mostly not. Control characters and
     * NUL bytes are text's business (tokenizers take them). */
    size_t bad = 0;
    for (size_t i = 0; i < n;) {
        size_t v = i + cal_utf8_valid_prefix((const char *)p + i, n - i);
        if (v < n) bad += n - v >= 4; /* not a character cut by the end of the sample */
        i = v + 1;
    }
    return n >= 64 && bad * 4 > n ? "binary data (a quarter or more of its first bytes are not UTF-8)" : NULL;
}
