/* unicode.c - lookups in the generated tables of unicode.h. */
#include "tok/unicode.h"

#include <stdlib.h>
#include <string.h>

#include "base/err.h"

static int is_word_core(unsigned p)
{
    unsigned g = p & TU_GC;
    return (p & TU_ALPHA) || g == TU_MN || g == TU_MC || g == TU_ME || g == TU_ND || g == TU_PC;
}

int tu_onig_word(int32_t c)
{
    if (c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE)) return 1;
    return is_word_core(tu_props(c));
}

int tu_regex_word(int32_t c)
{
    unsigned p = tu_props(c);
    return is_word_core(p) || (p & TU_JOINC);
}

int tu_lower(int32_t c, int32_t out[3])
{
    if (c < 0x80) {
        out[0] = c >= 'A' && c <= 'Z' ? c + 32 : c;
        return 1;
    }
    for (size_t i = 0; i < tu_nlower17_special; i++)
        if (tu_lower17_special[i][0] == (uint32_t)c) {
            int n = 0;
            for (int k = 1; k < 4 && tu_lower17_special[i][k]; k++) out[n++] = (int32_t)tu_lower17_special[i][k];
            return n;
        }
    size_t lo = 0, hi = tu_nlower17;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tu_lower17[mid][0] < (uint32_t)c) lo = mid + 1;
        else hi = mid;
    }
    out[0] = lo < tu_nlower17 && tu_lower17[lo][0] == (uint32_t)c ? (int32_t)tu_lower17[lo][1] : c;
    return 1;
}

int tu_loose_name(const char *s, size_t n, char *k, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '_' || c == '-' || c == ' ') continue;
        if (m + 1 >= cap) return 0;
        k[m++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    k[m] = 0;
    return 1;
}

int tu_script_find(const char *s, size_t n)
{
    char want[48], have[48];
    if (!tu_loose_name(s, n, want, sizeof want)) return -1;
    for (size_t i = 0; i < tu_nscripts; i++)
        if (tu_loose_name(tu_script_names[i], strlen(tu_script_names[i]), have, sizeof have) && !strcmp(have, want)) return (int)i;
    return -1;
}

size_t tu_ranges(int (*in)(int32_t c, const void *arg), const void *arg, uint32_t (**r)[2])
{
    size_t n = 0, cap = 0;
    *r = NULL;
    for (int32_t c = 0; c <= 0x10FFFF; c++) {
        if (!in(c, arg)) continue;
        if (n && (*r)[n - 1][1] == (uint32_t)c - 1) {
            (*r)[n - 1][1] = (uint32_t)c;
            continue;
        }
        if (n == cap) *r = cal_xrealloc(*r, (cap = cap ? 2 * cap : 64) * sizeof **r);
        (*r)[n][0] = (*r)[n][1] = (uint32_t)c;
        n++;
    }
    return n;
}
