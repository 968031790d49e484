/* walker2d.c: Gymnasium's Walker2d-v5, bit for bit (gymnasium/envs/mujoco/walker2d_v5.py, Walker2dEnv).
 *
 * The model is Gymnasium's own walker2d_v5.xml (or any xml_file), loaded at run time (gym_mujoco.c).
 * Every expression below is the numpy / Python one of walker2d_v5.py, in its order and dtype:
 *   step:   x_before = qpos[0]; do_simulation; x_velocity = (qpos[0] - x_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           healthy_reward = is_healthy * healthy_reward  (np.bool_ * float: an np.float64, 0.0 * w
 *           when not healthy); reward = (forward_reward + healthy_reward)
 *           - ctrl_cost_weight * np.sum(np.square(action)) (the cost in the action's dtype);
 *           terminated = not is_healthy and terminate_when_unhealthy; truncated by TimeLimit.
 *   health: z, angle = qpos[1:3]; lo < z < hi and lo < angle < hi, strict (a NaN is unhealthy).
 *           Unlike Hopper there is no state range.
 *   obs:    concatenate(qpos[1:] (or qpos with exclude_current_positions_from_observation=False),
 *           np.clip(qvel, -10, 10)), float64.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, z_distance_from_origin (qpos[1] - init_qpos[1]), x_velocity,
 *           reward_forward, reward_ctrl (the action's dtype), reward_survive (np.float64);
 *           reset (_get_reset_info): x_position, z_distance_from_origin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  W2D_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  W2D_CTRL_COST_WEIGHT,
  W2D_HEALTHY_REWARD,
  W2D_TERMINATE_WHEN_UNHEALTHY,
  W2D_HEALTHY_Z_RANGE,
  W2D_HEALTHY_ANGLE_RANGE,
  W2D_EXCLUDE_CURRENT_POSITIONS,
  W2D_N_OPTIONS
};

static const mdv_option_decl walker2d_options[W2D_N_OPTIONS] = {
  GM_OPTIONS("walker2d_v5.xml", "4", "1000", "0.005"),
  {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of x_velocity in the reward (reward_forward)"},
  {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.001", -HUGE_VAL, HUGE_VAL, NULL,
   "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  {"healthy_reward", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
   "reward of each step that ends healthy (reward_survive)"},
  {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
   "terminate when the walker is unhealthy"},
  {"healthy_z_range", MDVEC_OPT_RANGE, "0.8,2.0", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < qpos[1] (torso height) < hi"},
  {"healthy_angle_range", MDVEC_OPT_RANGE, "-1.0,1.0", -HUGE_VAL, HUGE_VAL, NULL,
   "healthy when lo < qpos[2] (torso angle, rad) < hi"},
  {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
   "leave qpos[0] (x) out of the observation"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { W2D_X_POSITION, W2D_Z_DISTANCE, W2D_X_VELOCITY, W2D_REWARD_FORWARD, W2D_REWARD_CTRL,
       W2D_REWARD_SURVIVE, W2D_N_INFO };

static const mdv_field walker2d_info[W2D_N_INFO] = {
  {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"z_distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and env -------------------------------------------*/

typedef struct walker2d_shared_ {
  gm_shared g;
  double forward_reward_weight, ctrl_cost_weight, healthy_reward;
  int terminate_when_unhealthy;
  double z_lo, z_hi, angle_lo, angle_hi;
  int exclude;  /* exclude_current_positions_from_observation: qpos[0] left out */
} walker2d_shared;

typedef struct walker2d_env_ {
  gm_env g;
  const walker2d_shared *sh;
} walker2d_env;

static int walker2d_create(void **shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  *shared = NULL;
  int rc;
  walker2d_shared *sh = gm_new_shared(sizeof *sh, "Walker2d-v5", opts, err, n, &rc);
  if (!sh) return rc;
  if (sh->g.m->nq < 3) {  /* is_healthy unpacks qpos[1:3] */
    snprintf(err, n, "Walker2d-v5: the model '%s' has nq = %d; Walker2d-v5 reads qpos[0:3] (x, z, angle)",
             sh->g.path, (int)sh->g.m->nq);
    gm_task_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  sh->forward_reward_weight = opts[W2D_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[W2D_CTRL_COST_WEIGHT].d[0];
  sh->healthy_reward = opts[W2D_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[W2D_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->z_lo = opts[W2D_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[W2D_HEALTHY_Z_RANGE].d[1];
  sh->angle_lo = opts[W2D_HEALTHY_ANGLE_RANGE].d[0];
  sh->angle_hi = opts[W2D_HEALTHY_ANGLE_RANGE].d[1];
  sh->exclude = opts[W2D_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;

  gm_fill_spec(&sh->g, spec);
  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - sh->exclude;
  spec->n_info = W2D_N_INFO;
  spec->info = walker2d_info;
  spec->env_size = sizeof(walker2d_env);
  *shared = sh;
  return MDVEC_OK;
}

static int walker2d_env_init(void *env, const void *shared, char *err, size_t n) {
  walker2d_env *e = env;
  e->sh = shared;
  return gm_env_init(&e->g, &e->sh->g, err, n);
}

/*---------------------------------- Observation, health -------------------------------------------*/

/* _get_obs: concatenate((qpos[1:] or qpos), np.clip(qvel, -10, 10)). */
static void walker2d_obs(const walker2d_env *e, double *obs) {
  const mjModel *m = e->sh->g.m;
  const mjData *d = e->g.d;
  int k = 0;
  for (int i = e->sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = mdv_np_clip(d->qvel[i], -10.0, 10.0);
}

/* is_healthy: min_z < z < max_z and min_angle < angle < max_angle (strict). */
static int walker2d_is_healthy(const walker2d_env *e) {
  const walker2d_shared *sh = e->sh;
  const mjData *d = e->g.d;
  double z = d->qpos[1], angle = d->qpos[2];
  int healthy_z = sh->z_lo < z && z < sh->z_hi;
  int healthy_angle = sh->angle_lo < angle && angle < sh->angle_hi;
  return healthy_z && healthy_angle;
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void walker2d_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  walker2d_env *e = env;
  const gm_shared *g = &e->sh->g;
  mjData *d = e->g.d;
  gm_reset_begin(&e->g);
  gm_add_uniform_noise(&e->g, d->qpos, g->init_qpos, g->m->nq, rng);  /* reset_model */
  gm_add_uniform_noise(&e->g, d->qvel, g->init_qvel, g->m->nv, rng);
  gm_set_state_done(&e->g);
  walker2d_obs(e, out->obs);
  gm_info(out, W2D_X_POSITION, d->qpos[0]);  /* _get_reset_info */
  gm_info(out, W2D_Z_DISTANCE, d->qpos[1] - g->init_qpos[1]);
}

static void walker2d_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                          const mdv_out *out) {
  (void)rng;
  walker2d_env *e = env;
  const walker2d_shared *sh = e->sh;
  mjData *d = e->g.d;

  double x_position_before = d->qpos[0];
  gm_do_simulation(&e->g, action);
  double x_position_after = d->qpos[0];
  double x_velocity = (x_position_after - x_position_before) / sh->g.dt;

  walker2d_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  int is_healthy = walker2d_is_healthy(e);
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight,
                                 gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = rewards - ctrl_cost;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)gm_time_limit(&e->g);

  gm_info(out, W2D_X_POSITION, x_position_after);
  gm_info(out, W2D_Z_DISTANCE, d->qpos[1] - sh->g.init_qpos[1]);
  gm_info(out, W2D_X_VELOCITY, x_velocity);
  gm_info(out, W2D_REWARD_FORWARD, forward_reward);
  gm_info(out, W2D_REWARD_CTRL, -ctrl_cost);
  gm_info(out, W2D_REWARD_SURVIVE, healthy_reward);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_walker2d_v5 = {
  .name = "Walker2d-v5",
  .summary = "Gymnasium's Walker2d-v5 (walker2d_v5.py), bit for bit, on its own walker2d_v5.xml",
  .options = walker2d_options,
  .n_options = W2D_N_OPTIONS,
  .constants = NULL,
  .n_constants = 0,
  .create = walker2d_create,
  .destroy = gm_task_destroy,
  .env_init = walker2d_env_init,
  .env_free = gm_task_env_free,
  .reset = walker2d_reset,
  .step = walker2d_step,
  .physics = gm_task_physics,
};
