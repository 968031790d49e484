/* Hardening (issue 13): sizes that cannot overflow or balloon, out of memory as MDVEC_ERR_NOMEM instead of
 * the end of the process, forked and concurrent calls refused, physics errors that end one episode, the
 * MuJoCo log kept out of the working directory, and the smaller checks. Scenarios that may exhaust memory
 * (or, before the fixes, end the process) run in a forked child with an address-space limit, in a
 * temporary working directory. */
#include <errno.h>
#include <pthread.h>
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

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/*---------------------------------- Running a scenario in a child ---------------------------------*/

typedef struct {
  int ran;          /* the child reported back (it did not die or exit early) */
  int status;       /* its wait status */
  int code;         /* what the scenario returned */
  double seconds;   /* how long the scenario took */
  char msg[1024];   /* the scenario's message */
} outcome;

typedef int (*scenario)(const void *arg, char *msg, size_t n);

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
    alarm(120);  /* a scenario that hangs (before a fix) is killed, not waited for */
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

static outcome create_in_child(double limit, edit_fn edit) { return in_child(limit, create_edited, &edit, NULL); }

/*---------------------------------- 1. Sizes ------------------------------------------------------*/

static void huge_latency(mdvec_config_t *c) { c->episode_len = 1000000000; c->latency = 100000000; }
static void v1_overflow_latency(mdvec_config_t *c) { c->num_envs = 4; c->threads = 2; c->latency = 306783379; }
static void huge_pushes(mdvec_config_t *c) {
  c->episode_len = 1000000000;
  c->push_window[0] = 0;
  c->push_window[1] = 1000000000;
  c->n_pushes = 1000000;
}
static void huge_num_envs(mdvec_config_t *c) { c->num_envs = 1000000; c->threads = 1; }

static void test_sizes_are_bounded(void) {
  outcome o = create_in_child(2 * GB, huge_latency);
  CHECK_THAT("latency 1e8: refused as a config error", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "latency"));
  o = create_in_child(2 * GB, v1_overflow_latency);
  CHECK_THAT("latency 306783379: refused", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "latency"));
  o = create_in_child(2 * GB, huge_pushes);
  CHECK_THAT("n_pushes 1e6: refused", o.ran && o.code == MDVEC_ERR_CONFIG && strstr(o.msg, "n_pushes"));
  o = create_in_child(4 * GB, huge_num_envs);
  CHECK_THAT("1e6 envs: NOMEM naming num_envs", o.ran && o.code == MDVEC_ERR_NOMEM && strstr(o.msg, "num_envs"));
  CHECK_THAT("1e6 envs: refused before building them", o.ran && o.seconds < 10);
  if (!o.ran || o.code != MDVEC_ERR_NOMEM) fprintf(stderr, "  1e6 envs: status %d code %d: %s\n", o.status, o.code, o.msg);
}

int main(void) {
  test_sizes_are_bounded();
  return check_summary("test_hardening");
}
