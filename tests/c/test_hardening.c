/* Hardening (issue 13): sizes that cannot overflow or balloon, out of memory as MDVEC_ERR_NOMEM instead of
 * the end of the process, forked and concurrent calls refused, physics errors that end one episode, the
 * MuJoCo log kept out of the working directory, and the smaller checks. Scenarios that may exhaust memory
 * (or, before the fixes, end the process) run in a forked child with an address-space limit, in a
 * temporary working directory. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "mdvec.h"

#define NU 14
#define GB (1024.0 * 1024.0 * 1024.0)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* the sanitizers reserve terabytes of address space: no RLIMIT_AS scenarios */
#else
#define SANITIZED 0
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*---------------------------------- Running a scenario in a child ---------------------------------*/

typedef struct {
  int ran;        /* the child reported back (it did not die or exit early) */
  int status;     /* its wait status */
  int code;       /* what the scenario returned */
  double seconds; /* how long the scenario took */
  char msg[1024]; /* the scenario's message */
} outcome;

typedef int (*scenario)(const void *arg, char *msg, size_t n);

/* Run fn in this process (the sanitizers' builds, which do not fork these), its message kept. */
static outcome in_process(scenario fn) {
  outcome o = {.ran = 1};
  o.code = fn(NULL, o.msg, sizeof o.msg);
  return o;
}

/* Run fn in a forked child with RLIMIT_AS = limit bytes (0: none) in a fresh temporary directory; the
 * directory is removed afterwards and *stray is set when the child left a file in it. */
static outcome in_child(double limit, scenario fn, const void *arg, int *stray) {
  outcome o;
  memset(&o, 0, sizeof o);
  char dir[] = "/tmp/mdvec_hardening_XXXXXX";
  if (!mkdtemp(dir)) return o;
  int fd[2];
  if (pipe(fd)) return o;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    alarm(120);            /* a scenario that hangs (before a fix) is killed, not waited for */
    mallopt(M_PERTURB, 0); /* meson's MALLOC_PERTURB_ would write every byte of a 3 GB arena */
    if (chdir(dir)) _exit(90);
    if (limit > 0) {
      struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
      if (setrlimit(RLIMIT_AS, &rl)) _exit(91);
    }
    outcome r;
    memset(&r, 0, sizeof r);
    double t0 = now();
    r.code = fn(arg, r.msg, sizeof r.msg);
    r.seconds = now() - t0;
    r.ran = 1;
    ssize_t w = write(fd[1], &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 92);
  }
  close(fd[1]);
  outcome r;
  ssize_t got = read(fd[0], &r, sizeof r);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got == (ssize_t)sizeof r) o = r;
  o.status = status;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
  if (stray) *stray = system(cmd) != 0;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return o;
}

/* Create with the config edited by arg (a function) and destroy; return the code, message in msg. */
typedef void (*edit_fn)(mdvec_config_t *);
static int create_edited(const void *arg, char *msg, size_t n) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  (*(const edit_fn *)arg)(&cfg);
  mdvec_t *h = NULL;
  int code = mdvec_create(&h, &cfg, msg, n);
  if (code == MDVEC_OK) {
    code = mdvec_reset(h);
    snprintf(msg, n, "%s", mdvec_errmsg(h));
  }
  mdvec_destroy(h);
  return code;
}

static outcome create_in_child(double limit, edit_fn edit) {
  return in_child(limit, create_edited, &edit, NULL);
}

/*---------------------------------- 1. Sizes ------------------------------------------------------*/

static void huge_latency(mdvec_config_t *c) {
  c->episode_len = 1000000000;
  c->latency = 100000000;
}
static void v1_overflow_latency(mdvec_config_t *c) {
  c->num_envs = 4;
  c->threads = 2;
  c->latency = 306783379;
}
static void huge_pushes(mdvec_config_t *c) {
  c->episode_len = 1000000000;
  c->push_window[0] = 0;
  c->push_window[1] = 1000000000;
  c->n_pushes = 1000000;
}
static void huge_num_envs(mdvec_config_t *c) {
  c->num_envs = 1000000;
  c->threads = 1;
}

static void test_sizes_are_bounded(void) {
  double limit = SANITIZED ? 0 : 2 * GB; /* the limit guards the machine when these were accepted */
  outcome o = create_in_child(limit, huge_latency);
  CHECK_THAT("latency 1e8: refused as a config error", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "latency"));
  o = create_in_child(limit, v1_overflow_latency);
  CHECK_THAT("latency 306783379: refused", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "latency"));
  o = create_in_child(limit, huge_pushes);
  CHECK_THAT("n_pushes 1e6: refused", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "n_pushes"));
  if (SANITIZED) return;
  o = create_in_child(4 * GB, huge_num_envs);
  CHECK_THAT("1e6 envs: NOMEM naming num_envs", o.ran && o.code == MDVEC_ERR_NOMEM && strstr(o.msg, "num_envs"));
  if (!o.ran || o.code != MDVEC_ERR_NOMEM)
    fprintf(stderr, "  1e6 envs: status %d code %d: %s\n", o.status, o.code, o.msg);
}

/*---------------------------------- 2. Out of memory ----------------------------------------------*/

typedef struct {
  const char *path;
  int num_envs, threads;
} model_run;

/* Create (and destroy) num_envs envs of a model file; return the code, message in msg. */
static int create_model(const void *arg, char *msg, size_t n) {
  const model_run *r = arg;
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.model_path = r->path;
  cfg.num_envs = r->num_envs;
  cfg.threads = r->threads;
  cfg.allow_overcommit = 1;
  mdvec_t *h = NULL;
  int code = mdvec_create(&h, &cfg, msg, n);
  mdvec_destroy(h);
  return code;
}

/* Return the process's virtual size in bytes (/proc/self/statm), 0 when unknown. */
static double vm_size(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (f) {
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
  }
  return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

/* 64 threads whose stacks do not fit in what is left of the address space: NOMEM, not THREAD. */
static int create_threads_without_stacks(const void *arg, char *msg, size_t n) {
  struct rlimit rl = {(rlim_t)(vm_size() + 160.0 * 1024 * 1024), 0};
  rl.rlim_max = rl.rlim_cur;
  if (setrlimit(RLIMIT_AS, &rl)) return 999;
  return create_model(arg, msg, n);
}

static void test_out_of_memory_is_an_error(void) {
  char path[256];
  CHECK(check_duck_with_memory("3G", path, sizeof path) != NULL);
  model_run big = {path, 4, 1};
  if (!SANITIZED) {
    int stray = 0;
    outcome o = in_child(8 * GB, create_model, &big, &stray); /* the repro: 4 x 3 GB under 8 GB */
    CHECK_THAT("3G arenas x 4 under 8 GB: NOMEM", o.ran && o.code == MDVEC_ERR_NOMEM);
    printf("  %s\n", o.msg);
    CHECK_THAT("3G arenas x 4 under 8 GB: no MUJOCO_LOG.TXT", !stray);
    if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
    o = in_child(5 * GB, create_model, &big, &stray); /* the second env's arena fails inside create */
    CHECK_THAT("3G arenas x 4 under 5 GB: NOMEM", o.ran && o.code == MDVEC_ERR_NOMEM);
    printf("  %s\n", o.msg);
    if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
    /* the loader's own mjData fails (libmujoco's loader then leaks that half-made mjData, ~190 KB: its
     * own allocation, out of mdvec's reach; hence not run under LeakSanitizer) */
    o = in_child(2 * GB, create_model, &big, &stray);
    CHECK_THAT("3G arena under 2 GB: NOMEM while loading", o.ran && o.code == MDVEC_ERR_NOMEM);
    printf("  %s\n", o.msg);
    if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
  }
  remove(path);
  CHECK(check_duck_with_memory("200K", path, sizeof path) != NULL);
  model_run threads = {path, 64, 64};
  if (!SANITIZED) {
    outcome o = in_child(0, create_threads_without_stacks, &threads, NULL);
    CHECK_THAT("no memory for 63 thread stacks: NOMEM, not THREAD", o.ran && o.code == MDVEC_ERR_NOMEM);
    printf("  %s\n", o.msg);
    if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
  }
  remove(path);
}

/*---------------------------------- 4. Forks and concurrent calls ---------------------------------*/

static mdvec_t *make(int num_envs, int threads, int substeps) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = num_envs;
  cfg.threads = threads;
  cfg.substeps = substeps;
  mdvec_t *h = NULL;
  char err[512];
  if (mdvec_create(&h, &cfg, err, sizeof err) != MDVEC_OK) fprintf(stderr, "create: %s\n", err);
  return h;
}

/* In a forked child: step the parent's handle (refused), then destroy it (returns: no workers joined). */
static int step_inherited(const void *arg, char *msg, size_t n) {
  mdvec_t *h = *(mdvec_t *const *)arg;
  static double actions[4 * NU];
  int code = mdvec_step(h, actions);
  snprintf(msg, n, "%s", mdvec_errmsg(h));
  if (mdvec_reset(h) != MDVEC_ERR_STATE) code = 1000;
  mdvec_destroy(h);
  return code;
}

static void test_fork_child_refused(void) {
  mdvec_t *h = make(4, 2, 10);
  CHECK(h && mdvec_reset(h) == MDVEC_OK);
  if (!h) return;
  outcome o = in_child(0, step_inherited, &h, NULL);
  CHECK_THAT("forked child: step refused", o.ran && o.code == MDVEC_ERR_STATE && strstr(o.msg, "another process"));
  CHECK_THAT("forked child: destroy returned", o.ran && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
  if (!o.ran || o.code != MDVEC_ERR_STATE) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
  static double actions[4 * NU]; /* make(4, ...): 4 envs */
  CHECK_THAT("parent: still steps", mdvec_step(h, actions) == MDVEC_OK);
  mdvec_destroy(h);
}

typedef struct {
  mdvec_t *h;
  pthread_barrier_t *start;
  int ok, refused, other;
  char other_msg[256];
} stepper;

static void *step_many(void *arg) {
  stepper *s = arg;
  static _Thread_local double actions[4 * NU];
  pthread_barrier_wait(s->start);
  for (int k = 0; k < 1500; k++) {
    int code = mdvec_step(s->h, actions);
    if (code == MDVEC_OK) {
      s->ok++;
    } else if (code == MDVEC_ERR_STATE && strstr(mdvec_errmsg(s->h), "concurrent call")) {
      s->refused++;
    } else {
      s->other++;
      snprintf(s->other_msg, sizeof s->other_msg, "%d %s", code, mdvec_errmsg(s->h));
    }
  }
  return NULL;
}

/* Two threads step one handle at once: every overlapping call is refused, none deadlocks or races. */
static int step_from_two_threads(const void *arg, char *msg, size_t n) {
  (void)arg;
  mdvec_t *h = make(4, 2, 2);
  if (!h || mdvec_reset(h) != MDVEC_OK) return 1000;
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, 2);
  stepper s[2] = {{h, &start, 0, 0, 0, ""}, {h, &start, 0, 0, 0, ""}};
  pthread_t t[2];
  for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, step_many, &s[k]);
  for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
  pthread_barrier_destroy(&start);
  mdvec_destroy(h);
  snprintf(msg, n, "ok %d refused %d other %d %s", s[0].ok + s[1].ok, s[0].refused + s[1].refused,
           s[0].other + s[1].other, s[0].other ? s[0].other_msg : s[1].other_msg);
  return s[0].other + s[1].other ? 1001 : s[0].refused + s[1].refused > 0 ? MDVEC_OK : 1002;
}

static void test_concurrent_calls_refused(void) {
  outcome o = SANITIZED ? in_process(step_from_two_threads) : in_child(0, step_from_two_threads, NULL, NULL);
  CHECK_THAT("two threads on one handle: overlapping calls refused, no deadlock", o.ran && o.code == MDVEC_OK);
  printf("  %s\n", o.msg);
  if (!o.ran || o.code != MDVEC_OK) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
}

/* mdvec_destroy from one thread while another steps (a long step: 2 envs of 2000 substeps): destroy waits
 * for the step, which returns MDVEC_OK; before the fix destroy freed the envs under it (ASan:
 * heap-use-after-free in mj_step; without ASan a crash, which in_child reports: both fail this check). */
typedef struct {
  mdvec_t *h;
  atomic_int done;
  int code;
} long_stepper;

static void *step_long(void *arg) {
  long_stepper *s = arg;
  static double actions[2 * NU];
  int code;
  do { /* refused ("concurrent call") only while the main thread's probe runs, which is before destroy */
    code = mdvec_step(s->h, actions);
  } while (code == MDVEC_ERR_STATE);
  s->code = code;
  atomic_store(&s->done, 1);
  return NULL;
}

static int destroy_while_stepping(const void *arg, char *msg, size_t n) {
  (void)arg;
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 2;
  cfg.threads = 1; /* the caller steps every env: no worker join to delay the free */
  const mdvec_option_t opts[] = {{"substeps", "2000"}};
  cfg.options = opts;
  cfg.n_options = 1;
  long_stepper s = {.code = -100};
  int code = mdvec_create(&s.h, &cfg, msg, n);
  if (code != MDVEC_OK || (code = mdvec_reset(s.h)) != MDVEC_OK) return code;
  pthread_t t;
  pthread_create(&t, NULL, step_long, &s);
  /* Destroy only once the step is inside the library: a probe call is then refused as concurrent (a
   * sleep after the thread's start was not enough under TSan: destroy could come first and free the
   * handle before the step began). The step lasts ~100 ms; the probe takes microseconds. */
  int running = 0;
  double t_sim;
  while (!running && !atomic_load(&s.done)) {
    running = mdvec_get_state(s.h, 0, 1u /* mjSTATE_TIME */, &t_sim, 1) == MDVEC_ERR_STATE;
    if (!running) sched_yield();
  }
  /* That destroy waited shows as no crash (the fork child) and no heap-use-after-free (ASan) in the step,
   * and the step's MDVEC_OK. Not as the thread's done flag: the thread sets it after mdvec_step returned,
   * which is after the call left the handle, so destroy may rightly return first (TSan runs saw it). */
  mdvec_destroy(s.h);
  pthread_join(t, NULL);
  snprintf(msg, n, "step still running at destroy: %d; its code %d", running, s.code);
  return running && s.code == MDVEC_OK ? MDVEC_OK : 1001;
}

static void test_destroy_waits_for_a_running_call(void) {
  outcome o = SANITIZED ? in_process(destroy_while_stepping) : in_child(0, destroy_while_stepping, NULL, NULL);
  CHECK_THAT("mdvec_destroy while another thread steps: waits, the step returns OK", o.ran && o.code == MDVEC_OK);
  printf("  %s\n", o.msg);
  if (!o.ran || o.code != MDVEC_OK) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
}

typedef struct {
  const char *model_path;
  int code;
  char err[512];
} creation;

static void *create_step_destroy(void *arg) {
  creation *c = arg;
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 3;
  cfg.threads = 2;
  cfg.model_path = c->model_path;
  mdvec_t *h = NULL;
  c->code = mdvec_create(&h, &cfg, c->err, sizeof c->err);
  static _Thread_local double actions[3 * NU];
  if (c->code == MDVEC_OK) c->code = mdvec_reset(h);
  for (int k = 0; c->code == MDVEC_OK && k < 20; k++) c->code = mdvec_step(h, actions);
  mdvec_destroy(h);
  return NULL;
}

/* Handles created from 4 threads at once (each with its own workers), from the built-in model and from
 * a file: all fine (CI runs this under ThreadSanitizer). */
static void test_create_from_threads(void) {
  for (int round = 0; round < 2; round++) {
    pthread_t t[4];
    creation c[4];
    memset(c, 0, sizeof c);
    for (int k = 0; k < 4; k++) {
      c[k].model_path = round ? MDVEC_MODELS_DIR "/duck_backlash.xml" : NULL;
      pthread_create(&t[k], NULL, create_step_destroy, &c[k]);
    }
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    for (int k = 0; k < 4; k++) {
      CHECK_THAT(WHAT("create from thread %d (%s)", k, round ? "file" : "built-in"), c[k].code == MDVEC_OK);
      if (c[k].code != MDVEC_OK) fprintf(stderr, "  %d: %s\n", c[k].code, c[k].err);
    }
  }
}

/* Issue 25 item 4: fork while another thread creates handles, then create one in the child (the pattern
 * the docs prescribe). Before the fix the child could block forever in mj_loadXML on a libmujoco lock
 * that the creating thread held at the fork; each child now has FORK_CHILD_SECONDS (alarm) to create,
 * reset, step and destroy a handle, so a hang is a failed child, not a hung test. */
#define FORK_ROUNDS        200
#define FORK_CHILD_SECONDS 20

typedef struct {
  atomic_int stop;
  atomic_int created; /* handles the thread created (and destroyed) so far */
  int failed;         /* a create that failed, its code */
  char err[256];
} creator;

static void *create_destroy_loop(void *arg) {
  creator *c = arg;
  while (!atomic_load(&c->stop)) {
    mdvec_config_t cfg;
    mdvec_config_default(&cfg);
    cfg.num_envs = 1;
    cfg.threads = 1;
    mdvec_t *h = NULL;
    int code = mdvec_create(&h, &cfg, c->err, sizeof c->err);
    if (code != MDVEC_OK) {
      c->failed = code;
      return NULL;
    }
    mdvec_destroy(h);
    atomic_fetch_add(&c->created, 1);
  }
  return NULL;
}

/* In a forked grandchild: one handle of one env (threads = 1: no worker threads, which a sanitizer would
 * refuse to start after a multithreaded fork), reset, one step, destroy; the exit status says which failed. */
static int create_own_handle(void) {
  alarm(FORK_CHILD_SECONDS);
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 1;
  cfg.threads = 1;
  mdvec_t *h = NULL;
  char err[256];
  static double actions[NU];
  if (mdvec_create(&h, &cfg, err, sizeof err) != MDVEC_OK) return 3;
  int rc = mdvec_reset(h) != MDVEC_OK ? 4 : mdvec_step(h, actions) != MDVEC_OK ? 5 : 0;
  mdvec_destroy(h);
  return rc;
}

static int fork_while_creating(const void *arg, char *msg, size_t n) {
  (void)arg;
  creator c = {.failed = 0};
  pthread_t t;
  if (pthread_create(&t, NULL, create_destroy_loop, &c)) return 1000;
  while (atomic_load(&c.created) < 1 && !c.failed) sched_yield(); /* the loop is under way */
  int hung = 0, failed = 0, rounds = 0, last_status = 0;
  for (; rounds < FORK_ROUNDS && !c.failed; rounds++) {
    struct timespec pause = {0, (long)(rounds % 7) * 150000L}; /* forks at varied points of the create */
    nanosleep(&pause, NULL);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 1001;
    if (pid == 0) _exit(create_own_handle());
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
      hung++, last_status = status;
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      failed++, last_status = status;
  }
  atomic_store(&c.stop, 1);
  pthread_join(t, NULL);
  snprintf(msg, n,
           "%d forks while another thread created %d handles: %d children hung (> %d s), %d failed (status %d)%s%s",
           rounds, atomic_load(&c.created), hung, FORK_CHILD_SECONDS, failed, last_status, c.failed ? "; create: " : "",
           c.failed ? c.err : "");
  return hung || failed || c.failed || rounds < FORK_ROUNDS ? 1002 : MDVEC_OK;
}

static void test_fork_while_another_thread_creates(void) {
#if defined(__SANITIZE_ADDRESS__)
  /* ASan's own allocator (gcc 12's libasan) takes no lock around fork: a child forked while the creating
   * thread is in malloc inherits a size-class lock held and hangs in its first malloc, inside ASan (seen: a
   * child blocked in SizeClassAllocator64::GetFromAllocator under mj_loadXML, about 1 fork in 2,400). That
   * is the sanitizer's limit, not libmdvec's; the plain and TSan builds run this scenario. Not counted. */
  printf(
    "  SKIPPED under ASan (its allocator is not fork-safe beside a thread that allocates): fork while "
    "another thread creates; the plain and TSan builds run it\n");
  return;
#endif
  outcome o = SANITIZED ? in_process(fork_while_creating) : in_child(0, fork_while_creating, NULL, NULL);
  CHECK_THAT("fork while another thread creates: each child creates its own handle, none hangs",
             o.ran && o.code == MDVEC_OK);
  printf("  %s\n", o.msg);
  if (!o.ran || o.code != MDVEC_OK) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
}

/*---------------------------------- 5. A physics error in one env ---------------------------------*/

#define EN  8
#define OBS (6 + 3 * NU)

typedef struct { /* one run up to (and including) the first step where an env raised an error */
  mdvec_t *h;
  int code;                   /* what that step returned */
  int steps;                  /* steps taken, that one included */
  int env;                    /* the first env with its error flag set */
  float obs_before[EN * OBS]; /* obs rows before that step */
} error_run;

static error_run run_to_error(const char *path, int autoreset, int on_error) {
  error_run r;
  memset(&r, 0, sizeof r);
  r.env = -1;
  static const mdvec_option_t opts[] = {{"n_pushes", "1"}, {"push_window", "10,11"}, {"push_speed", "0,2.5"}};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = EN;
  cfg.threads = 2;
  cfg.model_path = path;
  cfg.autoreset = autoreset;
  cfg.on_error = on_error;
  cfg.options = opts;
  cfg.n_options = 3;
  char err[512];
  if (mdvec_create(&r.h, &cfg, err, sizeof err) != MDVEC_OK || mdvec_reset(r.h) != MDVEC_OK) {
    fprintf(stderr, "run_to_error: %s\n", err);
    return r;
  }
  static double actions[EN * NU];
  for (r.steps = 1; r.steps <= 100; r.steps++) {
    memcpy(r.obs_before, mdvec_obs(r.h), sizeof r.obs_before);
    r.code = mdvec_step(r.h, actions);
    for (int i = 0; i < EN && r.env < 0; i++)
      if (mdvec_error_flags(r.h)[i]) r.env = i;
    if (r.env >= 0 || r.code != MDVEC_OK) break;
  }
  return r;
}

/* Nonzero when env j's results of the last step agree in a and b. */
static int same_results(const mdvec_t *a, const mdvec_t *b, int j) {
  int same = !memcmp(mdvec_obs(a) + j * OBS, mdvec_obs(b) + j * OBS, OBS * sizeof(float)) &&
             mdvec_reward(a)[j] == mdvec_reward(b)[j] && mdvec_done(a)[j] == mdvec_done(b)[j];
  for (int k = 0; k < 13; k++) same = same && mdvec_info(a)[k * EN + j] == mdvec_info(b)[k * EN + j];
  return same;
}

static void test_physics_error_ends_one_episode(void) {
  char path[256];
  CHECK(check_duck_with_memory("40K", path, sizeof path) != NULL); /* enough to stand, not for some falls */
  static double actions[EN * NU];

  error_run raise = run_to_error(path, MDVEC_AUTORESET_SAME_STEP, MDVEC_ON_ERROR_RAISE);
  int i = raise.env;
  CHECK_THAT("raise: an env fails within 100 steps", i >= 0 && raise.code == MDVEC_ERR_PHYSICS);
  if (i < 0 || raise.code != MDVEC_ERR_PHYSICS)
    fprintf(stderr, "  env %d code %d steps %d: %s\n", i, raise.code, raise.steps,
            raise.h ? mdvec_errmsg(raise.h) : "");
  if (i < 0) return;
  CHECK_THAT("raise: error count",
             mdvec_error_count(raise.h) == 1 && strstr(mdvec_env_error(raise.h, i), "mj_stackAlloc"));
  CHECK_THAT("raise: next step refused", mdvec_step(raise.h, actions) == MDVEC_ERR_STATE);

  for (int mode = 0; mode < 3; mode++) {
    int autoreset = mode == 0   ? MDVEC_AUTORESET_SAME_STEP
                    : mode == 1 ? MDVEC_AUTORESET_NEXT_STEP
                                : MDVEC_AUTORESET_DISABLED;
    const char *name = mode == 0 ? "same_step" : mode == 1 ? "next_step" : "disabled";
    error_run r = run_to_error(path, autoreset, MDVEC_ON_ERROR_END_EPISODE);
    mdvec_t *h = r.h;
    CHECK_THAT(WHAT("%s: same env, same step, step returns OK", name),
               r.env == i && r.steps == raise.steps && r.code == MDVEC_OK);
    if (r.env != i || !h) continue;
    const double *info = mdvec_info(h);
    int zeros = 1;
    for (int k = 0; k < 13; k++) zeros = zeros && info[k * EN + i] == 0.0;
    CHECK_THAT(
      WHAT("%s: episode ended: truncated, reward 0, info 0", name),
      mdvec_done(h)[i] && mdvec_truncated(h)[i] && !mdvec_terminated(h)[i] && mdvec_reward(h)[i] == 0.0 && zeros);
    CHECK_THAT(WHAT("%s: final obs is the last good obs", name),
               !memcmp(mdvec_terminal_obs(h) + i * OBS, r.obs_before + i * OBS, OBS * sizeof(float)));
    CHECK_THAT(WHAT("%s: counted, message kept", name),
               mdvec_error_count(h) == 1 && strstr(mdvec_env_error(h, i), "mj_stackAlloc"));
    int healthy = 1;
    for (int j = 0; j < EN; j++)
      healthy = healthy && (j == i || (same_results(h, raise.h, j) && !mdvec_error_flags(h)[j]));
    CHECK_THAT(WHAT("%s: the other envs' results as without the error", name), healthy);
    if (mode == 0) {
      CHECK_THAT("same_step: reset at once",
                 mdvec_reset_flags(h)[i] == 1 && mdvec_step(h, actions) == MDVEC_OK && mdvec_info(h)[i] == 1.0);
    } else if (mode == 1) {
      CHECK_THAT("next_step: not yet reset", mdvec_reset_flags(h)[i] == 0);
      CHECK_THAT("next_step: reset on the next step", mdvec_step(h, actions) == MDVEC_OK &&
                                                        mdvec_reset_flags(h)[i] == 1 && mdvec_reward(h)[i] == 0.0 &&
                                                        !mdvec_done(h)[i]);
    } else {
      CHECK_THAT("disabled: stepping needs a reset",
                 mdvec_step(h, actions) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "reset it"));
      uint8_t mask[EN] = {0};
      mask[i] = 1;
      float before[EN * OBS];
      memcpy(before, mdvec_obs(h), sizeof before);
      CHECK_THAT("disabled: reset_envs(mask) resets that env from its generator",
                 mdvec_reset_envs(h, mask, NULL, NULL) == MDVEC_OK && mdvec_reset_flags(h)[i] == 1);
      int kept = 1;
      for (int j = 0; j < EN; j++)
        kept = kept && (j == i || (!memcmp(mdvec_obs(h) + j * OBS, before + j * OBS, OBS * sizeof(float)) &&
                                   !mdvec_reset_flags(h)[j]));
      CHECK_THAT("disabled: the other envs kept their rows", kept);
      CHECK_THAT("disabled: steps again", mdvec_step(h, actions) == MDVEC_OK && mdvec_info(h)[i] == 1.0);
    }
    mdvec_destroy(h);
  }
  mdvec_destroy(raise.h);
  remove(path);
}

/*---------------------------------- 7. Unphysical parameters, MuJoCo's log -------------------------*/

/* Step an unstable model (timestep 0.2: MuJoCo warns and resets mjData) for 50 steps in the child's
 * working directory; return the smallest per-env warning count. */
static int step_unstable(const void *arg, char *msg, size_t n) {
  (void)msg;
  (void)n;
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 2;
  cfg.threads = 2;
  cfg.model_path = arg;
  cfg.autoreset = MDVEC_AUTORESET_DISABLED;
  mdvec_t *h = NULL;
  char err[512];
  if (mdvec_create(&h, &cfg, err, sizeof err) != MDVEC_OK || mdvec_reset(h) != MDVEC_OK) return -1;
  double actions[2 * NU];
  for (int t = 0; t < 50; t++) {
    for (int k = 0; k < 2 * NU; k++) actions[k] = ((t * 7 + k * 3) % 11) / 5.0 - 1.0;
    if (mdvec_step(h, actions) != MDVEC_OK) return -2;
  }
  int fewest = (int)(mdvec_warnings(h)[0] < mdvec_warnings(h)[1] ? mdvec_warnings(h)[0] : mdvec_warnings(h)[1]);
  mdvec_destroy(h);
  return fewest;
}

static void test_warnings_counted_not_logged(void) {
  FILE *in = fopen(MDVEC_MODELS_DIR "/duck.xml", "rb");
  static char xml[1 << 16];
  size_t n = in ? fread(xml, 1, sizeof xml - 1, in) : 0;
  if (in) fclose(in);
  xml[n] = 0;
  char *ts = strstr(xml, "timestep=\"0.002\"");
  CHECK(ts != NULL);
  if (!ts) return;
  memcpy(ts, "timestep=\"0.200\"", strlen("timestep=\"0.200\""));
  char path[256];
  snprintf(path, sizeof path, "/tmp/mdvec_test_hardening_%d_unstable.xml", (int)getpid());
  FILE *out = fopen(path, "wb");
  if (!out) return;
  fputs(xml, out);
  fclose(out);
  int stray = 1;
  outcome o = in_child(0, step_unstable, path, &stray);
  CHECK_THAT("unstable model: every env's warnings counted", o.ran && o.code > 0);
  CHECK_THAT("unstable model: no MUJOCO_LOG.TXT in the working directory", !stray);
  remove(path);

  mdvec_config_t cfg; /* armature -1 (one episode of it wrote 18.9 MB of log): refused, naming it */
  mdvec_config_default(&cfg);
  cfg.dr = 1;
  mdvec_t *h = NULL;
  char err[512];
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  mdvec_dims(h, &dims);
  double q[NU] = {0}, mass[64], vel[2 * 3] = {0};
  int64_t steps[3] = {30, 60, 90};
  for (int b = 0; b < 64; b++) mass[b] = 1.0;
  mdvec_params_t p = {.struct_size = sizeof p,
                      .qpos = q,
                      .qvel = q,
                      .n_pushes = 3,
                      .push_steps = steps,
                      .push_vel = vel,
                      .noise_scale = 1,
                      .has_dr = 1,
                      .servo = {5, 0.5, -1, 0.1, 3},
                      .mass_scale = mass,
                      .floor_friction = 0.8};
  CHECK_THAT("armature -1: refused", dims.nbody <= 65 && mdvec_reset_with_params(h, 0, &p) == MDVEC_ERR_PARAMS &&
                                       strstr(mdvec_errmsg(h), "armature"));
  p.servo[2] = 0.01;
  mass[2] = 0.0;
  CHECK_THAT("mass scale 0: refused",
             mdvec_reset_with_params(h, 0, &p) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "mass_scale[2]"));
  mass[2] = 1.0;
  CHECK_THAT("physical params: accepted", mdvec_reset_with_params(h, 0, &p) == MDVEC_OK);
  mdvec_destroy(h);
}

/*---------------------------------- 8. Smaller checks ---------------------------------------------*/

/* Reset one env whose push draw needs a 32 MB scratch (choice's tail shuffle over 4e6 steps) with
 * 16 MB of address space left: the reset fails (out of memory), it does not reuse old push steps. */
static int reset_without_choice_scratch(const void *arg, char *msg, size_t n) {
  (void)arg;
  static const mdvec_option_t opts[] = {
    {"episode_len", "4000000"}, {"push_window", "0,4000000"}, {"n_pushes", "100000"}};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.options = opts;
  cfg.n_options = 3;
  mdvec_t *h = NULL;
  if (mdvec_create(&h, &cfg, msg, n) != MDVEC_OK) return 1000;
  struct rlimit rl = {(rlim_t)(vm_size() + 16.0 * 1024 * 1024), RLIM_INFINITY};
  if (setrlimit(RLIMIT_AS, &rl)) return 1001;
  int code = mdvec_reset(h);
  snprintf(msg, n, "%s", mdvec_errmsg(h));
  rl.rlim_cur = RLIM_INFINITY;
  setrlimit(RLIMIT_AS, &rl);
  if (code != MDVEC_OK && mdvec_reset(h) != MDVEC_OK) code = 1002; /* with memory again, it resets */
  mdvec_destroy(h);
  return code;
}

typedef struct {
  int num_envs, threads, overcommit;
  const char *path;
  const mdvec_option_t *opts;
  int n_opts;
} plain;

/* Create (and destroy) a handle; return the code, message in msg (the threads it runs in msg on success). */
static int create_plain(const void *arg, char *msg, size_t n) {
  const plain *p = arg;
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = p->num_envs;
  cfg.threads = p->threads;
  cfg.allow_overcommit = p->overcommit;
  cfg.model_path = p->path;
  cfg.options = p->opts;
  cfg.n_options = p->n_opts;
  mdvec_t *h = NULL;
  int code = mdvec_create(&h, &cfg, msg, n);
  if (code == MDVEC_OK) {
    mdvec_spec_t spec = {.struct_size = sizeof spec};
    mdvec_spec(h, &spec);
    snprintf(msg, n, "%d", spec.threads);
  }
  mdvec_destroy(h);
  return code;
}

/* Run first: later tests leave freed memory in the heap, where a 32 MB scratch could still be found. */
static void test_push_draw_without_memory(void) {
  if (SANITIZED) return;
  outcome o = in_child(0, reset_without_choice_scratch, NULL, NULL);
  CHECK_THAT("push draw without memory: the reset fails as NOMEM",
             o.ran && o.code == MDVEC_ERR_NOMEM && strstr(o.msg, "push steps"));
  if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  status %d code %d: %s\n", o.status, o.code, o.msg);
}

static void test_smaller_checks(void) {
  static const mdvec_option_t many[] = {
    {"episode_len", "1000000"}, {"push_window", "0,1000000"}, {"n_pushes", "100000"}};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.options = many;
  cfg.n_options = 3;
  mdvec_t *h = NULL;
  char err[1024];
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  if (h) {
    double t0 = now();
    CHECK(mdvec_reset(h) == MDVEC_OK && mdvec_reset(h) == MDVEC_OK);
    double reset = (now() - t0) / 2;
    static double actions[NU];
    t0 = now();
    for (int k = 0; k < 20; k++) mdvec_step(h, actions);
    double step = (now() - t0) / 20;
    /* Timing is reported, not asserted: the fuzz stage replays this configuration
     * (tests/fuzz/corpus/config/regress-duck-max-pushes) under a 30 s limit, which the quadratic sort
     * (7.6 s per reset at -O2, far more under ASan) exceeded. */
    printf("  1e5 pushes: reset %.4f s, step %.6f s\n", reset, step);
    mdvec_destroy(h);
  }

  plain p = {2, 8, 0, NULL, NULL, 0};
  outcome o = {1, 0, create_plain(&p, err, sizeof err), 0, ""};
  CHECK_THAT("2 envs, 8 threads asked: 2 threads run", o.code == MDVEC_OK && !strcmp(err, "2"));
  /* A million envs would be refused as out of memory once two are built; the thread limit must
   * come first, so the error names threads (a config error), not num_envs. */
  p = (plain){1000000, 1025, 1, NULL, NULL, 0};
  int code = create_plain(&p, err, sizeof err);
  CHECK_THAT("1025 threads with overcommit: refused before any env is built",
             code == MDVEC_ERR_CONFIG && strstr(err, "threads"));

  p = (plain){1, 1, 0, "/tmp", NULL, 0};
  code = create_plain(&p, err, sizeof err);
  CHECK_THAT("a directory as model: named so", code == MDVEC_ERR_MODEL && strstr(err, "directory"));
  char fifo[256];
  snprintf(fifo, sizeof fifo, "/tmp/mdvec_test_hardening_%d.fifo", (int)getpid());
  if (mkfifo(fifo, 0600) == 0) {
    p = (plain){1, 1, 0, fifo, NULL, 0};
    o = in_child(0, create_plain, &p, NULL); /* before the check, MuJoCo's open blocked forever */
    CHECK_THAT("a FIFO as model: refused, no hang", o.ran && o.code == MDVEC_ERR_MODEL && strstr(o.msg, "FIFO"));
    /* an MJCF that <include>s the FIFO: MuJoCo opens that one itself (before the guarded VFS: forever) */
    char xml[256];
    snprintf(xml, sizeof xml, "/tmp/mdvec_test_hardening_%d.xml", (int)getpid());
    FILE *f = fopen(xml, "w");
    if (f) {
      fprintf(f,
              "<mujoco><include file=\"%s\"/><worldbody><body><freejoint/><geom size=\".1\"/></body>"
              "</worldbody></mujoco>\n",
              strrchr(fifo, '/') + 1);
      fclose(f);
      p = (plain){1, 1, 0, xml, NULL, 0};
      o = in_child(0, create_plain, &p, NULL);
      CHECK_THAT("an MJCF including a FIFO: refused naming it, no hang",
                 o.ran && o.code == MDVEC_ERR_MODEL && strstr(o.msg, "is a FIFO") && strstr(o.msg, fifo));
      if (!o.ran || !strstr(o.msg, "FIFO")) fprintf(stderr, "  status %d: %s\n", o.status, o.msg);
      remove(xml);
    }
    remove(fifo);
  }
}

/* Issue 25 item 10: a model whose timestep is 0 (or NaN, or negative) is refused blaming the model's timestep,
 * not the task's spec ("declares a malformed spec: dt 0"): for a Gymnasium task (the kit) and for the duck. */
static int create_with_timestep(const char *task, const char *timestep, char *err, size_t n) {
  char path[] = "/tmp/mdvec_timestep_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) return -1000;
  if (!strcmp(task, "duck")) { /* the built-in duck with another timestep */
    FILE *in = fopen(MDVEC_MODELS_DIR "/duck.xml", "r");
    char line[4096];
    while (in && fgets(line, sizeof line, in)) {
      if (strstr(line, "<option timestep=")) snprintf(line, sizeof line, "<option timestep=\"%s\"/>\n", timestep);
      fputs(line, f);
    }
    if (in) fclose(in);
  } else {
    fprintf(f,
            "<mujoco><option timestep='%s'/><worldbody><body pos='0 0 1'><freejoint/><geom size='.2'/>"
            "<body pos='.3 0 0'><joint name='j' axis='0 0 1'/><geom size='.1'/></body></body></worldbody>"
            "<actuator><motor joint='j'/></actuator></mujoco>",
            timestep);
  }
  fclose(f);
  const char *model = path; /* the duck's MJCF includes no other file: a copy anywhere loads */
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  mdvec_option_t opt = {"xml_file", model};
  if (!strcmp(task, "duck")) {
    cfg.model_path = model;
  } else {
    cfg.task = task;
    cfg.options = &opt;
    cfg.n_options = 1;
  }
  mdvec_t *h = NULL;
  int code = mdvec_create(&h, &cfg, err, n);
  mdvec_destroy(h);
  remove(model);
  return code;
}

static void test_zero_timestep_blames_the_model(void) {
  const char *tasks[] = {"Ant-v5", "duck"};
  const char *steps[] = {"0", "nan", "-0.01"};
  for (int t = 0; t < 2; t++) {
    char err[1024] = "";
    int code = create_with_timestep(tasks[t], "0.01", err, sizeof err);
    CHECK_THAT(WHAT("%s, timestep 0.01: created (%s)", tasks[t], err), code == MDVEC_OK);
    for (int k = 0; k < 3; k++) {
      code = create_with_timestep(tasks[t], steps[k], err, sizeof err);
      CHECK_THAT(WHAT("%s, timestep %s: %s", tasks[t], steps[k], err),
                 code == MDVEC_ERR_MODEL && strstr(err, "has timestep") && strstr(err, "<option timestep") &&
                   !strstr(err, "malformed spec"));
    }
  }
}

int main(void) {
  test_push_draw_without_memory();
  test_sizes_are_bounded();
  test_out_of_memory_is_an_error();
  test_fork_child_refused();
  test_concurrent_calls_refused();
  test_destroy_waits_for_a_running_call();
  test_create_from_threads();
  test_fork_while_another_thread_creates();
  test_physics_error_ends_one_episode();
  test_warnings_counted_not_logged();
  test_smaller_checks();
  test_zero_timestep_blames_the_model();
  return check_summary("test_hardening");
}
