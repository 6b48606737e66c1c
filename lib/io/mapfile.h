/* mapfile.h - a regular file mapped read-only, for the readers that check a
 * whole file image (safetensors, npy, GGUF). */
#ifndef CAL_IO_MAPFILE_H
#define CAL_IO_MAPFILE_H

#include <stddef.h>
#include <sys/stat.h>

typedef struct {
    void *map;     /* NULL for an empty file */
    size_t len;
    const void *p; /* the bytes ("" for an empty file) */
} cal_mapfile;

/* Maps path; 0 with "PATH: why" in err when it cannot be opened, is not a
 * regular file or cannot be mapped. If the file is cut short while mapped,
 * reading a page past its new end ends the program with "PROG: PATH: byte
 * OFF: the file shrank while it was read ...", the temp outputs removed,
 * exit 1, instead of a SIGBUS crash. */
int cal_mapfile_open(cal_mapfile *m, const char *path, char *err, size_t errlen);
/* As cal_mapfile_open, and *st is the status of the file that was mapped
 * (fstat of the descriptor: the identity of the bytes mapped, not of
 * whatever the path names a moment later). */
int cal_mapfile_open_stat(cal_mapfile *m, const char *path, struct stat *st, char *err, size_t errlen);
void cal_mapfile_close(cal_mapfile *m);

#endif
