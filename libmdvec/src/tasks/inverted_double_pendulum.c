/* inverted_double_pendulum.c: Gymnasium's InvertedDoublePendulum-v5, bit for bit
 * (gymnasium/envs/mujoco/inverted_double_pendulum_v5.py, InvertedDoublePendulumEnv).
 *
 * The model is Gymnasium's own inverted_double_pendulum.xml (or any xml_file), loaded at run time
 * (gym_mujoco.c). Every expression below is the numpy / Python one of the reference, in its order:
 *   step:   do_simulation; x, _, y = site_xpos[0]; terminated = bool(y <= 1);
 *           v1, v2 = qvel[1:3];
 *           dist_penalty = 0.01 * x**2 + (y - 2) ** 2; vel_penalty = 1e-3 * v1**2 + 5e-3 * v2**2
 *           (np.float64 ** 2 is libm pow(v, 2.0), not v * v: mdv_py_pow);
 *           alive_bonus = healthy_reward * int(not terminated) (a Python float; 0.0 * w when
 *           terminated); reward = alive_bonus - dist_penalty - vel_penalty; truncated by TimeLimit.
 *           The action costs nothing.
 *   obs:    concatenate([qpos[:1], sin(qpos[1:]), cos(qpos[1:]), clip(qvel, -10, 10),
 *           clip(qfrc_constraint, -10, 10)[:1]]), float64 (numpy's float64 np.sin/np.cos loops
 *           call libm's sin/cos, as this does: checked on an AVX2 x86-64).
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel +
 *           standard_normal(nv) * s (qpos draws first); set_state (mj_forward).
 *   info:   step: reward_survive (a Python float), distance_penalty, velocity_penalty (np.float64);
 *           reset: none (MujocoEnv's _get_reset_info is {}).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { IDP_HEALTHY_REWARD = GM_N_OPTIONS, IDP_N_OPTIONS };

static const mdv_option_decl inverted_double_pendulum_options[IDP_N_OPTIONS] = {
  GM_OPTIONS("inverted_double_pendulum.xml", "5", "1000", "0.1"),
  [IDP_HEALTHY_REWARD] = {"healthy_reward", MDVEC_OPT_DOUBLE, "10.0", -HUGE_VAL, HUGE_VAL, NULL,
                          "reward of each step that does not terminate (reward_survive)"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { IDP_REWARD_SURVIVE, IDP_DISTANCE_PENALTY, IDP_VELOCITY_PENALTY, IDP_N_INFO };

static const mdv_field inverted_double_pendulum_info[IDP_N_INFO] = {
  [IDP_REWARD_SURVIVE] = {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [IDP_DISTANCE_PENALTY] = {"distance_penalty", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [IDP_VELOCITY_PENALTY] = {"velocity_penalty", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct inverted_double_pendulum_shared_ {
  mk_shared g;
  double healthy_reward;
} inverted_double_pendulum_shared;

static int inverted_double_pendulum_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  inverted_double_pendulum_shared *sh = shared;
  const mjModel *m = sh->g.m;
  if (m->nq < 1 || m->nv < 3 || m->nsite < 1) { /* qpos[:1], v1, v2 = qvel[1:3], site_xpos[0] */
    snprintf(err, n,
             "InvertedDoublePendulum-v5: the model '%s' has nq = %d, nv = %d, nsite = %d; "
             "InvertedDoublePendulum-v5 reads qpos[0], qvel[1:3] and site_xpos[0] (nq >= 1, nv >= 3, "
             "nsite >= 1)",
             sh->g.path, (int)m->nq, (int)m->nv, (int)m->nsite);
    return MDVEC_ERR_MODEL;
  }
  sh->healthy_reward = opts[IDP_HEALTHY_REWARD].d[0];

  spec->obs_dim = 1 + 2 * (int)(m->nq - 1) + (int)m->nv + 1;
  spec->n_info = IDP_N_INFO;
  spec->info = inverted_double_pendulum_info;
  return MDVEC_OK;
}

static const mk_def inverted_double_pendulum_def = {
  .task = "InvertedDoublePendulum-v5",
  GM_DEF,
  .shared_size = sizeof(inverted_double_pendulum_shared),
  .setup = inverted_double_pendulum_setup,
};
MK_CREATE(inverted_double_pendulum_create, &inverted_double_pendulum_def)

/*---------------------------------- Observation ---------------------------------------------------*/

/* _get_obs: concatenate([qpos[:1], np.sin(qpos[1:]), np.cos(qpos[1:]), np.clip(qvel, -10, 10),
   np.clip(qfrc_constraint, -10, 10)[:1]]). Each of sin and cos gets its own loop. */
static void inverted_double_pendulum_obs(const mk_env *e, double *obs) {
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  obs[k++] = d->qpos[0];
  for (int i = 1; i < m->nq; i++) obs[k++] = sin(d->qpos[i]);
  for (int i = 1; i < m->nq; i++) obs[k++] = cos(d->qpos[i]);
  for (int i = 0; i < m->nv; i++) obs[k++] = mdv_np_clip(d->qvel[i], -10.0, 10.0);
  obs[k++] = mdv_np_clip(d->qfrc_constraint[0], -10.0, 10.0);
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void inverted_double_pendulum_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  mjData *d = e->d;
  mk_reset_begin(e);
  mk_add_uniform_noise(e, d->qpos, g->init_qpos, g->m->nq, rng); /* reset_model */
  mk_add_normal_noise(e, d->qvel, g->init_qvel, g->m->nv, rng);
  mk_set_state_done(e);
  inverted_double_pendulum_obs(e, out->obs);
}

static void inverted_double_pendulum_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                                          const mdv_out *out) {
  (void)rng;
  (void)action_dtype; /* the action only drives the simulation (ctrl is float64) */
  mk_env *e = env;
  const inverted_double_pendulum_shared *sh = e->sh;
  mjData *d = e->d;

  mk_do_simulation(e, action);
  double x = d->site_xpos[0], y = d->site_xpos[2];
  inverted_double_pendulum_obs(e, out->obs);
  int terminated = y <= 1.0;

  /* _get_rew */
  double v1 = d->qvel[1], v2 = d->qvel[2];
  double dist_penalty = 0.01 * mdv_py_pow(x, 2.0) + mdv_py_pow(y - 2.0, 2.0);
  double vel_penalty = 1e-3 * mdv_py_pow(v1, 2.0) + 5e-3 * mdv_py_pow(v2, 2.0);
  double alive_bonus = sh->healthy_reward * (double)!terminated;
  *out->reward = alive_bonus - dist_penalty - vel_penalty;
  *out->terminated = (uint8_t)terminated;
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, IDP_REWARD_SURVIVE, alive_bonus);
  mk_info(out, IDP_DISTANCE_PENALTY, -dist_penalty);
  mk_info(out, IDP_VELOCITY_PENALTY, -vel_penalty);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_inverted_double_pendulum_v5 = {
  .name = "InvertedDoublePendulum-v5",
  .summary =
    "Gymnasium's InvertedDoublePendulum-v5 (inverted_double_pendulum_v5.py), bit for bit, on "
    "its own inverted_double_pendulum.xml",
  .options = inverted_double_pendulum_options,
  .n_options = IDP_N_OPTIONS,
  .create = inverted_double_pendulum_create,
  .reset = inverted_double_pendulum_reset,
  .step = inverted_double_pendulum_step,
  .gym_id = "mdvec/InvertedDoublePendulum-v5",
  .reference = "InvertedDoublePendulum-v5",
  .reward_threshold = "9100.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* reward_survive is a Python float (inverted_double_pendulum_v5.py: healthy_reward * int(not terminated)) */
  .info_kinds = (const mdv_field_kind[]){{"reward_survive", MDVEC_KIND_FLOAT}, {NULL, 0}},
  /* inverted_double_pendulum_v5.py defines a DEFAULT_CAMERA_CONFIG but passes default_camera_config=None (its
     default): OffScreenViewer._init_camera's alone */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM, .camera_id = -1},
  MK_TASK_DEFAULTS,
};
