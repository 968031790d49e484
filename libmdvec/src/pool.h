/* pool.h: the worker thread pool that steps the envs (internal, not part of the ABI).
 *
 * A pool of T threads runs one function on every thread index 0..T-1 per call; the calling
 * thread is thread 0, so T-1 pthreads are started. Idle workers spin a few tens of microseconds,
 * then sleep (a futex on Linux); a run on an awake pool takes no lock and allocates nothing.
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

/*---------------------------------- Background queue ---------------------------------------*/
/* Work that runs while the caller does something else (mdvec_send/mdvec_recv). Items are ints (env
   indices) pushed in order; T background threads (the T-1 workers and one more thread, started by
   mdv_pool_queue_open, which takes thread 0's place) claim them in push order and run fn on each. The
   caller waits for a range of items with mdv_pool_queue_wait, running the still unclaimed ones of that
   range itself. Which thread runs an item is left to timing; what an item computes must not depend on
   it. Every item in flight (pushed, not yet waited for) is in a ring of `capacity` slots: a push must
   not take the number in flight past it. mdv_pool_run must not be called with items in flight. */

/* Job run once per queue item: ctx as given to mdv_pool_queue_open, the item's value, and the thread
   running it: 1..T-1 a worker, T the stand-in for thread 0, 0 the caller (in mdv_pool_queue_wait). No
   two items run at once on the same number, so per-thread state (a GL context) may be indexed by it. */
typedef void (*mdv_pool_item_fn)(void *ctx, int item, int thread);

/* Open the pool's queue: ring of capacity items, fn(ctx, item) run on each; start the background thread
   that stands in for thread 0. Return MDV_POOL_OK, or a negative MDV_POOL_E* code with a message in err
   (the pool is unchanged and still runs). Opening an open queue is MDV_POOL_EINVAL. */
int mdv_pool_queue_open(mdv_pool *p, int capacity, mdv_pool_item_fn fn, void *ctx, char *err, size_t err_size);

/* Return nonzero when the queue is open. */
int mdv_pool_queue_is_open(const mdv_pool *p);

/* Push n items (values[0..n-1], in order); the background threads start on them at once. Return the
   sequence number of the first (items are numbered 0, 1, ... in push order since the queue opened).
   Writes the caller made before the call are visible to fn. One caller at a time. */
unsigned long long mdv_pool_queue_push(mdv_pool *p, const int *values, int n);

/* Wait until items first .. first + count - 1 have run, running on the calling thread those of them that
   no background thread has claimed yet; every write their fn made is then visible to the caller. */
void mdv_pool_queue_wait(mdv_pool *p, unsigned long long first, unsigned long long count);

/* Drop every item not yet claimed (it never runs) and wait for the claimed ones from first on to finish;
   return how many were dropped. The queue takes no push afterwards (for teardown). */
unsigned long long mdv_pool_queue_cancel(mdv_pool *p, unsigned long long first);

/* The share [*lo, *hi) of n items that thread `thread` of `threads` takes: contiguous blocks whose
   sizes differ by at most one, so two threads share a cache line of per-item arrays only at a
   block's edge (interleaved items, i = thread, thread + T, ..., made every thread write every line). */
void mdv_pool_share(int n, int thread, int threads, int *lo, int *hi);

#ifdef __cplusplus
}
#endif

#endif /* MDV_POOL_H */
