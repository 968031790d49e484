/* dm_walker.c: the Control Suite's walker domain (dm_control/suite/walker.py, 1.0.50), bit for bit: walker-stand,
 * walker-walk, walker-run (PlanarWalker with move_speed 0, _WALK_SPEED 1, _RUN_SPEED 8; _DEFAULT_TIME_LIMIT 25 s,
 * _CONTROL_TIMESTEP 0.025 s: 10 physics steps of 0.0025 s per env step).
 *
 *   model:  <suite_dir>/walker.xml as it is (get_model_and_assets edits nothing).
 *   reset:  randomizers.randomize_limited_and_rotational_joints(physics, random).
 *   obs:    orientations = xmat[1:, ['xx', 'xz']].ravel() (14,), height = xpos['torso', 'z'] (), velocity = qvel (9,).
 *   reward: standing = tolerance(height, bounds=(1.2, inf), margin=0.6) (gaussian, value_at_margin 0.1);
 *           upright = (1 + xmat['torso', 'zz']) / 2; stand_reward = (3*standing + upright) / 4;
 *           stand: stand_reward; walk, run: move_reward = tolerance(horizontal_velocity, bounds=(move_speed, inf),
 *           margin=move_speed/2, value_at_margin=0.5, sigmoid='linear'), reward stand_reward * (5*move_reward + 1) / 6;
 *           height, upright and horizontal_velocity are numpy scalars.
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "dmkit.h"

#define WALKER_STAND_HEIGHT 1.2 /* _STAND_HEIGHT */

typedef struct walker_shared_ {
  dm_shared k;    /* the kit's part, first */
  int move_speed; /* PlanarWalker's move_speed: 0 (stand), 1 (walk), 8 (run) */
  int torso;      /* body id of 'torso' */
  int hvel_adr;   /* sensor_adr of torso_subtreelinvel: horizontal_velocity() is sensordata[hvel_adr] */
} walker_shared;

static const mdv_option_decl walker_options[DM_N_OPTIONS] = {DM_OPTIONS("25", "0.025")};

static int walker_setup(void *shared, int move_speed, char *err, size_t n, mdv_spec *spec) {
  walker_shared *s = shared;
  const mjModel *m = s->k.m;
  s->move_speed = move_speed;
  s->torso = mj_name2id(m, mjOBJ_BODY, "torso");
  int sensor = mj_name2id(m, mjOBJ_SENSOR, "torso_subtreelinvel");
  if (s->torso < 0 || sensor < 0 || m->sensor_dim[sensor] != 3) {
    snprintf(err, n, "%s: the model has no body 'torso' or no 3-d sensor 'torso_subtreelinvel'", s->k.def->task);
    return MDVEC_ERR_MODEL;
  }
  s->hvel_adr = m->sensor_adr[sensor];
  const dm_obs_part parts[] = {
    {"orientations", 2 * ((int)m->nbody - 1), 0}, {"height", 0, 0}, {"velocity", (int)m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 3, spec, err, n);
}

static int walker_stand_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return walker_setup(shared, 0, err, n, spec); /* PlanarWalker(move_speed=0) */
}

static int walker_walk_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return walker_setup(shared, 1, err, n, spec); /* PlanarWalker(move_speed=_WALK_SPEED) */
}

static int walker_run_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return walker_setup(shared, 8, err, n, spec); /* PlanarWalker(move_speed=_RUN_SPEED) */
}

static void walker_initialize_episode(dm_env *e) {
  dm_randomize_joints(e); /* randomizers.randomize_limited_and_rotational_joints(physics, self.random) */
}

static void walker_get_observation(dm_env *e, double *obs) {
  const walker_shared *s = e->sh;
  const mjModel *m = e->m;
  const mjData *d = e->d;
  int k = 0;
  for (int b = 1; b < m->nbody; b++) { /* orientations: xmat[1:, ['xx', 'xz']].ravel() */
    obs[k++] = d->xmat[9 * b + 0];
    obs[k++] = d->xmat[9 * b + 2];
  }
  obs[k++] = d->xpos[3 * s->torso + 2];                  /* height: xpos['torso', 'z'] */
  for (int i = 0; i < m->nv; i++) obs[k++] = d->qvel[i]; /* velocity: physics.velocity() */
}

static double walker_get_reward(dm_env *e) {
  const walker_shared *s = e->sh;
  const mjData *d = e->d;
  /* standing = rewards.tolerance(torso_height, bounds=(_STAND_HEIGHT, inf), margin=_STAND_HEIGHT/2) */
  double standing = dm_tolerance(d->xpos[3 * s->torso + 2], WALKER_STAND_HEIGHT, INFINITY, WALKER_STAND_HEIGHT / 2,
                                 DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  double upright = (1 + d->xmat[9 * s->torso + 8]) / 2; /* (1 + xmat['torso', 'zz']) / 2 */
  double stand_reward = (3 * standing + upright) / 4;
  if (s->move_speed == 0) return stand_reward;
  /* move_reward = rewards.tolerance(horizontal_velocity, bounds=(move_speed, inf), margin=move_speed/2,
   *                                 value_at_margin=0.5, sigmoid='linear') */
  double move_reward =
    dm_tolerance(d->sensordata[s->hvel_adr], s->move_speed, INFINITY, s->move_speed / 2.0, DM_LINEAR, 0.5, DM_SCALAR);
  return stand_reward * (5 * move_reward + 1) / 6;
}

#define WALKER_DEF(name, setup_fn)                  \
  {.task = name,                                    \
   .xml = "walker.xml",                             \
   .shared_size = sizeof(walker_shared),            \
   .setup = setup_fn,                               \
   .initialize_episode = walker_initialize_episode, \
   .get_reward = walker_get_reward,                 \
   .get_observation = walker_get_observation}

static const dm_def walker_stand_def = WALKER_DEF("walker-stand", walker_stand_setup);
static const dm_def walker_walk_def = WALKER_DEF("walker-walk", walker_walk_setup);
static const dm_def walker_run_def = WALKER_DEF("walker-run", walker_run_setup);
DM_CREATE(walker_stand_create, &walker_stand_def)
DM_CREATE(walker_walk_create, &walker_walk_def)
DM_CREATE(walker_run_create, &walker_run_def)

const mdv_task mdv_task_dm_walker_stand = {
  .name = "walker-stand",
  .summary = "dm_control's walker-stand: a planar biped rewarded for standing tall and upright",
  .options = walker_options,
  .n_options = DM_N_OPTIONS,
  .create = walker_stand_create,
  .gym_id = "mdvec/walker-stand-v0",
  .reference = "mdvec.reference.dm_control:walker_stand",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_walker_walk = {
  .name = "walker-walk",
  .summary = "dm_control's walker-walk: a planar biped rewarded for standing and walking forward at 1 m/s",
  .options = walker_options,
  .n_options = DM_N_OPTIONS,
  .create = walker_walk_create,
  .gym_id = "mdvec/walker-walk-v0",
  .reference = "mdvec.reference.dm_control:walker_walk",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_walker_run = {
  .name = "walker-run",
  .summary = "dm_control's walker-run: a planar biped rewarded for standing and running forward at 8 m/s",
  .options = walker_options,
  .n_options = DM_N_OPTIONS,
  .create = walker_run_create,
  .gym_id = "mdvec/walker-run-v0",
  .reference = "mdvec.reference.dm_control:walker_run",
  DM_TASK_DEFAULTS,
};
