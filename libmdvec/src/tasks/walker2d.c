/* walker2d.c: Gymnasium's Walker2d-v5, bit for bit (gymnasium/envs/mujoco/walker2d_v5.py, Walker2dEnv).
 *
 * The model is Gymnasium's own walker2d_v5.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression of the task (gm_walker_reset and gm_walker_step, gym_mujoco.c) is the numpy / Python
 * one of walker2d_v5.py, in its order and dtype:
 *   step:   x_before = qpos[0]; do_simulation; x_velocity = (qpos[0] - x_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           healthy_reward = is_healthy * healthy_reward  (np.bool_ * float: an np.float64, 0.0 * w
 *           when not healthy); reward = (forward_reward + healthy_reward)
 *           - ctrl_cost_weight * np.sum(np.square(action)) (the cost in the action's dtype);
 *           terminated = not is_healthy and terminate_when_unhealthy; truncated by TimeLimit.
 *   health: z, angle = qpos[1:3]; lo < z < hi and lo < angle < hi, strict (a NaN is unhealthy).
 *           Unlike Hopper there is no state range.
 *   obs:    concatenate(qpos[1:] (or qpos with exclude_current_positions_from_observation=False),
 *           np.clip(qvel, -10, 10)), float64.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, z_distance_from_origin (qpos[1] - init_qpos[1]), x_velocity,
 *           reward_forward, reward_ctrl (the action's dtype), reward_survive (np.float64);
 *           reset (_get_reset_info): x_position, z_distance_from_origin.
 */
#include <math.h>

#include "gym_mujoco.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  W2D_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  W2D_CTRL_COST_WEIGHT,
  W2D_HEALTHY_REWARD,
  W2D_TERMINATE_WHEN_UNHEALTHY,
  W2D_HEALTHY_Z_RANGE,
  W2D_HEALTHY_ANGLE_RANGE,
  W2D_EXCLUDE_CURRENT_POSITIONS,
  W2D_N_OPTIONS
};

static const mdv_option_decl walker2d_options[W2D_N_OPTIONS] = {
  GM_OPTIONS("walker2d_v5.xml", "4", "1000", "0.005"),
  [W2D_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of x_velocity in the reward (reward_forward)"},
  [W2D_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.001", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  [W2D_HEALTHY_REWARD] = {"healthy_reward", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                          "reward of each step that ends healthy (reward_survive)"},
  [W2D_TERMINATE_WHEN_UNHEALTHY] = {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                                    "terminate when the walker is unhealthy"},
  [W2D_HEALTHY_Z_RANGE] = {"healthy_z_range", MDVEC_OPT_RANGE, "0.8,2.0", -HUGE_VAL, HUGE_VAL, NULL,
                           "healthy when lo < qpos[1] (torso height) < hi"},
  [W2D_HEALTHY_ANGLE_RANGE] = {"healthy_angle_range", MDVEC_OPT_RANGE, "-1.0,1.0", -HUGE_VAL, HUGE_VAL, NULL,
                               "healthy when lo < qpos[2] (torso angle, rad) < hi"},
  [W2D_EXCLUDE_CURRENT_POSITIONS] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0,
                                     NULL, "leave qpos[0] (x) out of the observation"},
};

/*---------------------------------- Setup -------------------------------------------------------*/

/* Reset, step, observation and info are gm_walker's (gym_mujoco.c): the expressions above. */
static int walker2d_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  gm_walker *sh = shared;
  sh->forward_reward_weight = opts[W2D_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[W2D_CTRL_COST_WEIGHT].d[0];
  sh->healthy_reward = opts[W2D_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[W2D_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->z_lo = opts[W2D_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[W2D_HEALTHY_Z_RANGE].d[1];
  sh->angle_lo = opts[W2D_HEALTHY_ANGLE_RANGE].d[0];
  sh->angle_hi = opts[W2D_HEALTHY_ANGLE_RANGE].d[1];
  sh->exclude = opts[W2D_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;
  return gm_walker_setup(sh, spec, err, n);
}

static const mk_def walker2d_def = {
  .task = "Walker2d-v5",
  GM_DEF,
  .shared_size = sizeof(gm_walker),
  .setup = walker2d_setup,
};
MK_CREATE(walker2d_create, &walker2d_def)

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_walker2d_v5 = {
  .name = "Walker2d-v5",
  .summary = "Gymnasium's Walker2d-v5 (walker2d_v5.py), bit for bit, on its own walker2d_v5.xml",
  .options = walker2d_options,
  .n_options = W2D_N_OPTIONS,
  .create = walker2d_create,
  .reset = gm_walker_reset,
  .step = gm_walker_step,
  .gym_id = "mdvec/Walker2d-v5",
  .reference = "Walker2d-v5",
  .reward_threshold = NULL,
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* walker2d_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE | MDV_CAM_LOOKAT | MDV_CAM_ELEVATION,
                                .trackbodyid = 2,
                                .distance = 4.0,
                                .lookat = {0.0, 0.0, 1.15},
                                .elevation = -20.0},
  MK_TASK_DEFAULTS,
};
