/* gym_mujoco.h: what the Gymnasium MuJoCo v5 tasks share (internal, not part of the ABI).
 *
 * Each piece reproduces one part of gymnasium/envs/mujoco/mujoco_env.py (MujocoEnv), of the
 * TimeLimit wrapper that gymnasium.make adds, or of a numpy expression the v5 envs all use, bit for
 * bit. A v5 task (tasks/hopper.c is the first) embeds gm_shared and gm_env as the first members of
 * its own structs, declares GM_OPTIONS(...) first in its option table, and writes only its own
 * observation, reward, health and reset_model.
 *
 * The model: xml_file is loaded once (mj_loadXML, as MjModel.from_xml_path) and every env's mjData
 * runs on that one read-only mjModel (MuJoCo never writes a model while stepping). The C library
 * cannot know where the gymnasium package lives: a bare name such as "hopper.xml" (which MujocoEnv
 * looks up in gymnasium/envs/mujoco/assets) is refused with a message; the Python binding resolves
 * xml_file like MujocoEnv (python/mdvec/gym_tasks.py) and passes a path.
 */
#ifndef MDV_GYM_MUJOCO_H
#define MDV_GYM_MUJOCO_H

#include <float.h>
#include <stdint.h>

#include "task.h"

/*---------------------------------- Options every v5 task has ------------------------------------*/

/* The first GM_N_OPTIONS entries of a v5 task's option table, in this order. xml: Gymnasium's default
 * file name (text); skip, steps, noise: the defaults of frame_skip, max_episode_steps (from the
 * task's gymnasium.register) and reset_noise_scale, as text. reset_noise_scale is bounded like
 * Generator.uniform(-s, s), which raises unless 0 <= 2 s < inf; max_episode_steps 0 is make's -1
 * (no TimeLimit). */
#define GM_OPTIONS(xml, skip, steps, noise)                                                          \
  {"xml_file", MDVEC_OPT_STRING, xml, 0.0, 0.0, NULL,                                               \
   "MJCF model path (a bare name is Gymnasium's assets/<name>: the Python binding resolves it)"},   \
  {"frame_skip", MDVEC_OPT_INT, skip, 1.0, 1e6, NULL,                                               \
   "MuJoCo steps per env step; dt = opt.timestep * frame_skip"},                                    \
  {"max_episode_steps", MDVEC_OPT_INT, steps, 0.0, 2147483647.0, NULL,                              \
   "TimeLimit: truncated once this many steps were taken since reset (0: never)"},                  \
  {"reset_noise_scale", MDVEC_OPT_DOUBLE, noise, 0.0, DBL_MAX / 2, NULL,                            \
   "half-width of the uniform noise added to init_qpos/init_qvel at reset"}

enum { GM_OPT_XML_FILE, GM_OPT_FRAME_SKIP, GM_OPT_MAX_EPISODE_STEPS, GM_OPT_RESET_NOISE_SCALE,
       GM_N_OPTIONS };

/*---------------------------------- Registration metadata (mdvec_task_meta) -----------------------*/

/* The keywords of Gymnasium's MujocoEnv that only concern rendering (no effect on the simulation): a v5
 * task's render_kwargs. */
#define GM_RENDER_KWARGS "render_mode,width,height,camera_id,camera_name,default_camera_config,max_geom,visual_options"

/* The first three GM_OPTIONS entries, for a v5 task without the reset_noise_scale option (Reacher,
 * Pusher: their reset noise is fixed): such a task passes gm_create a copy of its first three values
 * followed by a reset_noise_scale of 0 (gm_fixed_noise_options). */
#define GM_OPTIONS_FIXED_NOISE(xml, skip, steps)                                                    \
  {"xml_file", MDVEC_OPT_STRING, xml, 0.0, 0.0, NULL,                                               \
   "MJCF model path (a bare name is Gymnasium's assets/<name>: the Python binding resolves it)"},   \
  {"frame_skip", MDVEC_OPT_INT, skip, 1.0, 1e6, NULL,                                               \
   "MuJoCo steps per env step; dt = opt.timestep * frame_skip"},                                    \
  {"max_episode_steps", MDVEC_OPT_INT, steps, 0.0, 2147483647.0, NULL,                              \
   "TimeLimit: truncated once this many steps were taken since reset (0: never)"}

enum { GM_N_FIXED_NOISE_OPTIONS = GM_OPT_RESET_NOISE_SCALE };

/* Fill g[GM_N_OPTIONS] for gm_create from the GM_OPTIONS_FIXED_NOISE values opts[0..2] and a
 * reset_noise_scale of 0. */
static inline void gm_fixed_noise_options(mdv_value g[GM_N_OPTIONS], const mdv_value *opts) {
  for (int k = 0; k < GM_N_FIXED_NOISE_OPTIONS; k++) g[k] = opts[k];
  g[GM_OPT_RESET_NOISE_SCALE] = (mdv_value){{0, 0}, {0.0, 0.0}, NULL, 0};
}

/*---------------------------------- Shared part and env -----------------------------------------*/

typedef struct gm_shared_ {  /* one configured v5 task; the first member of the task's shared struct */
  const char *task;          /* the task's name, for messages */
  mjModel *m;                /* the model, loaded once, read-only, used by every env */
  char *path;                /* xml_file as loaded */
  int frame_skip;            /* MuJoCo steps per env step */
  double dt;                 /* MujocoEnv.dt: m->opt.timestep * frame_skip */
  int max_episode_steps;     /* TimeLimit's limit, 0: none */
  double reset_noise_scale;  /* reset noise half-width */
  double *init_qpos;         /* (nq) MujocoEnv.init_qpos: MjData(model).qpos, i.e. qpos0 */
  double *init_qvel;         /* (nv) MujocoEnv.init_qvel: zeros */
  double *act_low;           /* (nu) action_space.low: actuator_ctrlrange[:, 0] as float32, widened */
  double *act_high;          /* (nu) action_space.high */
  mdv_dot dot;               /* numpy's float64 dot: np.linalg.norm is mdv_np_norm(&dot, x, n) */
} gm_shared;

typedef struct gm_env_ {     /* one env; the first member of the task's env struct */
  const gm_shared *sh;       /* its task */
  mjData *d;                 /* its data on sh->m */
  int64_t elapsed;           /* TimeLimit._elapsed_steps since the last reset */
} gm_env;

/* Read the GM_OPTIONS values (opts[0..GM_N_OPTIONS-1]), load xml_file and fill sh; task names the
 * task in messages. Return MDVEC_OK, or MDVEC_ERR_CONFIG / MDVEC_ERR_MODEL / MDVEC_ERR_NOMEM with a
 * message (sh is then freed). */
int gm_create(gm_shared *sh, const char *task, const mdv_value *opts, char *err, size_t err_size);

/* Free what gm_create allocated; safe on a zeroed struct. */
void gm_destroy(gm_shared *sh);

/* calloc a task's shared struct of size bytes (a gm_shared first), gm_create its gm_shared and copy dot
 * (the create's numpy dot) into it; return it, or NULL with *rc and a message (nothing left allocated). */
void *gm_new_shared(size_t size, const mdv_dot *dot, const char *task, const mdv_value *opts, char *err,
                    size_t err_size, int *rc);

/* mdv_task.destroy of a task whose shared struct (a gm_shared first) holds nothing else to free:
 * gm_destroy and free; safe on NULL. */
void gm_task_destroy(void *shared);

/* Fill the spec fields the shared part knows: act_dim, act_low/high, max_episode_steps, nq, nv,
 * nbody, model_path; obs_dtype float64. The task fills obs_dim, info, env_size. */
void gm_fill_spec(const gm_shared *sh, mdv_spec *spec);

/* Make env e's mjData on sh's model; return 0, or -1 with a message. */
int gm_env_init(gm_env *e, const gm_shared *sh, char *err, size_t err_size);

/* Free e's mjData; safe on a zeroed env. */
void gm_env_free(gm_env *e);

/* mdv_task.env_free of a task whose env struct (a gm_env first) holds nothing else to free. */
void gm_task_env_free(void *env);

/* mdv_task.physics of every v5 task (env: a gm_env first): the shared model and the env's data. */
void gm_task_physics(void *env, const mjModel **m, mjData **d);

/*---------------------------------- Reset (MujocoEnv.reset, TimeLimit.reset) --------------------*/

/* Start a reset: TimeLimit's elapsed = 0 and mj_resetData (reset_model comes next). */
void gm_reset_begin(gm_env *e);

/* dst[i] = init[i] + rng.uniform(-reset_noise_scale, reset_noise_scale, size=n)[i]: the v5
 * reset_model noise `self.init_qpos + self.np_random.uniform(low=noise_low, high=noise_high,
 * size=n)` (n draws in order). */
void gm_add_uniform_noise(const gm_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng);

/* dst[i] = init[i] + reset_noise_scale * rng.standard_normal(n)[i] (HalfCheetah/Ant style qvel). */
void gm_add_normal_noise(const gm_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng);

/* MujocoEnv.set_state's last step once qpos/qvel were written into e->d: mj_forward (act is left as
 * mj_resetData left it: set_state writes None into an empty act only). */
void gm_set_state_done(gm_env *e);

/*---------------------------------- Step (MujocoEnv.do_simulation, TimeLimit.step) ---------------*/

/* data.ctrl[:] = action; mj_step frame_skip times (mj_step(m, d, nstep=frame_skip) loops over
 * mj_step); mj_rnePostConstraint. */
void gm_do_simulation(gm_env *e, const double *action);

/* TimeLimit.step: elapsed += 1; return 1 when elapsed >= max_episode_steps (and it is not 0). */
int gm_time_limit(gm_env *e);

/*---------------------------------- numpy in the action's dtype ---------------------------------*/

/* np.sum(np.square(a)) for a of n elements of dtype (MDVEC_DTYPE_F32: float32 squares summed pairwise
 * in float32, numpy's FLOAT_pairwise_sum, result widened; else float64, mdv_np_sum_square). */
double gm_sum_square(const double *a, int n, int dtype);

/* w * x for a Python float w and a numpy scalar x of dtype: under NEP 50 w is cast to float32 (inf
 * past FLT_MAX) and the product rounded to float32 when dtype is MDVEC_DTYPE_F32; else w * x. */
double gm_weak_mul(double w, double x, int dtype);

/* Copy the env's info field value v into info field k of out (info[k * stride]). */
static inline void gm_info(const mdv_out *out, int k, double v) { out->info[(size_t)k * out->stride] = v; }

/*---------------------------------- Humanoid-v5 and HumanoidStandup-v5 -------------------------*/

/* The observation options both humanoid tasks have, in this order, after their own. */
#define GM_HUMANOID_OBS_OPTIONS                                                                      \
  {"exclude_current_positions_from_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,            \
   "leave qpos[0:2] (x, y) out of the observation"},                                                \
  {"include_cinert_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,                         \
   "append cinert[1:] (10 per body) to the observation"},                                           \
  {"include_cvel_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,                           \
   "append cvel[1:] (6 per body) to the observation"},                                              \
  {"include_qfrc_actuator_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,                  \
   "append qfrc_actuator[6:] to the observation"},                                                  \
  {"include_cfrc_ext_in_observation", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,                       \
   "append cfrc_ext[1:] (6 per body) to the observation"}

typedef struct gm_humanoid_ {  /* what the humanoid tasks share: observation parts, info fields */
  int exclude, cinert, cvel, qfrc_actuator, cfrc_ext;  /* the GM_HUMANOID_OBS_OPTIONS values */
  int n_head, ntendon;   /* tendon fields start at n_head */
  mdv_field *info;       /* (n_info) the fields */
  char *names;           /* storage of the tendon field names */
} gm_humanoid;

/* Read the GM_HUMANOID_OBS_OPTIONS values (obs_opts[0..4]); build the info fields: head[n_head],
 * "tendon_length[k]", "tendon_velocity[k]" (k < ntendon: Gymnasium's (ntendon,) arrays, one field
 * each, in step and reset info), tail[n_tail]; fill spec's obs_dim, n_info, info. Return MDVEC_OK, or
 * MDVEC_ERR_NOMEM (free h with gm_humanoid_free). */
int gm_humanoid_init(gm_humanoid *h, const mjModel *m, const mdv_value *obs_opts, const mdv_field *head,
                     int n_head, const mdv_field *tail, int n_tail, mdv_spec *spec);

/* Free what gm_humanoid_init allocated; safe on a zeroed struct. */
void gm_humanoid_free(gm_humanoid *h);

/* _get_obs: concatenate(qpos[2:] or qpos, qvel, cinert[1:], cvel[1:], qfrc_actuator[6:], cfrc_ext[1:])
 * (each of the last four if included). */
void gm_humanoid_obs(const gm_humanoid *h, const mjModel *m, const mjData *d, double *obs);

/* The tendon info fields: ten_length, ten_velocity. */
void gm_humanoid_tendon_info(const gm_humanoid *h, const mjData *d, const mdv_out *out);


/*---------------------------------- Hopper-v5 and Walker2d-v5 -------------------------------------*/

/* A planar walker, qpos = (x, z, angle, joints...): the shared part of Hopper-v5 and Walker2d-v5.
 * The task reads its options into these fields and calls gm_walker_finish; reset and step are
 * gm_walker_reset and gm_walker_step (the expressions of hopper_v5.py and walker2d_v5.py, which
 * differ only in Hopper's state range; see hopper.c and walker2d.c). */
typedef struct gm_walker_ {
  gm_shared g;                    /* first member: the v5 part */
  double forward_reward_weight;   /* weight of x_velocity (reward_forward) */
  double ctrl_cost_weight;        /* weight of sum(action**2) (-reward_ctrl) */
  double healthy_reward;          /* reward of a healthy step (reward_survive) */
  int terminate_when_unhealthy;   /* terminated = not healthy and this */
  int check_state;                /* Hopper: healthy also needs state_lo < v < state_hi, v in
                                     concatenate(qpos, qvel)[2:] */
  double state_lo, state_hi;      /* the state range (when check_state) */
  double z_lo, z_hi;              /* healthy when z_lo < qpos[1] < z_hi */
  double angle_lo, angle_hi;      /* healthy when angle_lo < qpos[2] < angle_hi */
  int exclude;                    /* exclude_current_positions_from_observation: qpos[0] left out */
} gm_walker;

/* Check the model (nq >= 3), fill spec (obs_dim, info, env_size) and hand sh to *shared; on an error
 * destroy sh. Return MDVEC_OK or MDVEC_ERR_MODEL. */
int gm_walker_finish(gm_walker *sh, void **shared, mdv_spec *spec, char *err, size_t err_size);

/* The mdv_task functions of a walker. */
int gm_walker_env_init(void *env, const void *shared, char *err, size_t err_size);
void gm_walker_reset(void *env, mdv_pcg64 *rng, const mdv_out *out);
void gm_walker_step(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out);

#endif /* MDV_GYM_MUJOCO_H */
