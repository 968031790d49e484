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
  {"reward_survive", MDVEC_DTYPE_I64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and env -------------------------------------------*/

typedef struct inverted_pendulum_shared_ {
  gm_shared g;
} inverted_pendulum_shared;

typedef struct inverted_pendulum_env_ {
  gm_env g;
  const inverted_pendulum_shared *sh;
} inverted_pendulum_env;

static int inverted_pendulum_create(void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err,
                                    size_t n) {
  *shared = NULL;
  int rc;
  inverted_pendulum_shared *sh = gm_new_shared(sizeof *sh, dot, "InvertedPendulum-v5", opts, err, n, &rc);
  if (!sh) return rc;
  if (sh->g.m->nq + sh->g.m->nv < 2) {  /* step reads observation[1] */
    snprintf(err, n, "InvertedPendulum-v5: the model '%s' has nq + nv = %d; InvertedPendulum-v5 "
             "reads observation[1] (the pole angle)", sh->g.path, (int)(sh->g.m->nq + sh->g.m->nv));
    gm_task_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  gm_fill_spec(&sh->g, spec);
  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv);
  spec->n_info = IP_N_INFO;
  spec->info = inverted_pendulum_info;
  spec->env_size = sizeof(inverted_pendulum_env);
  *shared = sh;
  return MDVEC_OK;
}

static int inverted_pendulum_env_init(void *env, const void *shared, char *err, size_t n) {
  inverted_pendulum_env *e = env;
  e->sh = shared;
  return gm_env_init(&e->g, &e->sh->g, err, n);
}

/*---------------------------------- Observation ---------------------------------------------------*/

/* _get_obs: concatenate([qpos, qvel]); returns its length. */
static int inverted_pendulum_obs(const inverted_pendulum_env *e, double *obs) {
  const mjModel *m = e->sh->g.m;
  const mjData *d = e->g.d;
  int k = 0;
  for (int i = 0; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
  return k;
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void inverted_pendulum_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  inverted_pendulum_env *e = env;
  const gm_shared *g = &e->sh->g;
  mjData *d = e->g.d;
  gm_reset_begin(&e->g);
  gm_add_uniform_noise(&e->g, d->qpos, g->init_qpos, g->m->nq, rng);  /* reset_model */
  gm_add_uniform_noise(&e->g, d->qvel, g->init_qvel, g->m->nv, rng);
  gm_set_state_done(&e->g);
  inverted_pendulum_obs(e, out->obs);
}

static void inverted_pendulum_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng,
                                   const mdv_out *out) {
  (void)rng;
  (void)action_dtype;  /* the action only drives the simulation (ctrl is float64) */
  inverted_pendulum_env *e = env;
  double *obs = out->obs;

  gm_do_simulation(&e->g, action);
  int n = inverted_pendulum_obs(e, obs);

  int all_finite = 1;  /* np.isfinite(observation).all() */
  for (int i = 0; i < n; i++) {
    if (!isfinite(obs[i])) all_finite = 0;
  }
  int terminated = !all_finite || fabs(obs[1]) > 0.2;
  int reward = !terminated;  /* int(not terminated) */
  *out->reward = (double)reward;
  *out->terminated = (uint8_t)terminated;
  *out->truncated = (uint8_t)gm_time_limit(&e->g);
  gm_info(out, IP_REWARD_SURVIVE, (double)reward);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_inverted_pendulum_v5 = {
  .name = "InvertedPendulum-v5",
  .summary = "Gymnasium's InvertedPendulum-v5 (inverted_pendulum_v5.py), bit for bit, on its own "
             "inverted_pendulum.xml",
  .options = inverted_pendulum_options,
  .n_options = IP_N_OPTIONS,
  .constants = NULL,
  .n_constants = 0,
  .create = inverted_pendulum_create,
  .destroy = gm_task_destroy,
  .env_init = inverted_pendulum_env_init,
  .env_free = gm_task_env_free,
  .reset = inverted_pendulum_reset,
  .step = inverted_pendulum_step,
  .physics = gm_task_physics,
  .gym_id = "mdvec/InvertedPendulum-v5",
  .reference = "InvertedPendulum-v5",
  .reward_threshold = "950.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_INT,  /* int(not terminated) */
  .float_kind = MDVEC_KIND_NUMPY,
};
