/* mdvec: many MuJoCo duck-balance environments stepped on pthread workers in one process.
 *
 * The task is the Microduck balance task (ENV_SPEC.md). For the same model, the same episode draws
 * and the same actions, every observation, reward, flag and info value equals the Python reference
 * environment (mdvec.reference) bit for bit, whatever the number of threads.
 *
 * Use:
 *   mdvec_config_t cfg;  mdvec_config_default(&cfg);  cfg.num_envs = 64;
 *   mdvec_t *env;        char err[256];
 *   if (mdvec_create(&env, &cfg, err, sizeof err) != MDVEC_OK) { puts(err); return 1; }
 *   mdvec_reset(env);                                  // fills mdvec_obs(env)
 *   for (...) { policy(mdvec_obs(env), actions); mdvec_step(env, actions); }
 *   mdvec_destroy(env);
 *
 * MuJoCo inside the envs: instabilities are MuJoCo warnings, which reset that env's mjData exactly as
 * they do in the reference. A MuJoCo *error* (mju_error, e.g. an mjData arena too small for the
 * contacts of a fall) is trapped per env on the thread that raised it: that env stops, the others
 * carry on, and the call returns MDVEC_ERR_PHYSICS naming it; stepping again needs a reset of the
 * handle (mdvec_reset) or of that env (mdvec_reset_with_params). The process-wide MuJoCo handler,
 * which other users of libmujoco in the process own, is never touched.
 *
 * Threads: the library's workers belong to one handle. Calls on one handle must not overlap (one
 * caller at a time); different handles are independent and may be used from different threads. A
 * process that forks keeps no workers in the child: create handles after fork, not before.
 *
 * Stability: this header is the stable ABI of major version MDVEC_VERSION_MAJOR. Structs passed in
 * carry their size in their first field; new fields are only ever appended. Functions never change
 * behaviour; a changed behaviour gets a new name (_v2).
 */
#ifndef MDVEC_H
#define MDVEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MDVEC_BUILDING) && defined(__GNUC__)
#define MDVEC_API __attribute__((visibility("default")))
#else
#define MDVEC_API
#endif

/*---------------------------------- Version -------------------------------------------------------*/

#define MDVEC_VERSION_MAJOR 1
#define MDVEC_VERSION_MINOR 0
#define MDVEC_VERSION_PATCH 0
#define MDVEC_VERSION_NUMBER (MDVEC_VERSION_MAJOR * 10000 + MDVEC_VERSION_MINOR * 100 + MDVEC_VERSION_PATCH)

/* Return the version of the loaded library as MDVEC_VERSION_NUMBER (compare with the header's). */
MDVEC_API int mdvec_version(void);

/* Return the MuJoCo version the library runs on (mj_version(), e.g. 4000000 for 4.0.0). */
MDVEC_API int mdvec_mujoco_version(void);

/*---------------------------------- Result codes --------------------------------------------------*/

#define MDVEC_OK 0             /* success */
#define MDVEC_ERR_ARG -1       /* invalid argument: NULL, wrong struct_size, index out of range */
#define MDVEC_ERR_CONFIG -2    /* a configuration value is out of range (the message names it) */
#define MDVEC_ERR_MODEL -3     /* the model failed to load or does not meet the task's needs */
#define MDVEC_ERR_VERSION -4   /* MuJoCo's header and loaded library versions differ */
#define MDVEC_ERR_NOMEM -5     /* out of memory */
#define MDVEC_ERR_THREAD -6    /* a worker thread could not be started */
#define MDVEC_ERR_ACTION -7    /* an action is not finite; no env was stepped */
#define MDVEC_ERR_STATE -8     /* call out of order (step before reset) */
#define MDVEC_ERR_PARAMS -9    /* malformed episode parameters (the message names the field) */
#define MDVEC_ERR_PHYSICS -10  /* MuJoCo raised an error in an env; that env stopped (message names it) */

/* Return a static description of a result code ("unknown code" for others). */
MDVEC_API const char *mdvec_strerror(int code);

/*---------------------------------- Configuration -------------------------------------------------*/

#define MDVEC_THREAD_BUDGET 8  /* most threads allowed unless allow_overcommit is set */
#define MDVEC_REWARD_V1 1      /* reward version 1 (ENV_SPEC section 5) */
#define MDVEC_REWARD_V2 2      /* reward version 2, the default */

typedef struct mdvec_config_ {   /* how to build a vector of envs; fill with mdvec_config_default */
  size_t struct_size;            /* sizeof(mdvec_config_t) as compiled by the caller */
  int num_envs;                  /* number of environments N (>= 1) */
  int threads;                   /* threads T incl. the caller; 0: min(N, cores, budget) */
  int allow_overcommit;          /* nonzero: allow T > MDVEC_THREAD_BUDGET */
  int autoreset;                 /* nonzero: an env that finishes resets inside mdvec_step */
  uint64_t seed;                 /* env i draws from PCG64 seeded with seed + i */
  const char *variant;           /* built-in model: "default", "backlash", "backlash_lower" */
  const char *model_path;        /* MJCF file of an external model, or NULL for the built-in one */
  int substeps;                  /* mj_step calls per env step (10) */
  int episode_len;               /* steps per episode (250) */
  double action_scale;           /* rad of servo target per unit action (0.3) */
  int n_pushes;                  /* shoves per episode (3) */
  int push_window[2];            /* steps a shove may land on, [lo, hi) ((25, 225)) */
  double push_speed[2];          /* shove speed range in m/s, [min, max] ((0.3, 0.9), calibrated) */
  double init_noise;             /* half-width of the uniform reset noise on joints (0) */
  int latency;                   /* steps of action delay (0) */
  int sensor_noise;              /* nonzero: Gaussian observation noise */
  int reward;                    /* MDVEC_REWARD_V1 or MDVEC_REWARD_V2 */
  int dr;                        /* nonzero: domain randomisation per episode */
} mdvec_config_t;

/* Fill cfg with the task's defaults (one env, built-in default duck, seed 0, autoreset on). */
MDVEC_API void mdvec_config_default(mdvec_config_t *cfg);

/*---------------------------------- Lifecycle -----------------------------------------------------*/

typedef struct mdvec_ mdvec_t;  /* opaque handle: N envs, their models and data, the worker pool */

/* Create N envs and their workers; return MDVEC_OK and set *out, or an error code with a message in
 * err (when err is not NULL). Refuses to start when MuJoCo's header and library versions differ.
 * The envs are not reset: call mdvec_reset before the first step. */
MDVEC_API int mdvec_create(mdvec_t **out, const mdvec_config_t *cfg, char *err, size_t err_size);

/* Stop the workers and free everything; NULL is a no-op. Buffers from the handle become invalid. */
MDVEC_API void mdvec_destroy(mdvec_t *env);

/* Return the message of the last error on this handle ("" when none; static text for NULL). */
MDVEC_API const char *mdvec_errmsg(const mdvec_t *env);

/*---------------------------------- Dimensions ----------------------------------------------------*/

typedef struct mdvec_dims_ {  /* sizes of the buffers; filled by mdvec_dims */
  size_t struct_size;         /* sizeof(mdvec_dims_t) as compiled by the caller */
  int num_envs;               /* N */
  int threads;                /* T, the caller included */
  int nu;                     /* actuators per env (14 for the duck) */
  int obs_dim;                /* observation length, 6 + 3*nu */
  int n_info;                 /* info fields per step (13 for reward v2, 11 for v1) */
  int nbody;                  /* bodies in the model, world included */
  int n_pushes;               /* shoves per episode */
  int max_latency;            /* largest latency reset_with_params accepts: max(cfg latency, 2) */
} mdvec_dims_t;

/* Fill dims (its struct_size set by the caller) with the handle's sizes. */
MDVEC_API int mdvec_dims(const mdvec_t *env, mdvec_dims_t *dims);

/* Return the name of info field k (0 <= k < n_info), e.g. "trunk_height"; NULL when out of range. */
MDVEC_API const char *mdvec_info_name(const mdvec_t *env, int k);

/*---------------------------------- Buffers -------------------------------------------------------*/
/* Owned by the handle, contiguous, valid until mdvec_destroy; overwritten by every reset and step. */

/* Return observations, (N x obs_dim) float32, row i for env i. */
MDVEC_API const float *mdvec_obs(const mdvec_t *env);

/* Return the observations each env produced on the last step before any autoreset (N x obs_dim). */
MDVEC_API const float *mdvec_terminal_obs(const mdvec_t *env);

/* Return the rewards of the last step, (N) float64. */
MDVEC_API const double *mdvec_reward(const mdvec_t *env);

/* Return the done flags of the last step, (N) bytes of 0 or 1. */
MDVEC_API const uint8_t *mdvec_done(const mdvec_t *env);

/* Return the info of the last step, (n_info x N) float64, field-major: field k of env i at [k*N + i]. */
MDVEC_API const double *mdvec_info(const mdvec_t *env);

/*---------------------------------- Episodes ------------------------------------------------------*/

typedef struct mdvec_params_ {  /* everything one reset draws (ENV_SPEC section 7) */
  size_t struct_size;           /* sizeof(mdvec_params_t) as compiled by the caller */
  double init_noise;            /* noise half-width used; qpos and qvel are applied only when > 0 */
  const double *qpos;           /* (nu) actuated joint positions after noise */
  const double *qvel;           /* (nu) actuated joint velocities after noise */
  int n_pushes;                 /* number of shoves; must equal the config's n_pushes */
  const int64_t *push_steps;    /* (n_pushes) steps the shoves land on, each in [0, episode_len) */
  const double *push_vel;       /* (n_pushes x 2) (vx, vy) of each shove in m/s */
  int latency;                  /* steps of action delay, 0..max_latency */
  double noise_scale;           /* sensor-noise scale k (1 without domain randomisation) */
  int has_dr;                   /* nonzero: the fields below are set (required when cfg dr is on) */
  double servo[5];              /* kp, damping, armature, frictionloss, forcerange */
  const double *mass_scale;     /* (nbody-1) factor on mass and inertia of bodies 1.. */
  double floor_friction;        /* sliding friction of the floor */
} mdvec_params_t;

/* Reseed env i's generator with seed + i (the next reset draws from it). */
MDVEC_API int mdvec_seed(mdvec_t *env, uint64_t seed);

/* Reset every env from its own generator; the first observations land in mdvec_obs. */
MDVEC_API int mdvec_reset(mdvec_t *env);

/* Reset env i with the given parameters instead of drawing them; validates every field first and
 * changes nothing on error. Sensor noise (if on) still draws from the env's generator. */
MDVEC_API int mdvec_reset_with_params(mdvec_t *env, int i, const mdvec_params_t *params);

/* Step every env with actions (N x nu, C order, float64, read during the call); return MDVEC_OK, or
 * MDVEC_ERR_ACTION without stepping any env when an action is not finite, MDVEC_ERR_STATE when an
 * env was never reset or stopped on an error, MDVEC_ERR_PHYSICS when MuJoCo raised an error in an
 * env during this step (the other envs stepped). Actions are clipped to [-1, 1]. With autoreset, a
 * finished env's next first observation replaces its row of mdvec_obs while mdvec_terminal_obs keeps
 * its final one. */
MDVEC_API int mdvec_step(mdvec_t *env, const double *actions);

#ifdef __cplusplus
}
#endif

#endif /* MDVEC_H */
