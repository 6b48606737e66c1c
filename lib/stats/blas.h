/* blas.h - which OpenBLAS kernels the Hessian runs on, and the BLAS threads.
 *
 * OpenBLAS picks its kernels ("core") once, when the library loads, from the
 * CPU's family and model; a CPU it does not know (newer than the library, or
 * a VM that hides its model) falls back to an older core: Debian's 0.3.21
 * runs AVX-512 Xeons and Zen 4/5 on its AVX2 kernels (Haswell, Zen), and a
 * masked model on the generic SSE3 kernels (Prescott), 6x slower. The only
 * way to change the core is OPENBLAS_CORETYPE at load time, so the choice
 * below is made from the CPUID feature bits and applied by executing the
 * program again with that variable set.
 *
 * Why OpenBLAS and not BLIS (Debian's libblis 0.9.0), measured on a Zen 5
 * that hides its model, one thread, d = 2048, 2048 rows (2026-11): BLIS's
 * own dispatch chose its generic kernels there (15 GFLOP/s); forced to its
 * AVX-512 kernels (BLIS_ARCH_TYPE=skx) it ran dsyrk at 75 GFLOP/s and the
 * 512-column tile products at 78, OpenBLAS's Cooperlake kernels 69 and 66.
 * Both sum in float64 and are deterministic for a given shape. 7-15% did
 * not pay for a second BLAS: BLIS needs the same forcing from CPUID, and
 * cal-hessian still needs LAPACK (dpotrf) from OpenBLAS.
 *
 *     int main(int argc, char **argv) {
 *         cal_blas_choose(argv);          // may re-execute; returns otherwise
 *         ...
 *         fprintf(stderr, "(%s)", cal_blas_kernels());
 */
#ifndef CAL_STATS_BLAS_H
#define CAL_STATS_BLAS_H

/* The CPU features that decide between OpenBLAS's x86-64 cores (each one
 * only where the OS saves the registers it needs). */
typedef struct {
    int sse3, ssse3, sse42;
    int avx;      /* AVX with YMM state enabled */
    int avx2fma;  /* AVX2 and FMA3 */
    int avx512;   /* AVX-512 F, BW, DQ and VL with ZMM state enabled */
    int amd;      /* AMD or Hygon: Zen kernels instead of Haswell for AVX2 */
} cal_cpu_features;

/* This CPU's features (all zero on other architectures). */
void cal_cpu_features_host(cal_cpu_features *f);

/* The best OpenBLAS core for float64 level-3 work on a CPU with features f:
 * AVX-512 -> SkylakeX (Intel and Zen 4/5 alike: OpenBLAS 0.3.22 and later
 * map Zen 4 there too; Cooperlake and SapphireRapids add only bf16/fp16
 * kernels), AVX2+FMA -> Zen on AMD, Haswell elsewhere, AVX -> Sandybridge,
 * SSE4.2 -> Nehalem, SSSE3 -> Core2, SSE3 -> Prescott; NULL below SSE3. */
const char *cal_blas_best_core(const cal_cpu_features *f);

/* The generation of an OpenBLAS x86-64 core name (case-insensitive): SSE2
 * cores 1 < Prescott 2 < Core2 3 < Nehalem 4 < Sandybridge 5 < Haswell, Zen
 * 6 < SkylakeX, Cooperlake, SapphireRapids 7; the older AMD, Atom and Nano
 * cores sit at the level of their instructions. 0 for a name not known here. */
int cal_blas_core_rank(const char *name);

/* The core to switch to when OpenBLAS chose `current` on a CPU with features
 * f: the best core, when it is of a later generation than current; NULL to
 * keep current (also when current is a name not known here: a newer library
 * knows better). */
const char *cal_blas_upgrade(const char *current, const cal_cpu_features *f);

/* Applies cal_blas_upgrade to this CPU: sets OPENBLAS_CORETYPE and
 * re-executes the program with the same argv (nothing may have been read or
 * written yet). The user's own OPENBLAS_CORETYPE always wins. Returns when
 * nothing is to be done, after the re-execution, or when exec failed. */
void cal_blas_choose(char **argv);

/* The kernels in use, for -v: "SkylakeX kernels", "SkylakeX kernels, chosen
 * over OpenBLAS's Haswell", or "Haswell kernels, from OPENBLAS_CORETYPE". */
const char *cal_blas_kernels(void);

/* The library's name of its kernels ("SkylakeX", "Haswell", ...). */
const char *cal_blas_core(void);

/* Sets the BLAS thread count for multi-threaded calls (0 = leave the
 * library's default) and parks the library's thread pool until such a call:
 * idle, the pool spins in sched_yield beside the caller's threads. */
void cal_blas_threads(int n);

#endif
