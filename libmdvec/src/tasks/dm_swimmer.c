/* dm_swimmer.c: dm_control's swimmer domain (suite/swimmer.py, swimmer.xml), tasks swimmer6 and swimmer15, bit for
 * bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * The model is swimmer._make_model(n_bodies), done on the parsed mjSpec (swimmer_make_model): under the head,
 * n_bodies - 1 nested bodies segment_i (pos "0 .1 0", the head's childclass 'swimmer') with geoms visual_i
 * (class visual), inertial_i (class inertial), site site_i and hinge joint_i (range +-360.0/n_bodies degrees); a
 * motor motor_i on each joint; sensors velocimeter_i and gyro_i on each site, after the XML's own six; the
 * head's trackcom cameras' positions scaled by n_bodies / 6.0. _CONTROL_TIMESTEP = .03 (15 physics steps).
 *   joints:          qpos[3:].copy() (n_bodies - 1,)
 *   to_target:       nose_to_target() = (geom_xpos['target'] - geom_xpos['nose']).dot(xmat['head'].reshape(3, 3))
 *                    [:2] (2,); the .dot is numpy's dgemv of a 3-vector and a 3x3 matrix, called through
 *                    mdv_np_vecmat (the binding hands libmdvec numpy's own dgemv, as its ddot)
 *   body_velocities: sensordata[12:].reshape((-1, 6))[:, [0, 1, 5]].ravel() (3 * n_bodies,)
 * reward: target_size = geom_size['target', 0]; tolerance(np.linalg.norm(nose_to_target()), bounds=(0,
 *         target_size), margin=5*target_size, sigmoid='long_tail') (a numpy scalar: ** 2 is pow).
 * reset:  randomize_limited_and_rotational_joints; close_target = rand() < .2; target_box = .3 if close_target else
 *         2; xpos, ypos = uniform(-target_box, target_box, size=2); geom_pos['target', 'x'/'y'] and
 *         light_pos['target_light', 'x'/'y'] = xpos, ypos (the env's model).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl swimmer_options[DM_N_OPTIONS] = {
  DM_OPTIONS("30", "0.03"), /* _DEFAULT_TIME_LIMIT = 30, _CONTROL_TIMESTEP = .03 */
};

/*---------------------------------- The model: _make_model(n_bodies) --------------------------------*/

/* swimmer._make_model(n_bodies) on the parsed swimmer.xml, element for element as MuJoCo's XML reader would
 * build the XML that function writes. */
static int swimmer_make_model(mjSpec *spec, int n_bodies, const char *task, char *err, size_t n) {
  mjsBody *world = mjs_findBody(spec, "world");
  mjsElement *first = world ? mjs_firstChild(world, mjOBJ_BODY, 0) : NULL;
  mjsBody *head = first ? mjs_asBody(first) : NULL; /* head_body = mjcf.find('./worldbody/body') */
  mjsDefault *visual = mjs_findDefault(spec, "visual"), *inertial = mjs_findDefault(spec, "inertial");
  mjsDefault *main_def = mjs_getSpecDefault(spec);
  if (!head || !visual || !inertial || !main_def) {
    snprintf(err, n, "%s: swimmer.xml needs a body under worldbody and default classes 'visual' and 'inertial'", task);
    return MDVEC_ERR_MODEL;
  }
  char name[64];
  mjsBody *parent = head;
  for (int i = 0; i < n_bodies - 1; i++) {
    /* child = _make_body(body_index=i): <body name="segment_i" pos="0 .1 0">, its class the parent's */
    mjsBody *child = mjs_addBody(parent, NULL);
    if (!child) goto fail;
    mjs_setDefault(child->element, mjs_getDefault(parent->element));
    snprintf(name, sizeof name, "segment_%d", i);
    if (mjs_setName(child->element, name)) goto fail;
    child->pos[0] = 0, child->pos[1] = .1, child->pos[2] = 0;
    /* <geom class="visual" name="visual_i"/>, <geom class="inertial" name="inertial_i"/> */
    mjsGeom *geom = mjs_addGeom(child, visual);
    snprintf(name, sizeof name, "visual_%d", i);
    if (!geom || mjs_setName(geom->element, name)) goto fail;
    geom = mjs_addGeom(child, inertial);
    snprintf(name, sizeof name, "inertial_%d", i);
    if (!geom || mjs_setName(geom->element, name)) goto fail;
    /* child.append(etree.Element('site', name=site_name)) */
    mjsSite *site = mjs_addSite(child, mjs_getDefault(child->element));
    snprintf(name, sizeof name, "site_%d", i);
    if (!site || mjs_setName(site->element, name)) goto fail;
    /* joint_limit = 360.0/n_bodies; <joint name="joint_i" range="-joint_limit joint_limit"/> (degrees) */
    double joint_limit = 360.0 / n_bodies;
    mjsJoint *joint = mjs_addJoint(child, mjs_getDefault(child->element));
    snprintf(name, sizeof name, "joint_%d", i);
    if (!joint || mjs_setName(joint->element, name)) goto fail;
    joint->range[0] = -joint_limit, joint->range[1] = joint_limit;
    /* actuator.append(<motor name="motor_i" joint="joint_i"/>), class main */
    mjsActuator *motor = mjs_addActuator(spec, main_def);
    snprintf(name, sizeof name, "motor_%d", i);
    if (!motor || mjs_setName(motor->element, name)) goto fail;
    snprintf(name, sizeof name, "joint_%d", i);
    mjs_setString(motor->target, name);
    motor->trntype = mjTRN_JOINT;
    const char *why = mjs_setToMotor(motor);
    if (why && why[0]) {
      snprintf(err, n, "%s: motor_%d: %s", task, i, why);
      return MDVEC_ERR_MODEL;
    }
    /* sensor.append(<velocimeter name="velocimeter_i" site="site_i"/>), then <gyro name="gyro_i" .../> */
    for (int g = 0; g < 2; g++) {
      mjsSensor *sensor = mjs_addSensor(spec);
      snprintf(name, sizeof name, g ? "gyro_%d" : "velocimeter_%d", i);
      if (!sensor || mjs_setName(sensor->element, name)) goto fail;
      sensor->type = g ? mjSENS_GYRO : mjSENS_VELOCIMETER;
      sensor->objtype = mjOBJ_SITE;
      snprintf(name, sizeof name, "site_%d", i);
      mjs_setString(sensor->objname, name);
    }
    parent = child;
  }
  /* the head's cameras with mode 'trackcom': pos = [float(dim) * scale], scale = n_bodies / 6.0 */
  double scale = n_bodies / 6.0;
  for (mjsElement *el = mjs_firstChild(head, mjOBJ_CAMERA, 0); el; el = mjs_nextChild(head, el, 0)) {
    mjsCamera *cam = mjs_asCamera(el);
    if (cam && cam->mode == mjCAMLIGHT_TRACKCOM) {
      for (int c = 0; c < 3; c++) cam->pos[c] = cam->pos[c] * scale;
    }
  }
  return MDVEC_OK;
fail:
  snprintf(err, n, "%s: cannot build the %d-body swimmer: %s", task, n_bodies, mjs_getError(spec));
  return MDVEC_ERR_MODEL;
}

static int swimmer6_edit(mjSpec *spec, const mdv_value *opts, char *err, size_t n) {
  (void)opts;
  return swimmer_make_model(spec, 6, "swimmer-swimmer6", err, n);
}

static int swimmer15_edit(mjSpec *spec, const mdv_value *opts, char *err, size_t n) {
  (void)opts;
  return swimmer_make_model(spec, 15, "swimmer-swimmer15", err, n);
}

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct swimmer_shared_ {
  dm_shared k; /* the kit's part, first */
  int n_bodies;
  int target_geom, nose_geom, head_body, target_light;
} swimmer_shared;

static int swimmer_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  swimmer_shared *s = shared;
  const mjModel *m = s->k.m;
  s->target_geom = mj_name2id(m, mjOBJ_GEOM, "target");
  s->nose_geom = mj_name2id(m, mjOBJ_GEOM, "nose");
  s->head_body = mj_name2id(m, mjOBJ_BODY, "head");
  s->target_light = mj_name2id(m, mjOBJ_LIGHT, "target_light");
  s->n_bodies = (m->nsensordata - 12) / 6; /* the rows of sensordata[12:].reshape((-1, 6)) */
  if (s->target_geom < 0 || s->nose_geom < 0 || s->head_body < 0 || s->target_light < 0 || m->nq < 3 ||
      m->nsensordata < 12 || (m->nsensordata - 12) % 6 != 0) {
    snprintf(err, n,
             "%s: the model '%s' needs geoms 'target' and 'nose', body 'head', light 'target_light', 3 root "
             "joints and 12 + 6 * k sensor values",
             s->k.def->task, s->k.path);
    return MDVEC_ERR_MODEL;
  }
  dm_obs_part parts[] = {{"joints", m->nq - 3, 0}, {"to_target", 2, 0}, {"body_velocities", 3 * s->n_bodies, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void swimmer_init(dm_env *e) {
  const swimmer_shared *s = e->sh;
  dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, self.random) */
  int close_target = mdv_mt19937_random(&e->rng) < .2; /* close_target = self.random.rand() < .2 */
  double target_box = close_target ? .3 : 2;           /* target_box = .3 if close_target else 2 */
  /* xpos, ypos = self.random.uniform(-target_box, target_box, size=2) */
  double xpos = mdv_mt19937_uniform(&e->rng, -target_box, target_box);
  double ypos = mdv_mt19937_uniform(&e->rng, -target_box, target_box);
  e->m->geom_pos[3 * s->target_geom + 0] = xpos;   /* geom_pos['target', 'x'] = xpos */
  e->m->geom_pos[3 * s->target_geom + 1] = ypos;   /* geom_pos['target', 'y'] = ypos */
  e->m->light_pos[3 * s->target_light + 0] = xpos; /* light_pos['target_light', 'x'] = xpos */
  e->m->light_pos[3 * s->target_light + 1] = ypos; /* light_pos['target_light', 'y'] = ypos */
}

/* nose_to_target(): (geom_xpos['target'] - geom_xpos['nose']).dot(xmat['head'].reshape(3, 3))[:2], the .dot
 * numpy's own dgemv (mdv_np_vecmat); out gets the first two entries. */
static void swimmer_nose_to_target(const dm_env *e, double *out) {
  const swimmer_shared *s = e->sh;
  const double *target = e->d->geom_xpos + 3 * s->target_geom, *nose = e->d->geom_xpos + 3 * s->nose_geom;
  const double *M = e->d->xmat + 9 * s->head_body;
  double v[3];
  for (int c = 0; c < 3; c++) v[c] = target[c] - nose[c]; /* nose_to_target (global) */
  double full[3];
  mdv_np_vecmat(&e->k->dot, v, M, 3, 3, full);
  out[0] = full[0];
  out[1] = full[1];
}

static void swimmer_obs(dm_env *e, double *obs) {
  const swimmer_shared *s = e->sh;
  const mjModel *m = e->m;
  int i = 0;
  for (int j = 3; j < m->nq; j++) obs[i++] = e->d->qpos[j]; /* joints = qpos[3:].copy() */
  swimmer_nose_to_target(e, obs + i);                       /* to_target = physics.nose_to_target() */
  i += 2;
  const double *xvel_local = e->d->sensordata + 12; /* sensordata[12:].reshape((-1, 6)) */
  for (int b = 0; b < s->n_bodies; b++) {           /* body_velocities: [:, [0, 1, 5]].ravel() */
    obs[i++] = xvel_local[6 * b + 0];
    obs[i++] = xvel_local[6 * b + 1];
    obs[i++] = xvel_local[6 * b + 5];
  }
}

static double swimmer_reward(dm_env *e) {
  const swimmer_shared *s = e->sh;
  double target_size = e->m->geom_size[3 * s->target_geom + 0]; /* geom_size['target', 0] */
  double to_target[2];
  swimmer_nose_to_target(e, to_target);
  double dist = mdv_np_norm(&e->k->dot, to_target, 2); /* nose_to_target_dist() */
  /* rewards.tolerance(dist, bounds=(0, target_size), margin=5*target_size, sigmoid='long_tail') */
  return dm_tolerance(dist, 0, target_size, 5 * target_size, DM_LONG_TAIL, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

/*---------------------------------- The tasks -----------------------------------------------------*/

static const dm_def swimmer6_def = {
  .task = "swimmer-swimmer6",
  .xml = "swimmer.xml",
  .edit = swimmer6_edit,
  .shared_size = sizeof(swimmer_shared),
  .setup = swimmer_setup,
  .initialize_episode = swimmer_init,
  .get_reward = swimmer_reward,
  .get_observation = swimmer_obs,
};
DM_CREATE(swimmer6_create, &swimmer6_def)

static const dm_def swimmer15_def = {
  .task = "swimmer-swimmer15",
  .xml = "swimmer.xml",
  .edit = swimmer15_edit,
  .shared_size = sizeof(swimmer_shared),
  .setup = swimmer_setup,
  .initialize_episode = swimmer_init,
  .get_reward = swimmer_reward,
  .get_observation = swimmer_obs,
};
DM_CREATE(swimmer15_create, &swimmer15_def)

const mdv_task mdv_task_dm_swimmer_swimmer6 = {
  .name = "swimmer-swimmer6",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's swimmer-swimmer6 (suite/swimmer.py Swimmer, _make_model(6)), bit for bit",
  .options = swimmer_options,
  .n_options = DM_N_OPTIONS,
  .create = swimmer6_create,
  .gym_id = "mdvec/swimmer-swimmer6-v0",
  .reference = "mdvec.reference.dm_control:swimmer_swimmer6",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_swimmer_swimmer15 = {
  .name = "swimmer-swimmer15",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's swimmer-swimmer15 (suite/swimmer.py Swimmer, _make_model(15)), bit for bit",
  .options = swimmer_options,
  .n_options = DM_N_OPTIONS,
  .create = swimmer15_create,
  .gym_id = "mdvec/swimmer-swimmer15-v0",
  .reference = "mdvec.reference.dm_control:swimmer_swimmer15",
  DM_TASK_DEFAULTS,
};
