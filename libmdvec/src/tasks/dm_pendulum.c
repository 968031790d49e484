/* dm_pendulum.c: the Control Suite's pendulum domain (dm_control/suite/pendulum.py, pendulum.xml, 1.0.50), bit for
 * bit: pendulum-swingup (SwingUp task, _DEFAULT_TIME_LIMIT 20 s, no control timestep: one 0.02 s physics step per
 * env step).
 *
 *   model:  <suite_dir>/pendulum.xml as it is; one pole on the hinge 'hinge', one torque motor.
 *   reset:  qpos['hinge'] = random.uniform(-np.pi, np.pi).
 *   obs:    orientation = xmat['pole', ['zz', 'xz']] (2,), velocity = qvel['hinge'].copy() (1,).
 *   reward: rewards.tolerance(xmat['pole', 'zz'], (_COSINE_BOUND, 1)) (margin 0: 1.0 inside, else 0.0),
 *           _COSINE_BOUND = np.cos(np.deg2rad(_ANGLE_BOUND)), _ANGLE_BOUND = 8.
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "dmkit.h"

#define PENDULUM_ANGLE_BOUND 8 /* _ANGLE_BOUND (degrees) */

typedef struct pendulum_shared_ {
  dm_shared k;          /* the kit's part, first */
  int pole;             /* body id of 'pole' */
  int hinge_q, hinge_v; /* qpos and dof addresses of joint 'hinge' */
  double cosine_bound;  /* _COSINE_BOUND */
} pendulum_shared;

static const mdv_option_decl pendulum_options[DM_N_OPTIONS] = {DM_OPTIONS("20", "0")};

static int pendulum_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  pendulum_shared *s = shared;
  const mjModel *m = s->k.m;
  s->pole = mj_name2id(m, mjOBJ_BODY, "pole");
  int hinge = mj_name2id(m, mjOBJ_JOINT, "hinge");
  if (s->pole < 0 || hinge < 0 || m->jnt_type[hinge] != mjJNT_HINGE) {
    snprintf(err, n, "%s: the model needs a body 'pole' and a hinge joint 'hinge'", s->k.def->task);
    return MDVEC_ERR_MODEL;
  }
  s->hinge_q = m->jnt_qposadr[hinge];
  s->hinge_v = m->jnt_dofadr[hinge];
  /* np.deg2rad(x) is x * (NPY_PI / 180.0); np.cos of a float64 scalar is glibc's cos */
  s->cosine_bound = cos(PENDULUM_ANGLE_BOUND * (3.141592653589793 / 180.0));
  const dm_obs_part parts[] = {{"orientation", 2, 0}, {"velocity", 1, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

static void pendulum_initialize_episode(dm_env *e) {
  const pendulum_shared *s = e->sh;
  /* qpos['hinge'] = random.uniform(-np.pi, np.pi) */
  e->d->qpos[s->hinge_q] = mdv_mt19937_uniform(&e->rng, -3.141592653589793, 3.141592653589793);
}

static void pendulum_get_observation(dm_env *e, double *obs) {
  const pendulum_shared *s = e->sh;
  const double *xmat = e->d->xmat + 9 * s->pole;
  obs[0] = xmat[8];                /* orientation: xmat['pole', ['zz', */
  obs[1] = xmat[2];                /* 'xz']] */
  obs[2] = e->d->qvel[s->hinge_v]; /* velocity: qvel['hinge'].copy() */
}

static double pendulum_get_reward(dm_env *e) {
  const pendulum_shared *s = e->sh;
  /* rewards.tolerance(pole_vertical(), (_COSINE_BOUND, 1)): pole_vertical() = xmat['pole', 'zz'] */
  return dm_tolerance(e->d->xmat[9 * s->pole + 8], s->cosine_bound, 1, 0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

static const dm_def pendulum_swingup_def = {
  .task = "pendulum-swingup",
  .xml = "pendulum.xml",
  .shared_size = sizeof(pendulum_shared),
  .setup = pendulum_setup,
  .initialize_episode = pendulum_initialize_episode,
  .get_reward = pendulum_get_reward,
  .get_observation = pendulum_get_observation,
};
DM_CREATE(pendulum_swingup_create, &pendulum_swingup_def)

const mdv_task mdv_task_dm_pendulum_swingup = {
  .name = "pendulum-swingup",
  .summary =
    "dm_control's pendulum-swingup: swing a torque-limited pendulum up and keep it within 8 degrees of upright",
  .options = pendulum_options,
  .n_options = DM_N_OPTIONS,
  .create = pendulum_swingup_create,
  .gym_id = "mdvec/pendulum-swingup-v0",
  .reference = "mdvec.reference.dm_control:pendulum_swingup",
  DM_TASK_DEFAULTS,
};
