/* The duck-balance task on one environment: reset, step, observation, reward (ENV_SPEC 4-8).
 *
 * Every expression mirrors mdvec/reference/duck_env.py operation for operation: numpy's summation
 * order (mdv_np_sum), Python's float ** (mdv_py_pow), float32 widening of the scale table, and
 * left-to-right evaluation with no contraction (-ffp-contract=off), so results are bit-identical.
 */
#include "duck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npmath.h"

static const double kTwoPi = 2 * 3.141592653589793;  /* 2 * math.pi */

static const char *const kInfoNames[2][MDV_INFO_MAX] = {
  {"t", "pushed", "fallen", "trunk_height", "upright_cos", "truncated", "terminated",
   "r_up", "r_height", "r_pose", "r_rate"},
  {"t", "pushed", "fallen", "trunk_height", "upright_cos", "truncated", "terminated",
   "r_up", "r_height", "r_pose", "r_still", "r_rate", "r_effort"},
};

int mdv_duck_info_count(int reward) { return reward == MDVEC_REWARD_V1 ? 11 : 13; }

const char *mdv_duck_info_name(int reward, int k) {
  if (k < 0 || k >= mdv_duck_info_count(reward)) return NULL;
  return kInfoNames[reward == MDVEC_REWARD_V1 ? 0 : 1][k];
}

/*---------------------------------- Lifecycle -----------------------------------------------------*/

int mdv_duck_init(mdv_duck *e, const mdv_task_model *tm, const mdvec_config_t *cfg, uint64_t seed) {
  memset(e, 0, sizeof *e);
  int nu = tm->nu, np = cfg->n_pushes;
  e->tm = tm;
  e->cfg = cfg;
  e->queue_cap = cfg->latency > 2 ? cfg->latency : 2;
  e->m = mj_copyModel(NULL, tm->m);
  e->d = e->m ? mj_makeData(e->m) : NULL;
  e->push_steps = calloc((size_t)(np > 0 ? np : 1), sizeof(int64_t));
  e->push_vel = calloc((size_t)(np > 0 ? 2 * np : 1), sizeof(double));
  e->dr.mass_scale = calloc((size_t)tm->nbody, sizeof(double));
  e->qpos = calloc((size_t)nu, sizeof(double));
  e->qvel = calloc((size_t)nu, sizeof(double));
  e->queue = calloc((size_t)(e->queue_cap * nu), sizeof(double));
  e->prev_action = calloc((size_t)nu, sizeof(double));
  e->action = calloc((size_t)nu, sizeof(double));
  e->raw = calloc((size_t)(6 + 3 * nu), sizeof(double));
  e->scratch = calloc((size_t)(6 + 2 * nu), sizeof(double));
  if (!e->d || !e->push_steps || !e->push_vel || !e->dr.mass_scale || !e->qpos || !e->qvel ||
      !e->queue || !e->prev_action || !e->action || !e->raw || !e->scratch) {
    mdv_duck_free(e);
    return -1;
  }
  mdv_pcg64_seed(&e->rng, seed);
  return 0;
}

void mdv_duck_free(mdv_duck *e) {
  if (e->d) mj_deleteData(e->d);
  if (e->m) mj_deleteModel(e->m);
  free(e->push_steps);
  free(e->push_vel);
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

void mdv_duck_seed(mdv_duck *e, uint64_t seed) { mdv_pcg64_seed(&e->rng, seed); }

/*---------------------------------- Observation and reward ---------------------------------------*/

/* Build the observation of the current state with clipped action a (ENV_SPEC section 5). */
static void observe(mdv_duck *e, const double *a, float *obs) {
  const mdv_task_model *tm = e->tm;
  const mjData *d = e->d;
  int nu = tm->nu, n_noisy = 6 + 2 * nu;
  double *raw = e->raw;
  for (int j = 0; j < 3; j++) raw[j] = d->sensordata[tm->gyro_adr + j];
  for (int j = 0; j < 3; j++) raw[3 + j] = -d->xmat[9 * tm->trunk + 6 + j];
  for (int i = 0; i < nu; i++) raw[6 + i] = d->qpos[tm->qadr[i]] - tm->q_home[i];
  for (int i = 0; i < nu; i++) raw[6 + nu + i] = d->qvel[tm->dadr[i]];
  for (int i = 0; i < nu; i++) raw[6 + 2 * nu + i] = a[i];
  if (e->cfg->sensor_noise) {
    double *normal = e->scratch;  /* numpy draws the whole vector first, then combines */
    for (int j = 0; j < n_noisy; j++) normal[j] = mdv_pcg64_standard_normal(&e->rng);
    for (int j = 0; j < n_noisy; j++) {
      double std = j < 3 ? 0.1 : j < 6 ? 0.05 : j < 6 + nu ? 0.01 : 0.5;
      raw[j] += e->noise_scale * std * normal[j];
    }
  }
  for (int j = 0; j < 6 + 3 * nu; j++) {
    float scale = j < 3 ? 0.25f : (j >= 6 + nu && j < 6 + 2 * nu) ? 0.05f : 1.0f;
    obs[j] = (float)(raw[j] * (double)scale);
  }
}

/* Compute the reward and write the reward terms into info[7*stride...] (ENV_SPEC section 5). */
static double reward(mdv_duck *e, const double *a, double h, double up, int fallen, double *info,
                     int stride) {
  const mdv_task_model *tm = e->tm;
  const mjData *d = e->d;
  int nu = tm->nu;
  double *tmp = e->scratch, h_home = tm->h_home;
  for (int i = 0; i < nu; i++) tmp[i] = mdv_np_square(a[i] - e->prev_action[i]);
  double r_rate = mdv_np_sum(tmp, nu);
  if (e->cfg->reward == MDVEC_REWARD_V1) {
    double r_up = up;
    double r_height = exp(-mdv_py_pow((h - h_home) / 0.03, 2.0));
    for (int i = 0; i < nu; i++) tmp[i] = mdv_np_square(d->qpos[tm->qadr[i]] - tm->q_home[i]);
    double r_pose = exp(-mdv_np_mean(tmp, nu) / 0.1);
    double terms[4] = {r_up, r_height, r_pose, r_rate};
    for (int k = 0; k < 4; k++) info[(7 + k) * stride] = terms[k];
    return 0.5 * r_up + 0.75 * r_height + 0.75 * r_pose - 0.05 * r_rate;
  }
  double r_up = 0.0 > up ? 0.0 : up;  /* Python's max(up, 0.0) */
  double r_height = exp(-fabs(h - h_home) / 0.03);
  for (int i = 0; i < nu; i++) tmp[i] = fabs(d->qpos[tm->qadr[i]] - tm->q_home[i]);
  double r_pose = exp(-mdv_np_mean(tmp, nu) / 0.15);
  double gyro2[3];
  for (int j = 0; j < 3; j++) gyro2[j] = mdv_np_square(d->sensordata[tm->gyro_adr + j]);
  double r_still = exp(-mdv_np_sum(gyro2, 3) / 4.0);
  for (int i = 0; i < nu; i++) tmp[i] = fabs(d->actuator_force[i]);
  double r_effort = mdv_np_mean(tmp, nu);
  double terms[6] = {r_up, r_height, r_pose, r_still, r_rate, r_effort};
  for (int k = 0; k < 6; k++) info[(7 + k) * stride] = terms[k];
  double r = 0.5 * (r_up + r_height + r_pose + r_still) - 0.05 * r_rate - 0.01 * r_effort;
  return fallen ? 0.0 : r;
}

/*---------------------------------- Reset ---------------------------------------------------------*/

/* Start the episode whose parameters are in the env's fields (ENV_SPEC section 4, steps 1-5). */
static void start(mdv_duck *e, float *obs) {
  const mdv_task_model *tm = e->tm;
  mjModel *m = e->m;
  mjData *d = e->d;
  if (e->cfg->dr) {
    mdv_dr_restore(m, tm->m);
    mdv_dr_apply(m, tm, &e->dr);
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
  e->stage1_ready = 0;
  e->failed = 0;
  e->queue_head = 0;
  e->reset_done = 1;
  memset(e->prev_action, 0, sizeof(double) * (size_t)tm->nu);
  memset(e->queue, 0, sizeof(double) * (size_t)(e->queue_cap * tm->nu));
  memset(e->action, 0, sizeof(double) * (size_t)tm->nu);
  observe(e, e->action, obs);
}

void mdv_duck_reset(mdv_duck *e, float *obs) {
  const mdv_task_model *tm = e->tm;
  const mdvec_config_t *cfg = e->cfg;
  mdv_pcg64 *rng = &e->rng;
  int nu = tm->nu, np = cfg->n_pushes;
  e->latency = cfg->latency;
  e->init_noise = cfg->init_noise;
  e->noise_scale = 1.0;
  if (cfg->dr) mdv_dr_draw(rng, tm, &e->dr, &e->latency, &e->init_noise, &e->noise_scale);
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
  mdv_pcg64_choice(rng, hi - lo, np, e->push_steps);
  for (int k = 0; k < np; k++) e->push_steps[k] += lo;
  for (int k = 1; k < np; k++) {  /* np.sort: ascending */
    int64_t v = e->push_steps[k];
    int j = k;
    for (; j > 0 && e->push_steps[j - 1] > v; j--) e->push_steps[j] = e->push_steps[j - 1];
    e->push_steps[j] = v;
  }
  double *vel = e->push_vel;  /* speeds, then angles, are drawn as two arrays, as numpy does */
  for (int k = 0; k < np; k++) vel[2 * k] = mdv_pcg64_uniform(rng, cfg->push_speed[0], cfg->push_speed[1]);
  for (int k = 0; k < np; k++) vel[2 * k + 1] = mdv_pcg64_uniform(rng, 0.0, kTwoPi);
  for (int k = 0; k < np; k++) {
    double speed = vel[2 * k], theta = vel[2 * k + 1];
    vel[2 * k] = speed * cos(theta);
    vel[2 * k + 1] = speed * sin(theta);
  }
  start(e, obs);
}

int mdv_duck_check_params(const mdv_duck *e, const mdvec_params_t *p, char *err, size_t err_size) {
  const mdv_task_model *tm = e->tm;
  const mdvec_config_t *cfg = e->cfg;
  int nu = tm->nu;
#define FAIL(...) do { snprintf(err, err_size, __VA_ARGS__); return -1; } while (0)
#define FINITE_ARRAY(name, ptr, n)                                                       \
  do {                                                                                   \
    if (!(ptr)) FAIL("params.%s: NULL", name);                                           \
    for (int k_ = 0; k_ < (n); k_++)                                                     \
      if (!isfinite((ptr)[k_])) FAIL("params.%s: values must be finite", name);          \
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
  if (p->latency < 0 || p->latency > e->queue_cap)
    FAIL("params.latency: must be in [0, %d], got %d", e->queue_cap, p->latency);
  if (cfg->dr) {
    if (!p->has_dr) FAIL("params.dr: this env randomises its model; factors are required");
    FINITE_ARRAY("dr.servo", p->servo, 5);
    FINITE_ARRAY("dr.mass_scale", p->mass_scale, tm->nbody - 1);
    if (!isfinite(p->floor_friction) || p->floor_friction < 0)
      FAIL("params.dr.floor_friction: must be finite and >= 0");
  }
#undef FINITE_ARRAY
#undef FAIL
  return 0;
}

void mdv_duck_reset_with_params(mdv_duck *e, const mdvec_params_t *p, float *obs) {
  int nu = e->tm->nu;
  e->init_noise = p->init_noise;
  e->noise_scale = p->noise_scale;
  e->latency = p->latency;
  memcpy(e->qpos, p->qpos, sizeof(double) * (size_t)nu);
  memcpy(e->qvel, p->qvel, sizeof(double) * (size_t)nu);
  for (int k = 0; k < p->n_pushes; k++) {
    e->push_steps[k] = p->push_steps[k];
    e->push_vel[2 * k] = p->push_vel[2 * k];
    e->push_vel[2 * k + 1] = p->push_vel[2 * k + 1];
  }
  if (e->cfg->dr) {
    memcpy(e->dr.servo, p->servo, sizeof e->dr.servo);
    memcpy(e->dr.mass_scale, p->mass_scale, sizeof(double) * (size_t)(e->tm->nbody - 1));
    e->dr.floor_friction = p->floor_friction;
  }
  start(e, obs);
}

/*---------------------------------- Step ----------------------------------------------------------*/

void mdv_duck_step(mdv_duck *e, const double *action, const mdv_duck_out *out) {
  const mdv_task_model *tm = e->tm;
  const mdvec_config_t *cfg = e->cfg;
  mjModel *m = e->m;
  mjData *d = e->d;
  int nu = tm->nu, stride = out->info_stride;
  double *a = e->action;
  for (int i = 0; i < nu; i++) a[i] = mdv_np_clip(action[i], -1.0, 1.0);
  const double *applied = a;
  if (e->latency > 0) {  /* a ring of the last L actions: apply the oldest, store the newest */
    double *slot = e->queue + (size_t)e->queue_head * nu;
    memcpy(e->scratch, slot, sizeof(double) * (size_t)nu);
    memcpy(slot, a, sizeof(double) * (size_t)nu);
    e->queue_head = (e->queue_head + 1) % e->latency;
    applied = e->scratch;
  }
  for (int i = 0; i < nu; i++) d->ctrl[i] = tm->ctrl_home[i] + cfg->action_scale * applied[i];
  int pushed = 0;
  for (int k = 0; k < cfg->n_pushes; k++) {
    if (e->push_steps[k] == e->t) {
      d->qvel[tm->free_dof] += e->push_vel[2 * k];
      d->qvel[tm->free_dof + 1] += e->push_vel[2 * k + 1];
      pushed = 1;
    }
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
  observe(e, a, out->obs);
  double h = d->xpos[3 * tm->trunk + 2], up = d->xmat[9 * tm->trunk + 8];
  int fallen = h < tm->h_home / 3;
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
  *out->done = (uint8_t)truncated;
  memcpy(e->prev_action, a, sizeof(double) * (size_t)nu);
}
