/* swimmer.c: Gymnasium's Swimmer-v5, bit for bit (gymnasium/envs/mujoco/swimmer_v5.py, SwimmerEnv).
 *
 * The model is Gymnasium's own swimmer.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of swimmer_v5.py, in its order and dtype:
 *   step:   xy_before = qpos[0:2]; do_simulation; xy_velocity = (qpos[0:2] - xy_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           reward = forward_reward - ctrl_cost_weight * np.sum(np.square(action)) (the cost in the
 *           action's dtype); never terminated; truncated by TimeLimit.
 *   obs:    concatenate(qpos[2:] (or qpos with exclude_current_positions_from_observation=False),
 *           qvel), float64, nothing clipped.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, y_position, distance_from_origin (np.linalg.norm(qpos[0:2], ord=2):
 *           sqrt(x.dot(x)), numpy's BLAS ddot of two elements: mdv_np_norm), x_velocity,
 *           y_velocity, reward_forward, reward_ctrl (the action's dtype);
 *           reset (_get_reset_info): x_position, y_position, distance_from_origin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { SWM_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS, SWM_CTRL_COST_WEIGHT, SWM_EXCLUDE_CURRENT_POSITIONS, SWM_N_OPTIONS };

static const mdv_option_decl swimmer_options[SWM_N_OPTIONS] = {
  GM_OPTIONS("swimmer.xml", "4", "1000", "0.1"),
  [SWM_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of x_velocity in the reward (reward_forward)"},
  [SWM_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.0001", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  [SWM_EXCLUDE_CURRENT_POSITIONS] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0,
                                     NULL, "leave qpos[0:2] (x, y) out of the observation"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum {
  SWM_X_POSITION,
  SWM_Y_POSITION,
  SWM_DISTANCE,
  SWM_X_VELOCITY,
  SWM_Y_VELOCITY,
  SWM_REWARD_FORWARD,
  SWM_REWARD_CTRL,
  SWM_N_INFO
};

static const mdv_field swimmer_info[SWM_N_INFO] = {
  [SWM_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [SWM_Y_POSITION] = {"y_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [SWM_DISTANCE] = {"distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [SWM_X_VELOCITY] = {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [SWM_Y_VELOCITY] = {"y_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [SWM_REWARD_FORWARD] = {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [SWM_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct swimmer_shared_ {
  mk_shared g;
  double forward_reward_weight, ctrl_cost_weight;
  int exclude; /* exclude_current_positions_from_observation: qpos[0:2] left out */
} swimmer_shared;

static int swimmer_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  swimmer_shared *sh = shared;
  if (sh->g.m->nq < 2) { /* step unpacks qpos[0:2] */
    snprintf(err, n, "Swimmer-v5: the model '%s' has nq = %d; Swimmer-v5 reads qpos[0:2] (x, y)", sh->g.path,
             (int)sh->g.m->nq);
    return MDVEC_ERR_MODEL;
  }
  sh->forward_reward_weight = opts[SWM_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[SWM_CTRL_COST_WEIGHT].d[0];
  sh->exclude = opts[SWM_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;

  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - 2 * sh->exclude;
  spec->n_info = SWM_N_INFO;
  spec->info = swimmer_info;
  return MDVEC_OK;
}

static const mk_def swimmer_def = {
  .task = "Swimmer-v5",
  GM_DEF,
  .shared_size = sizeof(swimmer_shared),
  .setup = swimmer_setup,
};
MK_CREATE(swimmer_create, &swimmer_def)

/*---------------------------------- Observation, distance -----------------------------------------*/

/* _get_obs: concatenate((qpos[2:] or qpos), qvel). */
static void swimmer_obs(const mk_env *e, double *obs) {
  const swimmer_shared *sh = e->sh;
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = 2 * sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void swimmer_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mjData *d = e->d;
  mk_reset_uniform(e, rng);
  swimmer_obs(e, out->obs);
  mk_info(out, SWM_X_POSITION, d->qpos[0]); /* _get_reset_info */
  mk_info(out, SWM_Y_POSITION, d->qpos[1]);
  mk_info(out, SWM_DISTANCE, mdv_np_norm(&e->k->dot, d->qpos, 2));
}

static void swimmer_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const swimmer_shared *sh = e->sh;
  mjData *d = e->d;

  double x_before = d->qpos[0], y_before = d->qpos[1];
  mk_do_simulation(e, action);
  double x_after = d->qpos[0], y_after = d->qpos[1];
  double x_velocity = (x_after - x_before) / sh->g.dt;
  double y_velocity = (y_after - y_before) / sh->g.dt;

  swimmer_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight, gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = forward_reward - ctrl_cost;

  *out->terminated = 0;
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, SWM_X_POSITION, x_after);
  mk_info(out, SWM_Y_POSITION, y_after);
  mk_info(out, SWM_DISTANCE, mdv_np_norm(&e->k->dot, d->qpos, 2) /* qpos[0:2] is (x_after, y_after) */);
  mk_info(out, SWM_X_VELOCITY, x_velocity);
  mk_info(out, SWM_Y_VELOCITY, y_velocity);
  mk_info(out, SWM_REWARD_FORWARD, forward_reward);
  mk_info(out, SWM_REWARD_CTRL, -ctrl_cost);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_swimmer_v5 = {
  .name = "Swimmer-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Swimmer-v5 (swimmer_v5.py), bit for bit, on its own swimmer.xml",
  .options = swimmer_options,
  .n_options = SWM_N_OPTIONS,
  .create = swimmer_create,
  .reset = swimmer_reset,
  .step = swimmer_step,
  .gym_id = "mdvec/Swimmer-v5",
  .reference = "Swimmer-v5",
  .reward_threshold = "360.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* swimmer_v5.py passes no default_camera_config: OffScreenViewer._init_camera's alone */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM, .camera_id = -1},
  MK_TASK_DEFAULTS,
};
