/* test_pool.c - lib/base/pool.c: jobs come back in submission order with the
 * same results for 0 (inline) to 8 workers while finishing out of order; a
 * failing job's message reaches the caller's thread once, with the jobs
 * before it intact; an error exit on the caller's thread lets running jobs
 * end and starts no more (each checked in a child process). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/pool.h"
#include "test.h"

typedef struct {
    uint64_t idx, out, finished; /* finished: completion order over all jobs */
    int on_worker;
} job;

static pthread_t main_thread;
static atomic_uint_fast64_t completions;
static uint64_t fail_at[2] = {UINT64_MAX, UINT64_MAX};
static int fd_log = -1;       /* the die test logs job starts and ends here */
static unsigned sleep_us;     /* every job sleeps this long (die test) */

static void pause_us(unsigned us) {
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* A splitmix64 chain whose length and a short sleep vary from job to job, so
 * that younger jobs often finish before older ones. */
static int run_job(void *ctx, void *arg, char *err, size_t errsz) {
    (void)ctx;
    job *j = arg;
    if (fd_log >= 0 && write(fd_log, "s", 1) != 1) return 1;
    uint64_t x = j->idx;
    for (uint64_t k = 0; k < 1000 + (j->idx * 7919) % 20000; k++) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        x ^= z ^ (z >> 31);
    }
    if (j->idx % 5 == 0) pause_us(200);
    if (sleep_us) pause_us(sleep_us);
    j->out = x;
    j->on_worker = !pthread_equal(pthread_self(), main_thread);
    j->finished = atomic_fetch_add(&completions, 1);
    if (fd_log >= 0 && write(fd_log, "e", 1) != 1) return 1;
    if (j->idx == fail_at[0] || j->idx == fail_at[1]) {
        snprintf(err, errsz, "job %llu failed", (unsigned long long)j->idx);
        return 1;
    }
    return 0;
}

enum { NJOBS = 300 };

/* Runs NJOBS jobs through a pool, reusing `depth` job objects as a caller
 * would; fills out[] in the order the jobs come back. With help, the caller
 * runs queued jobs itself before each take (cal_pool_help); *on_caller: how
 * many jobs ran on the caller's thread. Returns how many came back out of
 * completion order, or -1 when the order or a field is wrong. */
static int run_all_helping(unsigned workers, size_t depth, int help, uint64_t *out, int *on_worker, int *on_caller) {
    job *jobs = calloc(depth, sizeof *jobs);
    cal_pool *p = cal_pool_new(workers, depth, run_job, NULL);
    uint64_t next_out = 0, last_finished = 0;
    int reordered = 0, bad = 0, helped = 0;
    *on_worker = *on_caller = 0;
    for (uint64_t i = 0; i <= NJOBS; i++) {
        const char *err;
        if (cal_pool_pending(p) == depth || i == NJOBS) {
            for (;;) {
                while (help && cal_pool_help(p)) helped++;
                job *j = cal_pool_take(p, &err);
                if (!j) break;
                if (j->idx != next_out || err) bad = 1;
                if (next_out && j->finished < last_finished) reordered++;
                last_finished = j->finished;
                out[next_out++] = j->out;
                *on_worker |= j->on_worker;
                *on_caller += !j->on_worker;
                if (i < NJOBS) break;
            }
        }
        if (i == NJOBS) break;
        job *j = &jobs[i % depth];
        memset(j, 0, sizeof *j);
        j->idx = i;
        cal_pool_submit(p, j);
    }
    cal_pool_free(p);
    free(jobs);
    if (workers && helped != *on_caller) bad = 1; /* each help ran one job, here */
    return bad || next_out != NJOBS ? -1 : reordered;
}

static int run_all(unsigned workers, size_t depth, uint64_t *out, int *on_worker) {
    int on_caller;
    return run_all_helping(workers, depth, 0, out, on_worker, &on_caller);
}

/* In a child: run jobs, die with the first failure's message as a program
 * would; or, with die_after_us, die on the caller's thread while jobs run.
 * Returns the exit status; stderr (and the job log) go to msg. */
static int child(unsigned workers, int die_after_us, char *msg, size_t n, char *log, size_t nlog) {
    int pe[2], pl[2];
    if (pipe(pe) || pipe(pl)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pe[1], 2);
        close(pl[0]);
        fd_log = die_after_us ? pl[1] : -1;
        sleep_us = die_after_us ? 100000 : 0;
        cal_pool *p = cal_pool_new(workers, 8, run_job, NULL);
        job jobs[8];
        for (uint64_t i = 0; i < 8; i++) {
            jobs[i] = (job){.idx = i};
            cal_pool_submit(p, &jobs[i]);
        }
        if (die_after_us) {
            pause_us((unsigned)die_after_us);
            cal_die("stopped while jobs run");
        }
        const char *err;
        for (job *j; (j = cal_pool_take(p, &err));)
            if (err) cal_die("%s", err); /* the pool stops its workers first */
        exit(0);
    }
    close(pe[1]);
    close(pl[1]);
    size_t got = 0;
    for (ssize_t k; got < n - 1 && (k = read(pe[0], msg + got, n - 1 - got)) > 0;) got += (size_t)k;
    msg[got] = 0;
    got = 0;
    for (ssize_t k; got < nlog - 1 && (k = read(pl[0], log + got, nlog - 1 - got)) > 0;) got += (size_t)k;
    log[got] = 0;
    close(pe[0]);
    close(pl[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
    cal_set_progname("test_pool");
    main_thread = pthread_self();

    static uint64_t want[NJOBS], got[NJOBS];
    int on_worker;
    CHECK(run_all(0, 1, want, &on_worker) == 0 && !on_worker, "0 workers: every job runs inline, in order");
    for (unsigned w = 1; w <= 8; w++) {
        size_t depths[] = {1, 2, 2 * (size_t)w + 2};
        int reordered = 0, ok = 1;
        for (size_t d = 0; d < 3; d++) {
            memset(got, 0, sizeof got);
            int r = run_all(w, depths[d], got, &on_worker);
            ok &= r >= 0 && on_worker && !memcmp(got, want, sizeof got);
            reordered += r > 0 ? r : 0;
        }
        CHECK(ok, "%u workers, depth 1, 2, %u: submission order, results = inline", w, 2 * w + 2);
        if (w >= 2) CHECK(reordered > 0, "%u workers: jobs did finish out of order (%d times)", w, reordered);
    }

    /* A caller that helps: jobs run on it and on the workers, come back in
     * order with the same results; without workers it has nothing to help. */
    for (unsigned w = 0; w <= 3; w++) {
        int on_caller, ok = 1, helped = 0;
        size_t depths[] = {1, 2, 8 * (size_t)w + 1};
        for (size_t d = 0; d < 3; d++) {
            memset(got, 0, sizeof got);
            /* Who runs a job is the scheduler's choice: on a busy machine
             * a helping caller may run them all (a worker never woke). */
            ok &= run_all_helping(w, depths[d], 1, got, &on_worker, &on_caller) >= 0 && on_worker <= (w > 0) &&
                  !memcmp(got, want, sizeof got);
            helped += w ? on_caller : 0;
        }
        CHECK(ok && (w ? helped > 0 : 1), "%u workers and a helping caller: submission order, results = inline, "
              "%d jobs run by the caller", w, helped);
    }

    /* A failing job: the jobs before it come back intact, then its message. */
    fail_at[0] = 37;
    for (unsigned w = 0; w <= 4; w += 4) {
        cal_pool *p = cal_pool_new(w, 6, run_job, NULL);
        job jobs[6];
        uint64_t next = 0, nerr = 0, first_err = UINT64_MAX;
        char msg[64] = "";
        for (uint64_t i = 0; i < 100 && !nerr; i++) {
            const char *err;
            if (cal_pool_pending(p) == 6) {
                job *j = cal_pool_take(p, &err);
                if (j->idx != next++) break;
                if (err) nerr++, first_err = j->idx, snprintf(msg, sizeof msg, "%s", err);
            }
            jobs[i % 6] = (job){.idx = i};
            cal_pool_submit(p, &jobs[i % 6]);
        }
        cal_pool_free(p); /* with jobs still pending: they are dropped */
        CHECK(nerr == 1 && first_err == 37 && next == 38 && !strcmp(msg, "job 37 failed"),
              "%u workers: jobs 0..36 ok, then job 37's message once: '%s'", w, msg);
    }
    fail_at[1] = 5;
    fail_at[0] = 3;
    char msg[512], log[64];
    int st = child(4, 0, msg, sizeof msg, log, sizeof log);
    CHECK(st == 1 && !strcmp(msg, "test_pool: job 3 failed\n"),
          "two failing jobs: the caller reports the first, one line, exit 1: %d '%s'", st, msg);
    fail_at[0] = fail_at[1] = UINT64_MAX;

    /* 8 jobs of 100 ms on 2 workers, cal_die after 30 ms: the 2 running
     * jobs end ("se" twice), no other job starts. */
    st = child(2, 30000, msg, sizeof msg, log, sizeof log);
    size_t s = 0, e = 0;
    for (char *c = log; *c; c++) s += *c == 's', e += *c == 'e';
    CHECK(st == 1 && !strcmp(msg, "test_pool: stopped while jobs run\n") && s == 2 && e == 2,
          "an error exit lets the running jobs end and starts no more: exit %d, log '%s', '%s'", st, log, msg);
    TEST_END();
}
