/* humanoid.c: Gymnasium's Humanoid-v5, bit for bit (gymnasium/envs/mujoco/humanoid_v5.py, HumanoidEnv).
 *
 * The model is Gymnasium's own humanoid.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
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
  [HUM_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.25", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of the centre of mass's x velocity in the reward (reward_forward)"},
  [HUM_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.1", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(ctrl**2) subtracted from the reward (-reward_ctrl)"},
  [HUM_CONTACT_COST_WEIGHT] = {"contact_cost_weight", MDVEC_OPT_DOUBLE, "5e-07", -HUGE_VAL, HUGE_VAL, NULL,
                               "weight of sum(cfrc_ext**2) in the contact cost (-reward_contact)"},
  [HUM_CONTACT_COST_RANGE] = {"contact_cost_range", MDVEC_OPT_RANGE, "-inf,10.0", -HUGE_VAL, HUGE_VAL, NULL,
                              "the contact cost is clipped to [lo, hi]"},
  [HUM_HEALTHY_REWARD] = {"healthy_reward", MDVEC_OPT_DOUBLE, "5.0", -HUGE_VAL, HUGE_VAL, NULL,
                          "reward of each step that ends healthy (reward_survive)"},
  [HUM_TERMINATE_WHEN_UNHEALTHY] = {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                                    "terminate when the humanoid is unhealthy"},
  [HUM_HEALTHY_Z_RANGE] = {"healthy_z_range", MDVEC_OPT_RANGE, "1.0,2.0", -HUGE_VAL, HUGE_VAL, NULL,
                           "healthy when lo < qpos[2] (torso height) < hi"},
  GM_HUMANOID_OBS_OPTIONS(HUM_EXCLUDE_CURRENT_POSITIONS),
};

/*---------------------------------- Info fields ---------------------------------------------------*/

/* Fields before the tendons, the tendons (2 * ntendon), then the rest; built per model in create. */
enum { HUM_X_POSITION, HUM_Y_POSITION, HUM_N_HEAD };
enum {
  HUM_DISTANCE,
  HUM_X_VELOCITY,
  HUM_Y_VELOCITY,
  HUM_REWARD_SURVIVE,
  HUM_REWARD_FORWARD,
  HUM_REWARD_CTRL,
  HUM_REWARD_CONTACT,
  HUM_N_TAIL
};

static const mdv_field humanoid_head[HUM_N_HEAD] = {
  [HUM_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [HUM_Y_POSITION] = {"y_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
};
static const mdv_field humanoid_tail[HUM_N_TAIL] = {
  [HUM_DISTANCE] = {"distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [HUM_X_VELOCITY] = {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HUM_Y_VELOCITY] = {"y_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HUM_REWARD_SURVIVE] = {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HUM_REWARD_FORWARD] = {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HUM_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HUM_REWARD_CONTACT] = {"reward_contact", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct humanoid_shared_ {
  mk_shared g;
  double forward_reward_weight, ctrl_cost_weight, contact_cost_weight, contact_lo, contact_hi;
  double healthy_reward;
  int terminate_when_unhealthy;
  double z_lo, z_hi;
  double mass_sum; /* model.body_mass.sum() */
  gm_humanoid h;   /* observation parts, info fields */
} humanoid_shared;

static void humanoid_free(void *shared) {
  humanoid_shared *sh = shared;
  gm_humanoid_free(&sh->h);
}

static int humanoid_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  humanoid_shared *sh = shared;
  const mjModel *m = sh->g.m;
  if (m->nq < 3) { /* is_healthy reads qpos[2]; the observation drops qpos[0:2] */
    snprintf(err, n, "Humanoid-v5: the model '%s' has nq = %d; Humanoid-v5 reads qpos[0:3] (x, y, z)", sh->g.path,
             (int)m->nq);
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
  if (gm_humanoid_init(&sh->h, m, &opts[HUM_EXCLUDE_CURRENT_POSITIONS], humanoid_head, HUM_N_HEAD, humanoid_tail,
                       HUM_N_TAIL, spec) != MDVEC_OK) {
    snprintf(err, n, "Humanoid-v5: out of memory");
    return MDVEC_ERR_NOMEM;
  }
  return MDVEC_OK;
}

static const mk_def humanoid_def = {
  .task = "Humanoid-v5",
  GM_DEF,
  .shared_size = sizeof(humanoid_shared),
  .setup = humanoid_setup,
  .free = humanoid_free,
};
MK_CREATE(humanoid_create, &humanoid_def)

/*---------------------------------- Observation, centre of mass, info ------------------------------*/

/* mass_center: (np.einsum("b,bj->j", body_mass, xipos) / body_mass.sum())[0:2]. */
static void humanoid_mass_center(const mk_env *e, double xy[2]) {
  const humanoid_shared *sh = e->sh;
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  for (int j = 0; j < 2; j++) {
    double num = 0.0;
    for (int b = 0; b < m->nbody; b++) num += m->body_mass[b] * d->xipos[3 * b + j];
    xy[j] = num / sh->mass_sum;
  }
}

/* x_position, y_position, tendon_length, tendon_velocity, distance_from_origin (step and reset). */
static void humanoid_position_info(const mk_env *e, const mdv_out *out) {
  const humanoid_shared *sh = e->sh;
  const mjData *d = e->d;
  mk_info(out, HUM_X_POSITION, d->qpos[0]);
  mk_info(out, HUM_Y_POSITION, d->qpos[1]);
  gm_humanoid_tendon_info(&sh->h, d, out);
  mk_info(out, HUM_N_HEAD + 2 * sh->h.ntendon + HUM_DISTANCE, mdv_np_norm(&e->k->dot, d->qpos, 2));
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void humanoid_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const humanoid_shared *sh = e->sh;
  mk_reset_uniform(e, rng);
  gm_humanoid_obs(&sh->h, e->k->m, e->d, out->obs);
  humanoid_position_info(e, out); /* _get_reset_info */
}

static void humanoid_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  (void)action_dtype; /* the costs read data.ctrl (float64) */
  mk_env *e = env;
  const humanoid_shared *sh = e->sh;
  const mjModel *m = sh->g.m;
  mjData *d = e->d;

  double before[2], after[2];
  humanoid_mass_center(e, before);
  mk_do_simulation(e, action);
  humanoid_mass_center(e, after);
  double x_velocity = (after[0] - before[0]) / sh->g.dt;
  double y_velocity = (after[1] - before[1]) / sh->g.dt;

  gm_humanoid_obs(&sh->h, e->k->m, e->d, out->obs);

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
  *out->truncated = (uint8_t)mk_time_limit(e);

  int t = HUM_N_HEAD + 2 * sh->h.ntendon;
  humanoid_position_info(e, out);
  mk_info(out, t + HUM_X_VELOCITY, x_velocity);
  mk_info(out, t + HUM_Y_VELOCITY, y_velocity);
  mk_info(out, t + HUM_REWARD_SURVIVE, healthy_reward);
  mk_info(out, t + HUM_REWARD_FORWARD, forward_reward);
  mk_info(out, t + HUM_REWARD_CTRL, -ctrl_cost);
  mk_info(out, t + HUM_REWARD_CONTACT, -contact_cost);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_humanoid_v5 = {
  .name = "Humanoid-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Humanoid-v5 (humanoid_v5.py), bit for bit, on its own humanoid.xml",
  .options = humanoid_options,
  .n_options = HUM_N_OPTIONS,
  .create = humanoid_create,
  .reset = humanoid_reset,
  .step = humanoid_step,
  .gym_id = "mdvec/Humanoid-v5",
  .reference = "Humanoid-v5",
  .reward_threshold = NULL,
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* humanoid_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE | MDV_CAM_LOOKAT | MDV_CAM_ELEVATION,
                                .trackbodyid = 1,
                                .distance = 4.0,
                                .lookat = {0.0, 0.0, 2.0},
                                .elevation = -20.0},
  MK_TASK_DEFAULTS,
};
