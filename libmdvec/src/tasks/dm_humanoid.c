/* dm_humanoid.c: dm_control's humanoid domain (suite/humanoid.py, humanoid.xml), tasks stand, walk and run,
 * bit for bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A 21-joint humanoid on a free root joint ('root'), 21 motors. Humanoid(move_speed, pure_state=False):
 *   joint_angles:   qpos[7:].copy() (21,)
 *   head_height:    named.data.xpos['head', 'z'] ()
 *   extremities:    np.hstack of (xpos[side + limb] - xpos['torso']).dot(xmat['torso'].reshape(3, 3)) for side in
 *                   ('left_', 'right_'), limb in ('hand', 'foot') (12,); each .dot is numpy's dgemv of a 3-vector
 *                   and a 3x3 matrix: mdv_np_vecmat (numpy's own dgemv through the binding, cfg.dgemv64)
 *   torso_vertical: named.data.xmat['torso', ['zx', 'zy', 'zz']] (3,)
 *   com_velocity:   named.data.sensordata['torso_subtreelinvel'] (3,)
 *   velocity:       qvel.copy() (27,)
 * reward: standing = tolerance(head_height, (1.4, inf), margin=1.4/4) (gaussian, numpy scalar);
 *         upright = tolerance(xmat['torso', 'zz'], (0.9, inf), 'linear', margin=1.9, value_at_margin=0);
 *         small_control = (4 + tolerance(ctrl, margin=1, value_at_margin=0, 'quadratic').mean()) / 5;
 *         stand (move_speed 0): small_control * (standing * upright) * tolerance(com_velocity[[0, 1]],
 *         margin=2).mean(); walk / run: move = tolerance(np.linalg.norm(com_velocity[[0, 1]]), (speed, inf),
 *         margin=speed, value_at_margin=0, 'linear'), small_control * stand_reward * ((5*move + 1) / 6).
 * reset:  randomize the joints in id order and physics.after_reset() until data.ncon == 0 (dm_control loops
 *         without a bound; here at most 100000 draws, never reached).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl humanoid_options[DM_N_OPTIONS] = {
  DM_OPTIONS("25", "0.025"), /* _DEFAULT_TIME_LIMIT = 25, _CONTROL_TIMESTEP = .025 */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

enum { HB_TORSO, HB_HEAD, HB_LEFT_HAND, HB_LEFT_FOOT, HB_RIGHT_HAND, HB_RIGHT_FOOT, HB_N };

/* The bodies read, the four extremities in extremities()'s order (left_ hand, foot, right_ hand, foot). */
static const char *const humanoid_body_names[HB_N] = {"torso",     "head",       "left_hand",
                                                      "left_foot", "right_hand", "right_foot"};

enum { HUMANOID_MAX_NU = 64 }; /* room for the per-actuator tolerances of the reward (humanoid.xml: 21) */

typedef struct humanoid_shared_ {
  dm_shared k;       /* the kit's part, first */
  double move_speed; /* Humanoid's move_speed: 0 (stand), _WALK_SPEED = 1, _RUN_SPEED = 10 */
  int body[HB_N];    /* body ids of humanoid_body_names */
  int com_vel_adr;   /* sensor_adr of 'torso_subtreelinvel' */
} humanoid_shared;

static int humanoid_setup(humanoid_shared *s, double move_speed, mdv_spec *spec, char *err, size_t n) {
  const mjModel *m = s->k.m;
  s->move_speed = move_speed;
  for (int i = 0; i < HB_N; i++) {
    s->body[i] = mj_name2id(m, mjOBJ_BODY, humanoid_body_names[i]);
    if (s->body[i] < 0) {
      snprintf(err, n, "%s: the model '%s' has no body '%s'", s->k.def->task, s->k.path, humanoid_body_names[i]);
      return MDVEC_ERR_MODEL;
    }
  }
  int sensor = mj_name2id(m, mjOBJ_SENSOR, "torso_subtreelinvel");
  if (sensor < 0 || m->sensor_dim[sensor] != 3) {
    snprintf(err, n, "%s: the model '%s' has no 3-d sensor 'torso_subtreelinvel'", s->k.def->task, s->k.path);
    return MDVEC_ERR_MODEL;
  }
  s->com_vel_adr = m->sensor_adr[sensor];
  if (m->njnt < 1 || m->jnt_type[0] != mjJNT_FREE || m->nq < 7 || m->nu > HUMANOID_MAX_NU) {
    snprintf(err, n, "%s: the model '%s' needs a free root joint first and at most %d actuators", s->k.def->task,
             s->k.path, HUMANOID_MAX_NU);
    return MDVEC_ERR_MODEL;
  }
  const dm_obs_part parts[] = {{"joint_angles", m->nq - 7, 0}, {"head_height", 0, 0},  {"extremities", 12, 0},
                               {"torso_vertical", 3, 0},       {"com_velocity", 3, 0}, {"velocity", m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 6, spec, err, n);
}

static int humanoid_stand_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return humanoid_setup(shared, 0, spec, err, n); /* move_speed=0 */
}

static int humanoid_walk_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return humanoid_setup(shared, 1, spec, err, n); /* move_speed=_WALK_SPEED */
}

static int humanoid_run_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return humanoid_setup(shared, 10, spec, err, n); /* move_speed=_RUN_SPEED */
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void humanoid_init(dm_env *e) {
  /* while penetrating: randomize_limited_and_rotational_joints(physics, self.random); physics.after_reset();
   * penetrating = physics.data.ncon > 0 */
  for (int attempt = 0; attempt < 100000; attempt++) {
    dm_randomize_joints(e);
    dm_after_reset(e);
    if (e->d->ncon == 0) break;
  }
}

static void humanoid_obs(dm_env *e, double *obs) {
  const humanoid_shared *s = e->sh;
  const mjModel *m = e->m;
  const mjData *d = e->d;
  int i = 0;
  for (int j = 7; j < m->nq; j++) obs[i++] = d->qpos[j];       /* joint_angles: qpos[7:] */
  obs[i++] = d->xpos[3 * s->body[HB_HEAD] + 2];                /* head_height: xpos['head', 'z'] */
  const double *torso_frame = d->xmat + 9 * s->body[HB_TORSO]; /* xmat['torso'].reshape(3, 3) */
  const double *torso_pos = d->xpos + 3 * s->body[HB_TORSO];   /* xpos['torso'] */
  for (int l = HB_LEFT_HAND; l <= HB_RIGHT_FOOT; l++) {        /* extremities: for side, for limb */
    const double *limb = d->xpos + 3 * s->body[l];
    double torso_to_limb[3]; /* xpos[side + limb] - torso_pos */
    for (int c = 0; c < 3; c++) torso_to_limb[c] = limb[c] - torso_pos[c];
    mdv_np_vecmat(&e->k->dot, torso_to_limb, torso_frame, 3, 3, obs + i); /* torso_to_limb.dot(torso_frame) */
    i += 3;
  }
  obs[i++] = torso_frame[6]; /* torso_vertical: xmat['torso', ['zx', 'zy', 'zz']] */
  obs[i++] = torso_frame[7];
  obs[i++] = torso_frame[8];
  for (int c = 0; c < 3; c++) obs[i++] = d->sensordata[s->com_vel_adr + c]; /* com_velocity */
  for (int j = 0; j < m->nv; j++) obs[i++] = d->qvel[j];                    /* velocity: qvel */
}

static double humanoid_reward(dm_env *e) {
  const humanoid_shared *s = e->sh;
  const mjModel *m = e->m;
  const mjData *d = e->d;
  /* standing = rewards.tolerance(physics.head_height(), bounds=(_STAND_HEIGHT, inf), margin=_STAND_HEIGHT/4) */
  double standing =
    dm_tolerance(d->xpos[3 * s->body[HB_HEAD] + 2], 1.4, INFINITY, 1.4 / 4, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  /* upright = rewards.tolerance(physics.torso_upright(), bounds=(0.9, inf), sigmoid='linear', margin=1.9,
   * value_at_margin=0) */
  double upright = dm_tolerance(d->xmat[9 * s->body[HB_TORSO] + 8], 0.9, INFINITY, 1.9, DM_LINEAR, 0, DM_SCALAR);
  double stand_reward = standing * upright; /* standing * upright */
  /* small_control = rewards.tolerance(physics.control(), margin=1, value_at_margin=0, sigmoid='quadratic').mean() */
  double small[HUMANOID_MAX_NU];
  for (int a = 0; a < m->nu; a++) small[a] = dm_tolerance(d->ctrl[a], 0.0, 0.0, 1, DM_QUADRATIC, 0, DM_ARRAY);
  double small_control = mdv_np_mean(small, m->nu);
  small_control = (4 + small_control) / 5; /* (4 + small_control) / 5 */
  const double *com_vel = d->sensordata + s->com_vel_adr;
  double horizontal_velocity[2] = {com_vel[0], com_vel[1]}; /* center_of_mass_velocity()[[0, 1]] */
  if (s->move_speed == 0) {
    /* dont_move = rewards.tolerance(horizontal_velocity, margin=2).mean() */
    double dm[2];
    for (int c = 0; c < 2; c++)
      dm[c] = dm_tolerance(horizontal_velocity[c], 0.0, 0.0, 2, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_ARRAY);
    double dont_move = mdv_np_mean(dm, 2);
    return small_control * stand_reward * dont_move; /* small_control * stand_reward * dont_move */
  }
  double com_velocity = mdv_np_norm(&e->k->dot, horizontal_velocity, 2); /* np.linalg.norm(...[[0, 1]]) */
  /* move = rewards.tolerance(com_velocity, bounds=(move_speed, inf), margin=move_speed, value_at_margin=0,
   * sigmoid='linear') */
  double move = dm_tolerance(com_velocity, s->move_speed, INFINITY, s->move_speed, DM_LINEAR, 0, DM_SCALAR);
  move = (5 * move + 1) / 6;                  /* (5*move + 1) / 6 */
  return small_control * stand_reward * move; /* small_control * stand_reward * move */
}

/*---------------------------------- The tasks -----------------------------------------------------*/

static const dm_def humanoid_stand_def = {
  .task = "humanoid-stand",
  .xml = "humanoid.xml",
  .shared_size = sizeof(humanoid_shared),
  .setup = humanoid_stand_setup,
  .initialize_episode = humanoid_init,
  .get_reward = humanoid_reward,
  .get_observation = humanoid_obs,
};
DM_CREATE(humanoid_stand_create, &humanoid_stand_def)

static const dm_def humanoid_walk_def = {
  .task = "humanoid-walk",
  .xml = "humanoid.xml",
  .shared_size = sizeof(humanoid_shared),
  .setup = humanoid_walk_setup,
  .initialize_episode = humanoid_init,
  .get_reward = humanoid_reward,
  .get_observation = humanoid_obs,
};
DM_CREATE(humanoid_walk_create, &humanoid_walk_def)

static const dm_def humanoid_run_def = {
  .task = "humanoid-run",
  .xml = "humanoid.xml",
  .shared_size = sizeof(humanoid_shared),
  .setup = humanoid_run_setup,
  .initialize_episode = humanoid_init,
  .get_reward = humanoid_reward,
  .get_observation = humanoid_obs,
};
DM_CREATE(humanoid_run_create, &humanoid_run_def)

const mdv_task mdv_task_dm_humanoid_stand = {
  .name = "humanoid-stand",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's humanoid-stand (suite/humanoid.py Humanoid, move_speed 0), bit for bit",
  .options = humanoid_options,
  .n_options = DM_N_OPTIONS,
  .create = humanoid_stand_create,
  .gym_id = "mdvec/humanoid-stand-v0",
  .reference = "mdvec.reference.dm_control:humanoid_stand",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_humanoid_walk = {
  .name = "humanoid-walk",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's humanoid-walk (suite/humanoid.py Humanoid, move_speed 1), bit for bit",
  .options = humanoid_options,
  .n_options = DM_N_OPTIONS,
  .create = humanoid_walk_create,
  .gym_id = "mdvec/humanoid-walk-v0",
  .reference = "mdvec.reference.dm_control:humanoid_walk",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_humanoid_run = {
  .name = "humanoid-run",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's humanoid-run (suite/humanoid.py Humanoid, move_speed 10), bit for bit",
  .options = humanoid_options,
  .n_options = DM_N_OPTIONS,
  .create = humanoid_run_create,
  .gym_id = "mdvec/humanoid-run-v0",
  .reference = "mdvec.reference.dm_control:humanoid_run",
  DM_TASK_DEFAULTS,
};
