/* test_async.c: asynchronous send/recv (libmdvec/src/async.c, pool.c's background queue), through the public
 * API: every env's results under any send/recv pattern equal, bit for bit, those of synchronous steps with the
 * same actions; the envs each recv returns are the same at 1, 2 and 3 threads; misuse is refused with clear
 * codes and messages (recv with nothing in flight, an env sent twice, synchronous calls while envs are in
 * flight, a forked child's calls), destroy with envs in flight returns and frees everything; a MuJoCo error in
 * an env in flight is reported by the recv that returns it. Meant to run under TSan (ci/sanitize.sh tsan) and
 * ASan/LSan as well. It also prints (never checks) how much of the envs' work overlaps the caller's own.
 *
 * Tasks: the duck (built in) always; Hopper-v5 (float64 observations, float32 actions) when meson passes
 * Gymnasium's assets in MDVEC_GYM_ASSETS. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "mdvec.h"

#define N       6  /* envs */
#define STEPS   30 /* steps per env per run */
#define MAX_OBS 512
#define MAX_ACT 32
#define MAX_INF 64

typedef struct {
  const char *task; /* NULL: the duck */
  mdvec_option_t opts[4];
  int n_opts;
  int f32_actions; /* send float32 actions */
} setup;

typedef struct { /* one env's results of one call */
  double obs[MAX_OBS], reward, info[MAX_INF], reset_info[MAX_INF];
  uint8_t terminated, truncated, done, reset;
} row;

static row g_sync[STEPS + 1][N], g_async[STEPS + 1][N];
static int32_t g_order[3][(STEPS + 1) * N]; /* the ids received, in order, per thread count */

static mdvec_t *make(const setup *s, int threads, int autoreset, const char *path) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = s->task;
  cfg.num_envs = N;
  cfg.threads = threads;
  cfg.autoreset = autoreset;
  cfg.seed = 11;
  cfg.options = s->opts;
  cfg.n_options = s->n_opts;
  cfg.model_path = path;
  mdvec_t *h = NULL;
  char err[1024];
  if (mdvec_create(&h, &cfg, err, sizeof err) != MDVEC_OK) fprintf(stderr, "create: %s\n", err);
  return h;
}

static mdvec_spec_t spec_of(const mdvec_t *h) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  return sp;
}

/* Env i's action at its step t (t >= 1), within the bounds and beyond them now and then. */
static void action_of(const mdvec_t *h, int i, int t, double *a) {
  mdvec_spec_t sp = spec_of(h);
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  for (int k = 0; k < sp.act_dim; k++)
    a[k] = 0.5 * (lo[k] + hi[k]) + 0.6 * (hi[k] - lo[k]) * sin(0.9 * t + 1.3 * i + 0.41 * k);
}

static void read_row(const mdvec_t *h, int i, row *r) {
  mdvec_spec_t sp = spec_of(h);
  memset(r, 0, sizeof *r);
  size_t size = sp.obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float);
  memcpy(r->obs, (const char *)mdvec_obs_data(h) + (size_t)i * (size_t)sp.obs_dim * size, (size_t)sp.obs_dim * size);
  r->reward = mdvec_reward(h)[i];
  for (int k = 0; k < sp.n_info && k < MAX_INF; k++) {
    r->info[k] = mdvec_info(h)[(size_t)k * N + (size_t)i];
    r->reset_info[k] = mdvec_reset_info(h)[(size_t)k * N + (size_t)i];
  }
  r->terminated = mdvec_terminated(h)[i];
  r->truncated = mdvec_truncated(h)[i];
  r->done = mdvec_done(h)[i];
  r->reset = mdvec_reset_flags(h)[i];
}

/* Fill env ids[j]'s action rows (j < n) for their steps t[ids[j]] into buf, float32 or float64. */
static void actions_rows(const mdvec_t *h, const setup *s, const int32_t *ids, int n, const int *t, void *buf) {
  int act = spec_of(h).act_dim;
  double a[MAX_ACT];
  for (int j = 0; j < n; j++) {
    action_of(h, ids[j], t[ids[j]], a);
    for (int k = 0; k < act; k++) {
      if (s->f32_actions)
        ((float *)buf)[j * act + k] = (float)a[k];
      else
        ((double *)buf)[j * act + k] = a[k];
    }
  }
}

/* Synchronous reference: reset, then STEPS steps of every env. */
static int run_sync(const setup *s) {
  mdvec_t *h = make(s, 1, MDVEC_AUTORESET_NEXT_STEP, NULL);
  if (!h || mdvec_reset(h) != MDVEC_OK) return -1;
  for (int i = 0; i < N; i++) read_row(h, i, &g_sync[0][i]);
  static int32_t all[N];
  int t[N];
  for (int i = 0; i < N; i++) all[i] = i;
  static double buf[N * MAX_ACT];
  int code = MDVEC_OK;
  for (int step = 1; step <= STEPS && code == MDVEC_OK; step++) {
    for (int i = 0; i < N; i++) t[i] = step;
    actions_rows(h, s, all, N, t, buf);
    code = mdvec_step_typed(h, buf, s->f32_actions ? MDVEC_DTYPE_F32 : MDVEC_DTYPE_F64);
    for (int i = 0; i < N; i++) read_row(h, i, &g_sync[step][i]);
  }
  mdvec_destroy(h);
  return code == MDVEC_OK ? 0 : -1;
}

/* Asynchronous run: send_reset(all); then recv `batch` envs at a time (the last recv may take fewer), send the
 * received ones their next actions (one send per recv, or one per env when `singly`), until every env took
 * STEPS steps. Rows into g_async, the ids in receive order into order. Return 0 or -1. */
static int run_async(const setup *s, int threads, int batch, int singly, int32_t *order) {
  mdvec_t *h = make(s, threads, MDVEC_AUTORESET_NEXT_STEP, NULL);
  if (!h) return -1;
  int t[N], code = mdvec_send_reset(h, NULL, N, NULL, NULL), got = 0;
  for (int i = 0; i < N; i++) t[i] = 0;
  static double buf[N * MAX_ACT];
  int32_t ids[N], next[N];
  while (code == MDVEC_OK) {
    int flying = mdvec_in_flight(h);
    if (flying <= 0) break;
    int n = flying < batch ? flying : batch;
    if ((code = mdvec_recv(h, n, ids)) != MDVEC_OK) break;
    int m = 0;
    for (int j = 0; j < n; j++) {
      int i = ids[j];
      order[got++] = i;
      read_row(h, i, &g_async[t[i]][i]);
      if (t[i] < STEPS) next[m++] = i;
    }
    for (int j = 0; j < m; j++) t[next[j]]++;
    for (int j = 0; j < m && code == MDVEC_OK; j += singly ? 1 : m) {
      int k = singly ? 1 : m;
      actions_rows(h, s, next + j, k, t, buf);
      code = mdvec_send(h, buf, s->f32_actions ? MDVEC_DTYPE_F32 : MDVEC_DTYPE_F64, next + j, k);
    }
  }
  if (code != MDVEC_OK) fprintf(stderr, "run_async: %s\n", mdvec_errmsg(h));
  mdvec_destroy(h);
  return code == MDVEC_OK && got == (STEPS + 1) * N ? 0 : -1;
}

/* Async equals sync, env by env, and the receive order is the same at 1, 2 and 3 threads. */
static void check_equal_to_sync(const setup *s, const char *name) {
  if (run_sync(s)) {
    CHECK_THAT(WHAT("%s: synchronous run", name), 0);
    return;
  }
  const struct {
    int batch, singly;
  } patterns[] = {{2, 0}, {3, 1}, {4, 0}, {N, 0}, {1, 0}};
  for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
    for (int threads = 1; threads <= 3; threads++) {
      memset(g_async, 0xA5, sizeof g_async);
      int ok = !run_async(s, threads, patterns[p].batch, patterns[p].singly, g_order[threads - 1]);
      CHECK_THAT(WHAT("%s: recv %d%s, %d thread(s): every env's results equal the synchronous run's", name,
                      patterns[p].batch, patterns[p].singly ? ", sent singly" : "", threads),
                 ok && !memcmp(g_sync, g_async, sizeof g_sync));
    }
    CHECK_THAT(
      WHAT("%s: recv %d: the same envs come back together, in the same order, at 1, 2, 3 threads", name,
           patterns[p].batch),
      !memcmp(g_order[0], g_order[1], sizeof g_order[0]) && !memcmp(g_order[0], g_order[2], sizeof g_order[0]));
  }
  int ended = 0;
  for (int t = 1; t <= STEPS; t++)
    for (int i = 0; i < N; i++) ended += g_sync[t][i].done;
  CHECK_THAT(WHAT("%s: episodes ended (autoresets covered)", name), ended > 0);
}

/* Seeded resets sent equal seeded synchronous resets. */
static void check_seeded_reset(const setup *s, const char *name) {
  mdvec_t *a = make(s, 2, MDVEC_AUTORESET_NEXT_STEP, NULL), *b = make(s, 2, MDVEC_AUTORESET_NEXT_STEP, NULL);
  uint64_t seeds[N];
  uint8_t has[N], mask[N];
  int32_t ids[N] = {4, 1, 3}, got[N];
  for (int i = 0; i < N; i++) seeds[i] = 1000 + 7 * (uint64_t)i, has[i] = i != 1, mask[i] = 0;
  int ok = a && b && mdvec_reset(a) == MDVEC_OK && mdvec_reset(b) == MDVEC_OK;
  /* a: send_reset of envs 4, 1, 3 with seeds[j] for ids[j] (env 1 unseeded); b: the same synchronously */
  uint64_t by_env[N] = {0};
  uint8_t has_env[N] = {0};
  for (int j = 0; j < 3; j++) by_env[ids[j]] = seeds[j], has_env[ids[j]] = has[j], mask[ids[j]] = 1;
  ok = ok && mdvec_send_reset(a, ids, 3, seeds, has) == MDVEC_OK && mdvec_recv(a, 3, got) == MDVEC_OK;
  ok = ok && got[0] == 4 && got[1] == 1 && got[2] == 3;
  ok = ok && mdvec_reset_envs(b, mask, by_env, has_env) == MDVEC_OK;
  row ra, rb;
  for (int i = 0; ok && i < N; i++) {
    read_row(a, i, &ra);
    read_row(b, i, &rb);
    ok = !memcmp(&ra, &rb, sizeof ra) || !mask[i]; /* the others: a's flags are of its first reset */
    if (mask[i]) ok = ok && ra.reset;
  }
  CHECK_THAT(WHAT("%s: send_reset with seeds equals reset_envs with the same seeds", name), ok);
  read_row(b, 4, &ra);
  read_row(b, 3, &rb);
  CHECK_THAT(WHAT("%s: resets draw from the generators (envs 3 and 4 start apart)", name),
             memcmp(ra.obs, rb.obs, sizeof ra.obs) != 0);
  uint64_t big = ~0ull;
  mdvec_spec_t sp = spec_of(a);
  if (sp.seed_max != ~0ull) {
    big = sp.seed_max + 1;
    CHECK_THAT(WHAT("%s: a seed past seed_max refused, nothing sent", name),
               mdvec_send_reset(a, ids, 1, &big, NULL) == MDVEC_ERR_ARG && mdvec_in_flight(a) == 0);
  }
  mdvec_destroy(a);
  mdvec_destroy(b);
}

/*---------------------------------- Misuse ---------------------------------------------------------*/

static void check_misuse(const setup *s, const char *name) {
  mdvec_t *h = make(s, 2, MDVEC_AUTORESET_NEXT_STEP, NULL);
  if (!h) {
    CHECK_THAT(WHAT("%s: create", name), 0);
    return;
  }
  mdvec_spec_t sp = spec_of(h);
  static double a[N * MAX_ACT];
  int32_t ids[N] = {0, 1, 2, 3, 4, 5}, out[N];
  CHECK_THAT(WHAT("%s: recv with nothing in flight: STATE, named", name),
             mdvec_recv(h, 1, out) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "nothing in flight"));
  CHECK_THAT(WHAT("%s: send before any reset: STATE, never reset", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, ids, 2) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "never reset") &&
               mdvec_in_flight(h) == 0);
  CHECK(mdvec_reset(h) == MDVEC_OK);
  CHECK_THAT(WHAT("%s: NULL actions: ARG", name), mdvec_send(h, NULL, MDVEC_DTYPE_F64, ids, 2) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: another dtype: ARG", name), mdvec_send(h, a, MDVEC_DTYPE_I64, ids, 2) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: misaligned actions: ARG", name),
             mdvec_send(h, (const char *)a + 1, MDVEC_DTYPE_F64, ids, 2) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: n = 0: ARG", name), mdvec_send(h, a, MDVEC_DTYPE_F64, ids, 0) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: n > N: ARG", name), mdvec_send(h, a, MDVEC_DTYPE_F64, ids, N + 1) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: NULL ids with n != N: ARG", name), mdvec_send(h, a, MDVEC_DTYPE_F64, NULL, 2) == MDVEC_ERR_ARG);
  int32_t bad[2] = {1, N};
  CHECK_THAT(WHAT("%s: id out of range: ARG, named", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, bad, 2) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "out of range"));
  int32_t twice[3] = {2, 0, 2};
  CHECK_THAT(WHAT("%s: id named twice: ARG, nothing sent", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, twice, 3) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "twice") &&
               mdvec_in_flight(h) == 0);
  a[sp.act_dim + 1] = NAN;
  CHECK_THAT(WHAT("%s: NaN action: ACTION, nothing sent", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, ids, 2) == MDVEC_ERR_ACTION && mdvec_in_flight(h) == 0 &&
               strstr(mdvec_errmsg(h), "env 1"));
  a[sp.act_dim + 1] = 0;
  CHECK_THAT(WHAT("%s: send 0, 1: OK, 2 in flight", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, ids, 2) == MDVEC_OK && mdvec_in_flight(h) == 2);
  int32_t again[2] = {3, 1};
  CHECK_THAT(WHAT("%s: send to an env in flight: STATE, named, nothing sent", name),
             mdvec_send(h, a, MDVEC_DTYPE_F64, again, 2) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "env 1") &&
               strstr(mdvec_errmsg(h), "in flight") && mdvec_in_flight(h) == 2);
  CHECK_THAT(WHAT("%s: send_reset to an env in flight: STATE", name),
             mdvec_send_reset(h, again, 2, NULL, NULL) == MDVEC_ERR_STATE && mdvec_in_flight(h) == 2);
  CHECK_THAT(WHAT("%s: step while envs are in flight: STATE, named", name),
             mdvec_step(h, a) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "in flight"));
  CHECK_THAT(WHAT("%s: reset while envs are in flight: STATE", name), mdvec_reset(h) == MDVEC_ERR_STATE);
  CHECK_THAT(WHAT("%s: seed while envs are in flight: STATE", name), mdvec_seed(h, 3) == MDVEC_ERR_STATE);
  double state[4096];
  CHECK_THAT(WHAT("%s: get_state while envs are in flight: STATE", name),
             mdvec_get_state(h, 0, 1, state, 4096) == MDVEC_ERR_STATE);
  CHECK_THAT(WHAT("%s: reset_envs while envs are in flight: STATE, named", name),
             mdvec_reset_envs(h, NULL, NULL, NULL) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "in flight"));
  CHECK_THAT(WHAT("%s: recv more than in flight: STATE, nothing received", name),
             mdvec_recv(h, 3, out) == MDVEC_ERR_STATE && mdvec_in_flight(h) == 2);
  CHECK_THAT(WHAT("%s: recv 0: ARG", name), mdvec_recv(h, 0, out) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: recv 1, 1: envs 0 then 1", name), mdvec_recv(h, 1, out) == MDVEC_OK && out[0] == 0 &&
                                                           mdvec_recv(h, 1, out) == MDVEC_OK && out[0] == 1 &&
                                                           mdvec_in_flight(h) == 0);
  CHECK_THAT(WHAT("%s: step again once nothing is in flight", name), mdvec_step(h, a) == MDVEC_OK);
  CHECK_THAT(WHAT("%s: NULL handle", name), mdvec_send(NULL, a, MDVEC_DTYPE_F64, ids, 1) == MDVEC_ERR_ARG &&
                                              mdvec_recv(NULL, 1, out) == MDVEC_ERR_ARG &&
                                              mdvec_send_reset(NULL, ids, 1, NULL, NULL) == MDVEC_ERR_ARG &&
                                              mdvec_in_flight(NULL) == MDVEC_ERR_ARG);
  /* destroy with work in flight: returns, frees (ASan/LSan), no hang */
  CHECK(mdvec_send(h, a, MDVEC_DTYPE_F64, NULL, N) == MDVEC_OK);
  mdvec_destroy(h);
  h = make(s, 3, MDVEC_AUTORESET_SAME_STEP, NULL);
  CHECK(h && mdvec_send_reset(h, NULL, N, NULL, NULL) == MDVEC_OK && mdvec_recv(h, 2, out) == MDVEC_OK &&
        mdvec_send(h, a, MDVEC_DTYPE_F64, out, 2) == MDVEC_OK);
  mdvec_destroy(h);
  CHECK_THAT(WHAT("%s: destroy with envs in flight returned", name), 1);
  /* a handle of one thread: the background thread does the work */
  h = make(s, 1, MDVEC_AUTORESET_NEXT_STEP, NULL);
  CHECK_THAT(WHAT("%s: one thread: send_reset, recv all", name),
             h && mdvec_send_reset(h, NULL, N, NULL, NULL) == MDVEC_OK && mdvec_recv(h, N, out) == MDVEC_OK &&
               out[N - 1] == N - 1);
  mdvec_destroy(h);
}

/* A forked child's calls on a handle with envs in flight are refused; its destroy returns; the parent goes on. */
static void check_fork(const setup *s, const char *name) {
  mdvec_t *h = make(s, 2, MDVEC_AUTORESET_NEXT_STEP, NULL);
  if (!h || mdvec_reset(h) != MDVEC_OK) {
    CHECK_THAT(WHAT("%s: create", name), 0);
    mdvec_destroy(h);
    return;
  }
  static double a[N * MAX_ACT];
  int32_t out[N];
  CHECK(mdvec_send(h, a, MDVEC_DTYPE_F64, NULL, N) == MDVEC_OK);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(60);
    int status = 0;
    if (mdvec_recv(h, 1, out) != MDVEC_ERR_STATE || !strstr(mdvec_errmsg(h), "another process")) status |= 1;
    if (mdvec_send(h, a, MDVEC_DTYPE_F64, NULL, N) != MDVEC_ERR_STATE) status |= 2;
    if (mdvec_step(h, a) != MDVEC_ERR_STATE) status |= 4;
    mdvec_destroy(h);
    _exit(status);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  CHECK_THAT(
    WHAT("%s: forked child with envs in flight: recv, send, step refused; destroy returns (status %d)", name, status),
    WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_THAT(WHAT("%s: parent: recv after the fork", name), mdvec_recv(h, N, out) == MDVEC_OK && out[5] == 5);
  mdvec_destroy(h);
}

/* A MuJoCo error in an env in flight: its recv returns MDVEC_ERR_PHYSICS naming it (the same env and step as a
 * synchronous run), the env is refused until a reset, and a reset sent brings it back. */
static void check_physics_error(void) {
  char path[256];
  if (!check_duck_with_memory("40K", path, sizeof path)) {
    CHECK_THAT("physics error: model written", 0);
    return;
  }
  static const mdvec_option_t opts[] = {{"n_pushes", "1"}, {"push_window", "10,11"}, {"push_speed", "0,2.5"}};
  setup s = {NULL, {opts[0], opts[1], opts[2]}, 3, 0};
  mdvec_t *sync = make(&s, 2, MDVEC_AUTORESET_SAME_STEP, path), *h = make(&s, 2, MDVEC_AUTORESET_SAME_STEP, path);
  static double a[N * MAX_ACT];
  int fail_env = -1, fail_step = -1, code = MDVEC_OK;
  if (sync && mdvec_reset(sync) == MDVEC_OK)
    for (int t = 1; t <= 100 && fail_env < 0; t++) {
      code = mdvec_step(sync, a);
      for (int i = 0; i < N && fail_env < 0; i++)
        if (mdvec_error_flags(sync)[i]) fail_env = i, fail_step = t;
    }
  CHECK_THAT("physics error: an env fails synchronously within 100 steps", fail_env >= 0 && code == MDVEC_ERR_PHYSICS);
  int32_t out[N];
  int acode = h && mdvec_send_reset(h, NULL, N, NULL, NULL) == MDVEC_OK && mdvec_recv(h, N, out) == MDVEC_OK ? MDVEC_OK
                                                                                                             : -100,
      astep = 0;
  while (acode == MDVEC_OK && astep < 100) {
    astep++;
    /* two sends of three, received in one recv of N */
    if (mdvec_send(h, a, MDVEC_DTYPE_F64, out, 3) || mdvec_send(h, a, MDVEC_DTYPE_F64, out + 3, 3)) break;
    acode = mdvec_recv(h, N, out);
  }
  char want[32];
  snprintf(want, sizeof want, "env %d", fail_env);
  CHECK_THAT(WHAT("physics error: recv returns PHYSICS at the same step (%d, %d), naming the env (%s)", astep,
                  fail_step, h ? mdvec_errmsg(h) : ""),
             acode == MDVEC_ERR_PHYSICS && astep == fail_step && strstr(mdvec_errmsg(h), want));
  if (fail_env >= 0 && h) {
    int32_t one = fail_env;
    CHECK_THAT("physics error: the stopped env is refused",
               mdvec_send(h, a, MDVEC_DTYPE_F64, &one, 1) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "reset it"));
    CHECK_THAT("physics error: a reset sent brings it back",
               mdvec_send_reset(h, &one, 1, NULL, NULL) == MDVEC_OK && mdvec_recv(h, 1, out) == MDVEC_OK &&
                 mdvec_send(h, a, MDVEC_DTYPE_F64, &one, 1) == MDVEC_OK && mdvec_recv(h, 1, out) == MDVEC_OK);
  }
  mdvec_destroy(sync);
  mdvec_destroy(h);
  remove(path);
}

/*---------------------------------- Overlap (printed, not checked) ---------------------------------*/

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The caller's own work: busy for seconds. */
static void work(double seconds) {
  double end = now() + seconds;
  while (now() < end) {}
}

/* Print env-steps/s of a loop "policy (cost per half) + step" synchronously and with two halves in flight in
 * turn, and the share of the async loop the caller spent waiting in recv. */
static void print_overlap(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return; /* timings mean nothing there */
#endif
  setup s = {NULL, {{0}}, 0, 0};
  mdvec_t *h = make(&s, 2, MDVEC_AUTORESET_NEXT_STEP, NULL);
  if (!h || mdvec_reset(h) != MDVEC_OK) return;
  static double a[N * MAX_ACT];
  const int rounds = 300;
  double t0 = now();
  for (int r = 0; r < rounds; r++) mdvec_step(h, a);
  double step_s = (now() - t0) / rounds; /* one synchronous step of N envs */
  double policy = step_s / 2;            /* per half: as long as stepping that half on two threads */
  t0 = now();
  for (int r = 0; r < rounds; r++) {
    work(2 * policy);
    mdvec_step(h, a);
  }
  double sync_s = now() - t0;
  int32_t ids[N];
  double waited = 0;
  mdvec_send_reset(h, NULL, N, NULL, NULL);
  t0 = now();
  for (int r = 0; r < 2 * rounds; r++) {
    double w0 = now();
    mdvec_recv(h, N / 2, ids);
    waited += now() - w0;
    work(policy);
    mdvec_send(h, a, MDVEC_DTYPE_F64, ids, N / 2);
  }
  double async_s = now() - t0;
  mdvec_recv(h, N / 2, ids);
  mdvec_recv(h, N / 2, ids);
  printf(
    "test_async: overlap (duck, N %d, 2 threads, policy %.0f us per half): sync %.0f env-steps/s, async %.0f "
    "env-steps/s (x%.2f); the caller waited in recv %.0f%% of the async loop\n",
    N, 1e6 * policy, rounds * N / sync_s, rounds * N / async_s, sync_s / async_s, 100 * waited / async_s);
  mdvec_destroy(h);
}

int main(void) {
  setup duck = {NULL, {{"episode_len", "12"}, {"push_window", "2,10"}, {"init_noise", "0.05"}}, 3, 0};
  check_equal_to_sync(&duck, "duck");
  check_seeded_reset(&duck, "duck");
  check_misuse(&duck, "duck");
  check_fork(&duck, "duck");
  check_physics_error();
  const char *assets = getenv("MDVEC_GYM_ASSETS");
  static char xml[4096];
  if (assets && assets[0]) {
    snprintf(xml, sizeof xml, "%s/hopper.xml", assets);
    setup hopper = {"Hopper-v5", {{"xml_file", xml}, {"max_episode_steps", "9"}}, 2, 1};
    check_equal_to_sync(&hopper, "Hopper-v5");
    check_seeded_reset(&hopper, "Hopper-v5");
  } else {
    printf("test_async: Hopper-v5 skipped: MDVEC_GYM_ASSETS is unset (gymnasium not installed)\n");
  }
  print_overlap();
  return check_summary("test_async");
}
