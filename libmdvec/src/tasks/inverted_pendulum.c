/* inverted_pendulum.c: Gymnasium's InvertedPendulum-v5, bit for bit
 * (gymnasium/envs/mujoco/inverted_pendulum_v5.py, InvertedPendulumEnv).
 *
 * The model is Gymnasium's own inverted_pendulum.xml (or any xml_file), loaded at run time
 * (gym_mujoco.c). Every expression below is the numpy / Python one of inverted_pendulum_v5.py:
 *   step:   do_simulation; obs = concatenate(qpos, qvel);
 *           terminated = bool(not np.isfinite(obs).all() or np.abs(obs[1]) > 0.2);
 *           reward = int(not terminated): a Python int, 1 or 0 (1.0 or 0.0 in the float64 reward
 *           buffer); truncated by TimeLimit. The action costs nothing.
 *   obs:    concatenate(qpos, qvel), float64, nothing clipped (Gymnasium's space says (4,); a model
 *           of other sizes gives nq + nv values, as Gymnasium does).
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: reward_survive (the reward, a Python int: int64); reset: none (MujocoEnv's
 *           _get_reset_info is {}).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gym_mujoco.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { IP_N_OPTIONS = GM_N_OPTIONS };

static const mdv_option_decl inverted_pendulum_options[IP_N_OPTIONS] = {
  GM_OPTIONS("inverted_pendulum.xml", "2", "1000", "0.01"),
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { IP_REWARD_SURVIVE, IP_N_INFO };

static const mdv_field inverted_pendulum_info[IP_N_INFO] = {
  [IP_REWARD_SURVIVE] = {"reward_survive", MDVEC_DTYPE_I64, MDVEC_INFO_STEP},
};

/*---------------------------------- Setup --------------------------------------------------------*/

static int inverted_pendulum_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts; /* the GM_OPTIONS only: the kit's */
  const mk_shared *k = shared;
  if (k->m->nq + k->m->nv < 2) { /* step reads observation[1] */
    snprintf(err, n,
             "InvertedPendulum-v5: the model '%s' has nq + nv = %d; InvertedPendulum-v5 "
             "reads observation[1] (the pole angle)",
             k->path, (int)(k->m->nq + k->m->nv));
    return MDVEC_ERR_MODEL;
  }
  spec->obs_dim = (int)(k->m->nq + k->m->nv);
  spec->n_info = IP_N_INFO;
  spec->info = inverted_pendulum_info;
  return MDVEC_OK;
}

static const mk_def inverted_pendulum_def = {
  .task = "InvertedPendulum-v5",
  GM_DEF,
  .setup = inverted_pendulum_setup,
};
MK_CREATE(inverted_pendulum_create, &inverted_pendulum_def)

/*---------------------------------- Observation ---------------------------------------------------*/

/* _get_obs: concatenate([qpos, qvel]); returns its length. */
static int inverted_pendulum_obs(const mk_env *e, double *obs) {
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = 0; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
  return k;
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void inverted_pendulum_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  mk_reset_uniform(e, rng);
  inverted_pendulum_obs(e, out->obs);
}

static void inverted_pendulum_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                                   const mdv_out *out) {
  (void)rng;
  (void)action_dtype; /* the action only drives the simulation (ctrl is float64) */
  mk_env *e = env;
  double *obs = out->obs;

  mk_do_simulation(e, action);
  int n = inverted_pendulum_obs(e, obs);

  int all_finite = 1; /* np.isfinite(observation).all() */
  for (int i = 0; i < n; i++) {
    if (!isfinite(obs[i])) all_finite = 0;
  }
  int terminated = !all_finite || fabs(obs[1]) > 0.2;
  int reward = !terminated; /* int(not terminated) */
  *out->reward = (double)reward;
  *out->terminated = (uint8_t)terminated;
  *out->truncated = (uint8_t)mk_time_limit(e);
  mk_info(out, IP_REWARD_SURVIVE, (double)reward);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_inverted_pendulum_v5 = {
  .name = "InvertedPendulum-v5",
  .summary =
    "Gymnasium's InvertedPendulum-v5 (inverted_pendulum_v5.py), bit for bit, on its own "
    "inverted_pendulum.xml",
  .options = inverted_pendulum_options,
  .n_options = IP_N_OPTIONS,
  .create = inverted_pendulum_create,
  .reset = inverted_pendulum_reset,
  .step = inverted_pendulum_step,
  .gym_id = "mdvec/InvertedPendulum-v5",
  .reference = "InvertedPendulum-v5",
  .reward_threshold = "950.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_INT, /* int(not terminated) */
  .float_kind = MDVEC_KIND_NUMPY,
  /* inverted_pendulum_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE,
                                .trackbodyid = 0,
                                .distance = 2.04},
  MK_TASK_DEFAULTS,
};
