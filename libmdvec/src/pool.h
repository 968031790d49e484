/* pool.h: the worker thread pool that steps the envs (internal, not part of the ABI).
 *
 * A pool of T threads runs one function on every thread index 0..T-1 per call; the calling
 * thread is thread 0, so T-1 pthreads are started. Idle workers spin a few tens of microseconds,
 * then block on a condition variable; a run on an awake pool takes no lock and allocates nothing.
 */
#ifndef MDV_POOL_H
#define MDV_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*---------------------------------- Constants ----------------------------------------------*/

#define MDV_POOL_OK      0    /* success */
#define MDV_POOL_EINVAL  (-1) /* bad argument (num_threads out of range, NULL out) */
#define MDV_POOL_ENOMEM  (-2) /* allocation failed (also: no memory for a thread's stack) */
#define MDV_POOL_ETHREAD (-3) /* pthread_create or mutex/condvar init failed */

#define MDV_POOL_MAX_THREADS 1024 /* largest accepted num_threads */

/*---------------------------------- Types --------------------------------------------------*/

/* Job run once on every thread: ctx as given to mdv_pool_run, this thread's index in
   0..num_threads-1, and num_threads. */
typedef void (*mdv_pool_fn)(void *ctx, int thread_index, int num_threads);

typedef struct mdv_pool mdv_pool;

/*---------------------------------- Functions ----------------------------------------------*/

/* Create a pool of num_threads threads (the caller counts as thread 0, so num_threads-1 pthreads
   are started) in *out; return MDV_POOL_OK or a negative MDV_POOL_E* code, writing a message
   into err (when err is not NULL and err_size > 0) and NULL into *out. */
int mdv_pool_create(mdv_pool **out, int num_threads, char *err, size_t err_size);

/* Run fn(ctx, i, T) once on every thread i in 0..T-1, the caller acting as thread 0; return when
   all have finished. Writes the caller made before the call are visible to every fn, and writes
   made by every fn are visible to the caller after return. Not reentrant; one caller at a time. */
void mdv_pool_run(mdv_pool *p, mdv_pool_fn fn, void *ctx);

/* Stop and join all workers and free the pool; NULL is a no-op. Must not race a run. */
void mdv_pool_destroy(mdv_pool *p);

/* Free a pool inherited by a forked child without touching its threads (they exist only in the parent,
   and its lock may be held there); NULL is a no-op. */
void mdv_pool_abandon(mdv_pool *p);

/* Return the pool's number of threads T, the caller included. */
int mdv_pool_threads(const mdv_pool *p);

/* The share [*lo, *hi) of n items that thread `thread` of `threads` takes: contiguous blocks whose
   sizes differ by at most one, so two threads share a cache line of per-item arrays only at a
   block's edge (interleaved items, i = thread, thread + T, ..., made every thread write every line). */
void mdv_pool_share(int n, int thread, int threads, int *lo, int *hi);

#ifdef __cplusplus
}
#endif

#endif /* MDV_POOL_H */
