/* gym_mujoco.c: what the Gymnasium MuJoCo v5 tasks share; see gym_mujoco.h.
 *
 * References (gymnasium 1.x): envs/mujoco/mujoco_env.py (MujocoEnv: expand_model_path,
 * _initialize_simulation, init_qpos/init_qvel, set_state, _step_mujoco_simulation, dt, reset),
 * wrappers/common.py (TimeLimit), numpy's loops_utils.h.src (FLOAT_pairwise_sum).
 */
#include "gym_mujoco.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "npmath.h"

/*---------------------------------- Shared part ---------------------------------------------------*/

int gm_create(gm_shared *sh, const char *task, const mdv_value *opts, char *err, size_t err_size) {
  memset(sh, 0, sizeof *sh);
  sh->task = task;
  const char *path = opts[GM_OPT_XML_FILE].s;
  if (!path || !path[0]) {
    snprintf(err, err_size, "%s: option xml_file is empty: give the path of an MJCF model", task);
    return MDVEC_ERR_CONFIG;
  }
  if (path[0] != '/' && path[0] != '.') {
    /* MujocoEnv's expand_model_path: "~..." is expanded, any other name is looked up in gymnasium's
       assets folder; neither is known here. */
    snprintf(err, err_size,
             "%s: option xml_file '%s' is not a path starting with '/' or '.': Gymnasium resolves "
             "a bare name in gymnasium/envs/mujoco/assets/ and expands '~', which the C library "
             "cannot do; give the resolved path (mdvec's Python binding resolves it like "
             "Gymnasium's MujocoEnv)", task, path);
    return MDVEC_ERR_CONFIG;
  }
  sh->frame_skip = (int)opts[GM_OPT_FRAME_SKIP].i[0];
  sh->max_episode_steps = (int)opts[GM_OPT_MAX_EPISODE_STEPS].i[0];
  sh->reset_noise_scale = opts[GM_OPT_RESET_NOISE_SCALE].d[0];

  size_t len = strlen(path);
  sh->path = malloc(len + 1);
  if (sh->path) memcpy(sh->path, path, len + 1);
  if (!sh->path) {
    snprintf(err, err_size, "%s: out of memory", task);
    return MDVEC_ERR_NOMEM;
  }
  char load_err[1000] = "";
  int code = MDVEC_ERR_MODEL;
  sh->m = mdv_model_load(NULL, path, &code, load_err, sizeof load_err);  /* regular files only, trapped */
  if (!sh->m) {
    snprintf(err, err_size, "%s: cannot load xml_file '%s': %s", task, path, load_err);
    gm_destroy(sh);
    return code;
  }
  const mjModel *m = sh->m;
  if (m->nu < 1) {
    snprintf(err, err_size, "%s: the model '%s' has no actuator", task, path);
    gm_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  sh->dt = m->opt.timestep * (double)sh->frame_skip;  /* MujocoEnv.dt */

  /* init_qpos / init_qvel: what a fresh MjData holds (mj_makeData resets it to qpos0, zero qvel). */
  sh->init_qpos = malloc(sizeof(double) * (size_t)(m->nq > 0 ? m->nq : 1));
  sh->init_qvel = malloc(sizeof(double) * (size_t)(m->nv > 0 ? m->nv : 1));
  sh->act_low = malloc(sizeof(double) * (size_t)m->nu);
  sh->act_high = malloc(sizeof(double) * (size_t)m->nu);
  mjData *d = sh->init_qpos && sh->init_qvel && sh->act_low && sh->act_high
                  ? mdv_data_make(m, &code, load_err, sizeof load_err) : NULL;
  if (!sh->init_qpos || !sh->init_qvel || !sh->act_low || !sh->act_high || !d) {
    if (d) mj_deleteData(d);
    snprintf(err, err_size, "%s: out of memory", task);
    gm_destroy(sh);
    return MDVEC_ERR_NOMEM;
  }
  memcpy(sh->init_qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(sh->init_qvel, d->qvel, sizeof(double) * (size_t)m->nv);
  mj_deleteData(d);

  /* _set_action_space: Box(actuator_ctrlrange.astype(np.float32)). */
  for (int i = 0; i < m->nu; i++) {
    sh->act_low[i] = (double)(float)m->actuator_ctrlrange[2 * i];
    sh->act_high[i] = (double)(float)m->actuator_ctrlrange[2 * i + 1];
  }
  return MDVEC_OK;
}

void gm_destroy(gm_shared *sh) {
  if (!sh) return;
  if (sh->m) mj_deleteModel(sh->m);
  free(sh->path);
  free(sh->init_qpos);
  free(sh->init_qvel);
  free(sh->act_low);
  free(sh->act_high);
  memset(sh, 0, sizeof *sh);
}

void *gm_new_shared(size_t size, const mdv_dot *dot, const char *task, const mdv_value *opts, char *err,
                    size_t err_size, int *rc) {
  gm_shared *sh = calloc(1, size);
  if (!sh) {
    snprintf(err, err_size, "%s: out of memory", task);
    *rc = MDVEC_ERR_NOMEM;
    return NULL;
  }
  *rc = gm_create(sh, task, opts, err, err_size);
  if (*rc != MDVEC_OK) {
    free(sh);
    return NULL;
  }
  sh->dot = *dot;
  return sh;
}

void gm_task_destroy(void *shared) {
  if (!shared) return;
  gm_destroy(shared);
  free(shared);
}

void gm_fill_spec(const gm_shared *sh, mdv_spec *spec) {
  spec->obs_dtype = MDVEC_DTYPE_F64;
  spec->act_dim = (int)sh->m->nu;
  spec->act_low = sh->act_low;
  spec->act_high = sh->act_high;
  spec->max_episode_steps = sh->max_episode_steps;
  spec->nq = (int)sh->m->nq;
  spec->nv = (int)sh->m->nv;
  spec->nbody = (int)sh->m->nbody;
  spec->model_path = sh->path;
  spec->dt = sh->dt;
}

int gm_env_init(gm_env *e, const gm_shared *sh, char *err, size_t err_size) {
  e->sh = sh;
  e->elapsed = 0;
  int code = MDVEC_ERR_NOMEM;
  e->d = mdv_data_make(sh->m, &code, err, err_size);  /* probes the allocation first: nothing half-made */
  if (!e->d) return -1;
  return 0;
}

void gm_env_free(gm_env *e) {
  if (e->d) mj_deleteData(e->d);
  e->d = NULL;
}

void gm_task_env_free(void *env) {
  gm_env_free(env);
}

void gm_task_physics(void *env, const mjModel **m, mjData **d) {
  gm_env *e = env;
  *m = e->sh->m;
  *d = e->d;
}

/*---------------------------------- Reset ---------------------------------------------------------*/

void gm_reset_begin(gm_env *e) {
  e->elapsed = 0;                   /* TimeLimit.reset */
  mj_resetData(e->sh->m, e->d);     /* MujocoEnv.reset, before reset_model */
}

void gm_add_uniform_noise(const gm_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng) {
  double low = -e->sh->reset_noise_scale, high = e->sh->reset_noise_scale;
  for (int i = 0; i < n; i++) dst[i] = init[i] + mdv_pcg64_uniform(rng, low, high);
}

void gm_add_normal_noise(const gm_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng) {
  double s = e->sh->reset_noise_scale;
  for (int i = 0; i < n; i++) dst[i] = init[i] + s * mdv_pcg64_standard_normal(rng);
}

void gm_set_state_done(gm_env *e) {
  mj_forward(e->sh->m, e->d);
}

/*---------------------------------- Step ----------------------------------------------------------*/

void gm_do_simulation(gm_env *e, const double *action) {
  const mjModel *m = e->sh->m;
  mjData *d = e->d;
  memcpy(d->ctrl, action, sizeof(double) * (size_t)m->nu);
  for (int k = 0; k < e->sh->frame_skip; k++) mj_step(m, d);
  mj_rnePostConstraint(m, d);
}

int gm_time_limit(gm_env *e) {
  e->elapsed++;
  return e->sh->max_episode_steps > 0 && e->elapsed >= e->sh->max_episode_steps;
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

int gm_humanoid_init(gm_humanoid *h, const mjModel *m, const mdv_value *obs_opts, const mdv_field *head,
                     int n_head, const mdv_field *tail, int n_tail, mdv_spec *spec) {
  h->exclude = obs_opts[0].i[0] != 0;
  h->cinert = obs_opts[1].i[0] != 0;
  h->cvel = obs_opts[2].i[0] != 0;
  h->qfrc_actuator = obs_opts[3].i[0] != 0;
  h->cfrc_ext = obs_opts[4].i[0] != 0;
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
  if (h->cinert) for (int i = 10; i < 10 * nb; i++) obs[k++] = d->cinert[i];
  if (h->cvel) for (int i = 6; i < 6 * nb; i++) obs[k++] = d->cvel[i];
  if (h->qfrc_actuator) for (int i = 6; i < m->nv; i++) obs[k++] = d->qfrc_actuator[i];
  if (h->cfrc_ext) for (int i = 6; i < 6 * nb; i++) obs[k++] = d->cfrc_ext[i];
}

void gm_humanoid_tendon_info(const gm_humanoid *h, const mjData *d, const mdv_out *out) {
  for (int k = 0; k < h->ntendon; k++) {
    gm_info(out, h->n_head + k, d->ten_length[k]);
    gm_info(out, h->n_head + h->ntendon + k, d->ten_velocity[k]);
  }
}

/*---------------------------------- Hopper-v5 and Walker2d-v5 -------------------------------------*/

enum { GW_X_POSITION, GW_Z_DISTANCE, GW_X_VELOCITY, GW_REWARD_FORWARD, GW_REWARD_CTRL,
       GW_REWARD_SURVIVE, GW_N_INFO };

static const mdv_field walker_info[GW_N_INFO] = {
  {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"z_distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

typedef struct gm_walker_env_ {
  gm_env g;
  const gm_walker *sh;
} gm_walker_env;

int gm_walker_finish(gm_walker *sh, void **shared, mdv_spec *spec, char *err, size_t err_size) {
  if (sh->g.m->nq < 3) {  /* is_healthy unpacks qpos[1:3] */
    snprintf(err, err_size, "%s: the model '%s' has nq = %d; %s reads qpos[0:3] (x, z, angle)",
             sh->g.task, sh->g.path, (int)sh->g.m->nq, sh->g.task);
    gm_task_destroy(sh);
    return MDVEC_ERR_MODEL;
  }
  gm_fill_spec(&sh->g, spec);
  spec->obs_dim = (int)(sh->g.m->nq + sh->g.m->nv) - sh->exclude;
  spec->n_info = GW_N_INFO;
  spec->info = walker_info;
  spec->env_size = sizeof(gm_walker_env);
  *shared = sh;
  return MDVEC_OK;
}

int gm_walker_env_init(void *env, const void *shared, char *err, size_t err_size) {
  gm_walker_env *e = env;
  e->sh = shared;
  return gm_env_init(&e->g, &e->sh->g, err, err_size);
}

/* _get_obs: concatenate((qpos[1:] or qpos), np.clip(qvel, -10, 10)). */
static void walker_obs(const gm_walker_env *e, double *obs) {
  const mjModel *m = e->sh->g.m;
  const mjData *d = e->g.d;
  int k = 0;
  for (int i = e->sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = mdv_np_clip(d->qvel[i], -10.0, 10.0);
}

/* is_healthy: [Hopper: np.all(lo < state < hi) for state = concatenate(qpos, qvel)[2:] and]
 * lo < z < hi and lo < angle < hi; every bound strict (a NaN is unhealthy). */
static int walker_is_healthy(const gm_walker_env *e) {
  const gm_walker *sh = e->sh;
  const mjModel *m = sh->g.m;
  const mjData *d = e->g.d;
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
  gm_walker_env *e = env;
  const gm_shared *g = &e->sh->g;
  mjData *d = e->g.d;
  gm_reset_begin(&e->g);
  gm_add_uniform_noise(&e->g, d->qpos, g->init_qpos, g->m->nq, rng);  /* reset_model */
  gm_add_uniform_noise(&e->g, d->qvel, g->init_qvel, g->m->nv, rng);
  gm_set_state_done(&e->g);
  walker_obs(e, out->obs);
  gm_info(out, GW_X_POSITION, d->qpos[0]);  /* _get_reset_info */
  gm_info(out, GW_Z_DISTANCE, d->qpos[1] - g->init_qpos[1]);
}

void gm_walker_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  gm_walker_env *e = env;
  const gm_walker *sh = e->sh;
  mjData *d = e->g.d;

  double x_position_before = d->qpos[0];
  gm_do_simulation(&e->g, action);
  double x_position_after = d->qpos[0];
  double x_velocity = (x_position_after - x_position_before) / sh->g.dt;

  walker_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = sh->forward_reward_weight * x_velocity;
  int is_healthy = walker_is_healthy(e);
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight,
                                 gm_sum_square(action, sh->g.m->nu, action_dtype), action_dtype);
  *out->reward = rewards - ctrl_cost;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)gm_time_limit(&e->g);

  gm_info(out, GW_X_POSITION, x_position_after);
  gm_info(out, GW_Z_DISTANCE, d->qpos[1] - sh->g.init_qpos[1]);
  gm_info(out, GW_X_VELOCITY, x_velocity);
  gm_info(out, GW_REWARD_FORWARD, forward_reward);
  gm_info(out, GW_REWARD_CTRL, -ctrl_cost);
  gm_info(out, GW_REWARD_SURVIVE, healthy_reward);
}
