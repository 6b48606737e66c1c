/* jinja_bigint.c - Python's int beyond 64 bits. Templates see the integers
 * of their records unchanged (an order id of 20 digits, json.loads gives an
 * int) and compute with them as Python does: + - * // % **, true division
 * and float conversion correctly rounded, exact comparison with floats,
 * str() refused past 4300 digits (sys.get_int_max_str_digits(), as the
 * Python that runs transformers refuses it). The arithmetic is GMP's mpn
 * layer on limbs in the render's arena: GMP keeps no memory of its own
 * between calls, so an error's longjmp leaks nothing. Values up to
 * JJ_BIG_MAX_LIMBS limbs; past that an OverflowError (Python would go on). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jinja/jinja_int.h"

_Static_assert(GMP_NAIL_BITS == 0, "GMP with nail bits");
#define LB GMP_NUMB_BITS

/* An int's sign and magnitude; small ones in the one-limb buffer. */
typedef struct {
    int neg;
    size_t n;             /* 0 for zero */
    const mp_limb_t *d;
    mp_limb_t one[2];
} mag;

static void mag_of(jj_val v, mag *m) {
    if (v.t == JJ_BIG) {
        m->neg = v.u.z->neg;
        m->n = v.u.z->n;
        m->d = v.u.z->d;
        return;
    }
    int64_t i = v.u.i;
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    m->neg = i < 0;
    m->d = m->one;
#if GMP_NUMB_BITS >= 64
    m->one[0] = (mp_limb_t)u;
    m->n = u != 0;
#else
    m->one[0] = (mp_limb_t)u;
    m->one[1] = (mp_limb_t)(u >> 32);
    m->n = m->one[1] ? 2 : u != 0;
#endif
}

int jj_is_int(jj_val v) { return v.t == JJ_INT || v.t == JJ_BOOL || v.t == JJ_BIG; }

static CAL_NORETURN void too_big(jj_rt *rt) {
    jj_fail(rt, "OverflowError: integer too large (calkit's integers hold up to %d bits)", JJ_BIG_MAX_LIMBS * LB);
}

/* Room for a result of n limbs. */
static jj_big *big_new(jj_rt *rt, size_t n) {
    if (n > JJ_BIG_MAX_LIMBS + 2) too_big(rt);
    jj_big *z = jj_alloc(&rt->ar, sizeof *z + (n ? n : 1) * sizeof(mp_limb_t));
    z->neg = 0;
    z->n = n;
    return z;
}

/* z (its top zero limbs dropped) as a value: JJ_INT when it fits. */
static jj_val finish(jj_rt *rt, jj_big *z, int neg) {
    size_t n = z->n;
    while (n && z->d[n - 1] == 0) n--;
    z->n = n;
    if (n > JJ_BIG_MAX_LIMBS) too_big(rt);
    uint64_t u = 0;
    int fits = 0;
#if GMP_NUMB_BITS >= 64
    if (n <= 1) u = n ? (uint64_t)z->d[0] : 0, fits = 1;
#else
    if (n <= 2) u = (n ? z->d[0] : 0) | (n > 1 ? (uint64_t)z->d[1] << 32 : 0), fits = 1;
#endif
    if (fits && (u <= (uint64_t)INT64_MAX || (neg && u == (uint64_t)INT64_MAX + 1)))
        return jj_int(neg ? (int64_t)(0 - u) : (int64_t)u);
    z->neg = neg;
    jj_val v = {JJ_BIG, 0, {.z = z}};
    return v;
}

static void charge(jj_rt *rt, size_t limbs) { jj_charge_bytes(&rt->ar, limbs * sizeof(mp_limb_t)); }

/* |x| + |y| or |x| - |y| (|x| >= |y|) into a new big. */
static jj_big *add_mag(jj_rt *rt, const mag *x, const mag *y) {
    const mag *a = x->n >= y->n ? x : y, *b = x->n >= y->n ? y : x;
    jj_big *z = big_new(rt, a->n + 1);
    if (!a->n) { z->n = 0; return z; }
    mp_limb_t c = b->n ? mpn_add(z->d, a->d, a->n, b->d, b->n) : (mpn_copyi(z->d, a->d, (mp_size_t)a->n), 0);
    z->d[a->n] = c;
    return z;
}

static int cmp_mag(const mag *x, const mag *y) {
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    int c = x->n ? mpn_cmp(x->d, y->d, (mp_size_t)x->n) : 0;
    return c < 0 ? -1 : c > 0;
}

static jj_big *sub_mag(jj_rt *rt, const mag *a, const mag *b) {
    jj_big *z = big_new(rt, a->n);
    if (!a->n) return z;
    if (b->n) mpn_sub(z->d, a->d, (mp_size_t)a->n, b->d, (mp_size_t)b->n);
    else mpn_copyi(z->d, a->d, (mp_size_t)a->n);
    return z;
}

/* x + y with signs (sub: y's sign flipped). */
static jj_val add_signed(jj_rt *rt, mag *x, mag *y, int sub) {
    int yneg = y->neg ^ sub;
    charge(rt, x->n + y->n);
    if (x->neg == yneg) return finish(rt, add_mag(rt, x, y), x->neg);
    int c = cmp_mag(x, y);
    if (c == 0) return jj_int(0);
    if (c > 0) return finish(rt, sub_mag(rt, x, y), x->neg);
    return finish(rt, sub_mag(rt, y, x), yneg);
}

jj_val jj_int_add(jj_rt *rt, jj_val a, jj_val b) {
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    return add_signed(rt, &x, &y, 0);
}

jj_val jj_int_sub(jj_rt *rt, jj_val a, jj_val b) {
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    return add_signed(rt, &x, &y, 1);
}

static jj_big *mul_mag(jj_rt *rt, const mag *x, const mag *y) {
    const mag *a = x->n >= y->n ? x : y, *b = x->n >= y->n ? y : x;
    if (a->n + b->n > JJ_BIG_MAX_LIMBS + 1) too_big(rt);
    jj_big *z = big_new(rt, a->n + b->n);
    if (!b->n) { z->n = 0; return z; }
    charge(rt, a->n * b->n);
    if (a == b || (a->n == b->n && a->d == b->d)) mpn_sqr(z->d, a->d, (mp_size_t)a->n);
    else mpn_mul(z->d, a->d, (mp_size_t)a->n, b->d, (mp_size_t)b->n);
    return z;
}

jj_val jj_int_mul(jj_rt *rt, jj_val a, jj_val b) {
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    return finish(rt, mul_mag(rt, &x, &y), x.neg != y.neg);
}

jj_val jj_int_neg(jj_rt *rt, jj_val a) {
    mag x;
    mag_of(a, &x);
    jj_big *z = big_new(rt, x.n);
    if (x.n) mpn_copyi(z->d, x.d, (mp_size_t)x.n);
    return finish(rt, z, !x.neg && x.n);
}

jj_val jj_int_abs(jj_rt *rt, jj_val a) {
    mag x;
    mag_of(a, &x);
    if (!x.neg) return a.t == JJ_BOOL ? jj_int(a.u.i) : a;
    return jj_int_neg(rt, a);
}

/* Python's divmod: q = floor(a / b), r = a - q*b (the sign of b). */
void jj_int_divmod(jj_rt *rt, jj_val a, jj_val b, jj_val *q, jj_val *r) {
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    if (!y.n) jj_fail(rt, "ZeroDivisionError: integer division or modulo by zero");
    jj_big *qz, *rz;
    if (x.n < y.n) {
        qz = big_new(rt, 1), qz->n = 1, qz->d[0] = 0;
        rz = big_new(rt, x.n);
        if (x.n) mpn_copyi(rz->d, x.d, (mp_size_t)x.n);
    } else {
        charge(rt, (x.n - y.n + 1) * y.n);
        qz = big_new(rt, x.n - y.n + 2);
        rz = big_new(rt, y.n);
        mpn_tdiv_qr(qz->d, rz->d, 0, x.d, (mp_size_t)x.n, y.d, (mp_size_t)y.n);
        qz->d[x.n - y.n + 1] = 0;
        qz->n = x.n - y.n + 2;
        rz->n = y.n;
    }
    size_t rn = rz->n;
    while (rn && rz->d[rn - 1] == 0) rn--;
    rz->n = rn;
    if (x.neg != y.neg && rn) {
        /* floor: q + 1 in magnitude (negative), r = |b| - r */
        size_t qn = qz->n;
        mp_limb_t one = 1;
        mpn_add(qz->d, qz->d, (mp_size_t)qn, &one, 1);
        mpn_sub(rz->d, y.d, (mp_size_t)y.n, rz->d, (mp_size_t)rn);
        rz->n = y.n;
    }
    if (q) *q = finish(rt, qz, x.neg != y.neg);
    if (r) *r = finish(rt, rz, y.neg);
}

/* Bits of |x| (0 for zero). */
static uint64_t bitlen(const mag *x) {
    if (!x->n) return 0;
    mp_limb_t top = x->d[x->n - 1];
    int k = 0;
    while (top) k++, top >>= 1;
    return (uint64_t)(x->n - 1) * LB + (uint64_t)k;
}

jj_val jj_int_pow(jj_rt *rt, jj_val a, jj_val b) {
    mag x, e;
    mag_of(a, &x), mag_of(b, &e);
    if (e.neg) jj_fail(rt, "internal error: a negative exponent");
    if (!e.n) return jj_int(1);
    if (!x.n) return jj_int(0);
    if (x.n == 1 && x.d[0] == 1) return jj_int(x.neg && (e.d[0] & 1) ? -1 : 1);
    /* the result has about bitlen(x) * e bits: refused before the work */
    uint64_t bx = bitlen(&x) - 1; /* |x| >= 2^bx, bx >= 1 unless |x| = 1 */
    if (bx == 0) bx = 1; /* |x| in 2..3: at least one bit per factor */
    if (e.n > 1 || (uint64_t)e.d[0] > (uint64_t)JJ_BIG_MAX_LIMBS * LB / bx) too_big(rt);
    uint64_t k = (uint64_t)e.d[0];
    /* left to right binary powering */
    jj_val r = jj_int(1), base = a.t == JJ_BOOL ? jj_int(a.u.i) : a;
    int top = 63;
    while (!((k >> top) & 1)) top--;
    for (int i = top; i >= 0; i--) {
        r = jj_int_mul(rt, r, r);
        if ((k >> i) & 1) r = jj_int_mul(rt, r, base);
    }
    return r;
}

int jj_int_cmp(jj_val a, jj_val b) {
    if (a.t != JJ_BIG && b.t != JJ_BIG) return a.u.i < b.u.i ? -1 : a.u.i > b.u.i;
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    if (x.neg != y.neg) return x.neg ? -1 : 1;
    int c = cmp_mag(&x, &y);
    return x.neg ? -c : c;
}

int jj_int_sign(jj_val a) {
    if (a.t == JJ_BIG) return a.u.z->neg ? -1 : 1;
    return a.u.i < 0 ? -1 : a.u.i > 0;
}

int jj_int_odd(jj_val a) {
    if (a.t == JJ_BIG) return (int)(a.u.z->d[0] & 1);
    return (int)(a.u.i & 1);
}

/* The integer part of |f| (finite) as limbs (at most 1024 bits). */
static size_t mag_of_double(double f, mp_limb_t *d, size_t cap) {
    f = fabs(trunc(f));
    memset(d, 0, cap * sizeof *d);
    if (f == 0) return 0;
    int ex;
    double m = frexp(f, &ex);               /* f = m * 2^ex, 0.5 <= m < 1 */
    uint64_t mant = (uint64_t)ldexp(m, 53); /* exact: f = mant * 2^(ex - 53) */
    int sh = ex - 53;
    if (sh < 0) mant >>= -sh, sh = 0;       /* f is an integer: nothing is lost */
    size_t limb = (size_t)sh / LB;
    unsigned bit = (unsigned)sh % LB;
    unsigned __int128 w = (unsigned __int128)mant << bit;
    for (size_t i = 0; w && limb + i < cap; i++, w >>= LB) d[limb + i] = (mp_limb_t)w;
    size_t n = cap;
    while (n && d[n - 1] == 0) n--;
    return n;
}

/* Exact comparison with a double: -1, 0, 1, or 2 for NaN. */
int jj_int_cmp_float(jj_val a, double f) {
    if (isnan(f)) return 2;
    if (isinf(f)) return f > 0 ? -1 : 1;
    int sa = jj_int_sign(a), sf = f < 0 ? -1 : f > 0;
    if (sa != sf) return sa < sf ? -1 : 1;
    if (sa == 0) return 0;
    mag x;
    mag_of(a, &x);
    mp_limb_t d[1024 / LB + 2];
    mag y = {0, 0, d, {0, 0}};
    y.n = mag_of_double(f, d, sizeof d / sizeof *d);
    int c = cmp_mag(&x, &y);
    if (c == 0 && f != trunc(f)) c = -1; /* |a| is |f|'s integer part: |f| is more */
    return sa > 0 ? c : -c;
}

jj_val jj_int_from_double(jj_rt *rt, double f) {
    if (isnan(f)) jj_fail(rt, "ValueError: cannot convert float NaN to integer");
    if (isinf(f)) jj_fail(rt, "OverflowError: cannot convert float infinity to integer");
    if (f > -9223372036854775808.0 && f < 9223372036854775808.0) return jj_int((int64_t)f);
    jj_big *z = big_new(rt, 1024 / LB + 2);
    z->n = mag_of_double(f, z->d, 1024 / LB + 2);
    return finish(rt, z, f < 0);
}

/* The 64 bits of |x| from bit `shift` up (the window spans two limbs at
 * most); *sticky is set when a bit below `shift` is 1. */
static uint64_t bits_at(const mag *x, uint64_t shift, int *sticky) {
    uint64_t r = 0;
    size_t limb = (size_t)(shift / LB);
    unsigned bit = (unsigned)(shift % LB);
    for (size_t i = 0; i < 2 && limb + i < x->n; i++) {
        unsigned __int128 w = (unsigned __int128)x->d[limb + i] << (i * LB);
        r |= (uint64_t)(w >> bit);
    }
    int s = 0;
    for (size_t i = 0; i < limb && i < x->n && !s; i++) s = x->d[i] != 0;
    if (!s && bit && limb < x->n) s = (x->d[limb] & (((mp_limb_t)1 << bit) - 1)) != 0;
    *sticky |= s;
    return r;
}

/* float(a), correctly rounded (half to even), as PyLong_AsDouble. */
double jj_int_to_double(jj_rt *rt, jj_val a) {
    if (a.t != JJ_BIG) return (double)a.u.i;
    mag x;
    mag_of(a, &x);
    uint64_t nb = bitlen(&x);
    if (nb > DBL_MAX_EXP) jj_fail(rt, "OverflowError: int too large to convert to float");
    /* keep 55 bits (53 + guard + round) and a sticky bit */
    int sticky = 0;
    uint64_t shift = nb - 55;
    uint64_t top = bits_at(&x, shift, &sticky) & (((uint64_t)1 << 55) - 1);
    uint64_t q = top >> 2;
    /* the dropped part: more than half, or half with q odd, rounds up */
    if ((top & 2) && ((top & 1) || sticky || (q & 1))) q++;
    double r = ldexp((double)q, (int)shift + 2);
    if (isinf(r)) jj_fail(rt, "OverflowError: int too large to convert to float");
    return x.neg ? -r : r;
}

/* a / b for ints, correctly rounded (CPython's long_true_divide). */
double jj_int_truediv(jj_rt *rt, jj_val a, jj_val b) {
    mag x, y;
    mag_of(a, &x), mag_of(b, &y);
    if (!y.n) jj_fail(rt, "ZeroDivisionError: division by zero");
    int neg = x.neg != y.neg;
    if (!x.n) return neg ? -0.0 : 0.0;
    uint64_t ab = bitlen(&x), bb = bitlen(&y);
    if (ab <= DBL_MANT_DIG && bb <= DBL_MANT_DIG) {
        double r = (double)x.d[0] / (double)y.d[0];
        return neg ? -r : r;
    }
    int64_t diff = (int64_t)ab - (int64_t)bb;
    if (diff > DBL_MAX_EXP) jj_fail(rt, "OverflowError: integer division result too large for a float");
    if (diff < DBL_MIN_EXP - DBL_MANT_DIG - 1) return neg ? -0.0 : 0.0;
    int64_t shift = (diff > DBL_MIN_EXP ? diff : DBL_MIN_EXP) - DBL_MANT_DIG - 2;
    int inexact = 0;
    /* t = |a| * 2^-shift (truncated), then t // |b| */
    size_t tn;
    mp_limb_t *t;
    if (shift <= 0) {
        uint64_t s = (uint64_t)-shift;
        tn = x.n + (size_t)(s / LB) + 1;
        if (tn > JJ_BIG_MAX_LIMBS * 2 + 64) too_big(rt);
        t = jj_alloc(&rt->ar, tn * sizeof *t);
        memset(t, 0, tn * sizeof *t);
        size_t limbs = (size_t)(s / LB);
        unsigned bits = (unsigned)(s % LB);
        if (bits) t[limbs + x.n] = mpn_lshift(t + limbs, x.d, (mp_size_t)x.n, bits);
        else mpn_copyi(t + limbs, x.d, (mp_size_t)x.n);
    } else {
        size_t limbs = (size_t)((uint64_t)shift / LB);
        unsigned bits = (unsigned)((uint64_t)shift % LB);
        for (size_t i = 0; i < limbs && !inexact; i++) inexact = x.d[i] != 0;
        tn = x.n - limbs;
        t = jj_alloc(&rt->ar, (tn + 1) * sizeof *t);
        if (bits) {
            if (mpn_rshift(t, x.d + limbs, (mp_size_t)tn, bits)) inexact = 1;
        } else {
            mpn_copyi(t, x.d + limbs, (mp_size_t)tn);
        }
    }
    while (tn && t[tn - 1] == 0) tn--;
    /* the quotient has about DBL_MANT_DIG + 2 bits */
    uint64_t q = 0;
    if (tn >= y.n) {
        charge(rt, tn);
        mp_limb_t *qd = jj_alloc(&rt->ar, (tn - y.n + 1) * sizeof *qd);
        mp_limb_t *rd = jj_alloc(&rt->ar, y.n * sizeof *rd);
        mpn_tdiv_qr(qd, rd, 0, t, (mp_size_t)tn, y.d, (mp_size_t)y.n);
        for (size_t i = 0; i < y.n && !inexact; i++) inexact = rd[i] != 0;
        size_t qn = tn - y.n + 1;
        q = (uint64_t)qd[0];
#if GMP_NUMB_BITS < 64
        if (qn > 1) q |= (uint64_t)qd[1] << 32;
#endif
        (void)qn;
    } else {
        inexact = inexact || tn;
    }
    int qbits = 0;
    for (uint64_t w = q; w; w >>= 1) qbits++;
    int64_t extra = (qbits > DBL_MIN_EXP - shift ? qbits : DBL_MIN_EXP - shift) - DBL_MANT_DIG;
    uint64_t mask = (uint64_t)1 << (extra - 1);
    uint64_t low = q | (uint64_t)inexact;
    if ((low & mask) && (low & (3 * mask - 1))) q += mask;
    q &= ~(2 * mask - 1);
    double dx = (double)q;
    qbits = 0;
    for (uint64_t w = q; w; w >>= 1) qbits++;
    if (shift + qbits >= DBL_MAX_EXP && (shift + qbits > DBL_MAX_EXP || dx == ldexp(1.0, qbits)))
        jj_fail(rt, "OverflowError: integer division result too large for a float");
    double r = ldexp(dx, (int)shift);
    return neg ? -r : r;
}

uint64_t jj_int_hash(jj_val a) {
    mag x;
    mag_of(a, &x);
    uint64_t h = x.neg ? 0x9ae16a3b2f90404fULL : 0xc3a5c85c97cb3127ULL;
    for (size_t i = 0; i < x.n; i++) {
        h ^= (uint64_t)x.d[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

uint64_t jj_float_int_hash(double f) {
    mp_limb_t d[1024 / LB + 2];
    size_t n = mag_of_double(f, d, sizeof d / sizeof *d);
    uint64_t h = f < 0 ? 0x9ae16a3b2f90404fULL : 0xc3a5c85c97cb3127ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)d[i];
        h *= 0x100000001b3ULL;
        h ^= h >> 29;
    }
    return h;
}

int jj_int_to_i64(jj_val a, int64_t *out) {
    if (a.t == JJ_BIG) return 0;
    *out = a.u.i;
    return 1;
}

/* ---- text ---- */

#define MAX_STR_DIGITS 4300

static CAL_NORETURN void digits_limit(jj_rt *rt, size_t have) {
    if (have)
        jj_fail(rt, "ValueError: Exceeds the limit (%d digits) for integer string conversion: value has %zu "
                "digits; use sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS, have);
    jj_fail(rt, "ValueError: Exceeds the limit (%d digits) for integer string conversion; use "
            "sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS);
}

/* The digits of |a| in base (2, 8, 10 or 16; upper for A-F) appended to b,
 * no sign. Base 10 past 4300 digits is Python's ValueError. */
void jj_int_digits(jj_rt *rt, jj_buf *b, jj_val a, int base, int upper) {
    mag x;
    mag_of(a, &x);
    if (!x.n) {
        jj_buf_addc(rt, b, '0');
        return;
    }
    mpz_t view;
    mpz_roinit_n(view, x.d, (mp_size_t)x.n);
    if (base == 10 && mpz_sizeinbase(view, 10) > MAX_STR_DIGITS + 1) digits_limit(rt, 0);
    /* mpn_get_str wants room for any number of x.n limbs, and one more */
    size_t cap = x.n * (base == 2 ? LB : base == 8 ? LB / 3 + 1 : base == 16 ? LB / 4 : LB * 31 / 100 + 1) + 2;
    charge(rt, x.n * (base == 10 ? 8 : 1));
    unsigned char *s = jj_alloc(&rt->ar, cap);
    mp_limb_t *tmp = jj_alloc(&rt->ar, (x.n + 1) * sizeof *tmp);
    mpn_copyi(tmp, x.d, (mp_size_t)x.n);
    size_t k = mpn_get_str(s, base, tmp, (mp_size_t)x.n), i = 0;
    while (i + 1 < k && s[i] == 0) i++;
    if (base == 10 && k - i > MAX_STR_DIGITS) digits_limit(rt, 0);
    for (size_t j = i; j < k; j++) s[j] = (unsigned char)(s[j] < 10 ? '0' + s[j] : (upper ? 'A' : 'a') + s[j] - 10);
    jj_buf_add(rt, b, s + i, k - i);
}

void jj_int_str(jj_rt *rt, jj_buf *b, jj_val a) {
    if (a.t != JJ_BIG) {
        jj_buf_addf(rt, b, "%lld", (long long)a.u.i);
        return;
    }
    if (a.u.z->neg) jj_buf_addc(rt, b, '-');
    jj_int_digits(rt, b, a, 10, 0);
}

/* The value of digit characters (0-9, a-z, A-Z; no sign, no '_') valid
 * in base, allocated in a; NULL with *why set when Python refuses them
 * (past 4300 decimal digits) or calkit cannot hold them. */
static int parse_core(jj_arena *a, const char *p, size_t n, int base, int neg, jj_val *out, size_t *digits) {
    int pow2 = (base & (base - 1)) == 0;
    if (!pow2 && n > MAX_STR_DIGITS) { *digits = n; return -1; } /* leading zeros count */
    while (n > 1 && *p == '0') p++, n--;
    if (n <= 18 && base <= 10) {
        int64_t v = 0;
        for (size_t i = 0; i < n; i++) v = v * base + (p[i] - '0');
        *out = jj_int(neg ? -v : v);
        return 0;
    }
    if (n == 1 && *p == '0') { *out = jj_int(0); return 0; }
    int bits = 1; /* at most bits per digit */
    while ((1 << bits) < base) bits++;
    size_t limbs = n * (size_t)bits / LB + 2;
    if (limbs > JJ_BIG_MAX_LIMBS + 2) return -2;
    unsigned char *dv = jj_alloc(a, n);
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        dv[i] = (unsigned char)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
    }
    jj_big *z = jj_alloc(a, sizeof *z + limbs * sizeof(mp_limb_t));
    z->n = (size_t)mpn_set_str(z->d, dv, n, base);
    while (z->n && z->d[z->n - 1] == 0) z->n--;
    if (z->n > JJ_BIG_MAX_LIMBS) return -2;
    uint64_t u = z->n ? (uint64_t)z->d[0] : 0;
    if (z->n <= 1 && (u <= (uint64_t)INT64_MAX || (neg && u == (uint64_t)INT64_MAX + 1))) {
        *out = jj_int(neg ? (int64_t)(0 - u) : (int64_t)u);
        return 0;
    }
    z->neg = neg;
    jj_val v = {JJ_BIG, 0, {.z = z}};
    *out = v;
    return 0;
}

jj_val jj_int_parse(jj_rt *rt, const char *p, size_t n, int base, int neg) {
    jj_val v;
    size_t digits = 0;
    charge(rt, n / 8 + 1);
    int rc = parse_core(&rt->ar, p, n, base, neg, &v, &digits);
    if (rc == -1) digits_limit(rt, digits);
    if (rc == -2) too_big(rt);
    return v;
}

int jj_int_literal(jj_arena *a, const char *p, size_t n, int base, jj_val *out, char *why, size_t whylen) {
    size_t digits = 0;
    int rc = parse_core(a, p, n, base, 0, out, &digits);
    if (rc == -1)
        snprintf(why, whylen, "ValueError: Exceeds the limit (%d digits) for integer string conversion: value has %zu "
                 "digits; use sys.set_int_max_str_digits() to increase the limit", MAX_STR_DIGITS, digits);
    if (rc == -2) snprintf(why, whylen, "OverflowError: integer too large (calkit's integers hold up to %d bits)",
                           JJ_BIG_MAX_LIMBS * LB);
    return rc ? -1 : 0;
}

/* round(a, nd) for nd < 0: to a multiple of 10^-nd, halves to even. */
jj_val jj_int_round(jj_rt *rt, jj_val a, int64_t nd) {
    if (nd >= 0) return a.t == JJ_BOOL ? jj_int(a.u.i) : a;
    mag x;
    mag_of(a, &x);
    uint64_t nb = bitlen(&x);
    /* 10^k > |a| once k > nb * log10(2) + 1: the result is 0 */
    if ((uint64_t)(-(nd + 1)) > nb / 3 + 1) return jj_int(0);
    jj_val p = jj_int_pow(rt, jj_int(10), jj_int(-nd)), q, r;
    jj_int_divmod(rt, a, p, &q, &r);
    /* r in [0, p): up when 2r > p, or 2r == p and q odd */
    int c = jj_int_cmp(jj_int_mul(rt, r, jj_int(2)), p);
    if (c > 0 || (c == 0 && jj_int_odd(q))) q = jj_int_add(rt, q, jj_int(1));
    return jj_int_mul(rt, q, p);
}
