/* The public API: argument checks, error codes and messages, create/destroy/reset/step. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "duck.h"
#include "mdvec.h"
#include "model.h"
#include "pool.h"
#include "trap.h"

struct mdvec_ {
  mdvec_config_t cfg;        /* the configuration, strings owned below */
  char *variant;             /* copy of cfg.variant */
  char *model_path;          /* copy of cfg.model_path, or NULL */
  mdv_task_model tm;         /* prototype model and task constants */
  mdv_duck *envs;            /* (N) environments */
  mdv_pool *pool;            /* T threads, the caller included */
  int n_info;                /* info fields per step */
  float *obs;                /* (N x obs_dim) */
  float *terminal_obs;       /* (N x obs_dim) */
  double *reward;            /* (N) */
  uint8_t *done;             /* (N) */
  double *info;              /* (n_info x N) */
  const double *actions;     /* the step's actions, set for the duration of one pool run */
  char errmsg[512];          /* last error message */
};

const char *mdvec_strerror(int code) {
  switch (code) {
    case MDVEC_OK: return "ok";
    case MDVEC_ERR_ARG: return "invalid argument";
    case MDVEC_ERR_CONFIG: return "invalid configuration";
    case MDVEC_ERR_MODEL: return "model error";
    case MDVEC_ERR_VERSION: return "version mismatch";
    case MDVEC_ERR_NOMEM: return "out of memory";
    case MDVEC_ERR_THREAD: return "thread error";
    case MDVEC_ERR_ACTION: return "non-finite action";
    case MDVEC_ERR_STATE: return "call out of order";
    case MDVEC_ERR_PARAMS: return "invalid episode parameters";
    case MDVEC_ERR_PHYSICS: return "MuJoCo error in an env";
    default: return "unknown code";
  }
}

int mdvec_version(void) { return MDVEC_VERSION_NUMBER; }

int mdvec_mujoco_version(void) { return mj_version(); }

/* Record a message on the handle and return code. */
static int fail(mdvec_t *h, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->errmsg, sizeof h->errmsg, fmt, ap);
  va_end(ap);
  return code;
}

/* Write a creation error into the caller's buffer and return code. */
static int create_fail(char *err, size_t err_size, int code, const char *fmt, ...) {
  if (err && err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return code;
}

/*---------------------------------- Configuration -------------------------------------------------*/

int mdvec_config_init(mdvec_config_t *cfg, size_t size) {
  if (!cfg || size != sizeof *cfg) return MDVEC_ERR_ARG;
  (mdvec_config_default)(cfg);
  return MDVEC_OK;
}

void (mdvec_config_default)(mdvec_config_t *cfg) {
  if (!cfg) return;
  memset(cfg, 0, sizeof *cfg);
  cfg->struct_size = sizeof *cfg;
  cfg->num_envs = 1;
  cfg->threads = 0;
  cfg->autoreset = 1;
  cfg->variant = "default";
  cfg->substeps = 10;
  cfg->episode_len = 250;
  cfg->action_scale = 0.3;
  cfg->n_pushes = 3;
  cfg->push_window[0] = 25;
  cfg->push_window[1] = 225;
  cfg->push_speed[0] = 0.3;
  cfg->push_speed[1] = 0.9;
  cfg->reward = MDVEC_REWARD_V2;
}

/* Check every configuration value; return 0 or -1 with a message naming the field. */
static int check_config(const mdvec_config_t *c, char *err, size_t n) {
#define BAD(...) do { snprintf(err, n, __VA_ARGS__); return -1; } while (0)
  if (c->num_envs <= 0) BAD("num_envs: must be a positive integer, got %d", c->num_envs);
  if (c->threads < 0) BAD("threads: must be >= 0 (0 picks automatically), got %d", c->threads);
  if (c->threads > MDVEC_THREAD_BUDGET && !c->allow_overcommit)
    BAD("threads: %d exceeds the budget of %d threads; set allow_overcommit to go beyond it",
        c->threads, MDVEC_THREAD_BUDGET);
  if (c->substeps <= 0) BAD("substeps: must be a positive integer, got %d", c->substeps);
  if (c->episode_len <= 0) BAD("episode_len: must be a positive integer, got %d", c->episode_len);
  if (c->n_pushes < 0) BAD("n_pushes: must be a non-negative integer, got %d", c->n_pushes);
  if (c->latency < 0) BAD("latency: must be a non-negative integer, got %d", c->latency);
  if (!isfinite(c->action_scale) || c->action_scale <= 0)
    BAD("action_scale: must be a positive finite number, got %g", c->action_scale);
  if (!isfinite(c->init_noise) || c->init_noise < 0)
    BAD("init_noise: must be a non-negative finite number, got %g", c->init_noise);
  int lo = c->push_window[0], hi = c->push_window[1];
  if (lo < 0 || hi > c->episode_len || hi - lo < c->n_pushes)
    BAD("push_window: [%d, %d) must lie inside [0, episode_len=%d] and hold n_pushes=%d distinct steps",
        lo, hi, c->episode_len, c->n_pushes);
  double vmin = c->push_speed[0], vmax = c->push_speed[1];
  if (!isfinite(vmin) || !isfinite(vmax) || vmin < 0 || vmax < vmin)
    BAD("push_speed: need 0 <= min <= max, got (%g, %g)", vmin, vmax);
  if (c->reward != MDVEC_REWARD_V1 && c->reward != MDVEC_REWARD_V2)
    BAD("reward: unknown reward %d; choose MDVEC_REWARD_V1 or MDVEC_REWARD_V2", c->reward);
  if (!c->model_path && !c->variant) BAD("variant: NULL; give a built-in variant or a model_path");
#undef BAD
  return 0;
}

/* Return the default thread count: min(N, online cores, budget). */
static int auto_threads(int num_envs) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int t = cores > 0 ? (int)cores : 1;
  if (t > MDVEC_THREAD_BUDGET) t = MDVEC_THREAD_BUDGET;
  return t < num_envs ? t : num_envs;
}

static char *copy_string(const char *s) {
  if (!s) return NULL;
  char *c = malloc(strlen(s) + 1);
  if (c) strcpy(c, s);
  return c;
}

/*---------------------------------- Lifecycle -----------------------------------------------------*/

int mdvec_create(mdvec_t **out, const mdvec_config_t *cfg, char *err, size_t err_size) {
  char msg[512] = "";
  if (!out || !cfg) return create_fail(err, err_size, MDVEC_ERR_ARG, "mdvec_create: out and cfg must not be NULL");
  *out = NULL;
  if (cfg->struct_size != sizeof(mdvec_config_t))
    return create_fail(err, err_size, MDVEC_ERR_ARG, "mdvec_create: cfg->struct_size is %zu, expected %zu "
                       "(fill cfg with mdvec_config_default)", cfg->struct_size, sizeof(mdvec_config_t));
  if (mj_version() != mjVERSION_HEADER)
    return create_fail(err, err_size, MDVEC_ERR_VERSION, "MuJoCo header version %d differs from the "
                       "loaded library's %d; rebuild mdvec against this MuJoCo", mjVERSION_HEADER, mj_version());
  if (check_config(cfg, msg, sizeof msg)) return create_fail(err, err_size, MDVEC_ERR_CONFIG, "%s", msg);

  mdvec_t *h = calloc(1, sizeof *h);
  if (!h) return create_fail(err, err_size, MDVEC_ERR_NOMEM, "out of memory");
  h->cfg = *cfg;
  h->variant = copy_string(cfg->variant);
  h->model_path = copy_string(cfg->model_path);
  h->cfg.variant = h->variant;
  h->cfg.model_path = h->model_path;
  if (h->cfg.threads == 0) h->cfg.threads = auto_threads(cfg->num_envs);
  int code = MDVEC_OK;
  if ((cfg->variant && !h->variant) || (cfg->model_path && !h->model_path)) {
    code = MDVEC_ERR_NOMEM;  /* never fall back to another model because a copy failed */
    snprintf(msg, sizeof msg, "out of memory");
  } else if (mdv_model_load(&h->tm, h->variant, h->model_path, msg, sizeof msg)) {
    code = MDVEC_ERR_MODEL;
  }
  int n = cfg->num_envs, obs_dim = 6 + 3 * h->tm.nu;
  h->n_info = mdv_duck_info_count(cfg->reward);
  if (code == MDVEC_OK) {
    h->envs = calloc((size_t)n, sizeof *h->envs);
    h->obs = calloc((size_t)n * obs_dim, sizeof(float));
    h->terminal_obs = calloc((size_t)n * obs_dim, sizeof(float));
    h->reward = calloc((size_t)n, sizeof(double));
    h->done = calloc((size_t)n, sizeof(uint8_t));
    h->info = calloc((size_t)n * h->n_info, sizeof(double));
    if (!h->envs || !h->obs || !h->terminal_obs || !h->reward || !h->done || !h->info) {
      code = MDVEC_ERR_NOMEM;
      snprintf(msg, sizeof msg, "out of memory for %d envs", n);
    }
  }
  for (int i = 0; code == MDVEC_OK && i < n; i++) {
    if (mdv_duck_init(&h->envs[i], &h->tm, &h->cfg, cfg->seed + (uint64_t)i)) {
      code = MDVEC_ERR_NOMEM;
      snprintf(msg, sizeof msg, "out of memory for env %d", i);
    }
  }
  if (code == MDVEC_OK && mdv_pool_create(&h->pool, h->cfg.threads, msg, sizeof msg)) code = MDVEC_ERR_THREAD;
  if (code != MDVEC_OK) {
    mdvec_destroy(h);
    return create_fail(err, err_size, code, "%s", msg);
  }
  *out = h;
  return MDVEC_OK;
}

void mdvec_destroy(mdvec_t *h) {
  if (!h) return;
  mdv_pool_destroy(h->pool);
  for (int i = 0; h->envs && i < h->cfg.num_envs; i++) mdv_duck_free(&h->envs[i]);
  mdv_model_free(&h->tm);
  free(h->envs);
  free(h->obs);
  free(h->terminal_obs);
  free(h->reward);
  free(h->done);
  free(h->info);
  free(h->variant);
  free(h->model_path);
  free(h);
}

const char *mdvec_errmsg(const mdvec_t *h) { return h ? h->errmsg : "mdvec_errmsg: NULL handle"; }

/*---------------------------------- Dimensions and buffers ----------------------------------------*/

int mdvec_dims(const mdvec_t *h, mdvec_dims_t *dims) {
  if (!h || !dims) return MDVEC_ERR_ARG;
  if (dims->struct_size != sizeof *dims) return MDVEC_ERR_ARG;
  dims->num_envs = h->cfg.num_envs;
  dims->threads = h->cfg.threads;
  dims->nu = h->tm.nu;
  dims->obs_dim = 6 + 3 * h->tm.nu;
  dims->n_info = h->n_info;
  dims->nbody = h->tm.nbody;
  dims->n_pushes = h->cfg.n_pushes;
  dims->max_latency = h->cfg.latency > 2 ? h->cfg.latency : 2;
  return MDVEC_OK;
}

const char *mdvec_info_name(const mdvec_t *h, int k) { return h ? mdv_duck_info_name(h->cfg.reward, k) : NULL; }
const float *mdvec_obs(const mdvec_t *h) { return h ? h->obs : NULL; }
const float *mdvec_terminal_obs(const mdvec_t *h) { return h ? h->terminal_obs : NULL; }
const double *mdvec_reward(const mdvec_t *h) { return h ? h->reward : NULL; }
const uint8_t *mdvec_done(const mdvec_t *h) { return h ? h->done : NULL; }
const double *mdvec_info(const mdvec_t *h) { return h ? h->info : NULL; }

/*---------------------------------- Reset and step ------------------------------------------------*/

/* Reset env i from its generator (a trapped job). */
static void reset_env(mdvec_t *h, int i, const void *unused) {
  (void)unused;
  mdv_duck_reset(&h->envs[i], h->obs + (size_t)i * (6 + 3 * h->tm.nu));
}

/* Reset env i with checked episode parameters (a trapped job). */
static void reset_env_with(mdvec_t *h, int i, const void *params) {
  mdv_duck_reset_with_params(&h->envs[i], params, h->obs + (size_t)i * (6 + 3 * h->tm.nu));
}

/* Step env i, autoresetting it when it finishes (a trapped job). */
static void step_env(mdvec_t *h, int i, const void *unused) {
  (void)unused;
  int n = h->cfg.num_envs, nu = h->tm.nu, obs_dim = 6 + 3 * nu;
  float *obs = h->obs + (size_t)i * obs_dim, *terminal = h->terminal_obs + (size_t)i * obs_dim;
  mdv_duck_out out = {terminal, &h->reward[i], &h->done[i], &h->info[i], n};
  mdv_duck_step(&h->envs[i], h->actions + (size_t)i * nu, &out);
  if (h->done[i] && h->cfg.autoreset) {
    mdv_duck_reset(&h->envs[i], obs);
  } else {
    memcpy(obs, terminal, sizeof(float) * (size_t)obs_dim);
  }
}

typedef void (*env_job)(mdvec_t *h, int i, const void *arg);

/* Run job on env i with MuJoCo errors trapped: an error stops that env, not the process. */
static void trapped(mdvec_t *h, int i, env_job job, const void *arg) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  if (setjmp(trap.env) == 0) {
    job(h, i, arg);
  } else {
    mdv_duck *e = &h->envs[i];
    e->failed = 1;
    snprintf(e->error, sizeof e->error, "%s", trap.message);
  }
  mdv_trap_end(&trap);
}

/* Reset the envs of one thread (env i runs on thread i mod T). */
static void reset_job(void *ctx, int thread, int threads) {
  mdvec_t *h = ctx;
  for (int i = thread; i < h->cfg.num_envs; i += threads) trapped(h, i, reset_env, NULL);
}

/* Step the envs of one thread. */
static void step_job(void *ctx, int thread, int threads) {
  mdvec_t *h = ctx;
  for (int i = thread; i < h->cfg.num_envs; i += threads) trapped(h, i, step_env, NULL);
}

/* Return MDVEC_ERR_PHYSICS naming the first env that failed during the last pool run, or MDVEC_OK. */
static int physics_errors(mdvec_t *h, const char *call) {
  int failed = 0, first = -1;
  for (int i = 0; i < h->cfg.num_envs; i++) {
    if (h->envs[i].failed) {
      failed++;
      if (first < 0) first = i;
    }
  }
  if (!failed) return MDVEC_OK;
  return fail(h, MDVEC_ERR_PHYSICS, "%s: MuJoCo error in env %d (%d env(s) stopped; reset them): %s", call, first,
              failed, h->envs[first].error);
}

int mdvec_seed(mdvec_t *h, uint64_t seed) {
  if (!h) return MDVEC_ERR_ARG;
  for (int i = 0; i < h->cfg.num_envs; i++) mdv_duck_seed(&h->envs[i], seed + (uint64_t)i);
  return MDVEC_OK;
}

int mdvec_reset(mdvec_t *h) {
  if (!h) return MDVEC_ERR_ARG;
  mdv_pool_run(h->pool, reset_job, h);
  return physics_errors(h, "mdvec_reset");
}

int mdvec_reset_with_params(mdvec_t *h, int i, const mdvec_params_t *p) {
  if (!h) return MDVEC_ERR_ARG;
  if (i < 0 || i >= h->cfg.num_envs)
    return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: env %d out of range [0, %d)", i, h->cfg.num_envs);
  if (!p) return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: params is NULL");
  if (p->struct_size != sizeof *p)
    return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: params->struct_size is %zu, expected %zu",
                p->struct_size, sizeof *p);
  char msg[256];
  if (mdv_duck_check_params(&h->envs[i], p, msg, sizeof msg)) return fail(h, MDVEC_ERR_PARAMS, "%s", msg);
  trapped(h, i, reset_env_with, p);
  return h->envs[i].failed ? physics_errors(h, "mdvec_reset_with_params") : MDVEC_OK;
}

int mdvec_step(mdvec_t *h, const double *actions) {
  if (!h) return MDVEC_ERR_ARG;
  if (!actions) return fail(h, MDVEC_ERR_ARG, "mdvec_step: actions is NULL");
  int n = h->cfg.num_envs, nu = h->tm.nu;
  for (int i = 0; i < n; i++) {
    const mdv_duck *e = &h->envs[i];
    if (!e->reset_done) return fail(h, MDVEC_ERR_STATE, "mdvec_step: env %d was never reset; call mdvec_reset first", i);
    if (e->failed)
      return fail(h, MDVEC_ERR_STATE, "mdvec_step: env %d stopped on a MuJoCo error (%s); reset it first", i, e->error);
  }
  for (size_t k = 0; k < (size_t)n * nu; k++) {
    if (!isfinite(actions[k])) {
      return fail(h, MDVEC_ERR_ACTION, "mdvec_step: non-finite action at env %zu, actuator %zu; no env was stepped",
                  k / nu, k % nu);
    }
  }
  h->actions = actions;
  mdv_pool_run(h->pool, step_job, h);
  h->actions = NULL;
  return physics_errors(h, "mdvec_step");
}
