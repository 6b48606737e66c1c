/* progress.c - progress lines (--progress) on standard error. */
#include "base/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/err.h"

double cal_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cal_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cal_progress_init(cal_progress *p, int enabled) {
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->t0 = p->last = cal_now();
}

static void progress_print(cal_progress *p, double now, int final) {
    double dt = now - p->t0;
    double mb = (double)p->bytes / 1e6;
    fprintf(stderr, "\r%s: %llu records, %.1f MB, %.1f MB/s%s", cal_progname(),
            (unsigned long long)p->records, mb, dt > 0 ? mb / dt : 0.0, final ? "\n" : "   ");
}

void cal_progress_tick(cal_progress *p, uint64_t records, uint64_t bytes) {
    p->records = records;
    p->bytes = bytes;
    if (!p->enabled || (++p->calls & 4095) != 0) return;
    double now = cal_now();
    if (now - p->last < 0.5) return;
    p->last = now;
    progress_print(p, now, 0);
}

void cal_progress_done(cal_progress *p) {
    if (p->enabled) progress_print(p, cal_now(), 1);
}
