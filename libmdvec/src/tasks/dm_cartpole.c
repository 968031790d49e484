/* dm_cartpole.c: the Control Suite's cartpole domain (dm_control/suite/cartpole.py, cartpole.xml, 1.0.50), bit for
 * bit: cartpole-balance, -balance_sparse, -swingup, -swingup_sparse (Balance(swing_up, sparse) tasks,
 * _DEFAULT_TIME_LIMIT 10 s, no control timestep: one 0.01 s RK4 physics step per env step).
 *
 *   model:  <suite_dir>/cartpole.xml as it is (get_model_and_assets(num_poles=1): _make_model returns the file
 *           unchanged for one pole); a cart on the slide joint 'slider', the poles on hinges, one motor.
 *   reset:  swing_up: qpos['slider'] = .01 * randn(); qpos['hinge_1'] = np.pi + .01 * randn();
 *           qpos[2:] = .1 * randn(nv - 2); else qpos['slider'] = uniform(-.1, .1); qpos[1:] = uniform(-.034,
 *           .034, nv - 1); then (both) qvel[:] = 0.01 * randn(nv).
 *   obs:    position = np.hstack((qpos['slider'][0], xmat[2:, ['zz', 'xz']].ravel())) (1 + 2 * poles,),
 *           velocity = qvel (nv,).
 *   reward: sparse: tolerance(cart_position, (-.25, .25)) * tolerance(xmat[2:, 'zz'], (.995, 1)).prod();
 *           dense: upright = (xmat[2:, 'zz'] + 1) / 2; centered = (1 + tolerance(cart_position, margin=2)) / 2;
 *           small_control = (4 + tolerance(ctrl, margin=1, value_at_margin=0, sigmoid='quadratic')[0]) / 5;
 *           small_velocity = (1 + tolerance(qvel[1:], margin=5).min()) / 2;
 *           upright.mean() * small_control * small_velocity * centered.
 *   no termination: only the time limit ends an episode (LAST, discount 1).
 */
#include <math.h>
#include <stdio.h>

#include "../npmath.h"
#include "dmkit.h"

#define CARTPOLE_MAX_POLES 16 /* the reward's scratch arrays (the benchmark tasks have one pole) */

typedef struct cartpole_shared_ {
  dm_shared k;  /* the kit's part, first */
  int swing_up; /* Balance(swing_up=...) */
  int sparse;   /* Balance(sparse=...) */
  int slider;   /* qpos address of joint 'slider': cart_position() is qpos[slider] */
  int hinge_1;  /* qpos address of joint 'hinge_1' */
  int n_poles;  /* nbody - 2: the bodies xmat[2:] names */
} cartpole_shared;

static const mdv_option_decl cartpole_options[DM_N_OPTIONS] = {DM_OPTIONS("10", "0")};

static int cartpole_setup(void *shared, int swing_up, int sparse, char *err, size_t n, mdv_spec *spec) {
  cartpole_shared *s = shared;
  const mjModel *m = s->k.m;
  s->swing_up = swing_up;
  s->sparse = sparse;
  int slider = mj_name2id(m, mjOBJ_JOINT, "slider"), hinge_1 = mj_name2id(m, mjOBJ_JOINT, "hinge_1");
  s->n_poles = (int)m->nbody - 2;
  if (slider < 0 || hinge_1 < 0 || s->n_poles < 1 || s->n_poles > CARTPOLE_MAX_POLES || m->nq != m->nv || m->nv < 2) {
    snprintf(err, n,
             "%s: the model needs joints 'slider' and 'hinge_1', 1 to %d poles (bodies after the cart) and one qpos "
             "per dof",
             s->k.def->task, CARTPOLE_MAX_POLES);
    return MDVEC_ERR_MODEL;
  }
  s->slider = m->jnt_qposadr[slider];
  s->hinge_1 = m->jnt_qposadr[hinge_1];
  const dm_obs_part parts[] = {{"position", 1 + 2 * s->n_poles, 0}, {"velocity", (int)m->nv, 0}};
  return dm_obs_layout(&s->k, parts, 2, spec, err, n);
}

static int cartpole_balance_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return cartpole_setup(shared, 0, 0, err, n, spec); /* Balance(swing_up=False, sparse=False) */
}

static int cartpole_balance_sparse_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return cartpole_setup(shared, 0, 1, err, n, spec); /* Balance(swing_up=False, sparse=True) */
}

static int cartpole_swingup_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return cartpole_setup(shared, 1, 0, err, n, spec); /* Balance(swing_up=True, sparse=False) */
}

static int cartpole_swingup_sparse_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)opts;
  return cartpole_setup(shared, 1, 1, err, n, spec); /* Balance(swing_up=True, sparse=True) */
}

static void cartpole_initialize_episode(dm_env *e) {
  const cartpole_shared *s = e->sh;
  double *qpos = e->d->qpos, *qvel = e->d->qvel;
  int nv = (int)e->m->nv;
  if (s->swing_up) {
    qpos[s->slider] = .01 * mdv_mt19937_randn(&e->rng);                      /* qpos['slider'] = .01*randn() */
    qpos[s->hinge_1] = 3.141592653589793 + .01 * mdv_mt19937_randn(&e->rng); /* np.pi + .01*randn() */
    for (int i = 2; i < nv; i++) qpos[i] = .1 * mdv_mt19937_randn(&e->rng);  /* qpos[2:] = .1*randn(nv - 2) */
  } else {
    qpos[s->slider] = mdv_mt19937_uniform(&e->rng, -.1, .1); /* qpos['slider'] = uniform(-.1, .1) */
    for (int i = 1; i < nv; i++) qpos[i] = mdv_mt19937_uniform(&e->rng, -.034, .034); /* qpos[1:] = uniform(...) */
  }
  for (int i = 0; i < nv; i++) qvel[i] = 0.01 * mdv_mt19937_randn(&e->rng); /* qvel[:] = 0.01 * randn(nv) */
}

static void cartpole_get_observation(dm_env *e, double *obs) {
  const cartpole_shared *s = e->sh;
  const double *xmat = e->d->xmat;
  int k = 0;
  obs[k++] = e->d->qpos[s->slider]; /* position: np.hstack((cart_position(), */
  for (int b = 2; b < 2 + s->n_poles; b++) {
    obs[k++] = xmat[9 * b + 8]; /* xmat[2:, ['zz', */
    obs[k++] = xmat[9 * b + 2]; /* 'xz']].ravel())) */
  }
  for (int i = 0; i < e->m->nv; i++) obs[k++] = e->d->qvel[i]; /* velocity: physics.velocity() */
}

static double cartpole_get_reward(dm_env *e) {
  const cartpole_shared *s = e->sh;
  const double *xmat = e->d->xmat;
  double cart_position = e->d->qpos[s->slider]; /* named.data.qpos['slider'][0]: a numpy scalar */
  int poles = s->n_poles;
  if (s->sparse) {
    /* cart_in_bounds = rewards.tolerance(cart_position, _CART_RANGE) */
    double cart_in_bounds = dm_tolerance(cart_position, -.25, .25, 0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
    /* angle_in_bounds = rewards.tolerance(pole_angle_cosine(), _ANGLE_COSINE_RANGE).prod() */
    double angle_in_bounds = dm_tolerance(xmat[9 * 2 + 8], .995, 1, 0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_ARRAY);
    for (int b = 3; b < 2 + poles; b++)
      angle_in_bounds *= dm_tolerance(xmat[9 * b + 8], .995, 1, 0, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_ARRAY);
    return cart_in_bounds * angle_in_bounds; /* cart_in_bounds * angle_in_bounds */
  }
  double upright[CARTPOLE_MAX_POLES];
  for (int i = 0; i < poles; i++) upright[i] = (xmat[9 * (2 + i) + 8] + 1) / 2; /* (pole_angle_cosine() + 1) / 2 */
  /* centered = rewards.tolerance(cart_position, margin=2); centered = (1 + centered) / 2 */
  double centered = dm_tolerance(cart_position, 0, 0, 2, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_SCALAR);
  centered = (1 + centered) / 2;
  /* small_control = rewards.tolerance(control(), margin=1, value_at_margin=0, sigmoid='quadratic')[0] */
  double small_control = dm_tolerance(e->d->ctrl[0], 0, 0, 1, DM_QUADRATIC, 0, DM_ARRAY);
  small_control = (4 + small_control) / 5; /* (4 + small_control) / 5 */
  /* small_velocity = rewards.tolerance(angular_vel(), margin=5).min(): angular_vel() = qvel[1:] */
  int nv = (int)e->m->nv;
  double small_velocity = dm_tolerance(e->d->qvel[1], 0, 0, 5, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_ARRAY);
  for (int i = 2; i < nv; i++) {
    double v = dm_tolerance(e->d->qvel[i], 0, 0, 5, DM_GAUSSIAN, DM_VALUE_AT_MARGIN, DM_ARRAY);
    if (isnan(v) || v < small_velocity) small_velocity = v; /* .min(): a NaN wins, as numpy's */
  }
  small_velocity = (1 + small_velocity) / 2; /* (1 + small_velocity) / 2 */
  /* upright.mean() * small_control * small_velocity * centered */
  return mdv_np_mean(upright, poles) * small_control * small_velocity * centered;
}

#define CARTPOLE_DEF(name, setup_fn)                  \
  {.task = name,                                      \
   .xml = "cartpole.xml",                             \
   .shared_size = sizeof(cartpole_shared),            \
   .setup = setup_fn,                                 \
   .initialize_episode = cartpole_initialize_episode, \
   .get_reward = cartpole_get_reward,                 \
   .get_observation = cartpole_get_observation}

static const dm_def cartpole_balance_def = CARTPOLE_DEF("cartpole-balance", cartpole_balance_setup);
static const dm_def cartpole_balance_sparse_def =
  CARTPOLE_DEF("cartpole-balance_sparse", cartpole_balance_sparse_setup);
static const dm_def cartpole_swingup_def = CARTPOLE_DEF("cartpole-swingup", cartpole_swingup_setup);
static const dm_def cartpole_swingup_sparse_def =
  CARTPOLE_DEF("cartpole-swingup_sparse", cartpole_swingup_sparse_setup);
DM_CREATE(cartpole_balance_create, &cartpole_balance_def)
DM_CREATE(cartpole_balance_sparse_create, &cartpole_balance_sparse_def)
DM_CREATE(cartpole_swingup_create, &cartpole_swingup_def)
DM_CREATE(cartpole_swingup_sparse_create, &cartpole_swingup_sparse_def)

const mdv_task mdv_task_dm_cartpole_balance = {
  .name = "cartpole-balance",
  .summary = "dm_control's cartpole-balance: keep a pole, started near upright, balanced on a cart (dense reward)",
  .options = cartpole_options,
  .n_options = DM_N_OPTIONS,
  .create = cartpole_balance_create,
  .gym_id = "mdvec/cartpole-balance-v0",
  .reference = "mdvec.reference.dm_control:cartpole_balance",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_cartpole_balance_sparse = {
  .name = "cartpole-balance_sparse",
  .summary = "dm_control's cartpole-balance_sparse: keep a pole upright on a centred cart (reward 1 inside bounds)",
  .options = cartpole_options,
  .n_options = DM_N_OPTIONS,
  .create = cartpole_balance_sparse_create,
  .gym_id = "mdvec/cartpole-balance_sparse-v0",
  .reference = "mdvec.reference.dm_control:cartpole_balance_sparse",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_cartpole_swingup = {
  .name = "cartpole-swingup",
  .summary = "dm_control's cartpole-swingup: swing a hanging pole up on a cart and balance it (dense reward)",
  .options = cartpole_options,
  .n_options = DM_N_OPTIONS,
  .create = cartpole_swingup_create,
  .gym_id = "mdvec/cartpole-swingup-v0",
  .reference = "mdvec.reference.dm_control:cartpole_swingup",
  DM_TASK_DEFAULTS,
};

const mdv_task mdv_task_dm_cartpole_swingup_sparse = {
  .name = "cartpole-swingup_sparse",
  .summary = "dm_control's cartpole-swingup_sparse: swing a hanging pole up on a cart (reward 1 inside bounds)",
  .options = cartpole_options,
  .n_options = DM_N_OPTIONS,
  .create = cartpole_swingup_sparse_create,
  .gym_id = "mdvec/cartpole-swingup_sparse-v0",
  .reference = "mdvec.reference.dm_control:cartpole_swingup_sparse",
  DM_TASK_DEFAULTS,
};
