/* pool.c: the worker thread pool (generation counter, spin-then-block, completion counter), and its
   background queue (items claimed in push order, per-item completion marks). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */

#include "pool.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* Sleep on futexes on Linux (MDV_POOL_NO_FUTEX: on the mutex and condition variables, as elsewhere). */
#if defined(__linux__) && !defined(MDV_POOL_NO_FUTEX)
#define MDV_POOL_FUTEX 1
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/*---------------------------------- Tuning -------------------------------------------------*/

/* How long an idle worker (waiting for a run) or the caller (waiting for the workers) spins
   before blocking on its condition variable, in nanoseconds. Long enough to cover the gap
   between two steps of a busy training loop, short enough that a pool waiting on a policy burns
   little CPU. */
#ifndef MDV_POOL_SPIN_NS
#define MDV_POOL_SPIN_NS 50000LL
#endif

/* The first part of the spin only polls with a CPU pause hint (an iteration count calibrated
   once per pool); the rest calls sched_yield between polls and reads the clock for its deadline.
   The yield matters: the scheduler does put the waiter and the thread it waits for on the same
   CPU (after a wake-up), and there a pause-only spin holds that CPU for the whole spin while the
   other thread waits. Measured on a 2-CPU VM, T=2, 20 us of work per thread: pause-only spin
   fell into that state for seconds at a time at ~140 us per run; pause-then-yield runs at
   ~21 us, and at ~2x the work (the two shares serialised, not starved) while co-located. */
#ifndef MDV_POOL_PAUSE_NS
#define MDV_POOL_PAUSE_NS 4000LL
#endif

/* Calibration: time this many pause iterations, this many times, keep the fastest. */
#define MDV_POOL_CALIB_ITERS  256
#define MDV_POOL_CALIB_TRIALS 3

/* Bound on the calibrated pause iteration count. */
#define MDV_POOL_PAUSE_MAX (1u << 20)

#define MDV_CACHE_LINE 64

/*---------------------------------- Types --------------------------------------------------*/

/* One started worker thread (thread index 1..T-1). */
typedef struct mdv_worker {
  struct mdv_pool *pool; /* the pool it serves */
  int index;             /* its thread index, 1..T-1; 0 for the queue's stand-in for thread 0 */
  unsigned start_gen;    /* the generation when it was started */
  pthread_t thread;      /* its pthread */
} mdv_worker;

/* Synchronisation rules (read before touching any field below).
 *
 * Publication of a run (caller -> workers):
 *   The caller writes fn, ctx (plain fields) and pending (relaxed), then increments generation
 *   with a seq_cst RMW, which is also a release. A worker loads generation with acquire (or
 *   seq_cst) and, on seeing a value other than the one it last served, reads fn/ctx/stop and
 *   everything else the caller wrote before the increment (the action buffer, ...).
 *
 * Completion (workers -> caller):
 *   Each worker, after running fn, decrements pending with a seq_cst RMW (a release). The caller
 *   loads pending with acquire (or seq_cst); once it reads 0, every write made by every fn is
 *   visible to it, and every worker has finished reading fn/ctx, so the next run may overwrite
 *   them. A worker never serves two generations without the caller seeing pending reach 0 in
 *   between, so generation advances by exactly 1 per run as seen by each worker.
 *
 * Sleeping ("Dekker" pattern, needs seq_cst on both sides) on two event words, work_event and
 * done_event: a thread sleeps while an event word keeps the value it read (a futex wait on Linux,
 * mdv_event_wait), and a post adds 1 to the word and wakes every sleeper (mdv_event_post). A post
 * never blocks: glibc's pthread_cond_broadcast can (it waits for the waiters of an earlier wake-up to
 * leave, which a loaded machine may not schedule for a time slice: measured here, a send that woke
 * the workers took milliseconds that way).
 *   Worker going to sleep:  sleeping += 1 (seq_cst); loop: e = work_event (seq_cst); if generation
 *                           (seq_cst) changed or the queue has work: leave; else wait while
 *                           work_event == e; then sleeping -= 1.
 *   Caller publishing:      generation += 1 (seq_cst); if sleeping (seq_cst) > 0: post work_event.
 *   In the single total order of seq_cst operations either the worker's increment of sleeping
 *   comes first (then the caller sees sleeping > 0 and posts; the worker read e before its check,
 *   so either its check sees the new generation or the post changes work_event after e was read
 *   and the wait returns), or the caller's increment of generation comes first (then the worker's
 *   check sees the new generation and does not wait). The caller's wait for completion is the
 *   mirror image: caller_sleeping (seq_cst) against the last worker's decrement of pending
 *   (seq_cst), which posts done_event when caller_sleeping is set.
 *   So an awake pool makes no system call per run. Elsewhere than Linux the event words sleep on
 *   work_cond / done_cond under the mutex (the post adds 1 first, then broadcasts under it).
 *
 * Lock ordering: there is one lock, mutex (used only where there is no futex); nothing is called
 *   while holding it except pthread_cond_wait/broadcast. fn is never called under it.
 *
 * Shutdown: the caller stores stop = 1 (relaxed, published by the following release),
 *   increments generation, posts work_event unconditionally, and joins every worker. A worker
 *   that sees a new generation checks stop before reading fn and exits. Only after every join
 *   does the caller free the pool, so a worker that is still posting done_event after the
 *   caller's last run returned never touches freed memory.
 *
 * Cache lines: fields written by the caller on every run, fields written by the workers on
 *   every run, and the rarely written lock state live on separate cache lines.
 *
 * The background queue (mdv_pool_queue_*; never in flight during a run):
 *   Push: the caller writes the items' values into their ring slots (plain), then adds n to q_tail
 *   with a seq_cst RMW (a release), then wakes sleepers as a run does (sleeping > 0: post
 *   work_event). A worker's wait condition is "generation changed or q_claim < q_tail";
 *   the Dekker argument above holds with q_tail in the place of generation.
 *   Claim: a thread loads q_tail (acquire), and claims item c = q_claim < q_tail with a CAS on q_claim
 *   (acq_rel), so every item is claimed exactly once, in push order, and its value and whatever the
 *   caller wrote before its push are visible to the claimer.
 *   Completion: after fn, the thread stores k + 1 into q_done[k % cap] (seq_cst: a release) and, when
 *   q_waiting (seq_cst) is set, posts done_event. The caller waiting for item k loads
 *   q_done[k % cap] (acquire); to block it sets q_waiting (seq_cst), then reads done_event and
 *   re-checks q_done (seq_cst) before each wait: the same Dekker pattern as caller_sleeping/pending.
 *   Slot reuse: the caller pushes item k only after it waited for item k - cap (the bound on items in
 *   flight), whose fn and q_done store happen before that wait returned, so a slot is never written
 *   while a thread still reads it.
 *   Threads: the T-1 workers serve both runs and items; queue_open starts one more thread (index 0,
 *   items only), so T threads run items while the caller is away. Stop and join take it along.
 */
struct mdv_pool {
  /* read-only after create */
  int num_threads;      /* T, the caller included */
  unsigned pause_iters; /* pause iterations in MDV_POOL_PAUSE_NS; 0 when threads
                           outnumber CPUs (then every spin iteration yields) */
  mdv_worker *workers;  /* (T-1) started workers, NULL when T == 1 */

  /* written by the caller: the job, published by generation */
  _Alignas(MDV_CACHE_LINE) mdv_pool_fn fn; /* job of the current run */
  void *ctx;                               /* its argument */
  atomic_uint generation;                  /* runs published so far (wraps) */
  atomic_int stop;                         /* 1: workers exit at the next generation */
  atomic_int caller_sleeping;              /* 1: caller is (about to be) asleep on done_event */
  atomic_ullong q_tail;                    /* queue items pushed since the queue opened */
  atomic_int q_waiting;                    /* 1: caller is (about to be) asleep on done_event for an item */

  /* the queue's claim counter, written by every thread that takes an item */
  _Alignas(MDV_CACHE_LINE) atomic_ullong q_claim; /* queue items claimed */

  /* the queue's ring and job: written by mdv_pool_queue_open, read-only while it is open */
  int q_cap;             /* ring slots; 0 while the queue is closed */
  int q_started;         /* the stand-in for thread 0 runs */
  int *q_items;          /* (q_cap) item values, item k in slot k % q_cap */
  atomic_ullong *q_done; /* (q_cap) k + 1 once item k has run */
  mdv_pool_item_fn q_fn; /* run on each item */
  void *q_ctx;           /* its argument */
  mdv_worker q_worker;   /* the stand-in for thread 0 */
  int locks_ready;       /* mutex and condition variables initialised */

  /* written by the workers on every run */
  _Alignas(MDV_CACHE_LINE) atomic_int pending; /* workers that have not finished this run */

  /* lock state, written rarely */
  _Alignas(MDV_CACHE_LINE) atomic_int sleeping; /* workers (about to be) asleep on work_event */
  atomic_uint work_event;                       /* posted when workers may have work (run, items, stop) */
  atomic_uint done_event;                       /* posted when the caller may stop waiting */
  pthread_mutex_t mutex;                        /* guards the two condition variables (no futex only) */
  pthread_cond_t work_cond;                     /* work_event's sleepers where there is no futex */
  pthread_cond_t done_cond;                     /* done_event's sleepers where there is no futex */
};

/*---------------------------------- Helpers ------------------------------------------------*/

/* Write a formatted message into err when there is room. */
static void mdv_pool_seterr(char *err, size_t err_size, const char *msg, int code) {
  if (err && err_size > 0) {
    if (code) {
      snprintf(err, err_size, "%s (%s)", msg, strerror(code));
    } else {
      snprintf(err, err_size, "%s", msg);
    }
  }
}

/* Hint the CPU that this is a spin-wait loop. */
static inline void mdv_cpu_relax(void) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  sched_yield();
#endif
}

/* Return the monotonic clock in nanoseconds. */
static long long mdv_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Return the number of pause iterations that take about MDV_POOL_PAUSE_NS on this machine. */
static unsigned mdv_pool_calibrate(void) {
  long long best = -1;
  for (int t = 0; t < MDV_POOL_CALIB_TRIALS; ++t) {
    long long t0 = mdv_now_ns();
    for (int i = 0; i < MDV_POOL_CALIB_ITERS; ++i) {
      mdv_cpu_relax();
    }
    long long dt = mdv_now_ns() - t0;
    if (best < 0 || dt < best) {
      best = dt;
    }
  }
  if (best < 1) {
    best = 1;
  }
  double iters = (double)MDV_POOL_PAUSE_NS * MDV_POOL_CALIB_ITERS / (double)best;
  return iters > MDV_POOL_PAUSE_MAX ? MDV_POOL_PAUSE_MAX : (unsigned)iters;
}

/* State of one spin-wait. */
typedef struct mdv_spin {
  unsigned iter;      /* pause iterations done */
  long long deadline; /* end of the yield phase (ns), 0 before it starts */
} mdv_spin;

/* Do one step of a spin-wait (pause, or yield once the pause phase is over); return 0 when the
   spin budget is spent and the caller should block instead. */
static inline int mdv_spin_step(const mdv_pool *p, mdv_spin *s) {
  if (s->iter < p->pause_iters) {
    ++s->iter;
    mdv_cpu_relax();
    return 1;
  }
  long long t = mdv_now_ns();
  if (s->deadline == 0) {
    s->deadline = t + MDV_POOL_SPIN_NS - (p->pause_iters ? MDV_POOL_PAUSE_NS : 0);
  } else if (t >= s->deadline) {
    return 0;
  }
  sched_yield();
  return 1;
}

/* Sleep while *event is seen (a spurious return is allowed: the caller re-checks its condition). */
static void mdv_event_wait(mdv_pool *p, atomic_uint *event, unsigned seen, pthread_cond_t *cond) {
#ifdef MDV_POOL_FUTEX
  (void)p;
  (void)cond;
  syscall(SYS_futex, (unsigned *)event, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
  pthread_mutex_lock(&p->mutex);
  while (atomic_load_explicit(event, memory_order_seq_cst) == seen) {
    pthread_cond_wait(cond, &p->mutex);
  }
  pthread_mutex_unlock(&p->mutex);
#endif
}

/* Add 1 to *event and wake every thread asleep on it; never blocks (where there is a futex). */
static void mdv_event_post(mdv_pool *p, atomic_uint *event, pthread_cond_t *cond) {
  atomic_fetch_add_explicit(event, 1u, memory_order_seq_cst);
#ifdef MDV_POOL_FUTEX
  (void)p;
  (void)cond;
  syscall(SYS_futex, (unsigned *)event, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
  pthread_mutex_lock(&p->mutex);
  pthread_cond_broadcast(cond);
  pthread_mutex_unlock(&p->mutex);
#endif
}

/* Return nonzero when the queue holds an item nobody has claimed (claim read first: a stale claim can
   only make it say yes, after which the claim itself finds out). */
static inline int mdv_queue_has_work(mdv_pool *p, memory_order order) {
  unsigned long long c = atomic_load_explicit(&p->q_claim, order);
  return c < atomic_load_explicit(&p->q_tail, order);
}

/* Wait until generation differs from seen or the queue holds an unclaimed item; return the generation
   (acquired). */
static unsigned mdv_pool_wait_work(mdv_pool *p, unsigned seen) {
  unsigned g;
  mdv_spin spin = {0, 0};
  do {
    g = atomic_load_explicit(&p->generation, memory_order_acquire);
    if (g != seen || mdv_queue_has_work(p, memory_order_relaxed)) {
      return g;
    }
  } while (mdv_spin_step(p, &spin));

  atomic_fetch_add_explicit(&p->sleeping, 1, memory_order_seq_cst);
  for (;;) {
    unsigned e = atomic_load_explicit(&p->work_event, memory_order_seq_cst);
    g = atomic_load_explicit(&p->generation, memory_order_seq_cst);
    if (g != seen || mdv_queue_has_work(p, memory_order_seq_cst)) {
      break;
    }
    mdv_event_wait(p, &p->work_event, e, &p->work_cond);
  }
  atomic_fetch_sub_explicit(&p->sleeping, 1, memory_order_relaxed);
  return g;
}

/* Wait until every worker has finished the current run (pending == 0, acquired). */
static void mdv_pool_wait_done(mdv_pool *p) {
  mdv_spin spin = {0, 0};
  do {
    if (atomic_load_explicit(&p->pending, memory_order_acquire) == 0) {
      return;
    }
  } while (mdv_spin_step(p, &spin));

  atomic_store_explicit(&p->caller_sleeping, 1, memory_order_seq_cst);
  for (;;) {
    unsigned e = atomic_load_explicit(&p->done_event, memory_order_seq_cst);
    if (atomic_load_explicit(&p->pending, memory_order_seq_cst) == 0) {
      break;
    }
    mdv_event_wait(p, &p->done_event, e, &p->done_cond);
  }
  atomic_store_explicit(&p->caller_sleeping, 0, memory_order_relaxed);
}

/* Claim the next unclaimed item below limit into *k; return 0 when there is none. */
static int mdv_queue_claim(mdv_pool *p, unsigned long long limit, unsigned long long *k) {
  unsigned long long c = atomic_load_explicit(&p->q_claim, memory_order_relaxed);
  for (;;) {
    unsigned long long t = atomic_load_explicit(&p->q_tail, memory_order_acquire);
    if (t > limit) {
      t = limit;
    }
    if (c >= t) {
      return 0;
    }
    if (atomic_compare_exchange_weak_explicit(&p->q_claim, &c, c + 1, memory_order_acq_rel, memory_order_relaxed)) {
      *k = c;
      return 1;
    }
  }
}

/* Run claimed item k on thread `thread` (pool.h's numbering), mark it done, and wake the caller when it
   waits for an item. */
static void mdv_queue_run(mdv_pool *p, unsigned long long k, int thread) {
  const unsigned long long slot = k % (unsigned long long)p->q_cap;
  p->q_fn(p->q_ctx, p->q_items[slot], thread);
  atomic_store_explicit(&p->q_done[slot], k + 1, memory_order_seq_cst);
  if (atomic_load_explicit(&p->q_waiting, memory_order_seq_cst)) {
    mdv_event_post(p, &p->done_event, &p->done_cond);
  }
}

/* Body of worker threads 1..T-1 (one run per generation, and queue items) and of the queue's stand-in
   for thread 0 (queue items only), until stop. */
static void *mdv_pool_worker_main(void *arg) {
  const mdv_worker *w = (const mdv_worker *)arg;
  mdv_pool *p = w->pool;
  const int index = w->index;
  const int num_threads = p->num_threads;
  unsigned seen = w->start_gen; /* generation when started; not re-read here, or an early run could be lost */

  for (;;) {
    unsigned g = mdv_pool_wait_work(p, seen);
    if (g == seen) { /* queue items: take them until none is left */
      unsigned long long k;
      while (mdv_queue_claim(p, ~0ULL, &k)) {
        mdv_queue_run(p, k, index ? index : num_threads); /* the stand-in is thread T to the item */
      }
      continue;
    }
    seen = g;
    if (atomic_load_explicit(&p->stop, memory_order_relaxed)) {
      break;
    }
    if (index == 0) { /* the stand-in takes no part in runs */
      continue;
    }
    mdv_pool_fn fn = p->fn;
    void *ctx = p->ctx;
    fn(ctx, index, num_threads);

    /* the last to finish wakes the caller if it went to sleep */
    if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_seq_cst) == 1 &&
        atomic_load_explicit(&p->caller_sleeping, memory_order_seq_cst)) {
      mdv_event_post(p, &p->done_event, &p->done_cond);
    }
  }
  return NULL;
}

/* Tell the first `started` workers and the queue's stand-in (when started) to exit and join them. */
static void mdv_pool_stop_join(mdv_pool *p, int started) {
  atomic_store_explicit(&p->stop, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&p->generation, 1, memory_order_seq_cst);
  mdv_event_post(p, &p->work_event, &p->work_cond);
  for (int i = 0; i < started; ++i) {
    pthread_join(p->workers[i].thread, NULL);
  }
  if (p->q_started) {
    pthread_join(p->q_worker.thread, NULL);
    p->q_started = 0;
  }
}

/* Start w's pthread with every signal blocked (signals go to the host's own threads); return 0 or
   pthread_create's error. */
static int mdv_pool_start(mdv_worker *w) {
  sigset_t all, old;
  sigfillset(&all);
  int masked = (pthread_sigmask(SIG_SETMASK, &all, &old) == 0);
  int rc = pthread_create(&w->thread, NULL, mdv_pool_worker_main, w);
  if (masked) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  return rc;
}

/* Return 1 when a thread's stack could not be mapped now (pthread_create's EAGAIN was for want of
   memory, e.g. under RLIMIT_AS, rather than a limit on threads). */
static int mdv_pool_no_stack(void) {
  size_t size = 0;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) == 0) {
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
  }
  if (size == 0) {
    size = 8u << 20;
  }
  void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) {
    return 1;
  }
  munmap(stack, size);
  return 0;
}

/*---------------------------------- API ----------------------------------------------------*/

/* Create a pool of num_threads threads (the caller is thread 0); return 0 or a negative code. */
int mdv_pool_create(mdv_pool **out, int num_threads, char *err, size_t err_size) {
  if (err && err_size > 0) {
    err[0] = '\0';
  }
  if (!out) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: out is NULL", 0);
    return MDV_POOL_EINVAL;
  }
  *out = NULL;
  if (num_threads < 1 || num_threads > MDV_POOL_MAX_THREADS) {
    if (err && err_size > 0) {
      snprintf(err, err_size, "mdv_pool_create: num_threads must be in 1..%d, got %d", MDV_POOL_MAX_THREADS,
               num_threads);
    }
    return MDV_POOL_EINVAL;
  }

  size_t size = (sizeof(mdv_pool) + MDV_CACHE_LINE - 1) / MDV_CACHE_LINE * MDV_CACHE_LINE;
  mdv_pool *p = (mdv_pool *)aligned_alloc(MDV_CACHE_LINE, size);
  if (!p) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: out of memory", 0);
    return MDV_POOL_ENOMEM;
  }
  memset(p, 0, size);
  p->num_threads = num_threads;
  p->fn = NULL;
  p->ctx = NULL;
  p->workers = NULL;
  atomic_init(&p->generation, 0u);
  atomic_init(&p->stop, 0);
  atomic_init(&p->caller_sleeping, 0);
  atomic_init(&p->pending, 0);
  atomic_init(&p->sleeping, 0);
  atomic_init(&p->work_event, 0u);
  atomic_init(&p->done_event, 0u);
  atomic_init(&p->q_tail, 0ull);
  atomic_init(&p->q_waiting, 0);
  atomic_init(&p->q_claim, 0ull);

  if (num_threads == 1) { /* run inline: no threads, no lock */
    *out = p;
    return MDV_POOL_OK;
  }

  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  p->pause_iters = (ncpu > 0 && num_threads > ncpu) ? 0u : mdv_pool_calibrate();

  int rc = pthread_mutex_init(&p->mutex, NULL);
  if (rc) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: pthread_mutex_init failed", rc);
    free(p);
    return MDV_POOL_ETHREAD;
  }
  rc = pthread_cond_init(&p->work_cond, NULL);
  if (rc) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: pthread_cond_init failed", rc);
    pthread_mutex_destroy(&p->mutex);
    free(p);
    return MDV_POOL_ETHREAD;
  }
  rc = pthread_cond_init(&p->done_cond, NULL);
  if (rc) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: pthread_cond_init failed", rc);
    pthread_cond_destroy(&p->work_cond);
    pthread_mutex_destroy(&p->mutex);
    free(p);
    return MDV_POOL_ETHREAD;
  }

  p->workers = (mdv_worker *)calloc((size_t)(num_threads - 1), sizeof(mdv_worker));
  if (!p->workers) {
    mdv_pool_seterr(err, err_size, "mdv_pool_create: out of memory", 0);
    pthread_cond_destroy(&p->done_cond);
    pthread_cond_destroy(&p->work_cond);
    pthread_mutex_destroy(&p->mutex);
    free(p);
    return MDV_POOL_ENOMEM;
  }
  p->locks_ready = 1;

  /* workers start with every signal blocked, so signals go to the host's own threads */
  sigset_t all, old;
  sigfillset(&all);
  int masked = (pthread_sigmask(SIG_SETMASK, &all, &old) == 0);

  int started = 0;
  for (int i = 1; i < num_threads; ++i) {
    mdv_worker *w = &p->workers[i - 1];
    w->pool = p;
    w->index = i;
    rc = pthread_create(&w->thread, NULL, mdv_pool_worker_main, w);
    if (rc) {
      break;
    }
    ++started;
  }

  if (masked) {
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }

  if (started != num_threads - 1) {
    int nomem = rc == ENOMEM || (rc == EAGAIN && mdv_pool_no_stack());
    if (err && err_size > 0) {
      snprintf(err, err_size, "mdv_pool_create: could not start worker thread %d of %d (%s%s)", started + 1,
               num_threads - 1, strerror(rc), nomem ? ": no memory for its stack" : "");
    }
    mdv_pool_stop_join(p, started);
    pthread_cond_destroy(&p->done_cond);
    pthread_cond_destroy(&p->work_cond);
    pthread_mutex_destroy(&p->mutex);
    free(p->workers);
    free(p);
    return nomem ? MDV_POOL_ENOMEM : MDV_POOL_ETHREAD;
  }

  *out = p;
  return MDV_POOL_OK;
}

/* Run fn(ctx, i, T) on every thread i, the caller as thread 0; return when all have finished. */
void mdv_pool_run(mdv_pool *p, mdv_pool_fn fn, void *ctx) {
  const int num_threads = p->num_threads;
  if (num_threads == 1) {
    fn(ctx, 0, 1);
    return;
  }

  /* publish the job: plain writes and pending, then the release of generation */
  p->fn = fn;
  p->ctx = ctx;
  atomic_store_explicit(&p->pending, num_threads - 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&p->generation, 1u, memory_order_seq_cst);
  if (atomic_load_explicit(&p->sleeping, memory_order_seq_cst) > 0) {
    mdv_event_post(p, &p->work_event, &p->work_cond);
  }

  fn(ctx, 0, num_threads);
  mdv_pool_wait_done(p);
}

/* Stop and join all workers and free the pool; NULL is a no-op. */
void mdv_pool_destroy(mdv_pool *p) {
  if (!p) {
    return;
  }
  if (p->locks_ready) {
    mdv_pool_stop_join(p, p->num_threads - 1);
    pthread_cond_destroy(&p->done_cond);
    pthread_cond_destroy(&p->work_cond);
    pthread_mutex_destroy(&p->mutex);
  }
  free(p->workers);
  free(p->q_items);
  free(p->q_done);
  free(p);
}

/* Free the memory of a pool whose threads belong to the parent of a fork. */
void mdv_pool_abandon(mdv_pool *p) {
  if (!p) {
    return;
  }
  free(p->workers);
  free(p->q_items);
  free(p->q_done);
  free(p);
}

/*---------------------------------- Background queue ---------------------------------------*/

/* Open the queue: ring of capacity items, fn(ctx, item) per item; start the stand-in for thread 0. */
int mdv_pool_queue_open(mdv_pool *p, int capacity, mdv_pool_item_fn fn, void *ctx, char *err, size_t err_size) {
  if (err && err_size > 0) {
    err[0] = '\0';
  }
  if (!p || capacity < 1 || !fn || p->q_cap) {
    mdv_pool_seterr(err, err_size, "mdv_pool_queue_open: no pool, capacity < 1, no job, or already open", 0);
    return MDV_POOL_EINVAL;
  }
  int *items = (int *)calloc((size_t)capacity, sizeof *items);
  atomic_ullong *done = (atomic_ullong *)calloc((size_t)capacity, sizeof *done);
  if (!items || !done) {
    free(items);
    free(done);
    mdv_pool_seterr(err, err_size, "mdv_pool_queue_open: out of memory", 0);
    return MDV_POOL_ENOMEM;
  }
  for (int k = 0; k < capacity; ++k) {
    atomic_init(&done[k], 0ull);
  }
  if (!p->locks_ready) { /* a pool of one thread runs inline and made none */
    int rc = pthread_mutex_init(&p->mutex, NULL);
    if (!rc && (rc = pthread_cond_init(&p->work_cond, NULL)) != 0) {
      pthread_mutex_destroy(&p->mutex);
    }
    if (!rc && (rc = pthread_cond_init(&p->done_cond, NULL)) != 0) {
      pthread_cond_destroy(&p->work_cond);
      pthread_mutex_destroy(&p->mutex);
    }
    if (rc) {
      free(items);
      free(done);
      mdv_pool_seterr(err, err_size, "mdv_pool_queue_open: pthread_mutex_init or pthread_cond_init failed", rc);
      return MDV_POOL_ETHREAD;
    }
    p->locks_ready = 1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    p->pause_iters = (ncpu > 0 && p->num_threads + 1 > ncpu) ? 0u : mdv_pool_calibrate();
  }
  p->q_items = items;
  p->q_done = done;
  p->q_fn = fn;
  p->q_ctx = ctx;
  p->q_cap = capacity;
  mdv_worker *w = &p->q_worker;
  w->pool = p;
  w->index = 0;
  w->start_gen = atomic_load_explicit(&p->generation, memory_order_relaxed);
  int rc = mdv_pool_start(w);
  if (rc) {
    p->q_items = NULL;
    p->q_done = NULL;
    p->q_cap = 0;
    free(items);
    free(done);
    int nomem = rc == ENOMEM || (rc == EAGAIN && mdv_pool_no_stack());
    if (err && err_size > 0) {
      snprintf(err, err_size, "mdv_pool_queue_open: could not start the background thread (%s%s)", strerror(rc),
               nomem ? ": no memory for its stack" : "");
    }
    return nomem ? MDV_POOL_ENOMEM : MDV_POOL_ETHREAD;
  }
  p->q_started = 1;
  return MDV_POOL_OK;
}

int mdv_pool_queue_is_open(const mdv_pool *p) {
  return p && p->q_cap > 0;
}

/* Push n items in order; return the number of the first. */
unsigned long long mdv_pool_queue_push(mdv_pool *p, const int *values, int n) {
  const unsigned long long first = atomic_load_explicit(&p->q_tail, memory_order_relaxed); /* the caller's own */
  const unsigned long long cap = (unsigned long long)p->q_cap;
  for (int j = 0; j < n; ++j) {
    p->q_items[(first + (unsigned long long)j) % cap] = values[j];
  }
  atomic_fetch_add_explicit(&p->q_tail, (unsigned long long)n, memory_order_seq_cst);
  if (atomic_load_explicit(&p->sleeping, memory_order_seq_cst) > 0) {
    mdv_event_post(p, &p->work_event, &p->work_cond);
  }
  return first;
}

/* Wait for items first .. first + count - 1, running the unclaimed ones among them here. */
void mdv_pool_queue_wait(mdv_pool *p, unsigned long long first, unsigned long long count) {
  const unsigned long long end = first + count, cap = (unsigned long long)p->q_cap;
  for (unsigned long long j = first; j < end; ++j) {
    atomic_ullong *mark = &p->q_done[j % cap];
    if (atomic_load_explicit(mark, memory_order_acquire) == j + 1) {
      continue;
    }
    unsigned long long k;
    while (mdv_queue_claim(p, end, &k)) { /* the range's items nobody took yet: run them here */
      mdv_queue_run(p, k, 0);
    }
    int done = 0;
    mdv_spin spin = {0, 0};
    do {
      if (atomic_load_explicit(mark, memory_order_acquire) == j + 1) {
        done = 1;
        break;
      }
    } while (mdv_spin_step(p, &spin));
    if (done) {
      continue;
    }
    atomic_store_explicit(&p->q_waiting, 1, memory_order_seq_cst);
    for (;;) {
      unsigned e = atomic_load_explicit(&p->done_event, memory_order_seq_cst);
      if (atomic_load_explicit(mark, memory_order_seq_cst) == j + 1) {
        break;
      }
      mdv_event_wait(p, &p->done_event, e, &p->done_cond);
    }
    atomic_store_explicit(&p->q_waiting, 0, memory_order_relaxed);
  }
}

/* Drop the unclaimed items and wait for the claimed ones from first on; return how many were dropped. */
unsigned long long mdv_pool_queue_cancel(mdv_pool *p, unsigned long long first) {
  if (!p || !p->q_cap) {
    return 0;
  }
  unsigned long long c = atomic_load_explicit(&p->q_claim, memory_order_relaxed), t;
  for (;;) { /* claim everything pushed: nobody runs those items */
    t = atomic_load_explicit(&p->q_tail, memory_order_acquire);
    if (c >= t) {
      t = c;
      break;
    }
    if (atomic_compare_exchange_weak_explicit(&p->q_claim, &c, t, memory_order_acq_rel, memory_order_relaxed)) {
      break;
    }
  }
  /* items first .. c - 1 were claimed by threads that run them; c .. t - 1 are dropped */
  if (c > first) {
    mdv_pool_queue_wait(p, first, c - first);
  }
  return t - c;
}

/* Return the number of threads T, the caller included. */
void mdv_pool_share(int n, int thread, int threads, int *lo, int *hi) {
  *lo = (int)((long long)n * thread / threads);
  *hi = (int)((long long)n * (thread + 1) / threads);
}

int mdv_pool_threads(const mdv_pool *p) {
  return p->num_threads;
}
