/* dmkit.h: the Control Suite kit, what dm_control's suite tasks share (internal, not part of the ABI).
 *
 * A Control Suite task (dm_control.suite, the 28 BENCHMARKING tasks) is one domain file in
 * libmdvec/src/tasks/dm_<domain>.c that declares a dm_def per task and writes only its own pieces:
 * initialize_episode, get_observation, get_reward and (where the task has one) get_termination, each
 * the numpy expression of dm_control/suite/<domain>.py in its order and dtype. The kit owns the rest,
 * as dm_control 1.0.50 runs it (rl/control.py Environment, mujoco/engine.py Physics, suite/base.py):
 *
 *   model:  <suite_dir>/<domain>.xml compiled with suite/common/{materials,skybox,visual}.xml in a VFS
 *           under the names dm_control's common.ASSETS gives them ("./common/materials.xml", ...), as
 *           Physics.from_xml_string(xml, common.ASSETS); an optional edit of the parsed mjSpec first
 *           (what a domain's get_model_and_assets changes). suite_dir is an option: the C library cannot
 *           know where the dm_control package lives, the Python binding resolves it.
 *           Each env owns a copy of the model: dm_control's Physics.reset toggles opt.disableflags and
 *           some tasks move geoms at reset (reacher's target), so no model is shared between envs. The
 *           copy shares only the large read-only arrays (texture pixels, meshes, height fields) with the
 *           task's model (humanoid: ~0.3 MB per env instead of 11.5 MB, most of it the skybox texture).
 *   seed:   each env has its own np.random.RandomState (mdv_mt19937), seeded with the env's seed by the
 *           generic layer (mdv_task.seed): env i of a vector env seeded s is RandomState(s + i), as
 *           Shimmy's DmControlCompatibilityV0.reset(seed=s + i). Seeds are bounded to [0, 2**32 - 1].
 *   reset:  step_count = 0; Physics.reset: mj_resetData, then mj_forward with actuation disabled;
 *           task.initialize_episode; Physics.after_reset: mj_forward with actuation disabled;
 *           observation = get_observation. Reset info: timestep.step_type 0 (FIRST).
 *   step:   data.ctrl[:] = action (np.copyto: no clipping); Physics.step(n_sub_steps): legacy_step
 *           (default): mj_step2, mj_step n_sub_steps - 1 times, mj_step1 (RK4: mj_step n_sub_steps
 *           times, then mj_step1); else mj_step n_sub_steps times; task.after_step; reward =
 *           get_reward; observation = get_observation; step_count += 1;
 *           step_count >= step_limit (a float: time_limit / (timestep * n_sub_steps)): LAST, discount
 *           1.0; else discount = get_termination (none: MID, discount 1.0).
 *           Shimmy's mapping: LAST with discount > 0 is truncated, LAST with discount 0 terminated.
 *           Step info: timestep.discount, timestep.step_type (1 MID, 2 LAST).
 *   options (DM_OPTIONS, first in each task's table): suite_dir, time_limit, control_timestep,
 *           n_sub_steps, legacy_step, with dm_control's rules (compute_n_steps, both given: an error);
 *           max_episode_steps: Gymnasium's TimeLimit over Shimmy's env (truncated once step_count reaches
 *           it, the dm_control step staying MID with discount 1.0 unless it is LAST itself).
 *   observation: one flat float64 vector in dm_control's flatten_observation order (the OrderedDict's
 *           order, each value raveled); the parts, with their shapes, declared once in setup
 *           (dm_obs_layout: spec.obs_layout "position(3),velocity(2)", what bindings read to build
 *           Shimmy's Dict space).
 *
 * numpy traps the domain files keep (each expression is checked by the equality contract):
 *   x ** 2 is x * x on an ndarray but libm pow(x, 2.0) on a numpy scalar (np.float64): pass
 *   DM_SCALAR or DM_ARRAY to dm_tolerance as the reference's x is; np.linalg.norm and np.dot of 1-d
 *   vectors are the handle's ddot (mdv_np_norm, mdv_np_dot); .mean() is mdv_np_mean; exp, log, log1p, arctan2,
 *   cos, sin, arccos, cosh, arccosh, sqrt are glibc's on numpy's baseline and AVX2 dispatch targets
 *   (tanh is not: numpy's AVX2 loop differs, and no benchmark task uses it).
 */
#ifndef MDV_DMKIT_H
#define MDV_DMKIT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mt19937.h"
#include "task.h"

/*---------------------------------- Options every suite task has ----------------------------------*/

enum {
  DM_OPT_SUITE_DIR,
  DM_OPT_TIME_LIMIT,
  DM_OPT_CONTROL_TIMESTEP,
  DM_OPT_N_SUB_STEPS,
  DM_OPT_LEGACY_STEP,
  DM_OPT_MAX_EPISODE_STEPS,
  DM_N_OPTIONS
};

/* The first DM_N_OPTIONS entries of a suite task's option table; limit: the task's default
 * time_limit in seconds, ctrl: the domain's _CONTROL_TIMESTEP ("0": none, one physics step per
 * control step), both as text. */
// clang-format off
#define DM_OPTIONS(limit, ctrl)                                                                            \
  [DM_OPT_SUITE_DIR] = {"suite_dir", MDVEC_OPT_STRING, NULL, 0.0, 0.0, NULL,                                \
   "the folder of dm_control's suite (dm_control/suite: the domain XML and common/); the Python binding "   \
   "fills it in"},                                                                                          \
  [DM_OPT_TIME_LIMIT] = {"time_limit", MDVEC_OPT_DOUBLE, limit, 0.0, HUGE_VAL, NULL,                        \
   "seconds of simulated time per episode (inf: none); LAST with discount 1 (truncated) at the limit"},    \
  [DM_OPT_CONTROL_TIMESTEP] = {"control_timestep", MDVEC_OPT_DOUBLE, ctrl, 0.0, 1e6, NULL,                  \
   "seconds per env step, a multiple of the model's timestep (0: one physics step per env step)"},         \
  [DM_OPT_N_SUB_STEPS] = {"n_sub_steps", MDVEC_OPT_INT, "0", 0.0, 1e6, NULL,                                \
   "physics steps per env step instead of control_timestep (0: unset; not both)"},                         \
  [DM_OPT_LEGACY_STEP] = {"legacy_step", MDVEC_OPT_BOOL, "true", 0.0, 1.0, NULL,                            \
   "dm_control's legacy step: mj_step2 .. mj_step1 (false: mj_step)"},                                     \
  [DM_OPT_MAX_EPISODE_STEPS] = {"max_episode_steps", MDVEC_OPT_INT, "0", 0.0, 2147483647.0, NULL,          \
   "Gymnasium's TimeLimit over the env: truncated once this many steps were taken since reset (0: none)"}
// clang-format on

/* The render keywords of Shimmy's DmControlCompatibilityV0 (mdv_task.render_kwargs). */
#define DM_RENDER_KWARGS "render_mode,render_kwargs"

/*---------------------------------- What a task declares ------------------------------------------*/

typedef struct dm_env_ dm_env;

typedef struct dm_def_ { /* one suite task, described to the kit once */
  const char *task;      /* "cheetah-run", for messages */
  const char *xml;       /* the domain's file in suite_dir: "cheetah.xml" */
  /* Optional: change the parsed model before it compiles, as the domain's get_model_and_assets changes
   * the XML (manipulator removes the props a task does not use, swimmer adds its links); opts are the
   * task's checked options. Return MDVEC_OK or MDVEC_ERR_* with a message naming the task. */
  int (*edit)(mjSpec *spec, const mdv_value *opts, char *err, size_t n);
  size_t shared_size; /* bytes of the task's shared struct, a dm_shared first (0: dm_shared) */
  size_t env_size;    /* bytes of the task's env struct, a dm_env first (0: dm_env) */
  /* Read the task's options and the model into shared (the kit's part is filled), check the model,
   * declare the observation (dm_obs_layout) and fill nothing else of spec. Return MDVEC_OK, or
   * MDVEC_ERR_* with a message naming the task. */
  int (*setup)(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n);
  void (*free)(void *shared); /* free what setup allocated; NULL: nothing (called on errors too) */
  /* task.initialize_episode(physics), inside Physics.reset_context (after Physics.reset, before
   * after_reset); draw from e->rng only. */
  void (*initialize_episode)(dm_env *e);
  /* Optional: task.before_step when it is not base.Task's (data.ctrl[:] = action). */
  void (*before_step)(dm_env *e, const double *action);
  /* Optional: task.after_step (cheetah-style bookkeeping); NULL: nothing. */
  void (*after_step)(dm_env *e);
  double (*get_reward)(dm_env *e);                 /* task.get_reward(physics) as a float64 */
  void (*get_observation)(dm_env *e, double *obs); /* the flat observation (flatten_observation order) */
  /* Optional: task.get_termination; return 1 and set *discount when it returns a discount (not None). */
  int (*get_termination)(dm_env *e, double *discount);
} dm_def;

/*---------------------------------- Shared part and env -----------------------------------------*/

typedef struct dm_shared_ { /* one configured task; the first member of the task's shared struct */
  const dm_def *def;        /* the task's description */
  mjModel *m;               /* the compiled model; each env works on its own copy */
  char *path;               /* <suite_dir>/<xml> */
  int n_sub_steps;          /* physics steps per env step */
  double step_limit;        /* time_limit / (timestep * n_sub_steps): a float, as dm_control's */
  int legacy_step;          /* Physics.legacy_step */
  int max_episode_steps;    /* Gymnasium's TimeLimit (gymnasium.make(..., max_episode_steps)); 0: none */
  double *act_low;          /* (nu) the action spec's minimum: ctrlrange[:, 0], -inf when not ctrllimited */
  double *act_high;         /* (nu) its maximum */
  char obs_layout[1024];    /* spec.obs_layout */
  mdv_dot dot;              /* numpy's float64 dot: np.linalg.norm is mdv_np_norm(&dot, x, n) */
} dm_shared;

struct dm_env_ {      /* one env; the first member of the task's env struct (dm_def.env_size) */
  const void *sh;     /* its task's shared struct (a dm_shared first): `const my_shared *s = e->sh` */
  const dm_shared *k; /* the same, as the kit's part */
  mjModel *m;         /* the env's own copy of the model */
  mjData *d;          /* its data */
  mdv_mt19937 rng;    /* task.random: RandomState(seed) */
  int64_t step_count; /* Environment._step_count */
};

/* One observation entry: its name and its shape, (rows,) or (rows, cols); rows 0: a scalar, shape (). */
typedef struct dm_obs_part_ {
  const char *name;
  int rows, cols;
} dm_obs_part;

/* Declare the observation: spec.obs_dim (the sum of the sizes) and spec.obs_layout (the parts in
 * order: "name(rows)", "name(rows,cols)", "name()" for a scalar, ','-separated). Return MDVEC_OK, or
 * MDVEC_ERR_MODEL when the layout does not fit. */
int dm_obs_layout(dm_shared *k, const dm_obs_part *parts, int n, mdv_spec *spec, char *err, size_t err_size);

/*---------------------------------- The mdv_task functions ----------------------------------------*/

/* mdv_task.create of the task def (the first DM_N_OPTIONS options are DM_OPTIONS). */
int dm_create(const dm_def *def, void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err,
              size_t n);

/* Define `static int fn(...)`, the mdv_task.create of the task def (a pointer to its dm_def). */
#define DM_CREATE(fn, def)                                                                                       \
  static int fn(void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err, size_t n) { \
    return dm_create(def, shared, opts, dot, spec, err, n);                                                      \
  }

void dm_destroy(void *shared);
int dm_env_init(void *env, const void *shared, char *err, size_t err_size);
void dm_env_free(void *env);
void dm_physics(void *env, const mjModel **m, mjData **d);
void dm_seed(void *env, uint64_t seed);
void dm_reset(void *env, mdv_pcg64 *unused, const mdv_out *out);
void dm_step(void *env, const double *action, int action_dtype, mdv_pcg64 *unused, const mdv_out *out);

/* The env's own state for snapshots (1.4): its RandomState, step_count, and how its model copy differs from the
 * task's model (what initialize_episode moved, the option flags). A task whose env struct (dm_def.env_size)
 * holds more would add it here; none does. */
void dm_save(const void *env, mdv_blob *b);
void dm_load(void *env, mdv_blob *b, int apply);

/* The info fields every suite task has, in this order (Shimmy's info keys). */
enum { DM_INFO_DISCOUNT, DM_INFO_STEP_TYPE, DM_N_INFO };

/* The members of an mdv_task initializer every suite task shares. The reward is a Python float, as the
 * reference gives it (mdvec.reference.dm_control: float(timestep.reward); Shimmy's `timestep.reward or 0`
 * would be a numpy float64, a Python float or the int 0 depending on the task and the value). */
#define DM_TASK_DEFAULTS                                                                                           \
  .destroy = dm_destroy, .env_init = dm_env_init, .env_free = dm_env_free, .physics = dm_physics, .seed = dm_seed, \
  .seed_max = UINT32_MAX, .reset = dm_reset, .step = dm_step, .render_kwargs = DM_RENDER_KWARGS,                   \
  .reward_kind = MDVEC_KIND_FLOAT, .float_kind = MDVEC_KIND_FLOAT, .save = dm_save, .load = dm_load,               \
  .camera = &(const mdv_camera){.draw = MDV_DRAW_DM, .camera_id = 0} /* dm_control's Physics.render, camera 0 */

/*---------------------------------- Pieces of the suite -------------------------------------------*/

/* Physics.after_reset (also what reset_context ends with): mj_forward with actuation disabled. */
void dm_after_reset(dm_env *e);

/* Physics.step(n), checked: legacy_step: mj_step2, mj_step n - 1 times, mj_step1 (RK4: mj_step n times, then
 * mj_step1); else mj_step n times. A MuJoCo warning raised meanwhile fails the env (dm_control's PhysicsError). */
void dm_physics_step(dm_env *e, int n);

/* randomizers.randomize_limited_and_rotational_joints(physics, e->rng), joint by joint in id order. */
void dm_randomize_joints(dm_env *e);

/* Whether the reference's x is a numpy scalar (x ** 2 is libm pow) or an array element (x * x). */
enum { DM_SCALAR, DM_ARRAY };

/* rewards._sigmoids / rewards.tolerance's sigmoid kinds (tanh_squared is left out: see above). */
enum { DM_GAUSSIAN, DM_HYPERBOLIC, DM_LONG_TAIL, DM_RECIPROCAL, DM_COSINE, DM_LINEAR, DM_QUADRATIC };

/* rewards.tolerance's default value_at_margin. */
#define DM_VALUE_AT_MARGIN 0.1

/* rewards.tolerance(x, bounds=(lo, hi), margin, sigmoid, value_at_margin) for one value (an element
 * of an array x, or a scalar x: kind DM_SCALAR or DM_ARRAY, which decides how ** 2 rounds). */
double dm_tolerance(double x, double lo, double hi, double margin, int sigmoid, double value_at_margin, int kind);

#endif /* MDV_DMKIT_H */
