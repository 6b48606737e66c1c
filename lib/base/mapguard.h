/* mapguard.h - mapped files that are cut short while they are read end the
 * program with one line naming the file, not with a SIGBUS crash.
 *
 * A page of a file mapping that lies past the file's end (the file was
 * truncated after it was mapped) faults with SIGBUS. Every program that
 * maps an input (io/mapfile: safetensors, npy, GGUF; stream/read: a
 * cal-stream file) registers its mappings here; the handler finds the
 * mapping that faulted. */
#ifndef CAL_BASE_MAPGUARD_H
#define CAL_BASE_MAPGUARD_H

#include <stddef.h>

/* Registers [addr, addr+len) as a mapping of path (up to 64 at once; more
 * are left unguarded). The first call installs the SIGBUS handler: "PROG:
 * PATH: byte OFF: the file shrank while it was read (it changed under the
 * program)", the temp outputs removed, exit 1. */
void cal_map_guard(void *addr, size_t len, const char *path);
/* Forgets the mapping at addr (before it is unmapped). */
void cal_map_unguard(void *addr);

#endif
