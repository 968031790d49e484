/* crew.c: the benchmarks' thread crew (see crew.h).
 *
 * Publication: the caller writes job, ctx and pending, then increments generation (seq_cst, a release);
 * a member that loads a new generation (seq_cst, an acquire) reads them and everything the caller wrote
 * before. Completion: each member decrements pending (seq_cst) after its job; the caller's load of 0
 * acquires every job's writes. Sleeping, the only place a lock is taken: a member increments sleeping
 * under the mutex and waits only while generation is unchanged; the caller increments generation and
 * then broadcasts (under the mutex) when sleeping > 0. Both are seq_cst, so either the caller sees the
 * sleeper or the sleeper sees the new generation: no wake-up is lost. The caller's wait for pending == 0
 * mirrors it with caller_sleeping and the done condition. Shutdown: stop, a new generation, an
 * unconditional broadcast, then join every member before freeing.
 */
#define _GNU_SOURCE

#include "crew.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CREW_SPIN_NS  50000LL /* spin this long before blocking, as mdvec's pool */
#define CREW_PAUSE_NS 4000LL  /* of which the first part only pauses (no yield) */

typedef struct crew_member_ { /* one started thread */
  crew *crew;                 /* its crew */
  int index;                  /* 1..T-1 */
  pthread_t thread;           /* its pthread */
} crew_member;

struct crew_ {
  int threads;                      /* T, the caller included */
  long long pause_ns;               /* CREW_PAUSE_NS, or 0 when the threads outnumber the CPUs */
  crew_member *members;             /* (T - 1) started threads */
  _Alignas(64) crew_job job;        /* this run's job (the caller writes; published by generation) */
  void *ctx;                        /* its argument */
  atomic_uint generation;           /* runs published */
  atomic_int stop;                  /* 1: members exit at the next generation */
  atomic_int caller_sleeping;       /* 1: the caller is (about to be) blocked on done */
  _Alignas(64) atomic_int pending;  /* members that have not finished this run (the members write) */
  _Alignas(64) atomic_int sleeping; /* members (about to be) blocked on work */
  pthread_mutex_t mutex;            /* guards work and done */
  pthread_cond_t work, done;        /* members wait for a generation, the caller for pending == 0 */
};

void crew_share(int n, int thread, int threads, int *lo, int *hi) {
  *lo = (int)((long long)n * thread / threads);
  *hi = (int)((long long)n * (thread + 1) / threads);
}

/* Hint the CPU that this is a spin-wait. */
static inline void cpu_relax(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Return the monotonic clock in nanoseconds. */
static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

typedef struct spin_ { /* one spin-wait */
  long long t0;        /* when it started (ns); 0 before the first step */
  int k;               /* steps taken */
  int yield;           /* 1 once past the pause phase */
} spin;

/* Take one step of a spin-wait (a pause, or a yield of the CPU); return 0 once the spin is spent. The
 * clock is read every 64 pauses and at every yield. */
static int spin_step(const crew *c, spin *s) {
  if (s->yield || s->k++ % 64 == 0) {
    long long t = now_ns();
    if (s->t0 == 0)
      s->t0 = t;
    else if (t - s->t0 >= CREW_SPIN_NS)
      return 0;
    s->yield = t - s->t0 >= c->pause_ns;
  }
  if (s->yield)
    sched_yield();
  else
    cpu_relax();
  return 1;
}

/* Body of threads 1..T-1: the job once per generation until stop. */
static void *member_main(void *arg) {
  crew_member *m = arg;
  crew *c = m->crew;
  unsigned seen = 0;
  for (;;) {
    spin s = {0, 0, 0};
    unsigned g;
    while ((g = atomic_load(&c->generation)) == seen && spin_step(c, &s)) {}
    if (g == seen) {
      pthread_mutex_lock(&c->mutex);
      atomic_fetch_add(&c->sleeping, 1);
      while ((g = atomic_load(&c->generation)) == seen) pthread_cond_wait(&c->work, &c->mutex);
      atomic_fetch_sub(&c->sleeping, 1);
      pthread_mutex_unlock(&c->mutex);
    }
    seen = g;
    if (atomic_load(&c->stop)) return NULL;
    c->job(c->ctx, m->index, c->threads);
    if (atomic_fetch_sub(&c->pending, 1) == 1 && atomic_load(&c->caller_sleeping)) {
      pthread_mutex_lock(&c->mutex);
      pthread_cond_signal(&c->done);
      pthread_mutex_unlock(&c->mutex);
    }
  }
}

void crew_run(crew *c, crew_job job, void *ctx) {
  if (c->threads == 1) {
    job(ctx, 0, 1);
    return;
  }
  c->job = job;
  c->ctx = ctx;
  atomic_store(&c->pending, c->threads - 1);
  atomic_fetch_add(&c->generation, 1);
  if (atomic_load(&c->sleeping) > 0) {
    pthread_mutex_lock(&c->mutex);
    pthread_cond_broadcast(&c->work);
    pthread_mutex_unlock(&c->mutex);
  }
  job(ctx, 0, c->threads);
  spin s = {0, 0, 0};
  while (atomic_load(&c->pending) != 0 && spin_step(c, &s)) {}
  if (atomic_load(&c->pending) != 0) {
    pthread_mutex_lock(&c->mutex);
    atomic_store(&c->caller_sleeping, 1);
    while (atomic_load(&c->pending) != 0) pthread_cond_wait(&c->done, &c->mutex);
    atomic_store(&c->caller_sleeping, 0);
    pthread_mutex_unlock(&c->mutex);
  }
}

/* Stop and join the first `started` members and free the crew; NULL is a no-op. */
static void crew_free(crew *c, int started) {
  if (!c) return;
  atomic_store(&c->stop, 1);
  atomic_fetch_add(&c->generation, 1);
  pthread_mutex_lock(&c->mutex);
  pthread_cond_broadcast(&c->work);
  pthread_mutex_unlock(&c->mutex);
  for (int i = 0; i < started; i++) pthread_join(c->members[i].thread, NULL);
  pthread_cond_destroy(&c->done);
  pthread_cond_destroy(&c->work);
  pthread_mutex_destroy(&c->mutex);
  free(c->members);
  free(c);
}

void crew_destroy(crew *c) {
  if (c) crew_free(c, c->threads - 1);
}

crew *crew_create(int threads, char *err, size_t size) {
  if (threads < 1 || threads > CREW_MAX_THREADS) {
    snprintf(err, size, "crew: %d threads, not in 1..%d", threads, CREW_MAX_THREADS);
    return NULL;
  }
  crew *c = aligned_alloc(64, (sizeof *c + 63) / 64 * 64);
  if (!c) {
    snprintf(err, size, "crew: out of memory");
    return NULL;
  }
  memset(c, 0, sizeof *c);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  c->threads = threads;
  c->pause_ns = ncpu > 0 && threads > ncpu ? 0 : CREW_PAUSE_NS;
  pthread_mutex_init(&c->mutex, NULL);
  pthread_cond_init(&c->work, NULL);
  pthread_cond_init(&c->done, NULL);
  c->members = calloc((size_t)threads, sizeof *c->members);
  if (!c->members) {
    snprintf(err, size, "crew: out of memory");
    crew_free(c, 0);
    return NULL;
  }
  for (int i = 1; i < threads; i++) {
    c->members[i - 1] = (crew_member){c, i, 0};
    int rc = pthread_create(&c->members[i - 1].thread, NULL, member_main, &c->members[i - 1]);
    if (rc) {
      snprintf(err, size, "crew: cannot start thread %d of %d: %s", i, threads - 1, strerror(rc));
      crew_free(c, i - 1);
      return NULL;
    }
  }
  return c;
}
