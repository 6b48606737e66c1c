/* jinja_complex.c - Python's complex numbers, which a template meets when
 * a negative number is raised to a fractional power ((-8) ** 0.5 is
 * (1.7319121124709868e-16+2.8284271247461903j) in Python, not an error):
 * the value, its repr, and arithmetic with numbers and other complex
 * numbers computed as CPython computes them (the same products, Smith's
 * division, hypot/atan2/pow/cos/sin for powers, repeated squaring for
 * small integer exponents), so the digits agree. */
#include <math.h>
#include <string.h>

#include "jinja/jinja_int.h"

jj_val jj_complex_new(jj_rt *rt, double re, double im) {
    jj_complex *c = jj_alloc(&rt->ar, sizeof *c);
    c->re = re, c->im = im;
    jj_val v = {JJ_COMPLEX, 0, {.c = c}};
    return v;
}

/* A float in repr's shortest form, without repr's ".0" (complex repr). */
static void part(jj_rt *rt, jj_buf *b, double f, int sign, jj_float_fmt float_repr) {
    if (sign && !(f < 0) && !(isnan(f) && signbit(f))) jj_buf_addc(rt, b, '+');
    if (isnan(f)) {
        jj_buf_adds(rt, b, "nan");
        return;
    }
    jj_buf t = {0};
    float_repr(rt, &t, f);
    if (t.n >= 2 && t.p[t.n - 2] == '.' && t.p[t.n - 1] == '0') t.n -= 2;
    jj_buf_add(rt, b, t.p, t.n);
}

void jj_complex_repr(jj_rt *rt, jj_buf *b, const jj_complex *c, jj_float_fmt float_repr) {
    if (c->re == 0 && !signbit(c->re)) { /* +0 real part: the imaginary part alone */
        part(rt, b, c->im, 0, float_repr);
        jj_buf_addc(rt, b, 'j');
        return;
    }
    jj_buf_addc(rt, b, '(');
    part(rt, b, c->re, 0, float_repr);
    part(rt, b, c->im, 1, float_repr);
    jj_buf_adds(rt, b, "j)");
}

static jj_complex prod(jj_complex a, jj_complex b) {
    jj_complex r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}

/* Smith's division, as CPython's _Py_c_quot; *zero set for b == 0. */
static jj_complex quot(jj_complex a, jj_complex b, int *zero) {
    jj_complex r = {0, 0};
    double abr = fabs(b.re), abi = fabs(b.im);
    if (abr >= abi) {
        if (abr == 0.0) {
            *zero = 1;
            return r;
        }
        double ratio = b.im / b.re, denom = b.re + b.im * ratio;
        r.re = (a.re + a.im * ratio) / denom;
        r.im = (a.im - a.re * ratio) / denom;
    } else if (abi >= abr) {
        double ratio = b.re / b.im, denom = b.re * ratio + b.im;
        r.re = (a.re * ratio + a.im) / denom;
        r.im = (a.im * ratio - a.re) / denom;
    } else { /* a NaN among them */
        r.re = r.im = NAN;
    }
    return r;
}

/* a ** b: repeated squaring for an integral exponent up to 100 in size,
 * else polar form. */
static jj_complex power(jj_rt *rt, jj_complex a, jj_complex b) {
    jj_complex r = {1, 0};
    int zero = 0;
    if (b.im == 0 && b.re == floor(b.re) && fabs(b.re) <= 100) {
        long n = (long)b.re, u = n < 0 ? -n : n;
        jj_complex p = a;
        for (long mask = 1; mask > 0 && u >= mask; mask <<= 1) {
            if (u & mask) r = prod(r, p);
            p = prod(p, p);
        }
        if (n < 0) {
            jj_complex one = {1, 0};
            r = quot(one, r, &zero);
            if (zero) jj_fail(rt, "ZeroDivisionError: 0.0 to a negative or complex power");
        }
    } else if (b.re == 0 && b.im == 0) {
        r.re = 1, r.im = 0;
    } else if (a.re == 0 && a.im == 0) {
        if (b.im != 0 || b.re < 0) jj_fail(rt, "ZeroDivisionError: 0.0 to a negative or complex power");
        r.re = r.im = 0;
    } else {
        double vabs = hypot(a.re, a.im), len = pow(vabs, b.re), at = atan2(a.im, a.re), phase = at * b.re;
        if (b.im != 0) {
            len /= exp(at * b.im);
            phase += b.im * log(vabs);
        }
        r.re = len * cos(phase);
        r.im = len * sin(phase);
    }
    if (isinf(r.re) || isinf(r.im)) jj_fail(rt, "OverflowError: complex exponentiation");
    return r;
}

jj_val jj_complex_pow_real(jj_rt *rt, double x, double y) {
    jj_complex a = {x, 0}, b = {y, 0};
    jj_complex r = power(rt, a, b);
    return jj_complex_new(rt, r.re, r.im);
}

jj_val jj_complex_binop(jj_rt *rt, int op, jj_complex x, jj_complex y, const char *an, const char *bn) {
    jj_complex r = {0, 0};
    int zero = 0;
    switch (op) {
    case OP_ADD: r.re = x.re + y.re, r.im = x.im + y.im; break;
    case OP_SUB: r.re = x.re - y.re, r.im = x.im - y.im; break;
    case OP_MUL: r = prod(x, y); break;
    case OP_DIV:
        r = quot(x, y, &zero);
        if (zero) jj_fail(rt, "ZeroDivisionError: complex division by zero");
        break;
    case OP_POW: r = power(rt, x, y); break;
    default:
        jj_fail(rt, "TypeError: unsupported operand type(s) for %s: '%s' and '%s'", op == OP_MOD ? "%" : "//",
                an, bn);
    }
    return jj_complex_new(rt, r.re, r.im);
}
