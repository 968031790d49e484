/* The 1.1 calls: tasks by name, options (errors name them), autoreset modes, masked and seeded resets,
 * typed steps, state readout, config struct sizes. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "check.h"
#include "mdvec.h"

#define N   4
#define NU  14
#define OBS 48

/* Fixed actions in [-1.2, 1.2] for (step, env, actuator), float32 and their exact float64 widening
 * (the float32 value is stored first and widened: an optimiser may evaluate sin twice, differently). */
static void fill_actions(int step, int n, double *a64, float *a32) {
  static float tmp[N * NU];
  for (int i = 0; i < n; i++)
    for (int k = 0; k < NU; k++) tmp[i * NU + k] = (float)(1.2 * sin(0.37 * step + 1.3 * i + 0.11 * k));
  for (int j = 0; j < n * NU; j++) {
    if (a64) a64[j] = (double)tmp[j];
    if (a32) a32[j] = tmp[j];
  }
}

/* Create with options; return the code, the handle in *out (NULL on failure), the message in err. */
static int create(mdvec_t **out, const char *task, int n, int threads, int autoreset, uint64_t seed,
                  const mdvec_option_t *opts, int n_opts, char *err, size_t size) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = task;
  cfg.num_envs = n;
  cfg.threads = threads;
  cfg.autoreset = autoreset;
  cfg.seed = seed;
  cfg.options = opts;
  cfg.n_options = n_opts;
  *out = NULL;
  return mdvec_create(out, &cfg, err, size);
}

/* Short episodes (5 steps) with one shove, so modes show within a few steps. */
static const mdvec_option_t kShort[] = {
  {"episode_len", "5"}, {"push_window", "0,5"}, {"n_pushes", "1"}, {"init_noise", "0.01"}};

static void test_catalogue(void) {
  CHECK(mdvec_task_count() >= 1);
  CHECK(mdvec_task_name(0) && !strcmp(mdvec_task_name(0), "duck"));
  CHECK(mdvec_task_name(-1) == NULL && mdvec_task_name(mdvec_task_count()) == NULL);
  CHECK(mdvec_task_summary(NULL) && mdvec_task_summary("duck") && !mdvec_task_summary("nope"));
  int n = mdvec_task_option_count("duck");
  CHECK(n == 13 && mdvec_task_option_count(NULL) == n && mdvec_task_option_count("nope") == MDVEC_ERR_ARG);
  int found = 0;
  for (int k = 0; k < n; k++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    CHECK(mdvec_task_option("duck", k, &o) == MDVEC_OK && o.name && o.help);
    if (!strcmp(o.name, "reward"))
      found += o.type == MDVEC_OPT_CHOICE && !strcmp(o.choices, "v1|v2") && !strcmp(o.def, "v2");
    if (!strcmp(o.name, "latency")) found += o.type == MDVEC_OPT_INT && o.lo == 0 && !strcmp(o.def, "0");
    if (!strcmp(o.name, "push_speed")) found += o.type == MDVEC_OPT_RANGE && !strcmp(o.def, "0.3,0.9");
  }
  CHECK(found == 3);
  mdvec_option_info_t o = {.struct_size = sizeof o - 1};
  CHECK(mdvec_task_option("duck", 0, &o) == MDVEC_ERR_ARG);
  o.struct_size = sizeof o;
  CHECK(mdvec_task_option("duck", n, &o) == MDVEC_ERR_ARG && mdvec_task_option("nope", 0, &o) == MDVEC_ERR_ARG);
  int nc = mdvec_task_constant_count("duck");
  CHECK(nc >= 5);
  for (int k = 0; k < nc; k++) {
    mdvec_constant_t c = {.struct_size = sizeof c};
    CHECK(mdvec_task_constant("duck", k, &c) == MDVEC_OK && c.count > 0 && c.values);
    if (!strcmp(c.name, "obs_scale")) CHECK(c.count == 5 && c.values[0] == 0.25 && c.values[3] == 0.05);
  }
}

static void test_task_and_option_errors(void) {
  char err[1024];
  mdvec_t *h;
  CHECK(create(&h, "duck", 2, 1, 1, 0, NULL, 0, err, sizeof err) == MDVEC_OK);
  mdvec_spec_t spec = {.struct_size = sizeof spec};
  CHECK(mdvec_spec(h, &spec) == MDVEC_OK && !strcmp(spec.task, "duck") && spec.num_envs == 2 && spec.act_dim == NU &&
        spec.obs_dim == OBS && spec.obs_dtype == MDVEC_DTYPE_F32 && spec.max_episode_steps == 250 &&
        spec.autoreset == MDVEC_AUTORESET_SAME_STEP && spec.n_info == 13 && spec.nq > NU && spec.nv > NU &&
        spec.model_path == NULL);
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  CHECK(lo && hi && lo[0] == -1.0 && hi[NU - 1] == 1.0);
  mdvec_field_t f = {.struct_size = sizeof f};
  CHECK(mdvec_info_field(h, 0, &f) == MDVEC_OK && !strcmp(f.name, "t") && f.dtype == MDVEC_DTYPE_I64 &&
        f.when == MDVEC_INFO_STEP);
  CHECK(mdvec_info_field(h, 1, &f) == MDVEC_OK && !strcmp(f.name, "pushed") && f.dtype == MDVEC_DTYPE_BOOL);
  CHECK(mdvec_info_field(h, 3, &f) == MDVEC_OK && f.dtype == MDVEC_DTYPE_F64);
  CHECK(mdvec_info_field(h, 13, &f) == MDVEC_ERR_ARG && mdvec_info_field(h, -1, &f) == MDVEC_ERR_ARG);
  spec.struct_size = 8;
  CHECK(mdvec_spec(h, &spec) == MDVEC_ERR_ARG);
  mdvec_destroy(h);

  CHECK(create(&h, "wobbler", 1, 1, 1, 0, NULL, 0, err, sizeof err) == MDVEC_ERR_CONFIG && !h);
  CHECK(strstr(err, "wobbler") && strstr(err, "duck"));
  mdvec_option_t unknown[] = {{"colour", "blue"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, unknown, 1, err, sizeof err) == MDVEC_ERR_CONFIG && !h);
  CHECK(strstr(err, "colour") && strstr(err, "episode_len") && strstr(err, "duck"));
  mdvec_option_t range[] = {{"substeps", "0"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, range, 1, err, sizeof err) == MDVEC_ERR_CONFIG);
  CHECK(strstr(err, "substeps") && strstr(err, "0 is out of range [1, 10000]"));
  mdvec_option_t speed[] = {{"push_speed", "0.5,nan"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, speed, 1, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "push_speed"));
  mdvec_option_t order[] = {{"push_speed", "0.9,0.3"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, order, 1, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "lo <= hi"));
  mdvec_option_t text[] = {{"latency", "1.5"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, text, 1, err, sizeof err) == MDVEC_ERR_CONFIG);
  CHECK(strstr(err, "latency") && strstr(err, "'1.5' is not an integer"));
  mdvec_option_t choice[] = {{"reward", "v3"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, choice, 1, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "v1|v2"));
  mdvec_option_t flag[] = {{"dr", "yes"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, flag, 1, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "dr"));
  mdvec_option_t latency[] = {{"episode_len", "10"}, {"push_window", "0,10"}, {"latency", "10"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, latency, 3, err, sizeof err) == MDVEC_ERR_CONFIG);
  CHECK(strstr(err, "latency") && strstr(err, "episode_len=10"));
  mdvec_option_t pushes[] = {{"n_pushes", "6"}, {"push_window", "10,15"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, pushes, 2, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "push_window"));
  mdvec_option_t twice[] = {{"dr", "true"}, {"dr", "false"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, twice, 2, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "twice"));
  mdvec_option_t variant[] = {{"variant", "giraffe"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, variant, 1, err, sizeof err) == MDVEC_ERR_MODEL && strstr(err, "giraffe"));
  CHECK(create(&h, NULL, 1, 1, -1, 0, NULL, 0, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "autoreset"));

  /* Named options override the v1 fields; all of them parse. */
  mdvec_option_t all[] = {{"substeps", "4"},
                          {"episode_len", "7"},
                          {"action_scale", "0.25"},
                          {"n_pushes", "2"},
                          {"push_window", "1,6"},
                          {"push_speed", "0.1,inf"},
                          {"init_noise", "0.02"},
                          {"latency", "2"},
                          {"sensor_noise", "True"},
                          {"reward", "v1"},
                          {"dr", "1"},
                          {"variant", "backlash"},
                          {"model_path", NULL}};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.episode_len = 100;
  cfg.options = all;
  cfg.n_options = 13;
  spec.struct_size = sizeof spec;
  mdvec_option_t inf_speed[] = {{"push_speed", "0.1,inf"}};
  CHECK(create(&h, NULL, 1, 1, 1, 0, inf_speed, 1, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "push_speed"));
  all[5].value = "0.1,1e3";
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  CHECK(mdvec_spec(h, &spec) == MDVEC_OK && spec.max_episode_steps == 7 && spec.n_info == 11);
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  CHECK(mdvec_dims(h, &dims) == MDVEC_OK && dims.n_pushes == 2 && dims.max_latency == 2 && dims.n_info == 11);
  mdvec_destroy(h);
}

/* Every buffer of one handle after one call. */
typedef struct {
  float obs[N * OBS], final_obs[N * OBS];
  double reward[N], info[13 * N];
  uint8_t term[N], trunc[N], done[N], reset[N];
} frame_t;

static void grab(const mdvec_t *h, frame_t *f) {
  memcpy(f->obs, mdvec_obs_data(h), sizeof f->obs);
  memcpy(f->final_obs, mdvec_final_obs_data(h), sizeof f->final_obs);
  memcpy(f->reward, mdvec_reward(h), sizeof f->reward);
  memcpy(f->info, mdvec_info(h), sizeof f->info);
  memcpy(f->term, mdvec_terminated(h), N);
  memcpy(f->trunc, mdvec_truncated(h), N);
  memcpy(f->done, mdvec_done(h), N);
  memcpy(f->reset, mdvec_reset_flags(h), N);
}

#define STEPS 13
/* Run STEPS steps of N envs in one mode with float32 actions; frames[0] is the reset, frames[s] step s. */
static void run_mode(int mode, int threads, frame_t *frames) {
  char err[512];
  mdvec_t *h;
  CHECK(create(&h, NULL, N, threads, mode, 7, kShort, 4, err, sizeof err) == MDVEC_OK);
  if (!h) exit(check_summary("test_api_v11"));
  CHECK(mdvec_reset(h) == MDVEC_OK);
  grab(h, &frames[0]);
  float a32[N * NU];
  for (int s = 1; s <= STEPS; s++) {
    fill_actions(s, N, NULL, a32);
    CHECK(mdvec_step_typed(h, a32, MDVEC_DTYPE_F32) == MDVEC_OK);
    grab(h, &frames[s]);
  }
  mdvec_destroy(h);
}

static int same_row(const float *a, const float *b, int i) {
  return !memcmp(a + i * OBS, b + i * OBS, OBS * sizeof(float));
}

static void test_autoreset_modes(void) {
  static frame_t same[STEPS + 1], next[STEPS + 1], off[STEPS + 1], other[STEPS + 1];
  run_mode(MDVEC_AUTORESET_SAME_STEP, 1, same);
  run_mode(MDVEC_AUTORESET_NEXT_STEP, 2, next);
  run_mode(MDVEC_AUTORESET_DISABLED, 3, off);
  for (int i = 0; i < N; i++) {
    CHECK(same[0].reset[i] && next[0].reset[i]);
    /* SAME_STEP: step 5 ends the episode and resets at once: final obs kept, first obs in obs. */
    CHECK(same[5].done[i] && same[5].trunc[i] && !same[5].term[i] && same[5].reset[i]);
    CHECK(!same_row(same[5].obs, same[5].final_obs, i));
    CHECK(!same[4].reset[i] && !same[6].reset[i] && same[6].info[i] == 1.0); /* t restarted */
    /* NEXT_STEP: step 5 ends it and keeps the final obs; step 6 resets instead of stepping. */
    CHECK(next[5].done[i] && !next[5].reset[i] && same_row(next[5].obs, next[5].final_obs, i));
    CHECK(same_row(next[5].obs, same[5].final_obs, i) && next[5].reward[i] == same[5].reward[i]);
    CHECK(next[6].reset[i] && !next[6].done[i] && next[6].reward[i] == 0.0 && next[6].info[i] == 0.0);
    CHECK(same_row(next[6].obs, same[5].obs, i)); /* the same first obs, from the same generator state */
    /* DISABLED: the episode goes on past its limit. */
    CHECK(off[5].done[i] && !off[6].reset[i] && off[6].info[i] == 6.0 && same_row(off[5].obs, same[5].final_obs, i));
  }
  /* Thread counts never change results. */
  run_mode(MDVEC_AUTORESET_NEXT_STEP, 1, other);
  CHECK(!memcmp(other, next, sizeof next));
  run_mode(MDVEC_AUTORESET_SAME_STEP, 4, other);
  CHECK(!memcmp(other, same, sizeof same));
}

/* float32 actions equal their exact float64 widening; v1 mdvec_step is the float64 path. */
static void test_typed_steps(void) {
  char err[512];
  mdvec_t *a, *b;
  CHECK(create(&a, NULL, N, 2, 1, 3, NULL, 0, err, sizeof err) == MDVEC_OK);
  CHECK(create(&b, NULL, N, 2, 1, 3, NULL, 0, err, sizeof err) == MDVEC_OK);
  if (!a || !b) return;
  mdvec_reset(a);
  mdvec_reset(b);
  double a64[N * NU];
  float a32[N * NU];
  frame_t fa, fb;
  int same = 1;
  for (int s = 0; s < 20; s++) {
    fill_actions(s, N, a64, a32);
    CHECK(mdvec_step(a, a64) == MDVEC_OK && mdvec_step_typed(b, a32, MDVEC_DTYPE_F32) == MDVEC_OK);
    grab(a, &fa);
    grab(b, &fb);
    same &= !memcmp(&fa, &fb, sizeof fa);
  }
  CHECK(same);
  a32[N * NU - 1] = NAN;
  CHECK(mdvec_step_typed(b, a32, MDVEC_DTYPE_F32) == MDVEC_ERR_ACTION && strstr(mdvec_errmsg(b), "env 3"));
  CHECK(mdvec_step_typed(b, a32, 99) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(b), "dtype"));
  CHECK(mdvec_step_typed(b, NULL, MDVEC_DTYPE_F32) == MDVEC_ERR_ARG);
  grab(b, &fb);
  CHECK(!memcmp(&fa, &fb, sizeof fa)); /* refused calls changed nothing */
  mdvec_destroy(a);
  mdvec_destroy(b);
}

/* A masked, seeded reset equals fresh handles seeded the same; envs outside the mask keep their rows. */
static void test_reset_mask_and_seeds(void) {
  char err[512];
  mdvec_t *h, *fresh;
  CHECK(create(&h, NULL, N, 2, 2, 11, kShort + 3, 1, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  mdvec_reset(h);
  double a64[N * NU];
  for (int s = 0; s < 3; s++) {
    fill_actions(s, N, a64, NULL);
    mdvec_step(h, a64);
  }
  frame_t before, after;
  grab(h, &before);
  uint8_t mask[N] = {0, 1, 0, 1}, has[N] = {1, 1, 0, 0};
  uint64_t seeds[N] = {500, 100, 600, 200};
  CHECK(mdvec_reset_envs(h, mask, seeds, has) == MDVEC_OK);
  grab(h, &after);
  CHECK(same_row(after.obs, before.obs, 0) && same_row(after.obs, before.obs, 2));
  CHECK(!after.reset[0] && after.reset[1] && !after.reset[2] && after.reset[3]);
  CHECK(create(&fresh, NULL, 1, 1, 1, 100, kShort + 3, 1, err, sizeof err) == MDVEC_OK);
  mdvec_reset(fresh);
  CHECK(!memcmp(after.obs + 1 * OBS, mdvec_obs_data(fresh), OBS * sizeof(float)));
  mdvec_destroy(fresh);
  /* Env 3 had no seed applied: it continues its own generator (seed 11 + 3), drawing a second episode. */
  CHECK(create(&fresh, NULL, 1, 1, 1, 14, kShort + 3, 1, err, sizeof err) == MDVEC_OK);
  mdvec_reset(fresh);
  mdvec_reset(fresh);
  CHECK(!memcmp(after.obs + 3 * OBS, mdvec_obs_data(fresh), OBS * sizeof(float)));
  mdvec_destroy(fresh);
  /* Seeds without has_seed apply to every env of the mask; NULL mask is every env. */
  uint64_t all[N] = {100, 100, 100, 100};
  CHECK(mdvec_reset_envs(h, NULL, all, NULL) == MDVEC_OK);
  grab(h, &after);
  for (int i = 1; i < N; i++) CHECK(!memcmp(after.obs + i * OBS, after.obs, OBS * sizeof(float)));
  /* The stepped envs continue equal after the masked reset. */
  fill_actions(9, N, a64, NULL);
  CHECK(mdvec_step(h, a64) == MDVEC_OK);
  CHECK(mdvec_reset_envs(NULL, NULL, NULL, NULL) == MDVEC_ERR_ARG);
  mdvec_destroy(h);
}

/* The state readout is MuJoCo's: after a reset without noise, qpos is the home keyframe. */
static void test_state(void) {
  char err[512];
  mdvec_t *h;
  CHECK(create(&h, NULL, 2, 1, 1, 0, NULL, 0, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  mdvec_reset(h);
  mjModel *m = mj_loadXML(MDVEC_MODELS_DIR "/duck.xml", NULL, err, sizeof err);
  CHECK(m != NULL);
  if (!m) return;
  int home = mj_name2id(m, mjOBJ_KEY, "home");
  size_t nq = mdvec_state_size(h, mjSTATE_QPOS);
  CHECK(nq == (size_t)m->nq && mdvec_state_size(h, mjSTATE_PHYSICS) == (size_t)mj_stateSize(m, mjSTATE_PHYSICS));
  double *state = calloc(nq + 1, sizeof(double));
  CHECK(mdvec_get_state(h, 1, mjSTATE_QPOS, state, nq) == MDVEC_OK);
  CHECK(!memcmp(state, m->key_qpos + (size_t)home * m->nq, nq * sizeof(double)));
  double t[2];
  CHECK(mdvec_get_state(h, 0, mjSTATE_TIME, t, 1) == MDVEC_OK && t[0] == 0.0);
  double a[2 * NU] = {0};
  mdvec_step(h, a);
  CHECK(mdvec_get_state(h, 0, mjSTATE_TIME, t, 1) == MDVEC_OK && fabs(t[0] - 10 * m->opt.timestep) < 1e-12);
  CHECK(mdvec_get_state(h, 2, mjSTATE_QPOS, state, nq) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "out of range"));
  CHECK(mdvec_get_state(h, 0, mjSTATE_QPOS, state, nq - 1) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "size"));
  CHECK(mdvec_get_state(h, 0, 1u << mjNSTATE, state, nq) == MDVEC_ERR_ARG);
  CHECK(mdvec_state_size(h, 1u << mjNSTATE) == 0 && mdvec_state_size(NULL, mjSTATE_QPOS) == 0);
  CHECK(mdvec_get_state(h, 0, mjSTATE_QPOS, NULL, nq) == MDVEC_ERR_ARG);
  free(state);
  mj_deleteModel(m);
  mdvec_destroy(h);
}

/* A 1.0 caller's struct (shorter) is accepted; a longer one too when its unknown tail is zero. */
static void test_struct_sizes(void) {
  char err[512];
  mdvec_t *h = NULL;
  union {
    mdvec_config_t c;
    unsigned char bytes[sizeof(mdvec_config_t) + 16];
  } big;
  memset(&big, 0, sizeof big);
  (mdvec_config_default)(&big.c); /* the 1.0 function: fills the 1.0 layout only */
  size_t v1 = big.c.struct_size;
  CHECK(v1 < sizeof(mdvec_config_t) && v1 == offsetof(mdvec_config_t, task));
  big.c.task = "no such task"; /* beyond a 1.0 caller's struct: never read */
  big.c.n_options = -3;
  CHECK(mdvec_create(&h, &big.c, err, sizeof err) == MDVEC_OK);
  mdvec_spec_t spec = {.struct_size = sizeof spec};
  CHECK(h && mdvec_spec(h, &spec) == MDVEC_OK && !strcmp(spec.task, "duck") && spec.autoreset == 1);
  mdvec_destroy(h);
  CHECK(mdvec_config_init(&big.c, sizeof big) == MDVEC_OK && big.c.struct_size == sizeof big && big.c.task == NULL);
  CHECK(mdvec_create(&h, &big.c, err, sizeof err) == MDVEC_OK);
  mdvec_destroy(h);
  big.bytes[sizeof(mdvec_config_t) + 3] = 1; /* a field this library does not know */
  CHECK(mdvec_create(&h, &big.c, err, sizeof err) == MDVEC_ERR_ARG && strstr(err, "does not know") && !h);
  big.bytes[sizeof(mdvec_config_t) + 3] = 0;
  big.c.struct_size = v1 + 8; /* between layouts */
  CHECK(mdvec_create(&h, &big.c, err, sizeof err) == MDVEC_ERR_ARG && strstr(err, "struct_size"));
  CHECK(mdvec_config_init(&big.c, v1 + 8) == MDVEC_ERR_ARG && mdvec_config_init(NULL, sizeof big.c) == MDVEC_ERR_ARG);
  CHECK(mdvec_config_init(&big.c, v1) == MDVEC_OK && big.c.struct_size == v1);
}

/* cfg.dot (1.2): checked at create; a task flagged MDVEC_TASK_NUMPY_DOT calls the caller's ddot. */
static _Atomic int g_ddot_calls;

static double plain_ddot64(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy) {
  g_ddot_calls++;
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
  return s;
}

static double half_ddot(int n, const double *x, int incx, const double *y, int incy) {
  return 0.5 * plain_ddot64(n, x, incx, y, incy);
}

static void test_dot_config(void) {
  char err[512];
  mdvec_t *h = NULL;
  CHECK(mdvec_task_flags(NULL) == 0 && mdvec_task_flags("duck") == 0 && mdvec_task_flags("nope") == MDVEC_ERR_ARG);
  CHECK(mdvec_task_flags("Reacher-v5") == MDVEC_TASK_NUMPY_DOT &&
        mdvec_task_flags("Swimmer-v5") == MDVEC_TASK_NUMPY_DOT);
  CHECK(mdvec_task_flags("Hopper-v5") == 0 && mdvec_task_flags("HumanoidStandup-v5") == 0);
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  CHECK(cfg.dot == MDVEC_DOT_PLAIN && !cfg.ddot && !cfg.ddot64);
  const int bad[] = {-1, 4};
  for (int k = 0; k < 2; k++) {
    cfg.dot = bad[k];
    CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_ERR_CONFIG && !h && strstr(err, "dot:"));
  }
  cfg.dot = MDVEC_DOT_CBLAS;
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "cfg.ddot, which is NULL"));
  cfg.dot = MDVEC_DOT_CBLAS64;
  cfg.ddot = half_ddot; /* the other pointer does not count */
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "cfg.ddot64, which is NULL"));
  cfg.ddot64 = plain_ddot64;
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK); /* the duck takes a dot and never calls it */
  CHECK(mdvec_reset(h) == MDVEC_OK && g_ddot_calls == 0);
  mdvec_destroy(h);

  /* a 1.1 caller's struct ends at on_error: accepted, the dot then PLAIN */
  union {
    mdvec_config_t c;
    unsigned char bytes[sizeof(mdvec_config_t)];
  } v11;
  CHECK(mdvec_config_init(&v11.c, offsetof(mdvec_config_t, dot)) == MDVEC_OK);
  CHECK(v11.c.struct_size == offsetof(mdvec_config_t, dot));
  memset(v11.bytes + offsetof(mdvec_config_t, dot), 0xff, sizeof v11 - offsetof(mdvec_config_t, dot));
  CHECK(mdvec_create(&h, &v11.c, err, sizeof err) == MDVEC_OK); /* bytes beyond its size: never read */
  mdvec_destroy(h);

  const char *assets = getenv("MDVEC_GYM_ASSETS");
  if (!assets || !assets[0]) {
    printf(
      "test_api_v11: Gymnasium's assets not given (MDVEC_GYM_ASSETS unset): the Reacher-v5 dot check "
      "is skipped\n");
    return;
  }
  char xml[4096];
  snprintf(xml, sizeof xml, "%s/reacher.xml", assets);
  const mdvec_option_t opts[] = {{"xml_file", xml}};
  mdvec_t *env[3] = {NULL, NULL, NULL};
  double obs[3][11], reward[3][2];
  for (int k = 0; k < 3; k++) { /* PLAIN; CBLAS64 calling a plain ddot; CBLAS calling half of it */
    mdvec_config_default(&cfg);
    cfg.task = "Reacher-v5", cfg.num_envs = 2, cfg.threads = 2, cfg.seed = 3, cfg.options = opts, cfg.n_options = 1;
    cfg.dot = k == 0 ? MDVEC_DOT_PLAIN : k == 1 ? MDVEC_DOT_CBLAS64 : MDVEC_DOT_CBLAS;
    cfg.ddot64 = plain_ddot64, cfg.ddot = half_ddot;
    CHECK(mdvec_create(&env[k], &cfg, err, sizeof err) == MDVEC_OK);
    if (!env[k]) return;
    g_ddot_calls = 0;
    CHECK(mdvec_reset(env[k]) == MDVEC_OK);
    CHECK(k == 0 ? g_ddot_calls == 0 : g_ddot_calls >= 2); /* the goal's rejection sampling, per env */
    double a[4] = {0.5, -0.25, 1.0, 0.125};
    CHECK(mdvec_step(env[k], a) == MDVEC_OK);
    memcpy(obs[k], mdvec_obs_data(env[k]), sizeof obs[k]);
    memcpy(reward[k], mdvec_reward(env[k]), sizeof reward[k]);
    mdvec_destroy(env[k]);
  }
  CHECK(!memcmp(obs[0], obs[1], sizeof obs[0]) && !memcmp(reward[0], reward[1], sizeof reward[0]));
  CHECK(memcmp(reward[0], reward[2], sizeof reward[0]) != 0); /* the caller's ddot is the one used */
}

/* Actions at an address misaligned for their type are refused (UBSan flagged the loads), nothing stepped. */
static void test_unaligned_actions_refused(void) {
  char err[512];
  mdvec_t *h = NULL;
  CHECK(create(&h, NULL, 2, 1, MDVEC_AUTORESET_SAME_STEP, 1, NULL, 0, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  CHECK(mdvec_reset(h) == MDVEC_OK);
  static union {
    double d[2 * NU + 1];
    unsigned char b[(2 * NU + 1) * sizeof(double)];
  } buf;
  CHECK(mdvec_step_typed(h, buf.b + 1, MDVEC_DTYPE_F64) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "aligned"));
  CHECK(mdvec_step_typed(h, buf.b + 2, MDVEC_DTYPE_F32) == MDVEC_ERR_ARG);
  CHECK(mdvec_step_typed(h, buf.b + 4, MDVEC_DTYPE_F32) == MDVEC_OK && mdvec_step(h, buf.d) == MDVEC_OK);
  mdvec_destroy(h);
}

static void test_null_handle(void) {
  mdvec_spec_t spec = {.struct_size = sizeof spec};
  mdvec_field_t f = {.struct_size = sizeof f};
  CHECK(mdvec_spec(NULL, &spec) == MDVEC_ERR_ARG && mdvec_info_field(NULL, 0, &f) == MDVEC_ERR_ARG);
  CHECK(!mdvec_action_low(NULL) && !mdvec_action_high(NULL) && !mdvec_obs_data(NULL) && !mdvec_final_obs_data(NULL));
  CHECK(!mdvec_terminated(NULL) && !mdvec_truncated(NULL) && !mdvec_reset_flags(NULL) && !mdvec_reset_info(NULL));
  CHECK(mdvec_step_typed(NULL, NULL, MDVEC_DTYPE_F32) == MDVEC_ERR_ARG);
  CHECK(mdvec_get_state(NULL, 0, 0, NULL, 0) == MDVEC_ERR_ARG);
  CHECK(mdvec_version() == MDVEC_VERSION_NUMBER && MDVEC_VERSION_NUMBER >= 10200);
}

int main(void) {
  test_catalogue();
  test_task_and_option_errors();
  test_autoreset_modes();
  test_typed_steps();
  test_reset_mask_and_seeds();
  test_state();
  test_struct_sizes();
  test_dot_config();
  test_unaligned_actions_refused();
  test_null_handle();
  return check_summary("test_api_v11");
}
