/* humanoid_standup.c: Gymnasium's HumanoidStandup-v5, bit for bit (gymnasium/envs/mujoco/
 * humanoidstandup_v5.py, HumanoidStandupEnv).
 *
 * The model is Gymnasium's own humanoidstandup.xml (or any xml_file), loaded at run time (the task kit, mjkit.c).
 * Every expression below is the numpy / Python one of humanoidstandup_v5.py, in its order and dtype:
 *   step:   do_simulation (mj_rnePostConstraint fills cfrc_ext); pos_after = qpos[2];
 *           uph_cost = (pos_after - 0) / model.opt.timestep (the timestep, not dt; uph_cost_weight is
 *           accepted and, as in Gymnasium, not used);
 *           quad_ctrl_cost = ctrl_cost_weight * np.square(data.ctrl).sum() (data.ctrl: float64 whatever
 *           the action's dtype); quad_impact_cost = np.clip(impact_cost_weight *
 *           np.square(cfrc_ext).sum(), lo, hi) (pairwise over all nbody x 6 values; scalar clip);
 *           reward = uph_cost - quad_ctrl_cost - quad_impact_cost + 1; never terminated.
 *   obs:    concatenate(qpos[2:] (or qpos), qvel, cinert[1:], cvel[1:], qfrc_actuator[6:],
 *           cfrc_ext[1:]) (each of the last four unless its include_*_in_observation is False).
 *   reset:  mj_resetData; qpos = init_qpos + uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv)
 *           (qpos draws first); set_state (mj_forward).
 *   info:   step: x_position, y_position, z_distance_from_origin (qpos[2] - init_qpos[2]),
 *           tendon_length, tendon_velocity, reward_linup, reward_quadctrl, reward_impact (all
 *           np.float64); reset (_get_reset_info): x_position, y_position, z_distance_from_origin,
 *           tendon_length, tendon_velocity. The tendon arrays (ntendon,) are the fields
 *           "tendon_length[k]" and "tendon_velocity[k]", k = 0 .. ntendon - 1 (as in humanoid.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gym_mujoco.h"
#include "npmath.h"

/*---------------------------------- Options -------------------------------------------------------*/

enum {
  HSU_UPH_COST_WEIGHT = GM_N_OPTIONS,
  HSU_CTRL_COST_WEIGHT,
  HSU_IMPACT_COST_WEIGHT,
  HSU_IMPACT_COST_RANGE,
  HSU_EXCLUDE_CURRENT_POSITIONS,
  HSU_INCLUDE_CINERT,
  HSU_INCLUDE_CVEL,
  HSU_INCLUDE_QFRC_ACTUATOR,
  HSU_INCLUDE_CFRC_EXT,
  HSU_N_OPTIONS
};

static const mdv_option_decl standup_options[HSU_N_OPTIONS] = {
  GM_OPTIONS("humanoidstandup.xml", "5", "1000", "0.01"),
  [HSU_UPH_COST_WEIGHT] = {"uph_cost_weight", MDVEC_OPT_DOUBLE, "1.0", -HUGE_VAL, HUGE_VAL, NULL,
                           "accepted and unused, as in Gymnasium's HumanoidStandup-v5 (reward_linup is unweighted)"},
  [HSU_CTRL_COST_WEIGHT] = {"ctrl_cost_weight", MDVEC_OPT_DOUBLE, "0.1", -HUGE_VAL, HUGE_VAL, NULL,
                            "weight of sum(ctrl**2) subtracted from the reward (-reward_quadctrl)"},
  [HSU_IMPACT_COST_WEIGHT] = {"impact_cost_weight", MDVEC_OPT_DOUBLE, "5e-07", -HUGE_VAL, HUGE_VAL, NULL,
                              "weight of sum(cfrc_ext**2) in the impact cost (-reward_impact)"},
  [HSU_IMPACT_COST_RANGE] = {"impact_cost_range", MDVEC_OPT_RANGE, "-inf,10.0", -HUGE_VAL, HUGE_VAL, NULL,
                             "the impact cost is clipped to [lo, hi]"},
  GM_HUMANOID_OBS_OPTIONS(HSU_EXCLUDE_CURRENT_POSITIONS),
};

/*---------------------------------- Info fields ---------------------------------------------------*/

enum { HSU_X_POSITION, HSU_Y_POSITION, HSU_Z_DISTANCE, HSU_N_HEAD };
enum { HSU_REWARD_LINUP, HSU_REWARD_QUADCTRL, HSU_REWARD_IMPACT, HSU_N_TAIL };

static const mdv_field standup_head[HSU_N_HEAD] = {
  [HSU_X_POSITION] = {"x_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [HSU_Y_POSITION] = {"y_position", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
  [HSU_Z_DISTANCE] = {"z_distance_from_origin", MDVEC_DTYPE_F64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
};
static const mdv_field standup_tail[HSU_N_TAIL] = {
  [HSU_REWARD_LINUP] = {"reward_linup", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HSU_REWARD_QUADCTRL] = {"reward_quadctrl", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [HSU_REWARD_IMPACT] = {"reward_impact", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
};

/*---------------------------------- Shared part and setup -----------------------------------------*/

typedef struct standup_shared_ {
  mk_shared g;
  double ctrl_cost_weight, impact_cost_weight, impact_lo, impact_hi;
  gm_humanoid h; /* observation parts, info fields */
} standup_shared;

static void standup_free(void *shared) {
  standup_shared *sh = shared;
  gm_humanoid_free(&sh->h);
}

static int standup_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  standup_shared *sh = shared;
  const mjModel *m = sh->g.m;
  if (m->nq < 3) { /* the reward reads qpos[2]; the observation drops qpos[0:2] */
    snprintf(err, n,
             "HumanoidStandup-v5: the model '%s' has nq = %d; HumanoidStandup-v5 reads qpos[0:3] "
             "(x, y, z)",
             sh->g.path, (int)m->nq);
    return MDVEC_ERR_MODEL;
  }
  sh->ctrl_cost_weight = opts[HSU_CTRL_COST_WEIGHT].d[0];
  sh->impact_cost_weight = opts[HSU_IMPACT_COST_WEIGHT].d[0];
  sh->impact_lo = opts[HSU_IMPACT_COST_RANGE].d[0];
  sh->impact_hi = opts[HSU_IMPACT_COST_RANGE].d[1];

  /* The info fields: x_position, y_position, z_distance_from_origin, tendon_length[k],
     tendon_velocity[k], the rewards. */
  if (gm_humanoid_init(&sh->h, m, &opts[HSU_EXCLUDE_CURRENT_POSITIONS], standup_head, HSU_N_HEAD, standup_tail,
                       HSU_N_TAIL, spec) != MDVEC_OK) {
    snprintf(err, n, "HumanoidStandup-v5: out of memory");
    return MDVEC_ERR_NOMEM;
  }
  return MDVEC_OK;
}

static const mk_def standup_def = {
  .task = "HumanoidStandup-v5",
  GM_DEF,
  .shared_size = sizeof(standup_shared),
  .setup = standup_setup,
  .free = standup_free,
};
MK_CREATE(standup_create, &standup_def)

/*---------------------------------- Observation, info ---------------------------------------------*/

/* x_position, y_position, z_distance_from_origin, tendon_length, tendon_velocity (step and reset). */
static void standup_position_info(const mk_env *e, const mdv_out *out) {
  const standup_shared *sh = e->sh;
  const mjData *d = e->d;
  mk_info(out, HSU_X_POSITION, d->qpos[0]);
  mk_info(out, HSU_Y_POSITION, d->qpos[1]);
  mk_info(out, HSU_Z_DISTANCE, d->qpos[2] - e->k->init_qpos[2]);
  gm_humanoid_tendon_info(&sh->h, d, out);
}

/*---------------------------------- Reset and step ------------------------------------------------*/

static void standup_reset(void *env, mdv_pcg64 *rng, const mdv_out *out) {
  mk_env *e = env;
  const standup_shared *sh = e->sh;
  mk_reset_uniform(e, rng);
  gm_humanoid_obs(&sh->h, e->k->m, e->d, out->obs);
  standup_position_info(e, out); /* _get_reset_info */
}

static void standup_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out) {
  (void)rng;
  (void)action_dtype; /* the costs read data.ctrl (float64) */
  mk_env *e = env;
  const standup_shared *sh = e->sh;
  const mjModel *m = sh->g.m;
  mjData *d = e->d;

  mk_do_simulation(e, action);
  double pos_after = d->qpos[2];

  /* _get_rew */
  double uph_cost = (pos_after - 0.0) / m->opt.timestep;
  double quad_ctrl_cost = sh->ctrl_cost_weight * gm_sum_square(d->ctrl, (int)m->nu, MDVEC_DTYPE_F64);
  double quad_impact_cost = sh->impact_cost_weight * mdv_np_sum_square(d->cfrc_ext, 6 * (int)m->nbody);
  quad_impact_cost = mdv_np_clip(quad_impact_cost, sh->impact_lo, sh->impact_hi);
  *out->reward = uph_cost - quad_ctrl_cost - quad_impact_cost + 1.0;

  gm_humanoid_obs(&sh->h, e->k->m, e->d, out->obs);
  *out->terminated = 0;
  *out->truncated = (uint8_t)mk_time_limit(e);

  int t = HSU_N_HEAD + 2 * sh->h.ntendon;
  standup_position_info(e, out);
  mk_info(out, t + HSU_REWARD_LINUP, uph_cost);
  mk_info(out, t + HSU_REWARD_QUADCTRL, -quad_ctrl_cost);
  mk_info(out, t + HSU_REWARD_IMPACT, -quad_impact_cost);
}

/*---------------------------------- The task ------------------------------------------------------*/

const mdv_task mdv_task_humanoid_standup_v5 = {
  .name = "HumanoidStandup-v5",
  .summary =
    "Gymnasium's HumanoidStandup-v5 (humanoidstandup_v5.py), bit for bit, on its own "
    "humanoidstandup.xml",
  .options = standup_options,
  .n_options = HSU_N_OPTIONS,
  .create = standup_create,
  .reset = standup_reset,
  .step = standup_step,
  .gym_id = "mdvec/HumanoidStandup-v5",
  .reference = "HumanoidStandup-v5",
  .reward_threshold = NULL,
  .render_kwargs = GM_RENDER_KWARGS,
  .reward_kind = MDVEC_KIND_NUMPY,
  .float_kind = MDVEC_KIND_NUMPY,
  /* humanoidstandup_v5.py DEFAULT_CAMERA_CONFIG */
  .camera = &(const mdv_camera){.draw = MDV_DRAW_GYM,
                                .camera_id = -1,
                                .set = MDV_CAM_TRACKBODYID | MDV_CAM_DISTANCE | MDV_CAM_LOOKAT | MDV_CAM_ELEVATION,
                                .trackbodyid = 1,
                                .distance = 4.0,
                                .lookat = {0.0, 0.0, 0.8925},
                                .elevation = -20.0},
  MK_TASK_DEFAULTS,
};
