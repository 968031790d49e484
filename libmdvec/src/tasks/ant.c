/* ant.c: Gymnasium's Ant-v5, bit for bit (gymnasium/envs/mujoco/ant_v5.py, AntEnv).
 *
 * The model is Gymnasium's own ant.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of ant_v5.py, in its order and dtype:
 *   step:   xy_before = xpos[main_body][:2]; do_simulation (mj_rnePostConstraint fills cfrc_ext);
 *           xy_velocity = (xy_after - xy_before) / dt;
 *           forward_reward = x_velocity * forward_reward_weight;
 *           healthy_reward = is_healthy * healthy_reward (np.bool_ * float: an np.float64, 0.0 * w
 *           when not healthy); rewards = forward_reward + healthy_reward;
 *           ctrl_cost = ctrl_cost_weight * np.sum(np.square(action)) (the action's dtype: float32
 *           actions give a float32 cost under NEP 50);
 *           contact_cost = contact_cost_weight * np.sum(np.square(np.clip(cfrc_ext, lo, hi)))
 *           (float64, pairwise over all nbody x 6 values); costs = ctrl_cost + contact_cost (float64);
 *           reward = rewards - costs; terminated = not is_healthy and terminate_when_unhealthy.
 *   health: np.isfinite(concatenate(qpos, qvel)).all() and lo <= qpos[2] <= hi (inclusive).
 *   obs:    concatenate(qpos[2:] (or qpos), qvel, np.clip(cfrc_ext, lo, hi)[1:].flatten() (unless
 *           include_cfrc_ext_in_observation=False)), float64.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + s *
 *           standard_normal(nv) (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, y_position (qpos[0], qpos[1]), distance_from_origin
 *           (np.linalg.norm(qpos[0:2]): mdv_np_norm, numpy's BLAS ddot), x_velocity, y_velocity, reward_forward,
 *           reward_ctrl (the action's dtype), reward_contact, reward_survive (all np.float64 but
 *           reward_ctrl); reset (_get_reset_info): x_position, y_position, distance_from_origin.
 *   main_body: data.body(main_body): an int is a body index, a str a body name ("3" names a body "3",
 *           "01" or "+1" name none: KeyError). The value keeps the caller's type as its kind
 *           (MDVEC_VALUE_INT, _STR: the Python binding's int and str); text of no stated kind
 *           (MDVEC_VALUE_TEXT, the 1.1 rule) is an index when it is a decimal integer, else a name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  ANT_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  ANT_CTRL_COST_WEIGHT,
  ANT_CONTACT_COST_WEIGHT,
  ANT_HEALTHY_REWARD,
  ANT_MAIN_BODY,
  ANT_TERMINATE_WHEN_UNHEALTHY,
  ANT_HEALTHY_Z_RANGE,
  ANT_CONTACT_FORCE_RANGE,
  ANT_EXCLUDE_CURRENT_POSITIONS,
  ANT_INCLUDE_CFRC_EXT,
  ANT_N_OPTIONS
};

static const mdv_option_decl ant_options[ANT_N_OPTIONS] = {
  GM_OPTIONS("ant.xml", "5", "1000", "0.1"),
  [ANT_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of the main body's x velocity in the reward (reward_forward)"},
  [ANT_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.5", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  [ANT_CONTACT_COST_WEIGHT] = {"contact_cost_weight", MDVEC_OPT_DOUBLE, "0.0005", -HUGE_VAL, HUGE_VAL, NULL,
                               "weight of sum(clip(cfrc_ext)**2) subtracted from the reward (-reward_contact)"},
  [ANT_HEALTHY_REWARD] = {"healthy_reward", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                          "reward of each step that ends healthy (reward_survive)"},
  [ANT_MAIN_BODY] = {"main_body", MDVEC_OPT_STRING, "1", 0.0, 0.0, NULL,
                     "body whose xpos[:2] gives x/y_velocity: a body index or a body name (see MDVEC_VALUE_*)"},
  [ANT_TERMINATE_WHEN_UNHEALTHY] = {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                                    "terminate when the ant is unhealthy"},
  [ANT_HEALTHY_Z_RANGE] = {"healthy_z_range", MDVEC_OPT_RANGE, "0.2,1.0", -HUGE_VAL, HUGE_VAL, NULL,
                           "healthy when lo <= qpos[2] (torso height) <= hi and the state is finite"},
  [ANT_CONTACT_FORCE_RANGE] = {"contact_force_range", MDVEC_OPT_RANGE, "-1.0,1.0", -HUGE_VAL, HUGE_VAL, NULL,
                               "cfrc_ext is clipped to [lo, hi] for the contact cost and the observation"},
  [ANT_EXCLUDE_CURRENT_POSITIONS] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0,
                                     NULL, "leave qpos[0:2] (x, y) out of the observation"},
  [ANT_INCLUDE_CFRC_EXT] = {"include_cfrc_ext_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                            "append the clipped cfrc_ext[1:] (6 per body) to the observation"},
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum {
  ANT_X_POSITION,
  ANT_Y_POSITION,
  ANT_DISTANCE,
  ANT_X_VELOCITY,
  ANT_Y_VELOCITY,
  ANT_REWARD_FORWARD,
  ANT_REWARD_CTRL,
  ANT_REWARD_CONTACT,
  ANT_REWARD_SURVIVE,
  ANT_N_INFO
};

static const mdv_field ant_info[ANT_N_INFO] = {
  [ANT_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [ANT_Y_POSITION] = {"y_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [ANT_DISTANCE] = {"distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [ANT_X_VELOCITY] = {"x_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [ANT_Y_VELOCITY] = {"y_velocity", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [ANT_REWARD_FORWARD] = {"reward_forward", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [ANT_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_ACTION, MDVEC_INFO_STEP},
  [ANT_REWARD_CONTACT] = {"reward_contact", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [ANT_REWARD_SURVIVE] = {"reward_survive", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct ant_shared_ {
  mk_shared g;
  double forward_reward_weight, ctrl_cost_weight, contact_cost_weight, healthy_reward;
  int main_body; /* body index */
  int terminate_when_unhealthy;
  double z_lo, z_hi, force_lo, force_hi;
  int exclude; /* qpos[0:2] left out of the observation */
  int include_cfrc;
} ant_shared;

/* Append "; its body names are 'a', 'b', ..." (as many as fit; unnamed bodies left out) to err's text. */
static void list_bodies(const mjModel *m, char *err, size_t n) {
  size_t len = strlen(err);
  int listed = 0;
  for (int k = 0; k < m->nbody && len + 1 < n; k++) {
    const char *name = mj_id2name(m, mjOBJ_BODY, k);
    if (!name) continue;
    int w = snprintf(err + len, n - len, "%s'%s'", listed++ ? ", " : "; its body names are ", name);
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* main_body as data.body() takes it: an index (0 <= k < nbody) given as an integer, a body name given as a
 * string, or (kind MDVEC_VALUE_TEXT) a decimal integer as an index and other text as a name; -1 if none. */
static int ant_body(const mjModel *m, const mdv_value *v, char *err, size_t n) {
  const char *text = v->s;
  if (!text || (!text[0] && v->kind != MDVEC_VALUE_STR)) {
    snprintf(err, n, "Ant-v5: option main_body is empty: give a body index or a body name");
    return -1;
  }
  const char *p = text + (text[0] == '-' || text[0] == '+');
  int digits = *p != 0;
  for (const char *q = p; *q; q++) digits = digits && *q >= '0' && *q <= '9';
  if (v->kind == MDVEC_VALUE_INT || (v->kind == MDVEC_VALUE_TEXT && digits)) { /* INT: checked decimal */
    long long k = strtoll(text, NULL, 10);
    if (k < 0 || k >= m->nbody) {
      snprintf(err, n, "Ant-v5: option main_body %s is not a body index: valid indices from 0 to %d", text,
               (int)m->nbody - 1);
      return -1;
    }
    return (int)k;
  }
  int id = mj_name2id(m, mjOBJ_BODY, text);
  if (id < 0) {
    snprintf(err, n, "Ant-v5: option main_body '%s' is not a body name of the model (a body index is an integer)",
             text);
    list_bodies(m, err, n);
  }
  return id;
}

static int ant_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  ant_shared *sh = shared;
  const mjModel *m = sh->g.m;
  if (m->nq < 3) { /* is_healthy reads state[2]; the observation drops qpos[0:2] */
    snprintf(err, n, "Ant-v5: the model '%s' has nq = %d; Ant-v5 reads qpos[0:3] (x, y, z)", sh->g.path, (int)m->nq);
    return MDVEC_ERR_MODEL;
  }
  sh->main_body = ant_body(m, &opts[ANT_MAIN_BODY], err, n);
  if (sh->main_body < 0) return MDVEC_ERR_CONFIG;
  sh->forward_reward_weight = opts[ANT_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[ANT_CTRL_COST_WEIGHT].d[0];
  sh->contact_cost_weight = opts[ANT_CONTACT_COST_WEIGHT].d[0];
  sh->healthy_reward = opts[ANT_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[ANT_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->z_lo = opts[ANT_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[ANT_HEALTHY_Z_RANGE].d[1];
  sh->force_lo = opts[ANT_CONTACT_FORCE_RANGE].d[0];
  sh->force_hi = opts[ANT_CONTACT_FORCE_RANGE].d[1];
  sh->exclude = opts[ANT_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;
  sh->include_cfrc = opts[ANT_INCLUDE_CFRC_EXT].i[0] != 0;

  spec->obs_dim = (int)(m->nq + m->nv) - 2 * sh->exclude + 6 * ((int)m->nbody - 1) * sh->include_cfrc;
  spec->n_info = ANT_N_INFO;
  spec->info = ant_info;
  sh->g.env_scratch = 6 * (int)m->nbody; /* each env's contact forces: np.clip(cfrc_ext, lo, hi) */
  return MDVEC_OK;
}

static const mk_def ant_def = {
  .task = "Ant-v5",
  GM_DEF,
  .shared_size = sizeof(ant_shared),
  .setup = ant_setup,
};
MK_CREATE(ant_create, &ant_def)

/*---------------------------------- Observation, health, info -------------------------------------*/

/* contact_forces: np.clip(cfrc_ext, lo, hi) into e->scratch (scalar bounds: mdv_np_clip). */
static void ant_contact_forces(mk_env *e) {
  const ant_shared *sh = e->sh;
  int n = 6 * (int)sh->g.m->nbody;
  const mjtNum *f = e->d->cfrc_ext;
  for (int i = 0; i < n; i++) e->scratch[i] = mdv_np_clip(f[i], sh->force_lo, sh->force_hi);
}

/* _get_obs: concatenate(qpos[2:] or qpos, qvel, contact_forces[1:].flatten()). */
static void ant_obs(mk_env *e, double *obs) {
  const ant_shared *sh = e->sh;
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = 2 * sh->exclude; i < m->nq; i++) obs[k++] = d->qpos[i];
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i];
  if (sh->include_cfrc) {
    ant_contact_forces(e);
    for (int i = 6; i < 6 * m->nbody; i++) obs[k++] = e->scratch[i];
  }
}

/* is_healthy: np.isfinite(state_vector()).all() and min_z <= state[2] <= max_z. */
static int ant_is_healthy(const mk_env *e) {
  const ant_shared *sh = e->sh;
  const mjModel *m = e->k->m;
  const mjData *d = e->d;
  for (int i = 0; i < m->nq; i++) {
    if (!isfinite(d->qpos[i])) return 0;
  }
  for (int i = 0; i < m->nv; i++) {
    if (!isfinite(d->qvel[i])) return 0;
  }
  double z = d->qpos[2];
  return sh->z_lo <= z && z <= sh->z_hi;
}

/* x_position, y_position, distance_from_origin: step and reset info alike. */
static void ant_position_info(const mk_env *e, const mdv_out *out) {
  const double *qpos = e->d->qpos;
  mk_info(out, ANT_X_POSITION, qpos[0]);
  mk_info(out, ANT_Y_POSITION, qpos[1]);
  mk_info(out, ANT_DISTANCE, mdv_np_norm(&e->k->dot, qpos, 2));
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void ant_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const mk_shared *g = e->k;
  mjData *d = e->d;
  mk_reset_begin(e);
  mk_add_uniform_noise(e, d->qpos, g->init_qpos, g->m->nq, rng); /* reset_model */
  mk_add_normal_noise(e, d->qvel, g->init_qvel, g->m->nv, rng);
  mk_set_state_done(e);
  ant_obs(e, out->obs);
  ant_position_info(e, out); /* _get_reset_info */
}

static void ant_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  mk_env *e = env;
  const ant_shared *sh = e->sh;
  const mjModel *m = sh->g.m;
  mjData *d = e->d;

  const mjtNum *xpos = d->xpos + 3 * sh->main_body;
  double x_before = xpos[0], y_before = xpos[1];
  mk_do_simulation(e, action);
  double x_velocity = (xpos[0] - x_before) / sh->g.dt;
  double y_velocity = (xpos[1] - y_before) / sh->g.dt;

  ant_obs(e, out->obs);

  /* _get_rew */
  double forward_reward = x_velocity * sh->forward_reward_weight;
  int is_healthy = ant_is_healthy(e);
  double healthy_reward = (double)is_healthy * sh->healthy_reward;
  double rewards = forward_reward + healthy_reward;
  double ctrl_cost = gm_weak_mul(sh->ctrl_cost_weight, gm_sum_square(action, m->nu, action_dtype), action_dtype);
  int nf = 6 * (int)m->nbody;
  ant_contact_forces(e);
  double contact_cost = sh->contact_cost_weight * mdv_np_sum_square(e->scratch, nf);
  double costs = ctrl_cost + contact_cost;
  *out->reward = rewards - costs;

  *out->terminated = (uint8_t)(!is_healthy && sh->terminate_when_unhealthy);
  *out->truncated = (uint8_t)mk_time_limit(e);

  ant_position_info(e, out);
  mk_info(out, ANT_X_VELOCITY, x_velocity);
  mk_info(out, ANT_Y_VELOCITY, y_velocity);
  mk_info(out, ANT_REWARD_FORWARD, forward_reward);
  mk_info(out, ANT_REWARD_CTRL, -ctrl_cost);
  mk_info(out, ANT_REWARD_CONTACT, -contact_cost);
  mk_info(out, ANT_REWARD_SURVIVE, healthy_reward);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_ant_v5 = {
  .name = "Ant-v5",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "Gymnasium's Ant-v5 (ant_v5.py), bit for bit, on its own ant.xml",
  .options = ant_options,
  .n_options = ANT_N_OPTIONS,
  .create = ant_create,
  .reset = ant_reset,
  .step = ant_step,
  .gym_id = "mdvec/Ant-v5",
  .reference = "Ant-v5",
  .reward_threshold = "6000.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .index_options = "main_body", /* data.body(main_body): an int index or a str body name (mdv_value.kind) */
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* ant_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM, .camera_id = -1, .set = MDV_CAM_DISTANCE, .distance = 4.0},
  MK_TASK_DEFAULTS,
};
