/* gym_mujoco.h: what the Gymnasium MuJoCo v5 tasks share, on top of the task kit (internal, not part
 * of the ABI).
 *
 * The kit (mjkit.h) holds MujocoEnv's and TimeLimit's parts (model, mjData, frame_skip, dt, reset,
 * do_simulation, set_state, the time limit). This layer adds what is Gymnasium's own: the options every
 * v5 task has (GM_OPTIONS, first in its table), xml_file's rules (GM_DEF), numpy expressions in the
 * action's dtype, and the pieces two tasks share (gm_walker_*: Hopper, Walker2d; gm_humanoid_*:
 * Humanoid, HumanoidStandup). A v5 task writes its own options, observation, reward, health and
 * reset_model; each piece reproduces its Gymnasium expression bit for bit.
 *
 * The model: xml_file is loaded once (as MjModel.from_xml_path). The C library cannot know where the
 * gymnasium package lives: a bare name such as "hopper.xml" (which MujocoEnv looks up in
 * gymnasium/envs/mujoco/assets) is refused with a message; the Python binding resolves xml_file like
 * MujocoEnv (python/mdvec/gym_tasks.py) and passes a path.
 */
#ifndef MDV_GYM_MUJOCO_H
#define MDV_GYM_MUJOCO_H

#include <float.h>
#include <stdint.h>

#include "mjkit.h"

/*---------------------------------- Options every v5 task has ------------------------------------*/

enum { GM_OPT_XML_FILE, GM_OPT_FRAME_SKIP, GM_OPT_MAX_EPISODE_STEPS, GM_OPT_RESET_NOISE_SCALE, GM_N_OPTIONS };

/* The first GM_N_OPTIONS entries of a v5 task's option table. xml: Gymnasium's default file name
 * (text); skip, steps, noise: the defaults of frame_skip, max_episode_steps (from the task's
 * gymnasium.register) and reset_noise_scale, as text. reset_noise_scale is bounded like
 * Generator.uniform(-s, s), which raises unless 0 <= 2 s < inf; max_episode_steps 0 is make's -1
 * (no TimeLimit). */
// clang-format off
#define GM_OPTIONS(xml, skip, steps, noise)                                                          \
  GM_OPTIONS_FIXED_NOISE(xml, skip, steps),                                                         \
  [GM_OPT_RESET_NOISE_SCALE] = {"reset_noise_scale", MDVEC_OPT_DOUBLE, noise, 0.0, DBL_MAX / 2, NULL, \
   "half-width of the uniform noise added to init_qpos/init_qvel at reset"}
// clang-format on

/*---------------------------------- Registration metadata (mdvec_task_meta) -----------------------*/

/* The keywords of Gymnasium's MujocoEnv that only concern rendering (no effect on the simulation): a v5
 * task's render_kwargs. */
#define GM_RENDER_KWARGS "render_mode,width,height,camera_id,camera_name,default_camera_config,max_geom,visual_options"

/* The first three GM_OPTIONS entries, for a v5 task without the reset_noise_scale option (Reacher,
 * Pusher: their reset noise is fixed); such a task's own options start at GM_N_FIXED_NOISE_OPTIONS. */
// clang-format off: one option per entry, as the tables in the task files
#define GM_OPTIONS_FIXED_NOISE(xml, skip, steps)                                                    \
  [GM_OPT_XML_FILE] = {"xml_file", MDVEC_OPT_STRING, xml, 0.0, 0.0, NULL,                           \
   "MJCF model path (a bare name is Gymnasium's assets/<name>: the Python binding resolves it)"},   \
  [GM_OPT_FRAME_SKIP] = {"frame_skip", MDVEC_OPT_INT, skip, 1.0, 1e6, NULL,                         \
   "MuJoCo steps per env step; dt = opt.timestep * frame_skip"},                                    \
  [GM_OPT_MAX_EPISODE_STEPS] = {"max_episode_steps", MDVEC_OPT_INT, steps, 0.0, 2147483647.0, NULL, \
   "TimeLimit: truncated once this many steps were taken since reset (0: never)"}
// clang-format on

enum { GM_N_FIXED_NOISE_OPTIONS = GM_OPT_RESET_NOISE_SCALE };

/*---------------------------------- The model and the kit -----------------------------------------*/

/* MujocoEnv's xml_file rules: refuse an empty path, and a bare name (Gymnasium's assets/<name>) or
 * "~..." (expanded by MujocoEnv), which only the Python binding can resolve; return MDVEC_OK or
 * MDVEC_ERR_CONFIG with a message. */
int gm_check_xml_file(const char *task, const char *path, char *err, size_t n);

/* The mk_def members every v5 task shares: its model is the path in xml_file (Gymnasium's rules),
 * frame_skip, max_episode_steps and reset_noise_scale come from the GM_OPTIONS. */
#define GM_DEF GM_DEF_FIXED_NOISE, .noise_option = MK_OPT(GM_OPT_RESET_NOISE_SCALE)

/* GM_DEF for GM_OPTIONS_FIXED_NOISE tasks: reset_noise_scale 0. */
#define GM_DEF_FIXED_NOISE                                                                                 \
  .model_from = MK_MODEL_OPTION, .model_option = MK_OPT(GM_OPT_XML_FILE), .check_path = gm_check_xml_file, \
  .frame_skip_option = MK_OPT(GM_OPT_FRAME_SKIP), .max_steps_option = MK_OPT(GM_OPT_MAX_EPISODE_STEPS)

/*---------------------------------- numpy in the action's dtype ---------------------------------*/

/* np.sum(np.square(a)) for a of n elements of dtype (MDVEC_DTYPE_F32: float32 squares summed pairwise
 * in float32, numpy's FLOAT_pairwise_sum, result widened; else float64, mdv_np_sum_square). */
double gm_sum_square(const double *a, int n, int dtype);

/* w * x for a Python float w and a numpy scalar x of dtype: under NEP 50 w is cast to float32 (inf
 * past FLT_MAX) and the product rounded to float32 when dtype is MDVEC_DTYPE_F32; else w * x. */
double gm_weak_mul(double w, double x, int dtype);

/*---------------------------------- Humanoid-v5 and HumanoidStandup-v5 -------------------------*/

/* The observation options both humanoid tasks have, in this order, from the task's option index first
 * (its enum names the five: GM_HOBS_* offsets from first). */
enum { GM_HOBS_EXCLUDE, GM_HOBS_CINERT, GM_HOBS_CVEL, GM_HOBS_QFRC_ACTUATOR, GM_HOBS_CFRC_EXT, GM_N_HOBS };

// clang-format off: one option per entry, as the tables in the task files
#define GM_HUMANOID_OBS_OPTIONS(first)                                                               \
  [(first) + GM_HOBS_EXCLUDE] = {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", \
   0.0, 1.0, NULL, "leave qpos[0:2] (x, y) out of the observation"},                                \
  [(first) + GM_HOBS_CINERT] = {"include_cinert_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL, \
   "append cinert[1:] (10 per body) to the observation"},                                           \
  [(first) + GM_HOBS_CVEL] = {"include_cvel_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,  \
   "append cvel[1:] (6 per body) to the observation"},                                              \
  [(first) + GM_HOBS_QFRC_ACTUATOR] = {"include_qfrc_actuator_in_observation", MDVEC_OPT_BOOL, "true", \
   0.0, 1.0, NULL, "append qfrc_actuator[6:] to the observation"},                                  \
  [(first) + GM_HOBS_CFRC_EXT] = {"include_cfrc_ext_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, \
   NULL, "append cfrc_ext[1:] (6 per body) to the observation"}
// clang-format on

typedef struct gm_humanoid_ { /* what the humanoid tasks share: observation parts, info fields */
  int exclude, cinert, cvel, qfrc_actuator, cfrc_ext; /* the GM_HUMANOID_OBS_OPTIONS values */
  int n_head, ntendon;                                /* tendon fields start at n_head */
  mdv_field *info;                                    /* (n_info) the fields */
  char *names;                                        /* storage of the tendon field names */
} gm_humanoid;

/* Read the GM_HUMANOID_OBS_OPTIONS values (obs_opts[0..GM_N_HOBS-1]); build the info fields: head[n_head],
 * "tendon_length[k]", "tendon_velocity[k]" (k < ntendon: Gymnasium's (ntendon,) arrays, one field
 * each, in step and reset info), tail[n_tail]; fill spec's obs_dim, n_info, info. Return MDVEC_OK, or
 * MDVEC_ERR_NOMEM (free h with gm_humanoid_free). */
int gm_humanoid_init(gm_humanoid *h, const mjModel *m, const mdv_value *obs_opts, const mdv_field *head, int n_head,
                     const mdv_field *tail, int n_tail, mdv_spec *spec);

/* Free what gm_humanoid_init allocated; safe on a zeroed struct. */
void gm_humanoid_free(gm_humanoid *h);

/* _get_obs: concatenate(qpos[2:] or qpos, qvel, cinert[1:], cvel[1:], qfrc_actuator[6:], cfrc_ext[1:])
 * (each of the last four if included). */
void gm_humanoid_obs(const gm_humanoid *h, const mjModel *m, const mjData *d, double *obs);

/* The tendon info fields: ten_length, ten_velocity. */
void gm_humanoid_tendon_info(const gm_humanoid *h, const mjData *d, const mdv_out *out);

/*---------------------------------- Hopper-v5 and Walker2d-v5 -------------------------------------*/

/* A planar walker, qpos = (x, z, angle, joints...): the shared part of Hopper-v5 and Walker2d-v5.
 * The task's setup reads its options into these fields and calls gm_walker_setup; reset and step are
 * gm_walker_reset and gm_walker_step (the expressions of hopper_v5.py and walker2d_v5.py, which
 * differ only in Hopper's state range; see hopper.c and walker2d.c). */
typedef struct gm_walker_ {
  mk_shared g;                  /* first member: the kit's part */
  double forward_reward_weight; /* weight of x_velocity (reward_forward) */
  double ctrl_cost_weight;      /* weight of sum(action**2) (-reward_ctrl) */
  double healthy_reward;        /* reward of a healthy step (reward_survive) */
  int terminate_when_unhealthy; /* terminated = not healthy and this */
  int check_state;              /* Hopper: healthy also needs state_lo < v < state_hi, v in
                                   concatenate(qpos, qvel)[2:] */
  double state_lo, state_hi;    /* the state range (when check_state) */
  double z_lo, z_hi;            /* healthy when z_lo < qpos[1] < z_hi */
  double angle_lo, angle_hi;    /* healthy when angle_lo < qpos[2] < angle_hi */
  int exclude;                  /* exclude_current_positions_from_observation: qpos[0] left out */
} gm_walker;

/* The end of a walker's setup: check the model (nq >= 3), fill spec (obs_dim, info). Return MDVEC_OK
 * or MDVEC_ERR_MODEL with a message. */
int gm_walker_setup(gm_walker *sh, mdv_spec *spec, char *err, size_t err_size);

/* The mdv_task reset and step of a walker. */
void gm_walker_reset(void *env, mdv_pcg64 *rng, const mdv_out *out);
void gm_walker_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out);

#endif /* MDV_GYM_MUJOCO_H */
