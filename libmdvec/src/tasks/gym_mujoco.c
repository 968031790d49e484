/* gym_mujoco.c: what the Gymnasium MuJoCo v5 tasks share; see gym_mujoco.h.
 *
 * References (gymnasium 1.x): envs/mujoco/mujoco_env.py (MujocoEnv.expand_model_path; the rest of
 * MujocoEnv is the kit's, mjkit.c), hopper_v5.py, walker2d_v5.py, humanoid_v5.py,
 * humanoidstandup_v5.py, numpy's loops_utils.h.src (FLOAT_pairwise_sum).
 */
#include "gym_mujoco.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npmath.h"

/*---------------------------------- The model ------------------------------------------------------*/

int gm_check_xml_file(const char *task, const char *path, char *err, size_t n) {
  if (!path || !path[0]) {
    snprintf(err, n, "%s: option xml_file is empty: give the path of an MJCF model", task);
    return MDVEC_ERR_CONFIG;
  }
  if (path[0] != '/' && path[0] != '.') {
    /* MujocoEnv's expand_model_path: "~..." is expanded, any other name is looked up in gymnasium's
       assets folder; neither is known here. */
    snprintf(err, n,
             "%s: option xml_file '%s' is not a path starting with '/' or '.': Gymnasium resolves "
             "a bare name in gymnasium/envs/mujoco/assets/ and expands '~', which the C library "
             "cannot do; give the resolved path (mdvec's Python binding resolves it like "
             "Gymnasium's MujocoEnv)",
             task, path);
    return MDVEC_ERR_CONFIG;
  }
  return MDVEC_OK;
}

/*---------------------------------- numpy in the action's dtype -----------------------------------*/

double gm_sum_square(const double *a, int n, int dtype) {
  if (n <= 0) return 0.0;
  return dtype == MDVEC_DTYPE_F32 ? mdv_np_sum_square_f32(a, n) : mdv_np_sum_square(a, n);
}

double gm_weak_mul(double w, double x, int dtype) {
  if (dtype == MDVEC_DTYPE_F32) return (double)((float)w * (float)x);
  return w * x;
}

/*---------------------------------- Humanoid-v5 and HumanoidStandup-v5 ----------------------------*/

int gm_humanoid_init(gm_humanoid *h, const mjModel *m, const mdv_value *obs_opts, const mdv_field *head, int n_head,
                     const mdv_field *tail, int n_tail, mdv_spec *spec) {
  h->exclude = obs_opts[GM_HOBS_EXCLUDE].i[0] != 0;
  h->cinert = obs_opts[GM_HOBS_CINERT].i[0] != 0;
  h->cvel = obs_opts[GM_HOBS_CVEL].i[0] != 0;
  h->qfrc_actuator = obs_opts[GM_HOBS_QFRC_ACTUATOR].i[0] != 0;
  h->cfrc_ext = obs_opts[GM_HOBS_CFRC_EXT].i[0] != 0;
  h->n_head = n_head;
  h->ntendon = (int)m->ntendon;
  int n_info = n_head + 2 * h->ntendon + n_tail;
  size_t name_size = 32;
  h->info = calloc((size_t)n_info, sizeof *h->info);
  h->names = malloc(name_size * (size_t)(2 * h->ntendon > 0 ? 2 * h->ntendon : 1));
  if (!h->info || !h->names) return MDVEC_ERR_NOMEM;
  memcpy(h->info, head, sizeof *head * (size_t)n_head);
  for (int k = 0; k < 2 * h->ntendon; k++) {
    char *name = h->names + name_size * (size_t)k;
    snprintf(name, name_size, "%s[%d]", k < h->ntendon ? "tendon_length" : "tendon_velocity", k % h->ntendon);
    h->info[n_head + k] = (mdv_field){name, MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET};
  }
  memcpy(h->info + n_head + 2 * h->ntendon, tail, sizeof *tail * (size_t)n_tail);

  int nbody1 = (int)m->nbody - 1;
  spec->obs_dim = (int)(m->nq + m->nv) - 2 * h->exclude + 10 * nbody1 * h->cinert + 6 * nbody1 * h->cvel +
                  (m->nv > 6 ? (int)m->nv - 6 : 0) * h->qfrc_actuator + 6 * nbody1 * h->cfrc_ext;
  spec->n_info = n_info;
  spec->info = h->info;
  return MDVEC_OK;
}

void gm_humanoid_free(gm_humanoid *h) {
  free(h->info);
  free(h->names);
  h->info = NULL;
  h->names = NULL;
}

void gm_humanoid_obs(const gm_humanoid *h, const mjModel *m, const mjData *d, double *obs) {
  int k = 0, nb = (int)m->nbody;
  for (int i = 2 * h->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
  if (h->cinert)
    for (int i = 10; i < 10 * nb; i++) obs[k++] = d->cinert[i];
  if (h->cvel)
    for (int i = 6; i < 6 * nb; i++) obs[k++] = d->cvel[i];
  if (h->qfrc_actuator)
    for (int i = 6; i < m->nv; i++) obs[k++] = d->qfrc_actuator[i];
  if (h->cfrc_ext)
    for (int i = 6; i < 6 * nb; i++) obs[k++] = d->cfrc_ext[i];
}

void gm_humanoid_tendon_info(const gm_humanoid *h, const mjData *d, const mdv_out *out) {
  for (int k = 0; k < h->ntendon; k++) {
    mk_info(out, h->n_head + k, d->ten_length[k]);
    mk_info(out, h->n_head + h->ntendon + k, d->ten_velocity[k]);
  }
}

/*---------------------------------- Hopper-v5 and Walker2d-v5 -------------------------------------*/

enum { GW_X_POSITION, GW_Z_DISTANCE, GW_X_VELOCITY, GW_REWARD_FORWARD, GW_REWARD_CTRL, GW_REWARD_SURVIVE, GW_N_INFO };

static const mdv_field walker_info[GW_N_INFO] = {
  [GW_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [GW_Z_DISTANCE] = {"z_distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [GW_X_VELOCITY] = {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [GW_REWARD_FORWARD] = {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [GW_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  [GW_REWARD_SURVIVE] = {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

int gm_walker_setup(gm_walker *sh, mdv_spec *spec, char *err, size_t err_size) {
  if (sh->g.m->nq < 3) { /* is_healthy unpacks qpos[1:3] */
    snprintf(err, err_size, "%s: the model '%s' has nq = %d; %s reads qpos[0:3] (x, z, angle)", sh->g.task, sh->g.path,
             (int)sh->g.m->nq, sh->g.task);
    return MDVEC_ERR_MODEL;
  }
  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - sh->exclude;
  spec->n_info = GW_N_INFO;
  spec->info = walker_info;
  return MDVEC_OK;
}

/* _get_obs: concatenate((qpos[1:] or qpos), np.clip(qvel, -10, 10)). */
static void walker_obs(const mk_env *e, double *obs) {
  const gm_walker *sh = e->sh;
  const mjModel *m = sh->g.m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = mdv_np_clip(d->qvel[i], -10.0, 10.0);
}

/* is_healthy: [Hopper: np.all(lo < state < hi) for state = concatenate(qpos, qvel)[2:] and]
 * lo < z < hi and lo < angle < hi; every bound strict (a NaN is unhealthy). */
static int walker_is_healthy(const mk_env *e) {
  const gm_walker *sh = e->sh;
  const mjModel *m = sh->g.m;
  const mjData *d = e->d;
  int healthy_state = 1;
  if (sh->check_state) {
    for (int i = 2; i < m->nq; i++)
      if (!(sh->state_lo < d->qpos[i] && d->qpos[i] < sh->state_hi)) healthy_state = 0;
    for (int i = 0; i < m->nv; i++)
      if (!(sh->state_lo < d->qvel[i] && d->qvel[i] < sh->state_hi)) healthy_state = 0;
  }
  double z = d->qpos[1], angle = d->qpos[2];
  int healthy_z = sh->z_lo < z && z < sh->z_hi;
  int healthy_angle = sh->angle_lo < angle && angle < sh->angle_hi;
  return healthy_state && healthy_z && healthy_angle;
}

void gm_walker_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  const mjData *d = e->d;
  mk_reset_uniform(e, rng);
  walker_obs(e, out->obs);
  mk_info(out, GW_X_POSITION, d->qpos[0]); /* _get_reset_info */
  mk_info(out, GW_Z_DISTANCE, d->qpos[1] - g->init_qpos[1]);
}

void gm_walker_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const gm_walker *sh = e->sh;
  mjData *d = e->d;

  double x_position_before = d->qpos[0];
  mk_do_simulation(e, action);
  double x_position_after = d->qpos[0];
  double x_velocity = (x_position_after - x_position_before) / sh->g.dt;

  walker_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  int is_healthy = walker_is_healthy(e);
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight, gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = rewards - ctrl_cost;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)mk_time_limit(e);

  mk_info(out, GW_X_POSITION, x_position_after);
  mk_info(out, GW_Z_DISTANCE, d->qpos[1] - sh->g.init_qpos[1]);
  mk_info(out, GW_X_VELOCITY, x_velocity);
  mk_info(out, GW_REWARD_FORWARD, forward_reward);
  mk_info(out, GW_REWARD_CTRL, -ctrl_cost);
  mk_info(out, GW_REWARD_SURVIVE, healthy_reward);
}
