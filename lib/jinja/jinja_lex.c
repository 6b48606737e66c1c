/* jinja_lex.c - Jinja's lexer as transformers configures it: {% %}, {{ }},
 * {# #}, {% raw %}; trim_blocks (a block or comment tag eats one newline
 * after it), lstrip_blocks (spaces and tabs before a block or comment tag
 * at the start of a line go), '-' strips all whitespace on that side, '+'
 * keeps it. Inside tags: names, numbers (with _ separators), strings with
 * Python's escapes, operators, brackets balanced as Jinja checks them. */
#include <string.h>
#include <utf8proc.h>

#include "jinja/jinja_int.h"

typedef struct {
    jj_arena *a;
    const char *s;
    size_t n, pos;
    int line;
    int line_starting;
    jj_toks *t;
    char bal[256];
    int nbal;
} lexer;

static CAL_NORETURN void lfail(lexer *L, const char *fmt, const char *arg) {
    jj_raise(L->a->err, L->line, fmt, arg);
}

static jj_tok *push(lexer *L, int type, int line) {
    jj_toks *t = L->t;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        jj_tok *nv = jj_alloc(L->a, nc * sizeof *nv);
        if (t->n) memcpy(nv, t->v, t->n * sizeof *nv);
        t->v = nv;
        t->cap = nc;
    }
    jj_tok *k = &t->v[t->n++];
    memset(k, 0, sizeof *k);
    k->type = (uint8_t)type;
    k->line = line;
    return k;
}

static void advance(lexer *L, size_t to) {
    for (size_t i = L->pos; i < to; i++) L->line += L->s[i] == '\n';
    L->pos = to;
}

static int32_t cp_at(const lexer *L, size_t i, size_t *next) {
    size_t k = i;
    int32_t c = jj_u8_next(L->s, L->n, &k);
    if (next) *next = k;
    return c;
}

/* End of a run of whitespace (Python's \s) starting at i. */
static size_t skip_ws(const lexer *L, size_t i) {
    while (i < L->n) {
        size_t k;
        if (!jj_isspace(cp_at(L, i, &k))) break;
        i = k;
    }
    return i;
}

static void data(lexer *L, size_t from, size_t to, int line) {
    if (to <= from) return;
    jj_tok *k = push(L, T_DATA, line);
    k->s = jj_strndup(L->a, L->s + from, to - from);
    k->n = to - from;
}

/* The text before a tag, stripped as its whitespace control asks. */
static void text_before(lexer *L, size_t from, size_t to, char sign, int is_var) {
    int line = L->line;
    size_t end = to;
    if (sign == '-') {
        while (end > from) {
            size_t k = end - 1;
            while (k > from && ((unsigned char)L->s[k] & 0xC0) == 0x80) k--;
            if (!jj_isspace(cp_at(L, k, NULL))) break;
            end = k;
        }
    } else if (sign != '+' && !is_var) {
        size_t l_pos = from, i;
        for (i = to; i > from; i--)
            if (L->s[i - 1] == '\n') { l_pos = i; break; }
        if (l_pos > from || L->line_starting) {
            int blank = 1;
            for (i = l_pos; i < to; i++)
                if (L->s[i] != ' ' && L->s[i] != '\t') { blank = 0; break; }
            if (blank) end = l_pos;
        }
    }
    data(L, from, end, line);
}

/* (\d+_)*\d+ at i: its end, or i when none. */
static size_t digits_us(const lexer *L, size_t i) {
    size_t j = i;
    if (j >= L->n || L->s[j] < '0' || L->s[j] > '9') return i;
    while (j < L->n && L->s[j] >= '0' && L->s[j] <= '9') j++;
    while (j + 1 < L->n && L->s[j] == '_' && L->s[j + 1] >= '0' && L->s[j + 1] <= '9') {
        j++;
        while (j < L->n && L->s[j] >= '0' && L->s[j] <= '9') j++;
    }
    return j;
}

static size_t exp_end(const lexer *L, size_t e) {
    if (e >= L->n || (L->s[e] != 'e' && L->s[e] != 'E')) return 0;
    size_t x = e + 1;
    if (x < L->n && (L->s[x] == '+' || L->s[x] == '-')) x++;
    size_t d = digits_us(L, x);
    return d > x ? d : 0;
}

/* Jinja's float_re at i: digits, then (.digits)? exponent, or .digits;
 * never right after a '.'. Returns its end, or i. */
static size_t float_end(const lexer *L, size_t i) {
    if (i > 0 && L->s[i - 1] == '.') return i;
    size_t j = digits_us(L, i);
    if (j == i) return i;
    size_t k = j;
    if (k < L->n && L->s[k] == '.') {
        size_t f = digits_us(L, k + 1);
        if (f > k + 1) k = f;
    }
    size_t e = exp_end(L, k);
    if (e) return e;
    return k > j ? k : i;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = (char)(c | 32);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Integer literal at i (Jinja's integer_re): its end, or i. */
static size_t int_end(const lexer *L, size_t i, int *base) {
    const char *s = L->s;
    size_t n = L->n;
    *base = 10;
    if (s[i] == '0' && i + 1 < n) {
        char p = (char)(s[i + 1] | 32);
        int b = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 0;
        if (b) {
            size_t j = i + 2, end = i;
            for (;;) {
                size_t k = j;
                if (k < n && s[k] == '_') k++;
                int d = k < n ? hexval(s[k]) : -1;
                if (d < 0 || d >= b) break;
                j = k + 1;
                end = j;
            }
            if (end > i) { *base = b; return end; }
        }
    }
    if (s[i] >= '1' && s[i] <= '9') {
        size_t j = i + 1;
        for (;;) {
            size_t k = j;
            if (k < n && s[k] == '_') k++;
            if (k < n && s[k] >= '0' && s[k] <= '9') j = k + 1;
            else break;
        }
        return j;
    }
    if (s[i] == '0') {
        size_t j = i + 1;
        for (;;) {
            size_t k = j;
            if (k < n && s[k] == '_') k++;
            if (k < n && s[k] == '0') j = k + 1;
            else break;
        }
        return j;
    }
    return i;
}

static int name_char(int32_t c, int first) {
    if (c < 0x80)
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
               (!first && c >= '0' && c <= '9');
    utf8proc_category_t k = utf8proc_category(c);
    if (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO) return 1;
    if (k == UTF8PROC_CATEGORY_NL) return 1;
    return !first && (k == UTF8PROC_CATEGORY_MN || k == UTF8PROC_CATEGORY_MC ||
                      k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_PC);
}

static void put_cp(jj_arena *a, char **out, size_t *len, size_t *cap, int32_t c) {
    if (*len + 4 >= *cap) {
        size_t nc = *cap * 2 + 16;
        char *np = jj_alloc(a, nc);
        memcpy(np, *out, *len);
        *out = np;
        *cap = nc;
    }
    char *p = *out + *len;
    if (c < 0x80) { p[0] = (char)c; *len += 1; }
    else if (c < 0x800) { p[0] = (char)(0xC0 | (c >> 6)); p[1] = (char)(0x80 | (c & 63)); *len += 2; }
    else if (c < 0x10000) {
        p[0] = (char)(0xE0 | (c >> 12)); p[1] = (char)(0x80 | ((c >> 6) & 63));
        p[2] = (char)(0x80 | (c & 63)); *len += 3;
    } else {
        p[0] = (char)(0xF0 | (c >> 18)); p[1] = (char)(0x80 | ((c >> 12) & 63));
        p[2] = (char)(0x80 | ((c >> 6) & 63)); p[3] = (char)(0x80 | (c & 63)); *len += 4;
    }
}

/* Python's "unicode-escape" decoding of a string literal's body. */
static void unescape(lexer *L, size_t from, size_t to, jj_tok *k) {
    size_t cap = to - from + 16, len = 0;
    char *out = jj_alloc(L->a, cap);
    const char *s = L->s;
    for (size_t i = from; i < to;) {
        size_t nx;
        int32_t c = cp_at(L, i, &nx);
        if (c != '\\') { put_cp(L->a, &out, &len, &cap, c); i = nx; continue; }
        /* a backslash: the string regex guarantees a following character */
        i++;
        int32_t d = cp_at(L, i, &nx);
        int32_t v = -1;
        int hex = 0;
        switch (d) {
        case '\n': i = nx; continue;
        case '\\': v = '\\'; break;
        case '\'': v = '\''; break;
        case '"': v = '"'; break;
        case 'a': v = 7; break;
        case 'b': v = 8; break;
        case 'f': v = 12; break;
        case 'n': v = 10; break;
        case 'r': v = 13; break;
        case 't': v = 9; break;
        case 'v': v = 11; break;
        case 'x': hex = 2; break;
        case 'u': hex = 4; break;
        case 'U': hex = 8; break;
        case 'N': lfail(L, "\\N{...} escapes are not supported%s", "");
        default: break;
        }
        if (v >= 0) { put_cp(L->a, &out, &len, &cap, v); i = nx; continue; }
        if (d >= '0' && d <= '7') {
            int32_t o = 0;
            int m = 0;
            while (m < 3 && i < to && s[i] >= '0' && s[i] <= '7') o = o * 8 + (s[i++] - '0'), m++;
            put_cp(L->a, &out, &len, &cap, o);
            continue;
        }
        if (hex) {
            int32_t x = 0;
            size_t j = i + 1;
            for (int m = 0; m < hex; m++, j++) {
                int h = j < to ? hexval(s[j]) : -1;
                if (h < 0)
                    lfail(L, "%s", hex == 2 ? "truncated \\xXX escape" : hex == 4 ? "truncated \\uXXXX escape"
                                                                             : "truncated \\UXXXXXXXX escape");
                x = x * 16 + h;
            }
            if (x > 0x10FFFF) lfail(L, "%s", "illegal Unicode character");
            if (x >= 0xD800 && x <= 0xDFFF) lfail(L, "%s", "a surrogate escape cannot be rendered as UTF-8");
            put_cp(L->a, &out, &len, &cap, x);
            i = j;
            continue;
        }
        /* unknown escape: the backslash stays; a non-ASCII character after
         * it reads as Python's backslashreplace of it */
        put_cp(L->a, &out, &len, &cap, '\\');
        if (d >= 0x80) {
            char t[16];
            if (d < 0x100) snprintf(t, sizeof t, "x%02x", (unsigned)d);
            else if (d < 0x10000) snprintf(t, sizeof t, "u%04x", (unsigned)d);
            else snprintf(t, sizeof t, "U%08x", (unsigned)d);
            for (char *p = t; *p; p++) put_cp(L->a, &out, &len, &cap, *p);
            i = nx;
        }
    }
    out[len] = 0;
    k->s = out;
    k->n = len;
}

static const struct {
    const char *s;
    int op;
} ops[] = {{"//", TO_FLOORDIV}, {"**", TO_POW}, {"==", TO_EQ}, {"!=", TO_NE}, {">=", TO_GTEQ},
           {"<=", TO_LTEQ}, {"+", TO_ADD}, {"-", TO_SUB}, {"/", TO_DIV}, {"*", TO_MUL},
           {"%", TO_MOD}, {"~", TO_TILDE}, {"[", TO_LBRACKET}, {"]", TO_RBRACKET},
           {"(", TO_LPAREN}, {")", TO_RPAREN}, {"{", TO_LBRACE}, {"}", TO_RBRACE},
           {">", TO_GT}, {"<", TO_LT}, {"=", TO_ASSIGN}, {".", TO_DOT}, {":", TO_COLON},
           {"|", TO_PIPE}, {",", TO_COMMA}, {";", TO_SEMICOLON}};

/* One token inside {{ }} or {% %}; returns 1 at the tag's end. */
static int tag_token(lexer *L, int block) {
    const char *s = L->s;
    size_t i = L->pos, n = L->n;
    if (L->nbal == 0) {
        size_t end = 0;
        if (block) {
            if (i + 2 < n && s[i] == '+' && s[i + 1] == '%' && s[i + 2] == '}') end = i + 3;
            else if (i + 2 < n && s[i] == '-' && s[i + 1] == '%' && s[i + 2] == '}') end = skip_ws(L, i + 3);
            else if (i + 1 < n && s[i] == '%' && s[i + 1] == '}') {
                end = i + 2;
                if (end < n && s[end] == '\n') end++;
            }
        } else {
            if (i + 2 < n && s[i] == '-' && s[i + 1] == '}' && s[i + 2] == '}') end = skip_ws(L, i + 3);
            else if (i + 1 < n && s[i] == '}' && s[i + 1] == '}') end = i + 2;
        }
        if (end) {
            push(L, block ? T_BLOCK_END : T_VAR_END, L->line);
            L->line_starting = s[end - 1] == '\n';
            advance(L, end);
            return 1;
        }
    }
    size_t k = skip_ws(L, i);
    if (k > i) { advance(L, k); return 0; }
    int line = L->line;
    size_t e = float_end(L, i);
    if (e > i) {
        char *buf = jj_alloc(L->a, e - i + 1);
        size_t m = 0;
        for (size_t j = i; j < e; j++)
            if (s[j] != '_') buf[m++] = s[j];
        buf[m] = 0;
        jj_tok *t = push(L, T_FLOAT, line);
        t->f = strtod(buf, NULL);
        advance(L, e);
        return 0;
    }
    int base;
    e = int_end(L, i, &base);
    if (e > i) {
        /* int(value.replace("_", ""), 0): any size, as Python's */
        char *digits = jj_alloc(L->a, e - i + 1), why[200];
        size_t m = 0;
        for (size_t j = base == 10 ? i : i + 2; j < e; j++)
            if (s[j] != '_') digits[m++] = s[j];
        jj_val v;
        if (jj_int_literal(L->a, digits, m, base, &v, why, sizeof why)) lfail(L, "%s", why);
        jj_tok *t = push(L, T_INT, line);
        t->i = v;
        advance(L, e);
        return 0;
    }
    size_t nx;
    int32_t c = cp_at(L, i, &nx);
    if (name_char(c, 1)) {
        size_t j = nx;
        while (j < n && name_char(cp_at(L, j, &nx), 0)) j = nx;
        jj_tok *t = push(L, T_NAME, line);
        t->s = jj_strndup(L->a, s + i, j - i);
        t->n = j - i;
        advance(L, j);
        return 0;
    }
    if (c == '\'' || c == '"') {
        size_t j = i + 1;
        while (j < n && s[j] != c) j += s[j] == '\\' && j + 1 < n ? 2 : 1;
        if (j < n) {
            jj_tok *t = push(L, T_STRING, line);
            unescape(L, i + 1, j, t);
            advance(L, j + 1);
            return 0;
        }
    }
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        size_t m = strlen(ops[o].s);
        if (i + m <= n && memcmp(s + i, ops[o].s, m) == 0) {
            int op = ops[o].op;
            if (op == TO_LBRACE || op == TO_LPAREN || op == TO_LBRACKET) {
                if (L->nbal == (int)sizeof L->bal) lfail(L, "brackets nested too deep%s", "");
                L->bal[L->nbal++] = op == TO_LBRACE ? '}' : op == TO_LPAREN ? ')' : ']';
            } else if (op == TO_RBRACE || op == TO_RPAREN || op == TO_RBRACKET) {
                if (L->nbal == 0) lfail(L, "unexpected '%s'", ops[o].s);
                char want = L->bal[--L->nbal];
                if (want != ops[o].s[0]) {
                    char msg[64];
                    snprintf(msg, sizeof msg, "unexpected '%s', expected '%c'", ops[o].s, want);
                    lfail(L, "%s", msg);
                }
            }
            jj_tok *t = push(L, T_OP, line);
            t->op = (uint8_t)op;
            advance(L, i + m);
            return 0;
        }
    }
    char ch[8] = {0};
    memcpy(ch, s + i, nx - i < 7 ? nx - i : 7);
    lfail(L, "unexpected char '%s'", ch);
}

/* {% raw %}: the text up to {% endraw %} is data. */
static void raw_block(lexer *L) {
    const char *s = L->s;
    size_t n = L->n;
    for (size_t q = L->pos; q + 1 < n; q++) {
        if (s[q] != '{' || s[q + 1] != '%') continue;
        size_t j = q + 2;
        char sign = 0;
        if (j < n && (s[j] == '-' || s[j] == '+')) sign = s[j++];
        j = skip_ws(L, j);
        if (j + 6 > n || memcmp(s + j, "endraw", 6) != 0) continue;
        j = skip_ws(L, j + 6);
        size_t end = 0;
        if (j + 2 < n && s[j] == '+' && s[j + 1] == '%' && s[j + 2] == '}') end = j + 3;
        else if (j + 2 < n && s[j] == '-' && s[j + 1] == '%' && s[j + 2] == '}') end = skip_ws(L, j + 3);
        else if (j + 1 < n && s[j] == '%' && s[j + 1] == '}') {
            end = j + 2;
            if (end < n && s[end] == '\n') end++;
        }
        if (!end) continue;
        text_before(L, L->pos, q, sign, 0);
        L->line_starting = s[end - 1] == '\n';
        advance(L, end);
        return;
    }
    lfail(L, "Missing end of raw directive%s", "");
}

void jj_lex(jj_arena *a, const char *src, size_t n, jj_toks *toks) {
    lexer L = {0};
    L.a = a;
    L.s = src;
    L.n = n;
    L.line = 1;
    L.line_starting = 1;
    L.t = toks;
    const char *s = src;
    while (L.pos < n) {
        size_t p = L.pos;
        while (p + 1 < n && !(s[p] == '{' && (s[p + 1] == '%' || s[p + 1] == '{' || s[p + 1] == '#'))) p++;
        if (p + 1 >= n) {
            data(&L, L.pos, n, L.line);
            advance(&L, n);
            break;
        }
        char kind = s[p + 1];
        size_t after = p + 2;
        char sign = 0;
        if (after < n && (s[after] == '-' || s[after] == '+')) sign = s[after++];
        /* {% raw %} */
        size_t raw_end = 0;
        if (kind == '%') {
            size_t j = skip_ws(&L, after);
            if (j + 3 <= n && memcmp(s + j, "raw", 3) == 0) {
                j = skip_ws(&L, j + 3);
                if (j + 2 < n && s[j] == '-' && s[j + 1] == '%' && s[j + 2] == '}') raw_end = skip_ws(&L, j + 3);
                else if (j + 1 < n && s[j] == '%' && s[j + 1] == '}') raw_end = j + 2;
            }
        }
        text_before(&L, L.pos, p, sign, kind == '{');
        L.line_starting = 0;
        if (raw_end) {
            L.line_starting = s[raw_end - 1] == '\n';
            advance(&L, raw_end);
            raw_block(&L);
            continue;
        }
        advance(&L, after);
        if (kind == '#') {
            size_t q = L.pos, end = 0;
            for (; q + 1 < n; q++) {
                if (s[q] == '+' && q + 2 < n && s[q + 1] == '#' && s[q + 2] == '}') { end = q + 3; break; }
                if (s[q] == '-' && q + 2 < n && s[q + 1] == '#' && s[q + 2] == '}') { end = skip_ws(&L, q + 3); break; }
                if (s[q] == '#' && s[q + 1] == '}') {
                    end = q + 2;
                    if (end < n && s[end] == '\n') end++;
                    break;
                }
            }
            if (!end) lfail(&L, "Missing end of comment tag%s", "");
            L.line_starting = s[end - 1] == '\n';
            advance(&L, end);
            continue;
        }
        int block = kind == '%';
        push(&L, block ? T_BLOCK_BEGIN : T_VAR_BEGIN, L.line);
        L.nbal = 0;
        while (L.pos < n)
            if (tag_token(&L, block)) break;
    }
    push(&L, T_EOF, L.line);
}
