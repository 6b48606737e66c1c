/* num.c - strict parsing of numbers and sizes in option values. */
#include "base/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

uint64_t cal_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max) {
    char *end;
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        cal_usage_error("%s: expected a whole number, got '%s'", opt, s ? s : "");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        cal_usage_error("%s: expected a whole number, got '%s'", opt, s);
    if (v < min || v > max)
        cal_usage_error("%s: %llu is out of range [%llu, %llu]", opt, v, (unsigned long long)min,
                        (unsigned long long)max);
    return v;
}

double cal_parse_double(const char *opt, const char *s) {
    char *end;
    if (!s || !*s) cal_usage_error("%s: expected a number", opt);
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        cal_usage_error("%s: expected a finite number, got '%s'", opt, s);
    return v;
}

uint64_t cal_parse_size(const char *opt, const char *s) {
    char *end;
    if (!s || !*s || *s == '-' || *s == '+')
        cal_usage_error("%s: expected a size such as 512M, got '%s'", opt, s ? s : "");
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (end == s || errno) cal_usage_error("%s: expected a size such as 512M, got '%s'", opt, s);
    switch (*end) {
    case 0: break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: cal_usage_error("%s: bad size suffix in '%s' (use K, M, G or T)", opt, s);
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end) cal_usage_error("%s: bad size '%s'", opt, s);
    if (shift && v > (UINT64_MAX >> shift)) cal_usage_error("%s: size '%s' is too large", opt, s);
    return (uint64_t)v << shift;
}


const char *cal_fmt_double(double x, char *buf, size_t n) {
    for (int p = 6; p <= 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}
