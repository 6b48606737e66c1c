/* length.c - see length.h. */
#include "text/length.h"

static int cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

size_t cal_text_chars(const char *p, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += !cont(p[i]);
    return c;
}

size_t cal_text_piece(const char *p, size_t n, uint64_t max_chars) {
    if (max_chars == 0) return n;
    size_t i = 0, cut_nl = 0, cut_sp = 0;
    for (uint64_t c = 0; i < n && c < max_chars;) {
        size_t k = 1;
        while (i + k < n && cont(p[i + k])) k++;
        i += k, c++;
        if (c > max_chars / 2 && p[i - 1] == '\n') cut_nl = i;
        else if (c > max_chars / 2 && p[i - 1] == ' ') cut_sp = i;
    }
    if (i == n) return n;
    return cut_nl ? cut_nl : cut_sp ? cut_sp : i;
}
