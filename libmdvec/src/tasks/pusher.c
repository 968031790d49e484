/* pusher.c: Gymnasium's Pusher-v5, bit for bit (gymnasium/envs/mujoco/pusher_v5.py, PusherEnv).
 *
 * The model is Gymnasium's own pusher_v5.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of pusher_v5.py, in its order and dtype:
 *   step:   do_simulation; vec_1 = xpos[object] - xpos[tips_arm]; vec_2 = xpos[object] - xpos[goal];
 *           reward_near = -np.linalg.norm(vec_1) * reward_near_weight;
 *           reward_dist = -np.linalg.norm(vec_2) * reward_dist_weight (mdv_np_norm: numpy's BLAS ddot);
 *           reward_ctrl = -np.square(action).sum() * reward_control_weight (the action's dtype: float32
 *           actions give a float32 reward_ctrl under NEP 50);
 *           reward = reward_dist + reward_ctrl + reward_near; never terminated.
 *   obs:    concatenate(qpos[:7], qvel[:7], xpos[tips_arm], xpos[object], xpos[goal]), float64.
 *   reset:  mj_resetData; qpos = init_qpos (Gymnasium writes into init_qpos itself, whose last four
 *           values every reset overwrites); cylinder = (uniform(-0.3, 0), uniform(-0.2, 0.2)) until
 *           np.linalg.norm(cylinder - [0, 0]) > 0.17; qpos[-4:-2] = cylinder; qpos[-2:] = 0;
 *           qvel = init_qvel + uniform(-0.005, 0.005, nv); qvel[-4:] = 0; set_state (mj_forward).
 *           No reset_noise_scale.
 *   info:   step: reward_dist, reward_ctrl (the action's dtype), reward_near (np.float64); reset: none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  PUS_REWARD_NEAR_WEIGHT = GM_N_FIXED_NOISE_OPTIONS,
  PUS_REWARD_DIST_WEIGHT,
  PUS_REWARD_CONTROL_WEIGHT,
  PUS_N_OPTIONS
};

static const mdv_option_decl pusher_options[PUS_N_OPTIONS] = {
  GM_OPTIONS_FIXED_NOISE("pusher_v5.xml", "5", "100"),
  [PUS_REWARD_NEAR_WEIGHT] = {"reward_near_weight", MDVEC_OPT_DOUBLE, "0.5", -HUGE_VAL, HUGE_VAL, NULL,
                              "weight of the fingertip-object distance subtracted from the reward (reward_near)"},
  [PUS_REWARD_DIST_WEIGHT] = {"reward_dist_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                              "weight of the object-goal distance subtracted from the reward (reward_dist)"},
  [PUS_REWARD_CONTROL_WEIGHT] = {"reward_control_weight", MDVEC_OPT_DOUBLE, "0.1", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of sum(action**2) subtracted from the reward (reward_ctrl)"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { PUS_REWARD_DIST, PUS_REWARD_CTRL, PUS_REWARD_NEAR, PUS_N_INFO };

static const mdv_field pusher_info[PUS_N_INFO] = {
  [PUS_REWARD_DIST] = {"reward_dist", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [PUS_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  [PUS_REWARD_NEAR] = {"reward_near", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct pusher_shared_ {
  mk_shared g;
  double reward_near_weight, reward_dist_weight, reward_control_weight;
  int tips_arm, object, goal; /* body ids */
  int nq_obs, nv_obs;         /* len(qpos[:7]), len(qvel[:7]) */
} pusher_shared;

static int pusher_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  pusher_shared *sh = shared;
  const mjModel *m = sh->g.m;
  sh->tips_arm = mj_name2id(m, mjOBJ_BODY, "tips_arm");
  sh->object = mj_name2id(m, mjOBJ_BODY, "object");
  sh->goal = mj_name2id(m, mjOBJ_BODY, "goal");
  if (m->nq < 4 || m->nv < 4 || sh->tips_arm < 0 || sh->object < 0 || sh->goal < 0) {
    snprintf(err, n,
             "Pusher-v5: the model '%s' needs bodies 'tips_arm', 'object' and 'goal' and nq, nv >= 4 "
             "(it has nq = %d, nv = %d%s%s%s)",
             sh->g.path, (int)m->nq, (int)m->nv, sh->tips_arm < 0 ? ", no body 'tips_arm'" : "",
             sh->object < 0 ? ", no body 'object'" : "", sh->goal < 0 ? ", no body 'goal'" : "");
    return MDVEC_ERR_MODEL;
  }
  sh->reward_near_weight = opts[PUS_REWARD_NEAR_WEIGHT].d[0];
  sh->reward_dist_weight = opts[PUS_REWARD_DIST_WEIGHT].d[0];
  sh->reward_control_weight = opts[PUS_REWARD_CONTROL_WEIGHT].d[0];
  sh->nq_obs = m->nq < 7 ? (int)m->nq : 7;
  sh->nv_obs = m->nv < 7 ? (int)m->nv : 7;

  spec->obs_dim = sh->nq_obs + sh->nv_obs + 9;
  spec->n_info = PUS_N_INFO;
  spec->info = pusher_info;
  return MDVEC_OK;
}

static const mk_def pusher_def = {
  .task = "Pusher-v5",
  GM_DEF_FIXED_NOISE,
  .shared_size = sizeof(pusher_shared),
  .setup = pusher_setup,
};
MK_CREATE(pusher_create, &pusher_def)

/*---------------------------------- Observation ---------------------------------------------------*/

/* _get_obs: concatenate(qpos[:7], qvel[:7], xpos[tips_arm], xpos[object], xpos[goal]). */
static void pusher_obs(const mk_env *e, double *obs) {
  const pusher_shared *sh = e->sh;
  const mjData *d = e->d;
  int k = 0;
  for (int i = 0; i < sh->nq_obs; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < sh->nv_obs; i++) obs[k++] = d->qvel[i];
  for (int i = 0; i < 3; i++) obs[k++] = d->xpos[3 * sh->tips_arm + i];
  for (int i = 0; i < 3; i++) obs[k++] = d->xpos[3 * sh->object + i];
  for (int i = 0; i < 3; i++) obs[k++] = d->xpos[3 * sh->goal + i];
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void pusher_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  const mjModel *m = g->m;
  mjData *d = e->d;
  int nq = (int)m->nq, nv = (int)m->nv;
  mk_reset_begin(e);
  /* reset_model */
  double cylinder[2];
  for (;;) {
    cylinder[0] = mdv_pcg64_uniform(rng, -0.3, 0.0);
    cylinder[1] = mdv_pcg64_uniform(rng, -0.2, 0.2);
    double diff[2] = {cylinder[0] - 0.0, cylinder[1] - 0.0}; /* cylinder_pos - goal_pos (int zeros) */
    if (mdv_np_norm(&e->k->dot, diff, 2) > 0.17) break;
  }
  for (int i = 0; i < nq; i++) d->qpos[i] = g->init_qpos[i];
  d->qpos[nq - 4] = cylinder[0];
  d->qpos[nq - 3] = cylinder[1];
  d->qpos[nq - 2] = 0.0;
  d->qpos[nq - 1] = 0.0;
  for (int i = 0; i < nv; i++) d->qvel[i] = g->init_qvel[i] + mdv_pcg64_uniform(rng, -0.005, 0.005);
  for (int i = nv - 4; i < nv; i++) d->qvel[i] = 0.0;
  mk_set_state_done(e);
  pusher_obs(e, out->obs);
}

static void pusher_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const pusher_shared *sh = e->sh;
  const mjData *d = e->d;

  mk_do_simulation(e, action);
  pusher_obs(e, out->obs);

  /* _get_rew */
  double vec_1[3], vec_2[3];
  for (int i = 0; i < 3; i++) {
    vec_1[i] = d->xpos[3 * sh->object + i] - d->xpos[3 * sh->tips_arm + i];
    vec_2[i] = d->xpos[3 * sh->object + i] - d->xpos[3 * sh->goal + i];
  }
  double reward_near = -mdv_np_norm(&e->k->dot, vec_1, 3) * sh->reward_near_weight;
  double reward_dist = -mdv_np_norm(&e->k->dot, vec_2, 3) * sh->reward_dist_weight;
  double reward_ctrl =
    gm_weak_mul(sh->reward_control_weight, -gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = reward_dist + reward_ctrl + reward_near;
  *out->terminated = 0;
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, PUS_REWARD_DIST, reward_dist);
  mk_info(out, PUS_REWARD_CTRL, reward_ctrl);
  mk_info(out, PUS_REWARD_NEAR, reward_near);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_pusher_v5 = {
  .name = "Pusher-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Pusher-v5 (pusher_v5.py), bit for bit, on its own pusher_v5.xml",
  .options = pusher_options,
  .n_options = PUS_N_OPTIONS,
  .create = pusher_create,
  .reset = pusher_reset,
  .step = pusher_step,
  .gym_id = "mdvec/Pusher-v5",
  .reference = "Pusher-v5",
  .reward_threshold = "0.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* pusher_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE,
                                .trackbodyid = -1,
                                .distance = 4.0},
  MK_TASK_DEFAULTS,
};
