/* grapheme.c - extended grapheme clusters (see grapheme.h). */
#include "tok/grapheme.h"

#include "base/utf8.h"

/* The start of the character before s[j] (j > 0). */
static size_t prev_start(const char *s, size_t j) {
    size_t i = j - 1;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80 && j - i < 4) i--;
    return i;
}

static unsigned props_at(const char *s, size_t n, size_t i) {
    int32_t c;
    cal_utf8_next(s, n, i, &c);
    return tg_props(c);
}

/* GB9c: no break before a consonant at j when the text before it is
 * Consonant followed by Linkers and InCB Extends, at least one Linker. */
static int incb_joins(const char *s, size_t n, size_t j) {
    int linkers = 0;
    while (j > 0) {
        j = prev_start(s, j);
        unsigned p = props_at(s, n, j);
        if (p & TG_INCB_LINKER) linkers++;
        else if (!(p & TG_INCB_EXTEND)) return linkers > 0 && (p & 15) == TG_CONSONANT;
    }
    return 0;
}

/* GB11: the ZWJ before j follows Extended_Pictographic Extend*. */
static int emoji_joins(const char *s, size_t n, size_t j) {
    j = prev_start(s, j); /* the ZWJ */
    while (j > 0) {
        j = prev_start(s, j);
        unsigned c = props_at(s, n, j) & 15;
        if (c == TG_EXTPICT) return 1;
        if (c != TG_EXTEND) return 0;
    }
    return 0;
}

/* GB12-13: an odd number of regional indicators just before j. */
static int ri_joins(const char *s, size_t n, size_t j) {
    int count = 0;
    while (j > 0) {
        j = prev_start(s, j);
        if ((props_at(s, n, j) & 15) != TG_RI) break;
        count++;
    }
    return count % 2 == 1;
}

/* 1 when the pair (before, after) at j is a boundary. */
static int is_break(const char *s, size_t n, size_t j, unsigned b, unsigned a) {
    if (b == TG_CR && a == TG_LF) return 0;                              /* GB3 */
    if (b == TG_CONTROL || b == TG_CR || b == TG_LF) return 1;           /* GB4 */
    if (a == TG_CONTROL || a == TG_CR || a == TG_LF) return 1;           /* GB5 */
    if (b == TG_L && (a == TG_L || a == TG_V || a == TG_LV || a == TG_LVT)) return 0; /* GB6 */
    if ((b == TG_LV || b == TG_V) && (a == TG_V || a == TG_T)) return 0; /* GB7 */
    if ((b == TG_LVT || b == TG_T) && a == TG_T) return 0;               /* GB8 */
    if (a == TG_EXTEND || a == TG_ZWJ) return 0;                         /* GB9 */
    if (a == TG_SPACINGMARK || b == TG_PREPEND) return 0;                /* GB9a, GB9b */
    if (a == TG_CONSONANT) return !incb_joins(s, n, j);                  /* GB9c */
    if (b == TG_ZWJ && a == TG_EXTPICT) return !emoji_joins(s, n, j);    /* GB11 */
    if (b == TG_RI && a == TG_RI) return !ri_joins(s, n, j);             /* GB12, GB13 */
    return 1;                                                            /* GB999 */
}

size_t tg_next(const char *s, size_t n, size_t i) {
    int32_t c;
    size_t j = i + cal_utf8_next(s, n, i, &c);
    unsigned before = tg_props(c) & 15;
    while (j < n) {
        size_t k = cal_utf8_next(s, n, j, &c);
        unsigned after = tg_props(c) & 15;
        if (is_break(s, n, j, before, after)) return j;
        before = after;
        j += k;
    }
    return n;
}
