/* mjkit.c: the MuJoCo task kit; see mjkit.h.
 *
 * References (gymnasium 1.x, whose MujocoEnv the kit's pieces follow bit for bit):
 * envs/mujoco/mujoco_env.py (_initialize_simulation, init_qpos/init_qvel, set_state,
 * _step_mujoco_simulation, dt, reset) and wrappers/common.py (TimeLimit).
 */
#include "mjkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/*---------------------------------- Shared part ---------------------------------------------------*/

/* Load the model def names (opts give the path of an MK_MODEL_OPTION model) into k->m and k->path. */
static int load(mk_shared *k, const mdv_value *opts, char *err, size_t n) {
  const mk_def *def = k->def;
  char load_err[1000] = "";
  int code = MDVEC_ERR_MODEL;
  if (def->model_from == MK_MODEL_STRING) {
    char name[128]; /* MuJoCo's messages name the text "<task>.xml" */
    snprintf(name, sizeof name, "%.100s.xml", def->task);
    k->m = mdv_model_load_string(name, def->model, &code, load_err, sizeof load_err);
  } else if (def->model_from == MK_MODEL_EMBEDDED) {
    k->m = mdv_model_load(def->model, NULL, &code, load_err, sizeof load_err);
  } else if (def->model_from != MK_MODEL_OPTION) { /* a task bug */
    snprintf(err, n, "%s: the task's mk_def names no model source (model_from %d)", def->task, def->model_from);
    return MDVEC_ERR_MODEL;
  } else {
    const char *path = def->model_option ? opts[def->model_option - 1].s : NULL;
    if (def->check_path && (code = def->check_path(def->task, path, err, n)) != MDVEC_OK) return code;
    if (!path || !path[0]) {
      snprintf(err, n, "%s: the model's path is empty: give the path of an MJCF model", def->task);
      return MDVEC_ERR_CONFIG;
    }
    size_t len = strlen(path);
    if (!(k->path = malloc(len + 1))) {
      snprintf(err, n, "%s: out of memory", def->task);
      return MDVEC_ERR_NOMEM;
    }
    memcpy(k->path, path, len + 1);
    k->m = mdv_model_load(NULL, path, &code, load_err, sizeof load_err); /* regular files only, trapped */
  }
  if (!k->m) {
    snprintf(err, n, "%s: cannot load %s%s%s: %s", def->task, k->path ? "'" : "its model", k->path ? k->path : "",
             k->path ? "'" : "", load_err);
    return code;
  }
  return MDVEC_OK;
}

/* Fill the kit's part of k from its loaded model and the options. */
static int fill(mk_shared *k, const mdv_value *opts, char *err, size_t n) {
  const mk_def *def = k->def;
  const mjModel *m = k->m;
  if (m->nu < 1) {
    snprintf(err, n, "%s: the model%s%s has no actuator", def->task, k->path ? " " : "", k->path ? k->path : "");
    return MDVEC_ERR_MODEL;
  }
  k->frame_skip = def->frame_skip_option ? (int)opts[def->frame_skip_option - 1].i[0] : def->frame_skip;
  k->max_episode_steps = def->max_steps_option ? (int)opts[def->max_steps_option - 1].i[0] : def->max_episode_steps;
  k->reset_noise_scale = def->noise_option ? opts[def->noise_option - 1].d[0] : 0.0;
  if (k->frame_skip < 1 || k->max_episode_steps < 0) { /* a task bug: options are bounded */
    snprintf(err, n, "%s: frame_skip %d or max_episode_steps %d out of range in the task's mk_def", def->task,
             k->frame_skip, k->max_episode_steps);
    return MDVEC_ERR_MODEL;
  }
  int code = mdv_model_check_timestep(m, k->frame_skip, "frame_skip", def->task, k->path, err, n);
  if (code != MDVEC_OK) return code;               /* Gymnasium: a ZeroDivisionError in 1.0 / dt */
  k->dt = m->opt.timestep * (double)k->frame_skip; /* MujocoEnv.dt */

  /* init_qpos / init_qvel: what a fresh MjData holds (mj_makeData resets it to qpos0, zero qvel). */
  k->init_qpos = malloc(sizeof(double) * (size_t)(m->nq > 0 ? m->nq : 1));
  k->init_qvel = malloc(sizeof(double) * (size_t)(m->nv > 0 ? m->nv : 1));
  k->act_low = malloc(sizeof(double) * (size_t)m->nu);
  k->act_high = malloc(sizeof(double) * (size_t)m->nu);
  char data_err[200];
  code = MDVEC_ERR_NOMEM;
  mjData *d = k->init_qpos && k->init_qvel && k->act_low && k->act_high
                ? mdv_data_make(m, &code, data_err, sizeof data_err)
                : NULL;
  if (!d) {
    snprintf(err, n, "%s: out of memory", def->task);
    return MDVEC_ERR_NOMEM;
  }
  memcpy(k->init_qpos, d->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(k->init_qvel, d->qvel, sizeof(double) * (size_t)m->nv);
  mj_deleteData(d);

  /* MujocoEnv._set_action_space: Box(actuator_ctrlrange.astype(np.float32)). */
  for (int i = 0; i < m->nu; i++) {
    k->act_low[i] = (double)(float)m->actuator_ctrlrange[2 * i];
    k->act_high[i] = (double)(float)m->actuator_ctrlrange[2 * i + 1];
  }
  return MDVEC_OK;
}

int mk_create(const mk_def *def, void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err,
              size_t n) {
  *shared = NULL;
  mk_shared *k = calloc(1, def->shared_size ? def->shared_size : sizeof *k);
  if (!k) {
    snprintf(err, n, "%s: out of memory", def->task);
    return MDVEC_ERR_NOMEM;
  }
  k->def = def;
  k->task = def->task;
  k->dot = *dot;
  int rc = load(k, opts, err, n);
  if (rc == MDVEC_OK) rc = fill(k, opts, err, n);
  if (rc == MDVEC_OK) {
    spec->obs_dtype = MDVEC_DTYPE_F64;
    rc = def->setup(k, opts, spec, err, n);
  }
  if (rc != MDVEC_OK) {
    mk_destroy(k);
    return rc;
  }
  spec->act_dim = (int)k->m->nu;
  spec->act_low = k->act_low;
  spec->act_high = k->act_high;
  spec->max_episode_steps = k->max_episode_steps;
  spec->nq = (int)k->m->nq;
  spec->nv = (int)k->m->nv;
  spec->nbody = (int)k->m->nbody;
  spec->model_path = k->path;
  spec->dt = k->dt;
  spec->env_size = sizeof(mk_env);
  *shared = k;
  return MDVEC_OK;
}

void mk_destroy(void *shared) {
  mk_shared *k = shared;
  if (!k) return;
  if (k->def->free) k->def->free(k);
  if (k->m) mj_deleteModel(k->m);
  free(k->path);
  free(k->init_qpos);
  free(k->init_qvel);
  free(k->act_low);
  free(k->act_high);
  free(k);
}

/*---------------------------------- Env -----------------------------------------------------------*/

int mk_env_init(void *env, const void *shared, char *err, size_t err_size) {
  mk_env *e = env;
  e->sh = shared;
  e->k = shared;
  e->elapsed = 0;
  if (e->k->env_scratch > 0 && !(e->scratch = malloc(sizeof(double) * (size_t)e->k->env_scratch))) {
    snprintf(err, err_size, "%s: out of memory for one env's scratch", e->k->task);
    return -1;
  }
  int code = MDVEC_ERR_NOMEM;
  e->d = mdv_data_make(e->k->m, &code, err, err_size); /* probes the allocation first: nothing half-made */
  return e->d ? 0 : -1;
}

void mk_env_free(void *env) {
  mk_env *e = env;
  if (e->d) mj_deleteData(e->d);
  free(e->scratch);
  e->d = NULL;
  e->scratch = NULL;
}

void mk_physics(void *env, const mjModel **m, mjData **d) {
  mk_env *e = env;
  *m = e->k->m;
  *d = e->d;
}

void mk_save(const void *env, mdv_blob *b) {
  const mk_env *e = env;
  mdv_put_i64(b, e->elapsed);
}

void mk_load(void *env, mdv_blob *b, int apply) {
  mk_env *e = env;
  int64_t elapsed = mdv_get_range(b, 0, INT64_MAX, "TimeLimit's elapsed steps");
  if (apply && !b->bad) e->elapsed = elapsed;
}

/*---------------------------------- Reset ---------------------------------------------------------*/

void mk_reset_begin(mk_env *e) {
  e->elapsed = 0;              /* TimeLimit.reset */
  mj_resetData(e->k->m, e->d); /* MujocoEnv.reset, before reset_model */
}

void mk_add_uniform_noise(const mk_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng) {
  double low = -e->k->reset_noise_scale, high = e->k->reset_noise_scale;
  for (int i = 0; i < n; i++) dst[i] = init[i] + mdv_pcg64_uniform(rng, low, high);
}

void mk_add_normal_noise(const mk_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng) {
  double s = e->k->reset_noise_scale;
  for (int i = 0; i < n; i++) dst[i] = init[i] + s * mdv_pcg64_standard_normal(rng);
}

void mk_set_state_done(mk_env *e) {
  mj_forward(e->k->m, e->d);
}

void mk_reset_uniform(mk_env *e, mdv_pcg64 *rng) {
  const mk_shared *k = e->k;
  mk_reset_begin(e);
  mk_add_uniform_noise(e, e->d->qpos, k->init_qpos, k->m->nq, rng); /* reset_model */
  mk_add_uniform_noise(e, e->d->qvel, k->init_qvel, k->m->nv, rng);
  mk_set_state_done(e);
}

/*---------------------------------- Step ----------------------------------------------------------*/

void mk_do_simulation(mk_env *e, const double *action) {
  const mjModel *m = e->k->m;
  mjData *d = e->d;
  memcpy(d->ctrl, action, sizeof(double) * (size_t)m->nu);
  for (int k = 0; k < e->k->frame_skip; k++) mj_step(m, d);
  mj_rnePostConstraint(m, d);
}

int mk_time_limit(mk_env *e) {
  e->elapsed++;
  return e->k->max_episode_steps > 0 && e->elapsed >= e->k->max_episode_steps;
}
