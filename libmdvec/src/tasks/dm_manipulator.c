/* dm_manipulator.c: dm_control's manipulator domain (suite/manipulator.py, manipulator.xml), task bring_ball, bit
 * for bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * The model is make_model(use_peg=False, insert=False), done on the parsed mjSpec (manipulator_edit): the props
 * not required (_ALL_PROPS - {'ball', 'target_ball'}: bodies 'cup', 'peg', 'target_peg', 'slot', with their
 * subtrees) removed.
 * A planar arm (_ARM_JOINTS: arm_root, arm_shoulder, arm_elbow, arm_wrist, finger, fingertip, thumb, thumbtip),
 * five motors, a ball on slides ball_x, ball_z and hinge ball_y; _CONTROL_TIMESTEP = .01 (10 physics steps).
 * Bring(use_peg=False, insert=False, fully_observable):
 *   arm_pos:    np.vstack([np.sin(qpos[_ARM_JOINTS]), np.cos(qpos[_ARM_JOINTS])]).T (8, 2)
 *   arm_vel:    qvel[_ARM_JOINTS] (8,)
 *   touch:      np.log1p(sensordata[_TOUCH_SENSORS]) (5,)
 *   (fully_observable only:)
 *   hand_pos:   body_2d_pose('hand') = np.hstack([xpos['hand', ['x', 'z']], xquat['hand', ['qw', 'qy']]]) (4,)
 *   object_pos: body_2d_pose('ball') (4,)
 *   object_vel: qvel[['ball_x', 'ball_z', 'ball_y']] (3,)
 *   target_pos: body_2d_pose('target_ball') (4,)
 * reward: _is_close(site_distance('ball', 'target_ball')) = tolerance(np.linalg.norm(np.diff(site_xpos[['target_ball',
 *         'ball']], axis=0)), (0, _CLOSE), _CLOSE*2) (gaussian, a numpy scalar; the norm is numpy's ddot).
 * reset:  until physics.data.ncon == 0: angles = uniform(lower, upper) for _ARM_JOINTS in order (unlimited: -pi,
 *         pi); qpos['finger'] = qpos['thumb']; target_x = uniform(-.4, .4); target_z = uniform(.1, .4);
 *         target_angle = uniform(-pi, pi); body_pos['target_ball', ['x', 'z']] and body_quat['target_ball', ['qw',
 *         'qy']] = cos, sin of target_angle/2 (the env's model); init_type = choice(3, p=[.1, .1, 1-.1-.1]):
 *         in_hand: after_reset, the grasp site's x, z and pi - arctan2(site_xmat['grasp', 'zx'], ['xx']);
 *         in_target: the target's; uniform: uniform(-.5, .5), uniform(0, .7), uniform(0, 2*pi) and qvel['ball_x'] =
 *         uniform(-5, 5); qpos[ball_x, ball_z, ball_y] = those; after_reset.
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum { MANIP_OPT_FULLY_OBSERVABLE = DM_N_OPTIONS, MANIP_N_OPTIONS };

static const mdv_option_decl manipulator_options[MANIP_N_OPTIONS] = {
  DM_OPTIONS("10", "0.01"), /* _TIME_LIMIT = 10, _CONTROL_TIMESTEP = .01 */
  [MANIP_OPT_FULLY_OBSERVABLE] = {"fully_observable", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                                  "observe the hand, the ball, its velocity and the target too (bring_ball's "
                                  "fully_observable)"},
};

/*---------------------------------- The model: make_model(use_peg=False, insert=False) --------------*/

static int manipulator_edit(mjSpec *spec, const mdv_value *opts, char *err, size_t n) {
  (void)opts;
  /* _ALL_PROPS.difference(['ball', 'target_ball']) */
  static const char *const unused_props[] = {"cup", "peg", "target_peg", "slot"};
  for (int i = 0; i < 4; i++) {
    mjsBody *prop = mjs_findBody(spec, unused_props[i]); /* xml_tools.find_element(mjcf, 'body', unused_prop) */
    if (!prop || mjs_delete(spec, prop->element) != 0) { /* prop.getparent().remove(prop) */
      snprintf(err, n, "manipulator-bring_ball: cannot remove the body '%s' of manipulator.xml: %s", unused_props[i],
               prop ? mjs_getError(spec) : "no such body");
      return MDVEC_ERR_MODEL;
    }
  }
  return MDVEC_OK;
}

/*---------------------------------- Shared part and setup -----------------------------------------*/

enum { N_ARM = 8, N_TOUCH = 5 };
static const char *const arm_joint_names[N_ARM] = {"arm_root", "arm_shoulder", "arm_elbow", "arm_wrist",
                                                   "finger",   "fingertip",    "thumb",     "thumbtip"};
static const char *const touch_names[N_TOUCH] = {"palm_touch", "finger_touch", "thumb_touch", "fingertip_touch",
                                                 "thumbtip_touch"};
static const char *const object_joint_names[3] = {"ball_x", "ball_z", "ball_y"}; /* '_'.join([object, dim]) for 'xzy' */
enum { ARM_FINGER = 4, ARM_THUMB = 6 };

typedef struct manipulator_shared_ {
  dm_shared k;          /* the kit's part, first */
  int fully_observable; /* Bring's _fully_observable */
  int arm_jnt[N_ARM], arm_qpos[N_ARM], arm_dof[N_ARM];
  int obj_qpos[3], obj_dof[3];
  int touch_adr[N_TOUCH];
  int hand_body, ball_body, target_body, grasp_site, ball_site, target_site;
} manipulator_shared;

static int manipulator_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  manipulator_shared *s = shared;
  const mjModel *m = s->k.m;
  s->fully_observable = opts[MANIP_OPT_FULLY_OBSERVABLE].i[0] != 0;
  const char *missing = NULL;
  for (int i = 0; i < N_ARM && !missing; i++) {
    int j = s->arm_jnt[i] = mj_name2id(m, mjOBJ_JOINT, arm_joint_names[i]);
    if (j < 0) {
      missing = arm_joint_names[i];
    } else {
      s->arm_qpos[i] = m->jnt_qposadr[j];
      s->arm_dof[i] = m->jnt_dofadr[j];
    }
  }
  for (int i = 0; i < 3 && !missing; i++) {
    int j = mj_name2id(m, mjOBJ_JOINT, object_joint_names[i]);
    if (j < 0) {
      missing = object_joint_names[i];
    } else {
      s->obj_qpos[i] = m->jnt_qposadr[j];
      s->obj_dof[i] = m->jnt_dofadr[j];
    }
  }
  for (int i = 0; i < N_TOUCH && !missing; i++) {
    int id = mj_name2id(m, mjOBJ_SENSOR, touch_names[i]);
    if (id < 0 || m->sensor_dim[id] != 1) {
      missing = touch_names[i];
    } else {
      s->touch_adr[i] = m->sensor_adr[id];
    }
  }
  s->hand_body = mj_name2id(m, mjOBJ_BODY, "hand");
  s->ball_body = mj_name2id(m, mjOBJ_BODY, "ball");
  s->target_body = mj_name2id(m, mjOBJ_BODY, "target_ball");
  s->grasp_site = mj_name2id(m, mjOBJ_SITE, "grasp");
  s->ball_site = mj_name2id(m, mjOBJ_SITE, "ball");
  s->target_site = mj_name2id(m, mjOBJ_SITE, "target_ball");
  if (missing || s->hand_body < 0 || s->ball_body < 0 || s->target_body < 0 || s->grasp_site < 0 || s->ball_site < 0 ||
      s->target_site < 0) {
    snprintf(err, n,
             "%s: the model '%s' lacks %s (it needs the joints of _ARM_JOINTS and ball_x/z/y, the 1-d touch "
             "sensors, bodies hand, ball, target_ball and sites grasp, ball, target_ball)",
             s->k.def->task, s->k.path, missing ? missing : "a body or site");
    return MDVEC_ERR_MODEL;
  }
  dm_obs_part parts[] = {{"arm_pos", N_ARM, 2}, {"arm_vel", N_ARM, 0}, {"touch", N_TOUCH, 0}, {"hand_pos", 4, 0},
                         {"object_pos", 4, 0},  {"object_vel", 3, 0},  {"target_pos", 4, 0}};
  return dm_obs_layout(&s->k, parts, s->fully_observable ? 7 : 3, spec, err, n);
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void manipulator_init(dm_env *e) {
  const manipulator_shared *s = e->sh;
  const double pi = 3.141592653589793;
  mjModel *m = e->m;
  mjData *d = e->d;
  double *target_pos = m->body_pos + 3 * s->target_body, *target_quat = m->body_quat + 4 * s->target_body;
  /* object_init_probs = [_P_IN_HAND, _P_IN_TARGET, 1-_P_IN_HAND-_P_IN_TARGET] */
  const double probs[3] = {.1, .1, 1 - .1 - .1};
  int penetrating = 1;
  while (penetrating) {
    /* angles = uniform(lower_limits, upper_limits): np.where(is_limited, jnt_range[:, 0 / 1], -+np.pi) */
    for (int i = 0; i < N_ARM; i++) {
      int j = s->arm_jnt[i];
      int limited = m->jnt_limited[j] != 0;
      double lo = limited ? m->jnt_range[2 * j] : -pi, hi = limited ? m->jnt_range[2 * j + 1] : pi;
      d->qpos[s->arm_qpos[i]] = mdv_mt19937_uniform(&e->rng, lo, hi); /* data.qpos[_ARM_JOINTS] = angles */
    }
    d->qpos[s->arm_qpos[ARM_FINGER]] = d->qpos[s->arm_qpos[ARM_THUMB]]; /* qpos['finger'] = qpos['thumb'] */
    double target_x = mdv_mt19937_uniform(&e->rng, -.4, .4);            /* target_x = uniform(-.4, .4) */
    double target_z = mdv_mt19937_uniform(&e->rng, .1, .4);             /* target_z = uniform(.1, .4) */
    double target_angle = mdv_mt19937_uniform(&e->rng, -pi, pi);        /* target_angle = uniform(-np.pi, np.pi) */
    /* body_pos[self._target, ['x', 'z']] = target_x, target_z */
    target_pos[0] = target_x, target_pos[2] = target_z;
    /* body_quat[self._target, ['qw', 'qy']] = [np.cos(target_angle/2), np.sin(target_angle/2)] */
    target_quat[0] = cos(target_angle / 2), target_quat[2] = sin(target_angle / 2);
    /* init_type = choice(['in_hand', 'in_target', 'uniform'], p=object_init_probs) */
    int64_t init_type = mdv_mt19937_choice_p(&e->rng, probs, 3);
    double object_x, object_z, object_angle;
    if (init_type == 1) { /* in_target: the target's x, z and angle */
      object_x = target_x;
      object_z = target_z;
      object_angle = target_angle;
    } else if (init_type == 0) { /* in_hand */
      dm_after_reset(e);
      /* object_x, object_z = site_xpos['grasp', 'x'], site_xpos['grasp', 'z'] */
      object_x = d->site_xpos[3 * s->grasp_site + 0];
      object_z = d->site_xpos[3 * s->grasp_site + 2];
      /* grasp_direction = site_xmat['grasp', ['xx', 'zx']];
       * object_angle = np.pi-np.arctan2(grasp_direction[1], grasp_direction[0]) */
      const double *xmat = d->site_xmat + 9 * s->grasp_site;
      object_angle = pi - atan2(xmat[6], xmat[0]);
    } else { /* uniform: object_x = uniform(-.5, .5); object_z = uniform(0, .7); object_angle = uniform(0, 2*np.pi) */
      object_x = mdv_mt19937_uniform(&e->rng, -.5, .5);
      object_z = mdv_mt19937_uniform(&e->rng, 0, .7);
      object_angle = mdv_mt19937_uniform(&e->rng, 0, 2 * pi);
      d->qvel[s->obj_dof[0]] = mdv_mt19937_uniform(&e->rng, -5, 5); /* qvel[self._object + '_x'] = uniform(-5, 5) */
    }
    /* data.qpos[self._object_joints] = object_x, object_z, object_angle */
    d->qpos[s->obj_qpos[0]] = object_x;
    d->qpos[s->obj_qpos[1]] = object_z;
    d->qpos[s->obj_qpos[2]] = object_angle;
    dm_after_reset(e);         /* physics.after_reset() */
    penetrating = d->ncon > 0; /* penetrating = physics.data.ncon > 0 */
  }
}

/* body_2d_pose(body): np.hstack([xpos[body, ['x', 'z']], xquat[body, ['qw', 'qy']]]) */
static double *body_2d_pose(const dm_env *e, int body, double *out) {
  out[0] = e->d->xpos[3 * body + 0];
  out[1] = e->d->xpos[3 * body + 2];
  out[2] = e->d->xquat[4 * body + 0];
  out[3] = e->d->xquat[4 * body + 2];
  return out + 4;
}

static void manipulator_obs(dm_env *e, double *obs) {
  const manipulator_shared *s = e->sh;
  const mjData *d = e->d;
  double *o = obs;
  for (int i = 0; i < N_ARM; i++) { /* arm_pos: np.vstack([np.sin(joint_pos), np.cos(joint_pos)]).T */
    double q = d->qpos[s->arm_qpos[i]];
    *o++ = sin(q);
    *o++ = cos(q);
  }
  for (int i = 0; i < N_ARM; i++) *o++ = d->qvel[s->arm_dof[i]];                  /* arm_vel */
  for (int i = 0; i < N_TOUCH; i++) *o++ = log1p(d->sensordata[s->touch_adr[i]]); /* touch */
  if (!s->fully_observable) return;
  o = body_2d_pose(e, s->hand_body, o);                      /* hand_pos = body_2d_pose('hand') */
  o = body_2d_pose(e, s->ball_body, o);                      /* object_pos = body_2d_pose(self._object) */
  for (int i = 0; i < 3; i++) *o++ = d->qvel[s->obj_dof[i]]; /* object_vel = joint_vel(self._object_joints) */
  body_2d_pose(e, s->target_body, o);                        /* target_pos = body_2d_pose(self._target) */
}

static double manipulator_reward(dm_env *e) {
  const manipulator_shared *s = e->sh;
  /* site_distance('ball', 'target_ball') = np.linalg.norm(np.diff(site_xpos[['target_ball', 'ball']], axis=0)) */
  const double *ball = e->d->site_xpos + 3 * s->ball_site, *target = e->d->site_xpos + 3 * s->target_site;
  double diff[3] = {ball[0] - target[0], ball[1] - target[1], ball[2] - target[2]};
  double dist = mdv_np_norm(&e->k->dot, diff, 3);
  /* _is_close(distance) = rewards.tolerance(distance, (0, _CLOSE), _CLOSE*2) */
  return dm_tolerance(dist, 0, .01, .01 * 2, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

/*---------------------------------- The task ------------------------------------------------------*/

static const dm_def manipulator_bring_ball_def = {
  .task = "manipulator-bring_ball",
  .xml = "manipulator.xml",
  .edit = manipulator_edit,
  .shared_size = sizeof(manipulator_shared),
  .setup = manipulator_setup,
  .initialize_episode = manipulator_init,
  .get_reward = manipulator_reward,
  .get_observation = manipulator_obs,
};
DM_CREATE(manipulator_bring_ball_create, &manipulator_bring_ball_def)

const mdv_task mdv_task_dm_manipulator_bring_ball = {
  .name = "manipulator-bring_ball",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's manipulator-bring_ball (suite/manipulator.py Bring, the ball prop), bit for bit",
  .options = manipulator_options,
  .n_options = MANIP_N_OPTIONS,
  .create = manipulator_bring_ball_create,
  .gym_id = "mdvec/manipulator-bring_ball-v0",
  .reference = "mdvec.reference.dm_control:manipulator_bring_ball",
  DM_TASK_DEFAULTS,
};
