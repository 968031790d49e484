/* humanoid.c: Gymnasium's Humanoid-v5, bit for bit (gymnasium/envs/mujoco/humanoid_v5.py, HumanoidEnv).
 *
 * The model is Gymnasium's own humanoid.xml (or any xml_file), loaded at run time (gym_mujoco.c).
 * Every expression below is the numpy / Python one of humanoid_v5.py, in its order and dtype:
 *   step:   xy_before = mass_center; do_simulation (mj_rnePostConstraint fills cfrc_ext);
 *           xy_velocity = (mass_center - xy_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           healthy_reward = is_healthy * healthy_reward (np.bool_ * float: an np.float64, 0.0 * w
 *           when not healthy); rewards = forward_reward + healthy_reward;
 *           ctrl_cost = ctrl_cost_weight * np.sum(np.square(data.ctrl)) (data.ctrl, not the action:
 *           float64 whatever the action's dtype);
 *           contact_cost = np.clip(contact_cost_weight * np.sum(np.square(cfrc_ext)), lo, hi) (pairwise
 *           over all nbody x 6 values; scalar clip); reward = rewards - (ctrl_cost + contact_cost);
 *           terminated = not is_healthy and terminate_when_unhealthy.
 *   mass_center: np.einsum("b,bj->j", body_mass, xipos) / body_mass.sum(), [0:2]: einsum sums
 *           body_mass[b] * xipos[b, j] over b left to right from 0.0 (checked against numpy for
 *           1..200 bodies), the denominator is numpy's pairwise sum.
 *   health: lo < qpos[2] < hi (strict; a NaN is unhealthy).
 *   obs:    concatenate(qpos[2:] (or qpos), qvel, cinert[1:], cvel[1:], qfrc_actuator[6:],
 *           cfrc_ext[1:]) (each of the last four unless its include_*_in_observation is False).
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, y_position, tendon_length, tendon_velocity, distance_from_origin
 *           (np.linalg.norm(qpos[0:2]): mdv_np_norm, numpy's BLAS ddot), x_velocity, y_velocity, reward_survive,
 *           reward_forward, reward_ctrl, reward_contact (all np.float64); reset (_get_reset_info):
 *           x_position, y_position, tendon_length, tendon_velocity, distance_from_origin.
 *           tendon_length and tendon_velocity are arrays (ntendon,) in Gymnasium; an info field is one
 *           number per env, so they are the fields "tendon_length[k]" and "tendon_velocity[k]",
 *           k = 0 .. ntendon - 1 (none for a model without tendons, where Gymnasium gives empty arrays).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  HUM_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  HUM_CTRL_COST_WEIGHT,
  HUM_CONTACT_COST_WEIGHT,
  HUM_CONTACT_COST_RANGE,
  HUM_HEALTHY_REWARD,
  HUM_TERMINATE_WHEN_UNHEALTHY,
  HUM_HEALTHY_Z_RANGE,
  HUM_EXCLUDE_CURRENT_POSITIONS,
  HUM_INCLUDE_CINERT,
  HUM_INCLUDE_CVEL,
  HUM_INCLUDE_QFRC_ACTUATOR,
  HUM_INCLUDE_CFRC_EXT,
  HUM_N_OPTIONS
};

static const mdv_option_decl humanoid_options[HUM_N_OPTIONS] = {
  GM_OPTIONS("humanoid.xml", "5", "1000", "0.01"),
  {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.25", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of the centre of mass's x velocity in the reward (reward_forward)"},
  {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.1", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of sum(ctrl**2) subtracted from the reward (-reward_ctrl)"},
  {"contact_cost_weight", MDVEC_OPT_DOUBLE, "5e-07", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of sum(cfrc_ext**2) in the contact cost (-reward_contact)"},
  {"contact_cost_range", MDVEC_OPT_RANGE, "-inf,10.0", -HUGE_VAL, HUGE_VAL, NULL,
   "the contact cost is clipped to [lo, hi]"},
  {"healthy_reward", MDVEC_OPT_DOUBLE, "5.0", -HUGE_VAL, HUGE_VAL, NULL,
   "reward of each step that ends healthy (reward_survive)"},
  {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
   "terminate when the humanoid is unhealthy"},
  {"healthy_z_range", MDVEC_OPT_RANGE, "1.0,2.0", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < qpos[2] (torso height) < hi"},
  GM_HUMANOID_OBS_OPTIONS,
};

/*---------------------------------- Info fields ---------------------------------------------------*/

/* Fields before the tendons, the tendons (2 * ntendon), then the rest; built per model in create. */
enum { HUM_X_POSITION, HUM_Y_POSITION, HUM_N_HEAD };
enum { HUM_DISTANCE, HUM_X_VELOCITY, HUM_Y_VELOCITY, HUM_REWARD_SURVIVE, HUM_REWARD_FORWARD,
       HUM_REWARD_CTRL, HUM_REWARD_CONTACT, HUM_N_TAIL };

static const mdv_field humanoid_head[HUM_N_HEAD] = {
  {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"y_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
};
static const mdv_field humanoid_tail[HUM_N_TAIL] = {
  {"distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"y_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_ctrl", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_contact", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and env -------------------------------------------*/

typedef struct humanoid_shared_ {
  gm_shared g;
  double forward_reward_weight, ctrl_cost_weight, contact_cost_weight, contact_lo, contact_hi;
  double healthy_reward;
  int terminate_when_unhealthy;
  double z_lo, z_hi;
  double mass_sum;       /* model.body_mass.sum() */
  gm_humanoid h;          /* observation parts, info fields */
} humanoid_shared;

typedef struct humanoid_env_ {
  gm_env g;
  const humanoid_shared *sh;
} humanoid_env;

static void humanoid_destroy(void *shared) {
  humanoid_shared *sh = shared;
  if (!sh) return;
  gm_destroy(&sh->g);
  gm_humanoid_free(&sh->h);
  free(sh);
}

static int humanoid_create(void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err, size_t n) {
  *shared = NULL;
  int rc;
  humanoid_shared *sh = gm_new_shared(sizeof *sh, dot, "Humanoid-v5", opts, err, n, &rc);
  if (!sh) return rc;
  const mjModel *m = sh->g.m;
  if (m->nq < 3) {  /* is_healthy reads qpos[2]; the observation drops qpos[0:2] */
    snprintf(err, n, "Humanoid-v5: the model '%s' has nq = %d; Humanoid-v5 reads qpos[0:3] (x, y, z)",
             sh->g.path, (int)m->nq);
    humanoid_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  sh->forward_reward_weight = opts[HUM_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[HUM_CTRL_COST_WEIGHT].d[0];
  sh->contact_cost_weight = opts[HUM_CONTACT_COST_WEIGHT].d[0];
  sh->contact_lo = opts[HUM_CONTACT_COST_RANGE].d[0];
  sh->contact_hi = opts[HUM_CONTACT_COST_RANGE].d[1];
  sh->healthy_reward = opts[HUM_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[HUM_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->z_lo = opts[HUM_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[HUM_HEALTHY_Z_RANGE].d[1];
  sh->mass_sum = mdv_np_sum(m->body_mass, (int)m->nbody);

  /* The info fields: x_position, y_position, tendon_length[k], tendon_velocity[k], the rest. */
  gm_fill_spec(&sh->g, spec);
  if (gm_humanoid_init(&sh->h, m, &opts[HUM_EXCLUDE_CURRENT_POSITIONS], humanoid_head, HUM_N_HEAD,
                       humanoid_tail, HUM_N_TAIL, spec) != MDVEC_OK) {
    snprintf(err, n, "Humanoid-v5: out of memory");
    humanoid_destroy(sh);
    return MDVEC_ERR_NOMEM;
  }
  spec->env_size = sizeof(humanoid_env);
  *shared = sh;
  return MDVEC_OK;
}

static int humanoid_env_init(void *env, const void *shared, char *err, size_t n) {
  humanoid_env *e = env;
  e->sh = shared;
  return gm_env_init(&e->g, &e->sh->g, err, n);
}

/*---------------------------------- Observation, centre of mass, info ------------------------------*/

/* mass_center: (np.einsum("b,bj->j", body_mass, xipos) / body_mass.sum())[0:2]. */
static void humanoid_mass_center(const humanoid_env *e, double xy[2]) {
  const mjModel *m = e->sh->g.m;
  const mjData *d = e->g.d;
  for (int j = 0; j < 2; j++) {
    double num = 0.0;
    for (int b = 0; b < m->nbody; b++) num += m->body_mass[b] * d->xipos[3 * b + j];
    xy[j] = num / e->sh->mass_sum;
  }
}

/* x_position, y_position, tendon_length, tendon_velocity, distance_from_origin (step and reset). */
static void humanoid_position_info(const humanoid_env *e, const mdv_out *out) {
  const mjData *d = e->g.d;
  gm_info(out, HUM_X_POSITION, d->qpos[0]);
  gm_info(out, HUM_Y_POSITION, d->qpos[1]);
  gm_humanoid_tendon_info(&e->sh->h, d, out);
  gm_info(out, HUM_N_HEAD + 2 * e->sh->h.ntendon + HUM_DISTANCE, mdv_np_norm(&e->g.sh->dot, d->qpos, 2));
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void humanoid_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  humanoid_env *e = env;
  const gm_shared *g = &e->sh->g;
  mjData *d = e->g.d;
  gm_reset_begin(&e->g);
  gm_add_uniform_noise(&e->g, d->qpos, g->init_qpos, g->m->nq, rng);  /* reset_model */
  gm_add_uniform_noise(&e->g, d->qvel, g->init_qvel, g->m->nv, rng);
  gm_set_state_done(&e->g);
  gm_humanoid_obs(&e->sh->h, e->sh->g.m, e->g.d, out->obs);
  humanoid_position_info(e, out);  /* _get_reset_info */
}

static void humanoid_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                          const mdv_out *out) {
  (void)rng;
  (void)action_dtype;  /* the costs read data.ctrl (float64) */
  humanoid_env *e = env;
  const humanoid_shared *sh = e->sh;
  const mjModel *m = sh->g.m;
  mjData *d = e->g.d;

  double before[2], after[2];
  humanoid_mass_center(e, before);
  gm_do_simulation(&e->g, action);
  humanoid_mass_center(e, after);
  double x_velocity = (after[0] - before[0]) / sh->g.dt;
  double y_velocity = (after[1] - before[1]) / sh->g.dt;

  gm_humanoid_obs(&e->sh->h, e->sh->g.m, e->g.d, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  double z = d->qpos[2];
  int is_healthy = sh->z_lo < z && z < sh->z_hi;
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = sh->ctrl_cost_weight * gm_sum_square(d->ctrl, (int)m->nu, MDVEC_DTYPE_F64);
  double contact_cost = sh->contact_cost_weight * mdv_np_sum_square(d->cfrc_ext, 6 * (int)m->nbody);
  contact_cost = mdv_np_clip(contact_cost, sh->contact_lo, sh->contact_hi);
  double costs = ctrl_cost + contact_cost;
  *out->reward = rewards - costs;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)gm_time_limit(&e->g);

  int t = HUM_N_HEAD + 2 * sh->h.ntendon;
  humanoid_position_info(e, out);
  gm_info(out, t + HUM_X_VELOCITY, x_velocity);
  gm_info(out, t + HUM_Y_VELOCITY, y_velocity);
  gm_info(out, t + HUM_REWARD_SURVIVE, healthy_reward);
  gm_info(out, t + HUM_REWARD_FORWARD, forward_reward);
  gm_info(out, t + HUM_REWARD_CTRL, -ctrl_cost);
  gm_info(out, t + HUM_REWARD_CONTACT, -contact_cost);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_humanoid_v5 = {
  .name = "Humanoid-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Humanoid-v5 (humanoid_v5.py), bit for bit, on its own humanoid.xml",
  .options = humanoid_options,
  .n_options = HUM_N_OPTIONS,
  .constants = NULL,
  .n_constants = 0,
  .create = humanoid_create,
  .destroy = humanoid_destroy,
  .env_init = humanoid_env_init,
  .env_free = gm_task_env_free,
  .reset = humanoid_reset,
  .step = humanoid_step,
  .physics = gm_task_physics,
  .gym_id = "mdvec/Humanoid-v5",
  .reference = "Humanoid-v5",
  .reward_threshold = NULL,
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
};
