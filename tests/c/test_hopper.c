/* test_hopper.c: the Gymnasium MuJoCo base (tasks/gym_mujoco.c) and the Hopper-v5 task.
 *
 * 1. numpy in the action's dtype: gm_sum_square against np.sum(np.square(a)) for float32 and
 *    float64 arrays of every length class of numpy's pairwise sum, gm_weak_mul against
 *    w * np.float32(x) (NEP 50) and w * np.float64(x) (tests/c/gym_fixtures.h, from numpy).
 * 2. Hopper-v5 through the task interface on Gymnasium's hopper.xml (its path from the environment
 *    variable MDVEC_GYM_ASSETS, set by meson when gymnasium is installed; skipped otherwise): the
 *    options and their refusals, the spec, the reset/step contract (TimeLimit, info fields,
 *    float32 cost only in reward and reward_ctrl), and one env giving the same bits as another.
 *    Bit equality with Gymnasium itself is tests/py/test_hopper.py's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gym_fixtures.h"
#include "options.h"
#include "tasks/gym_mujoco.h"

extern const mdv_task mdv_task_hopper_v5;

static float f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t bits32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void test_numpy_helpers(void) {
  int n_cases = (int)(sizeof gym_sum_cases / sizeof gym_sum_cases[0]);
  for (int c = 0; c < n_cases; c++) {
    int n = gym_sum_cases[c].n, off = gym_sum_cases[c].off;
    double *a32 = malloc(sizeof(double) * (size_t)n), *a64 = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
      a32[i] = (double)f32(gym_sum_in32[off + i]); /* float32 actions reach a task widened */
      a64[i] = dbl(gym_sum_in64[off + i]);
    }
    double s32 = gm_sum_square(a32, n, MDVEC_DTYPE_F32);
    CHECK_THAT(WHAT("sum_square f32 n=%d is a float32", n), (double)(float)s32 == s32);
    CHECK_U64(WHAT("sum_square f32 n=%d (case %d)", n, c), bits32((float)s32), gym_sum_cases[c].want32);
    CHECK_U64(WHAT("sum_square f64 n=%d (case %d)", n, c), bits(gm_sum_square(a64, n, MDVEC_DTYPE_F64)),
              gym_sum_cases[c].want64);
    free(a32);
    free(a64);
  }
  CHECK_U64("sum_square of nothing", bits(gm_sum_square(NULL, 0, MDVEC_DTYPE_F32)), bits(0.0));

  int n_mul = (int)(sizeof gym_mul_cases / sizeof gym_mul_cases[0]);
  for (int c = 0; c < n_mul; c++) {
    double w = dbl(gym_mul_cases[c].w), x = (double)f32(gym_mul_cases[c].x);
    double r32 = gm_weak_mul(w, x, MDVEC_DTYPE_F32);
    CHECK_U64(WHAT("weak_mul f32 %.17g * %.9g", w, x), bits32((float)r32), gym_mul_cases[c].want32);
    CHECK_U64(WHAT("weak_mul f32 %.17g * %.9g widened", w, x), bits(r32), bits((double)(float)r32));
    CHECK_U64(WHAT("weak_mul f64 %.17g * %.9g", w, x), bits(gm_weak_mul(w, x, MDVEC_DTYPE_F64)),
              gym_mul_cases[c].want64);
  }
}

/*---------------------------------- Hopper-v5 through the task interface --------------------------*/

enum { N_INFO = 6, MAX_OBS = 64 };

typedef struct { /* one configured task with one env */
  void *shared;
  mdv_spec spec;
  void *env;
  mdv_value values[32];
  mdv_pcg64 rng;
} one_env;

/* Configure Hopper-v5 with named options (name, value, ..., NULL); return the create code. */
static int open_env(one_env *o, char *err, size_t n, ...) {
  const mdv_task *t = &mdv_task_hopper_v5;
  mdvec_option_t given[16];
  int n_given = 0;
  va_list ap;
  va_start(ap, n);
  for (const char *name; (name = va_arg(ap, const char *)) && n_given < 16; n_given++) {
    given[n_given].name = name;
    given[n_given].value = va_arg(ap, const char *);
  }
  va_end(ap);
  memset(o, 0, sizeof *o);
  int rc = mdv_options_resolve(t, NULL, given, NULL, n_given, o->values, err, n);
  if (rc != MDVEC_OK) return rc;
  const mdv_dot plain = {.mode = MDVEC_DOT_PLAIN};
  rc = t->create(&o->shared, o->values, &plain, &o->spec, err, n);
  if (rc != MDVEC_OK) {
    mdv_options_free(t, o->values);
    return rc;
  }
  o->env = calloc(1, o->spec.env_size);
  if (!o->env || t->env_init(o->env, o->shared, err, n) != 0) return MDVEC_ERR_NOMEM;
  mdv_pcg64_seed(&o->rng, 0);
  return MDVEC_OK;
}

static void close_env(one_env *o) {
  const mdv_task *t = &mdv_task_hopper_v5;
  if (o->env) t->env_free(o->env);
  free(o->env);
  t->destroy(o->shared);
  mdv_options_free(t, o->values);
  memset(o, 0, sizeof *o);
}

typedef struct { /* one step's or reset's results */
  double obs[MAX_OBS], reward, info[N_INFO];
  uint8_t terminated, truncated;
} result;

static void do_reset(one_env *o, result *r) {
  memset(r, 0, sizeof *r);
  mdv_out out = {r->obs, NULL, NULL, NULL, r->info, 1};
  mdv_task_hopper_v5.reset(o->env, &o->rng, &out);
}

static void do_step(one_env *o, const double *a, int dtype, result *r) {
  memset(r, 0, sizeof *r);
  mdv_out out = {r->obs, &r->reward, &r->terminated, &r->truncated, r->info, 1};
  mdv_task_hopper_v5.step(o->env, a, dtype, &o->rng, &out);
}

static void test_hopper(const char *assets) {
  char path[4096], err[1024];
  snprintf(path, sizeof path, "%s/hopper.xml", assets);
  one_env a, b;

  /* The catalogue entry. */
  const mdv_task *t = &mdv_task_hopper_v5;
  CHECK(!strcmp(t->name, "Hopper-v5"));
  CHECK(t->n_options == 12);
  CHECK(!strcmp(t->options[GM_OPT_XML_FILE].def, "hopper.xml"));

  /* Refusals: a bare name (Gymnasium's assets folder is unknown to C), a missing file, bad values. */
  CHECK(open_env(&a, err, sizeof err, NULL) == MDVEC_ERR_CONFIG);
  CHECK_THAT(WHAT("bare name message: %s", err), strstr(err, "xml_file") && strstr(err, "path"));
  close_env(&a);
  CHECK(open_env(&a, err, sizeof err, "xml_file", "/no/such/hopper.xml", NULL) == MDVEC_ERR_MODEL);
  CHECK_THAT(WHAT("missing file message: %s", err), strstr(err, "/no/such/hopper.xml") != NULL);
  close_env(&a);
  const char *bad[][2] = {{"reset_noise_scale", "-0.1"},        {"frame_skip", "0"},
                          {"max_episode_steps", "-1"},          {"healthy_z_range", "1,0.5"},
                          {"healthy_angle_range", "nan,1"},     {"ctrl_cost_weight", "nan"},
                          {"terminate_when_unhealthy", "maybe"}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    int rc = open_env(&a, err, sizeof err, "xml_file", path, bad[k][0], bad[k][1], NULL);
    CHECK_THAT(WHAT("%s=%s refused", bad[k][0], bad[k][1]), rc == MDVEC_ERR_CONFIG && strstr(err, bad[k][0]));
    close_env(&a);
  }

  /* The spec. */
  if (open_env(&a, err, sizeof err, "xml_file", path, "max_episode_steps", "7", NULL) != MDVEC_OK) {
    fprintf(stderr, "cannot open Hopper-v5: %s\n", err);
    CHECK_THAT("open Hopper-v5", 0);
    return;
  }
  CHECK(a.spec.obs_dim == 11 && a.spec.act_dim == 3 && a.spec.nq == 6 && a.spec.nv == 6);
  CHECK(a.spec.obs_dtype == MDVEC_DTYPE_F64 && a.spec.max_episode_steps == 7 && a.spec.n_info == N_INFO);
  CHECK(a.spec.act_low[0] == -1.0 && a.spec.act_high[2] == 1.0);
  CHECK(!strcmp(a.spec.model_path, path));
  CHECK(!strcmp(a.spec.info[4].name, "reward_ctrl") && a.spec.info[4].dtype == MDVEC_DTYPE_ACTION);
  CHECK(a.spec.info[0].when == (MDVEC_INFO_STEP | MDVEC_INFO_RESET) && a.spec.info[2].when == MDVEC_INFO_STEP);

  /* Reset: init_qpos (0, 1.25, 0...) plus noise within 0.005; obs = qpos[1:], qvel. */
  result r, s;
  do_reset(&a, &r);
  CHECK(fabs(r.obs[0] - 1.25) <= 0.005 && fabs(r.obs[5]) <= 0.005);
  CHECK(fabs(r.info[0]) <= 0.005 && fabs(r.info[1] - (r.obs[0] - 1.25)) == 0.0);

  /* TimeLimit: truncated exactly on the 7th step after a reset, and again after the next reset. */
  double zero[3] = {0.0, 0.0, 0.0};
  for (int round = 0; round < 2; round++) {
    for (int k = 1; k <= 7; k++) {
      do_step(&a, zero, MDVEC_DTYPE_F64, &r);
      CHECK_THAT(WHAT("round %d step %d truncated", round, k), r.truncated == (k == 7));
      CHECK_THAT(WHAT("round %d step %d healthy standing", round, k), !r.terminated && r.info[5] == 1.0);
      CHECK_U64(WHAT("zero action: no ctrl cost (step %d)", k), bits(r.info[4]), bits(-0.0));
    }
    do_reset(&a, &r);
  }

  /* Same seed, same actions: the same bits; float32 actions change only reward and reward_ctrl. */
  CHECK(open_env(&b, err, sizeof err, "xml_file", path, "max_episode_steps", "7", NULL) == MDVEC_OK);
  mdv_pcg64_seed(&a.rng, 99);
  mdv_pcg64_seed(&b.rng, 99);
  do_reset(&a, &r);
  do_reset(&b, &s);
  CHECK(!memcmp(&r, &s, sizeof r));
  double act[3] = {(double)0.1f, (double)-0.3f, (double)0.7f};
  for (int k = 0; k < 5; k++) {
    do_step(&a, act, MDVEC_DTYPE_F32, &r);
    do_step(&b, act, MDVEC_DTYPE_F64, &s);
    CHECK_THAT(WHAT("step %d: obs equal across action dtypes", k), !memcmp(r.obs, s.obs, sizeof r.obs));
    float c32 = (float)((float)0.001 * ((0.1f * 0.1f + -0.3f * -0.3f) + 0.7f * 0.7f));
    CHECK_U64(WHAT("step %d: float32 reward_ctrl", k), bits(r.info[4]), bits(-(double)c32));
    CHECK_THAT(WHAT("step %d: float64 reward_ctrl differs", k), r.info[4] != s.info[4]);
    CHECK_U64(WHAT("step %d: reward = forward + survive - cost", k), bits(r.reward),
              bits((r.info[3] + r.info[5]) + r.info[4]));
  }
  close_env(&b);
  close_env(&a);

  /* exclude_current_positions_from_observation=false: obs = qpos, qvel (12). */
  CHECK(open_env(&a, err, sizeof err, "xml_file", path, "exclude_current_positions_from_observation", "false", NULL) ==
        MDVEC_OK);
  CHECK(a.spec.obs_dim == 12);
  do_reset(&a, &r);
  CHECK_U64("obs[0] is x_position", bits(r.obs[0]), bits(r.info[0]));
  close_env(&a);
}

int main(void) {
  test_numpy_helpers();
  const char *assets = getenv("MDVEC_GYM_ASSETS");
  if (assets && *assets) {
    test_hopper(assets);
  } else {
    printf(
      "hopper: Gymnasium's assets not given (MDVEC_GYM_ASSETS unset: gymnasium not installed); "
      "Hopper-v5 checks skipped\n");
  }
  return check_summary("hopper");
}
