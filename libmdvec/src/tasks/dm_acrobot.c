/* dm_acrobot.c: the Control Suite's acrobot domain (dm_control/suite/acrobot.py, acrobot.xml, 1.0.50), bit for bit:
 * acrobot-swingup and acrobot-swingup_sparse (Balance(sparse) tasks, _DEFAULT_TIME_LIMIT 10 s, no control timestep:
 * one 0.01 s RK4 physics step per env step).
 *
 *   model:  <suite_dir>/acrobot.xml as it is; hinges 'shoulder' and 'elbow', one motor on the elbow.
 *   reset:  qpos[['shoulder', 'elbow']] = random.uniform(-np.pi, np.pi, 2) (shoulder's draw first).
 *   obs:    orientations = np.concatenate((xmat[['upper_arm', 'lower_arm'], 'xz'],
 *           xmat[['upper_arm', 'lower_arm'], 'zz'])) (4,), velocity = qvel (2,).
 *   reward: rewards.tolerance(np.linalg.norm(site_xpos['target'] - site_xpos['tip']), bounds=(0, target_radius),
 *           margin=0 if sparse else 1) (gaussian, value_at_margin 0.1; the norm is numpy's ddot and a numpy
 *           scalar: ** 2 is pow), target_radius = site_size['target', 0].
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

typedef struct acrobot_shared_ {
  dm_shared k;              /* the kit's part, first */
  int sparse;               /* Balance(sparse=...) */
  int upper_arm, lower_arm; /* body ids */
  int shoulder_q, elbow_q;  /* qpos addresses of the joints 'shoulder' and 'elbow' */
  int target, tip;          /* site ids */
} acrobot_shared;

static const mdv_option_decl acrobot_options[DM_N_OPTIONS] = {DM_OPTIONS("10", "0")};

static int acrobot_setup(void *shared, int sparse, char *err, size_t n, mdv_spec *spec) {
  acrobot_shared *s = shared;
  const mjModel *m = s->k.m;
  s->sparse = sparse;
  s->upper_arm = mj_name2id(m, mjOBJ_BODY, "upper_arm");
  s->lower_arm = mj_name2id(m, mjOBJ_BODY, "lower_arm");
  int shoulder = mj_name2id(m, mjOBJ_JOINT, "shoulder"), elbow = mj_name2id(m, mjOBJ_JOINT, "elbow");
  s->target = mj_name2id(m, mjOBJ_SITE, "target");
  s->tip = mj_name2id(m, mjOBJ_SITE, "tip");
  if (s->upper_arm < 0 || s->lower_arm < 0 || shoulder < 0 || elbow < 0 || s->target < 0 || s->tip < 0 ||
      m->jnt_type[shoulder] != mjJNT_HINGE || m->jnt_type[elbow] != mjJNT_HINGE) {
    snprintf(err, n,
             "%s: the model needs bodies 'upper_arm' and 'lower_arm', hinges 'shoulder' and 'elbow', sites 'target' "
             "and 'tip'",
             s->k.def->task);
    return MDVEC_ERR_MODEL;
  }
  s->shoulder_q = m->jnt_qposadr[shoulder];
  s->elbow_q = m->jnt_qposadr[elbow];
  const dm_obs_part parts[] = {{"orientations", 4, 0}, {"velocity", (int)m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

static int acrobot_swingup_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return acrobot_setup(shared, 0, err, n, spec); /* Balance(sparse=False) */
}

static int acrobot_swingup_sparse_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return acrobot_setup(shared, 1, err, n, spec); /* Balance(sparse=True) */
}

static void acrobot_initialize_episode(dm_env *e) {
  const acrobot_shared *s = e->sh;
  /* qpos[['shoulder', 'elbow']] = random.uniform(-np.pi, np.pi, 2) */
  e->d->qpos[s->shoulder_q] = mdv_mt19937_uniform(&e->rng, -3.141592653589793, 3.141592653589793);
  e->d->qpos[s->elbow_q] = mdv_mt19937_uniform(&e->rng, -3.141592653589793, 3.141592653589793);
}

static void acrobot_get_observation(dm_env *e, double *obs) {
  const acrobot_shared *s = e->sh;
  const double *xmat = e->d->xmat;
  obs[0] = xmat[9 * s->upper_arm + 2];                           /* orientations: horizontal() = xmat[['upper_arm', */
  obs[1] = xmat[9 * s->lower_arm + 2];                           /* 'lower_arm'], 'xz'], */
  obs[2] = xmat[9 * s->upper_arm + 8];                           /* then vertical() = xmat[['upper_arm', */
  obs[3] = xmat[9 * s->lower_arm + 8];                           /* 'lower_arm'], 'zz'] */
  for (int i = 0; i < e->m->nv; i++) obs[4 + i] = e->d->qvel[i]; /* velocity: physics.velocity() */
}

static double acrobot_get_reward(dm_env *e) {
  const acrobot_shared *s = e->sh;
  const double *target = e->d->site_xpos + 3 * s->target, *tip = e->d->site_xpos + 3 * s->tip;
  double target_radius = e->m->site_size[3 * s->target + 0]; /* named.model.site_size['target', 0] */
  /* to_target() = np.linalg.norm(site_xpos['target'] - site_xpos['tip']) */
  double tip_to_target[3] = {target[0] - tip[0], target[1] - tip[1], target[2] - tip[2]};
  double dist = mdv_np_norm(&e->k->dot, tip_to_target, 3);
  /* rewards.tolerance(to_target(), bounds=(0, target_radius), margin=0 if sparse else 1) */
  return dm_tolerance(dist, 0, target_radius, s->sparse ? 0 : 1, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

#define ACROBOT_DEF(name, setup_fn)                  \
  {.task = name,                                     \
   .xml = "acrobot.xml",                             \
   .shared_size = sizeof(acrobot_shared),            \
   .setup = setup_fn,                                \
   .initialize_episode = acrobot_initialize_episode, \
   .get_reward = acrobot_get_reward,                 \
   .get_observation = acrobot_get_observation}

static const dm_def acrobot_swingup_def = ACROBOT_DEF("acrobot-swingup", acrobot_swingup_setup);
static const dm_def acrobot_swingup_sparse_def = ACROBOT_DEF("acrobot-swingup_sparse", acrobot_swingup_sparse_setup);
DM_CREATE(acrobot_swingup_create, &acrobot_swingup_def)
DM_CREATE(acrobot_swingup_sparse_create, &acrobot_swingup_sparse_def)

const mdv_task mdv_task_dm_acrobot_swingup = {
  .name = "acrobot-swingup",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's acrobot-swingup: swing a two-link, elbow-driven acrobot's tip up to a target (dense reward)",
  .options = acrobot_options,
  .n_options = DM_N_OPTIONS,
  .create = acrobot_swingup_create,
  .gym_id = "mdvec/acrobot-swingup-v0",
  .reference = "mdvec.reference.dm_control:acrobot_swingup",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_acrobot_swingup_sparse = {
  .name = "acrobot-swingup_sparse",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's acrobot-swingup_sparse: swing an acrobot's tip into a target sphere (reward 1 inside)",
  .options = acrobot_options,
  .n_options = DM_N_OPTIONS,
  .create = acrobot_swingup_sparse_create,
  .gym_id = "mdvec/acrobot-swingup_sparse-v0",
  .reference = "mdvec.reference.dm_control:acrobot_swingup_sparse",
  DM_TASK_DEFAULTS,
};
