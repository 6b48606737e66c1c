/* oshint.h - hints to the kernel that make bulk I/O cheaper; each one does
 * nothing where the system has no such call.
 *
 * Pipes: a Linux pipe holds 64 KiB by default, so a stage that reads or
 * writes megabytes at a time is woken, and wakes its neighbour, every 64
 * KiB; with 256 KiB both ends switch 4 times less often while the pipe's
 * pages still fit a core's L2 cache. 1 MiB (the default
 * /proc/sys/fs/pipe-max-size) switched less still but cost more in copies
 * that missed the cache (measured on the 2-core VM, kernel 6.18, 256 MB
 * through `cat F | cal-cat --pass | cat`, medians of 7: cal-cat's CPU 0.060
 * s with 256 KiB pipes, 0.068 with 64 KiB, 0.084 with 1 MiB).
 *
 * Huge pages: the first write to a fresh buffer takes a page fault every
 * 4 KiB; a Parquet page of tens of MB decompressed into new memory spent
 * half its time there (measured: cal-read of a 47 MB text column, 2.2x
 * faster with 2 MiB pages, which the kernel gives where asked when
 * transparent huge pages are set to "madvise", the common default). */
#ifndef CAL_BASE_OSHINT_H
#define CAL_BASE_OSHINT_H

#include <stddef.h>

/* When fd is a pipe, asks for a 256 KiB buffer (or what the system allows). */
void cal_pipe_grow(int fd);

/* Asks for huge pages under the 2 MiB-aligned part of [p, p+n) (n of at
 * least 4 MiB; smaller buffers are left alone). */
void cal_hugepages(void *p, size_t n);

/* Starts writing a file's dirty pages to disk now, without waiting
 * (sync_file_range), so that the fsync that commits an atomic output waits
 * only for the last of them. */
void cal_writeback(int fd);

/* Runs the program again (exec, same argv) with glibc's malloc on
 * transparent huge pages (GLIBC_TUNABLES glibc.malloc.hugetlb=1, glibc 2.35
 * on) unless it is already, the user set that tunable, the system has huge
 * pages "never" or "always", or this is a sanitizer build; call it before
 * any side effect. For programs that build large tables at start: each
 * fresh 4 KiB page faults, and faults are dear on VMs (measured: cal-encode
 * loads Llama 3's tokenizer.json in 205 ms of CPU instead of 484, 18,700
 * faults down to 1,600; same output). Returns when nothing is to be done or
 * the exec failed. */
void cal_thp_malloc(char **argv);

/* n bytes of zeros (n > 0), 2 MiB-aligned and as long as whole 2 MiB pages,
 * with huge pages asked for: a buffer that cal_hugepages advises only
 * inside its 2 MiB-aligned part still faults its head and tail in 4 KiB
 * pages (measured: ~2,500 faults in one cal-hessian run, 3-5% of its CPU
 * time). Below 2 MiB, or where anonymous mappings are missing, calloc.
 * Dies when out of memory. Free it with cal_huge_free and the same n. */
void *cal_huge_zalloc(size_t n);
void cal_huge_free(void *p, size_t n);

#endif
