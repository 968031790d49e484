/* cartpole_swingup.c: a cart-pole swing-up on the task kit, the worked example of
 * docs/adding_a_task.md. Its reference, bit for bit: python/mdvec/reference/cartpole_swingup.py.
 *
 * A cart slides on a rail (qpos[0] = x) and carries a pole on a hinge (qpos[1] = theta, 0 upright);
 * one motor pushes the cart. An episode starts with the pole hanging down and ends when the cart
 * leaves the rail or the state is not finite; the time limit truncates it.
 *   obs:    x, cos(theta), sin(theta), x_dot, theta_dot (float64; C's cos/sin are Python's math ones)
 *   reward: cos(theta) - ctrl_cost_weight * sum(action**2) (float64)
 *   reset:  qpos = init_qpos + uniform(-s, s, nq), then qpos[1] += pi; qvel = init_qvel +
 *           uniform(-s, s, nv) (qpos draws first); mj_forward.
 *   info:   x_position (step and reset), reward_upright, reward_ctrl (step).
 */
#include <math.h>
#include <stdio.h>

#include "mjkit.h"
#include "npmath.h"

/* region: model */
static const char cartpole_xml[] =
  "<mujoco model='cartpole_swingup'>"
  "  <option timestep='0.01'/>"
  "  <worldbody>"
  "    <body name='cart'>"
  "      <joint name='slider' type='slide' axis='1 0 0' damping='0.1'/>"
  "      <geom type='box' size='0.2 0.1 0.05' mass='1'/>"
  "      <body name='pole'>"
  "        <joint name='hinge' type='hinge' axis='0 1 0' damping='0.01'/>"
  "        <geom type='capsule' fromto='0 0 0 0 0 0.6' size='0.04' mass='0.1'/>"
  "      </body>"
  "    </body>"
  "  </worldbody>"
  "  <actuator><motor joint='slider' gear='10' ctrlrange='-1 1'/></actuator>"
  "</mujoco>";
/* endregion: model */

/* region: options */
enum { CP_MAX_EPISODE_STEPS, CP_RESET_NOISE_SCALE, CP_CTRL_COST_WEIGHT, CP_CART_LIMIT, CP_N_OPTIONS };

static const mdv_option_decl cartpole_options[CP_N_OPTIONS] = {
  [CP_MAX_EPISODE_STEPS] = {"max_episode_steps", MDVEC_OPT_INT, "500", 0, 2147483647.0, NULL,
                            "truncated once this many steps were taken since reset (0: never)"},
  [CP_RESET_NOISE_SCALE] = {"reset_noise_scale", MDVEC_OPT_DOUBLE, "0.05", 0, 1e6, NULL,
                            "half-width of the uniform noise on qpos and qvel at reset"},
  [CP_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.01", -1e6, 1e6, NULL,
                           "weight of sum(action**2) subtracted from the reward"},
  [CP_CART_LIMIT] = {"cart_limit", MDVEC_OPT_DOUBLE, "2.0", 0, 1e6, NULL, "terminated once |x| > cart_limit (m)"},
};
/* endregion: options */

/* region: spec */
enum { CP_X_POSITION, CP_REWARD_UPRIGHT, CP_REWARD_CTRL, CP_N_INFO };

static const mdv_field cartpole_info[CP_N_INFO] = {
  [CP_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [CP_REWARD_UPRIGHT] = {"reward_upright", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [CP_REWARD_CTRL] = {"reward_ctrl", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

typedef struct cartpole_shared_ {
  mk_shared k; /* the kit's part, first */
  double ctrl_cost_weight, cart_limit;
} cartpole_shared;

static int cartpole_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)err, (void)n; /* the built-in model needs no checks */
  cartpole_shared *sh = shared;
  sh->ctrl_cost_weight = opts[CP_CTRL_COST_WEIGHT].d[0];
  sh->cart_limit = opts[CP_CART_LIMIT].d[0];
  spec->obs_dim = 5;
  spec->n_info = CP_N_INFO;
  spec->info = cartpole_info;
  return MDVEC_OK;
}

static const mk_def cartpole_def = {
  .task = "cartpole_swingup",
  .model_from = MK_MODEL_STRING,
  .model = cartpole_xml,
  .frame_skip = 2,
  .max_steps_option = MK_OPT(CP_MAX_EPISODE_STEPS),
  .noise_option = MK_OPT(CP_RESET_NOISE_SCALE),
  .shared_size = sizeof(cartpole_shared),
  .setup = cartpole_setup,
};
MK_CREATE(cartpole_create, &cartpole_def)
/* endregion: spec */

/* region: reset and step */
static void cartpole_obs(const mjData *d, double *obs) {
  obs[0] = d->qpos[0];
  obs[1] = cos(d->qpos[1]);
  obs[2] = sin(d->qpos[1]);
  obs[3] = d->qvel[0];
  obs[4] = d->qvel[1];
}

static void cartpole_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  mk_reset_begin(e);
  mk_add_uniform_noise(e, e->d->qpos, e->k->init_qpos, e->k->m->nq, rng);
  e->d->qpos[1] += 3.141592653589793; /* math.pi: the pole hangs down */
  mk_add_uniform_noise(e, e->d->qvel, e->k->init_qvel, e->k->m->nv, rng);
  mk_set_state_done(e);
  cartpole_obs(e->d, out->obs);
  mk_info(out, CP_X_POSITION, e->d->qpos[0]);
}

static void cartpole_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)action_dtype, (void)rng; /* the reward is float64 whatever the actions' dtype */
  mk_env *e = env;
  const cartpole_shared *sh = e->sh;
  mk_do_simulation(e, action);
  cartpole_obs(e->d, out->obs);
  double upright = cos(e->d->qpos[1]);
  double ctrl_cost = sh->ctrl_cost_weight * mdv_np_sum_square(action, e->k->m->nu);
  int finite = 1;
  for (int i = 0; i < 5; i++) finite = finite && isfinite(((double *)out->obs)[i]);
  *out->reward = upright - ctrl_cost;
  *out->terminated = (uint8_t)(!finite || fabs(e->d->qpos[0]) > sh->cart_limit);
  *out->truncated = (uint8_t)mk_time_limit(e);
  mk_info(out, CP_X_POSITION, e->d->qpos[0]);
  mk_info(out, CP_REWARD_UPRIGHT, upright);
  mk_info(out, CP_REWARD_CTRL, -ctrl_cost);
}
/* endregion: reset and step */

/* region: task */
const mdv_task mdv_task_cartpole_swingup = {
  .name = "cartpole_swingup",
  .summary = "A MuJoCo cart-pole swing-up built on the task kit (the worked example of adding a task)",
  .options = cartpole_options,
  .n_options = CP_N_OPTIONS,
  .create = cartpole_create,
  .reset = cartpole_reset,
  .step = cartpole_step,
  .gym_id = "mdvec/cartpole_swingup",
  .reference = "mdvec.reference:CartPoleSwingup",
  MK_TASK_DEFAULTS,
};
/* endregion: task */
