/* dm_cheetah.c: the Control Suite's cheetah domain (dm_control/suite/cheetah.py, 1.0.50), bit for bit:
 * cheetah-run (Cheetah task, _DEFAULT_TIME_LIMIT 10 s, no control timestep: one 0.01 s physics step per env step).
 *
 *   model:  <suite_dir>/cheetah.xml as it is (get_model_and_assets edits nothing).
 *   reset:  is_limited = jnt_limited == 1; qpos[is_limited] = random.uniform(lower, upper) (one draw per limited
 *           joint, in joint order); physics.step(nstep=200) (Physics.step: legacy mj_step2, mj_step x 199,
 *           mj_step1); data.time = 0.
 *   obs:    position = qpos[1:] (8,), velocity = qvel (9,).
 *   reward: rewards.tolerance(speed, bounds=(10, inf), margin=10, value_at_margin=0, sigmoid='linear'), speed the
 *           numpy scalar sensordata['torso_subtreelinvel'][0].
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "dmkit.h"

#define CHEETAH_RUN_SPEED 10 /* _RUN_SPEED */

typedef struct cheetah_shared_ {
  dm_shared k;   /* the kit's part, first */
  int speed_adr; /* sensor_adr of torso_subtreelinvel: speed() is sensordata[speed_adr] */
} cheetah_shared;

static const mdv_option_decl cheetah_run_options[DM_N_OPTIONS] = {DM_OPTIONS("10", "0")};

static int cheetah_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  cheetah_shared *s = shared;
  const mjModel *m = s->k.m;
  /* initialize_episode: assert physics.model.nq == physics.model.njnt (every joint one dof) */
  if (m->nq != m->njnt || m->nv != m->njnt) {
    snprintf(err, n, "cheetah-run: the model has nq %d, nv %d, njnt %d; the task needs one dof per joint", (int)m->nq,
             (int)m->nv, (int)m->njnt);
    return MDVEC_ERR_MODEL;
  }
  int sensor = mj_name2id(m, mjOBJ_SENSOR, "torso_subtreelinvel");
  if (sensor < 0 || m->sensor_dim[sensor] != 3) {
    snprintf(err, n, "cheetah-run: the model has no 3-d sensor 'torso_subtreelinvel'");
    return MDVEC_ERR_MODEL;
  }
  s->speed_adr = m->sensor_adr[sensor];
  const dm_obs_part parts[] = {{"position", (int)m->nq - 1, 0}, {"velocity", (int)m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

static void cheetah_initialize_episode(dm_env *e) {
  const mjModel *m = e->m;
  /* is_limited = jnt_limited == 1; lower, upper = jnt_range[is_limited].T;
   * qpos[is_limited] = random.uniform(lower, upper): one draw per limited joint, in joint order */
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_limited[j] == 1) {
      e->d->qpos[m->jnt_qposadr[j]] = mdv_mt19937_uniform(&e->rng, m->jnt_range[2 * j], m->jnt_range[2 * j + 1]);
    }
  }
  dm_physics_step(e, 200); /* physics.step(nstep=200): stabilize the model */
  e->d->time = 0;          /* physics.data.time = 0 */
}

static void cheetah_get_observation(dm_env *e, double *obs) {
  const mjModel *m = e->m;
  int k = 0;
  for (int i = 1; i < m->nq; i++) obs[k++] = e->d->qpos[i]; /* position: qpos[1:].copy() */
  for (int i = 0; i < m->nv; i++) obs[k++] = e->d->qvel[i]; /* velocity: physics.velocity() */
}

static double cheetah_get_reward(dm_env *e) {
  const cheetah_shared *s = e->sh;
  double speed = e->d->sensordata[s->speed_adr]; /* named.data.sensordata['torso_subtreelinvel'][0] */
  /* rewards.tolerance(speed, bounds=(_RUN_SPEED, inf), margin=_RUN_SPEED, value_at_margin=0, sigmoid='linear') */
  return dm_tolerance(speed, CHEETAH_RUN_SPEED, INFINITY, CHEETAH_RUN_SPEED, DM_LINEAR, 0.0, DM_SCALAR);
}

static const dm_def cheetah_run_def = {
  .task = "cheetah-run",
  .xml = "cheetah.xml",
  .shared_size = sizeof(cheetah_shared),
  .setup = cheetah_setup,
  .initialize_episode = cheetah_initialize_episode,
  .get_reward = cheetah_get_reward,
  .get_observation = cheetah_get_observation,
};
DM_CREATE(cheetah_run_create, &cheetah_run_def)

const mdv_task mdv_task_dm_cheetah_run = {
  .name = "cheetah-run",
  .summary = "dm_control's cheetah-run: a planar cheetah rewarded for running forward at 10 m/s",
  .options = cheetah_run_options,
  .n_options = DM_N_OPTIONS,
  .create = cheetah_run_create,
  .gym_id = "mdvec/cheetah-run-v0",
  .reference = "mdvec.reference.dm_control:cheetah_run",
  DM_TASK_DEFAULTS,
};
