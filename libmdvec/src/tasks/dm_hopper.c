/* dm_hopper.c: the Control Suite's hopper domain (dm_control/suite/hopper.py, 1.0.50), bit for bit: hopper-stand and
 * hopper-hop (Hopper task with hopping False / True; _DEFAULT_TIME_LIMIT 20 s, _CONTROL_TIMESTEP 0.02 s: 4 physics
 * steps of 0.005 s per env step).
 *
 *   model:  <suite_dir>/hopper.xml as it is (get_model_and_assets edits nothing).
 *   reset:  randomizers.randomize_limited_and_rotational_joints(physics, random).
 *   obs:    position = qpos[1:] (6,), velocity = qvel (7,), touch = np.log1p(sensordata[['touch_toe', 'touch_heel']])
 *           (2,).
 *   reward: standing = tolerance(height, (0.6, 2)) (margin 0: 1.0 in bounds, else 0.0), height = xipos['torso', 'z']
 *           - xipos['foot', 'z'];
 *           hop: standing * tolerance(speed, bounds=(2, inf), margin=1, value_at_margin=0.5, sigmoid='linear'),
 *           speed the numpy scalar sensordata['torso_subtreelinvel'][0];
 *           stand: small_control = tolerance(physics.control(), margin=1, value_at_margin=0,
 *           sigmoid='quadratic').mean() (an array: ** 2 is x * x; mean: numpy's pairwise sum / nu);
 *           small_control = (small_control + 4) / 5; standing * small_control.
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "dmkit.h"

#define HOPPER_STAND_HEIGHT 0.6 /* _STAND_HEIGHT */
#define HOPPER_HOP_SPEED    2   /* _HOP_SPEED */
#define HOPPER_MAX_NU       64  /* the most actuators the stand reward's stack buffer takes */

typedef struct hopper_shared_ {
  dm_shared k;     /* the kit's part, first */
  int hopping;     /* Hopper's hopping: 0 (stand), 1 (hop) */
  int torso, foot; /* body ids of 'torso' and 'foot' */
  int speed_adr;   /* sensor_adr of torso_subtreelinvel: speed() is sensordata[speed_adr] */
  int toe_adr;     /* sensor_adr of touch_toe */
  int heel_adr;    /* sensor_adr of touch_heel */
} hopper_shared;

static const mdv_option_decl hopper_options[DM_N_OPTIONS] = {DM_OPTIONS("20", "0.02")};

static int hopper_sensor(const mjModel *m, const char *name, int dim) {
  int id = mj_name2id(m, mjOBJ_SENSOR, name);
  return id >= 0 && m->sensor_dim[id] == dim ? m->sensor_adr[id] : -1;
}

static int hopper_setup(void *shared, int hopping, char *err, size_t n, mdv_spec *spec) {
  hopper_shared *s = shared;
  const mjModel *m = s->k.m;
  s->hopping = hopping;
  s->torso = mj_name2id(m, mjOBJ_BODY, "torso");
  s->foot = mj_name2id(m, mjOBJ_BODY, "foot");
  s->speed_adr = hopper_sensor(m, "torso_subtreelinvel", 3);
  s->toe_adr = hopper_sensor(m, "touch_toe", 1);
  s->heel_adr = hopper_sensor(m, "touch_heel", 1);
  if (s->torso < 0 || s->foot < 0 || s->speed_adr < 0 || s->toe_adr < 0 || s->heel_adr < 0) {
    snprintf(err, n,
             "%s: the model lacks a body 'torso' or 'foot', or a sensor 'torso_subtreelinvel' (3-d), 'touch_toe' or "
             "'touch_heel' (1-d)",
             s->k.def->task);
    return MDVEC_ERR_MODEL;
  }
  if (m->nu > HOPPER_MAX_NU) {
    snprintf(err, n, "%s: the model has %d actuators, more than %d", s->k.def->task, (int)m->nu, HOPPER_MAX_NU);
    return MDVEC_ERR_MODEL;
  }
  const dm_obs_part parts[] = {{"position", (int)m->nq - 1, 0}, {"velocity", (int)m->nv, 0}, {"touch", 2, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

static int hopper_stand_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return hopper_setup(shared, 0, err, n, spec); /* Hopper(hopping=False) */
}

static int hopper_hop_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return hopper_setup(shared, 1, err, n, spec); /* Hopper(hopping=True) */
}

static void hopper_initialize_episode(dm_env *e) {
  dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, self.random) */
}

static void hopper_get_observation(dm_env *e, double *obs) {
  const hopper_shared *s = e->sh;
  const mjModel *m = e->m;
  const mjData *d = e->d;
  int k = 0;
  for (int i = 1; i < m->nq; i++) obs[k++] = d->qpos[i]; /* position: qpos[1:].copy() */
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i]; /* velocity: physics.velocity() */
  obs[k++] = log1p(d->sensordata[s->toe_adr]);           /* touch: np.log1p(sensordata[['touch_toe', */
  obs[k++] = log1p(d->sensordata[s->heel_adr]);          /*                             'touch_heel']]) */
}

static double hopper_get_reward(dm_env *e) {
  const hopper_shared *s = e->sh;
  const mjModel *m = e->m;
  const mjData *d = e->d;
  double height = d->xipos[3 * s->torso + 2] - d->xipos[3 * s->foot + 2]; /* xipos['torso', 'z'] - xipos['foot', 'z'] */
  /* standing = rewards.tolerance(physics.height(), (_STAND_HEIGHT, 2)) */
  double standing = dm_tolerance(height, HOPPER_STAND_HEIGHT, 2, 0.0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  if (s->hopping) {
    /* hopping = rewards.tolerance(speed, bounds=(_HOP_SPEED, inf), margin=_HOP_SPEED/2, value_at_margin=0.5,
     *                             sigmoid='linear') */
    double hopping = dm_tolerance(d->sensordata[s->speed_adr], HOPPER_HOP_SPEED, INFINITY, HOPPER_HOP_SPEED / 2.0,
                                  DM_LINEAR, 0.5, DM_SCALAR);
    return standing * hopping;
  }
  /* small_control = rewards.tolerance(physics.control(), margin=1, value_at_margin=0, sigmoid='quadratic').mean() */
  double value[HOPPER_MAX_NU];
  for (int i = 0; i < m->nu; i++) value[i] = dm_tolerance(d->ctrl[i], 0.0, 0.0, 1, DM_QUADRATIC, 0.0, DM_ARRAY);
  double small_control = mdv_np_mean(value, (int)m->nu);
  small_control = (small_control + 4) / 5;
  return standing * small_control;
}

#define HOPPER_DEF(name, setup_fn)                  \
  {.task = name,                                    \
   .xml = "hopper.xml",                             \
   .shared_size = sizeof(hopper_shared),            \
   .setup = setup_fn,                               \
   .initialize_episode = hopper_initialize_episode, \
   .get_reward = hopper_get_reward,                 \
   .get_observation = hopper_get_observation}

static const dm_def hopper_stand_def = HOPPER_DEF("hopper-stand", hopper_stand_setup);
static const dm_def hopper_hop_def = HOPPER_DEF("hopper-hop", hopper_hop_setup);
DM_CREATE(hopper_stand_create, &hopper_stand_def)
DM_CREATE(hopper_hop_create, &hopper_hop_def)

const mdv_task mdv_task_dm_hopper_stand = {
  .name = "hopper-stand",
  .summary = "dm_control's hopper-stand: a one-legged planar hopper rewarded for standing upright with small controls",
  .options = hopper_options,
  .n_options = DM_N_OPTIONS,
  .create = hopper_stand_create,
  .gym_id = "mdvec/hopper-stand-v0",
  .reference = "mdvec.reference.dm_control:hopper_stand",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_hopper_hop = {
  .name = "hopper-hop",
  .summary = "dm_control's hopper-hop: a one-legged planar hopper rewarded for standing and hopping forward at 2 m/s",
  .options = hopper_options,
  .n_options = DM_N_OPTIONS,
  .create = hopper_hop_create,
  .gym_id = "mdvec/hopper-hop-v0",
  .reference = "mdvec.reference.dm_control:hopper_hop",
  DM_TASK_DEFAULTS,
};
