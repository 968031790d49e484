/* dm_reacher.c: dm_control's reacher domain (suite/reacher.py, reacher.xml), tasks easy and hard, bit for bit
 * against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A two-link planar arm (hinges shoulder, unlimited, and wrist, limited), two motors, contacts disabled; no
 * _CONTROL_TIMESTEP: one physics step (0.02 s) per env step. Reacher(target_size): easy _BIG_TARGET = .05,
 * hard _SMALL_TARGET = .015.
 *   position:  physics.position() = qpos.copy() (2,)
 *   to_target: finger_to_target() = geom_xpos['target', :2] - geom_xpos['finger', :2] (2,)
 *   velocity:  physics.velocity() = qvel.copy() (2,)
 * reward: radii = geom_size[['target', 'finger'], 0].sum(); tolerance(np.linalg.norm(finger_to_target()),
 *         (0, radii)) (margin 0: 1.0 in bounds, else 0.0; the norm is numpy's ddot, mdv_np_norm).
 * reset:  geom_size['target', 0] = target_size (the env's model); randomize_limited_and_rotational_joints;
 *         angle = uniform(0, 2 * np.pi); radius = uniform(.05, .20); geom_pos['target', 'x'] = radius *
 *         np.sin(angle), geom_pos['target', 'y'] = radius * np.cos(angle) (the env's model).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl reacher_options[DM_N_OPTIONS] = {
  DM_OPTIONS("20", "0"), /* _DEFAULT_TIME_LIMIT = 20; no control_timestep */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct reacher_shared_ {
  dm_shared k;        /* the kit's part, first */
  double target_size; /* Reacher's _target_size */
  int target_geom, finger_geom;
} reacher_shared;

static int reacher_setup(reacher_shared *s, double target_size, mdv_spec *spec, char *err, size_t n) {
  const mjModel *m = s->k.m;
  s->target_size = target_size;
  s->target_geom = mj_name2id(m, mjOBJ_GEOM, "target");
  s->finger_geom = mj_name2id(m, mjOBJ_GEOM, "finger");
  if (s->target_geom < 0 || s->finger_geom < 0) {
    snprintf(err, n, "%s: the model '%s' needs geoms 'target' and 'finger'", s->k.def->task, s->k.path);
    return MDVEC_ERR_MODEL;
  }
  dm_obs_part parts[] = {{"position", m->nq, 0}, {"to_target", 2, 0}, {"velocity", m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

static int reacher_easy_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return reacher_setup(shared, .05, spec, err, n); /* _BIG_TARGET = .05 */
}

static int reacher_hard_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return reacher_setup(shared, .015, spec, err, n); /* _SMALL_TARGET = .015 */
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void reacher_init(dm_env *e) {
  const reacher_shared *s = e->sh;
  e->m->geom_size[3 * s->target_geom + 0] = s->target_size; /* geom_size['target', 0] = self._target_size */
  dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, self.random) */
  double angle = mdv_mt19937_uniform(&e->rng, 0, 2 * 3.141592653589793); /* uniform(0, 2 * np.pi) */
  double radius = mdv_mt19937_uniform(&e->rng, .05, .20);                /* uniform(.05, .20) */
  double *pos = e->m->geom_pos + 3 * s->target_geom;
  pos[0] = radius * sin(angle); /* geom_pos['target', 'x'] = radius * np.sin(angle) */
  pos[1] = radius * cos(angle); /* geom_pos['target', 'y'] = radius * np.cos(angle) */
}

/* finger_to_target(): geom_xpos['target', :2] - geom_xpos['finger', :2] */
static void reacher_finger_to_target(const dm_env *e, double *out) {
  const reacher_shared *s = e->sh;
  const double *target = e->d->geom_xpos + 3 * s->target_geom, *finger = e->d->geom_xpos + 3 * s->finger_geom;
  out[0] = target[0] - finger[0];
  out[1] = target[1] - finger[1];
}

static void reacher_obs(dm_env *e, double *obs) {
  int nq = e->m->nq, nv = e->m->nv;
  for (int i = 0; i < nq; i++) obs[i] = e->d->qpos[i];          /* position = physics.position() */
  reacher_finger_to_target(e, obs + nq);                        /* to_target = physics.finger_to_target() */
  for (int i = 0; i < nv; i++) obs[nq + 2 + i] = e->d->qvel[i]; /* velocity = physics.velocity() */
}

static double reacher_reward(dm_env *e) {
  const reacher_shared *s = e->sh;
  /* radii = physics.named.model.geom_size[['target', 'finger'], 0].sum() */
  double sizes[2] = {e->m->geom_size[3 * s->target_geom], e->m->geom_size[3 * s->finger_geom]};
  double radii = mdv_np_sum(sizes, 2);
  double to_target[2];
  reacher_finger_to_target(e, to_target);
  double dist = mdv_np_norm(&e->k->dot, to_target, 2); /* finger_to_target_dist() */
  /* rewards.tolerance(physics.finger_to_target_dist(), (0, radii)): margin 0 */
  return dm_tolerance(dist, 0, radii, 0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

/*---------------------------------- The tasks -----------------------------------------------------*/

static const dm_def reacher_easy_def = {
  .task = "reacher-easy",
  .xml = "reacher.xml",
  .shared_size = sizeof(reacher_shared),
  .setup = reacher_easy_setup,
  .initialize_episode = reacher_init,
  .get_reward = reacher_reward,
  .get_observation = reacher_obs,
};
DM_CREATE(reacher_easy_create, &reacher_easy_def)

static const dm_def reacher_hard_def = {
  .task = "reacher-hard",
  .xml = "reacher.xml",
  .shared_size = sizeof(reacher_shared),
  .setup = reacher_hard_setup,
  .initialize_episode = reacher_init,
  .get_reward = reacher_reward,
  .get_observation = reacher_obs,
};
DM_CREATE(reacher_hard_create, &reacher_hard_def)

const mdv_task mdv_task_dm_reacher_easy = {
  .name = "reacher-easy",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's reacher-easy (suite/reacher.py Reacher, target_size .05), bit for bit",
  .options = reacher_options,
  .n_options = DM_N_OPTIONS,
  .create = reacher_easy_create,
  .gym_id = "mdvec/reacher-easy-v0",
  .reference = "mdvec.reference.dm_control:reacher_easy",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_reacher_hard = {
  .name = "reacher-hard",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's reacher-hard (suite/reacher.py Reacher, target_size .015), bit for bit",
  .options = reacher_options,
  .n_options = DM_N_OPTIONS,
  .create = reacher_hard_create,
  .gym_id = "mdvec/reacher-hard-v0",
  .reference = "mdvec.reference.dm_control:reacher_hard",
  DM_TASK_DEFAULTS,
};
