/* half_cheetah.c: Gymnasium's HalfCheetah-v5, bit for bit (gymnasium/envs/mujoco/half_cheetah_v5.py,
 * HalfCheetahEnv).
 *
 * The model is Gymnasium's own half_cheetah.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of half_cheetah_v5.py, in its order and dtype:
 *   step:   x_before = qpos[0]; do_simulation; x_velocity = (qpos[0] - x_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           reward = forward_reward - ctrl_cost_weight * np.sum(np.square(action)) (the cost in the
 *           action's dtype: float32 actions give a float32 cost and reward_ctrl);
 *           never terminated; truncated by TimeLimit.
 *   obs:    concatenate(qpos[1:] (or qpos with exclude_current_positions_from_observation=False),
 *           qvel), float64, nothing clipped.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + s *
 *           standard_normal(nv) (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, x_velocity, reward_forward, reward_ctrl (the action's dtype);
 *           reset (_get_reset_info): x_position.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { HC_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS, HC_CTRL_COST_WEIGHT, HC_EXCLUDE_CURRENT_POSITIONS, HC_N_OPTIONS };

static const mdv_option_decl half_cheetah_options[HC_N_OPTIONS] = {
  GM_OPTIONS("half_cheetah.xml", "5", "1000", "0.1"),
  [HC_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                "weight of x_velocity in the reward (reward_forward)"},
  [HC_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.1", -HUGE_VAL, HUGE_VAL, NULL,
                           "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  [HC_EXCLUDE_CURRENT_POSITIONS] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0,
                                    NULL, "leave qpos[0] (x) out of the observation"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { HC_X_POSITION, HC_X_VELOCITY, HC_REWARD_FORWARD, HC_REWARD_CTRL, HC_N_INFO };

static const mdv_field half_cheetah_info[HC_N_INFO] = {
  [HC_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [HC_X_VELOCITY] = {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HC_REWARD_FORWARD] = {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HC_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct half_cheetah_shared_ {
  mk_shared g;
  double forward_reward_weight, ctrl_cost_weight;
  int exclude; /* exclude_current_positions_from_observation: qpos[0] left out */
} half_cheetah_shared;

static int half_cheetah_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  half_cheetah_shared *sh = shared;
  if (sh->g.m->nq < 1) { /* step reads qpos[0] */
    snprintf(err, n, "HalfCheetah-v5: the model '%s' has nq = 0; HalfCheetah-v5 reads qpos[0] (x)", sh->g.path);
    return MDVEC_ERR_MODEL;
  }
  sh->forward_reward_weight = opts[HC_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[HC_CTRL_COST_WEIGHT].d[0];
  sh->exclude = opts[HC_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;

  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - sh->exclude;
  spec->n_info = HC_N_INFO;
  spec->info = half_cheetah_info;
  return MDVEC_OK;
}

static const mk_def half_cheetah_def = {
  .task = "HalfCheetah-v5",
  GM_DEF,
  .shared_size = sizeof(half_cheetah_shared),
  .setup = half_cheetah_setup,
};
MK_CREATE(half_cheetah_create, &half_cheetah_def)

/*---------------------------------- Observation ---------------------------------------------------*/

/* _get_obs: concatenate((qpos[1:] or qpos), qvel). */
static void half_cheetah_obs(const mk_env *e, double *obs) {
  const half_cheetah_shared *sh = e->sh;
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void half_cheetah_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  mjData *d = e->d;
  mk_reset_begin(e);
  mk_add_uniform_noise(e, d->qpos, g->init_qpos, g->m->nq, rng); /* reset_model */
  mk_add_normal_noise(e, d->qvel, g->init_qvel, g->m->nv, rng);
  mk_set_state_done(e);
  half_cheetah_obs(e, out->obs);
  mk_info(out, HC_X_POSITION, d->qpos[0]); /* _get_reset_info */
}

static void half_cheetah_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const half_cheetah_shared *sh = e->sh;
  mjData *d = e->d;

  double x_position_before = d->qpos[0];
  mk_do_simulation(e, action);
  double x_position_after = d->qpos[0];
  double x_velocity = (x_position_after - x_position_before) / sh->g.dt;

  half_cheetah_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight, gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = forward_reward - ctrl_cost;

  *out->terminated = 0;
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, HC_X_POSITION, x_position_after);
  mk_info(out, HC_X_VELOCITY, x_velocity);
  mk_info(out, HC_REWARD_FORWARD, forward_reward);
  mk_info(out, HC_REWARD_CTRL, -ctrl_cost);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_half_cheetah_v5 = {
  .name = "HalfCheetah-v5",
  .summary = "Gymnasium's HalfCheetah-v5 (half_cheetah_v5.py), bit for bit, on its own half_cheetah.xml",
  .options = half_cheetah_options,
  .n_options = HC_N_OPTIONS,
  .create = half_cheetah_create,
  .reset = half_cheetah_reset,
  .step = half_cheetah_step,
  .gym_id = "mdvec/HalfCheetah-v5",
  .reference = "HalfCheetah-v5",
  .reward_threshold = "4800.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* half_cheetah_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM, .camera_id = -1, .set = MDV_CAM_DISTANCE, .distance = 4.0},
  MK_TASK_DEFAULTS,
};
