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
 * written yet). The user's own OPENBLAS_CORETYPE always wins. Under an
 * address-space limit the re-execution also starts OpenBLAS without its
 * thread pool (see Memory). Returns when nothing is to be done, after the
 * re-execution, or when exec failed. */
void cal_blas_choose(char **argv);

/* The kernels in use, for -v: "SkylakeX kernels", "SkylakeX kernels, chosen
 * over OpenBLAS's Haswell", or "Haswell kernels, from OPENBLAS_CORETYPE". */
const char *cal_blas_kernels(void);

/* The library's name of its kernels ("SkylakeX", "Haswell", ...). */
const char *cal_blas_core(void);

/* Sets the BLAS thread count for multi-threaded calls (0 = leave the
 * library's default) and parks the library's thread pool until such a call:
 * idle, the pool spins in sched_yield beside the caller's threads. Under an
 * address-space limit (see Memory) n is held to the threads the library
 * has (one, without a pool). */
void cal_blas_threads(int n);

/* ---- Memory: OpenBLAS never fails an allocation, it waits --------------
 *
 * Each thread in a level-3 BLAS or LAPACK call takes a work buffer from
 * OpenBLAS's table, mapping a new one (CAL_BLAS_BUFFER bytes, kept for
 * reuse) when none is free; so does each thread of OpenBLAS's own pool when
 * it starts, keeping it until the pool is stopped. When the mapping fails
 * (the address-space limit of ulimit -v or ulimit -d) OpenBLAS 0.3.21 tries
 * again for ever (blas_memory_alloc): the program spins instead of failing.
 * Which buffers are mapped and free at a given moment cannot be known from
 * outside, and the pool's threads take theirs when they get to run. So
 * under such a limit cal_blas_choose starts the library again without its
 * pool (OPENBLAS_NUM_THREADS=1: LAPACK runs in the caller's thread),
 * cal_blas_threads never starts one, and callers count a fresh buffer for
 * every thread of their own that will call the BLAS: they run fewer
 * threads, or stop with "out of memory", where the limit leaves no room.
 * Without a limit nothing changes. */

/* OpenBLAS's buffer on x86-64 (BUFFER_SIZE, 32 << 22) and the page it adds,
 * as it asks malloc/mmap for it (0.3.21, seen in the debugger). */
#define CAL_BLAS_BUFFER (((size_t)128 << 20) + 4096)

/* The bytes of address space this process may still map under RLIMIT_AS
 * and RLIMIT_DATA (from /proc/self/status); SIZE_MAX when no limit is set
 * (or the kernel does not say what is used). *which (may be NULL) gets the
 * limit that leaves least: "ulimit -v" or "ulimit -d". */
size_t cal_address_room(const char **which);

/* The address space one new thread that calls the BLAS may come to map: a
 * work buffer (CAL_BLAS_BUFFER), its stack (the default thread stack size
 * and a guard page) and the malloc arena glibc gives it (64 MiB). */
size_t cal_blas_thread_bytes(void);

/* How many of `threads` new threads (1..threads), each to run BLAS calls at
 * the same time, fit in `room` bytes once more(t, ctx) bytes more are
 * mapped for t of them (more NULL: nothing more); 0 when not even one. */
int cal_blas_fit(int threads, size_t room, size_t (*more)(int t, void *ctx), void *ctx);

/* Says that a BLAS call that always takes a work buffer (dsyrk, unlike a
 * small dgemm) has returned: a buffer is mapped, free once no call runs. */
void cal_blas_took_buffer(void);

/* Before a BLAS or LAPACK call in this thread, no other running (the
 * buffer cal_blas_took_buffer saw is free then): stops with "out of memory" naming `what` when the
 * address-space limit leaves no room for a fresh buffer. */
void cal_blas_room_for_caller(const char *what);

#endif
