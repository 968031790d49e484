/* mjkit.h: the MuJoCo task kit, the base of a task that steps one MuJoCo model (internal, not part of
 * the ABI).
 *
 * The kit owns what every such task repeats: the model, loaded once from a file path (an option), a
 * file embedded in the library at build time, or MJCF text in the task's C file; each env's mjData;
 * frame_skip and dt; Gymnasium's TimeLimit (truncated once max_episode_steps steps were taken since
 * the reset); init_qpos/init_qvel; the action bounds (ctrlrange as float32); and the mdv_task
 * functions create, destroy, env_init, env_free and physics. A task describes itself once in an
 * mk_def and writes only its options, its spec pieces (obs_dim, info fields: in setup), reset and
 * step. tasks/cartpole_swingup.c is the worked example (docs/adding_a_task.md); the Gymnasium v5
 * tasks use it through gym_mujoco.h.
 *
 * Loading keeps model.c's guards: a path must name a regular file (as must every file it includes),
 * MuJoCo's errors are trapped (a bad model is an error code and a message, never the end of the
 * process) and nothing is written to MUJOCO_LOG.TXT. Every env's mjData runs on the one read-only
 * mjModel (MuJoCo never writes a model while stepping).
 */
#ifndef MDV_MJKIT_H
#define MDV_MJKIT_H

#include <stddef.h>
#include <stdint.h>

#include "task.h"

/*---------------------------------- What a task declares ------------------------------------------*/

enum {                      /* where the model comes from (mk_def.model_from) */
       MK_MODEL_STRING = 1, /* mk_def.model is MJCF text (it may include no files) */
       MK_MODEL_EMBEDDED,   /* mk_def.model names a file embedded at build time (libmdvec/models) */
       MK_MODEL_OPTION,     /* the path in the STRING option that mk_def.model_option names */
};

/* An option index in an mk_def field: MK_OPT(i) names option i of the task's table; 0 (a field left
 * out of the initializer) names none. */
#define MK_OPT(index) ((index) + 1)

typedef struct mk_def_ { /* one task, described to the kit once (fields left out are 0: none) */
  const char *task;      /* the task's name, for messages */
  int model_from;        /* MK_MODEL_* */
  const char *model;     /* STRING: the MJCF text; EMBEDDED: the file name; OPTION: NULL */
  int model_option;      /* OPTION: MK_OPT(index of the STRING option that holds the path) */
  /* Optional check of the option's path before it is loaded (the Gymnasium layer's xml_file rules);
   * return MDVEC_OK or MDVEC_ERR_CONFIG with a message. */
  int (*check_path)(const char *task, const char *path, char *err, size_t n);
  int frame_skip;        /* MuJoCo steps per env step (>= 1), when frame_skip_option is 0 */
  int frame_skip_option; /* MK_OPT(index of an INT option that gives it), or 0 */
  int max_episode_steps; /* TimeLimit's limit (0: none), when max_steps_option is 0 */
  int max_steps_option;  /* MK_OPT(index of an INT option that gives it), or 0 */
  int noise_option;      /* MK_OPT(index of a DOUBLE option: reset_noise_scale), or 0 (then 0) */
  size_t shared_size;    /* bytes of the task's shared struct, an mk_shared first (0: mk_shared) */
  /* Read the task's options into shared (the kit's part is filled: the model is loaded), check the
   * model, fill spec's obs_dim, n_info, info (and obs_dtype when not float64), set env_scratch when
   * each env needs scratch doubles. Return MDVEC_OK, or MDVEC_ERR_* with a message naming the task. */
  int (*setup)(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n);
  void (*free)(void *shared); /* free what setup allocated; NULL: nothing (called on errors too) */
} mk_def;

/*---------------------------------- Shared part and env -----------------------------------------*/

typedef struct mk_shared_ { /* one configured task; the first member of the task's shared struct */
  const mk_def *def;        /* the task's description */
  const char *task;         /* def->task, for messages */
  mjModel *m;               /* the model, loaded once, read-only, used by every env */
  char *path;               /* the file it came from; NULL for a built-in (string or embedded) model */
  int frame_skip;           /* MuJoCo steps per env step */
  double dt;                /* m->opt.timestep * frame_skip (MujocoEnv.dt) */
  int max_episode_steps;    /* TimeLimit's limit, 0: none */
  double reset_noise_scale; /* reset noise half-width (0 without a noise option) */
  double *init_qpos;        /* (nq) what a fresh mjData holds: qpos0 */
  double *init_qvel;        /* (nv) zeros */
  double *act_low;          /* (nu) actuator_ctrlrange[:, 0] as float32, widened */
  double *act_high;         /* (nu) actuator_ctrlrange[:, 1] as float32, widened */
  int env_scratch;          /* doubles of scratch each env gets in mk_env.scratch (setup sets it) */
  mdv_dot dot;              /* numpy's float64 dot: np.linalg.norm is mdv_np_norm(&dot, x, n) */
} mk_shared;

typedef struct mk_env_ { /* one env: the whole env of a kit task (spec.env_size) */
  const void *sh;        /* its task's shared struct (an mk_shared first): `const my_shared *s = e->sh` */
  const mk_shared *k;    /* the same, as the kit's part */
  mjData *d;             /* its data on k->m */
  int64_t elapsed;       /* TimeLimit._elapsed_steps since the last reset */
  double *scratch;       /* (k->env_scratch) the env's own scratch; NULL when none */
} mk_env;

/*---------------------------------- The mdv_task functions ----------------------------------------*/

/* mdv_task.create of the task def: allocate def->shared_size zeroed bytes, load the model, read
 * frame_skip, max_episode_steps and reset_noise_scale, call def->setup, fill the rest of the spec
 * (act_dim and bounds, max_episode_steps, nq, nv, nbody, model_path, env_size). */
int mk_create(const mk_def *def, void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err,
              size_t n);

/* Define `static int fn(...)`, the mdv_task.create of the task def (a pointer to its mk_def). */
#define MK_CREATE(fn, def)                                                                                       \
  static int fn(void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err, size_t n) { \
    return mk_create(def, shared, opts, dot, spec, err, n);                                                      \
  }

void mk_destroy(void *shared);                                              /* def->free, then the kit's */
int mk_env_init(void *env, const void *shared, char *err, size_t err_size); /* mjData and scratch */
void mk_env_free(void *env);                                                /* safe on a zeroed env */
void mk_physics(void *env, const mjModel **m, mjData **d);                  /* the model, the env's data */

/* The env's own state for snapshots (1.4): TimeLimit's elapsed steps (the model is shared and read-only, the
 * scratch rewritten before each use, the physics the generic layer's). */
void mk_save(const void *env, mdv_blob *b);
void mk_load(void *env, mdv_blob *b, int apply);

/* The default members of an mdv_task initializer. */
#define MK_TASK_DEFAULTS                                                                                           \
  .destroy = mk_destroy, .env_init = mk_env_init, .env_free = mk_env_free, .physics = mk_physics, .save = mk_save, \
  .load = mk_load

/*---------------------------------- Reset and step pieces -----------------------------------------*/

/* Start a reset: TimeLimit's elapsed = 0 and mj_resetData (MujocoEnv.reset, before reset_model). */
void mk_reset_begin(mk_env *e);

/* dst[i] = init[i] + rng.uniform(-reset_noise_scale, reset_noise_scale, size=n)[i] (n draws in order). */
void mk_add_uniform_noise(const mk_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng);

/* dst[i] = init[i] + reset_noise_scale * rng.standard_normal(n)[i]. */
void mk_add_normal_noise(const mk_env *e, double *dst, const double *init, int n, mdv_pcg64 *rng);

/* End a reset once qpos/qvel were written (MujocoEnv.set_state): mj_forward. */
void mk_set_state_done(mk_env *e);

/* The whole reset of a task whose reset_model adds uniform noise to both: mk_reset_begin; qpos = init_qpos +
 * uniform(-s, s, nq); qvel = init_qvel + uniform(-s, s, nv) (qpos draws first); mk_set_state_done. */
void mk_reset_uniform(mk_env *e, mdv_pcg64 *rng);

/* data.ctrl[:] = action; mj_step frame_skip times; mj_rnePostConstraint (MujocoEnv.do_simulation). */
void mk_do_simulation(mk_env *e, const double *action);

/* TimeLimit.step: elapsed += 1; return 1 when elapsed >= max_episode_steps (and it is not 0). */
int mk_time_limit(mk_env *e);

/* Write value v into info field k of out (info[k * stride]). */
static inline void mk_info(const mdv_out *out, int k, double v) {
  out->info[(size_t)k * out->stride] = v;
}

#endif /* MDV_MJKIT_H */
