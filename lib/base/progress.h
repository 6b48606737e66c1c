/* progress.h - progress on standard error (--progress). */
#ifndef CAL_BASE_PROGRESS_H
#define CAL_BASE_PROGRESS_H

#include <stdint.h>

/* Progress on stderr (--progress) and a final summary (-v).
 * cal_progress_tick is cheap: it looks at the clock every 4096 calls. */
typedef struct {
    int enabled;
    double t0, last;
    uint64_t records, bytes;
    unsigned calls;
} cal_progress;
void cal_progress_init(cal_progress *p, int enabled);
void cal_progress_tick(cal_progress *p, uint64_t records, uint64_t bytes);
void cal_progress_done(cal_progress *p);
double cal_now(void);
/* CPU seconds of the whole process, every thread (user + system): the
 * measure of work that does not grow when the machine is busy. */
double cal_cpu_now(void);

#endif
