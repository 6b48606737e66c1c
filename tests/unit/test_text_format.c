/* test_text_format.c - lib/text/format.c: -f names, the format told from a
 * file name and from the first bytes, and the label a file name gives. */
#include <string.h>

#include "test.h"
#include "text/format.h"

static int content(const char *s) { return cal_fmt_from_content((const uint8_t *)s, strlen(s)); }

static const char *label(const char *path, size_t cap) {
    static char out[300];
    cal_label_from_path(path, out, cap);
    return out;
}

int main(void) {
    const char *names[] = {"text", "lines", "paragraphs", "wikiextractor", "wikitext", "jsonl", "parquet"};
    const int want[] = {CAL_FMT_TEXT, CAL_FMT_LINES, CAL_FMT_PARAGRAPHS, CAL_FMT_WIKIEXTRACTOR, CAL_FMT_WIKITEXT,
                        CAL_FMT_JSONL, CAL_FMT_PARQUET};
    int ok = 1;
    for (size_t i = 0; i < 7; i++) ok &= cal_fmt_parse(names[i]) == want[i];
    CHECK(ok, "-f takes the seven format names");
    CHECK(cal_fmt_parse("sep") < 0 && cal_fmt_parse("auto") < 0 && cal_fmt_parse("") < 0 && cal_fmt_parse("Text") < 0,
          "-f refuses sep, auto, '' and Text");

    CHECK(cal_fmt_from_name("a/b.jsonl") == CAL_FMT_JSONL && cal_fmt_from_name("c4.json.gz") == CAL_FMT_JSON &&
              cal_fmt_from_name("x.ndjson.zst") == CAL_FMT_JSONL && cal_fmt_from_name("x.json.zstd") == CAL_FMT_JSON,
          "JSON Lines and JSON by name, also compressed");
    CHECK(cal_fmt_from_name("a.csv") == CAL_FMT_CSV && cal_fmt_from_name("a.tsv.gz") == CAL_FMT_TSV &&
              cal_fmt_from_name("a.tab") == CAL_FMT_TSV && cal_fmt_parse("json") == CAL_FMT_JSON &&
              cal_fmt_parse("csv") == CAL_FMT_CSV && cal_fmt_parse("tsv") == CAL_FMT_TSV,
          "CSV and TSV by name; -f json, csv, tsv");
    CHECK(cal_fmt_from_name("t.parquet") == CAL_FMT_PARQUET && cal_fmt_from_name("t.pq") == CAL_FMT_PARQUET &&
              cal_fmt_from_name("t.parquet.gzip") == CAL_FMT_PARQUET,
          "Parquet by name");
    CHECK(cal_fmt_from_name("a.txt") == CAL_FMT_AUTO && cal_fmt_from_name("a.gz") == CAL_FMT_AUTO &&
              cal_fmt_from_name("jsonl") == CAL_FMT_AUTO && cal_fmt_from_name("a.jsonl.gz.txt") == CAL_FMT_AUTO,
          "other names leave it to the content");

    CHECK(content("PAR1....") == CAL_FMT_PARQUET, "PAR1 is Parquet");
    CHECK(content("{\"text\": 1}\n{\"text\": 2}") == CAL_FMT_JSONL && content("\xEF\xBB\xBF \n\t{") == CAL_FMT_JSONL,
          "'{' after blanks (and a BOM) is JSON Lines");
    CHECK(content("{\"text\": 1}") == CAL_FMT_JSON && content("{\n \"text\": 1}\n") == CAL_FMT_JSON &&
              content(" [{\"text\": 1}]") == CAL_FMT_JSON && cal_fmt_json_layout((const uint8_t *)"{\"a\": \"}\\\"\n\"}\n{}", 16) == CAL_FMT_JSONL,
          "JSON: a list, a record over several lines, one object alone (strings skipped)");
    CHECK(content("<doc id=\"1\">\nA\n</doc>") == CAL_FMT_WIKIEXTRACTOR && content(" <doc ") == CAL_FMT_TEXT,
          "'<doc ' at the start is WikiExtractor");
    CHECK(content(" = Valkyria = \n") == CAL_FMT_WIKITEXT && content(" \n\n \n = T = \n x") == CAL_FMT_WIKITEXT,
          "wikitext: the first non-blank line is ' = Title = '");
    CHECK(content(" = = Section = = \n") == CAL_FMT_TEXT && content("x\n = T = \n") == CAL_FMT_TEXT &&
              content(" = ") == CAL_FMT_TEXT,
          "a section line, a later title or a short line is text");
    CHECK(content("") == CAL_FMT_TEXT && content("hello") == CAL_FMT_TEXT && content("PAR") == CAL_FMT_TEXT,
          "anything else is text");

    CHECK(!strcmp(label("dir/c4-train.00000-of-01024.json.gz", 256), "c4-train.00000-of-01024"),
          "label: C4 shard name");
    CHECK(!strcmp(label("data/", 256), "data") && !strcmp(label("a/b//", 256), "b"),
          "label: a directory's name");
    CHECK(!strcmp(label("x.txt.gz", 256), "x") && !strcmp(label("wiki.train.raw", 256), "wiki.train") &&
              !strcmp(label("a.parquet", 256), "a") && !strcmp(label("b.tokens.zst", 256), "b"),
          "label: every format and compression extension goes");
    CHECK(!strcmp(label(".jsonl", 256), ".jsonl") && !strcmp(label("a.b", 256), "a.b"),
          "label: a name that is only an extension stays");
    CHECK(!strcmp(label("abcdefgh.txt", 5), "abcd"), "label: cut to the buffer");
    TEST_END();
}
