/* test_pool.c: tests of the worker thread pool (libmdvec/src/pool.c).
 *
 * Plain C, no framework. Meant to be run as is, under ThreadSanitizer (data published through
 * the pool is written and read as plain doubles, so a missing happens-before edge is reported)
 * and under AddressSanitizer/LeakSanitizer + UBSan (create/destroy leaks).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/*---------------------------------- Harness ------------------------------------------------*/

static int g_failures = 0; /* checks failed in the current test */

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      if (g_failures < 20) {                                                     \
        fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      }                                                                          \
      ++g_failures;                                                              \
    }                                                                            \
  } while (0)

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {}
}

/*---------------------------------- Every index exactly once -------------------------------*/

#define MAX_T 8

typedef struct {
  atomic_int count[MAX_T]; /* runs seen by each thread index */
  atomic_int bad_args;     /* calls with a wrong num_threads or index */
  atomic_int caller_not_0; /* index 0 ran on another thread than the caller */
  int num_threads;
  pthread_t caller;
} once_ctx;

static void once_fn(void *vctx, int i, int t) {
  once_ctx *c = (once_ctx *)vctx;
  if (t != c->num_threads || i < 0 || i >= t) {
    atomic_fetch_add(&c->bad_args, 1);
    return;
  }
  if (i == 0 && !pthread_equal(pthread_self(), c->caller)) {
    atomic_fetch_add(&c->caller_not_0, 1);
  }
  atomic_fetch_add_explicit(&c->count[i], 1, memory_order_relaxed);
}

static void test_every_index_once(void) {
  const int runs = 10000;
  for (int t = 1; t <= MAX_T; ++t) {
    char err[256];
    mdv_pool *p = NULL;
    CHECK(mdv_pool_create(&p, t, err, sizeof err) == MDV_POOL_OK);
    if (!p) {
      fprintf(stderr, "  create failed: %s\n", err);
      return;
    }
    CHECK(mdv_pool_threads(p) == t);
    once_ctx c;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < MAX_T; ++i) {
      atomic_init(&c.count[i], 0);
    }
    atomic_init(&c.bad_args, 0);
    atomic_init(&c.caller_not_0, 0);
    c.num_threads = t;
    c.caller = pthread_self();
    for (int r = 1; r <= runs; ++r) {
      mdv_pool_run(p, once_fn, &c);
      for (int i = 0; i < t; ++i) {
        int n = atomic_load_explicit(&c.count[i], memory_order_relaxed);
        CHECK(n == r);
        if (n != r) {
          fprintf(stderr, "  T=%d run %d: index %d ran %d times\n", t, r, i, n);
          r = runs; /* stop at the first failure */
          break;
        }
      }
    }
    for (int i = t; i < MAX_T; ++i) {
      CHECK(atomic_load(&c.count[i]) == 0);
    }
    CHECK(atomic_load(&c.bad_args) == 0);
    CHECK(atomic_load(&c.caller_not_0) == 0);
    mdv_pool_destroy(p);
  }
}

/*---------------------------------- Visibility of plain data -------------------------------*/

#define VIS_IN  64 /* inputs written by the caller, read by every thread */
#define VIS_OUT 16 /* outputs per thread, written by that thread only */

typedef struct {
  double in[VIS_IN];          /* written by the caller before each run */
  double out[MAX_T][VIS_OUT]; /* out[i][k] written by thread i during the run */
  double scale;               /* changed by the caller between runs */
} vis_ctx;

static double vis_expect(const double *in, double scale, int i, int k) {
  double s = 0.0;
  for (int j = 0; j < VIS_IN; ++j) {
    s += in[j] * (double)(j + 1);
  }
  return s * scale + (double)(i * VIS_OUT + k);
}

static void vis_fn(void *vctx, int i, int t) {
  vis_ctx *c = (vis_ctx *)vctx;
  (void)t;
  for (int k = 0; k < VIS_OUT; ++k) {
    c->out[i][k] = vis_expect(c->in, c->scale, i, k);
  }
}

/* a second job, so fn changes between runs */
static void vis_fn_neg(void *vctx, int i, int t) {
  vis_ctx *c = (vis_ctx *)vctx;
  (void)t;
  for (int k = 0; k < VIS_OUT; ++k) {
    c->out[i][k] = -vis_expect(c->in, c->scale, i, k);
  }
}

static void test_visibility(void) {
  const int runs = 3000;
  for (int t = 2; t <= MAX_T; ++t) {
    char err[256];
    mdv_pool *p = NULL;
    CHECK(mdv_pool_create(&p, t, err, sizeof err) == MDV_POOL_OK);
    if (!p) {
      return;
    }
    static vis_ctx c;
    memset(&c, 0, sizeof c);
    int bad = 0;
    for (int r = 0; r < runs && !bad; ++r) {
      for (int j = 0; j < VIS_IN; ++j) {
        c.in[j] = (double)(r * 131 + j * 7 + t);
      }
      c.scale = (double)(r % 17) + 0.5;
      int neg = r & 1;
      mdv_pool_run(p, neg ? vis_fn_neg : vis_fn, &c);
      for (int i = 0; i < t && !bad; ++i) {
        for (int k = 0; k < VIS_OUT; ++k) {
          double e = vis_expect(c.in, c.scale, i, k);
          if (c.out[i][k] != (neg ? -e : e)) {
            fprintf(stderr, "  T=%d run %d: out[%d][%d] = %g, expected %g\n", t, r, i, k, c.out[i][k], neg ? -e : e);
            bad = 1;
            break;
          }
        }
      }
    }
    CHECK(!bad);
    mdv_pool_destroy(p);
  }
}

/*---------------------------------- Create / destroy ---------------------------------------*/

static void count_fn(void *vctx, int i, int t) {
  (void)i;
  (void)t;
  atomic_fetch_add((atomic_int *)vctx, 1);
}

static void test_create_destroy(void) {
  for (int n = 0; n < 1000; ++n) {
    char err[256];
    mdv_pool *p = NULL;
    int rc = mdv_pool_create(&p, 4, err, sizeof err);
    CHECK(rc == MDV_POOL_OK && p != NULL);
    if (rc != MDV_POOL_OK) {
      fprintf(stderr, "  create %d failed: %s\n", n, err);
      return;
    }
    if (n % 2 == 0) { /* half of them never run: destroy must still stop idle workers */
      atomic_int calls;
      atomic_init(&calls, 0);
      mdv_pool_run(p, count_fn, &calls);
      CHECK(atomic_load(&calls) == 4);
    }
    mdv_pool_destroy(p);
  }
  mdv_pool_destroy(NULL); /* no-op */
}

/*---------------------------------- Idle, then run -----------------------------------------*/

static void test_run_after_idle(void) {
  for (int t = 2; t <= 4; ++t) {
    mdv_pool *p = NULL;
    CHECK(mdv_pool_create(&p, t, NULL, 0) == MDV_POOL_OK);
    if (!p) {
      return;
    }
    static vis_ctx c;
    memset(&c, 0, sizeof c);
    for (int r = 0; r < 6; ++r) {
      sleep_ms(5); /* longer than the spin: every worker is blocked on its condvar */
      for (int j = 0; j < VIS_IN; ++j) {
        c.in[j] = (double)(r + j);
      }
      c.scale = 2.0 + r;
      mdv_pool_run(p, vis_fn, &c);
      for (int i = 0; i < t; ++i) {
        for (int k = 0; k < VIS_OUT; ++k) {
          CHECK(c.out[i][k] == vis_expect(c.in, c.scale, i, k));
        }
      }
    }
    mdv_pool_destroy(p);
  }
}

/* Workers slower than the caller's spin: the caller blocks waiting for completion. */
static void slow_worker_fn(void *vctx, int i, int t) {
  vis_ctx *c = (vis_ctx *)vctx;
  if (i == t - 1) {
    sleep_ms(3);
  }
  vis_fn(c, i, t);
}

/* Caller slower than the workers' spin: workers block before the next run. */
static void slow_caller_fn(void *vctx, int i, int t) {
  vis_ctx *c = (vis_ctx *)vctx;
  if (i == 0) {
    sleep_ms(3);
  }
  vis_fn(c, i, t);
}

static void test_blocking_paths(void) {
  mdv_pool *p = NULL;
  CHECK(mdv_pool_create(&p, 3, NULL, 0) == MDV_POOL_OK);
  if (!p) {
    return;
  }
  static vis_ctx c;
  memset(&c, 0, sizeof c);
  for (int r = 0; r < 40; ++r) {
    for (int j = 0; j < VIS_IN; ++j) {
      c.in[j] = (double)(r * 3 + j);
    }
    c.scale = 1.0 + r;
    mdv_pool_run(p, (r & 1) ? slow_worker_fn : slow_caller_fn, &c);
    for (int i = 0; i < 3; ++i) {
      for (int k = 0; k < VIS_OUT; ++k) {
        CHECK(c.out[i][k] == vis_expect(c.in, c.scale, i, k));
      }
    }
  }
  mdv_pool_destroy(p);
}

/*---------------------------------- Argument errors ----------------------------------------*/

static void test_argument_errors(void) {
  const int bad[] = {0, -1, -1000, MDV_POOL_MAX_THREADS + 1};
  for (size_t n = 0; n < sizeof bad / sizeof bad[0]; ++n) {
    char err[256];
    memset(err, 0, sizeof err);
    mdv_pool *p = (mdv_pool *)&err; /* must be overwritten with NULL */
    int rc = mdv_pool_create(&p, bad[n], err, sizeof err);
    CHECK(rc == MDV_POOL_EINVAL);
    CHECK(rc < 0);
    CHECK(p == NULL);
    CHECK(strlen(err) > 0);
    CHECK(strstr(err, "num_threads") != NULL);
  }

  /* NULL out */
  char err[256] = "";
  CHECK(mdv_pool_create(NULL, 2, err, sizeof err) == MDV_POOL_EINVAL);
  CHECK(strlen(err) > 0);

  /* NULL err and tiny err buffers are accepted */
  mdv_pool *p = NULL;
  CHECK(mdv_pool_create(&p, 0, NULL, 0) == MDV_POOL_EINVAL);
  CHECK(p == NULL);
  char tiny[4] = {'x', 'x', 'x', 'x'};
  CHECK(mdv_pool_create(&p, 0, tiny, sizeof tiny) == MDV_POOL_EINVAL);
  CHECK(tiny[3] == '\0');

  /* success clears err */
  strcpy(err, "stale");
  CHECK(mdv_pool_create(&p, 1, err, sizeof err) == MDV_POOL_OK);
  CHECK(err[0] == '\0');
  CHECK(p != NULL && mdv_pool_threads(p) == 1);
  mdv_pool_destroy(p);
}

/*---------------------------------- Main ---------------------------------------------------*/

typedef struct {
  const char *name;
  void (*fn)(void);
} test_case;

/*---------------------------------- Background queue ---------------------------------------*/

#define Q_CAP 7 /* ring slots: odd, so the slots of an item move round the ring */

typedef struct {
  double in[Q_CAP];  /* written by the caller before the push: read by the item's thread */
  double out[Q_CAP]; /* written by the item's thread: read by the caller after the wait */
  atomic_int runs[Q_CAP];
  pthread_t caller;
  atomic_int on_caller;  /* items the caller ran itself (in its waits) */
  int threads;           /* T */
  atomic_int busy[5];    /* items running now with thread number t (0..T): at most one */
  atomic_int bad_thread; /* items given a number out of [0, T], 0 off the caller, or one already in use */
} q_ctx;

static void q_item(void *vctx, int item, int thread) {
  q_ctx *c = (q_ctx *)vctx;
  int on_caller = pthread_equal(pthread_self(), c->caller);
  int in_range = thread >= 0 && thread <= c->threads, ok = in_range && (thread == 0) == on_caller;
  if (in_range && atomic_fetch_add_explicit(&c->busy[thread], 1, memory_order_relaxed) != 0) ok = 0;
  c->out[item] = 2.0 * c->in[item] + 1.0;
  atomic_fetch_add_explicit(&c->runs[item], 1, memory_order_relaxed);
  if (on_caller) atomic_fetch_add_explicit(&c->on_caller, 1, memory_order_relaxed);
  if (in_range) atomic_fetch_sub_explicit(&c->busy[thread], 1, memory_order_relaxed);
  if (!ok) atomic_fetch_add_explicit(&c->bad_thread, 1, memory_order_relaxed);
}

/* Random pushes and waits (the ring wrapping thousands of times): every item runs once, its input visible
 * to its thread and its output to the caller after the wait (TSan checks the edges), each run given a thread
 * number in [0, T] that no other item running at the same time has (0 only on the caller); then a cancel with
 * items in flight drops the unclaimed ones and returns, and the pool is destroyed. 1 to 4 threads. */
static void test_queue(void) {
  for (int threads = 1; threads <= 4; ++threads) {
    mdv_pool *p = NULL;
    char err[256];
    CHECK(mdv_pool_create(&p, threads, err, sizeof err) == MDV_POOL_OK);
    if (!p) continue;
    static q_ctx c;
    memset(&c, 0, sizeof c);
    c.caller = pthread_self();
    c.threads = threads;
    CHECK(!mdv_pool_queue_is_open(p));
    CHECK(mdv_pool_queue_open(p, Q_CAP, q_item, &c, err, sizeof err) == MDV_POOL_OK && mdv_pool_queue_is_open(p));
    CHECK(mdv_pool_queue_open(p, Q_CAP, q_item, &c, err, sizeof err) == MDV_POOL_EINVAL); /* already open */
    unsigned long long pushed = 0, waited = 0, seed = 12345u + (unsigned)threads;
    int bad = 0;
    for (int round = 0; round < 4000; ++round) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      int room = Q_CAP - (int)(pushed - waited), n = room ? 1 + (int)((seed >> 33) % (unsigned long long)room) : 0;
      int values[Q_CAP];
      for (int j = 0; j < n; ++j) {
        values[j] = (int)((pushed + (unsigned long long)j) % Q_CAP); /* distinct among those in flight */
        c.in[values[j]] = round + 0.25 * j;
      }
      if (n) CHECK(mdv_pool_queue_push(p, values, n) == pushed);
      pushed += (unsigned long long)n;
      unsigned long long m = (seed >> 20) % (pushed - waited + 1);
      if (m == 0 && pushed - waited == Q_CAP) m = 1;
      mdv_pool_queue_wait(p, waited, m);
      for (unsigned long long k = waited; k < waited + m; ++k) {
        int v = (int)(k % Q_CAP);
        bad += c.out[v] != 2.0 * c.in[v] + 1.0;
      }
      waited += m;
    }
    mdv_pool_queue_wait(p, waited, pushed - waited);
    waited = pushed;
    int runs = 0;
    for (int v = 0; v < Q_CAP; ++v) runs += atomic_load(&c.runs[v]);
    CHECK(bad == 0);
    CHECK((unsigned long long)runs == pushed);
    CHECK(atomic_load(&c.bad_thread) == 0); /* thread numbers: 1..T-1 workers, T the stand-in, 0 the caller */
    int values[Q_CAP] = {0, 1, 2, 3, 4, 5, 6};
    mdv_pool_queue_push(p, values, Q_CAP); /* in flight at the cancel */
    unsigned long long dropped = mdv_pool_queue_cancel(p, waited);
    runs = 0;
    for (int v = 0; v < Q_CAP; ++v) runs += atomic_load(&c.runs[v]);
    CHECK(dropped <= Q_CAP && (unsigned long long)runs + dropped == pushed + Q_CAP);
    mdv_pool_destroy(p);
  }
}

int main(void) {
  const test_case tests[] = {
    {"every_index_once", test_every_index_once},
    {"visibility", test_visibility},
    {"create_destroy", test_create_destroy},
    {"run_after_idle", test_run_after_idle},
    {"blocking_paths", test_blocking_paths},
    {"argument_errors", test_argument_errors},
    {"queue", test_queue},
  };
  int passed = 0, failed = 0;
  for (size_t n = 0; n < sizeof tests / sizeof tests[0]; ++n) {
    g_failures = 0;
    tests[n].fn();
    if (g_failures) {
      ++failed;
      printf("FAIL %s (%d failed checks)\n", tests[n].name, g_failures);
    } else {
      ++passed;
      printf("ok   %s\n", tests[n].name);
    }
    fflush(stdout);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
