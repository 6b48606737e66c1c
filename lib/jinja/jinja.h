/* jinja.h - renders Hugging Face chat templates (Jinja2) in C.
 *
 * Why this module exists: an instruct model reads its conversations through
 * its tokenizer's `chat_template`, a Jinja2 program that transformers runs
 * in apply_chat_template(). Calibrating on conversations rendered any other
 * way calibrates on text the model never sees. Debian has no Jinja library
 * for C (Jinja itself is Python), so calkit carries the part of Jinja that
 * chat templates use, made to give byte-identical output.
 *
 * What it matches: transformers' environment, i.e. Jinja2's
 * ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the
 * loopcontrols extension (break, continue), the {% generation %} block,
 * transformers' tojson filter (json.dumps with ensure_ascii=False, key order
 * kept, Python's separators, indent=...), raise_exception(msg) and
 * strftime_now(fmt); Jinja's default Undefined (prints as nothing, fails
 * when its attributes are used); Python's str/int/float/list/dict semantics
 * where templates rely on them (str() and repr(), string methods, slicing,
 * comparisons, truth). tests/jinja/ checks it against python3-jinja2 set up
 * as transformers sets it up, over real model templates.
 *
 * Every built-in filter and test of jinja2 3.1 behaves as jinja2's
 * (tests/jinja/grid.py checks each over every kind of value): random picks
 * as Python's random.choice seeded 0 at the start of each render (jinja2's
 * is unseeded, so no two of its runs agree). Integers are Python's:
 * unbounded (up to 2^20 bits here), str() refused past 4300 digits; a
 * negative number to a fractional power is a complex number; generator
 * filters (select, map, ...) fail only when their result is consumed.
 * Not supported: template inheritance and inclusion (extends, block,
 * include, import, which need a loader transformers does not give) and
 * autoescape blocks; format specs for complex numbers. Upper/lower-casing
 * uses Unicode's simple mappings plus the common one-to-many ones (ß,
 * ligatures; Python has a few more).
 *
 * Errors are one line, "NAME: line N: message"; for raise_exception the
 * message is exactly the template's text. Work, recursion, output size and
 * memory are bounded (cal_jinja_opts), so no template can hang or exhaust
 * the machine: the work budget counts loop iterations and calls, the
 * elements filters and comparisons go through and the text built, copied,
 * compared or searched (a unit per 256 bytes), so a render's time is
 * bounded too (seconds for the default budget, whatever the template
 * does), and the same render fails or succeeds on every machine. Each loop iteration releases
 * the memory it used, but for what it stored outside itself. */
#ifndef CAL_TEXT_JINJA_H
#define CAL_TEXT_JINJA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/buf.h"

typedef struct cal_jinja cal_jinja;

/* The default work budget of a render: 20 million units. */
#define CAL_JINJA_BUDGET 20000000ULL

typedef struct {
    /* strftime_now()'s time (local time, fields tm_year, tm_mon, tm_mday,
     * tm_hour, tm_min, tm_sec; weekday and day of year are derived);
     * NULL: the local time when cal_jinja_render is called. */
    const struct tm *now;
    size_t max_output;   /* bytes of output; 0: 256 MiB */
    size_t max_memory;   /* bytes of working memory; 0: 1 GiB */
    uint64_t max_steps;  /* the work budget (see above); 0: CAL_JINJA_BUDGET */
    int max_depth;       /* nested macro calls and values; 0: 200 */
    /* Numbers jansson cannot hold (big ints, NaN, infinities, as Python's
     * json.loads reads them: io/pyjson.h) arrive as string nodes: literal
     * gives the JSON number text such a node stands for, NULL for a real
     * string. NULL: no such nodes. */
    const char *(*literal)(void *ctx, const json_t *node);
    void *literal_ctx;
} cal_jinja_opts;

/* Parses the template src[0..n) (UTF-8). name is used in messages (the
 * file, or "tokenizer_config.json chat_template"). NULL on a syntax error,
 * with a one-line message in err. */
cal_jinja *cal_jinja_load(const char *name, const char *src, size_t n, char *err, size_t errlen);

/* Renders t with the variables of the JSON object vars appended to out.
 * Renders only read t (and vars): threads may render one template at once.
 * For apply_chat_template's behaviour the caller passes messages, tools
 * (null when there are none, as transformers does), documents (null),
 * add_generation_prompt, the special tokens that are set (bos_token,
 * eos_token, pad_token, ...; leave out those that are None) and any extra
 * keyword variables. opts may be NULL. Returns 0, or -1 with out unchanged
 * and a one-line message in err. */
int cal_jinja_render(const cal_jinja *t, const json_t *vars, const cal_jinja_opts *opts,
                     cal_buf *out, char *err, size_t errlen);

/* cal_jinja_render, also appending to spans (spans NULL: none) the byte
 * spans of out that {% generation %} blocks rendered at the template's top
 * level, as u32 pairs (start, end) in native byte order: what transformers'
 * AssistantTracker records for return_assistant_tokens_mask there. An empty
 * block gives no span. A block run inside a macro or a set/filter block,
 * whose output is captured, gives no span either, where transformers'
 * tracker records one at the top-level output's length when the block
 * ran (wherever the captured text lands, if it lands at all): such blocks
 * with output are counted in *unspanned (NULL: not counted), for the
 * caller to say. On error spans and *unspanned are left as they were. */
int cal_jinja_render_spans(const cal_jinja *t, const json_t *vars, const cal_jinja_opts *opts, cal_buf *out,
                           cal_buf *spans, uint64_t *unspanned, char *err, size_t errlen);

/* Whether t holds a {% generation %} block (as parsed: one in a comment
 * or a string is not a block). Fixed at cal_jinja_load; O(1). */
int cal_jinja_has_generation(const cal_jinja *t);

void cal_jinja_free(cal_jinja *t);

#endif
