/* The duck-balance task on one environment: options, reset, step, observation, reward (docs/duck_task.md sections 2-8).
 *
 * Every expression mirrors mdvec/reference/duck_env.py operation for operation: numpy's summation
 * order (mdv_np_sum), Python's float ** (mdv_py_pow), float32 widening of the scale table, and
 * left-to-right evaluation with no contraction (-ffp-contract=off), so results are bit-identical.
 */
#include "duck.h"
#include "options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "npmath.h"

static const double kTwoPi = 2 * 3.141592653589793; /* 2 * math.pi */

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  O_SUBSTEPS,
  O_EPISODE_LEN,
  O_ACTION_SCALE,
  O_N_PUSHES,
  O_PUSH_WINDOW,
  O_PUSH_SPEED,
  O_INIT_NOISE,
  O_LATENCY,
  O_SENSOR_NOISE,
  O_REWARD,
  O_DR,
  O_VARIANT,
  O_MODEL_PATH,
  O_COUNT
};

#define BIG 1e9 /* bound of counts of steps: far beyond any episode, inside int */
/* Bounds of the options that size per-env memory (docs/duck_task.md section 2): far beyond any use,
 * small enough that no option can make an env cost more than a few MB. */
#define LATENCY_MAX 10000  /* latency queue: LATENCY_MAX x nu doubles per env (1.1 MB for the duck) */
#define PUSHES_MAX  100000 /* push tables: 40 bytes per push per env (4 MB) */

static const mdv_option_decl kOptions[O_COUNT] = {
  [O_SUBSTEPS] = {"substeps", MDVEC_OPT_INT, "10", 1, 10000, NULL, "mj_step calls per env step"},
  [O_EPISODE_LEN] = {"episode_len", MDVEC_OPT_INT, "250", 1, BIG, NULL, "steps per episode (the truncation limit)"},
  [O_ACTION_SCALE] = {"action_scale", MDVEC_OPT_DOUBLE, "0.3", 0, 100, NULL,
                      "rad of servo target per unit action (> 0)"},
  [O_N_PUSHES] = {"n_pushes", MDVEC_OPT_INT, "3", 0, PUSHES_MAX, NULL,
                  "shoves per episode (at most the steps in push_window)"},
  [O_PUSH_WINDOW] = {"push_window", MDVEC_OPT_IRANGE, "25,225", 0, BIG, NULL,
                     "steps a shove may land on, [lo, hi), hi <= episode_len"},
  [O_PUSH_SPEED] = {"push_speed", MDVEC_OPT_RANGE, "0.3,0.9", 0, 1000, NULL, "shove speed range in m/s, [min, max]"},
  [O_INIT_NOISE] = {"init_noise", MDVEC_OPT_DOUBLE, "0", 0, 10, NULL,
                    "half-width of the uniform reset noise on actuated joints (rad, rad/s)"},
  [O_LATENCY] = {"latency", MDVEC_OPT_INT, "0", 0, LATENCY_MAX, NULL, "steps of action delay (< episode_len)"},
  [O_SENSOR_NOISE] = {"sensor_noise", MDVEC_OPT_BOOL, "false", 0, 1, NULL, "Gaussian observation noise"},
  [O_REWARD] = {"reward", MDVEC_OPT_CHOICE, "v2", 0, 0, "v1|v2", "reward version"},
  [O_DR] = {"dr", MDVEC_OPT_BOOL, "false", 0, 1, NULL, "domain randomisation per episode"},
  [O_VARIANT] = {"variant", MDVEC_OPT_STRING, "default", 0, 0, NULL,
                 "built-in model: default, backlash or backlash_lower (unused with model_path)"},
  [O_MODEL_PATH] = {"model_path", MDVEC_OPT_STRING, NULL, 0, 0, NULL, "MJCF file of an external duck model"},
};

/* Fill the v1 config fields with the defaults (the declared ones above, as numbers). */
extern const mdv_task mdv_task_duck; /* defined at the end of this file */

/* Fill the v1 fields from the option table's defaults (kOptions: the one declaration of them). */
static void duck_v1_defaults(mdvec_config_t *cfg) {
  mdv_value o[O_COUNT];
  memset(o, 0, sizeof o); /* mdv_options_resolve wants zeroed values */
  char err[256];
  if (mdv_options_resolve(&mdv_task_duck, NULL, NULL, NULL, 0, o, err, sizeof err) != MDVEC_OK)
    return;                               /* cannot: static */
  cfg->variant = kOptions[O_VARIANT].def; /* static text, unlike o[O_VARIANT].s */
  cfg->substeps = (int)o[O_SUBSTEPS].i[0];
  cfg->episode_len = (int)o[O_EPISODE_LEN].i[0];
  cfg->action_scale = o[O_ACTION_SCALE].d[0];
  cfg->n_pushes = (int)o[O_N_PUSHES].i[0];
  cfg->push_window[0] = (int)o[O_PUSH_WINDOW].i[0];
  cfg->push_window[1] = (int)o[O_PUSH_WINDOW].i[1];
  cfg->push_speed[0] = o[O_PUSH_SPEED].d[0];
  cfg->push_speed[1] = o[O_PUSH_SPEED].d[1];
  cfg->init_noise = o[O_INIT_NOISE].d[0];
  cfg->latency = (int)o[O_LATENCY].i[0];
  cfg->sensor_noise = (int)o[O_SENSOR_NOISE].i[0];
  cfg->reward = o[O_REWARD].i[0] == 0 ? MDVEC_REWARD_V1 : MDVEC_REWARD_V2; /* the word index in "v1|v2" */
  cfg->dr = (int)o[O_DR].i[0];
  mdv_options_free(&mdv_task_duck, o);
}

/* Write the v1 config fields over the option defaults. */
static int duck_v1_options(const mdvec_config_t *c, mdv_value *o, char *err, size_t n) {
  if (c->reward != MDVEC_REWARD_V1 && c->reward != MDVEC_REWARD_V2) {
    snprintf(err, n, "reward: unknown reward %d; choose MDVEC_REWARD_V1 or MDVEC_REWARD_V2", c->reward);
    return -1;
  }
  o[O_SUBSTEPS].i[0] = c->substeps;
  o[O_EPISODE_LEN].i[0] = c->episode_len;
  o[O_ACTION_SCALE].d[0] = c->action_scale;
  o[O_N_PUSHES].i[0] = c->n_pushes;
  o[O_PUSH_WINDOW].i[0] = c->push_window[0];
  o[O_PUSH_WINDOW].i[1] = c->push_window[1];
  o[O_PUSH_SPEED].d[0] = c->push_speed[0];
  o[O_PUSH_SPEED].d[1] = c->push_speed[1];
  o[O_INIT_NOISE].d[0] = c->init_noise;
  o[O_LATENCY].i[0] = c->latency;
  o[O_SENSOR_NOISE].i[0] = c->sensor_noise != 0;
  o[O_REWARD].i[0] = c->reward == MDVEC_REWARD_V1 ? 0 : 1;
  o[O_REWARD].s = c->reward == MDVEC_REWARD_V1 ? "v1" : "v2";
  o[O_DR].i[0] = c->dr != 0;
  o[O_VARIANT].s = c->variant;
  o[O_MODEL_PATH].s = c->model_path;
  return 0;
}

/*---------------------------------- Constants (values in duck_model.c) ---------------------------*/

static const mdv_constant kConstants[] = {
  {"obs_scale", 5, mdv_duck_obs_scale,
   "observation scale per block (float32 when applied): gyro(3), gravity(3), joint pos(nu), joint vel(nu), action(nu)"},
  {"noise_std", 4, mdv_duck_noise_std, "sensor-noise std per block: gyro(3), gravity(3), joint pos(nu), joint vel(nu)"},
  {"reward_v1", 6, mdv_duck_reward_v1,
   "reward v1: weights of up, height, pose, rate (subtracted); height width, pose width"},
  {"reward_v2", 6, mdv_duck_reward_v2,
   "reward v2: weight of the four terms, of rate and of effort (subtracted); height, pose, still widths"},
  {"fall_div", 1, &mdv_duck_fall_div, "fallen when the trunk height is below h_home / fall_div"},
  {"dr_ranges", 10, mdv_duck_dr_ranges,
   "domain randomisation draws in order, (lo, hi) pairs: mass scale, floor friction, latency (integers, hi "
   "exclusive), init noise, noise scale"},
};
/*---------------------------------- Info fields ---------------------------------------------------*/

#define STEP_F64(name)  {name, MDVEC_DTYPE_F64, MDVEC_INFO_STEP}
#define STEP_BOOL(name) {name, MDVEC_DTYPE_BOOL, MDVEC_INFO_STEP}
static const mdv_field kInfo[2][MDV_DUCK_INFO_MAX] = {
  {{"t", MDVEC_DTYPE_I64, MDVEC_INFO_STEP},
   STEP_BOOL("pushed"),
   STEP_BOOL("fallen"),
   STEP_F64("trunk_height"),
   STEP_F64("upright_cos"),
   STEP_BOOL("truncated"),
   STEP_BOOL("terminated"),
   STEP_F64("r_up"),
   STEP_F64("r_height"),
   STEP_F64("r_pose"),
   STEP_F64("r_rate")},
  {{"t", MDVEC_DTYPE_I64, MDVEC_INFO_STEP},
   STEP_BOOL("pushed"),
   STEP_BOOL("fallen"),
   STEP_F64("trunk_height"),
   STEP_F64("upright_cos"),
   STEP_BOOL("truncated"),
   STEP_BOOL("terminated"),
   STEP_F64("r_up"),
   STEP_F64("r_height"),
   STEP_F64("r_pose"),
   STEP_F64("r_still"),
   STEP_F64("r_rate"),
   STEP_F64("r_effort")},
};
#undef STEP_F64
#undef STEP_BOOL

/*---------------------------------- Shared part ---------------------------------------------------*/

static void duck_destroy(void *shared) {
  mdv_duck_shared *sh = shared;
  if (!sh) return;
  mdv_duck_model_free(&sh->tm);
  free(sh->act_low);
  free(sh->act_high);
  free(sh->scale);
  free(sh->std);
  free(sh);
}

/* Check the options together; return 0 or -1 with a message naming the option. */
static int check_options(const mdv_duck_cfg *c, char *err, size_t n) {
#define BAD(...)                   \
  do {                             \
    snprintf(err, n, __VA_ARGS__); \
    return -1;                     \
  } while (0)
  if (!(c->action_scale > 0)) BAD("action_scale: must be > 0, got %.17g", c->action_scale);
  int lo = c->push_window[0], hi = c->push_window[1];
  if (hi > c->episode_len || hi - lo < c->n_pushes)
    BAD("push_window: [%d, %d) must lie inside [0, episode_len=%d] and hold n_pushes=%d distinct steps", lo, hi,
        c->episode_len, c->n_pushes);
  if (c->latency >= c->episode_len) BAD("latency: %d must be below episode_len=%d", c->latency, c->episode_len);
#undef BAD
  return 0;
}

static int duck_create(void **out, const mdv_value *o, const mdv_dot *dot, mdv_spec *spec, char *err, size_t n) {
  (void)dot; /* the duck computes no numpy dot */
  *out = NULL;
  mdv_duck_cfg c = {
    .substeps = (int)o[O_SUBSTEPS].i[0],
    .episode_len = (int)o[O_EPISODE_LEN].i[0],
    .action_scale = o[O_ACTION_SCALE].d[0],
    .n_pushes = (int)o[O_N_PUSHES].i[0],
    .push_window = {(int)o[O_PUSH_WINDOW].i[0], (int)o[O_PUSH_WINDOW].i[1]},
    .push_speed = {o[O_PUSH_SPEED].d[0], o[O_PUSH_SPEED].d[1]},
    .init_noise = o[O_INIT_NOISE].d[0],
    .latency = (int)o[O_LATENCY].i[0],
    .sensor_noise = (int)o[O_SENSOR_NOISE].i[0],
    .reward = o[O_REWARD].i[0] == 0 ? MDVEC_REWARD_V1 : MDVEC_REWARD_V2,
    .dr = (int)o[O_DR].i[0],
  };
  if (check_options(&c, err, n)) return MDVEC_ERR_CONFIG;
  const char *variant = o[O_VARIANT].s, *path = o[O_MODEL_PATH].s;
  if (!path && !variant) {
    snprintf(err, n, "variant: NULL; give a built-in variant or a model_path");
    return MDVEC_ERR_CONFIG;
  }
  mdv_duck_shared *sh = calloc(1, sizeof *sh);
  if (!sh) {
    snprintf(err, n, "out of memory");
    return MDVEC_ERR_NOMEM;
  }
  sh->cfg = c;
  int code = mdv_duck_model_load(&sh->tm, variant, path, err, n);
  if (code != MDVEC_OK) {
    duck_destroy(sh);
    return code;
  }
  if ((code = mdv_model_check_timestep(sh->tm.m, c.substeps, "substeps", "duck", path, err, n)) != MDVEC_OK) {
    duck_destroy(sh);
    return code;
  }
  int nu = sh->tm.nu, obs_dim = 6 + 3 * nu;
  sh->queue_cap = c.latency > MDV_DUCK_DR_LATENCY_MAX ? c.latency : MDV_DUCK_DR_LATENCY_MAX;
  sh->act_low = malloc(sizeof(double) * (size_t)nu);
  sh->act_high = malloc(sizeof(double) * (size_t)nu);
  sh->scale = malloc(sizeof(float) * (size_t)obs_dim);
  sh->std = malloc(sizeof(double) * (size_t)(6 + 2 * nu));
  if (!sh->act_low || !sh->act_high || !sh->scale || !sh->std) {
    duck_destroy(sh);
    snprintf(err, n, "out of memory");
    return MDVEC_ERR_NOMEM;
  }
  for (int i = 0; i < nu; i++) {
    sh->act_low[i] = -1.0;
    sh->act_high[i] = 1.0;
  }
  for (int j = 0; j < obs_dim; j++) { /* blocks: gyro(3), gravity(3), joint pos, joint vel, action */
    int block = j < 3 ? 0 : j < 6 ? 1 : 2 + (j - 6) / nu;
    sh->scale[j] = (float)mdv_duck_obs_scale[block];
    if (j < 6 + 2 * nu) sh->std[j] = mdv_duck_noise_std[block];
  }
  spec->obs_dim = obs_dim;
  spec->obs_dtype = MDVEC_DTYPE_F32;
  spec->act_dim = nu;
  spec->act_low = sh->act_low;
  spec->act_high = sh->act_high;
  spec->n_info = c.reward == MDVEC_REWARD_V1 ? 11 : 13;
  spec->info = kInfo[c.reward == MDVEC_REWARD_V1 ? 0 : 1];
  spec->max_episode_steps = c.episode_len;
  spec->nq = sh->tm.m->nq;
  spec->nv = sh->tm.m->nv;
  spec->nbody = sh->tm.nbody;
  spec->env_size = sizeof(mdv_duck);
  spec->model_path = path;
  spec->dt = sh->tm.m->opt.timestep * c.substeps;
  *out = sh;
  return MDVEC_OK;
}

static void duck_v1_dims(const void *shared, mdvec_dims_t *dims) {
  const mdv_duck_shared *sh = shared;
  dims->n_pushes = sh->cfg.n_pushes;
  dims->max_latency = sh->queue_cap;
}

/*---------------------------------- Lifecycle -----------------------------------------------------*/

static void duck_env_free(void *env) {
  mdv_duck *e = env;
  if (e->d) mj_deleteData(e->d);
  if (e->m) mj_deleteModel(e->m);
  free(e->push_steps);
  free(e->push_vel);
  free(e->push_sort);
  free(e->dr.mass_scale);
  free(e->qpos);
  free(e->qvel);
  free(e->queue);
  free(e->prev_action);
  free(e->action);
  free(e->raw);
  free(e->scratch);
  memset(e, 0, sizeof *e);
}

static int duck_env_init(void *env, const void *shared, char *err, size_t n) {
  mdv_duck *e = env;
  const mdv_duck_shared *sh = shared;
  size_t nu = (size_t)sh->tm.nu, np = (size_t)sh->cfg.n_pushes;
  e->sh = sh;
  int code;
  if (!(e->m = mdv_model_copy(sh->tm.m, &code, err, n)) || !(e->d = mdv_data_make(e->m, &code, err, n))) {
    duck_env_free(e);
    return -1;
  }
  e->push_steps = calloc(np > 0 ? np : 1, sizeof(int64_t));
  e->push_vel = calloc(np > 0 ? 2 * np : 1, sizeof(double));
  e->push_sort = calloc(np > 0 ? np : 1, sizeof *e->push_sort);
  e->dr.mass_scale = calloc((size_t)sh->tm.nbody, sizeof(double));
  e->qpos = calloc(nu, sizeof(double));
  e->qvel = calloc(nu, sizeof(double));
  e->queue = calloc((size_t)sh->queue_cap * nu, sizeof(double));
  e->prev_action = calloc(nu, sizeof(double));
  e->action = calloc(nu, sizeof(double));
  e->raw = calloc(6 + 3 * nu, sizeof(double));
  e->scratch = calloc(6 + 2 * nu, sizeof(double));
  if (!e->push_steps || !e->push_vel || !e->push_sort || !e->dr.mass_scale || !e->qpos || !e->qvel || !e->queue ||
      !e->prev_action || !e->action || !e->raw || !e->scratch) {
    duck_env_free(e);
    snprintf(err, n, "out of memory");
    return -1;
  }
  return 0;
}

static void duck_physics(void *env, const mjModel **m, mjData **d) {
  mdv_duck *e = env;
  *m = e->m;
  *d = e->d;
}

/*---------------------------------- Observation and reward ---------------------------------------*/

/* Build the observation of the current state with clipped action a (docs/duck_task.md section 5.5). */
static void observe(mdv_duck *e, const double *a, mdv_pcg64 *rng, float *obs) {
  const mdv_duck_shared *sh = e->sh;
  const mdv_duck_model *tm = &sh->tm;
  const mjData *d = e->d;
  int nu = tm->nu, n_noisy = 6 + 2 * nu;
  double *raw = e->raw;
  for (int j = 0; j < 3; j++) raw[j] = d->sensordata[tm->gyro_adr + j];
  for (int j = 0; j < 3; j++) raw[3 + j] = -d->xmat[9 * tm->trunk + 6 + j];
  for (int i = 0; i < nu; i++) raw[6 + i] = d->qpos[tm->qadr[i]] - tm->q_home[i];
  for (int i = 0; i < nu; i++) raw[6 + nu + i] = d->qvel[tm->dadr[i]];
  for (int i = 0; i < nu; i++) raw[6 + 2 * nu + i] = a[i];
  if (sh->cfg.sensor_noise) {
    double *normal = e->scratch; /* numpy draws the whole vector first, then combines */
    for (int j = 0; j < n_noisy; j++) normal[j] = mdv_pcg64_standard_normal(rng);
    for (int j = 0; j < n_noisy; j++) raw[j] += e->noise_scale * sh->std[j] * normal[j];
  }
  for (int j = 0; j < 6 + 3 * nu; j++) obs[j] = (float)(raw[j] * (double)sh->scale[j]);
}

/* Compute the reward and write the reward terms into info[7*stride...] (docs/duck_task.md sections 5.6-5.7). */
static double reward(mdv_duck *e, const double *a, double h, double up, int fallen, double *info, size_t stride) {
  const mdv_duck_model *tm = &e->sh->tm;
  const mjData *d = e->d;
  int nu = tm->nu;
  double *tmp = e->scratch, h_home = tm->h_home;
  for (int i = 0; i < nu; i++) tmp[i] = mdv_np_square(a[i] - e->prev_action[i]);
  double r_rate = mdv_np_sum(tmp, nu);
  if (e->sh->cfg.reward == MDVEC_REWARD_V1) {
    const double *w = mdv_duck_reward_v1;
    double r_up = up;
    double r_height = exp(-mdv_py_pow((h - h_home) / w[4], 2.0));
    for (int i = 0; i < nu; i++) tmp[i] = mdv_np_square(d->qpos[tm->qadr[i]] - tm->q_home[i]);
    double r_pose = exp(-mdv_np_mean(tmp, nu) / w[5]);
    double terms[4] = {r_up, r_height, r_pose, r_rate};
    for (int k = 0; k < 4; k++) info[(7 + k) * stride] = terms[k];
    return w[0] * r_up + w[1] * r_height + w[2] * r_pose - w[3] * r_rate;
  }
  const double *w = mdv_duck_reward_v2;
  double r_up = 0.0 > up ? 0.0 : up; /* Python's max(up, 0.0) */
  double r_height = exp(-fabs(h - h_home) / w[3]);
  for (int i = 0; i < nu; i++) tmp[i] = fabs(d->qpos[tm->qadr[i]] - tm->q_home[i]);
  double r_pose = exp(-mdv_np_mean(tmp, nu) / w[4]);
  double gyro2[3];
  for (int j = 0; j < 3; j++) gyro2[j] = mdv_np_square(d->sensordata[tm->gyro_adr + j]);
  double r_still = exp(-mdv_np_sum(gyro2, 3) / w[5]);
  for (int i = 0; i < nu; i++) tmp[i] = fabs(d->actuator_force[i]);
  double r_effort = mdv_np_mean(tmp, nu);
  double terms[6] = {r_up, r_height, r_pose, r_still, r_rate, r_effort};
  for (int k = 0; k < 6; k++) info[(7 + k) * stride] = terms[k];
  double r = w[0] * (r_up + r_height + r_pose + r_still) - w[1] * r_rate - w[2] * r_effort;
  return fallen ? 0.0 : r;
}

/*---------------------------------- Reset ---------------------------------------------------------*/

/* Start the episode whose parameters are in the env's fields (docs/duck_task.md section 4, steps 2-6). */
static void start(mdv_duck *e, mdv_pcg64 *rng, const mdv_out *out) {
  const mdv_duck_shared *sh = e->sh;
  const mdv_duck_model *tm = &sh->tm;
  mjModel *m = e->m;
  mjData *d = e->d;
  if (sh->cfg.dr) {
    mdv_duck_dr_restore(m, tm->m);
    mdv_duck_dr_apply(m, tm, &e->dr);
  }
  mj_resetDataKeyframe(m, d, tm->home);
  mj_forward(m, d);
  if (e->init_noise > 0) {
    for (int i = 0; i < tm->nu; i++) {
      d->qpos[tm->qadr[i]] = e->qpos[i];
      d->qvel[tm->dadr[i]] = e->qvel[i];
    }
    mj_forward(m, d);
  }
  e->t = 0;
  e->push_next = 0;
  e->stage1_ready = 0;
  e->queue_head = 0;
  memset(e->prev_action, 0, sizeof(double) * (size_t)tm->nu);
  memset(e->queue, 0, sizeof(double) * (size_t)sh->queue_cap * (size_t)tm->nu);
  memset(e->action, 0, sizeof(double) * (size_t)tm->nu);
  observe(e, e->action, rng, out->obs); /* the duck has no reset info */
}

/* Ascending int64. */
static int cmp_int64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Ascending step, then ascending index: a stable order of the pushes. */
static int cmp_push(const void *a, const void *b) {
  const mdv_duck_push *x = a, *y = b;
  if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
  return (x->k > y->k) - (x->k < y->k);
}

/* Draw an episode's parameters (docs/duck_task.md section 4, step 1), then start it. */
static void duck_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mdv_duck *e = env;
  const mdv_duck_model *tm = &e->sh->tm;
  const mdv_duck_cfg *cfg = &e->sh->cfg;
  int nu = tm->nu, np = cfg->n_pushes;
  e->latency = cfg->latency;
  e->init_noise = cfg->init_noise;
  e->noise_scale = 1.0;
  if (cfg->dr) mdv_duck_dr_draw(rng, tm, &e->dr, &e->latency, &e->init_noise, &e->noise_scale);
  memcpy(e->qpos, tm->q_home, sizeof(double) * (size_t)nu);
  memset(e->qvel, 0, sizeof(double) * (size_t)nu);
  if (e->init_noise > 0) {
    double n = e->init_noise;
    for (int i = 0; i < nu; i++) e->qpos[i] = mdv_pcg64_uniform(rng, -n, n);
    for (int i = 0; i < nu; i++) e->qvel[i] = mdv_pcg64_uniform(rng, -n, n);
    for (int i = 0; i < nu; i++) {
      e->qpos[i] = mdv_np_clip_arr(tm->q_home[i] + e->qpos[i], tm->range_lo[i], tm->range_hi[i]);
    }
  }
  int lo = cfg->push_window[0], hi = cfg->push_window[1];
  if (mdv_pcg64_choice(rng, hi - lo, np, e->push_steps) != 0) /* its scratch: (hi - lo) x 8 bytes */
    mju_error("duck reset: could not allocate the scratch to draw %d push steps from %d", np, hi - lo); /* trapped */
  for (int k = 0; k < np; k++) e->push_steps[k] += lo;
  qsort(e->push_steps, (size_t)np, sizeof *e->push_steps, cmp_int64); /* np.sort (distinct values) */
  double *vel = e->push_vel; /* speeds, then angles, are drawn as two arrays, as numpy does */
  for (int k = 0; k < np; k++) vel[2 * k] = mdv_pcg64_uniform(rng, cfg->push_speed[0], cfg->push_speed[1]);
  for (int k = 0; k < np; k++) vel[2 * k + 1] = mdv_pcg64_uniform(rng, 0.0, kTwoPi);
  for (int k = 0; k < np; k++) {
    double speed = vel[2 * k], theta = vel[2 * k + 1];
    vel[2 * k] = speed * cos(theta);
    vel[2 * k + 1] = speed * sin(theta);
  }
  start(e, rng, out);
}

static int duck_check_params(const void *env, const mdvec_params_t *p, char *err, size_t err_size) {
  const mdv_duck *e = env;
  const mdv_duck_model *tm = &e->sh->tm;
  const mdv_duck_cfg *cfg = &e->sh->cfg;
  int nu = tm->nu;
#define FAIL(...)                         \
  do {                                    \
    snprintf(err, err_size, __VA_ARGS__); \
    return -1;                            \
  } while (0)
#define FINITE_ARRAY(name, ptr, n)                                              \
  do {                                                                          \
    if (!(ptr)) FAIL("params.%s: NULL", name);                                  \
    for (int k_ = 0; k_ < (n); k_++)                                            \
      if (!isfinite((ptr)[k_])) FAIL("params.%s: values must be finite", name); \
  } while (0)
  if (!isfinite(p->init_noise) || p->init_noise < 0) FAIL("params.init_noise: must be finite and >= 0");
  if (!isfinite(p->noise_scale) || p->noise_scale < 0) FAIL("params.noise_scale: must be finite and >= 0");
  FINITE_ARRAY("qpos", p->qpos, nu);
  FINITE_ARRAY("qvel", p->qvel, nu);
  if (p->n_pushes != cfg->n_pushes) FAIL("params.push_steps: expected %d pushes, got %d", cfg->n_pushes, p->n_pushes);
  if (cfg->n_pushes > 0) {
    if (!p->push_steps) FAIL("params.push_steps: NULL");
    for (int k = 0; k < p->n_pushes; k++) {
      if (p->push_steps[k] < 0 || p->push_steps[k] >= cfg->episode_len)
        FAIL("params.push_steps: steps must lie in [0, %d)", cfg->episode_len);
    }
    FINITE_ARRAY("push_vel", p->push_vel, 2 * p->n_pushes);
  }
  if (p->latency < 0 || p->latency > e->sh->queue_cap)
    FAIL("params.latency: must be in [0, %d], got %d", e->sh->queue_cap, p->latency);
  if (cfg->dr) {
    static const char *const kServo[5] = {"kp", "damping", "armature", "frictionloss", "forcerange"};
    if (!p->has_dr) FAIL("params.dr: this env randomises its model; factors are required");
    FINITE_ARRAY("dr.servo", p->servo, 5);
    for (int k = 0; k < 5; k++) { /* physical: no negative gain, damping, inertia, friction or force */
      if (p->servo[k] < 0) FAIL("params.dr.servo[%d] (%s): must be >= 0, got %.17g", k, kServo[k], p->servo[k]);
    }
    FINITE_ARRAY("dr.mass_scale", p->mass_scale, tm->nbody - 1);
    for (int b = 0; b < tm->nbody - 1; b++) {
      if (!(p->mass_scale[b] > 0)) FAIL("params.dr.mass_scale[%d]: must be > 0, got %.17g", b, p->mass_scale[b]);
    }
    if (!isfinite(p->floor_friction) || p->floor_friction < 0)
      FAIL("params.dr.floor_friction: must be finite and >= 0");
  }
#undef FINITE_ARRAY
#undef FAIL
  return 0;
}

static void duck_reset_with_params(void *env, const mdvec_params_t *p, mdv_pcg64 *rng, const mdv_out *out) {
  mdv_duck *e = env;
  int nu = e->sh->tm.nu;
  e->init_noise = p->init_noise;
  e->noise_scale = p->noise_scale;
  e->latency = p->latency;
  memcpy(e->qpos, p->qpos, sizeof(double) * (size_t)nu);
  memcpy(e->qvel, p->qvel, sizeof(double) * (size_t)nu);
  /* stored by step (stable: the reference adds same-step shoves in index order), so a step finds its
   * shoves with a cursor instead of a pass over all of them */
  for (int k = 0; k < p->n_pushes; k++) e->push_sort[k] = (mdv_duck_push){p->push_steps[k], k};
  qsort(e->push_sort, (size_t)p->n_pushes, sizeof *e->push_sort, cmp_push);
  for (int j = 0; j < p->n_pushes; j++) {
    int k = e->push_sort[j].k;
    e->push_steps[j] = p->push_steps[k];
    e->push_vel[2 * j] = p->push_vel[2 * k];
    e->push_vel[2 * j + 1] = p->push_vel[2 * k + 1];
  }
  if (e->sh->cfg.dr) {
    memcpy(e->dr.servo, p->servo, sizeof e->dr.servo);
    memcpy(e->dr.mass_scale, p->mass_scale, sizeof(double) * (size_t)(e->sh->tm.nbody - 1));
    e->dr.floor_friction = p->floor_friction;
  }
  start(e, rng, out);
}

/*---------------------------------- Step ----------------------------------------------------------*/

static void duck_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)action_dtype; /* the duck computes in float64 whatever the caller's dtype */
  mdv_duck *e = env;
  const mdv_duck_model *tm = &e->sh->tm;
  const mdv_duck_cfg *cfg = &e->sh->cfg;
  mjModel *m = e->m;
  mjData *d = e->d;
  int nu = tm->nu;
  size_t stride = out->stride;
  double *a = e->action;
  for (int i = 0; i < nu; i++) a[i] = mdv_np_clip(action[i], -1.0, 1.0);
  const double *applied = a;
  if (e->latency > 0) { /* a ring of the last L actions: apply the oldest, store the newest */
    double *slot = e->queue + (size_t)e->queue_head * nu;
    memcpy(e->scratch, slot, sizeof(double) * (size_t)nu);
    memcpy(slot, a, sizeof(double) * (size_t)nu);
    e->queue_head = (e->queue_head + 1) % e->latency;
    applied = e->scratch;
  }
  for (int i = 0; i < nu; i++) d->ctrl[i] = tm->ctrl_home[i] + cfg->action_scale * applied[i];
  int pushed = 0, np = cfg->n_pushes; /* push_steps ascend: the shoves of step t are at the cursor */
  while (e->push_next < np && e->push_steps[e->push_next] < e->t) e->push_next++;
  for (; e->push_next < np && e->push_steps[e->push_next] == e->t; e->push_next++) {
    int k = e->push_next;
    d->qvel[tm->free_dof] += e->push_vel[2 * k];
    d->qvel[tm->free_dof + 1] += e->push_vel[2 * k + 1];
    pushed = 1;
  }
  /* The reference runs substeps x mj_step, then mj_forward for the observation. That final pass
   * feeds nothing forward (MuJoCo keeps no warm start from it), so only the stages the observation
   * reads are computed here: mj_step1 (positions, velocities, their sensors) and the actuation.
   * mj_step1 + mj_step2 is mj_step, so the next step's first substep finishes with mj_step2 unless a
   * shove changed qvel since. The equality contract checks this against the reference. */
  int first = 0;
  if (e->stage1_ready && !pushed) {
    mj_step2(m, d);
    first = 1;
  }
  for (int s = first; s < cfg->substeps; s++) mj_step(m, d);
  mj_step1(m, d);
  mj_fwdActuation(m, d);
  e->stage1_ready = 1;
  e->t++;
  observe(e, a, rng, out->obs);
  double h = d->xpos[3 * tm->trunk + 2], up = d->xmat[9 * tm->trunk + 8];
  int fallen = h < tm->h_home / mdv_duck_fall_div;
  int truncated = e->t >= cfg->episode_len;
  double *info = out->info;
  info[0] = e->t;
  info[stride] = pushed;
  info[2 * stride] = fallen;
  info[3 * stride] = h;
  info[4 * stride] = up;
  info[5 * stride] = truncated;
  info[6 * stride] = 0.0;
  *out->reward = reward(e, a, h, up, fallen, info, stride);
  *out->terminated = 0;
  *out->truncated = (uint8_t)truncated;
  memcpy(e->prev_action, a, sizeof(double) * (size_t)nu);
}

/*---------------------------------- State in and out (1.4) ----------------------------------------*/

/* mdvec_set_state wrote the physics and ran mj_forward: the next step must not finish a mj_step1 of the
 * state it replaced (the reference runs whole mj_steps). The episode (t, shoves, latency queue, the last
 * action) goes on, as the reference's does when its data.qpos/qvel are written. */
static void duck_state_changed(void *env) {
  mdv_duck *e = env;
  e->stage1_ready = 0;
}

/* The episode's state, then how the env's model copy differs from the prototype (domain randomisation). */
static void duck_save(const void *env, mdv_blob *b) {
  const mdv_duck *e = env;
  const mdv_duck_shared *sh = e->sh;
  size_t nu = (size_t)sh->tm.nu, np = (size_t)sh->cfg.n_pushes, nb = (size_t)sh->tm.nbody;
  mdv_put_i64(b, e->t);
  mdv_put_i64(b, e->stage1_ready);
  mdv_put_i64(b, e->latency);
  mdv_put_i64(b, e->queue_head);
  mdv_put_i64(b, e->push_next);
  mdv_put_f64(b, e->init_noise);
  mdv_put_f64(b, e->noise_scale);
  mdv_put(b, e->push_steps, sizeof(int64_t) * np);
  mdv_put(b, e->push_vel, sizeof(double) * 2 * np);
  mdv_put(b, e->dr.servo, sizeof e->dr.servo);
  mdv_put(b, e->dr.mass_scale, sizeof(double) * nb);
  mdv_put_f64(b, e->dr.floor_friction);
  mdv_put(b, e->qpos, sizeof(double) * nu);
  mdv_put(b, e->qvel, sizeof(double) * nu);
  mdv_put(b, e->queue, sizeof(double) * (size_t)sh->queue_cap * nu);
  mdv_put(b, e->prev_action, sizeof(double) * nu);
  mdv_put(b, e->action, sizeof(double) * nu);
  mdv_model_diff_save(e->m, sh->tm.m, b);
}

/* Read n bytes into dst when applying, else skip them. */
static void duck_get(mdv_blob *b, void *dst, size_t n, int apply) {
  mdv_get(b, apply ? dst : NULL, n);
}

static void duck_load(void *env, mdv_blob *b, int apply) {
  mdv_duck *e = env;
  const mdv_duck_shared *sh = e->sh;
  size_t nu = (size_t)sh->tm.nu, np = (size_t)sh->cfg.n_pushes, nb = (size_t)sh->tm.nbody;
  int t = (int)mdv_get_range(b, 0, INT32_MAX, "the duck's step count");
  int stage1_ready = (int)mdv_get_range(b, 0, 1, "the duck's stage1_ready");
  int latency = (int)mdv_get_range(b, 0, sh->queue_cap, "the duck's latency");
  int queue_head = (int)mdv_get_range(b, 0, latency > 0 ? latency - 1 : 0, "the duck's latency queue head");
  int push_next = (int)mdv_get_range(b, 0, (int64_t)np, "the duck's next shove");
  double init_noise = mdv_get_f64(b), noise_scale = mdv_get_f64(b);
  if (b->bad) return;
  if (apply) {
    e->t = t;
    e->stage1_ready = stage1_ready;
    e->latency = latency;
    e->queue_head = queue_head;
    e->push_next = push_next;
    e->init_noise = init_noise;
    e->noise_scale = noise_scale;
  }
  duck_get(b, e->push_steps, sizeof(int64_t) * np, apply);
  duck_get(b, e->push_vel, sizeof(double) * 2 * np, apply);
  duck_get(b, e->dr.servo, sizeof e->dr.servo, apply);
  duck_get(b, e->dr.mass_scale, sizeof(double) * nb, apply);
  double floor_friction = mdv_get_f64(b);
  if (apply && !b->bad) e->dr.floor_friction = floor_friction;
  duck_get(b, e->qpos, sizeof(double) * nu, apply);
  duck_get(b, e->qvel, sizeof(double) * nu, apply);
  duck_get(b, e->queue, sizeof(double) * (size_t)sh->queue_cap * nu, apply);
  duck_get(b, e->prev_action, sizeof(double) * nu, apply);
  duck_get(b, e->action, sizeof(double) * nu, apply);
  mdv_model_diff_load(e->m, sh->tm.m, b, apply);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_duck = {
  .name = "duck",
  .summary = "Microduck balance: stand upright through random shoves (docs/duck_task.md)",
  .options = kOptions,
  .n_options = O_COUNT,
  .constants = kConstants,
  .n_constants = sizeof kConstants / sizeof kConstants[0],
  .create = duck_create,
  .destroy = duck_destroy,
  .env_init = duck_env_init,
  .env_free = duck_env_free,
  .reset = duck_reset,
  .step = duck_step,
  .physics = duck_physics,
  .check_params = duck_check_params,
  .reset_with_params = duck_reset_with_params,
  .v1_defaults = duck_v1_defaults,
  .v1_options = duck_v1_options,
  .v1_dims = duck_v1_dims,
  .gym_id = "mdvec/DuckBalance-v0",
  .reference = "mdvec.reference:DuckEnv",
  .reward_kind = MDVEC_KIND_FLOAT,
  .float_kind = MDVEC_KIND_FLOAT,
  .state_changed = duck_state_changed,
  .save = duck_save,
  .load = duck_load,
};
