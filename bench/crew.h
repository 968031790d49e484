/* crew.h: the benchmarks' own thread crew for their bare-physics loops (bench/bench_c.c and the C loop
 * that bench/v5_sidebyside.py compiles), so that no benchmark reaches into libmdvec's internals.
 *
 * A crew of T threads runs one job on every thread index 0..T-1 per crew_run; the caller is thread 0,
 * so T-1 pthreads are started, and index t is always the same pthread: a job that splits its envs by
 * crew_share (a contiguous block per thread, as mdvec assigns them) steps env i on the same thread every
 * run. It is built like mdvec's pool so that a bare ceiling is not lowered by the stepping itself: a run
 * on an awake crew takes no lock, makes no system call and allocates nothing (a generation counter
 * publishes it, a pending counter completes it); a waiter spins for CREW_SPIN_NS (pausing for the first
 * CREW_PAUSE_NS, then yielding the CPU; only yielding when the threads outnumber the CPUs), then blocks
 * on a condition variable. It is not mdvec's pool: no calibrated pause count (the clock is read every 64
 * pauses), no fork handling, bench-sized error handling.
 */
#ifndef BENCH_CREW_H
#define BENCH_CREW_H

#include <stddef.h>

#define CREW_MAX_THREADS 1024 /* largest accepted T */

/* Job run once on every thread per crew_run: ctx as given to crew_run, this thread's index in
 * 0..threads-1, and threads. */
typedef void (*crew_job)(void *ctx, int thread, int threads);

typedef struct crew_ crew;

/* Start a crew of T threads (1 <= T <= CREW_MAX_THREADS; the caller is thread 0); NULL with a message in
 * err (size bytes) on failure. */
crew *crew_create(int threads, char *err, size_t size);

/* Run job(ctx, t, T) once on every thread t, the caller as thread 0; return when all have finished.
 * Writes the caller made before the call are visible to every job, and every job's writes are visible
 * to the caller after return. One caller at a time. */
void crew_run(crew *c, crew_job job, void *ctx);

/* Stop and join the crew's threads and free it; NULL is a no-op. Must not race a run. */
void crew_destroy(crew *c);

/* The share [*lo, *hi) of n items that thread `thread` of `threads` takes: contiguous blocks whose sizes
 * differ by at most one, floor(n * thread / threads) onwards (the split mdvec uses). */
void crew_share(int n, int thread, int threads, int *lo, int *hi);

#endif /* BENCH_CREW_H */
