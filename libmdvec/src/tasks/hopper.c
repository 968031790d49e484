/* hopper.c: Gymnasium's Hopper-v5, bit for bit (gymnasium/envs/mujoco/hopper_v5.py, HopperEnv).
 *
 * The model is Gymnasium's own hopper.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression of the task (gm_walker_reset and gm_walker_step, gym_mujoco.c) is the numpy / Python
 * one of hopper_v5.py, in its order and dtype:
 *   step:   x_before = qpos[0]; do_simulation; x_velocity = (qpos[0] - x_before) / dt;
 *           forward_reward = forward_reward_weight * x_velocity;
 *           healthy_reward = is_healthy * healthy_reward  (Python bool * float: 0.0 * w when not);
 *           reward = (forward_reward + healthy_reward) - ctrl_cost_weight * np.sum(np.square(action))
 *           (the cost in the action's dtype: float32 actions give a float32 cost and reward_ctrl);
 *           terminated = not is_healthy and terminate_when_unhealthy; truncated by TimeLimit.
 *   health: z, angle = qpos[1:3]; state = concatenate(qpos, qvel)[2:] (qvel unclipped); every bound
 *           is strict: lo < v < hi (a NaN is unhealthy).
 *   obs:    concatenate(qpos[1:] (or qpos with exclude_current_positions_from_observation=False),
 *           np.clip(qvel, -10, 10)), float64.
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, z_distance_from_origin (qpos[1] - init_qpos[1]), x_velocity,
 *           reward_forward, reward_ctrl (the action's dtype), reward_survive;
 *           reset (_get_reset_info): x_position, z_distance_from_origin.
 */
#include <math.h>

#include "gym_mujoco.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  HOP_FORWARD_REWARD_WEIGHT = GM_N_OPTIONS,
  HOP_CTRL_COST_WEIGHT,
  HOP_HEALTHY_REWARD,
  HOP_TERMINATE_WHEN_UNHEALTHY,
  HOP_HEALTHY_STATE_RANGE,
  HOP_HEALTHY_Z_RANGE,
  HOP_HEALTHY_ANGLE_RANGE,
  HOP_EXCLUDE_CURRENT_POSITIONS,
  HOP_N_OPTIONS
};

static const mdv_option_decl hopper_options[HOP_N_OPTIONS] = {
  GM_OPTIONS("hopper.xml", "4", "1000", "0.005"),
  [HOP_FORWARD_REWARD_WEIGHT] = {"forward_reward_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                                 "weight of x_velocity in the reward (reward_forward)"},
  [HOP_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.001", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(action**2) subtracted from the reward (-reward_ctrl)"},
  [HOP_HEALTHY_REWARD] = {"healthy_reward", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                          "reward of each step that ends healthy (reward_survive)"},
  [HOP_TERMINATE_WHEN_UNHEALTHY] = {"terminate_when_unhealthy", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,
                                    "terminate when the hopper is unhealthy"},
  [HOP_HEALTHY_STATE_RANGE] = {"healthy_state_range", MDVEC_OPT_RANGE, "-100.0,100.0", -HUGE_VAL, HUGE_VAL, NULL,
                               "healthy when lo < v < hi for every v of concatenate(qpos, qvel)[2:]"},
  [HOP_HEALTHY_Z_RANGE] = {"healthy_z_range", MDVEC_OPT_RANGE, "0.7,inf", -HUGE_VAL, HUGE_VAL, NULL,
                           "healthy when lo < qpos[1] (torso height) < hi"},
  [HOP_HEALTHY_ANGLE_RANGE] = {"healthy_angle_range", MDVEC_OPT_RANGE, "-0.2,0.2", -HUGE_VAL, HUGE_VAL, NULL,
                               "healthy when lo < qpos[2] (torso angle, rad) < hi"},
  [HOP_EXCLUDE_CURRENT_POSITIONS] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0,
                                     NULL, "leave qpos[0] (x) out of the observation"},
};

/*---------------------------------- Setup -------------------------------------------------------*/

/* Reset, step, observation and info are gm_walker's (gym_mujoco.c): the expressions above. */
static int hopper_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  gm_walker *sh = shared;
  sh->forward_reward_weight = opts[HOP_FORWARD_REWARD_WEIGHT].d[0];
  sh->ctrl_cost_weight = opts[HOP_CTRL_COST_WEIGHT].d[0];
  sh->healthy_reward = opts[HOP_HEALTHY_REWARD].d[0];
  sh->terminate_when_unhealthy = opts[HOP_TERMINATE_WHEN_UNHEALTHY].i[0] != 0;
  sh->check_state = 1;
  sh->state_lo = opts[HOP_HEALTHY_STATE_RANGE].d[0];
  sh->state_hi = opts[HOP_HEALTHY_STATE_RANGE].d[1];
  sh->z_lo = opts[HOP_HEALTHY_Z_RANGE].d[0];
  sh->z_hi = opts[HOP_HEALTHY_Z_RANGE].d[1];
  sh->angle_lo = opts[HOP_HEALTHY_ANGLE_RANGE].d[0];
  sh->angle_hi = opts[HOP_HEALTHY_ANGLE_RANGE].d[1];
  sh->exclude = opts[HOP_EXCLUDE_CURRENT_POSITIONS].i[0] != 0;
  return gm_walker_setup(sh, spec, err, n);
}

static const mk_def hopper_def = {
  .task = "Hopper-v5",
  GM_DEF,
  .shared_size = sizeof(gm_walker),
  .setup = hopper_setup,
};
MK_CREATE(hopper_create, &hopper_def)

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_hopper_v5 = {
  .name = "Hopper-v5",
  .summary = "Gymnasium's Hopper-v5 (hopper_v5.py), bit for bit, on its own hopper.xml",
  .options = hopper_options,
  .n_options = HOP_N_OPTIONS,
  .create = hopper_create,
  .reset = gm_walker_reset,
  .step = gm_walker_step,
  .gym_id = "mdvec/Hopper-v5",
  .reference = "Hopper-v5",
  .reward_threshold = "3800.0",
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* reward_survive is a Python float (hopper_v5.py: is_healthy * healthy_reward, a Python bool times a float) */
  .info_kinds = (const mdv_field_kind[]){{"reward_survive", MDVEC_KIND_FLOAT}, {NULL, 0}},
  /* hopper_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE | MDV_CAM_LOOKAT | MDV_CAM_ELEVATION,
                                .trackbodyid = 2,
                                .distance = 3.0,
                                .lookat = {0.0, 0.0, 1.15},
                                .elevation = -20.0},
  MK_TASK_DEFAULTS,
};
