/* hopper.c: Gymnasium's Hopper-v5, bit for bit (gymnasium/envs/mujoco/hopper_v5.py, HopperEnv).
 *
 * The model is Gymnasium's own hopper.xml (or any xml_file), loaded at run time (gym_mujoco.c).
 * Every expression below is the numpy / Python one of hopper_v5.py, in its order and dtype:
 *   step:   x_before = qpos[0]; do_simulation; x_velocity = (qpos[0] - x_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           healthy_reward = is_healthy * healthy_reward  (Python bool * float: 0.0 * w when not);
 *           reward = (forward_reward + healthy_reward) - ctrl_cost_weight * np.sum(np.square(action))
 *           (the cost in the action's dtype: float32 actions give a float32 cost and reward_ctrl);
 *           terminated = not is_healthy and terminate_when_unhealthy; truncated by TimeLimit.
 *   health: z, angle = qpos[1:3]; state = concatenate(qpos, qvel)[2:] (qvel unclipped); every bound
 *           is strict: lo < v < hi (a NaN is unhealthy).
 *   obs:    concatenate(qpos[1:] (or qpos with exclude_current_positions_from_observation=False),
 *           np.clip(qvel, -10, 10)), float64.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, z_distance_from_origin (qpos[1] - init_qpos[1]), x_velocity,
 *           reward_forward, reward_ctrl (the action's dtype), reward_survive;
 *           reset (_get_reset_info): x_position, z_distance_from_origin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  HOP_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  HOP_CTRL_COST_WEIGHT,
  HOP_HEALTHY_REWARD,
  HOP_TERMINATE_WHEN_UNHEALTHY,
  HOP_HEALTHY_STATE_RANGE,
  HOP_HEALTHY_Z_RANGE,
  HOP_HEALTHY_ANGLE_RANGE,
  HOP_EXCLUDE_CURRENT_POSITIONS,
  HOP_N_OPTIONS
};

static const mdv_option_decl hopper_options[HOP_N_OPTIONS] = {
  GM_OPTIONS("hopper.xml", "4", "1000", "0.005"),
  {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of x_velocity in the reward (reward_forward)"},
  {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.001", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  {"healthy_reward", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
   "reward of each step that ends healthy (reward_survive)"},
  {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
   "terminate when the hopper is unhealthy"},
  {"healthy_state_range", MDVEC_OPT_RANGE, "-100.0,100.0", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < v < hi for every v of concatenate(qpos, qvel)[2:]"},
  {"healthy_z_range", MDVEC_OPT_RANGE, "0.7,inf", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < qpos[1] (torso height) < hi"},
  {"healthy_angle_range", MDVEC_OPT_RANGE, "-0.2,0.2", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < qpos[2] (torso angle, rad) < hi"},
  {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
   "leave qpos[0] (x) out of the observation"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { HOP_X_POSITION, HOP_Z_DISTANCE, HOP_X_VELOCITY, HOP_REWARD_FORWARD, HOP_REWARD_CTRL,
       HOP_REWARD_SURVIVE, HOP_N_INFO };

static const mdv_field hopper_info[HOP_N_INFO] = {
  {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"z_distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and env -------------------------------------------*/

typedef struct hopper_shared_ {
  gm_shared g;
  double forward_reward_weight, ctrl_cost_weight, healthy_reward;
  int terminate_when_unhealthy;
  double state_lo, state_hi, z_lo, z_hi, angle_lo, angle_hi;
  int exclude;  /* exclude_current_positions_from_observation: qpos[0] left out */
} hopper_shared;

typedef struct hopper_env_ {
  gm_env g;
  const hopper_shared *sh;
} hopper_env;

static int hopper_create(void **shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  *shared = NULL;
  int rc;
  hopper_shared *sh = gm_new_shared(sizeof *sh, "Hopper-v5", opts, err, n, &rc);
  if (!sh) return rc;
  if (sh->g.m->nq < 3) {  /* is_healthy unpacks qpos[1:3] */
    snprintf(err, n, "Hopper-v5: the model '%s' has nq = %d; Hopper-v5 reads qpos[0:3] (x, z, angle)",
             sh->g.path, (int)sh->g.m->nq);
    gm_task_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  sh->forward_reward_weight = opts[HOP_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[HOP_CTRL_COST_WEIGHT].d[0];
  sh->healthy_reward = opts[HOP_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[HOP_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->state_lo = opts[HOP_HEALTHY_STATE_RANGE].d[0];
  sh->state_hi = opts[HOP_HEALTHY_STATE_RANGE].d[1];
  sh->z_lo = opts[HOP_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[HOP_HEALTHY_Z_RANGE].d[1];
  sh->angle_lo = opts[HOP_HEALTHY_ANGLE_RANGE].d[0];
  sh->angle_hi = opts[HOP_HEALTHY_ANGLE_RANGE].d[1];
  sh->exclude = opts[HOP_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;

  gm_fill_spec(&sh->g, spec);
  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - sh->exclude;
  spec->n_info = HOP_N_INFO;
  spec->info = hopper_info;
  spec->env_size = sizeof(hopper_env);
  *shared = sh;
  return MDVEC_OK;
}

static int hopper_env_init(void *env, const void *shared, char *err, size_t n) {
  hopper_env *e = env;
  e->sh = shared;
  return gm_env_init(&e->g, &e->sh->g, err, n);
}

/*---------------------------------- Observation, health -------------------------------------------*/

/* _get_obs: concatenate((qpos[1:] or qpos), np.clip(qvel, -10, 10)). */
static void hopper_obs(const hopper_env *e, double *obs) {
  const mjModel *m = e->sh->g.m;
  const mjData *d = e->g.d;
  int k = 0;
  for (int i = e->sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = mdv_np_clip(d->qvel[i], -10.0, 10.0);
}

/* is_healthy: all((healthy_state, healthy_z, healthy_angle)), each bound strict. */
static int hopper_is_healthy(const hopper_env *e) {
  const hopper_shared *sh = e->sh;
  const mjModel *m = sh->g.m;
  const mjData *d = e->g.d;
  int healthy_state = 1;  /* np.all(np.logical_and(min_state < state, state < max_state)) */
  for (int i = 2; i < m->nq; i++) {
    double v = d->qpos[i];
    if (!(sh->state_lo < v && v < sh->state_hi)) healthy_state = 0;
  }
  for (int i = 0; i < m->nv; i++) {
    double v = d->qvel[i];
    if (!(sh->state_lo < v && v < sh->state_hi)) healthy_state = 0;
  }
  double z = d->qpos[1], angle = d->qpos[2];
  int healthy_z = sh->z_lo < z && z < sh->z_hi;
  int healthy_angle = sh->angle_lo < angle && angle < sh->angle_hi;
  return healthy_state && healthy_z && healthy_angle;
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void hopper_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  hopper_env *e = env;
  const gm_shared *g = &e->sh->g;
  mjData *d = e->g.d;
  gm_reset_begin(&e->g);
  gm_add_uniform_noise(&e->g, d->qpos, g->init_qpos, g->m->nq, rng);  /* reset_model */
  gm_add_uniform_noise(&e->g, d->qvel, g->init_qvel, g->m->nv, rng);
  gm_set_state_done(&e->g);
  hopper_obs(e, out->obs);
  gm_info(out, HOP_X_POSITION, d->qpos[0]);  /* _get_reset_info */
  gm_info(out, HOP_Z_DISTANCE, d->qpos[1] - g->init_qpos[1]);
}

static void hopper_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                        const mdv_out *out) {
  (void)rng;
  hopper_env *e = env;
  const hopper_shared *sh = e->sh;
  mjData *d = e->g.d;

  double x_position_before = d->qpos[0];
  gm_do_simulation(&e->g, action);
  double x_position_after = d->qpos[0];
  double x_velocity = (x_position_after - x_position_before) / sh->g.dt;

  hopper_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  int is_healthy = hopper_is_healthy(e);
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight,
                                 gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = rewards - ctrl_cost;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)gm_time_limit(&e->g);

  gm_info(out, HOP_X_POSITION, x_position_after);
  gm_info(out, HOP_Z_DISTANCE, d->qpos[1] - sh->g.init_qpos[1]);
  gm_info(out, HOP_X_VELOCITY, x_velocity);
  gm_info(out, HOP_REWARD_FORWARD, forward_reward);
  gm_info(out, HOP_REWARD_CTRL, -ctrl_cost);
  gm_info(out, HOP_REWARD_SURVIVE, healthy_reward);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_hopper_v5 = {
  .name = "Hopper-v5",
  .summary = "Gymnasium's Hopper-v5 (hopper_v5.py), bit for bit, on its own hopper.xml",
  .options = hopper_options,
  .n_options = HOP_N_OPTIONS,
  .constants = NULL,
  .n_constants = 0,
  .create = hopper_create,
  .destroy = gm_task_destroy,
  .env_init = hopper_env_init,
  .env_free = gm_task_env_free,
  .reset = hopper_reset,
  .step = hopper_step,
  .physics = gm_task_physics,
};
