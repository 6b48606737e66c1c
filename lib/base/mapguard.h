/* mapguard.h - mapped files that are cut short while they are read end the
 * program with one line naming the file, not with a SIGBUS crash.
 *
 * A page of a file mapping that lies past the file's end (the file was
 * truncated after it was mapped) faults with SIGBUS. Every program that
 * maps an input (io/mapfile: safetensors, npy, GGUF; stream/read: a
 * cal-stream file) registers its mappings here; the handler finds the
 * mapping that faulted. The same cut shows in two other ways, also said
 * by the same line: write(2) from such a page fails with EFAULT
 * (base/outfile's cal__write_all asks cal_map_shrank, through a hook), and the part of the
 * last page past the new end reads as zeros (a reader that finds its
 * mapped input bad asks cal_map_shrank before it blames the data). */
#ifndef CAL_BASE_MAPGUARD_H
#define CAL_BASE_MAPGUARD_H

#include <stddef.h>
#include <stdint.h>

/* What every reader says of a mapped input cut short (after "PATH: byte OFF: "). */
#define CAL_MAP_SHRANK_WHY "the file shrank while it was read (it changed under the program)"

/* Registers [addr, addr+len) as a mapping of path from its byte 0 (up to
 * 4096 at once; more are left unguarded). The first call installs the
 * SIGBUS handler: "PROG: PATH: byte OFF: the file shrank while it was read
 * (it changed under the program)", the temp outputs removed, exit 1; a
 * SIGBUS at an address it does not guard goes on to the action there was
 * before (base/outfile's, or the default crash). */
void cal_map_guard(void *addr, size_t len, const char *path);
/* Forgets the mapping at addr (before it is unmapped). */
void cal_map_unguard(void *addr);
/* 1 when addr lies in a guarded mapping (async-signal-safe: for SIGBUS
 * handlers that leave such faults to this one). */
int cal_map_guarded(const void *addr);
/* 1 when some of [p, p+n) lies in a guarded mapping whose file is now
 * shorter than that part's end (it was cut after it was mapped): path
 * (pathlen bytes, may be NULL) names the file, *off is the first byte of
 * the range that is gone. 0 otherwise. Not for signal handlers. */
int cal_map_shrank(const void *p, size_t n, char *path, size_t pathlen, uint64_t *off);

#endif
