/* dm_ball_in_cup.c: dm_control's ball_in_cup domain (suite/ball_in_cup.py, ball_in_cup.xml), task catch,
 * bit for bit against dm_control 1.0.50 on the Control Suite kit (dmkit.h).
 *
 * A cup on two slide joints (cup_x, cup_z, two motors) and a ball on two slide joints (ball_x, ball_z)
 * tied to the cup by a string (a limited spatial tendon).
 *   obs:    position = qpos.copy() (4,), velocity = qvel.copy() (4,)
 *   reward: in_target(): float(all(abs(site_xpos['target', ['x', 'z']] - xpos['ball', ['x', 'z']]) <
 *           site_size['target', [0, 2]] - geom_size['ball', 0]))
 *   reset:  until no contact: qpos['ball_x'] = uniform(-.2, .2); qpos['ball_z'] = uniform(.2, .5);
 *           after_reset(); penetrating = ncon > 0.
 */
#include <math.h>
#include <stdio.h>

#include "dmkit.h"

/*---------------------------------- Options -------------------------------------------------------*/

static const mdv_option_decl ball_in_cup_options[DM_N_OPTIONS] = {
  DM_OPTIONS("20", "0.02"), /* _DEFAULT_TIME_LIMIT = 20, _CONTROL_TIMESTEP = .02 */
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct ball_in_cup_shared_ {
  dm_shared k;                /* the kit's part, first */
  int ball_x_adr, ball_z_adr; /* jnt_qposadr of ball_x, ball_z */
  int target_site, ball_body, ball_geom;
} ball_in_cup_shared;

static int ball_in_cup_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  ball_in_cup_shared *s = shared;
  const mjModel *m = s->k.m;
  int ball_x = mj_name2id(m, mjOBJ_JOINT, "ball_x"), ball_z = mj_name2id(m, mjOBJ_JOINT, "ball_z");
  s->target_site = mj_name2id(m, mjOBJ_SITE, "target");
  s->ball_body = mj_name2id(m, mjOBJ_BODY, "ball");
  s->ball_geom = mj_name2id(m, mjOBJ_GEOM, "ball");
  if (ball_x < 0 || ball_z < 0 || s->target_site < 0 || s->ball_body < 0 || s->ball_geom < 0) {
    snprintf(err, n, "%s: the model '%s' needs joints 'ball_x', 'ball_z', site 'target', body and geom 'ball'",
             s->k.def->task, s->k.path);
    return MDVEC_ERR_MODEL;
  }
  s->ball_x_adr = m->jnt_qposadr[ball_x];
  s->ball_z_adr = m->jnt_qposadr[ball_z];
  dm_obs_part parts[] = {{"position", m->nq, 0}, {"velocity", m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

/*---------------------------------- Episode -------------------------------------------------------*/

static void ball_in_cup_init(dm_env *e) {
  const ball_in_cup_shared *s = e->sh;
  int penetrating = 1;
  while (penetrating) {
    e->d->qpos[s->ball_x_adr] = mdv_mt19937_uniform(&e->rng, -.2, .2); /* qpos['ball_x'] = uniform(-.2, .2) */
    e->d->qpos[s->ball_z_adr] = mdv_mt19937_uniform(&e->rng, .2, .5);  /* qpos['ball_z'] = uniform(.2, .5) */
    dm_after_reset(e);                                                 /* physics.after_reset() */
    penetrating = e->d->ncon > 0;                                      /* physics.data.ncon > 0 */
  }
}

static void ball_in_cup_obs(dm_env *e, double *obs) {
  int nq = e->m->nq, nv = e->m->nv;
  for (int i = 0; i < nq; i++) obs[i] = e->d->qpos[i];      /* position = physics.position() */
  for (int i = 0; i < nv; i++) obs[nq + i] = e->d->qvel[i]; /* velocity = physics.velocity() */
}

static double ball_in_cup_reward(dm_env *e) {
  const ball_in_cup_shared *s = e->sh;
  const double *target = e->d->site_xpos + 3 * s->target_site, *ball = e->d->xpos + 3 * s->ball_body;
  const double *target_size = e->m->site_size + 3 * s->target_site;
  double ball_size = e->m->geom_size[3 * s->ball_geom + 0]; /* geom_size['ball', 0] */
  /* ball_to_target = abs(target[['x', 'z']] - ball[['x', 'z']]); all(ball_to_target < target_size[[0, 2]] -
   * ball_size) */
  int in_x = fabs(target[0] - ball[0]) < target_size[0] - ball_size;
  int in_z = fabs(target[2] - ball[2]) < target_size[2] - ball_size;
  return in_x && in_z ? 1.0 : 0.0; /* float(all(...)) */
}

/*---------------------------------- The task ------------------------------------------------------*/

static const dm_def ball_in_cup_catch_def = {
  .task = "ball_in_cup-catch",
  .xml = "ball_in_cup.xml",
  .shared_size = sizeof(ball_in_cup_shared),
  .setup = ball_in_cup_setup,
  .initialize_episode = ball_in_cup_init,
  .get_reward = ball_in_cup_reward,
  .get_observation = ball_in_cup_obs,
};
DM_CREATE(ball_in_cup_catch_create, &ball_in_cup_catch_def)

const mdv_task mdv_task_dm_ball_in_cup_catch = {
  .name = "ball_in_cup-catch",
  .summary = "dm_control's ball_in_cup-catch (suite/ball_in_cup.py BallInCup), bit for bit",
  .options = ball_in_cup_options,
  .n_options = DM_N_OPTIONS,
  .create = ball_in_cup_catch_create,
  .gym_id = "mdvec/ball_in_cup-catch-v0",
  .reference = "mdvec.reference.dm_control:ball_in_cup_catch",
  DM_TASK_DEFAULTS,
};
