/* pool.h - an ordered thread pool: jobs run on N worker threads and come back
 * in the order they were submitted.
 *
 * The caller's thread does the ordered work at both ends: it submits jobs as
 * it reads its input and takes them back finished, oldest first, as it
 * writes its output; the job function runs on the workers, and on the caller
 * when it lends its thread (cal_pool_help) instead of waiting. Up to `depth`
 * jobs are in flight, so while the caller waits for the oldest one the
 * workers go on with the younger ones, and neither the reading, the writing
 * nor the ordering holds a worker up. A caller asleep on the oldest job is
 * woken when half the jobs in flight are done, not once a job. A job's
 * result lives in the job. A job that fails returns nonzero with a message,
 * which the caller gets back with the job on its own thread: a worker never
 * exits the program.
 *
 *     cal_pool *p = cal_pool_new(threads - 1, depth, encode, ctx);
 *     for (each input) {
 *         if (cal_pool_pending(p) == depth) {
 *             while (cal_pool_help(p)) {}
 *             consume(cal_pool_take(p, &err), err);
 *         }
 *         fill(job); cal_pool_submit(p, job);
 *     }
 *     for (;;) { while (cal_pool_help(p)) {}  if (!(job = cal_pool_take(p, &err))) break;  consume(job, err); }
 *     cal_pool_free(p);
 *
 * Since every job is the same function of its own input and comes back in
 * submission order, what the caller writes does not depend on the number of
 * workers. An error exit (cal_die on the caller's thread) first lets running
 * jobs end and starts no more, so no job runs beside exit(). */
#ifndef CAL_BASE_POOL_H
#define CAL_BASE_POOL_H

#include <stddef.h>

/* Runs one job: 0 on success; nonzero on failure, with a one-line message in
 * err (errsz bytes). Called on a worker thread: it must not exit. */
typedef int (*cal_pool_fn)(void *ctx, void *job, char *err, size_t errsz);

typedef struct cal_pool cal_pool;

/* A pool of `workers` threads running fn(ctx, job, ...) with at most `depth`
 * (>= 1) jobs submitted and not yet taken. workers 0: each job runs inside
 * cal_pool_submit on the caller's thread (no threads at all). */
cal_pool *cal_pool_new(unsigned workers, size_t depth, cal_pool_fn fn, void *ctx);
/* Jobs submitted and not yet taken back; at depth, take one before the next
 * submit. */
size_t cal_pool_pending(const cal_pool *p);
/* Queues job (the pool holds it until cal_pool_take hands it back). */
void cal_pool_submit(cal_pool *p, void *job);
/* While the oldest job not yet taken is unfinished, the caller may lend its
 * thread: runs the next job no worker has started, then returns 1; returns
 * 0 at once when the oldest job is finished, no job is left unstarted, or
 * there are no workers. With N - 1 workers and a caller that reads and
 * writes between helping (`while (cal_pool_help(p)) {}` before each take),
 * N threads keep N cores busy and none shares its core with another. */
int cal_pool_help(cal_pool *p);
/* The oldest job not yet taken, once its function has returned; NULL when
 * none is pending. *err is NULL when the job succeeded, else its message
 * (valid until the next cal_pool_submit or cal_pool_free). */
void *cal_pool_take(cal_pool *p, const char **err);
/* Stops the workers: running jobs end, jobs not yet started never run. */
void cal_pool_free(cal_pool *p);

#endif
