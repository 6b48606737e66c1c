/* alloc.c - largest-remainder (Hamilton) allocation; see alloc.h. */
#include "rows/alloc.h"

#include "base/err.h"

#include <math.h>
#include <stdlib.h>

void cal_alloc_largest_remainder(uint64_t total, const double *w, size_t n, uint64_t *out) {
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += w[i];
    double *rem = cal_xmalloc((n ? n : 1) * sizeof *rem);
    uint64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        double q = sum > 0 ? (double)total * (w[i] / sum) : 0;
        double f = floor(q);
        out[i] = (uint64_t)f;
        rem[i] = q - f;
        given += out[i];
    }
    /* Rounding in q can in theory overshoot; take back from the smallest
     * remainders first (never happens with sane weights, but stay exact). */
    while (given > total) {
        size_t best = n;
        for (size_t i = 0; i < n; i++)
            if (out[i] && (best == n || rem[i] < rem[best])) best = i;
        out[best]--, rem[best] = 1, given--;
    }
    while (given < total) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (rem[i] > rem[best]) best = i;
        out[best]++, rem[best] = -1, given++;
        /* With every remainder used, start a new round (only when the
         * floors fell short by more than n, which rounding cannot cause). */
        int left = 0;
        for (size_t i = 0; i < n; i++) left |= rem[i] >= 0;
        if (!left)
            for (size_t i = 0; i < n; i++) rem[i] = w[i];
    }
    free(rem);
}

void cal_alloc_capped(uint64_t total, const double *w, const uint64_t *cap, size_t n, uint64_t *out) {
    double *wa = cal_xmalloc((n ? n : 1) * sizeof *wa);
    uint64_t *part = cal_xmalloc((n ? n : 1) * sizeof *part);
    uint8_t *fixed = cal_xcalloc(n ? n : 1, 1);
    uint64_t left = total;
    for (size_t i = 0; i < n; i++) out[i] = 0;
    for (int equal = 0; left;) {
        /* Share what is left among the parts not at their cap. */
        double sum = 0;
        for (size_t i = 0; i < n; i++) sum += wa[i] = fixed[i] ? 0 : equal ? 1 : w[i];
        if (!(sum > 0)) {
            if (equal) break; /* no room anywhere: sum(cap) < total */
            equal = 1;
            continue;
        }
        cal_alloc_largest_remainder(left, wa, n, part);
        int over = 0;
        for (size_t i = 0; i < n; i++) over |= !fixed[i] && part[i] > cap[i];
        if (!over) {
            for (size_t i = 0; i < n; i++)
                if (!fixed[i]) out[i] = part[i], left -= part[i];
            break;
        }
        for (size_t i = 0; i < n; i++)
            if (!fixed[i] && part[i] > cap[i]) out[i] = cap[i], left -= cap[i], fixed[i] = 1;
    }
    free(wa), free(part), free(fixed);
}
