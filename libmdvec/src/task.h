/* task.h: the interface between the generic layers and one task (internal, not part of the ABI).
 *
 * A task is one .c file in libmdvec/src/tasks/ that defines one `const mdv_task mdv_task_<name>` and
 * is listed in tasks/registry.c. The generic layers (api.c, options.c, pool.c, trap.c, model.c)
 * never name a task; a task never sees another env, the pool or the handle.
 *
 * Life of a handle, as the generic layer drives it:
 *   options: every declared option gets its default (decl->def), then v1_options (if any) writes
 *            the v1 config fields over them, then the caller's named options override; options.c
 *            parses text, checks types and the inclusive bounds, and hands create typed values.
 *   create:  parse nothing, check cross-option constraints, load the model once, fill the spec.
 *   per env: the generic layer allocates spec.env_size zeroed bytes per env and calls env_init.
 *   calls:   reset / step / reset_with_params on one env inside a trapped region (a MuJoCo error
 *            longjmps out of the task: a task keeps no state that a jump could leave half-written
 *            beyond what the next reset rewrites), each env always on the same thread.
 *   end:     env_free per env (also on a zeroed or half-initialised env), then destroy.
 * The generic layer owns per env: its PCG64 generator (env i seeded seed + i), reset_done, failed +
 * error text, the pending autoreset, and the result buffers; the task gets a generator and a
 * mdv_out to write into, and nothing else.
 */
#ifndef MDV_TASK_H
#define MDV_TASK_H

#include <stddef.h>
#include <stdint.h>

#include <mujoco/mujoco.h>

#include "mdvec.h"
#include "npmath.h"
#include "pcg64.h"
#include "snapshot.h"

/*---------------------------------- Options -------------------------------------------------------*/

/* Option types are the public MDVEC_OPT_* codes (mdvec.h): INT, DOUBLE, BOOL, STRING, RANGE (two
 * doubles "lo,hi"), IRANGE (two ints "lo,hi"), CHOICE (one word of a '|' list). */

typedef struct mdv_option_decl_ { /* one option a task accepts, declared once */
  const char *name;               /* e.g. "episode_len" */
  int type;                       /* MDVEC_OPT_* */
  const char *def;                /* default as text, in the syntax of mdvec_option_t values; NULL: unset */
  double lo, hi;                  /* inclusive bounds of numbers (and of both ends of a range) */
  const char *choices;            /* CHOICE: the words, '|'-separated ("v1|v2"); NULL otherwise */
  const char *help;               /* one line: what it does, its unit */
} mdv_option_decl;

typedef struct mdv_value_ { /* one option's parsed, typed, bound-checked value */
  int64_t i[2];             /* INT, BOOL (0/1): i[0]; IRANGE: i[0], i[1]; CHOICE: word index */
  double d[2];              /* DOUBLE: d[0]; RANGE: d[0], d[1] (lo <= hi) */
  const char *s;            /* STRING, CHOICE: the text (NULL: unset); valid until destroy */
  int given;                /* nonzero when the caller named this option (not a default) */
  int kind;                 /* MDVEC_VALUE_* as given for an index option (mdv_task.index_options); else TEXT */
} mdv_value;

/*---------------------------------- What a task declares ------------------------------------------*/

typedef struct mdv_field_ { /* one info field */
  const char *name;         /* e.g. "x_position" */
  int dtype;                /* MDVEC_DTYPE_F64 | _I64 | _BOOL | _ACTION (all stored as float64) */
  int when;                 /* MDVEC_INFO_STEP | MDVEC_INFO_RESET: in step info, reset info or both */
} mdv_field;

typedef struct mdv_constant_ { /* one named table of task constants, for bindings and tests */
  const char *name;            /* e.g. "obs_scale" */
  int count;                   /* number of values */
  const double *values;        /* (count) the values the task computes with */
  const char *help;            /* one line: what the values are, in which order */
} mdv_constant;

typedef struct mdv_spec_ { /* what a configured task declares; filled by create */
  int obs_dim;             /* observation length */
  int obs_dtype;           /* MDVEC_DTYPE_F32 or MDVEC_DTYPE_F64 */
  int act_dim;             /* action length */
  const double *act_low;   /* (act_dim) action lower bounds (what the Box says) */
  const double *act_high;  /* (act_dim) action upper bounds */
  int n_info;              /* info fields */
  const mdv_field *info;   /* (n_info) info fields, in buffer order */
  int max_episode_steps;   /* truncation limit (0: none) */
  int nq, nv, nbody;       /* physics sizes of one env's model */
  size_t env_size;         /* bytes of one env's state struct */
  const char *model_path;  /* the MJCF file the model came from; NULL for a built-in model */
  double dt;               /* seconds of simulated time per env step (timestep * steps per step) */
  const char *obs_layout;  /* the observation's named parts "name(rows),name(rows,cols),name()"; NULL: one vector */
} mdv_spec;

typedef struct mdv_out_ { /* where one env writes one step's or one reset's results */
  void *obs;              /* (obs_dim) of obs_dtype */
  double *reward;         /* step: the reward; reset: NULL */
  uint8_t *terminated;    /* step: 0 or 1; reset: NULL */
  uint8_t *truncated;     /* step: 0 or 1; reset: NULL */
  double *info;           /* field k at info[k * stride]: step info, or reset info on reset */
  size_t stride;          /* distance between info fields (N) */
} mdv_out;

/*---------------------------------- Frames ------------------------------------------------------*/

#define MDV_DRAW_GYM 1 /* Gymnasium's MujocoRenderer (mujoco_rendering.py): a free camera set up at the first frame */
#define MDV_DRAW_DM  2 /* dm_control's Physics.render (engine.py Camera): rangefinder rays hidden */

#define MDV_CAM_DISTANCE    1u  /* the default camera config sets distance */
#define MDV_CAM_AZIMUTH     2u  /* ... azimuth */
#define MDV_CAM_ELEVATION   4u  /* ... elevation */
#define MDV_CAM_LOOKAT      8u  /* ... lookat */
#define MDV_CAM_TRACKBODYID 16u /* ... trackbodyid (kept, though a free camera does not track) */

typedef struct mdv_camera_ { /* how the task's reference draws a frame, declared once per task */
  int draw;                  /* MDV_DRAW_*: whose renderer */
  int camera_id;             /* the camera when none is asked for: -1 the free camera, else a model camera */
  /* MDV_DRAW_GYM: the v5 task's DEFAULT_CAMERA_CONFIG, each key applied when its MDV_CAM_* bit is set */
  unsigned set;     /* MDV_CAM_* bits */
  double distance;  /* metres */
  double azimuth;   /* degrees */
  double elevation; /* degrees */
  double lookat[3]; /* metres */
  int trackbodyid;  /* body id */
} mdv_camera;

typedef struct mdv_field_kind_ { /* an info field whose value's Python type is not the task's float_kind */
  const char *name;              /* the field's name */
  int kind;                      /* MDVEC_KIND_* */
} mdv_field_kind;

/*---------------------------------- The task ------------------------------------------------------*/

typedef struct mdv_task_ {
  const char *name;               /* "duck", "Hopper-v5", ... */
  const char *summary;            /* one line */
  const mdv_option_decl *options; /* (n_options) declared options */
  int n_options;
  const mdv_constant *constants; /* (n_constants) constant tables; may be NULL */
  int n_constants;

  unsigned flags; /* MDVEC_TASK_* bits (mdvec_task_flags) */

  /* Build the shared part from checked option values (indexed like options) and the handle's numpy
   * dot (a task with MDVEC_TASK_NUMPY_DOT computes np.linalg.norm with it: mdv_np_norm; copy it, the
   * pointer is valid only during create): check cross-option constraints, load the model, fill spec
   * (pointers in it stay valid until destroy); return MDVEC_OK, or MDVEC_ERR_CONFIG / MDVEC_ERR_MODEL /
   * MDVEC_ERR_NOMEM with a message in err naming the option. On error *shared is freed or NULL. */
  int (*create)(void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err, size_t err_size);

  /* Free the shared part; NULL is a no-op. */
  void (*destroy)(void *shared);

  /* Initialise one env in env_size zeroed bytes (its own mjModel copy / mjData); return 0, or -1
   * with a message (out of memory). */
  int (*env_init)(void *env, const void *shared, char *err, size_t err_size);

  /* Free one env; safe on a zeroed or half-initialised env. */
  void (*env_free)(void *env);

  /* Start an episode drawing from rng; write out->obs and the MDVEC_INFO_RESET fields of out->info. */
  void (*reset)(void *env, mdv_pcg64 *rng, const mdv_out *out);

  /* Take one step with a finite action (act_dim float64; action_dtype MDVEC_DTYPE_F32 when the
   * caller's actions were float32, then the values are exact widenings); write obs, reward,
   * terminated, truncated and the MDVEC_INFO_STEP fields of info. */
  void (*step)(void *env, const double *action, int action_dtype, mdv_pcg64 *rng, const mdv_out *out);

  /* Return the env's model and data (state readout). */
  void (*physics)(void *env, const mjModel **m, mjData **d);

  /* Optional (NULL when the task has none). */

  /* Check v1 episode parameters against this env; return 0 or -1 with a message naming the field. */
  int (*check_params)(const void *env, const mdvec_params_t *p, char *err, size_t err_size);

  /* Start an episode with checked v1 parameters (rng only for draws the parameters do not fix). */
  void (*reset_with_params)(void *env, const mdvec_params_t *p, mdv_pcg64 *rng, const mdv_out *out);

  /* Fill the task fields of a v1 config with the task's defaults (the default task only). */
  void (*v1_defaults)(mdvec_config_t *cfg);

  /* Write the v1 config fields over the option defaults (before named options apply); return 0, or
   * -1 with a message naming the field. */
  int (*v1_options)(const mdvec_config_t *cfg, mdv_value *opts, char *err, size_t err_size);

  /* Fill the task-specific v1 dims fields (n_pushes, max_latency). */
  void (*v1_dims)(const void *shared, mdvec_dims_t *dims);

  /* Registration metadata (1.3), read by mdvec_task_meta; NULL: none. Numbers as text. */
  const char *gym_id;           /* the Gymnasium-style id bindings register ("mdvec/Hopper-v5") */
  const char *reference;        /* what the task equals: a Gymnasium id, or a Python entry point "module:attr" */
  const char *reward_threshold; /* the registration's reward_threshold ("3800.0") */
  const char *render_kwargs;    /* ','-separated keywords of the reference that only concern rendering */
  const char *index_options;    /* ','-separated STRING options that take an int index or a name: mdv_value.kind */

  /* Python types of the reference's single-env values (1.3): MDVEC_KIND_*, 0 for MDVEC_KIND_FLOAT. */
  int reward_kind;                  /* the reward */
  int float_kind;                   /* float info values (bool fields are bool, int fields int) */
  const mdv_field_kind *info_kinds; /* fields that differ, ended by {NULL, 0}; NULL: none */

  /* A task with its own generator (1.4; NULL: none): called with the env's seed each time the generic layer
   * seeds the env's PCG64 (create, mdvec_seed, a seeded reset), after env_init. */
  void (*seed)(void *env, uint64_t seed);
  uint64_t seed_max; /* the largest seed an env accepts (0: UINT64_MAX); larger ones are refused */

  /* State in and out (1.4; each NULL when the task has nothing of its own: docs/state.md). */

  /* The env's physics was written from outside (mdvec_set_state: mj_setState, then mj_forward): drop what the
   * task keeps derived from the physics it had (the duck's reuse of mj_step1). Its episode bookkeeping stays,
   * as in the reference's set_state. */
  void (*state_changed)(void *env);

  /* Write the env's own state, everything beyond its mjData and the generic layer's bookkeeping that decides
   * its future (episode counters, its own generators, the values it changes in its model copy), into b with
   * the mdv_put* calls (snapshot.h); b may only count. Written once per kit (mjkit.c, dmkit.c). */
  void (*save)(const void *env, mdv_blob *b);

  /* Read what save wrote for an env of the same task and options: apply 0 checks it (fail b with a message on
   * a value the env cannot hold; change nothing), apply 1 loads it (only after every env's check passed). */
  void (*load)(void *env, mdv_blob *b, int apply);

  /* How the reference draws the task's frames (pixel observations, render.c); NULL: mdvec's own tracking camera. */
  const struct mdv_camera_ *camera;
} mdv_task;

/* Check the spec a task's create filled (spec.c): return MDVEC_OK, or MDVEC_ERR_MODEL with a message in
 * msg naming the task and the field (a task bug, not a user error: an unset obs_dtype once made the
 * buffers too small). mdvec_create calls it before it sizes anything from the spec. */
int mdv_spec_check(const char *task, const mdv_spec *spec, char *msg, size_t n);

/*---------------------------------- The registry (tasks/registry.c) -------------------------------*/

/* Every task, ended by NULL, in any order (the default task is chosen by name in registry.c). */
extern const mdv_task *const mdv_tasks[];

/* Return the task of that name (NULL: the default task), or NULL when there is none. */
const mdv_task *mdv_task_find(const char *name);

/* Return the number of tasks. */
int mdv_task_count(void);

/* Return catalogue entry k (0: the default task, then the others in registry order), or NULL. */
const mdv_task *mdv_task_at(int k);

#endif /* MDV_TASK_H */
