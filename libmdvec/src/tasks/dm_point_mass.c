/* dm_point_mass.c: dm_control's point_mass domain (suite/point_mass.py, point_mass.xml), task easy, bit for
 * bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A point mass on two limited slide joints (root_x, root_y), driven through two fixed tendons, one motor
 * each; no _CONTROL_TIMESTEP: one physics step (0.02 s) per env step.
 *   obs:    position = qpos.copy() (2,), velocity = qvel.copy() (2,)
 *   reward: near_target = tolerance(np.linalg.norm(geom_xpos['target'] - geom_xpos['pointmass']),
 *           bounds=(0, target_size), margin=target_size) (gaussian, value_at_margin 0.1; the norm is numpy's
 *           ddot and a numpy scalar: ** 2 is pow), target_size = geom_size['target', 0];
 *           control_reward = tolerance(ctrl, margin=1, value_at_margin=0, sigmoid='quadratic').mean() (an
 *           array: ** 2 is x * x; numpy's pairwise mean); reward = near_target * ((control_reward + 4) / 5).
 *   reset:  randomize_limited_and_rotational_joints (easy: randomize_gains=False, nothing else).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl point_mass_options[DM_N_OPTIONS] = {
  DM_OPTIONS("20", "0"), /* _DEFAULT_TIME_LIMIT = 20; no control_timestep */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct point_mass_shared_ {
  dm_shared k; /* the kit's part, first */
  int target_geom, pointmass_geom;
} point_mass_shared;

static int point_mass_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  point_mass_shared *s = shared;
  const mjModel *m = s->k.m;
  s->target_geom = mj_name2id(m, mjOBJ_GEOM, "target");
  s->pointmass_geom = mj_name2id(m, mjOBJ_GEOM, "pointmass");
  if (s->target_geom < 0 || s->pointmass_geom < 0 || m->nu > 16) {
    snprintf(err, n, "%s: the model '%s' needs geoms 'target' and 'pointmass' and at most 16 actuators", s->k.def->task,
             s->k.path);
    return MDVEC_ERR_MODEL;
  }
  dm_obs_part parts[] = {{"position", m->nq, 0}, {"velocity", m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void point_mass_init(dm_env *e) {
  dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, self.random) */
}

static void point_mass_obs(dm_env *e, double *obs) {
  int nq = e->m->nq, nv = e->m->nv;
  for (int i = 0; i < nq; i++) obs[i] = e->d->qpos[i];      /* position = physics.position() */
  for (int i = 0; i < nv; i++) obs[nq + i] = e->d->qvel[i]; /* velocity = physics.velocity() */
}

static double point_mass_reward(dm_env *e) {
  const point_mass_shared *s = e->sh;
  const double *target = e->d->geom_xpos + 3 * s->target_geom, *mass = e->d->geom_xpos + 3 * s->pointmass_geom;
  double target_size = e->m->geom_size[3 * s->target_geom + 0]; /* geom_size['target', 0] */
  /* mass_to_target_dist() = np.linalg.norm(geom_xpos['target'] - geom_xpos['pointmass']) */
  double to_target[3] = {target[0] - mass[0], target[1] - mass[1], target[2] - mass[2]};
  double dist = mdv_np_norm(&e->k->dot, to_target, 3);
  /* near_target = rewards.tolerance(dist, bounds=(0, target_size), margin=target_size) */
  double near_target = dm_tolerance(dist, 0, target_size, target_size, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  /* control_reward = rewards.tolerance(physics.control(), margin=1, value_at_margin=0,
   * sigmoid='quadratic').mean() */
  int nu = e->m->nu;
  double tol[16];
  for (int i = 0; i < nu; i++) tol[i] = dm_tolerance(e->d->ctrl[i], 0.0, 0.0, 1, DM_QUADRATIC, 0, DM_ARRAY);
  double control_reward = mdv_np_mean(tol, nu);
  double small_control = (control_reward + 4) / 5; /* (control_reward + 4) / 5 */
  return near_target * small_control;              /* near_target * small_control */
}

/*---------------------------------- The task ------------------------------------------------------*/

static const dm_def point_mass_easy_def = {
  .task = "point_mass-easy",
  .xml = "point_mass.xml",
  .shared_size = sizeof(point_mass_shared),
  .setup = point_mass_setup,
  .initialize_episode = point_mass_init,
  .get_reward = point_mass_reward,
  .get_observation = point_mass_obs,
};
DM_CREATE(point_mass_easy_create, &point_mass_easy_def)

const mdv_task mdv_task_dm_point_mass_easy = {
  .name = "point_mass-easy",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's point_mass-easy (suite/point_mass.py PointMass, randomize_gains=False), bit for bit",
  .options = point_mass_options,
  .n_options = DM_N_OPTIONS,
  .create = point_mass_easy_create,
  .gym_id = "mdvec/point_mass-easy-v0",
  .reference = "mdvec.reference.dm_control:point_mass_easy",
  DM_TASK_DEFAULTS,
};
