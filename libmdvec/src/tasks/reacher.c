/* reacher.c: Gymnasium's Reacher-v5, bit for bit (gymnasium/envs/mujoco/reacher_v5.py, ReacherEnv).
 *
 * The model is Gymnasium's own reacher.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of reacher_v5.py, in its order and dtype:
 *   step:   do_simulation; vec = xpos[fingertip] - xpos[target];
 *           reward_dist = -np.linalg.norm(vec) * reward_dist_weight (mdv_np_norm: numpy's BLAS ddot);
 *           reward_ctrl = -np.square(action).sum() * reward_control_weight (the action's dtype: float32
 *           actions give a float32 reward_ctrl under NEP 50); reward = reward_dist + reward_ctrl;
 *           never terminated.
 *   obs:    concatenate(np.cos(qpos[:2]), np.sin(qpos[:2]), qpos[2:], qvel[:2],
 *           (xpos[fingertip] - xpos[target])[:2]), float64 (numpy's float64 cos/sin are libm's here).
 *   reset:  mj_resetData; qpos = uniform(-0.1, 0.1, nq) + init_qpos; goal = uniform(-0.2, 0.2, 2)
 *           until np.linalg.norm(goal) < 0.2; qpos[-2:] = goal; qvel = init_qvel +
 *           uniform(-0.005, 0.005, nv); qvel[-2:] = 0; set_state (mj_forward). No reset_noise_scale.
 *   info:   step: reward_dist (np.float64), reward_ctrl (the action's dtype); reset: none.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { REA_REWARD_DIST_WEIGHT = GM_N_FIXED_NOISE_OPTIONS, REA_REWARD_CONTROL_WEIGHT, REA_N_OPTIONS };

static const mdv_option_decl reacher_options[REA_N_OPTIONS] = {
  GM_OPTIONS_FIXED_NOISE("reacher.xml", "2", "50"),
  [REA_REWARD_DIST_WEIGHT] = {"reward_dist_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                              "weight of the fingertip-target distance subtracted from the reward (reward_dist)"},
  [REA_REWARD_CONTROL_WEIGHT] = {"reward_control_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of sum(action**2) subtracted from the reward (reward_ctrl)"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { REA_REWARD_DIST, REA_REWARD_CTRL, REA_N_INFO };

static const mdv_field reacher_info[REA_N_INFO] = {
  [REA_REWARD_DIST] = {"reward_dist", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [REA_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct reacher_shared_ {
  mk_shared g;
  double reward_dist_weight, reward_control_weight;
  int fingertip, target; /* body ids */
} reacher_shared;

static int reacher_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  reacher_shared *sh = shared;
  const mjModel *m = sh->g.m;
  sh->fingertip = mj_name2id(m, mjOBJ_BODY, "fingertip");
  sh->target = mj_name2id(m, mjOBJ_BODY, "target");
  if (m->nq < 2 || m->nv < 2 || sh->fingertip < 0 || sh->target < 0) {
    snprintf(err, n,
             "Reacher-v5: the model '%s' needs bodies 'fingertip' and 'target' and nq, nv >= 2 "
             "(it has nq = %d, nv = %d%s%s)",
             sh->g.path, (int)m->nq, (int)m->nv, sh->fingertip < 0 ? ", no body 'fingertip'" : "",
             sh->target < 0 ? ", no body 'target'" : "");
    return MDVEC_ERR_MODEL;
  }
  sh->reward_dist_weight = opts[REA_REWARD_DIST_WEIGHT].d[0];
  sh->reward_control_weight = opts[REA_REWARD_CONTROL_WEIGHT].d[0];

  spec->obs_dim = (int)m->nq + 6; /* 2 cos + 2 sin + (nq - 2) + 2 qvel + 2 */
  spec->n_info = REA_N_INFO;
  spec->info = reacher_info;
  return MDVEC_OK;
}

static const mk_def reacher_def = {
  .task = "Reacher-v5",
  GM_DEF_FIXED_NOISE,
  .shared_size = sizeof(reacher_shared),
  .setup = reacher_setup,
};
MK_CREATE(reacher_create, &reacher_def)

/*---------------------------------- Observation ---------------------------------------------------*/

/* vec = get_body_com("fingertip") - get_body_com("target") (xpos). */
static void reacher_vec(const mk_env *e, double vec[3]) {
  const reacher_shared *sh = e->sh;
  const mjtNum *xpos = e->d->xpos;
  for (int i = 0; i < 3; i++) vec[i] = xpos[3 * sh->fingertip + i] - xpos[3 * sh->target + i];
}

/* _get_obs */
static void reacher_obs(const mk_env *e, double *obs) {
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  double vec[3];
  for (int i = 0; i < 2; i++) obs[k++] = cos(d->qpos[i]);
  for (int i = 0; i < 2; i++) obs[k++] = sin(d->qpos[i]);
  for (int i = 2; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < 2; i++) obs[k++] = d->qvel[i];
  reacher_vec(e, vec);
  obs[k++] = vec[0];
  obs[k++] = vec[1];
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void reacher_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  const mjModel *m = g->m;
  mjData *d = e->d;
  mk_reset_begin(e);
  /* reset_model */
  for (int i = 0; i < m->nq; i++) d->qpos[i] = mdv_pcg64_uniform(rng, -0.1, 0.1) + g->init_qpos[i];
  double goal[2];
  for (;;) {
    goal[0] = mdv_pcg64_uniform(rng, -0.2, 0.2);
    goal[1] = mdv_pcg64_uniform(rng, -0.2, 0.2);
    if (mdv_np_norm(&e->k->dot, goal, 2) < 0.2) break;
  }
  d->qpos[m->nq - 2] = goal[0];
  d->qpos[m->nq - 1] = goal[1];
  for (int i = 0; i < m->nv; i++) d->qvel[i] = g->init_qvel[i] + mdv_pcg64_uniform(rng, -0.005, 0.005);
  d->qvel[m->nv - 2] = 0.0;
  d->qvel[m->nv - 1] = 0.0;
  mk_set_state_done(e);
  reacher_obs(e, out->obs);
}

static void reacher_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const reacher_shared *sh = e->sh;

  mk_do_simulation(e, action);
  reacher_obs(e, out->obs);

  /* _get_rew */
  double vec[3];
  reacher_vec(e, vec);
  double reward_dist = -mdv_np_norm(&e->k->dot, vec, 3) * sh->reward_dist_weight;
  double reward_ctrl =
    gm_weak_mul(sh->reward_control_weight, -gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = reward_dist + reward_ctrl;
  *out->terminated = 0;
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, REA_REWARD_DIST, reward_dist);
  mk_info(out, REA_REWARD_CTRL, reward_ctrl);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_reacher_v5 = {
  .name = "Reacher-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Reacher-v5 (reacher_v5.py), bit for bit, on its own reacher.xml",
  .options = reacher_options,
  .n_options = REA_N_OPTIONS,
  .create = reacher_create,
  .reset = reacher_reset,
  .step = reacher_step,
  .gym_id = "mdvec/Reacher-v5",
  .reference = "Reacher-v5",
  .reward_threshold = "-3.75",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* reacher_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM, .camera_id = -1, .set = MDV_CAM_TRACKBODYID, .trackbodyid = 0},
  MK_TASK_DEFAULTS,
};
