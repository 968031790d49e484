/* test_conformance.c: every task of the registry checked alike, with no per-task code, through the public
 * API only: a task registered tomorrow is covered the day it is registered.
 *
 * Per task: the spec is sane (sizes, dtypes, info fields named once, action bounds ordered); the same
 * seed gives the same results; 1, 2 and 3 threads and an odd number of envs give each env the same
 * results; the three autoreset modes keep their contracts; masked and seeded resets touch exactly the
 * envs they name, and a seeded reset equals a fresh handle of that seed; the physics state reads out;
 * every numeric option beyond its bounds is refused naming the option; NaN and inf actions are refused
 * and change nothing; seeds past the task's seed_max (spec.seed_max: env i gets seed + i) are refused by
 * mdvec_create, mdvec_seed and mdvec_reset_envs with MDVEC_ERR_ARG, changing nothing, and the largest
 * allowed ones are taken. The CI runs this under ASan/UBSan and TSan (ci/sanitize.sh).
 *
 * A task whose xml_file option defaults to a bare name (Gymnasium's assets) needs those assets: meson
 * passes their folder in MDVEC_GYM_ASSETS (gymnasium installed). A task with a suite_dir option and no
 * default for it (the Control Suite tasks) needs dm_control's suite folder: meson passes it in
 * MDVEC_DM_SUITE (dm_control installed). Without them such tasks are skipped, saying so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "check.h"
#include "mdvec.h"
#include "options.h" /* mdv_options_resolve: a hole in an option table */
#include "task.h"    /* mdv_spec_check, mdv_tasks */

#define N       5  /* an odd number of envs: thread blocks of unequal size */
#define STEPS   40 /* steps per run: enough for short episodes to end (max_episode_steps below) */
#define MAX_ACT 64 /* actions per env the test allocates for */

typedef struct {
  const char *task;
  char xml[4096]; /* the xml_file option's value ("" when the task has none) */
  mdvec_option_t opts[8];
  int n_opts;
} task_setup;

/* Options that make episodes short, by name, for the tasks that declare them (so that autoresets happen
 * within STEPS). */
static const mdvec_option_t kShort[] = {{"max_episode_steps", "12"}, {"episode_len", "30"}, {"push_window", "2,28"}};

/* Set option name to value in s (replacing a value already there). */
static void set_option(task_setup *s, const char *name, const char *value) {
  for (int j = 0; j < s->n_opts; j++)
    if (!strcmp(s->opts[j].name, name)) {
      s->opts[j].value = value;
      return;
    }
  s->opts[s->n_opts++] = (mdvec_option_t){name, value};
}

/* Fill s for task k; return 0, -1 when the task needs Gymnasium's assets and they are not given, or -2 when
 * it needs dm_control's suite folder and that is not given. */
static int setup(int k, task_setup *s) {
  memset(s, 0, sizeof *s);
  s->task = mdvec_task_name(k);
  int n = mdvec_task_option_count(s->task);
  for (int j = 0; j < n; j++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    if (mdvec_task_option(s->task, j, &o) != MDVEC_OK) continue;
    if (!strcmp(o.name, "xml_file") && o.def && !strchr(o.def, '/')) {
      const char *assets = getenv("MDVEC_GYM_ASSETS");
      if (!assets || !assets[0]) return -1;
      snprintf(s->xml, sizeof s->xml, "%s/%s", assets, o.def);
      set_option(s, "xml_file", s->xml);
    }
    if (!strcmp(o.name, "suite_dir") && o.type == MDVEC_OPT_STRING && (!o.def || !o.def[0])) {
      const char *suite = getenv("MDVEC_DM_SUITE"); /* the environment's own storage: outlives every copy of s */
      if (!suite || !suite[0]) return -2;
      set_option(s, "suite_dir", suite);
    }
    for (size_t q = 0; q < sizeof kShort / sizeof kShort[0]; q++)
      if (!strcmp(o.name, kShort[q].name)) set_option(s, kShort[q].name, kShort[q].value);
  }
  return 0;
}

static int create(const task_setup *s, int n, int threads, int autoreset, uint64_t seed, mdvec_t **h, char *err,
                  size_t err_size) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = s->task;
  cfg.num_envs = n;
  cfg.threads = threads;
  cfg.autoreset = autoreset;
  cfg.seed = seed;
  cfg.options = s->opts;
  cfg.n_options = s->n_opts;
  *h = NULL;
  return mdvec_create(h, &cfg, err, err_size);
}

/* Deterministic actions for (step, env, k): within the bounds, beyond them now and then. */
static void actions(const mdvec_t *h, int n, int step, double *a) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < sp.act_dim; k++) {
      double u = sin(0.7 * step + 1.9 * i + 0.37 * k), mid = 0.5 * (lo[k] + hi[k]), half = 0.5 * (hi[k] - lo[k]);
      a[i * sp.act_dim + k] = mid + 1.2 * half * u;
    }
}

/* One env's results of one call, for comparing runs. */
typedef struct {
  double obs[512], reward, info[256];
  uint8_t terminated, truncated, reset;
} row;

static void read_row(const mdvec_t *h, int i, row *r) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  memset(r, 0, sizeof *r);
  size_t obs_size = sp.obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float);
  memcpy(r->obs, (const char *)mdvec_obs_data(h) + (size_t)i * sp.obs_dim * obs_size, sp.obs_dim * obs_size);
  r->reward = mdvec_reward(h)[i];
  for (int k = 0; k < sp.n_info && k < 256; k++) r->info[k] = mdvec_info(h)[(size_t)k * sp.num_envs + i];
  r->terminated = mdvec_terminated(h)[i];
  r->truncated = mdvec_truncated(h)[i];
  r->reset = mdvec_reset_flags(h)[i];
}

static void check_spec(const task_setup *s, const mdvec_t *h) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  CHECK_THAT(WHAT("%s: spec", s->task), mdvec_spec(h, &sp) == MDVEC_OK && !strcmp(sp.task, s->task));
  CHECK_THAT(WHAT("%s: sizes", s->task), sp.obs_dim > 0 && sp.obs_dim <= 512 && sp.act_dim > 0 &&
                                           sp.act_dim <= MAX_ACT && sp.n_info >= 0 && sp.n_info <= 256 && sp.nq > 0 &&
                                           sp.nv > 0 && sp.max_episode_steps >= 0 && sp.num_envs == N);
  CHECK_THAT(WHAT("%s: obs dtype", s->task), sp.obs_dtype == MDVEC_DTYPE_F32 || sp.obs_dtype == MDVEC_DTYPE_F64);
  CHECK_THAT(WHAT("%s: dt %g positive and finite", s->task, sp.dt), sp.dt > 0 && isfinite(sp.dt));
  CHECK_THAT(WHAT("%s: reward kind %d", s->task, sp.reward_kind), sp.reward_kind == MDVEC_KIND_FLOAT ||
                                                                    sp.reward_kind == MDVEC_KIND_NUMPY ||
                                                                    sp.reward_kind == MDVEC_KIND_INT);
  CHECK_THAT(WHAT("%s: an id", s->task), mdvec_task_meta(s->task, "id") != NULL);
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  int ordered = lo && hi;
  for (int k = 0; ordered && k < sp.act_dim; k++) ordered = isfinite(lo[k]) && isfinite(hi[k]) && lo[k] <= hi[k];
  CHECK_THAT(WHAT("%s: action bounds finite and ordered", s->task), ordered);
  for (int k = 0; k < sp.n_info; k++) {
    mdvec_field_t f = {.struct_size = sizeof f};
    int ok = mdvec_info_field(h, k, &f) == MDVEC_OK && f.name && f.name[0] &&
             (f.dtype == MDVEC_DTYPE_F64 || f.dtype == MDVEC_DTYPE_I64 || f.dtype == MDVEC_DTYPE_BOOL ||
              f.dtype == MDVEC_DTYPE_ACTION) &&
             f.when > 0 && !(f.when & ~(MDVEC_INFO_STEP | MDVEC_INFO_RESET)) &&
             (f.dtype == MDVEC_DTYPE_BOOL  ? f.kind == MDVEC_KIND_BOOL
              : f.dtype == MDVEC_DTYPE_I64 ? f.kind == MDVEC_KIND_INT
                                           : f.kind == MDVEC_KIND_FLOAT || f.kind == MDVEC_KIND_NUMPY);
    for (int j = 0; ok && j < k; j++) {
      mdvec_field_t g = {.struct_size = sizeof g};
      ok = mdvec_info_field(h, j, &g) == MDVEC_OK && strcmp(f.name, g.name) != 0;
    }
    CHECK_THAT(WHAT("%s: info field %d declared once, with a dtype and a kind", s->task, k), ok);
  }
  mdvec_field_t past = {.struct_size = sizeof past};
  CHECK_THAT(WHAT("%s: info field n_info refused", s->task), mdvec_info_field(h, sp.n_info, &past) == MDVEC_ERR_ARG);
}

/* Run STEPS steps; store every env's rows (rows[step][env]). */
static int run(mdvec_t *h, row rows[][N]) {
  static double a[N * MAX_ACT];
  if (mdvec_reset(h) != MDVEC_OK) return -1;
  for (int i = 0; i < N; i++) read_row(h, i, &rows[0][i]);
  for (int t = 1; t <= STEPS; t++) {
    actions(h, N, t, a);
    if (mdvec_step(h, a) != MDVEC_OK) return -1;
    for (int i = 0; i < N; i++) read_row(h, i, &rows[t][i]);
  }
  return 0;
}

static row g_base[STEPS + 1][N], g_other[STEPS + 1][N];

static void check_determinism_and_threads(const task_setup *s) {
  char err[1024];
  mdvec_t *h;
  if (create(s, N, 1, MDVEC_AUTORESET_NEXT_STEP, 7, &h, err, sizeof err) != MDVEC_OK || run(h, g_base)) {
    CHECK_THAT(WHAT("%s: run at 1 thread (%s)", s->task, err), 0);
    mdvec_destroy(h);
    return;
  }
  mdvec_destroy(h);
  int ended = 0;
  for (int t = 1; t <= STEPS; t++)
    for (int i = 0; i < N; i++) ended += g_base[t][i].terminated | g_base[t][i].truncated;
  CHECK_THAT(WHAT("%s: episodes ended within %d steps", s->task, STEPS), ended > 0);
  for (int threads = 1; threads <= 3; threads++) {
    memset(g_other, 0xA5, sizeof g_other);
    int ok = create(s, N, threads, MDVEC_AUTORESET_NEXT_STEP, 7, &h, err, sizeof err) == MDVEC_OK && !run(h, g_other);
    mdvec_destroy(h);
    CHECK_THAT(WHAT("%s: same seed, %d thread(s): bit-identical results", s->task, threads),
               ok && !memcmp(g_base, g_other, sizeof g_base));
  }
  int ok = create(s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 8, &h, err, sizeof err) == MDVEC_OK && !run(h, g_other);
  mdvec_destroy(h);
  CHECK_THAT(WHAT("%s: another seed, other results", s->task), ok && memcmp(g_base, g_other, sizeof g_base) != 0);
}

/* Asynchronous send/recv (1.4): after a send_reset of every env, envs received two at a time in send order (the
 * last group one) and each sent its next action as soon as it is received give every env the rows of the
 * synchronous run (g_base: same seed, NEXT_STEP), bit for bit, at 2 threads; a synchronous step while envs are in
 * flight is refused. */
static void check_async(const task_setup *s) {
  char err[1024];
  mdvec_t *h;
  if (create(s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 7, &h, err, sizeof err) != MDVEC_OK) {
    CHECK_THAT(WHAT("%s: async: create (%s)", s->task, err), 0);
    return;
  }
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  static double all[N * MAX_ACT], a[N * MAX_ACT];
  int t[N] = {0}, ok = mdvec_send_reset(h, NULL, N, NULL, NULL) == MDVEC_OK, flying;
  int refused = mdvec_step(h, all) == MDVEC_ERR_STATE;
  memset(g_other, 0xA5, sizeof g_other);
  while (ok && (flying = mdvec_in_flight(h)) > 0) {
    int32_t ids[N], next[N];
    int n = flying < 2 ? flying : 2, m = 0;
    ok = mdvec_recv(h, n, ids) == MDVEC_OK;
    for (int j = 0; ok && j < n; j++) {
      read_row(h, ids[j], &g_other[t[ids[j]]][ids[j]]);
      if (t[ids[j]] < STEPS) next[m++] = ids[j];
    }
    for (int j = 0; j < m; j++) {
      actions(h, N, ++t[next[j]], all);
      memcpy(a + j * sp.act_dim, all + next[j] * sp.act_dim, sizeof(double) * (size_t)sp.act_dim);
    }
    if (ok && m) ok = mdvec_send(h, a, MDVEC_DTYPE_F64, next, m) == MDVEC_OK;
  }
  if (!ok) fprintf(stderr, "%s: async: %s\n", s->task, mdvec_errmsg(h));
  mdvec_destroy(h);
  CHECK_THAT(WHAT("%s: async send/recv in groups of 2: every env's rows equal the synchronous run's", s->task),
             ok && !memcmp(g_base, g_other, sizeof g_base));
  CHECK_THAT(WHAT("%s: async: a synchronous step while envs are in flight is refused", s->task), refused);
}

/* The contracts of the autoreset modes, read from the flags of every step. */
static void check_autoreset_modes(const task_setup *s) {
  const int modes[] = {MDVEC_AUTORESET_DISABLED, MDVEC_AUTORESET_SAME_STEP, MDVEC_AUTORESET_NEXT_STEP};
  char err[1024];
  for (int m = 0; m < 3; m++) {
    mdvec_t *h;
    if (create(s, N, 2, modes[m], 3, &h, err, sizeof err) != MDVEC_OK || run(h, g_other)) {
      CHECK_THAT(WHAT("%s: run in mode %d (%s)", s->task, modes[m], err), 0);
      mdvec_destroy(h);
      continue;
    }
    mdvec_destroy(h);
    int ok = 1, ended = 0;
    for (int t = 1; t <= STEPS; t++)
      for (int i = 0; i < N; i++) {
        const row *r = &g_other[t][i], *prev = &g_other[t - 1][i];
        int done = r->terminated | r->truncated, was_done = t > 1 && (prev->terminated | prev->truncated);
        ended += done;
        if (modes[m] == MDVEC_AUTORESET_DISABLED) ok &= !r->reset;
        if (modes[m] == MDVEC_AUTORESET_SAME_STEP) ok &= r->reset == done;
        if (modes[m] == MDVEC_AUTORESET_NEXT_STEP) {
          ok &= r->reset == was_done;
          if (was_done) ok &= r->reward == 0.0 && !done; /* the reset step: no reward, not finished */
        }
      }
    CHECK_THAT(WHAT("%s: autoreset mode %d keeps its contract (%d episodes ended)", s->task, modes[m], ended),
               ok && ended > 0);
  }
}

static void check_resets_and_state(const task_setup *s) {
  char err[1024];
  mdvec_t *h, *fresh;
  if (create(s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 11, &h, err, sizeof err) != MDVEC_OK || mdvec_reset(h)) {
    CHECK_THAT(WHAT("%s: create (%s)", s->task, err), 0);
    mdvec_destroy(h);
    return;
  }
  static double a[N * MAX_ACT];
  for (int t = 1; t <= 3; t++) {
    actions(h, N, t, a);
    mdvec_step(h, a);
  }
  row before[N], after[N];
  for (int i = 0; i < N; i++) read_row(h, i, &before[i]);
  const uint8_t mask[N] = {0, 1, 0, 1, 0};
  const uint64_t seeds[N] = {0, 0, 0, 424242, 0};
  const uint8_t has_seed[N] = {0, 0, 0, 1, 0};
  CHECK_THAT(WHAT("%s: masked, seeded reset", s->task), mdvec_reset_envs(h, mask, seeds, has_seed) == MDVEC_OK);
  int ok = 1;
  for (int i = 0; i < N; i++) {
    read_row(h, i, &after[i]);
    ok &= after[i].reset == mask[i];
    if (!mask[i]) ok &= !memcmp(after[i].obs, before[i].obs, sizeof after[i].obs);
  }
  CHECK_THAT(WHAT("%s: a masked reset resets exactly the masked envs and keeps the others' rows", s->task), ok);
  /* env 3 reseeded with 424242 starts as env 0 of a fresh handle of seed 424242 */
  if (create(s, 1, 1, MDVEC_AUTORESET_NEXT_STEP, 424242, &fresh, err, sizeof err) == MDVEC_OK && !mdvec_reset(fresh)) {
    row r;
    read_row(fresh, 0, &r);
    CHECK_THAT(WHAT("%s: a seeded reset equals a fresh handle of that seed", s->task),
               !memcmp(r.obs, after[3].obs, sizeof r.obs));
  }
  mdvec_destroy(fresh);

  const unsigned sig = mjSTATE_FULLPHYSICS;
  size_t size = mdvec_state_size(h, sig);
  double *state = size ? calloc(size, sizeof *state) : NULL;
  CHECK_THAT(WHAT("%s: state readout", s->task), state && mdvec_get_state(h, N - 1, sig, state, size) == MDVEC_OK);
  CHECK_THAT(WHAT("%s: state of env N refused", s->task), mdvec_get_state(h, N, sig, state, size) == MDVEC_ERR_ARG);
  free(state);

  /* NaN and inf actions: refused, nothing changes */
  for (int i = 0; i < N; i++) read_row(h, i, &before[i]);
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (int b = 0; b < 3; b++) {
    actions(h, N, 9, a);
    a[(N - 1) * 1] = bad[b];
    CHECK_THAT(WHAT("%s: action %g refused", s->task, bad[b]), mdvec_step(h, a) == MDVEC_ERR_ACTION);
  }
  ok = 1;
  for (int i = 0; i < N; i++) {
    read_row(h, i, &after[i]);
    ok &= !memcmp(&after[i], &before[i], sizeof after[i]);
  }
  CHECK_THAT(WHAT("%s: refused actions changed no buffer", s->task), ok);
  mdvec_destroy(h);
}

/* Steps first .. first + count - 1 into rows[1..count]; return 0, or -1 on an error. */
static int steps_into(mdvec_t *h, int first, int count, row rows[][N]) {
  static double a[N * MAX_ACT];
  for (int t = 0; t < count; t++) {
    actions(h, N, first + t, a);
    if (mdvec_step(h, a) != MDVEC_OK) return -1;
    for (int i = 0; i < N; i++) read_row(h, i, &rows[t + 1][i]);
  }
  return 0;
}

/* Return a malloc'ed snapshot of h (its size in *size), or NULL. */
static unsigned char *snapshot_of(const mdvec_t *h, size_t *size) {
  *size = mdvec_snapshot_size(h);
  unsigned char *b = *size ? malloc(*size) : NULL;
  if (b && mdvec_snapshot(h, b, *size) != MDVEC_OK) {
    free(b);
    return NULL;
  }
  return b;
}

/* Whether h's snapshot now is blob. */
static int snapshot_is(const mdvec_t *h, const unsigned char *blob, size_t size) {
  size_t n;
  unsigned char *now = snapshot_of(h, &n);
  int same = now && blob && n == size && !memcmp(now, blob, n);
  free(now);
  return same;
}

/* State in and out (1.4): a snapshot restored replays the same steps, bit for bit (another handle of another
 * thread count: test_state.c, test_state.py); writing each env's own state back (set_state) changes nothing that follows;
 * the misuse paths (set_state: size, NaN, index, sig, NULL; restore: truncated, damaged, NULL) are
 * refused with MDVEC_ERR_ARG and change nothing. */
static void check_state_io(const task_setup *s) {
  enum { K = 8 };
  char err[1024];
  mdvec_t *h;
  if (create(s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 21, &h, err, sizeof err) != MDVEC_OK || mdvec_reset(h) ||
      steps_into(h, 1, 3, g_other)) {
    CHECK_THAT(WHAT("%s: create for state in and out (%s)", s->task, err), 0);
    mdvec_destroy(h);
    return;
  }
  size_t size;
  unsigned char *blob = snapshot_of(h, &size);
  CHECK_THAT(WHAT("%s: snapshot", s->task), blob != NULL);
  int ok = blob && !steps_into(h, 4, K, g_base);
  ok = ok && mdvec_restore(h, blob, size) == MDVEC_OK && snapshot_is(h, blob, size);
  memset(g_other, 0xA5, sizeof g_other);
  ok = ok && !steps_into(h, 4, K, g_other);
  CHECK_THAT(WHAT("%s: a restored snapshot replays %d steps bit for bit", s->task, K),
             ok && !memcmp(g_base[1], g_other[1], sizeof(row) * N * K));
  /* each env's own integration state written back (then mj_forward, as the reference's set_state: a task that
   * reads derived arrays at a step's start, Ant's xpos, sees them current), once and twice: the same future */
  size_t n = mdvec_state_size(h, mjSTATE_INTEGRATION);
  double *st = calloc(n + 1, sizeof *st);
  for (int times = 1; times <= 2; times++) {
    ok = blob && st && mdvec_restore(h, blob, size) == MDVEC_OK;
    for (int k = 0; k < times; k++)
      for (int i = 0; ok && i < N; i++)
        ok = mdvec_get_state(h, i, mjSTATE_INTEGRATION, st, n) == MDVEC_OK &&
             mdvec_set_state(h, i, mjSTATE_INTEGRATION, st, n) == MDVEC_OK;
    memset(g_other, 0xA5, sizeof g_other);
    ok = ok && !steps_into(h, 4, K, times == 1 ? g_base : g_other);
    CHECK_THAT(WHAT("%s: set_state of each env's own state (%d time(s))", s->task, times), ok);
  }
  CHECK_THAT(WHAT("%s: set_state depends on the state written only (once = twice)", s->task),
             !memcmp(g_base[1], g_other[1], sizeof(row) * N * K));

  /* misuse: refused, nothing changed */
  size_t now_size;
  unsigned char *now = snapshot_of(h, &now_size);
  if (st && now && blob) {
    mdvec_get_state(h, 0, mjSTATE_INTEGRATION, st, n);
    CHECK_THAT(WHAT("%s: set_state size - 1", s->task),
               mdvec_set_state(h, 0, mjSTATE_INTEGRATION, st, n - 1) == MDVEC_ERR_ARG);
    CHECK_THAT(WHAT("%s: set_state env N", s->task),
               mdvec_set_state(h, N, mjSTATE_INTEGRATION, st, n) == MDVEC_ERR_ARG);
    CHECK_THAT(WHAT("%s: set_state bad sig", s->task), mdvec_set_state(h, 0, 1u << 31, st, n) == MDVEC_ERR_ARG);
    CHECK_THAT(WHAT("%s: set_state NULL", s->task),
               mdvec_set_state(h, 0, mjSTATE_INTEGRATION, NULL, n) == MDVEC_ERR_ARG);
    st[n / 2] = NAN;
    CHECK_THAT(WHAT("%s: set_state NaN", s->task), mdvec_set_state(h, 0, mjSTATE_INTEGRATION, st, n) == MDVEC_ERR_ARG);
    CHECK_THAT(WHAT("%s: restore truncated", s->task), mdvec_restore(h, blob, size - 1) == MDVEC_ERR_ARG);
    blob[size - 5] ^= 1;
    CHECK_THAT(WHAT("%s: restore damaged", s->task), mdvec_restore(h, blob, size) == MDVEC_ERR_ARG);
    blob[size - 5] ^= 1;
    CHECK_THAT(WHAT("%s: restore NULL", s->task), mdvec_restore(h, NULL, size) == MDVEC_ERR_ARG);
    CHECK_THAT(WHAT("%s: the refusals changed nothing", s->task), snapshot_is(h, now, now_size));
  }
  free(now);
  free(st);
  free(blob);
  mdvec_destroy(h);
}

/* Every numeric option just beyond each finite bound: refused at create, the message naming the option. */
static void check_option_bounds(const task_setup *s) {
  int n = mdvec_task_option_count(s->task), tried = 0;
  for (int j = 0; j < n; j++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    if (mdvec_task_option(s->task, j, &o) != MDVEC_OK) continue;
    int integer = o.type == MDVEC_OPT_INT || o.type == MDVEC_OPT_IRANGE;
    if (o.type != MDVEC_OPT_INT && o.type != MDVEC_OPT_DOUBLE && o.type != MDVEC_OPT_RANGE &&
        o.type != MDVEC_OPT_IRANGE)
      continue;
    for (int side = 0; side < 2; side++) {
      double bound = side ? o.hi : o.lo;
      if (!isfinite(bound) || fabs(bound) > 1e15) continue;
      double beyond = side ? (integer ? floor(bound) + 1 : bound + fmax(1.0, fabs(bound)))
                           : (integer ? ceil(bound) - 1 : bound - fmax(1.0, fabs(bound)));
      char value[128];
      if (o.type == MDVEC_OPT_RANGE || o.type == MDVEC_OPT_IRANGE)
        snprintf(value, sizeof value, integer ? "%.0f,%.0f" : "%.17g,%.17g", side ? o.lo : beyond,
                 side ? beyond : o.hi);
      else
        snprintf(value, sizeof value, integer ? "%.0f" : "%.17g", beyond);
      task_setup t = *s;
      if (s->xml[0]) set_option(&t, "xml_file", t.xml); /* the copy's own path buffer */
      set_option(&t, o.name, value);
      char err[1024] = "";
      mdvec_t *h;
      int code = create(&t, 1, 1, MDVEC_AUTORESET_NEXT_STEP, 0, &h, err, sizeof err);
      mdvec_destroy(h);
      CHECK_THAT(WHAT("%s: %s=%s (beyond [%g, %g]) refused naming it", s->task, o.name, value, o.lo, o.hi),
                 code == MDVEC_ERR_CONFIG && strstr(err, o.name));
      tried++;
    }
  }
  CHECK_THAT(WHAT("%s: some option bound to check", s->task), tried > 0);
}

/* Seeds at and past the task's seed_max (spec.seed_max; env i gets seed + i): the largest allowed are taken,
 * the next refused with MDVEC_ERR_ARG and a message, by mdvec_create, mdvec_seed and mdvec_reset_envs, and a
 * refused call changes no buffer. */
static void check_seed_range(const task_setup *s) {
  char err[1024] = "";
  mdvec_t *h;
  if (create(s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 5, &h, err, sizeof err) != MDVEC_OK || mdvec_reset(h)) {
    CHECK_THAT(WHAT("%s: create (%s)", s->task, err), 0);
    mdvec_destroy(h);
    return;
  }
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  const uint64_t max = sp.seed_max, top = max - (N - 1); /* the largest seed N envs take */
  CHECK_THAT(WHAT("%s: seed_max %llu leaves room for %d envs", s->task, (unsigned long long)max, N), max >= N - 1);
  row before[N], after[N];
  for (int i = 0; i < N; i++) read_row(h, i, &before[i]);
  int code = mdvec_seed(h, top + 1);
  CHECK_THAT(WHAT("%s: mdvec_seed(%llu) with %d envs refused (seed_max %llu)", s->task, (unsigned long long)(top + 1),
                  N, (unsigned long long)max),
             code == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "seed"));
  const uint8_t mask[N] = {0, 0, 1, 0, 0};
  uint64_t seeds[N] = {0, 0, 0, 0, 0};
  if (max < UINT64_MAX) {
    seeds[2] = max + 1;
    code = mdvec_reset_envs(h, mask, seeds, NULL);
    CHECK_THAT(WHAT("%s: mdvec_reset_envs with seed %llu refused", s->task, (unsigned long long)(max + 1)),
               code == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "seed"));
    seeds[2] = UINT64_MAX;
    code = mdvec_reset_envs(h, mask, seeds, NULL);
    CHECK_THAT(WHAT("%s: mdvec_reset_envs with seed 2**64 - 1 refused", s->task), code == MDVEC_ERR_ARG);
  }
  int ok = 1;
  for (int i = 0; i < N; i++) {
    read_row(h, i, &after[i]);
    ok &= !memcmp(&after[i], &before[i], sizeof after[i]);
  }
  CHECK_THAT(WHAT("%s: refused seeds changed no buffer", s->task), ok);
  CHECK_THAT(WHAT("%s: mdvec_seed(%llu) with %d envs taken", s->task, (unsigned long long)top, N),
             mdvec_seed(h, top) == MDVEC_OK && mdvec_reset(h) == MDVEC_OK);
  seeds[2] = max;
  CHECK_THAT(WHAT("%s: mdvec_reset_envs with seed %llu taken", s->task, (unsigned long long)max),
             mdvec_reset_envs(h, mask, seeds, NULL) == MDVEC_OK);
  mdvec_destroy(h);
  if (max < UINT64_MAX) {
    err[0] = 0;
    code = create(s, 1, 1, MDVEC_AUTORESET_NEXT_STEP, max + 1, &h, err, sizeof err);
    mdvec_destroy(h);
    CHECK_THAT(WHAT("%s: mdvec_create with seed %llu refused (%s)", s->task, (unsigned long long)(max + 1), err),
               code == MDVEC_ERR_ARG && strstr(err, "seed"));
  }
  code = create(s, 1, 1, MDVEC_AUTORESET_NEXT_STEP, max, &h, err, sizeof err);
  CHECK_THAT(WHAT("%s: mdvec_create with seed %llu taken (%s)", s->task, (unsigned long long)max, err),
             code == MDVEC_OK && mdvec_reset(h) == MDVEC_OK);
  mdvec_destroy(h);
}

/* mdv_spec_check: a well-formed spec passes; each malformed field is refused naming the task and field. */
static void check_spec_validation(void) {
  static const double lo[2] = {-1, -1}, hi[2] = {1, 1}, bad_hi[2] = {1, -2};
  static const mdv_field info[2] = {{"a", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
                                    {"b", MDVEC_DTYPE_ACTION, MDVEC_INFO_RESET}};
  const mdv_spec good = {.obs_dim = 3,
                         .obs_dtype = MDVEC_DTYPE_F64,
                         .act_dim = 2,
                         .act_low = lo,
                         .act_high = hi,
                         .n_info = 2,
                         .info = info,
                         .max_episode_steps = 10,
                         .nq = 1,
                         .nv = 1,
                         .nbody = 2,
                         .env_size = 64,
                         .dt = 0.01};
  char msg[256];
  CHECK(mdv_spec_check("t", &good, msg, sizeof msg) == MDVEC_OK);
  struct {
    const char *field;
    mdv_spec spec;
  } bad[] = {{"obs_dtype", good}, {"obs_dim", good}, {"act_low", good}, {"n_info", good},
             {"env_size", good},  {"nq", good},      {"dt", good}};
  bad[0].spec.obs_dtype = 0; /* the bug that once sized float64 observations as float32 */
  bad[1].spec.obs_dim = 0;
  bad[2].spec.act_high = bad_hi;
  bad[3].spec.info = NULL;
  bad[4].spec.env_size = 0;
  bad[5].spec.nq = 0;
  bad[6].spec.dt = 0.0; /* a task that forgot it: render rates would divide by zero */
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    CHECK_THAT(WHAT("a spec with a bad %s refused naming it", bad[k].field),
               mdv_spec_check("mytask", &bad[k].spec, msg, sizeof msg) == MDVEC_ERR_MODEL && strstr(msg, "mytask") &&
                 strstr(msg, bad[k].field));
}

/* An option table with a hole (an enum index given no entry) is refused naming the task; every registered
 * task's table has none. */
static void check_option_tables(void) {
  enum { A, B, C, N_OPT };
  static const mdv_option_decl holey[N_OPT] = {
    [A] = {"a", MDVEC_OPT_INT, "1", 0, 10, NULL, "a"},
    [C] = {"c", MDVEC_OPT_INT, "1", 0, 10, NULL, "c"}, /* [B] forgotten */
  };
  const mdv_task t = {.name = "holeytask", .options = holey, .n_options = N_OPT};
  mdv_value v[N_OPT];
  memset(v, 0, sizeof v);
  char msg[256] = "";
  CHECK_THAT(WHAT("a hole in an option table refused naming the task and the index (%s)", msg),
             mdv_options_resolve(&t, NULL, NULL, NULL, 0, v, msg, sizeof msg) == MDVEC_ERR_MODEL &&
               strstr(msg, "holeytask") && strstr(msg, "option 1 of 3"));
  for (const mdv_task *const *r = mdv_tasks; *r; r++)
    for (int k = 0; k < (*r)->n_options; k++)
      CHECK_THAT(WHAT("%s: option %d named", (*r)->name, k), (*r)->options[k].name != NULL);
}

int main(void) {
  check_spec_validation();
  check_option_tables();
  int checked = 0;
  for (int k = 0; k < mdvec_task_count(); k++) {
    task_setup s;
    int missing = setup(k, &s);
    if (missing) {
      printf(missing == -1 ? "test_conformance: %s skipped: its model is in Gymnasium's assets and MDVEC_GYM_ASSETS is "
                             "unset (gymnasium not installed)\n"
                           : "test_conformance: %s skipped: its model is in dm_control's suite folder and "
                             "MDVEC_DM_SUITE is unset (dm_control not installed)\n",
             mdvec_task_name(k));
      continue;
    }
    char err[1024];
    mdvec_t *h;
    if (create(&s, N, 2, MDVEC_AUTORESET_NEXT_STEP, 1, &h, err, sizeof err) != MDVEC_OK) {
      CHECK_THAT(WHAT("%s: create with its defaults (%s)", s.task, err), 0);
      continue;
    }
    check_spec(&s, h);
    mdvec_destroy(h);
    check_determinism_and_threads(&s);
    check_async(&s);
    check_autoreset_modes(&s);
    check_resets_and_state(&s);
    check_option_bounds(&s);
    check_seed_range(&s);
    check_state_io(&s);
    checked++;
    printf("test_conformance: %s checked\n", s.task);
  }
  CHECK_THAT("at least the default task checked", checked > 0);
  return check_summary("test_conformance");
}
