/* dm_fish.c: dm_control's fish domain (suite/fish.py, fish.xml), tasks upright and swim, bit for bit against
 * dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A fish on a free root joint ('root') with seven hinges (_JOINTS), five position actuators, no gravity.
 *   joint_angles: named.data.qpos[_JOINTS] (7,)
 *   upright:      named.data.xmat['torso', 'zz'] ()
 *   target:       (geom_xpos['target'] - geom_xpos['mouth']).dot(geom_xmat['mouth'].reshape(3, 3)) (3,) (swim only;
 *                 the .dot is numpy's dgemv of a 3-vector and a 3x3 matrix: mdv_np_vecmat, numpy's own dgemv
 *                 through the binding, cfg.dgemv64)
 *   velocity:     qvel.copy() (13,)
 * reward: upright: tolerance(upright, bounds=(1, 1), margin=1) (gaussian, numpy scalar);
 *         swim: radii = geom_size[['mouth', 'target'], 0].sum(); in_target = tolerance(np.linalg.norm(target),
 *         bounds=(0, radii), margin=2*radii); (7*in_target + 0.5 * (upright + 1)) / 8.
 * reset:  quat = randn(4); qpos['root'][3:7] = quat / np.linalg.norm(quat); qpos[joint] = uniform(-.2, .2) for
 *         each of _JOINTS in order; upright: geom_rgba['target', 3] = 0 (the env's model); swim: geom_pos['target',
 *         'x'], ['y'] = uniform(-.4, .4) each, ['z'] = uniform(.1, .3) (the env's model).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl fish_options[DM_N_OPTIONS] = {
  DM_OPTIONS("40", "0.04"), /* _DEFAULT_TIME_LIMIT = 40, _CONTROL_TIMESTEP = .04 */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

enum { FISH_N_JOINTS = 7 };

/* _JOINTS, in its order */
static const char *const fish_joint_names[FISH_N_JOINTS] = {
  "tail1", "tail_twist", "tail2", "finright_roll", "finright_pitch", "finleft_roll", "finleft_pitch",
};

typedef struct fish_shared_ {
  dm_shared k;                /* the kit's part, first */
  int qposadr[FISH_N_JOINTS]; /* jnt_qposadr of _JOINTS */
  int root_qposadr;           /* jnt_qposadr of 'root' */
  int torso_body, mouth_geom, target_geom;
} fish_shared;

static int fish_setup(fish_shared *s, int swim, mdv_spec *spec, char *err, size_t n) {
  const mjModel *m = s->k.m;
  for (int i = 0; i < FISH_N_JOINTS; i++) {
    int j = mj_name2id(m, mjOBJ_JOINT, fish_joint_names[i]);
    if (j < 0 || m->jnt_type[j] != mjJNT_HINGE) {
      snprintf(err, n, "%s: the model '%s' has no hinge '%s'", s->k.def->task, s->k.path, fish_joint_names[i]);
      return MDVEC_ERR_MODEL;
    }
    s->qposadr[i] = m->jnt_qposadr[j];
  }
  int root = mj_name2id(m, mjOBJ_JOINT, "root");
  s->torso_body = mj_name2id(m, mjOBJ_BODY, "torso");
  s->mouth_geom = mj_name2id(m, mjOBJ_GEOM, "mouth");
  s->target_geom = mj_name2id(m, mjOBJ_GEOM, "target");
  if (root < 0 || m->jnt_type[root] != mjJNT_FREE || s->torso_body < 0 || s->mouth_geom < 0 || s->target_geom < 0) {
    snprintf(err, n, "%s: the model '%s' needs a free joint 'root', body 'torso' and geoms 'mouth', 'target'",
             s->k.def->task, s->k.path);
    return MDVEC_ERR_MODEL;
  }
  s->root_qposadr = m->jnt_qposadr[root];
  if (swim) {
    const dm_obs_part parts[] = {
      {"joint_angles", FISH_N_JOINTS, 0}, {"upright", 0, 0}, {"target", 3, 0}, {"velocity", m->nv, 0}};
    return dm_obs_layout(&s->k, parts, 4, spec, err, n);
  }
  const dm_obs_part parts[] = {{"joint_angles", FISH_N_JOINTS, 0}, {"upright", 0, 0}, {"velocity", m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

static int fish_upright_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return fish_setup(shared, 0, spec, err, n);
}

static int fish_swim_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return fish_setup(shared, 1, spec, err, n);
}

/*---------------------------------- Episode -------------------------------------------------------*/

/* What both tasks' initialize_episode do first: the root's orientation, then the joints. */
static void fish_init_pose(dm_env *e) {
  const fish_shared *s = e->sh;
  double quat[4];
  for (int i = 0; i < 4; i++) quat[i] = mdv_mt19937_randn(&e->rng);                 /* quat = self.random.randn(4) */
  double norm = mdv_np_norm(&e->k->dot, quat, 4);                                   /* np.linalg.norm(quat) */
  for (int i = 0; i < 4; i++) e->d->qpos[s->root_qposadr + 3 + i] = quat[i] / norm; /* qpos['root'][3:7] = */
  for (int j = 0; j < FISH_N_JOINTS; j++) /* for joint in _JOINTS: qpos[joint] = self.random.uniform(-.2, .2) */
    e->d->qpos[s->qposadr[j]] = mdv_mt19937_uniform(&e->rng, -.2, .2);
}

static void fish_upright_init(dm_env *e) {
  const fish_shared *s = e->sh;
  fish_init_pose(e);
  e->m->geom_rgba[4 * s->target_geom + 3] = 0; /* geom_rgba['target', 3] = 0 */
}

static void fish_swim_init(dm_env *e) {
  const fish_shared *s = e->sh;
  fish_init_pose(e);
  double *pos = e->m->geom_pos + 3 * s->target_geom;
  pos[0] = mdv_mt19937_uniform(&e->rng, -.4, .4); /* geom_pos['target', 'x'] = self.random.uniform(-.4, .4) */
  pos[1] = mdv_mt19937_uniform(&e->rng, -.4, .4); /* geom_pos['target', 'y'] = self.random.uniform(-.4, .4) */
  pos[2] = mdv_mt19937_uniform(&e->rng, .1, .3);  /* geom_pos['target', 'z'] = self.random.uniform(.1, .3) */
}

/* mouth_to_target(): (geom_xpos['target'] - geom_xpos['mouth']).dot(geom_xmat['mouth'].reshape(3, 3)), the .dot
 * numpy's dgemv (mdv_np_vecmat). */
static void fish_mouth_to_target(const dm_env *e, double *out) {
  const fish_shared *s = e->sh;
  const double *target = e->d->geom_xpos + 3 * s->target_geom, *mouth = e->d->geom_xpos + 3 * s->mouth_geom;
  const double *M = e->d->geom_xmat + 9 * s->mouth_geom;
  double v[3];
  for (int c = 0; c < 3; c++) v[c] = target[c] - mouth[c]; /* mouth_to_target_global */
  mdv_np_vecmat(&e->k->dot, v, M, 3, 3, out); /* mouth_to_target_global.dot(geom_xmat['mouth'].reshape(3, 3)) */
}

static double fish_upright(const dm_env *e) {
  const fish_shared *s = e->sh;
  return e->d->xmat[9 * s->torso_body + 8]; /* named.data.xmat['torso', 'zz'] */
}

static void fish_obs(dm_env *e, double *obs, int swim) {
  const fish_shared *s = e->sh;
  int i = 0;
  for (int j = 0; j < FISH_N_JOINTS; j++) obs[i++] = e->d->qpos[s->qposadr[j]]; /* joint_angles */
  obs[i++] = fish_upright(e);                                                   /* upright */
  if (swim) {
    fish_mouth_to_target(e, obs + i); /* target */
    i += 3;
  }
  for (int j = 0; j < e->m->nv; j++) obs[i++] = e->d->qvel[j]; /* velocity: qvel */
}

static void fish_upright_obs(dm_env *e, double *obs) {
  fish_obs(e, obs, 0);
}

static void fish_swim_obs(dm_env *e, double *obs) {
  fish_obs(e, obs, 1);
}

static double fish_upright_reward(dm_env *e) {
  /* rewards.tolerance(physics.upright(), bounds=(1, 1), margin=1) */
  return dm_tolerance(fish_upright(e), 1, 1, 1, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
}

static double fish_swim_reward(dm_env *e) {
  const fish_shared *s = e->sh;
  /* radii = physics.named.model.geom_size[['mouth', 'target'], 0].sum() */
  double sizes[2] = {e->m->geom_size[3 * s->mouth_geom], e->m->geom_size[3 * s->target_geom]};
  double radii = mdv_np_sum(sizes, 2);
  double target[3];
  fish_mouth_to_target(e, target);
  /* in_target = rewards.tolerance(np.linalg.norm(physics.mouth_to_target()), bounds=(0, radii), margin=2*radii) */
  double in_target =
    dm_tolerance(mdv_np_norm(&e->k->dot, target, 3), 0, radii, 2 * radii, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  double is_upright = 0.5 * (fish_upright(e) + 1); /* 0.5 * (physics.upright() + 1) */
  return (7 * in_target + is_upright) / 8;         /* (7*in_target + is_upright) / 8 */
}

/*---------------------------------- The tasks -----------------------------------------------------*/

static const dm_def fish_upright_def = {
  .task = "fish-upright",
  .xml = "fish.xml",
  .shared_size = sizeof(fish_shared),
  .setup = fish_upright_setup,
  .initialize_episode = fish_upright_init,
  .get_reward = fish_upright_reward,
  .get_observation = fish_upright_obs,
};
DM_CREATE(fish_upright_create, &fish_upright_def)

static const dm_def fish_swim_def = {
  .task = "fish-swim",
  .xml = "fish.xml",
  .shared_size = sizeof(fish_shared),
  .setup = fish_swim_setup,
  .initialize_episode = fish_swim_init,
  .get_reward = fish_swim_reward,
  .get_observation = fish_swim_obs,
};
DM_CREATE(fish_swim_create, &fish_swim_def)

const mdv_task mdv_task_dm_fish_upright = {
  .name = "fish-upright",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's fish-upright (suite/fish.py Upright), bit for bit",
  .options = fish_options,
  .n_options = DM_N_OPTIONS,
  .create = fish_upright_create,
  .gym_id = "mdvec/fish-upright-v0",
  .reference = "mdvec.reference.dm_control:fish_upright",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_fish_swim = {
  .name = "fish-swim",
  .flags = MDVEC_TASK_NUMPY_DOT,
  .summary = "dm_control's fish-swim (suite/fish.py Swim), bit for bit",
  .options = fish_options,
  .n_options = DM_N_OPTIONS,
  .create = fish_swim_create,
  .gym_id = "mdvec/fish-swim-v0",
  .reference = "mdvec.reference.dm_control:fish_swim",
  DM_TASK_DEFAULTS,
};
