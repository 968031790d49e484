/* dm_finger.c: dm_control's finger domain (suite/finger.py, finger.xml), tasks spin, turn_easy and
 * turn_hard, bit for bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A two-link planar finger (joints proximal, distal, two motors) and a free spinner on an unlimited hinge.
 * Every observation is read from sensordata, as finger.py's Physics reads it:
 *   position:        np.hstack((sensordata[['proximal', 'distal']], tip_position())) (4,)
 *                    tip_position() = sensordata['tip'][[0, 2]] - sensordata['spinner'][[0, 2]]
 *   velocity:        sensordata[['proximal_velocity', 'distal_velocity', 'hinge_velocity']] (3,)
 *   touch:           np.log1p(sensordata[['touchtop', 'touchbottom']]) (2,)
 *   target_position: sensordata['target'][[0, 2]] - sensordata['spinner'][[0, 2]] (2,) (turn only)
 *   dist_to_target:  np.linalg.norm(target_position() - tip_position()) - site_size['target', 0] ()
 *                    (turn only; the norm is numpy's ddot: mdv_np_norm)
 * reward: spin: float(hinge_velocity() <= -15.0); turn: float(dist_to_target() <= 0).
 * reset:  spin: site_rgba['target', 3] = 0, site_rgba['tip', 3] = 0, dof_damping['hinge'] = .03 (the env's
 *         model); turn: target_angle = uniform(-pi, pi), the target site moved to the hinge's anchor plus
 *         cap1's size sum times (sin, cos) of it, site_size['target', 0] = 0.07 (easy) / 0.03 (hard);
 *         then _set_random_joint_angles: randomize the joints in id order and after_reset until ncon == 0.
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl finger_options[DM_N_OPTIONS] = {
  DM_OPTIONS("20", "0.02"), /* _DEFAULT_TIME_LIMIT = 20, _CONTROL_TIMESTEP = .02 */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

enum {
  FS_PROXIMAL,
  FS_DISTAL,
  FS_PROXIMAL_VEL,
  FS_DISTAL_VEL,
  FS_HINGE_VEL,
  FS_TIP,
  FS_TARGET,
  FS_SPINNER,
  FS_TOUCHTOP,
  FS_TOUCHBOTTOM,
  FS_N
};

static const char *const finger_sensor_names[FS_N] = {
  "proximal", "distal", "proximal_velocity", "distal_velocity", "hinge_velocity",
  "tip",      "target", "spinner",           "touchtop",        "touchbottom",
};

typedef struct finger_shared_ {
  dm_shared k;          /* the kit's part, first */
  double target_radius; /* Turn's target_radius (0: the spin task) */
  int adr[FS_N];        /* sensor_adr of each sensor above */
  int target_site, tip_site, hinge_jnt, hinge_dof, cap1_geom;
} finger_shared;

static int finger_setup_common(finger_shared *s, double target_radius, char *err, size_t n) {
  const mjModel *m = s->k.m;
  s->target_radius = target_radius;
  for (int i = 0; i < FS_N; i++) {
    int id = mj_name2id(m, mjOBJ_SENSOR, finger_sensor_names[i]);
    if (id < 0) {
      snprintf(err, n, "%s: the model '%s' has no sensor '%s'", s->k.def->task, s->k.path, finger_sensor_names[i]);
      return MDVEC_ERR_MODEL;
    }
    s->adr[i] = m->sensor_adr[id];
  }
  s->target_site = mj_name2id(m, mjOBJ_SITE, "target");
  s->tip_site = mj_name2id(m, mjOBJ_SITE, "tip");
  s->hinge_jnt = mj_name2id(m, mjOBJ_JOINT, "hinge");
  s->cap1_geom = mj_name2id(m, mjOBJ_GEOM, "cap1");
  if (s->target_site < 0 || s->tip_site < 0 || s->hinge_jnt < 0 || s->cap1_geom < 0) {
    snprintf(err, n, "%s: the model '%s' needs sites 'target', 'tip', joint 'hinge' and geom 'cap1'", s->k.def->task,
             s->k.path);
    return MDVEC_ERR_MODEL;
  }
  s->hinge_dof = m->jnt_dofadr[s->hinge_jnt];
  return MDVEC_OK;
}

static int finger_spin_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  finger_shared *s = shared;
  int rc = finger_setup_common(s, 0.0, err, n);
  if (rc != MDVEC_OK) return rc;
  static const dm_obs_part parts[] = {{"position", 4, 0}, {"velocity", 3, 0}, {"touch", 2, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

static int finger_turn_setup(finger_shared *s, double target_radius, mdv_spec *spec, char *err, size_t n) {
  int rc = finger_setup_common(s, target_radius, err, n);
  if (rc != MDVEC_OK) return rc;
  static const dm_obs_part parts[] = {
    {"position", 4, 0}, {"velocity", 3, 0}, {"touch", 2, 0}, {"target_position", 2, 0}, {"dist_to_target", 0, 0}};
  return dm_obs_layout(&s->k, parts, 5, spec, err, n);
}

static int finger_turn_easy_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return finger_turn_setup(shared, 0.07, spec, err, n); /* _EASY_TARGET_SIZE */
}

static int finger_turn_hard_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return finger_turn_setup(shared, 0.03, spec, err, n); /* _HARD_TARGET_SIZE */
}

/*---------------------------------- Episode -------------------------------------------------------*/

/* _set_random_joint_angles(physics, random, max_attempts=1000): dm_control raises RuntimeError after
 * 1000 colliding draws; here that is a MuJoCo error, trapped: the env fails with the same message. */
static void finger_random_joint_angles(dm_env *e) {
  for (int attempt = 0; attempt < 1000; attempt++) {
    dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, random) */
    dm_after_reset(e);      /* physics.after_reset() */
    if (e->d->ncon == 0) return;
  }
  mju_error("Could not find a collision-free state after 1000 attempts");
}

static void finger_spin_init(dm_env *e) {
  const finger_shared *s = e->sh;
  e->m->site_rgba[4 * s->target_site + 3] = 0; /* site_rgba['target', 3] = 0 */
  e->m->site_rgba[4 * s->tip_site + 3] = 0;    /* site_rgba['tip', 3] = 0 */
  e->m->dof_damping[s->hinge_dof] = .03;       /* dof_damping['hinge'] = .03 */
  finger_random_joint_angles(e);
}

static void finger_turn_init(dm_env *e) {
  const finger_shared *s = e->sh;
  /* target_angle = self.random.uniform(-np.pi, np.pi) */
  double target_angle = mdv_mt19937_uniform(&e->rng, -3.141592653589793, 3.141592653589793);
  /* hinge_x, hinge_z = physics.named.data.xanchor['hinge', ['x', 'z']] */
  double hinge_x = e->d->xanchor[3 * s->hinge_jnt + 0], hinge_z = e->d->xanchor[3 * s->hinge_jnt + 2];
  /* radius = physics.named.model.geom_size['cap1'].sum() */
  double radius = mdv_np_sum(e->m->geom_size + 3 * s->cap1_geom, 3);
  double target_x = hinge_x + radius * sin(target_angle); /* hinge_x + radius * np.sin(target_angle) */
  double target_z = hinge_z + radius * cos(target_angle); /* hinge_z + radius * np.cos(target_angle) */
  e->m->site_pos[3 * s->target_site + 0] = target_x;      /* site_pos['target', ['x', 'z']] = target_x, target_z */
  e->m->site_pos[3 * s->target_site + 2] = target_z;
  e->m->site_size[3 * s->target_site + 0] = s->target_radius; /* site_size['target', 0] = self._target_radius */
  finger_random_joint_angles(e);
}

/* tip_position(): sensordata['tip'][[0, 2]] - sensordata['spinner'][[0, 2]] */
static void finger_tip_position(const finger_shared *s, const double *sd, double *out) {
  out[0] = sd[s->adr[FS_TIP] + 0] - sd[s->adr[FS_SPINNER] + 0];
  out[1] = sd[s->adr[FS_TIP] + 2] - sd[s->adr[FS_SPINNER] + 2];
}

/* target_position(): sensordata['target'][[0, 2]] - sensordata['spinner'][[0, 2]] */
static void finger_target_position(const finger_shared *s, const double *sd, double *out) {
  out[0] = sd[s->adr[FS_TARGET] + 0] - sd[s->adr[FS_SPINNER] + 0];
  out[1] = sd[s->adr[FS_TARGET] + 2] - sd[s->adr[FS_SPINNER] + 2];
}

/* dist_to_target(): np.linalg.norm(to_target()) - site_size['target', 0], to_target() = target_position() -
 * tip_position() */
static double finger_dist_to_target(const dm_env *e) {
  const finger_shared *s = e->sh;
  double tip[2], target[2], to_target[2];
  finger_tip_position(s, e->d->sensordata, tip);
  finger_target_position(s, e->d->sensordata, target);
  to_target[0] = target[0] - tip[0];
  to_target[1] = target[1] - tip[1];
  return mdv_np_norm(&e->k->dot, to_target, 2) - e->m->site_size[3 * s->target_site + 0];
}

/* position, velocity, touch: what both tasks observe first; returns the number written (9). */
static int finger_obs_common(const dm_env *e, double *obs) {
  const finger_shared *s = e->sh;
  const double *sd = e->d->sensordata;
  obs[0] = sd[s->adr[FS_PROXIMAL]]; /* bounded_position(): np.hstack((sensordata[['proximal', 'distal']], */
  obs[1] = sd[s->adr[FS_DISTAL]];
  finger_tip_position(s, sd, obs + 2);        /*   tip_position())) */
  obs[4] = sd[s->adr[FS_PROXIMAL_VEL]];       /* velocity(): sensordata[['proximal_velocity', */
  obs[5] = sd[s->adr[FS_DISTAL_VEL]];         /*   'distal_velocity', */
  obs[6] = sd[s->adr[FS_HINGE_VEL]];          /*   'hinge_velocity']] */
  obs[7] = log1p(sd[s->adr[FS_TOUCHTOP]]);    /* touch(): np.log1p(sensordata[['touchtop', */
  obs[8] = log1p(sd[s->adr[FS_TOUCHBOTTOM]]); /*   'touchbottom']]) */
  return 9;
}

static void finger_spin_obs(dm_env *e, double *obs) {
  finger_obs_common(e, obs);
}

static void finger_turn_obs(dm_env *e, double *obs) {
  const finger_shared *s = e->sh;
  int i = finger_obs_common(e, obs);
  finger_target_position(s, e->d->sensordata, obs + i); /* target_position */
  obs[i + 2] = finger_dist_to_target(e);                /* dist_to_target */
}

static double finger_spin_reward(dm_env *e) {
  const finger_shared *s = e->sh;
  return e->d->sensordata[s->adr[FS_HINGE_VEL]] <= -15.0 ? 1.0 : 0.0; /* float(hinge_velocity() <= -_SPIN_VELOCITY) */
}

static double finger_turn_reward(dm_env *e) {
  return finger_dist_to_target(e) <= 0 ? 1.0 : 0.0; /* float(physics.dist_to_target() <= 0) */
}

/*---------------------------------- The tasks -----------------------------------------------------*/

static const dm_def finger_spin_def = {
  .task = "finger-spin",
  .xml = "finger.xml",
  .shared_size = sizeof(finger_shared),
  .setup = finger_spin_setup,
  .initialize_episode = finger_spin_init,
  .get_reward = finger_spin_reward,
  .get_observation = finger_spin_obs,
};
DM_CREATE(finger_spin_create, &finger_spin_def)

static const dm_def finger_turn_easy_def = {
  .task = "finger-turn_easy",
  .xml = "finger.xml",
  .shared_size = sizeof(finger_shared),
  .setup = finger_turn_easy_setup,
  .initialize_episode = finger_turn_init,
  .get_reward = finger_turn_reward,
  .get_observation = finger_turn_obs,
};
DM_CREATE(finger_turn_easy_create, &finger_turn_easy_def)

static const dm_def finger_turn_hard_def = {
  .task = "finger-turn_hard",
  .xml = "finger.xml",
  .shared_size = sizeof(finger_shared),
  .setup = finger_turn_hard_setup,
  .initialize_episode = finger_turn_init,
  .get_reward = finger_turn_reward,
  .get_observation = finger_turn_obs,
};
DM_CREATE(finger_turn_hard_create, &finger_turn_hard_def)

const mdv_task mdv_task_dm_finger_spin = {
  .name = "finger-spin",
  .summary = "dm_control's finger-spin (suite/finger.py Spin), bit for bit",
  .options = finger_options,
  .n_options = DM_N_OPTIONS,
  .create = finger_spin_create,
  .gym_id = "mdvec/finger-spin-v0",
  .reference = "mdvec.reference.dm_control:finger_spin",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_finger_turn_easy = {
  .name = "finger-turn_easy",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's finger-turn_easy (suite/finger.py Turn, target radius 0.07), bit for bit",
  .options = finger_options,
  .n_options = DM_N_OPTIONS,
  .create = finger_turn_easy_create,
  .gym_id = "mdvec/finger-turn_easy-v0",
  .reference = "mdvec.reference.dm_control:finger_turn_easy",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_finger_turn_hard = {
  .name = "finger-turn_hard",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's finger-turn_hard (suite/finger.py Turn, target radius 0.03), bit for bit",
  .options = finger_options,
  .n_options = DM_N_OPTIONS,
  .create = finger_turn_hard_create,
  .gym_id = "mdvec/finger-turn_hard-v0",
  .reference = "mdvec.reference.dm_control:finger_turn_hard",
  DM_TASK_DEFAULTS,
};
