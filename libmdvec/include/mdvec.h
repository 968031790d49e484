/* mdvec: many MuJoCo environments of one task stepped on pthread workers in one process.
 *
 * Tasks are listed by mdvec_task_count/mdvec_task_name and picked with cfg.task; each declares its
 * options (mdvec_task_option), spec (mdvec_spec) and info fields (mdvec_info_field). The default
 * task is the Microduck balance task (docs/duck_task.md). For the same model, the same episode draws
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
 * they do in the reference; they are counted per env (mdvec_warnings), never printed or logged to a
 * file. A MuJoCo *error* (mju_error, e.g. an mjData arena too small for the contacts of a fall) is
 * trapped per env on the thread that raised it: that env stops, the others carry on, and the call
 * returns MDVEC_ERR_PHYSICS naming it; stepping again needs a reset of the handle (mdvec_reset) or of
 * that env (mdvec_reset_envs with a mask, mdvec_reset_with_params). With
 * cfg.on_error = MDVEC_ON_ERROR_END_EPISODE the error ends that env's episode instead and the step
 * succeeds (see "MuJoCo errors in envs"). The process-wide MuJoCo handler, which other users of
 * libmujoco in the process own, is never touched.
 *
 * Threads: the library's workers belong to one handle. Calls on one handle must not overlap (one
 * caller at a time): a call made while another call on the same handle runs in another thread returns
 * MDVEC_ERR_STATE ("concurrent call") at once and changes nothing (an atomic flag per call, no lock).
 * Different handles are independent and may be created and used from different threads at once.
 * Processes: a handle belongs to the process that created it. A forked child has no workers: every call
 * on an inherited handle returns MDVEC_ERR_STATE ("created in another process") instead of hanging, and
 * mdvec_destroy there frees the child's copy without touching the parent's threads. Create handles in
 * the process that uses them: a fork made while another thread creates a handle waits for that create's
 * model load to finish (libmujoco's loader holds process-wide locks that a child would inherit locked),
 * so the child can create its own. Models loaded by other code of the process (e.g. the mujoco Python
 * package's MjModel.from_xml_path) are not covered: fork while none of those is loading.
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

#define MDVEC_VERSION_MAJOR  1
#define MDVEC_VERSION_MINOR  4
#define MDVEC_VERSION_PATCH  0
#define MDVEC_VERSION_NUMBER (MDVEC_VERSION_MAJOR * 10000 + MDVEC_VERSION_MINOR * 100 + MDVEC_VERSION_PATCH)

/* Return the version of the loaded library as MDVEC_VERSION_NUMBER (compare with the header's). */
MDVEC_API int mdvec_version(void);

/* Return the MuJoCo version the library runs on (mj_version(), e.g. 4000000 for 4.0.0). */
MDVEC_API int mdvec_mujoco_version(void);

/*---------------------------------- Result codes --------------------------------------------------*/

#define MDVEC_OK          0   /* success */
#define MDVEC_ERR_ARG     -1  /* invalid argument: NULL, wrong struct_size, index out of range */
#define MDVEC_ERR_CONFIG  -2  /* a configuration value is out of range (the message names it) */
#define MDVEC_ERR_MODEL   -3  /* the model failed to load or does not meet the task's needs */
#define MDVEC_ERR_VERSION -4  /* MuJoCo's header and loaded library versions differ */
#define MDVEC_ERR_NOMEM   -5  /* out of memory (MuJoCo's allocations and worker stacks included) */
#define MDVEC_ERR_THREAD  -6  /* a worker thread could not be started (other than for memory) */
#define MDVEC_ERR_ACTION  -7  /* an action is not finite; no env was stepped */
#define MDVEC_ERR_STATE   -8  /* call out of order (step before reset), concurrent, or in a forked child */
#define MDVEC_ERR_PARAMS  -9  /* malformed episode parameters (the message names the field) */
#define MDVEC_ERR_PHYSICS -10 /* MuJoCo raised an error in an env; that env stopped (message names it) */

/* Return a static description of a result code ("unknown code" for others). */
MDVEC_API const char *mdvec_strerror(int code);

/*---------------------------------- Configuration -------------------------------------------------*/

#define MDVEC_THREAD_BUDGET 8 /* most threads allowed unless allow_overcommit is set */
#define MDVEC_REWARD_V1     1 /* LEGACY (the duck's reward field): reward version 1 (docs/duck_task.md 5.6) */
#define MDVEC_REWARD_V2     2 /* LEGACY (the duck's reward field): reward version 2, the default */

typedef struct mdvec_option_ { /* one task option by name; see mdvec_config_t.options */
  const char *name;            /* option name (mdvec_task_option) */
  const char *value;           /* value as text, in the syntax of its MDVEC_OPT_* type */
} mdvec_option_t;

/* How an option's value was given (1.3: mdvec_config_t.option_kinds), for the options a task lists in
 * mdvec_task_meta(task, "index_options"), which take an integer index or a name as the reference does
 * (Ant-v5's main_body: Gymnasium's data.body(int) is a body index, data.body(str) a body name). Other
 * options read their text by their MDVEC_OPT_* type whatever the kind. */
#define MDVEC_VALUE_TEXT 0 /* text (the 1.1 rule): a decimal integer ("3", "+1", "01") is an index, else a name */
#define MDVEC_VALUE_INT  1 /* an integer, in decimal: always an index ("3": index 3) */
#define MDVEC_VALUE_STR  2 /* a string: always a name ("3": the body named "3"; none: MDVEC_ERR_CONFIG) */

/* numpy's float64 dot (1.2). np.linalg.norm(x) is sqrt(0.0 + ddot(x, x)) where ddot is the BLAS numpy
 * was built with, and OpenBLAS picks its ddot kernel per CPU at run time (OPENBLAS_CORETYPE forces
 * one): the kernels round differently, so a task that reproduces np.linalg.norm (mdvec_task_flags:
 * MDVEC_TASK_NUMPY_DOT) equals numpy bit for bit only when cfg.dot names numpy's arithmetic on the
 * machine. The Python binding passes numpy's own ddot (MDVEC_DOT_CBLAS64 or _CBLAS), exact by
 * construction; a C caller without numpy keeps the default, MDVEC_DOT_PLAIN. */
/* MDVEC_DOT_PLAIN: sum of x[i]*y[i] left to right from 0.0, no FMA (OpenBLAS's Haswell, Zen, Sandybridge and
 * Nehalem kernels below 16 elements, numpy without BLAS). MDVEC_DOT_FMA: the same with fused multiply-adds
 * (OpenBLAS's SkylakeX, Cooperlake and SapphireRapids kernels below 16 elements: the pick on AVX-512 CPUs). */
#define MDVEC_DOT_PLAIN   0 /* left to right, no FMA */
#define MDVEC_DOT_FMA     1 /* left to right with fused multiply-adds */
#define MDVEC_DOT_CBLAS   2 /* call cfg.ddot (a cblas_ddot with int sizes) */
#define MDVEC_DOT_CBLAS64 3 /* call cfg.ddot64 (an ILP64 cblas_ddot: numpy 2's scipy_cblas_ddot64_) */

/* A cblas_ddot: the sum of x[i*incx] * y[i*incy] for i < n, in the BLAS's own order and rounding. It
 * is called from the library's worker threads, on vectors of fewer than 16 elements, and must be safe
 * to call from several threads at once (OpenBLAS's is). */
typedef double (*mdvec_ddot_fn)(int n, const double *x, int incx, const double *y, int incy);

/* An ILP64 cblas_ddot (64-bit sizes), as mdvec_ddot_fn. */
typedef double (*mdvec_ddot64_fn)(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy);

/* A cblas_dgemv (1.4): y = alpha * op(A) x + beta * y for the m x n matrix A, in the BLAS's own order and
 * rounding; order and trans take CBLAS's enum values (CblasRowMajor 101, CblasColMajor 102, CblasNoTrans
 * 111, CblasTrans 112). numpy computes np.dot(v, M) (v.dot(M), v @ M) of a 1-d v and a C-contiguous
 * rows x cols M, both float64 and rows, cols >= 2, as cblas_dgemv(101, 112, rows, cols, 1.0, M, cols, v,
 * 1, 0.0, y, 1) into a zeroed y, and np.dot(M, v) (M @ v) the same with trans 111 (numpy's
 * cblas_matrixproduct). Called from the library's worker threads on small matrices, as mdvec_ddot_fn. */
typedef void (*mdvec_dgemv_fn)(int order, int trans, int m, int n, double alpha, const double *a, int lda,
                               const double *x, int incx, double beta, double *y, int incy);

/* An ILP64 cblas_dgemv (64-bit sizes: numpy 2's scipy_cblas_dgemv64_), as mdvec_dgemv_fn. */
typedef void (*mdvec_dgemv64_fn)(int order, int trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                                 const double *x, int64_t incx, double beta, double *y, int64_t incy);

typedef struct mdvec_config_ { /* how to build a vector of envs; fill with mdvec_config_default */
  size_t struct_size;          /* sizeof(mdvec_config_t) as compiled by the caller */
  int num_envs;                /* number of environments N (>= 1) */
  int threads;                 /* threads T incl. the caller; 0: min(N, cores, budget); more than N: N */
  int allow_overcommit;        /* nonzero: allow T > MDVEC_THREAD_BUDGET */
  int autoreset;               /* MDVEC_AUTORESET_*; v1: nonzero resets inside mdvec_step (2: NEXT_STEP) */
  uint64_t seed;               /* env i draws from PCG64 seeded with seed + i */
  const char *variant;         /* LEGACY (the duck's): built-in model "default", "backlash", "backlash_lower" */
  const char *model_path;      /* LEGACY (the duck's): MJCF file of an external model, or NULL: built-in */
  /* LEGACY (1.0): the duck's fields, base values of its options (mdvec_task_option), which named options
     override; other tasks ignore them. New code sets task options by name (options below). */
  int substeps;         /* mj_step calls per env step (10) */
  int episode_len;      /* steps per episode (250) */
  double action_scale;  /* rad of servo target per unit action (0.3) */
  int n_pushes;         /* shoves per episode (3) */
  int push_window[2];   /* steps a shove may land on, [lo, hi) ((25, 225)) */
  double push_speed[2]; /* shove speed range in m/s, [min, max] ((0.3, 0.9), calibrated) */
  double init_noise;    /* half-width of the uniform reset noise on joints (0) */
  int latency;          /* steps of action delay (0) */
  int sensor_noise;     /* nonzero: Gaussian observation noise */
  int reward;           /* MDVEC_REWARD_V1 or MDVEC_REWARD_V2 */
  int dr;               /* nonzero: domain randomisation per episode */
  /* appended in 1.1 (a 1.0-sized struct is still accepted: these then take their defaults) */
  const char *task;              /* task name (mdvec_task_name), NULL: the default task, the duck */
  const mdvec_option_t *options; /* (n_options) task options by name, values as text */
  int n_options;                 /* number of options */
  int on_error;                  /* MDVEC_ON_ERROR_*: what a MuJoCo error in an env's step does (RAISE);
                                    it took the place of the struct's end padding: the size is unchanged */
  /* appended in 1.2 (1.0- and 1.1-sized structs are still accepted: these then take their defaults) */
  int dot;                /* MDVEC_DOT_*: the arithmetic of numpy's float64 dot (PLAIN) */
  mdvec_ddot_fn ddot;     /* with MDVEC_DOT_CBLAS: the cblas_ddot to call; NULL otherwise */
  mdvec_ddot64_fn ddot64; /* with MDVEC_DOT_CBLAS64: the ILP64 cblas_ddot to call; NULL otherwise */
  /* appended in 1.3 (1.0-, 1.1- and 1.2-sized structs are still accepted: this is then NULL) */
  const int *option_kinds; /* (n_options) MDVEC_VALUE_* of each options[k].value; NULL: all MDVEC_VALUE_TEXT */
  /* appended in 1.4 (1.0- to 1.3-sized structs are still accepted: these are then NULL). numpy's np.dot of a
     vector and a matrix; NULL, or dot PLAIN or FMA: the built-in arithmetic (PLAIN's with the CBLAS modes) */
  mdvec_dgemv_fn dgemv;     /* with MDVEC_DOT_CBLAS: the cblas_dgemv to call, or NULL */
  mdvec_dgemv64_fn dgemv64; /* with MDVEC_DOT_CBLAS64: the ILP64 cblas_dgemv to call, or NULL */
} mdvec_config_t;

/* Fill cfg with the defaults (one env, built-in default duck, seed 0, autoreset SAME_STEP). The
 * macro below routes every caller compiled with this header to mdvec_config_init with its own size;
 * the function itself (binaries built against 1.0) fills only the 1.0 layout. */
MDVEC_API void(mdvec_config_default)(mdvec_config_t *cfg);
#define mdvec_config_default(cfg) mdvec_config_init((cfg), sizeof *(cfg))

/* Fill the first size bytes of cfg with the defaults and set cfg->struct_size = size; size is the 1.0,
 * 1.1, 1.2 or 1.3 layout's or at least this one's (bytes beyond what this library knows are zeroed).
 * Return MDVEC_OK or MDVEC_ERR_ARG (NULL cfg, another size). mdvec_create accepts the same sizes. */
MDVEC_API int mdvec_config_init(mdvec_config_t *cfg, size_t size);

/*---------------------------------- Lifecycle -----------------------------------------------------*/

typedef struct mdvec_ mdvec_t; /* opaque handle: N envs, their models and data, the worker pool */

/* Create N envs and their workers; return MDVEC_OK and set *out, or an error code with a message in
 * err (when err is not NULL). Refuses to start when MuJoCo's header and library versions differ.
 * The envs are not reset: call mdvec_reset before the first step.
 * Memory: every option that sizes an env is bounded (see mdvec_task_option), so no option can make one
 * env cost more than a few MB. Once two envs exist, the memory of all N is estimated and the call
 * returns MDVEC_ERR_NOMEM, naming num_envs, without building the others when it exceeds the machine's
 * memory or the process's address-space limit (RLIMIT_AS, `ulimit -v`); an allocation that still fails
 * is MDVEC_ERR_NOMEM too. On every error nothing is left allocated (MuJoCo's own loader excepted: when
 * mj_loadXML itself runs out of memory it leaks the mjData it was making, which mdvec cannot reach). */
MDVEC_API int mdvec_create(mdvec_t **out, const mdvec_config_t *cfg, char *err, size_t err_size);

/* Stop the workers and free everything; NULL is a no-op. Buffers from the handle become invalid. A call
 * running on the handle in another thread is waited for (it finishes and returns normally); a call that
 * starts while the handle is being destroyed returns MDVEC_ERR_STATE, and any call after this function
 * returned uses freed memory (as free). */
MDVEC_API void mdvec_destroy(mdvec_t *env);

/* Return the message of the last error on this handle ("" when none; static text for NULL). The
 * message of a call refused as concurrent or forked is kept for the refused thread (until its next call
 * on any handle), so it never races the call that is running. */
MDVEC_API const char *mdvec_errmsg(const mdvec_t *env);

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

/* Reseed env i's generator with seed + i (the next reset draws from it). */
MDVEC_API int mdvec_seed(mdvec_t *env, uint64_t seed);

/* Reset every env from its own generator; the first observations land in mdvec_obs. */
MDVEC_API int mdvec_reset(mdvec_t *env);

/* Step every env with actions (N x nu, C order, float64, read during the call); return MDVEC_OK, or
 * MDVEC_ERR_ACTION without stepping any env when an action is not finite, MDVEC_ERR_STATE when an
 * env was never reset or stopped on an error, MDVEC_ERR_PHYSICS when MuJoCo raised an error in an
 * env during this step (the other envs stepped). Actions are clipped to [-1, 1]. With autoreset, a
 * finished env's next first observation replaces its row of mdvec_obs while mdvec_terminal_obs keeps
 * its final one. */
MDVEC_API int mdvec_step(mdvec_t *env, const double *actions);

/*================================== 1.1: tasks, options, typed buffers ============================*/

/*---------------------------------- Codes ---------------------------------------------------------*/

#define MDVEC_DTYPE_F32    1 /* float32 */
#define MDVEC_DTYPE_F64    2 /* float64 */
#define MDVEC_DTYPE_I64    3 /* an integer (stored in a float64 buffer, exact up to 2^53) */
#define MDVEC_DTYPE_BOOL   4 /* 0 or 1 (stored in a float64 buffer) */
#define MDVEC_DTYPE_ACTION 5 /* the actions' dtype: float32 values when the step's actions were */

#define MDVEC_INFO_STEP  1 /* info field bit: filled by steps (mdvec_info) */
#define MDVEC_INFO_RESET 2 /* info field bit: filled by resets (mdvec_reset_info) */

#define MDVEC_AUTORESET_DISABLED  0 /* a finished env steps on until reset (v1 autoreset = 0) */
#define MDVEC_AUTORESET_SAME_STEP 1 /* a finished env resets inside the step that finished it (v1) */
#define MDVEC_AUTORESET_NEXT_STEP 2 /* a finished env resets on the next step, its action ignored */

#define MDVEC_ON_ERROR_RAISE       0 /* the step returns MDVEC_ERR_PHYSICS; the env is stopped until reset */
#define MDVEC_ON_ERROR_END_EPISODE 1 /* the env's episode ends (truncated, error flag); the step returns OK */

#define MDVEC_OPT_INT    1 /* integer: "%lld" */
#define MDVEC_OPT_DOUBLE 2 /* number: Python repr / "%.17g", "inf", "-inf" */
#define MDVEC_OPT_BOOL   3 /* "true", "false", "1", "0" (also "True", "False") */
#define MDVEC_OPT_STRING 4 /* any text */
#define MDVEC_OPT_RANGE  5 /* two numbers "lo,hi", lo <= hi */
#define MDVEC_OPT_IRANGE 6 /* two integers "lo,hi", lo <= hi */
#define MDVEC_OPT_CHOICE 7 /* one word of the option's choices */

/*---------------------------------- Task catalogue (no handle needed) ----------------------------*/

typedef struct mdvec_option_info_ { /* one declared option of a task; filled by mdvec_task_option */
  size_t struct_size;               /* sizeof(mdvec_option_info_t) as compiled by the caller */
  const char *name;                 /* option name */
  int type;                         /* MDVEC_OPT_* */
  const char *def;                  /* default value as text; NULL: unset */
  double lo, hi;                    /* inclusive bounds of numbers and of both ends of ranges */
  const char *choices;              /* CHOICE: the words, '|'-separated; NULL otherwise */
  const char *help;                 /* one line */
} mdvec_option_info_t;

typedef struct mdvec_constant_ { /* one named table of a task's constants; filled by mdvec_task_constant */
  size_t struct_size;            /* sizeof(mdvec_constant_t) as compiled by the caller */
  const char *name;              /* e.g. "obs_scale" */
  int count;                     /* number of values */
  const double *values;          /* (count) static values */
  const char *help;              /* one line: what the values are, in which order */
} mdvec_constant_t;

/* Return the number of tasks in the library. */
MDVEC_API int mdvec_task_count(void);

/* Return the name of task k (0 <= k < mdvec_task_count(); task 0 is the default task, chosen by name), or NULL. */
MDVEC_API const char *mdvec_task_name(int k);

/* Return a one-line summary of the named task (NULL: the default task), or NULL when unknown. */
MDVEC_API const char *mdvec_task_summary(const char *task);

/* Return the number of options of the named task (NULL: the default task), or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_task_option_count(const char *task);

/* Fill info (its struct_size set) with option k of the named task; return MDVEC_OK or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_task_option(const char *task, int k, mdvec_option_info_t *info);

#define MDVEC_TASK_NUMPY_DOT 1 /* task flag (1.2): reproduces numpy's float64 dot or dgemv; see MDVEC_DOT_* */

/* Return the flags (MDVEC_TASK_* bits) of the named task (NULL: the default task), or MDVEC_ERR_ARG
 * when there is no such task (1.2). */
MDVEC_API int mdvec_task_flags(const char *task);

/* Return the number of constant tables of the named task, or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_task_constant_count(const char *task);

/* Fill c (its struct_size set) with constant table k of the named task; return MDVEC_OK or
 * MDVEC_ERR_ARG. */
MDVEC_API int mdvec_task_constant(const char *task, int k, mdvec_constant_t *c);

/*---------------------------------- Spec of a handle ---------------------------------------------*/

typedef struct mdvec_spec_ { /* what a handle runs; filled by mdvec_spec */
  size_t struct_size;        /* sizeof(mdvec_spec_t) as compiled by the caller */
  const char *task;          /* task name */
  int num_envs;              /* N */
  int threads;               /* T, the caller included */
  int obs_dim;               /* observation length */
  int obs_dtype;             /* MDVEC_DTYPE_F32 or MDVEC_DTYPE_F64 */
  int act_dim;               /* action length */
  int n_info;                /* info fields (mdvec_info_field) */
  int max_episode_steps;     /* truncation limit (0: none) */
  int nq, nv;                /* physics sizes of one env */
  int autoreset;             /* MDVEC_AUTORESET_* */
  const char *model_path;    /* the MJCF file the envs were loaded from; NULL: a built-in model */
  /* appended in 1.3 (a 1.1-sized struct is still accepted: these are then left as they were) */
  double dt;       /* seconds of simulated time per env step (MuJoCo timestep * steps per step) */
  int reward_kind; /* MDVEC_KIND_*: the Python type of the reference's single-env reward */
  /* appended in 1.4 (a 1.1- or 1.3-sized struct is still accepted: these are then left as they were) */
  const char *obs_layout; /* the observation's named parts in order, ','-separated: "name(rows)",
                             "name(rows,cols)", "name()" (a scalar); NULL: one plain vector */
  uint64_t seed_max;      /* the largest seed an env accepts (env i gets seed + i); UINT64_MAX: any */
} mdvec_spec_t;

typedef struct mdvec_field_ { /* one info field; filled by mdvec_info_field */
  size_t struct_size;         /* sizeof(mdvec_field_t) as compiled by the caller */
  const char *name;           /* e.g. "x_position" */
  int dtype;                  /* MDVEC_DTYPE_F64, _I64, _BOOL or _ACTION (all stored as float64) */
  int when;                   /* MDVEC_INFO_STEP | MDVEC_INFO_RESET bits */
  /* appended in 1.3 (a 1.1-sized struct is still accepted: this is then left as it was) */
  int kind; /* MDVEC_KIND_*: the Python type of the reference's single-env value */
} mdvec_field_t;

/* Fill spec (its struct_size set: this header's size, or the 1.1 one, which gets the 1.1 fields) with the
 * handle's task, sizes and modes; return MDVEC_OK or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_spec(const mdvec_t *env, mdvec_spec_t *spec);

/* Return the action lower bounds, (act_dim) float64, or NULL for a NULL handle. */
MDVEC_API const double *mdvec_action_low(const mdvec_t *env);

/* Return the action upper bounds, (act_dim) float64, or NULL for a NULL handle. */
MDVEC_API const double *mdvec_action_high(const mdvec_t *env);

/* Fill field (its struct_size set: this header's size, or the 1.1 one, which gets the 1.1 fields) with info
 * field k (0 <= k < n_info); return MDVEC_OK or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_info_field(const mdvec_t *env, int k, mdvec_field_t *field);

/*---------------------------------- Buffers (1.1) -------------------------------------------------*/
/* Owned by the handle, valid until mdvec_destroy; overwritten by every reset and step. */

/* Return observations, (N x obs_dim) of obs_dtype (mdvec_obs is the same buffer for float32 tasks). */
MDVEC_API const void *mdvec_obs_data(const mdvec_t *env);

/* Return each env's observation of the last step before any autoreset, (N x obs_dim) of obs_dtype
 * (the same buffer as mdvec_terminal_obs). */
MDVEC_API const void *mdvec_final_obs_data(const mdvec_t *env);

/* Return the terminated flags of the last step, (N) bytes of 0 or 1. */
MDVEC_API const uint8_t *mdvec_terminated(const mdvec_t *env);

/* Return the truncated flags of the last step, (N) bytes of 0 or 1 (mdvec_done = terminated | truncated). */
MDVEC_API const uint8_t *mdvec_truncated(const mdvec_t *env);

/* Return the reset flags of the last call, (N) bytes: 1 where env i was reset during it (an explicit
 * reset, a SAME_STEP autoreset or a NEXT_STEP pending reset). */
MDVEC_API const uint8_t *mdvec_reset_flags(const mdvec_t *env);

/* Return the reset info of the last call, (n_info x N) float64, field-major; the MDVEC_INFO_RESET
 * fields of the envs whose reset flag is set (other entries are stale). */
MDVEC_API const double *mdvec_reset_info(const mdvec_t *env);

/*---------------------------------- MuJoCo errors in envs (1.1) -----------------------------------*/
/* A MuJoCo error (mju_error) in an env is trapped on its thread; the other envs carry on. What the call
 * then does depends on cfg.on_error:
 * MDVEC_ON_ERROR_RAISE (default): the call returns MDVEC_ERR_PHYSICS naming the env (the other envs'
 *   results are in the buffers); the env stays stopped, and stepping returns MDVEC_ERR_STATE until the
 *   env is reset (mdvec_reset, or mdvec_reset_envs with a mask holding it: reset from its own generator).
 * MDVEC_ON_ERROR_END_EPISODE: an error in an env's step ends its episode there: final observation = its
 *   last good one, reward 0, truncated 1, terminated 0, step info 0, error flag 1; then the autoreset
 *   mode applies (SAME_STEP: reset now; NEXT_STEP: on its next step; DISABLED: the env is stopped until
 *   the caller resets it, as any finished env). The step returns MDVEC_OK with every env's results. An
 *   error in a reset (explicit or automatic) leaves the env stopped and returns MDVEC_ERR_PHYSICS. */

/* Return the error flags of the last call, (N) bytes: 1 where env i raised a MuJoCo error during it. */
MDVEC_API const uint8_t *mdvec_error_flags(const mdvec_t *env);

/* Return the number of MuJoCo errors raised in the handle's envs since create (0 for NULL). */
MDVEC_API uint64_t mdvec_error_count(const mdvec_t *env);

/* Return the message of env i's last MuJoCo error ("" when none), or NULL (NULL handle, i out of range). */
MDVEC_API const char *mdvec_env_error(const mdvec_t *env, int i);

/* Return the MuJoCo warnings raised in each env since create, (N) uint64 counters (e.g. an unstable
 * simulation: MuJoCo then resets that env's mjData, as in the reference). Warnings raised in an env's
 * work are counted here and never printed or appended to MUJOCO_LOG.TXT in the working directory. */
MDVEC_API const uint64_t *mdvec_warnings(const mdvec_t *env);

/*---------------------------------- Reset and step (1.1) ------------------------------------------*/

/* Reset the envs whose mask byte is nonzero (mask NULL: all); env i is first reseeded with seeds[i]
 * (as numpy's PCG64(seeds[i])) when seeds is not NULL and has_seed is NULL or has_seed[i] is nonzero.
 * Envs outside the mask keep their rows and state; the reset flags mark the reset envs. Return
 * MDVEC_OK, or MDVEC_ERR_PHYSICS naming an env where MuJoCo raised an error. */
MDVEC_API int mdvec_reset_envs(mdvec_t *env, const uint8_t *mask, const uint64_t *seeds, const uint8_t *has_seed);

/* Step every env with actions (N x act_dim, C order, aligned for their type: else MDVEC_ERR_ARG) of dtype
 * MDVEC_DTYPE_F32 or MDVEC_DTYPE_F64; otherwise as mdvec_step (which is MDVEC_DTYPE_F64), with the
 * handle's autoreset mode:
 * NEXT_STEP: an env whose previous step ended is reset instead of stepped (its action is ignored,
 * though it must be finite): first obs, reward 0, not terminated or truncated, step info 0, reset flag.
 * SAME_STEP: a finished env keeps its final obs in mdvec_final_obs_data and its step info in
 * mdvec_info, then resets: first obs in mdvec_obs_data, reset info, reset flag.
 * DISABLED: never resets by itself; stepping a finished env continues its episode. */
MDVEC_API int mdvec_step_typed(mdvec_t *env, const void *actions, int dtype);

/*---------------------------------- Physics state -------------------------------------------------*/

/* Return the number of doubles of mj_stateSize(model, sig) for the handle's envs (sig: mjtState
 * bits, e.g. mjSTATE_PHYSICS | mjSTATE_TIME), or 0 for a NULL handle or an invalid sig. */
MDVEC_API size_t mdvec_state_size(const mdvec_t *env, unsigned int sig);

/* Write env i's state (mj_getState(model, data, state, sig)) into state, which holds size doubles;
 * return MDVEC_OK, or MDVEC_ERR_ARG (NULL, index out of range, invalid sig, size too small). */
MDVEC_API int mdvec_get_state(const mdvec_t *env, int i, unsigned int sig, double *state, size_t size);

/*---------------------------------- State in and out (1.4) ---------------------------------------*/
/* Write one env's physics, copy it out whole, save its model, and save and restore the whole vector env
 * (docs/state.md). Like every call, these refuse a call overlapping another on the handle. */

/* Write the parts of env i's state that sig names (mj_setState(model, data, state, sig); the others keep
 * their values), then run what the reference runs after its set_state, mj_forward, so the derived quantities
 * (positions of bodies, sensors, contacts) follow the new state; the task drops what it derived from the old
 * one, and its episode goes on (step count, time limit, latency queue and last action stay, as in Gymnasium's
 * MujocoEnv.set_state). sig = mjSTATE_QPOS | mjSTATE_QVEL is Gymnasium's set_state(qpos, qvel): act and time
 * keep their values, and the next step equals the reference's after its set_state and the same step, bit for
 * bit. The result buffers are not changed (the next step writes them). An env that was never reset or was
 * stopped by an error still needs a reset before it steps. Return MDVEC_OK; MDVEC_ERR_ARG (env untouched) for
 * an index out of range, unknown mjtState bits, size other than mj_stateSize(sig) doubles, a NULL state with
 * size > 0, or a value that is not finite (the message names it); MDVEC_ERR_PHYSICS when mj_forward raised a
 * MuJoCo error (the env is then stopped until reset, as after a step's error). */
MDVEC_API int mdvec_set_state(mdvec_t *env, int i, unsigned int sig, const double *state, size_t size);

/* Copy env i's whole mjData (mj_copyData: state, controls, every derived array, contacts and constraint rows)
 * into mjdata_dst, an mjData made by the same libmujoco for env i's model (or a model of the same sizes, e.g.
 * one loaded from mdvec_save_model's bytes; Python: mujoco.MjData(model)._address). Return MDVEC_OK, or
 * MDVEC_ERR_ARG (index out of range, NULL, or a destination whose buffer, arena or plugin count differ: made
 * for another model; nothing is written). The destination's layout is the library's MuJoCo version's: a
 * caller with another MuJoCo must not pass its own mjData. */
MDVEC_API int mdvec_copy_data(const mdvec_t *env, int i, void *mjdata_dst);

/* Save env i's model as MuJoCo's binary model (MJB: mj_saveModel) into buf of size bytes, and set *needed
 * (when not NULL) to its size (mj_sizeModel). The env's own model: a task that changes its envs' models
 * (the duck's domain randomisation, a Control Suite task's target) gives each env's current values. buf NULL
 * asks only the size. Return MDVEC_OK, or MDVEC_ERR_ARG (index out of range, size < *needed: nothing is
 * written). mj_loadModelBuffer (Python: mujoco.MjModel.from_binary_path of a file, or of the bytes through a
 * VFS) builds the same model from them. */
MDVEC_API int mdvec_save_model(const mdvec_t *env, int i, void *buf, size_t size, size_t *needed);

/* Return the bytes mdvec_snapshot writes now (the size changes as contacts come and go: ask again right
 * before the snapshot), or 0 for a NULL handle, a refused call or a handle that cannot be saved (a model with
 * plugin instances; the reason in mdvec_errmsg). */
MDVEC_API size_t mdvec_snapshot_size(const mdvec_t *env);

/* Write a snapshot of the whole vector env into buf: everything that decides its future and what a caller
 * reads: every env's mjData (whole: state and derived arrays), the model values its task changes, its
 * generators (PCG64, a Control Suite task's RandomState), step counters and episode bookkeeping, pending
 * NEXT_STEP resets, stopped envs and their error messages, warning and error counters, and the result buffers
 * (observations, final observations, rewards, flags, step and reset info). A versioned header names the format,
 * the library and MuJoCo versions, the task, a fingerprint of every option value, N and the sizes; a checksum
 * covers the rest. Return MDVEC_OK, MDVEC_ERR_ARG (NULL, or size below mdvec_snapshot_size: nothing
 * written), MDVEC_ERR_STATE (a handle that cannot be saved). The bytes are in the machine's byte order. */
MDVEC_API int mdvec_snapshot(const mdvec_t *env, void *buf, size_t size);

/* Restore a snapshot of mdvec_snapshot into env, which must run the same task with the same options and N
 * (any thread count) on the same library and MuJoCo versions: afterwards the result buffers hold the
 * snapshot's last results and every later call gives, bit for bit, what it gave after the snapshot. One
 * snapshot restored into several handles gives each the same future (branching). Everything is checked before
 * anything changes: another task, other options (the message names the option), another N, autoreset or
 * on_error mode, another library or MuJoCo version, a truncated, extended or corrupted blob (its checksum), or
 * values an env cannot hold are refused with MDVEC_ERR_ARG and the reason in mdvec_errmsg, the env unchanged.
 * The checks guard against damage, not against a blob forged on purpose: restore blobs you made. */
MDVEC_API int mdvec_restore(mdvec_t *env, const void *buf, size_t size);

/*================================== 1.3: registration metadata ===================================*/
/* What bindings need to register a task as a Gymnasium-style env and to give its values the Python types
 * of its reference, declared once by the task. */

#define MDVEC_KIND_FLOAT 1 /* a Python float */
#define MDVEC_KIND_NUMPY 2 /* a numpy scalar of the value's dtype (float32 for an ACTION field of float32 actions) */
#define MDVEC_KIND_INT   3 /* a Python int */
#define MDVEC_KIND_BOOL  4 /* a Python bool */

/* Return metadata `key` of the named task (NULL: the default task) as static text, or NULL when the task
 * or the key is unknown or the task declares no value for it. Keys (more may be added; none is removed):
 *   "id"                the Gymnasium-style id bindings register for it ("mdvec/Hopper-v5"; the duck:
 *                       "mdvec/DuckBalance-v0")
 *   "reference"         what the task equals bit for bit: a Gymnasium id ("Hopper-v5") or a Python entry
 *                       point "module:attr" called as attr(seed=..., **options) ("mdvec.reference:DuckEnv")
 *   "reward_threshold"  the registration's reward threshold, a number ("3800.0"); NULL: none
 *   "render_kwargs"     ','-separated keywords of the reference that only concern rendering (not options)
 *   "index_options"     ','-separated MDVEC_OPT_STRING options that take an integer index or a name,
 *                       e.g. Ant-v5's "main_body": say which with cfg.option_kinds (MDVEC_VALUE_INT: the
 *                       decimal text is an index, MDVEC_VALUE_STR: the text is a name)
 * The episode limit a registration uses is the default of the task's "max_episode_steps" option; render
 * rates follow from mdvec_spec_t.dt. */
MDVEC_API const char *mdvec_task_meta(const char *task, const char *key);

/*================================== 1.4: asynchronous send and recv ==============================*/
/* Step some envs while the caller works on others (EnvPool's send/recv), deterministic by construction.
 * mdvec_send hands envs their actions and returns at once; the handle's T threads step them in the
 * background (the T-1 workers and one more thread, started at the first send; the caller is free);
 * mdvec_recv(n) returns the next n envs in send order, waiting for them (and stepping on the calling thread
 * those of them that no thread has started). Which envs come back together and in which order depend only on
 * the order of the sends and the n of each recv, never on timing; each env's work is the code of a
 * synchronous step or reset, so its results equal, bit for bit, those of the same actions given to
 * mdvec_step_typed (or mdvec_reset_envs), at any thread count. Results land in the env's own rows of the
 * usual buffers (mdvec_obs_data, mdvec_reward, mdvec_terminated, mdvec_truncated, mdvec_done,
 * mdvec_reset_flags, mdvec_error_flags, mdvec_info, mdvec_reset_info, mdvec_final_obs_data, and the frames
 * mdvec_pixels, mdvec_final_pixels of a handle with pixel observations, drawn by the thread that does the work;
 * a renderer's failure is reported by mdvec_recv as MDVEC_ERR_GL): env i's rows
 * hold the results of its last received work and stay valid (unchanged) until env i is sent again; while an
 * env is in flight its rows are being written: do not read them. The other envs' rows are not touched.
 * Each env is at most once in flight. While any env is in flight every other call on the handle (mdvec_step,
 * mdvec_reset_envs, mdvec_seed, the state calls, snapshots) returns MDVEC_ERR_STATE naming the count;
 * mdvec_destroy drops the envs sent and not yet started, waits for the ones running (one step each) and frees
 * everything; a forked child's calls are refused as for any call. The autoreset mode is the handle's:
 * with NEXT_STEP (EnvPool's) a finished env's next send resets it (its action ignored). */

/* Send actions to envs env_ids[0..n-1] (NULL: all N envs in order, n = N): actions is (n x act_dim), C order,
 * row j for env env_ids[j], of dtype MDVEC_DTYPE_F32 or _F64 (aligned for it), copied before the call
 * returns. Return MDVEC_OK at once, the envs queued in this order behind those already in flight; nothing is
 * sent on an error: MDVEC_ERR_ARG (NULL actions, another dtype, misaligned, n outside 1..N, an id out of range
 * or named twice), MDVEC_ERR_STATE (an env already in flight, never reset, or stopped by a MuJoCo error),
 * MDVEC_ERR_ACTION (an action that is not finite), MDVEC_ERR_THREAD or MDVEC_ERR_NOMEM (the first send could
 * not start the background thread or allocate the per-env action rows). */
MDVEC_API int mdvec_send(mdvec_t *env, const void *actions, int dtype, const int32_t *env_ids, int n);

/* Send resets to envs env_ids[0..n-1] (NULL: all N envs in order, n = N), as mdvec_reset_envs does them: env
 * env_ids[j] is first reseeded with seeds[j] when seeds is not NULL and has_seed is NULL or has_seed[j] is
 * nonzero. Queued like mdvec_send; return MDVEC_OK at once, or (nothing sent) MDVEC_ERR_ARG (n, ids, or a seed
 * beyond the task's seed_max), MDVEC_ERR_STATE (an env already in flight), MDVEC_ERR_THREAD, MDVEC_ERR_NOMEM.
 * An env that was never reset or is stopped by an error may be sent a reset. */
MDVEC_API int mdvec_send_reset(mdvec_t *env, const int32_t *env_ids, int n, const uint64_t *seeds,
                               const uint8_t *has_seed);

/* Receive the next n envs in send order: wait until their work is done, write their indices into
 * env_ids_out[0..n-1] (when not NULL) and take them out of flight; their results are in their rows of the
 * buffers. Return MDVEC_OK; MDVEC_ERR_PHYSICS (or MDVEC_ERR_NOMEM) naming an env among them that a MuJoCo
 * error stopped, as a synchronous step reports it (the n envs are received all the same); MDVEC_ERR_GL when
 * the handle's renderer failed (as mdvec_step reports it); MDVEC_ERR_ARG for n < 1; MDVEC_ERR_STATE, receiving
 * nothing, when nothing is in flight or fewer than n envs are. */
MDVEC_API int mdvec_recv(mdvec_t *env, int n, int32_t *env_ids_out);

/* Return the number of envs sent and not yet received, or MDVEC_ERR_ARG (NULL) / MDVEC_ERR_STATE (a call
 * overlapping another on the handle, or a forked child). */
MDVEC_API int mdvec_in_flight(mdvec_t *env);

/*================================== Legacy: the duck's 1.0 interface =============================*/
/* Kept for the callers of 1.0, with the behaviour it had; it speaks of the default task, the duck (its
 * shoves, latency, domain randomisation). New code reads sizes from mdvec_spec and info fields from
 * mdvec_info_field, and resets with mdvec_reset_envs. The duck's fields of mdvec_config_t (substeps ...
 * dr) belong here too: they stay where 1.0 put them, as the layout requires. */

/*---------------------------------- Dimensions (1.0) ----------------------------------------------*/

typedef struct mdvec_dims_ { /* sizes of the buffers; filled by mdvec_dims */
  size_t struct_size;        /* sizeof(mdvec_dims_t) as compiled by the caller */
  int num_envs;              /* N */
  int threads;               /* T, the caller included */
  int nu;                    /* actuators per env (14 for the duck) */
  int obs_dim;               /* observation length, 6 + 3*nu */
  int n_info;                /* info fields per step (13 for reward v2, 11 for v1) */
  int nbody;                 /* bodies in the model, world included */
  int n_pushes;              /* shoves per episode */
  int max_latency;           /* largest latency reset_with_params accepts: max(cfg latency, 2) */
} mdvec_dims_t;

/* Fill dims (its struct_size set by the caller) with the handle's sizes. */
MDVEC_API int mdvec_dims(const mdvec_t *env, mdvec_dims_t *dims);

/* Return the name of info field k (0 <= k < n_info), e.g. "trunk_height"; NULL when out of range. */
MDVEC_API const char *mdvec_info_name(const mdvec_t *env, int k);

/*---------------------------------- Episode parameters (1.0) --------------------------------------*/

typedef struct mdvec_params_ { /* everything one reset draws (docs/duck_task.md section 7) */
  size_t struct_size;          /* sizeof(mdvec_params_t) as compiled by the caller */
  double init_noise;           /* noise half-width used; qpos and qvel are applied only when > 0 */
  const double *qpos;          /* (nu) actuated joint positions after noise */
  const double *qvel;          /* (nu) actuated joint velocities after noise */
  int n_pushes;                /* number of shoves; must equal the config's n_pushes */
  const int64_t *push_steps;   /* (n_pushes) steps the shoves land on, each in [0, episode_len) */
  const double *push_vel;      /* (n_pushes x 2) (vx, vy) of each shove in m/s */
  int latency;                 /* steps of action delay, 0..max_latency */
  double noise_scale;          /* sensor-noise scale k (1 without domain randomisation) */
  int has_dr;                  /* nonzero: the fields below are set (required when cfg dr is on) */
  double servo[5];             /* kp, damping, armature, frictionloss, forcerange */
  const double *mass_scale;    /* (nbody-1) factor on mass and inertia of bodies 1.. */
  double floor_friction;       /* sliding friction of the floor */
} mdvec_params_t;

/* Reset env i with the given parameters instead of drawing them; validates every field first (finite,
 * in range, and physical: servo gains, damping, armature, friction loss and force range >= 0, mass
 * scales > 0) and changes nothing on error (MDVEC_ERR_PARAMS naming the field). Sensor noise (if on)
 * still draws from the env's generator. */
MDVEC_API int mdvec_reset_with_params(mdvec_t *env, int i, const mdvec_params_t *params);

/*================================== 1.4: pixel observations ======================================*/
/* Frames drawn with MuJoCo's renderer in C, on the worker threads (docs/pixels.md). Asked for by named
 * options in cfg.options, which every task takes besides its own (mdvec_pixel_option lists them):
 *   "obs_mode"     "state" (default), "pixels" or "state+pixels": whether mdvec_pixels holds frames (the
 *                  state observation, mdvec_obs_data, is kept either way)
 *   "width"        frame width in pixels, 1 .. the GL limit (480, Gymnasium's default)
 *   "height"       frame height in pixels, 1 .. the GL limit (480)
 *   "camera"       a camera id (-1: the free camera) or name; unset: the task's reference's default camera
 *                  (a Gymnasium v5 task's DEFAULT_CAMERA_CONFIG on a free camera; a Control Suite task's
 *                  camera 0, as dm_control's pixels wrapper is used); MDVEC_VALUE_INT / _STR in
 *                  cfg.option_kinds say whether "3" is an id or a name
 *   "frame_stack"  frames per observation, oldest first (1); a reset fills the stack with its first frame
 *                  (Gymnasium's FrameStackObservation default padding "reset", as EnvPool)
 *   "gymnasium"    the rules of Gymnasium's MujocoEnv renderer that a Gymnasium v5 task's frames follow:
 *                  "1.4" (default; no camera named: the free camera with the task's DEFAULT_CAMERA_CONFIG,
 *                  MuJoCo's offscreen buffer grown to the frame) or "1.2" (Gymnasium 1.0 - 1.3: the model's
 *                  camera "track" when it has one; the buffer of the frame's size, on which the picture
 *                  depends). Other tasks draw as their reference does either way. The Python binding passes
 *                  the installed Gymnasium's rules.
 * Each env's frame equals its reference's render of the same state byte for byte on the same GL (the
 * reference: Gymnasium's env wrapped in AddRenderObservation(render_only=True), rgb_array; dm_control's
 * Physics.render for the Control Suite), rows top first. Frames are drawn after every reset and step, each
 * env on its own worker thread, which owns an EGL context (created on its first frame, freed at
 * mdvec_destroy). EGL is loaded at run time (libEGL.so.1; MDVEC_LIBEGL names another): linking libmdvec
 * needs no GL, and a state-only handle never loads it. MUJOCO_EGL_DEVICE_ID picks the device as in MuJoCo.
 * mdvec_create refuses, before building anything, frames that do not fit in memory (MDVEC_ERR_NOMEM giving
 * the bytes asked for) and, once EGL is loaded, sizes beyond the GL limit (MDVEC_ERR_CONFIG giving the
 * limit); without a usable EGL it returns MDVEC_ERR_GL with a message that says what to install. A GL
 * failure during a call (a lost context) makes that call return MDVEC_ERR_GL (the physics of the call
 * happened; the frames of the failed thread's envs are stale) and every later call that draws too. */

#define MDVEC_ERR_GL -11 /* OpenGL (EGL) is missing or failed: the message says what and what to install */

#define MDVEC_OBS_STATE        0 /* obs_mode "state": no frames */
#define MDVEC_OBS_PIXELS       1 /* obs_mode "pixels" */
#define MDVEC_OBS_STATE_PIXELS 2 /* obs_mode "state+pixels" */

typedef struct mdvec_pixels_info_ { /* the frames of a handle; filled by mdvec_pixels_info */
  size_t struct_size;               /* sizeof(mdvec_pixels_info_t) as compiled by the caller */
  int obs_mode;                     /* MDVEC_OBS_* */
  int width, height;                /* frame size in pixels (0 when obs_mode is STATE) */
  int frame_stack;                  /* frames per env, oldest first */
  int camera_id;                    /* the camera drawn: -1 the free camera, else the model's camera id */
  size_t frame_bytes;               /* height * width * 3 */
  size_t env_bytes;                 /* frame_stack * frame_bytes: one env's row of mdvec_pixels */
  const char *renderer;             /* GL_RENDERER of the EGL device ("llvmpipe (LLVM ...)"), NULL: none */
} mdvec_pixels_info_t;

/* Return the number of pixel options (the names above, the same for every task). */
MDVEC_API int mdvec_pixel_option_count(void);

/* Fill info (its struct_size set) with pixel option k; return MDVEC_OK or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_pixel_option(int k, mdvec_option_info_t *info);

/* Fill info (its struct_size set) with the handle's frame layout; return MDVEC_OK or MDVEC_ERR_ARG. */
MDVEC_API int mdvec_pixels_info(const mdvec_t *env, mdvec_pixels_info_t *info);

/* Return the frames, (N x frame_stack x height x width x 3) uint8 RGB, row i for env i, rows of a frame top
 * first; NULL when obs_mode is STATE (or for a NULL handle). Owned by the handle, valid until destroy,
 * overwritten by every reset and step (with autoreset, a finished env's row holds its new episode's first
 * frames, as mdvec_obs_data does). */
MDVEC_API const uint8_t *mdvec_pixels(const mdvec_t *env);

/* Return the frames of the last step before any autoreset, shaped as mdvec_pixels: with SAME_STEP autoreset
 * a separate buffer whose rows of the envs reset by the step (mdvec_reset_flags) hold their final frames
 * (other rows are stale); otherwise the mdvec_pixels buffer itself. NULL when obs_mode is STATE. */
MDVEC_API const uint8_t *mdvec_final_pixels(const mdvec_t *env);

#ifdef __cplusplus
}
#endif

#endif /* MDVEC_H */
