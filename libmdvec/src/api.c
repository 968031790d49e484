/* The public API: argument checks, error codes and messages, the generic per-env bookkeeping (rng,
 * reset done, failed, pending autoreset), create/destroy/reset/step, buffers and queries. Names no
 * task: everything task-specific goes through the mdv_task table (task.h). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <mujoco/mjxmacro.h>
#include <mujoco/mujoco.h>

#include "async.h"
#include "mdvec.h"
#include "model.h"
#include "options.h"
#include "pcg64.h"
#include "pool.h"
#include "render.h"
#include "snapshot.h"
#include "task.h"
#include "trap.h"

/* sizeof the 1.0 layout of mdvec_config_t: it ended with dr, and the pointer appended after it
 * starts where the 1.0 struct's padding ended. */
#define CONFIG_V1_SIZE offsetof(mdvec_config_t, task)
_Static_assert(CONFIG_V1_SIZE % _Alignof(mdvec_config_t) == 0, "the 1.0 config layout ends on a field boundary");

/* sizeof the 1.1 layout: on_error (appended in 1.1) sat where the end padding after n_options was, so
 * the 1.1 struct ended right after it; 1.2 appended dot, ddot and ddot64, 1.3 option_kinds, 1.4 dgemv and
 * dgemv64. */
#define CONFIG_V11_SIZE offsetof(mdvec_config_t, dot)
_Static_assert(offsetof(mdvec_config_t, on_error) + sizeof(int) == CONFIG_V11_SIZE, "on_error ends the 1.1 layout");
#define CONFIG_V12_SIZE offsetof(mdvec_config_t, option_kinds)
_Static_assert(offsetof(mdvec_config_t, ddot64) + sizeof(mdvec_ddot64_fn) == CONFIG_V12_SIZE,
               "ddot64 ends the 1.2 layout");
#define CONFIG_V13_SIZE offsetof(mdvec_config_t, dgemv)
_Static_assert(offsetof(mdvec_config_t, option_kinds) + sizeof(const int *) == CONFIG_V13_SIZE,
               "option_kinds ends the 1.3 layout");
_Static_assert(offsetof(mdvec_config_t, dgemv64) + sizeof(mdvec_dgemv64_fn) == sizeof(mdvec_config_t),
               "dgemv64 ends the layout");

/* Return nonzero when size is one of the layouts this library reads (the caller's struct_size). */
static int known_config_size(size_t size) {
  return size == CONFIG_V1_SIZE || size == CONFIG_V11_SIZE || size == CONFIG_V12_SIZE || size == CONFIG_V13_SIZE ||
         size >= sizeof(mdvec_config_t);
}

#define ENV_ALIGN 64 /* env states start on their own cache lines */

typedef struct mdv_slot_ { /* what the generic layer keeps for one env */
  mdv_pcg64 rng;           /* the env's generator (seeded seed + i) */
  int reset_done;          /* nonzero once the env has been reset */
  int failed;              /* nonzero after a MuJoCo error, until the next reset */
  int pending;             /* NEXT_STEP: the env finished; its next step is a reset */
  int in_step;             /* 1 while the task's step runs (an error there ends the episode) */
  uint64_t errors;         /* MuJoCo errors raised in this env since create */
  char error[512];         /* the last error's message */
} mdv_slot;

struct mdvec_ {
  const mdv_task *task;     /* the task */
  void *shared;             /* the task's shared part */
  mdv_spec spec;            /* what the task declared */
  mdv_value *opts;          /* (n_options) the resolved options */
  mdv_dot dot;              /* numpy's float64 dot, as configured (cfg.dot) */
  int num_envs;             /* N */
  int threads;              /* T */
  int autoreset;            /* MDVEC_AUTORESET_* */
  int on_error;             /* MDVEC_ON_ERROR_* */
  unsigned char *env_mem;   /* (N x env_stride) the task's env states, ENV_ALIGN-aligned inside env_block */
  void *env_block;          /* env_mem's allocation (calloc: untouched pages stay unbacked) */
  int envs_begun;           /* envs 0..envs_begun-1 went through env_init: env_free is due on them (only) */
  size_t env_stride;        /* spec.env_size rounded up to ENV_ALIGN */
  mdv_slot *slots;          /* (N) per-env bookkeeping */
  mdv_pool *pool;           /* T threads, the caller included */
  size_t obs_row;           /* bytes of one observation row */
  unsigned char *obs;       /* (N x obs_dim) of obs_dtype */
  unsigned char *final_obs; /* (N x obs_dim) of obs_dtype */
  double *reward;           /* (N) */
  uint8_t *terminated;      /* (N) */
  uint8_t *truncated;       /* (N) */
  uint8_t *done;            /* (N) terminated | truncated */
  uint8_t *reset_flags;     /* (N) reset during the last call */
  uint8_t *error_flags;     /* (N) raised a MuJoCo error during the last call */
  uint64_t *warnings;       /* (N) MuJoCo warnings raised in each env since create */
  double *info;             /* (n_info x N) step info */
  double *reset_info;       /* (n_info x N) reset info */
  double *act64;            /* (N x act_dim) float32 actions widened, per env */
  /* the arguments of the pool run in progress (set by the caller, read by the jobs) */
  const void *actions;     /* the step's actions */
  int action_dtype;        /* their dtype */
  const uint8_t *mask;     /* reset_envs: which envs (NULL: all) */
  const uint64_t *seeds;   /* reset_envs: seeds (NULL: none) */
  const uint8_t *has_seed; /* reset_envs: which seeds apply (NULL: all) */
  char errmsg[512];        /* last error message */
  unsigned fork_gen;       /* g_fork_gen at create: another value means a forked child holds a copy */
  long pid;                /* the creating process, for messages */
  atomic_int busy;         /* 1 while a call runs: an overlapping call is refused, not raced */
  mdv_async *async;        /* mdvec_send/mdvec_recv's state (async.c); NULL until the first send */
  mdv_pixels_cfg px;       /* the pixel options (render.h) */
  mdv_render *render;      /* the frames' renderer, or NULL: obs_mode "state" */
};

/* Forks seen by this process (pthread_atfork's child handler; registered at the first create). The
 * handle's copy in a forked child has no workers, so its calls are refused by comparing generations:
 * one plain load per call, no getpid() system call on the step path. */
static atomic_uint g_fork_gen;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;
static void on_fork_child(void) {
  atomic_fetch_add_explicit(&g_fork_gen, 1u, memory_order_relaxed);
}
static void register_atfork(void) {
  pthread_atfork(NULL, NULL, on_fork_child);
}

/* A refused call's message lives in the refused thread's storage: the call that is running on the
 * handle may be writing the handle's own message at the same time. mdvec_errmsg returns it to the
 * refused thread until that thread makes its next call on any handle. */
static _Thread_local char tl_msg[256];
static _Thread_local const mdvec_t *tl_msg_handle;

const char *mdvec_strerror(int code) {
  switch (code) {
    case MDVEC_OK:
      return "ok";
    case MDVEC_ERR_ARG:
      return "invalid argument";
    case MDVEC_ERR_CONFIG:
      return "invalid configuration";
    case MDVEC_ERR_MODEL:
      return "model error";
    case MDVEC_ERR_VERSION:
      return "version mismatch";
    case MDVEC_ERR_NOMEM:
      return "out of memory";
    case MDVEC_ERR_THREAD:
      return "thread error";
    case MDVEC_ERR_ACTION:
      return "non-finite action";
    case MDVEC_ERR_STATE:
      return "call out of order";
    case MDVEC_ERR_PARAMS:
      return "invalid episode parameters";
    case MDVEC_ERR_PHYSICS:
      return "MuJoCo error in an env";
    case MDVEC_ERR_GL:
      return "OpenGL (EGL) missing or failed";
    default:
      return "unknown code";
  }
}

int mdvec_version(void) {
  return MDVEC_VERSION_NUMBER;
}

int mdvec_mujoco_version(void) {
  return mj_version();
}

/* Record a message on the handle and return code. */
static int fail(mdvec_t *h, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->errmsg, sizeof h->errmsg, fmt, ap);
  va_end(ap);
  return code;
}

/* Start a call on h: return MDVEC_OK with h marked busy (end it with leave), or MDVEC_ERR_STATE when h
 * was created in another process (a forked parent) or another call on h is running. */
static int enter_call(mdvec_t *h, const char *call) {
  tl_msg_handle = NULL;
  if (atomic_load_explicit(&g_fork_gen, memory_order_relaxed) != h->fork_gen) {
    snprintf(tl_msg, sizeof tl_msg,
             "%s: the handle was created in another process (pid %ld) and this is a forked "
             "child; its workers do not exist here: create handles in the process that uses them",
             call, h->pid);
    tl_msg_handle = h;
    return MDVEC_ERR_STATE;
  }
  if (atomic_exchange_explicit(&h->busy, 1, memory_order_acquire)) {
    snprintf(tl_msg, sizeof tl_msg,
             "%s: concurrent call: another call on this handle is running in another "
             "thread; use one handle from one thread at a time",
             call);
    tl_msg_handle = h;
    return MDVEC_ERR_STATE;
  }
  return MDVEC_OK;
}

/* End a call started by enter; return code. */
static int leave(mdvec_t *h, int code) {
  atomic_store_explicit(&h->busy, 0, memory_order_release);
  return code;
}

/* enter_call, and MDVEC_ERR_STATE while envs sent with mdvec_send are in flight (their workers write the
 * envs and buffers): every call but send/recv's (mdv_api_enter) starts here. */
static int enter(mdvec_t *h, const char *call) {
  int code = enter_call(h, call);
  int n = code ? 0 : mdv_async_in_flight(h->async);
  if (n)
    return leave(h, fail(h, MDVEC_ERR_STATE,
                         "%s: %d env(s) sent with mdvec_send are in flight (their workers may be writing them); "
                         "mdvec_recv them first",
                         call, n));
  return code;
}

/* The largest seed the task's envs take. */
static uint64_t seed_max(const mdv_task *t) {
  return t->seed_max ? t->seed_max : UINT64_MAX;
}

/* Check that seeds seed .. seed + count - 1 are the task's (a RandomState takes 32 bits): return MDVEC_OK, or
 * MDVEC_ERR_ARG with a message in msg. */
static int check_seeds(const mdv_task *t, const char *call, uint64_t seed, int count, char *msg, size_t n) {
  uint64_t max = seed_max(t);
  if (count < 1 || (seed <= max && (uint64_t)(count - 1) <= max - seed)) return MDVEC_OK;
  snprintf(msg, n,
           "%s: seed %llu is out of range: task %s takes seeds 0 .. %llu, and env i gets seed + i (with %d envs the "
           "seed must be <= %llu)",
           call, (unsigned long long)seed, t->name, (unsigned long long)max, count,
           (unsigned long long)(max - (uint64_t)(count - 1 <= 0 ? 0 : count - 1)));
  return MDVEC_ERR_ARG;
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

/* Return a * b, or SIZE_MAX when it overflows (every allocation below then fails). */
static size_t mul(size_t a, size_t b) {
  return (b && a > SIZE_MAX / b) ? SIZE_MAX : a * b;
}

/*---------------------------------- Configuration -------------------------------------------------*/

/* Fill the fields of the first `size` bytes (size >= CONFIG_V1_SIZE) with the defaults. */
static void config_fill(mdvec_config_t *cfg, size_t size) {
  mdvec_config_t c;
  memset(&c, 0, sizeof c);
  c.num_envs = 1;
  c.autoreset = MDVEC_AUTORESET_SAME_STEP;
  const mdv_task *def = mdv_task_find(NULL);
  if (def && def->v1_defaults) def->v1_defaults(&c);
  memset(cfg, 0, size);
  memcpy(cfg, &c, size < sizeof c ? size : sizeof c);
  cfg->struct_size = size;
}

void(mdvec_config_default)(mdvec_config_t *cfg) {
  if (cfg) config_fill(cfg, CONFIG_V1_SIZE);
}

int mdvec_config_init(mdvec_config_t *cfg, size_t size) {
  if (!cfg || !known_config_size(size)) return MDVEC_ERR_ARG;
  config_fill(cfg, size);
  return MDVEC_OK;
}

/* Copy the caller's config into a full one: the 1.0 layout (the appended fields take their
 * defaults), this layout, or a longer one whose unknown tail is all zero; return 0, or -1 with a
 * message. */
static int config_copy(const mdvec_config_t *in, mdvec_config_t *out, char *err, size_t n) {
  size_t size = in->struct_size;
  if (!known_config_size(size)) {
    snprintf(err, n,
             "mdvec_create: cfg->struct_size is %zu, expected %zu (1.0), %zu (1.1), %zu (1.2), %zu (1.3) or at "
             "least %zu (fill cfg with mdvec_config_default)",
             size, CONFIG_V1_SIZE, CONFIG_V11_SIZE, CONFIG_V12_SIZE, CONFIG_V13_SIZE, sizeof *out);
    return -1;
  }
  const unsigned char *bytes = (const unsigned char *)in;
  for (size_t k = sizeof *out; k < size; k++) {
    if (bytes[k]) {
      snprintf(err, n,
               "mdvec_create: cfg->struct_size is %zu and sets fields this library (%zu bytes) does "
               "not know",
               size, sizeof *out);
      return -1;
    }
  }
  config_fill(out, sizeof *out);
  memcpy(out, in, size < sizeof *out ? size : sizeof *out);
  out->struct_size = sizeof *out;
  return 0;
}

/* Check the generic configuration values; return 0 or -1 with a message naming the field. */
static int check_config(const mdvec_config_t *c, char *err, size_t n) {
#define BAD(...)                   \
  do {                             \
    snprintf(err, n, __VA_ARGS__); \
    return -1;                     \
  } while (0)
  if (c->num_envs <= 0) BAD("num_envs: must be a positive integer, got %d", c->num_envs);
  if (c->threads < 0) BAD("threads: must be >= 0 (0 picks automatically), got %d", c->threads);
  int threads = c->threads < c->num_envs ? c->threads : c->num_envs; /* more threads than envs: one per env */
  char asked[64] = ""; /* the count asked for, when one per env lowered it */
  if (threads != c->threads) snprintf(asked, sizeof asked, " (%d asked, at most one per env)", c->threads);
  if (threads > MDVEC_THREAD_BUDGET && !c->allow_overcommit)
    BAD("threads: %d%s exceeds the budget of %d threads; set allow_overcommit to go beyond it", threads, asked,
        MDVEC_THREAD_BUDGET);
  if (threads > MDV_POOL_MAX_THREADS) /* before any env is built */
    BAD("threads: %d%s exceeds the most a handle starts (%d), allow_overcommit or not", threads, asked,
        MDV_POOL_MAX_THREADS);
  if (c->autoreset < 0)
    BAD("autoreset: must be MDVEC_AUTORESET_DISABLED, _SAME_STEP or _NEXT_STEP, got %d", c->autoreset);
  if (c->on_error != MDVEC_ON_ERROR_RAISE && c->on_error != MDVEC_ON_ERROR_END_EPISODE)
    BAD("on_error: must be MDVEC_ON_ERROR_RAISE or MDVEC_ON_ERROR_END_EPISODE, got %d", c->on_error);
  if (c->dot < MDVEC_DOT_PLAIN || c->dot > MDVEC_DOT_CBLAS64)
    BAD("dot: must be MDVEC_DOT_PLAIN, _FMA, _CBLAS or _CBLAS64, got %d", c->dot);
  if (c->dot == MDVEC_DOT_CBLAS && !c->ddot) BAD("dot: MDVEC_DOT_CBLAS needs cfg.ddot, which is NULL");
  if (c->dot == MDVEC_DOT_CBLAS64 && !c->ddot64) BAD("dot: MDVEC_DOT_CBLAS64 needs cfg.ddot64, which is NULL");
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

/* Return the task's state of env i. */
static inline void *env_at(const mdvec_t *h, int i) {
  return h->env_mem + (size_t)i * h->env_stride;
}

/*---------------------------------- Lifecycle -----------------------------------------------------*/

/* Allocate the buffers; return 0 or -1 (out of memory or sizes that overflow). */
static int alloc_buffers(mdvec_t *h) {
  size_t n = (size_t)h->num_envs, obs_size = h->spec.obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float);
  size_t n_info = (size_t)(h->spec.n_info > 0 ? h->spec.n_info : 1);
  h->obs_row = mul((size_t)h->spec.obs_dim, obs_size);
  h->env_stride =
    h->spec.env_size > SIZE_MAX - ENV_ALIGN ? SIZE_MAX : (h->spec.env_size + ENV_ALIGN - 1) / ENV_ALIGN * ENV_ALIGN;
  size_t env_bytes = mul(n, h->env_stride);
  if (env_bytes == SIZE_MAX || mul(n, h->obs_row) == SIZE_MAX || mul(mul(n, n_info), sizeof(double)) == SIZE_MAX ||
      mul(mul(n, (size_t)h->spec.act_dim), sizeof(double)) == SIZE_MAX)
    return -1;
  /* calloc, not aligned_alloc + memset: a large block comes zeroed from the kernel, untouched, so a
     num_envs that memory_check refuses after two envs costs no memory before it is refused */
  h->env_block = env_bytes > SIZE_MAX - ENV_ALIGN ? NULL : calloc(1, env_bytes + ENV_ALIGN);
  h->env_mem =
    h->env_block ? (unsigned char *)(((uintptr_t)h->env_block + ENV_ALIGN - 1) / ENV_ALIGN * ENV_ALIGN) : NULL;
  h->slots = calloc(n, sizeof *h->slots);
  h->obs = calloc(n, h->obs_row);
  h->final_obs = calloc(n, h->obs_row);
  h->reward = calloc(n, sizeof(double));
  h->terminated = calloc(n, 1);
  h->truncated = calloc(n, 1);
  h->done = calloc(n, 1);
  h->reset_flags = calloc(n, 1);
  h->error_flags = calloc(n, 1);
  h->warnings = calloc(n, sizeof *h->warnings);
  h->info = calloc(mul(n, n_info), sizeof(double));
  h->reset_info = calloc(mul(n, n_info), sizeof(double));
  h->act64 = calloc(mul(n, (size_t)(h->spec.act_dim > 0 ? h->spec.act_dim : 1)), sizeof(double));
  return (h->env_mem && h->slots && h->obs && h->final_obs && h->reward && h->terminated && h->truncated && h->done &&
          h->reset_flags && h->error_flags && h->warnings && h->info && h->reset_info && h->act64)
           ? 0
           : -1;
}

/* Run the task's create with MuJoCo errors trapped (a task's own loading may call MuJoCo directly): a
 * trapped allocation failure is MDVEC_ERR_NOMEM, any other MuJoCo error MDVEC_ERR_MODEL. */
static int create_trapped(mdvec_t *h, char *msg, size_t n) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  volatile int code = MDVEC_ERR_MODEL;
  if (setjmp(trap.env) == 0) {
    code = h->task->create(&h->shared, h->opts, &h->dot, &h->spec, msg, n);
  } else {
    code = mdv_trap_is_nomem(trap.message) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL;
    snprintf(msg, n, "model: MuJoCo error while loading task '%s': %s", h->task->name, trap.message);
  }
  mdv_trap_end(&trap);
  return code;
}

/* Initialise env i with MuJoCo errors trapped; on failure the env is freed and the code is
 * MDVEC_ERR_NOMEM for an allocation failure, else MDVEC_ERR_MODEL (message in why). */
static int env_init_trapped(mdvec_t *h, int i, char *why, size_t n) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  volatile int failed = 1;
  if (setjmp(trap.env) == 0) {
    failed = h->task->env_init(env_at(h, i), h->shared, why, n) != 0;
  } else {
    snprintf(why, n, "MuJoCo error: %.400s", trap.message);
  }
  mdv_trap_end(&trap);
  if (!failed) return MDVEC_OK;
  h->task->env_free(env_at(h, i)); /* safe on a half-initialised env, and again at destroy */
  return mdv_trap_is_nomem(why) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL;
}

#define GIB(bytes) ((double)(bytes) / (1024.0 * 1024.0 * 1024.0))

/* Return the bytes of the arrays env model m0 holds itself: those it does not share with m1, another env's
 * model of the same task (a task may let its envs' copies share large read-only arrays: textures, meshes). */
static size_t model_own_bytes(const mjModel *m0, const mjModel *m1) {
  MJMODEL_POINTERS_PREAMBLE(m0)
  size_t bytes = 0;
#define X(type, name, nr, nc) \
  if (m0->name != m1->name) bytes += sizeof(type) * (size_t)(m0->nr) * (size_t)(nc);
  MJMODEL_POINTERS
#undef X
  return bytes;
}

/* With envs 0 and 1 built, estimate what all N envs need and refuse early (MDVEC_ERR_NOMEM, message in
 * msg) when it exceeds the machine's memory or the process's address-space limit, instead of building
 * envs until an allocation fails or the kernel kills the process. Per env, what is surely touched: the
 * env state, mjData's struct and buffer, and the mjModel when each env has its own copy; what is
 * reserved on top: mjData's arena (mostly untouched, so not counted against memory). *probe is set to
 * the reserved bytes of one env. */
static int memory_check(mdvec_t *h, size_t *probe, char *msg, size_t n) {
  const mjModel *m0, *m1;
  mjData *d0, *d1;
  h->task->physics(env_at(h, 0), &m0, &d0);
  h->task->physics(env_at(h, 1), &m1, &d1);
  size_t model = m1 != m0 ? sizeof(mjModel) + model_own_bytes(m0, m1) : 0;
  size_t touched = h->env_stride + sizeof(mjData) + (size_t)d0->nbuffer + model;
  size_t reserved = touched + (size_t)d0->narena;
  size_t envs = (size_t)h->num_envs;
  *probe = reserved;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t phys = pages > 0 && page > 0 ? mul((size_t)pages, (size_t)page) : SIZE_MAX;
  if (mul(touched, envs) > phys) {
    snprintf(msg, n,
             "num_envs: %d envs need at least %.1f GiB (%zu KiB each), more than this machine's "
             "%.1f GiB of memory",
             h->num_envs, GIB(mul(touched, envs)), touched / 1024, GIB(phys));
    return MDVEC_ERR_NOMEM;
  }
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && mul(reserved, envs) > as.rlim_cur) {
    snprintf(msg, n,
             "num_envs: %d envs reserve %.1f GiB of address space (%zu KiB each, mjData's arena "
             "included), more than this process's limit (ulimit -v) of %.1f GiB",
             h->num_envs, GIB(mul(reserved, envs)), reserved / 1024, GIB(as.rlim_cur));
    return MDVEC_ERR_NOMEM;
  }
  return MDVEC_OK;
}

int mdvec_create(mdvec_t **out, const mdvec_config_t *cfg_in, char *err, size_t err_size) {
  char msg[1024] = "";
  if (!out || !cfg_in) return create_fail(err, err_size, MDVEC_ERR_ARG, "mdvec_create: out and cfg must not be NULL");
  *out = NULL;
  mdvec_config_t cfg;
  if (config_copy(cfg_in, &cfg, msg, sizeof msg)) return create_fail(err, err_size, MDVEC_ERR_ARG, "%s", msg);
  if (mdv_model_check_version(msg, sizeof msg)) return create_fail(err, err_size, MDVEC_ERR_VERSION, "%s", msg);
  if (check_config(&cfg, msg, sizeof msg)) return create_fail(err, err_size, MDVEC_ERR_CONFIG, "%s", msg);
  const mdv_task *task = mdv_task_find(cfg.task);
  if (!task) {
    int len = snprintf(msg, sizeof msg, "task: unknown task '%s'; the tasks are:", cfg.task);
    for (int k = 0; mdv_task_at(k) && len >= 0 && (size_t)len < sizeof msg; k++)
      len += snprintf(msg + len, sizeof msg - (size_t)len, "%s %s", k ? "," : "", mdv_task_at(k)->name);
    return create_fail(err, err_size, MDVEC_ERR_CONFIG, "%s", msg);
  }

  pthread_once(&g_atfork_once, register_atfork);
  mdvec_t *h = calloc(1, sizeof *h);
  if (!h) return create_fail(err, err_size, MDVEC_ERR_NOMEM, "out of memory");
  h->fork_gen = atomic_load_explicit(&g_fork_gen, memory_order_relaxed);
  h->pid = (long)getpid();
  atomic_init(&h->busy, 0);
  h->task = task;
  h->num_envs = cfg.num_envs;
  h->threads = cfg.threads ? (cfg.threads < cfg.num_envs ? cfg.threads : cfg.num_envs) : auto_threads(cfg.num_envs);
  h->autoreset = cfg.autoreset == MDVEC_AUTORESET_DISABLED    ? MDVEC_AUTORESET_DISABLED
                 : cfg.autoreset == MDVEC_AUTORESET_NEXT_STEP ? MDVEC_AUTORESET_NEXT_STEP
                                                              : MDVEC_AUTORESET_SAME_STEP; /* v1: nonzero */
  h->on_error = cfg.on_error;
  h->dot = (mdv_dot){cfg.dot, cfg.ddot, cfg.ddot64, cfg.dgemv, cfg.dgemv64};
  int code = MDVEC_OK;
  h->opts = calloc((size_t)(task->n_options > 0 ? task->n_options : 1), sizeof *h->opts);
  if (!h->opts) {
    code = MDVEC_ERR_NOMEM;
    snprintf(msg, sizeof msg, "out of memory");
  }
  mdvec_option_t *task_opts = NULL; /* cfg.options less the pixel options (render.h) */
  int *task_kinds = NULL, n_task = 0;
  if (code == MDVEC_OK)
    code = mdv_pixels_split(cfg.options, cfg.option_kinds, cfg.n_options, &h->px, &task_opts, &task_kinds, &n_task, msg,
                            sizeof msg);
  if (code == MDVEC_OK) /* frames that cannot fit are refused before anything is built */
    code = mdv_render_check_memory(&h->px, h->num_envs, h->autoreset == MDVEC_AUTORESET_SAME_STEP, msg, sizeof msg);
  if (code == MDVEC_OK)
    code = mdv_options_resolve(task, task == mdv_task_find(NULL) ? &cfg : NULL, task_opts, task_kinds, n_task, h->opts,
                               msg, sizeof msg);
  free(task_opts);
  free(task_kinds);
  if (code == MDVEC_OK) code = create_trapped(h, msg, sizeof msg);
  if (code == MDVEC_OK) code = mdv_spec_check(task->name, &h->spec, msg, sizeof msg);
  if (code == MDVEC_OK && alloc_buffers(h)) {
    code = MDVEC_ERR_NOMEM;
    snprintf(msg, sizeof msg, "out of memory for %d envs", h->num_envs);
  }
  if (code == MDVEC_OK) code = check_seeds(task, "mdvec_create", cfg.seed, h->num_envs, msg, sizeof msg);
  size_t probe = 0; /* bytes one more env will reserve, known once two envs exist */
  for (int i = 0; code == MDVEC_OK && i < h->num_envs; i++) {
    if (i == 2 && (code = memory_check(h, &probe, msg, sizeof msg)) != MDVEC_OK) break;
    if (probe) { /* fail here, before MuJoCo's allocator would (it cannot undo a half-made mjData) */
      void *p = malloc(probe);
      if (!p) {
        code = MDVEC_ERR_NOMEM;
        snprintf(msg, sizeof msg, "out of memory after %d of %d envs (%zu bytes each)", i, h->num_envs, probe);
        break;
      }
      free(p);
    }
    mdv_pcg64_seed(&h->slots[i].rng, cfg.seed + (uint64_t)i);
    h->envs_begun = i + 1;
    char why[512] = "out of memory";
    if ((code = env_init_trapped(h, i, why, sizeof why)) != MDVEC_OK) snprintf(msg, sizeof msg, "env %d: %s", i, why);
    if (code == MDVEC_OK && task->seed) task->seed(env_at(h, i), cfg.seed + (uint64_t)i);
  }
  if (code == MDVEC_OK && h->px.obs_mode != MDVEC_OBS_STATE) {
    const mjModel *m;
    mjData *d;
    task->physics(env_at(h, 0), &m, &d);
    code = mdv_render_create(&h->render, &h->px, task, m, h->num_envs, h->threads,
                             h->autoreset == MDVEC_AUTORESET_SAME_STEP, msg, sizeof msg);
  }
  if (code == MDVEC_OK) {
    char why[512] = "";
    int pool = mdv_pool_create(&h->pool, h->threads, why, sizeof why);
    if (pool != MDV_POOL_OK) {
      code = pool == MDV_POOL_ENOMEM ? MDVEC_ERR_NOMEM : MDVEC_ERR_THREAD;
      const char *prefix = "mdv_pool_create: ";
      snprintf(msg, sizeof msg, "threads: %s", strncmp(why, prefix, strlen(prefix)) ? why : why + strlen(prefix));
    }
  }
  if (code != MDVEC_OK) {
    mdvec_destroy(h);
    return create_fail(err, err_size, code, "%s", msg);
  }
  *out = h;
  return MDVEC_OK;
}

/* Free the renderer's GL objects of one thread, on that thread (at destroy). */
static void render_free_job(void *ctx, int thread, int threads) {
  (void)threads;
  mdv_render_thread_free(((mdvec_t *)ctx)->render, thread);
}

/* Wait until no call runs on h and mark it busy for good, so that a call starting during the teardown is
 * refused ("concurrent call") rather than run on memory being freed. Sleeps 50 us between looks: a call
 * lasts a step at most. */
static void wait_idle(mdvec_t *h) {
  const struct timespec pause = {0, 50000};
  while (atomic_exchange_explicit(&h->busy, 1, memory_order_acquire)) nanosleep(&pause, NULL);
}

void mdvec_destroy(mdvec_t *h) {
  if (!h) return;
  if (atomic_load_explicit(&g_fork_gen, memory_order_relaxed) == h->fork_gen) {
    wait_idle(h);                        /* a call running in another thread finishes first */
    mdv_async_cancel(h->async, h->pool); /* envs in flight: those not started are dropped, the others end */
    if (h->render && h->pool) mdv_pool_run(h->pool, render_free_job, h); /* GL objects die on their threads */
    mdv_pool_destroy(h->pool);
  } else {
    mdv_pool_abandon(h->pool); /* a forked child: the workers are the parent's (and a call the parent had
                                  running left busy set in this copy: no wait); free only the memory */
  }
  mdv_async_free(h->async);
  /* only the envs that were begun: the others' pages were never touched (a refused huge num_envs) */
  for (int i = 0; h->env_mem && i < h->envs_begun; i++) h->task->env_free(env_at(h, i));
  if (h->shared) h->task->destroy(h->shared);
  mdv_options_free(h->task, h->opts);
  free(h->opts);
  free(h->env_block);
  free(h->slots);
  free(h->obs);
  free(h->final_obs);
  free(h->reward);
  free(h->terminated);
  free(h->truncated);
  free(h->done);
  free(h->reset_flags);
  free(h->error_flags);
  free(h->warnings);
  free(h->info);
  free(h->reset_info);
  free(h->act64);
  mdv_render_free(h->render);
  mdv_pixels_cfg_free(&h->px);
  free(h);
}

const char *mdvec_errmsg(const mdvec_t *h) {
  if (!h) return "mdvec_errmsg: NULL handle";
  return tl_msg_handle == h ? tl_msg : h->errmsg;
}

/*---------------------------------- Task catalogue ------------------------------------------------*/

int mdvec_task_count(void) {
  return mdv_task_count();
}

const char *mdvec_task_name(int k) {
  const mdv_task *t = mdv_task_at(k);
  return t ? t->name : NULL;
}

const char *mdvec_task_summary(const char *task) {
  const mdv_task *t = mdv_task_find(task);
  return t ? t->summary : NULL;
}

int mdvec_task_option_count(const char *task) {
  const mdv_task *t = mdv_task_find(task);
  return t ? t->n_options : MDVEC_ERR_ARG;
}

int mdvec_task_option(const char *task, int k, mdvec_option_info_t *info) {
  const mdv_task *t = mdv_task_find(task);
  if (!t || !info || info->struct_size < sizeof *info || k < 0 || k >= t->n_options) return MDVEC_ERR_ARG;
  const mdv_option_decl *o = &t->options[k];
  *info = (mdvec_option_info_t){sizeof *info, o->name, o->type, o->def, o->lo, o->hi, o->choices, o->help};
  return MDVEC_OK;
}

int mdvec_task_flags(const char *task) {
  const mdv_task *t = mdv_task_find(task);
  return t ? (int)t->flags : MDVEC_ERR_ARG;
}

int mdvec_task_constant_count(const char *task) {
  const mdv_task *t = mdv_task_find(task);
  return t ? t->n_constants : MDVEC_ERR_ARG;
}

int mdvec_task_constant(const char *task, int k, mdvec_constant_t *c) {
  const mdv_task *t = mdv_task_find(task);
  if (!t || !c || c->struct_size < sizeof *c || k < 0 || k >= t->n_constants) return MDVEC_ERR_ARG;
  const mdv_constant *src = &t->constants[k];
  *c = (mdvec_constant_t){sizeof *c, src->name, src->count, src->values, src->help};
  return MDVEC_OK;
}

const char *mdvec_task_meta(const char *task, const char *key) {
  const mdv_task *t = mdv_task_find(task);
  if (!t || !key) return NULL;
  const struct {
    const char *key, *value;
  } meta[] = {
    {"id", t->gym_id},
    {"reference", t->reference},
    {"reward_threshold", t->reward_threshold},
    {"render_kwargs", t->render_kwargs},
    {"index_options", t->index_options},
  };
  for (size_t k = 0; k < sizeof meta / sizeof meta[0]; k++)
    if (!strcmp(meta[k].key, key)) return meta[k].value;
  return NULL;
}

/*---------------------------------- Dimensions, spec and buffers ----------------------------------*/

int mdvec_dims(const mdvec_t *h, mdvec_dims_t *dims) {
  if (!h || !dims) return MDVEC_ERR_ARG;
  if (dims->struct_size != sizeof *dims) return MDVEC_ERR_ARG;
  *dims = (mdvec_dims_t){sizeof *dims,  h->num_envs, h->threads, h->spec.act_dim, h->spec.obs_dim, h->spec.n_info,
                         h->spec.nbody, 0,           0};
  if (h->task->v1_dims) h->task->v1_dims(h->shared, dims);
  return MDVEC_OK;
}

/* The 1.1 layouts of the structs 1.3 appended to: a caller built against 1.1 or 1.2 passes these sizes. */
#define SPEC_V11_SIZE  offsetof(mdvec_spec_t, dt)
#define SPEC_V13_SIZE  offsetof(mdvec_spec_t, obs_layout)
#define FIELD_V11_SIZE offsetof(mdvec_field_t, kind)

/* Return the bytes of a caller's struct to fill (its struct_size): the 1.1 layout's, this one's, or 0 for
 * another size. */
static size_t filled_size(size_t size, size_t v11, size_t full) {
  return size == v11 ? v11 : size >= full ? full : 0;
}

/* Return MDVEC_KIND_* of a value of dtype: bool and int fields are bool and int, floats the task's. */
static int value_kind(const mdv_task *t, const char *name, int dtype) {
  for (const mdv_field_kind *k = t->info_kinds; k && k->name; k++)
    if (!strcmp(k->name, name)) return k->kind;
  if (dtype == MDVEC_DTYPE_BOOL) return MDVEC_KIND_BOOL;
  if (dtype == MDVEC_DTYPE_I64) return MDVEC_KIND_INT;
  return t->float_kind ? t->float_kind : MDVEC_KIND_FLOAT;
}

int mdvec_spec(const mdvec_t *h, mdvec_spec_t *spec) {
  size_t size = spec ? filled_size(spec->struct_size, SPEC_V11_SIZE, sizeof *spec) : 0;
  if (spec && spec->struct_size == SPEC_V13_SIZE) size = SPEC_V13_SIZE;
  if (!h || !size) return MDVEC_ERR_ARG;
  const mdv_spec *s = &h->spec;
  mdvec_spec_t out = {size,
                      h->task->name,
                      h->num_envs,
                      h->threads,
                      s->obs_dim,
                      s->obs_dtype,
                      s->act_dim,
                      s->n_info,
                      s->max_episode_steps,
                      s->nq,
                      s->nv,
                      h->autoreset,
                      s->model_path,
                      s->dt,
                      h->task->reward_kind ? h->task->reward_kind : MDVEC_KIND_FLOAT,
                      s->obs_layout,
                      seed_max(h->task)};
  memcpy(spec, &out, size);
  return MDVEC_OK;
}

int mdvec_info_field(const mdvec_t *h, int k, mdvec_field_t *field) {
  size_t size = field ? filled_size(field->struct_size, FIELD_V11_SIZE, sizeof *field) : 0;
  if (!h || !size || k < 0 || k >= h->spec.n_info) return MDVEC_ERR_ARG;
  const mdv_field *f = &h->spec.info[k];
  mdvec_field_t out = {size, f->name, f->dtype, f->when, value_kind(h->task, f->name, f->dtype)};
  memcpy(field, &out, size);
  return MDVEC_OK;
}

const char *mdvec_info_name(const mdvec_t *h, int k) {
  return h && k >= 0 && k < h->spec.n_info ? h->spec.info[k].name : NULL;
}
const double *mdvec_action_low(const mdvec_t *h) {
  return h ? h->spec.act_low : NULL;
}
const double *mdvec_action_high(const mdvec_t *h) {
  return h ? h->spec.act_high : NULL;
}
const float *mdvec_obs(const mdvec_t *h) {
  return h && h->spec.obs_dtype == MDVEC_DTYPE_F32 ? (const float *)h->obs : NULL;
}
const float *mdvec_terminal_obs(const mdvec_t *h) {
  return h && h->spec.obs_dtype == MDVEC_DTYPE_F32 ? (const float *)h->final_obs : NULL;
}
const void *mdvec_obs_data(const mdvec_t *h) {
  return h ? h->obs : NULL;
}
const void *mdvec_final_obs_data(const mdvec_t *h) {
  return h ? h->final_obs : NULL;
}
const double *mdvec_reward(const mdvec_t *h) {
  return h ? h->reward : NULL;
}
const uint8_t *mdvec_done(const mdvec_t *h) {
  return h ? h->done : NULL;
}
const uint8_t *mdvec_terminated(const mdvec_t *h) {
  return h ? h->terminated : NULL;
}
const uint8_t *mdvec_truncated(const mdvec_t *h) {
  return h ? h->truncated : NULL;
}
const uint8_t *mdvec_reset_flags(const mdvec_t *h) {
  return h ? h->reset_flags : NULL;
}
const uint8_t *mdvec_error_flags(const mdvec_t *h) {
  return h ? h->error_flags : NULL;
}
const uint64_t *mdvec_warnings(const mdvec_t *h) {
  return h ? h->warnings : NULL;
}

uint64_t mdvec_error_count(const mdvec_t *h) {
  uint64_t n = 0;
  for (int i = 0; h && i < h->num_envs; i++) n += h->slots[i].errors;
  return n;
}

const char *mdvec_env_error(const mdvec_t *h, int i) {
  return h && i >= 0 && i < h->num_envs ? h->slots[i].error : NULL;
}
const double *mdvec_info(const mdvec_t *h) {
  return h ? h->info : NULL;
}
const double *mdvec_reset_info(const mdvec_t *h) {
  return h ? h->reset_info : NULL;
}

/*---------------------------------- Per-env jobs (run trapped, on the env's thread) ---------------*/

/* Where env i's reset writes: its obs row and its reset-info column. */
static inline mdv_out reset_out(const mdvec_t *h, int i) {
  return (mdv_out){h->obs + (size_t)i * h->obs_row, NULL, NULL, NULL, h->reset_info + i, (size_t)h->num_envs};
}

/* Mark env i reset: generic bookkeeping after a task reset returned. */
static inline void mark_reset(mdvec_t *h, int i) {
  mdv_slot *s = &h->slots[i];
  s->reset_done = 1;
  s->pending = 0;
  h->reset_flags[i] = 1;
}

/* The pool thread a job runs on, passed as its argument (reset_env, step_env), for the renderer. */
static inline int job_thread(const void *arg) {
  return arg ? *(const int *)arg : 0;
}

/* Draw env i's frame on pool thread `thread` when the handle has pixel observations (render.h). */
static void draw(mdvec_t *h, int thread, int i, int what) {
  if (!h->render) return;
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  mdv_render_frame(h->render, thread, i, m, d, what);
}

/* Reset env i from its generator (reseeded first when the call gave it a seed); arg: the pool thread. */
static void reset_env(mdvec_t *h, int i, const void *arg) {
  if (h->mask && !h->mask[i]) return;
  mdv_slot *s = &h->slots[i];
  if (h->seeds && (!h->has_seed || h->has_seed[i])) {
    mdv_pcg64_seed(&s->rng, h->seeds[i]);
    if (h->task->seed) h->task->seed(env_at(h, i), h->seeds[i]);
  }
  mdv_out out = reset_out(h, i);
  h->task->reset(env_at(h, i), &s->rng, &out);
  mark_reset(h, i);
  draw(h, job_thread(arg), i, MDV_FRAME_RESET);
}

/* Reset env i with checked v1 episode parameters (on the caller's thread: pool thread 0's renderer). */
static void reset_env_with(mdvec_t *h, int i, const void *params) {
  mdv_out out = reset_out(h, i);
  h->task->reset_with_params(env_at(h, i), params, &h->slots[i].rng, &out);
  mark_reset(h, i);
  draw(h, 0, i, MDV_FRAME_RESET);
}

typedef struct step_src_ { /* where a step's actions are: (N x act_dim) of dtype, row i for env i */
  const void *actions;
  int dtype;
  int thread; /* the pool thread the step runs on, for the renderer (render.h) */
} step_src;

/* Step env i with the handle's autoreset mode, its action in row i of arg (a step_src). */
static void step_env(mdvec_t *h, int i, const void *arg) {
  const step_src *src_of = arg;
  int thread = src_of->thread;
  mdv_slot *s = &h->slots[i];
  size_t n = (size_t)h->num_envs, act_dim = (size_t)h->spec.act_dim;
  unsigned char *obs = h->obs + (size_t)i * h->obs_row, *final = h->final_obs + (size_t)i * h->obs_row;
  h->reset_flags[i] = 0;
  if (s->pending) { /* NEXT_STEP: the previous step ended this episode; this step starts the next */
    mdv_out out = reset_out(h, i);
    h->task->reset(env_at(h, i), &s->rng, &out);
    mark_reset(h, i);
    draw(h, thread, i, MDV_FRAME_RESET);
    h->reward[i] = 0.0;
    h->terminated[i] = h->truncated[i] = h->done[i] = 0;
    for (int k = 0; k < h->spec.n_info; k++) h->info[(size_t)k * n + i] = 0.0;
    memcpy(final, obs, h->obs_row);
    return;
  }
  const double *a;
  if (src_of->dtype == MDVEC_DTYPE_F32) {
    const float *src = (const float *)src_of->actions + (size_t)i * act_dim;
    double *dst = h->act64 + (size_t)i * act_dim;
    for (size_t k = 0; k < act_dim; k++) dst[k] = (double)src[k];
    a = dst;
  } else {
    a = (const double *)src_of->actions + (size_t)i * act_dim;
  }
  mdv_out out = {final, &h->reward[i], &h->terminated[i], &h->truncated[i], h->info + i, n};
  s->in_step = 1;
  h->task->step(env_at(h, i), a, src_of->dtype, &s->rng, &out);
  s->in_step = 0;
  int done = h->terminated[i] | h->truncated[i];
  h->done[i] = (uint8_t)done;
  draw(h, thread, i, MDV_FRAME_STEP);
  if (done && h->autoreset == MDVEC_AUTORESET_SAME_STEP) {
    if (h->render) mdv_render_keep_final(h->render, i);
    mdv_out rout = reset_out(h, i);
    h->task->reset(env_at(h, i), &s->rng, &rout);
    mark_reset(h, i);
    draw(h, thread, i, MDV_FRAME_RESET);
  } else {
    memcpy(obs, final, h->obs_row);
    if (done && h->autoreset == MDVEC_AUTORESET_NEXT_STEP) s->pending = 1;
  }
}

typedef void (*env_job)(mdvec_t *h, int i, const void *arg);

/* Run job on env i with MuJoCo errors trapped: an error stops that env (failed, counted, message kept; with
 * flag, its error flag of the call set), not the process. Return 0 when the job raised an error, else 1. */
static int run_trapped(mdvec_t *h, int i, env_job job, const void *arg, int flag) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  volatile int ok = 1;
  if (setjmp(trap.env) == 0) {
    job(h, i, arg);
  } else {
    mdv_slot *s = &h->slots[i];
    ok = 0;
    s->failed = 1;
    s->pending = 0;
    s->errors++;
    if (flag) h->error_flags[i] = 1;
    snprintf(s->error, sizeof s->error, "%s", trap.message);
  }
  mdv_trap_end(&trap);
  h->warnings[i] += trap.warnings;
  return ok;
}

/* run_trapped for a step or reset of the envs: an error sets env i's error flag. */
static int trapped(mdvec_t *h, int i, env_job job, const void *arg) {
  return run_trapped(h, i, job, arg, 1);
}

/* MDVEC_ON_ERROR_END_EPISODE: env i raised an error during its task step; end its episode there. Its final
 * observation is its last good one (the row the step had not yet replaced), reward 0, truncated (not
 * terminated), step info 0, error flag set; then the autoreset mode applies: SAME_STEP resets it now
 * (an error in that reset leaves it stopped), NEXT_STEP on its next step, DISABLED leaves it stopped
 * until the caller resets it. An error in a reset leaves the env stopped (MDVEC_ERR_PHYSICS). */
static void end_episode(mdvec_t *h, int i, int thread) {
  mdv_slot *s = &h->slots[i];
  size_t n = (size_t)h->num_envs;
  if (!s->in_step) return; /* the error came from a reset (NEXT_STEP's, SAME_STEP's): no episode to end */
  s->in_step = 0;
  memcpy(h->final_obs + (size_t)i * h->obs_row, h->obs + (size_t)i * h->obs_row, h->obs_row);
  h->reward[i] = 0.0;
  h->terminated[i] = 0;
  h->truncated[i] = h->done[i] = 1;
  for (int k = 0; k < h->spec.n_info; k++) h->info[(size_t)k * n + i] = 0.0;
  if (h->autoreset == MDVEC_AUTORESET_SAME_STEP) {
    if (h->render) mdv_render_keep_final(h->render, i); /* its last good frames */
    s->failed = 0;
    trapped(h, i, reset_env, &thread);
  } else if (h->autoreset == MDVEC_AUTORESET_NEXT_STEP) {
    s->failed = 0;
    s->pending = 1;
  }
}

/* Reset the envs of one thread; a reset clears a failure. */
static void reset_job(void *ctx, int thread, int threads) {
  mdvec_t *h = ctx;
  int lo, hi;
  mdv_pool_share(h->num_envs, thread, threads, &lo, &hi); /* a contiguous block */
  if (h->render) mdv_render_begin(h->render, thread);
  for (int i = lo; i < hi; i++) {
    h->reset_flags[i] = 0;
    h->error_flags[i] = 0;
    if (h->mask && !h->mask[i]) continue;
    h->slots[i].failed = 0;
    trapped(h, i, reset_env, &thread);
  }
  if (h->render) mdv_render_end(h->render, thread);
}

/* Step the envs of one thread. */
static void step_job(void *ctx, int thread, int threads) {
  mdvec_t *h = ctx;
  int lo, hi;
  mdv_pool_share(h->num_envs, thread, threads, &lo, &hi); /* a contiguous block */
  const step_src src = {h->actions, h->action_dtype, thread};
  if (h->render) mdv_render_begin(h->render, thread);
  for (int i = lo; i < hi; i++) {
    h->error_flags[i] = 0;
    if (!trapped(h, i, step_env, &src) && h->on_error == MDVEC_ON_ERROR_END_EPISODE) end_episode(h, i, thread);
  }
  if (h->render) mdv_render_end(h->render, thread);
}

/* Return code, or, when it is MDVEC_OK, MDVEC_ERR_GL with the message of a renderer that failed during the call
 * (or before: a failed renderer draws no more). */
static int render_errors(mdvec_t *h, int code) {
  char msg[512];
  if (code != MDVEC_OK || !h->render || mdv_render_status(h->render, msg, sizeof msg) == MDVEC_OK) return code;
  return fail(h, MDVEC_ERR_GL, "%s", msg);
}

/* Return MDVEC_ERR_PHYSICS naming the first env that raised an error during this call and is stopped by
 * it, or MDVEC_OK. With MDVEC_ON_ERROR_END_EPISODE a step's error ends the episode instead: only an env
 * that its SAME_STEP autoreset could not restart counts (under DISABLED, a stopped env is the ended
 * episode the caller resets). */
static int physics_errors(mdvec_t *h, const char *call, int stepping) {
  int failed = 0, first = -1;
  for (int i = 0; i < h->num_envs; i++) {
    const mdv_slot *s = &h->slots[i];
    int stopped = h->error_flags[i] && s->failed;
    if (stopped && stepping && h->on_error == MDVEC_ON_ERROR_END_EPISODE && h->autoreset == MDVEC_AUTORESET_DISABLED)
      stopped = 0;
    if (stopped) {
      failed++;
      if (first < 0) first = i;
    }
  }
  if (!failed) return MDVEC_OK;
  if (mdv_trap_is_nomem(h->slots[first].error)) /* e.g. a task's scratch allocation during a reset */
    return fail(h, MDVEC_ERR_NOMEM, "%s: out of memory in env %d (%d env(s) stopped; reset them): %s", call, first,
                failed, h->slots[first].error);
  return fail(h, MDVEC_ERR_PHYSICS, "%s: MuJoCo error in env %d (%d env(s) stopped; reset them): %s", call, first,
              failed, h->slots[first].error);
}

/*---------------------------------- Reset and step ------------------------------------------------*/

int mdvec_seed(mdvec_t *h, uint64_t seed) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_seed");
  if (code) return code;
  if ((code = check_seeds(h->task, "mdvec_seed", seed, h->num_envs, h->errmsg, sizeof h->errmsg)))
    return leave(h, code);
  for (int i = 0; i < h->num_envs; i++) {
    mdv_pcg64_seed(&h->slots[i].rng, seed + (uint64_t)i);
    if (h->task->seed) h->task->seed(env_at(h, i), seed + (uint64_t)i);
  }
  return leave(h, MDVEC_OK);
}

int mdvec_reset_envs(mdvec_t *h, const uint8_t *mask, const uint64_t *seeds, const uint8_t *has_seed) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_reset");
  if (code) return code;
  for (int i = 0; seeds && i < h->num_envs; i++) {
    if ((mask && !mask[i]) || (has_seed && !has_seed[i])) continue;
    if ((code = check_seeds(h->task, "mdvec_reset_envs", seeds[i], 1, h->errmsg, sizeof h->errmsg)))
      return leave(h, code);
  }
  h->mask = mask;
  h->seeds = seeds;
  h->has_seed = has_seed;
  mdv_pool_run(h->pool, reset_job, h);
  h->mask = NULL;
  h->seeds = NULL;
  h->has_seed = NULL;
  return leave(h, render_errors(h, physics_errors(h, "mdvec_reset", 0)));
}

int mdvec_reset(mdvec_t *h) {
  return mdvec_reset_envs(h, NULL, NULL, NULL);
}

/* mdvec_reset_with_params inside enter/leave. */
static int reset_with_params(mdvec_t *h, int i, const mdvec_params_t *p) {
  if (!h->task->reset_with_params)
    return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: task '%s' takes no episode parameters", h->task->name);
  if (i < 0 || i >= h->num_envs)
    return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: env %d out of range [0, %d)", i, h->num_envs);
  if (!p) return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: params is NULL");
  if (p->struct_size != sizeof *p)
    return fail(h, MDVEC_ERR_ARG, "mdvec_reset_with_params: params->struct_size is %zu, expected %zu", p->struct_size,
                sizeof *p);
  char msg[256];
  if (h->task->check_params(env_at(h, i), p, msg, sizeof msg)) return fail(h, MDVEC_ERR_PARAMS, "%s", msg);
  memset(h->reset_flags, 0, (size_t)h->num_envs);
  memset(h->error_flags, 0, (size_t)h->num_envs);
  h->slots[i].failed = 0;
  if (h->render) mdv_render_begin(h->render, 0);
  trapped(h, i, reset_env_with, p);
  if (h->render) mdv_render_end(h->render, 0);
  return render_errors(h, physics_errors(h, "mdvec_reset_with_params", 0));
}

int mdvec_reset_with_params(mdvec_t *h, int i, const mdvec_params_t *p) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_reset_with_params");
  return code ? code : leave(h, reset_with_params(h, i, p));
}

/* mdvec_step_typed inside enter/leave. */
static int step_typed(mdvec_t *h, const void *actions, int dtype) {
  if (!actions) return fail(h, MDVEC_ERR_ARG, "mdvec_step: actions is NULL");
  if (dtype != MDVEC_DTYPE_F32 && dtype != MDVEC_DTYPE_F64)
    return fail(h, MDVEC_ERR_ARG, "mdvec_step: action dtype %d; use MDVEC_DTYPE_F32 or MDVEC_DTYPE_F64", dtype);
  size_t align = dtype == MDVEC_DTYPE_F32 ? _Alignof(float) : _Alignof(double);
  if ((uintptr_t)actions % align)
    return fail(h, MDVEC_ERR_ARG,
                "mdvec_step: actions at %p are not aligned to %zu bytes (their element type's); "
                "copy them to an aligned array",
                actions, align);
  int n = h->num_envs;
  for (int i = 0; i < n; i++) {
    const mdv_slot *s = &h->slots[i];
    if (!s->reset_done)
      return fail(h, MDVEC_ERR_STATE, "mdvec_step: env %d was never reset; call mdvec_reset first", i);
    if (s->failed)
      return fail(h, MDVEC_ERR_STATE, "mdvec_step: env %d stopped on a MuJoCo error (%s); reset it first", i, s->error);
  }
  size_t act_dim = (size_t)h->spec.act_dim, total = (size_t)n * act_dim;
  for (size_t k = 0; k < total; k++) {
    int finite =
      dtype == MDVEC_DTYPE_F32 ? isfinite(((const float *)actions)[k]) : isfinite(((const double *)actions)[k]);
    if (!finite) {
      return fail(h, MDVEC_ERR_ACTION, "mdvec_step: non-finite action at env %zu, actuator %zu; no env was stepped",
                  k / act_dim, k % act_dim);
    }
  }
  h->actions = actions;
  h->action_dtype = dtype;
  mdv_pool_run(h->pool, step_job, h);
  h->actions = NULL;
  return render_errors(h, physics_errors(h, "mdvec_step", 1));
}

int mdvec_step_typed(mdvec_t *h, const void *actions, int dtype) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_step");
  return code ? code : leave(h, step_typed(h, actions, dtype));
}

int mdvec_step(mdvec_t *h, const double *actions) {
  return mdvec_step_typed(h, actions, MDVEC_DTYPE_F64);
}

/*---------------------------------- Physics state -------------------------------------------------*/

/* Return nonzero when sig names only known mjtState bits. */
static int valid_sig(unsigned int sig) {
  return sig < (1u << mjNSTATE);
}

size_t mdvec_state_size(const mdvec_t *h, unsigned int sig) {
  if (!h || !valid_sig(sig)) return 0;
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, 0), &m, &d);
  return (size_t)mj_stateSize(m, (int)sig);
}

/* mdvec_get_state inside enter/leave. */
static int get_state(mdvec_t *w, int i, unsigned int sig, double *state, size_t size) {
  const mdvec_t *h = w;
  if (i < 0 || i >= h->num_envs)
    return fail(w, MDVEC_ERR_ARG, "mdvec_get_state: env %d out of range [0, %d)", i, h->num_envs);
  if (!valid_sig(sig)) return fail(w, MDVEC_ERR_ARG, "mdvec_get_state: sig 0x%x has unknown mjtState bits", sig);
  if (!state) return fail(w, MDVEC_ERR_ARG, "mdvec_get_state: state is NULL");
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  size_t need = (size_t)mj_stateSize(m, (int)sig);
  if (size < need) return fail(w, MDVEC_ERR_ARG, "mdvec_get_state: size %zu, need %zu doubles", size, need);
  mj_getState(m, d, state, (int)sig);
  return MDVEC_OK;
}

int mdvec_get_state(const mdvec_t *h, int i, unsigned int sig, double *state, size_t size) {
  if (!h) return MDVEC_ERR_ARG;
  mdvec_t *w = (mdvec_t *)h; /* the message and the busy flag are the only things written */
  int code = enter(w, "mdvec_get_state");
  return code ? code : leave(w, get_state(w, i, sig, state, size));
}

/*---------------------------------- State in and out (1.4) ---------------------------------------*/

/* mdvec_set_state's arguments, for the trapped part. */
typedef struct set_state_arg_ {
  unsigned int sig;
  const double *state;
} set_state_arg;

/* Run job on env i on the calling thread with MuJoCo errors trapped: an error stops the env (failed, counted,
 * message kept; no result buffer changes) and returns MDVEC_ERR_PHYSICS naming it. */
static int trapped_here(mdvec_t *h, int i, const char *call, env_job job, const void *arg) {
  int ok = run_trapped(h, i, job, arg, 0);
  if (ok) return MDVEC_OK;
  return fail(h, MDVEC_ERR_PHYSICS, "%s: MuJoCo error in env %d (stopped; reset it): %s", call, i, h->slots[i].error);
}

/* mj_setState, then what the reference runs after its set_state: mj_forward; then the task drops what it
 * derived from the old physics. */
static void set_state_job(mdvec_t *h, int i, const void *arg) {
  const set_state_arg *a = arg;
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  mj_setState(m, d, a->state, (int)a->sig);
  mj_forward(m, d);
  if (h->task->state_changed) h->task->state_changed(env_at(h, i));
}

/* mdvec_set_state inside enter/leave. */
static int set_state(mdvec_t *h, int i, unsigned int sig, const double *state, size_t size) {
  if (i < 0 || i >= h->num_envs)
    return fail(h, MDVEC_ERR_ARG, "mdvec_set_state: env %d out of range [0, %d)", i, h->num_envs);
  if (!valid_sig(sig)) return fail(h, MDVEC_ERR_ARG, "mdvec_set_state: sig 0x%x has unknown mjtState bits", sig);
  if (!state && size) return fail(h, MDVEC_ERR_ARG, "mdvec_set_state: state is NULL");
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  size_t need = (size_t)mj_stateSize(m, (int)sig);
  if (size != need)
    return fail(h, MDVEC_ERR_ARG, "mdvec_set_state: size %zu, but sig 0x%x needs exactly %zu doubles", size, sig, need);
  for (size_t k = 0; k < size; k++)
    if (!isfinite(state[k]))
      return fail(h, MDVEC_ERR_ARG, "mdvec_set_state: state[%zu] is %g; every value must be finite", k, state[k]);
  set_state_arg arg = {sig, state};
  return trapped_here(h, i, "mdvec_set_state", set_state_job, &arg);
}

int mdvec_set_state(mdvec_t *h, int i, unsigned int sig, const double *state, size_t size) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_set_state");
  return code ? code : leave(h, set_state(h, i, sig, state, size));
}

/* mj_copyData into the caller's mjData (arg). */
static void copy_data_job(mdvec_t *h, int i, const void *arg) {
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  mj_copyData((mjData *)arg, m, d);
}

/* mdvec_copy_data inside enter/leave. */
static int copy_data(mdvec_t *h, int i, void *dst) {
  if (i < 0 || i >= h->num_envs)
    return fail(h, MDVEC_ERR_ARG, "mdvec_copy_data: env %d out of range [0, %d)", i, h->num_envs);
  if (!dst) return fail(h, MDVEC_ERR_ARG, "mdvec_copy_data: the destination mjData is NULL");
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  const mjData *t = dst;
  if (t->nbuffer != d->nbuffer || t->narena != d->narena || t->nplugin != d->nplugin)
    return fail(h, MDVEC_ERR_ARG,
                "mdvec_copy_data: the destination mjData was made for another model (buffer %zu bytes, arena %zu, "
                "%d plugins; env %d's: %zu, %zu, %d): make it with mj_makeData of this env's model "
                "(mdvec_save_model)",
                (size_t)t->nbuffer, (size_t)t->narena, t->nplugin, i, (size_t)d->nbuffer, (size_t)d->narena,
                d->nplugin);
  /* env i's own data is only read: a MuJoCo error here (none is known) stops nothing but this call */
  mdv_trap trap;
  mdv_trap_begin(&trap);
  volatile int ok = 1;
  if (setjmp(trap.env) == 0) {
    copy_data_job(h, i, dst);
  } else {
    ok = 0;
  }
  mdv_trap_end(&trap);
  return ok ? MDVEC_OK : fail(h, MDVEC_ERR_PHYSICS, "mdvec_copy_data: MuJoCo error: %s", trap.message);
}

int mdvec_copy_data(const mdvec_t *h, int i, void *mjdata_dst) {
  if (!h) return MDVEC_ERR_ARG;
  mdvec_t *w = (mdvec_t *)h; /* the message and the busy flag are the only things written */
  int code = enter(w, "mdvec_copy_data");
  return code ? code : leave(w, copy_data(w, i, mjdata_dst));
}

/* mdvec_save_model inside enter/leave. */
static int save_model(mdvec_t *h, int i, void *buf, size_t size, size_t *needed) {
  if (i < 0 || i >= h->num_envs)
    return fail(h, MDVEC_ERR_ARG, "mdvec_save_model: env %d out of range [0, %d)", i, h->num_envs);
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, i), &m, &d);
  mdv_trap trap;
  mdv_trap_begin(&trap);
  volatile int ok = 1;
  volatile size_t need = 0;
  if (setjmp(trap.env) == 0) {
    need = (size_t)mj_sizeModel(m);
    if (needed) *needed = need;
    if (buf && size >= need) mj_saveModel(m, NULL, buf, (mjtSize)size);
  } else {
    ok = 0;
  }
  mdv_trap_end(&trap);
  if (!ok) return fail(h, MDVEC_ERR_PHYSICS, "mdvec_save_model: MuJoCo error: %s", trap.message);
  if (buf && size < need)
    return fail(h, MDVEC_ERR_ARG, "mdvec_save_model: size %zu, env %d's model needs %zu bytes", size, i, (size_t)need);
  return MDVEC_OK;
}

int mdvec_save_model(const mdvec_t *h, int i, void *buf, size_t size, size_t *needed) {
  if (!h) return MDVEC_ERR_ARG;
  mdvec_t *w = (mdvec_t *)h; /* the message and the busy flag are the only things written */
  int code = enter(w, "mdvec_save_model");
  return code ? code : leave(w, save_model(w, i, buf, size, needed));
}

/*---------------------------------- Snapshots (1.4) -----------------------------------------------*/
/* A blob (docs/state.md): a header of SNAP_HEADER bytes (8-byte fields: magic, format, header size, library
 * and MuJoCo versions, total size, the task's name in 64 bytes, the fingerprint of the options, N, T,
 * autoreset, on_error, obs_dim, obs_dtype, act_dim, n_info, then the checksum of everything else), then the
 * body: one hash per task option (to name the one that differs), each env's generic bookkeeping, the result
 * buffers, and per env its mjData and the task's own state. */

#define SNAP_MAGIC   "MDVECSNP"
#define SNAP_FORMAT  1
#define SNAP_TASK    64 /* bytes of the task's name in the header */
#define SNAP_HEADER  (16 * 8 + SNAP_TASK)
#define SNAP_SUM_AT  (SNAP_HEADER - 8) /* the checksum: the header's last field */
#define SNAP_ERR_MAX 511               /* longest env error text (mdv_slot.error holds it with its NUL) */

/* Return the hash of option k's resolved value (its name, type and value; not whether it was given). */
static uint64_t option_hash(const mdvec_t *h, int k) {
  const mdv_option_decl *o = &h->task->options[k];
  const mdv_value *v = &h->opts[k];
  uint64_t x = mdv_hash(MDV_HASH_SEED, o->name, strlen(o->name) + 1);
  int64_t ints[4] = {o->type, v->i[0], v->i[1], v->kind};
  x = mdv_hash(x, ints, sizeof ints);
  x = mdv_hash(x, v->d, sizeof v->d);
  x = v->s ? mdv_hash(x, v->s, strlen(v->s) + 1) : mdv_hash(x, "\377unset", 6);
  return mdv_hash_end(x);
}

/* Write option k's value as text (for a message). */
static void option_text(const mdvec_t *h, int k, char *out, size_t n) {
  const mdv_value *v = &h->opts[k];
  switch (h->task->options[k].type) {
    case MDVEC_OPT_INT:
    case MDVEC_OPT_BOOL:
      snprintf(out, n, "%lld", (long long)v->i[0]);
      break;
    case MDVEC_OPT_DOUBLE:
      snprintf(out, n, "%.17g", v->d[0]);
      break;
    case MDVEC_OPT_RANGE:
      snprintf(out, n, "%.17g,%.17g", v->d[0], v->d[1]);
      break;
    case MDVEC_OPT_IRANGE:
      snprintf(out, n, "%lld,%lld", (long long)v->i[0], (long long)v->i[1]);
      break;
    default:
      snprintf(out, n, "'%.120s'", v->s ? v->s : "(unset)");
  }
}

/* Return the fingerprint of everything a restore must match besides N: every option's value, the autoreset
 * and error modes, numpy's dot for a task that reproduces it, and the sizes of the model (env 0's). */
static uint64_t fingerprint(const mdvec_t *h) {
  uint64_t x = MDV_HASH_SEED;
  for (int k = 0; k < h->task->n_options; k++) {
    uint64_t o = option_hash(h, k);
    x = mdv_hash(x, &o, sizeof o);
  }
  int64_t modes[4] = {h->autoreset, h->on_error, -1, -1};
  if (h->task->flags & MDVEC_TASK_NUMPY_DOT) {
    modes[2] = h->dot.mode;
    modes[3] = h->dot.dgemv || h->dot.dgemv64;
  }
  x = mdv_hash(x, modes, sizeof modes);
  const mjModel *m;
  mjData *d;
  h->task->physics(env_at(h, 0), &m, &d);
#define X(name)                    \
  {                                \
    int64_t v_ = (int64_t)m->name; \
    x = mdv_hash(x, &v_, 8);       \
  }
  MJMODEL_SIZES
#undef X
  x = mdv_hash(x, &h->spec.dt, sizeof h->spec.dt);
  return mdv_hash_end(x);
}

/* Write (or count) the blob's header, its checksum left 0. */
static void snap_header(const mdvec_t *h, mdv_blob *b, uint64_t total) {
  char task[SNAP_TASK];
  memset(task, 0, sizeof task);
  snprintf(task, sizeof task, "%s", h->task->name);
  mdv_put(b, SNAP_MAGIC, 8);
  mdv_put_u64(b, SNAP_FORMAT);
  mdv_put_u64(b, SNAP_HEADER);
  mdv_put_u64(b, (uint64_t)MDVEC_VERSION_NUMBER);
  mdv_put_u64(b, (uint64_t)mj_version());
  mdv_put_u64(b, total);
  mdv_put(b, task, sizeof task);
  mdv_put_u64(b, fingerprint(h));
  int64_t dims[8] = {h->num_envs,     h->threads,        h->autoreset,    h->on_error,
                     h->spec.obs_dim, h->spec.obs_dtype, h->spec.act_dim, h->spec.n_info};
  for (int k = 0; k < 8; k++) mdv_put_i64(b, dims[k]);
  mdv_put_u64(b, 0); /* the checksum, filled last */
}

/* Bytes of the result buffers: obs, final obs, rewards, five flag rows, step and reset info. */
static size_t flags_bytes(const mdvec_t *h) {
  return (size_t)h->num_envs;
}
static size_t info_bytes(const mdvec_t *h) {
  return sizeof(double) * (size_t)h->num_envs * (size_t)h->spec.n_info;
}

/* Write (or count) the body. */
static void snap_body(const mdvec_t *h, mdv_blob *b) {
  size_t n = (size_t)h->num_envs;
  mdv_put_u64(b, (uint64_t)h->task->n_options);
  for (int k = 0; k < h->task->n_options; k++) mdv_put_u64(b, option_hash(h, k));
  for (size_t i = 0; i < n; i++) { /* the generic bookkeeping */
    const mdv_slot *s = &h->slots[i];
    mdv_pcg64_save(&s->rng, b);
    int64_t flags[3] = {s->reset_done, s->failed, s->pending};
    for (int k = 0; k < 3; k++) mdv_put_i64(b, flags[k]);
    mdv_put_u64(b, s->errors);
    mdv_put_u64(b, h->warnings[i]);
    size_t len = strnlen(s->error, SNAP_ERR_MAX);
    mdv_put_u64(b, len);
    mdv_put(b, s->error, len);
  }
  mdv_put(b, h->obs, n * h->obs_row); /* the results of the last call */
  mdv_put(b, h->final_obs, n * h->obs_row);
  mdv_put(b, h->reward, sizeof(double) * n);
  const uint8_t *rows[5] = {h->terminated, h->truncated, h->done, h->reset_flags, h->error_flags};
  for (int k = 0; k < 5; k++) mdv_put(b, rows[k], flags_bytes(h));
  if (h->spec.n_info > 0) {
    mdv_put(b, h->info, info_bytes(h));
    mdv_put(b, h->reset_info, info_bytes(h));
  }
  for (size_t i = 0; i < n; i++) { /* each env's physics and its task's own state */
    const mjModel *m;
    mjData *d;
    h->task->physics(env_at(h, (int)i), &m, &d);
    mdv_data_save(m, d, b);
    if (h->task->save) h->task->save(env_at(h, (int)i), b);
  }
}

/* Read the body: check it (apply 0) or load it (apply 1, after a check passed). */
static void snap_read(mdvec_t *h, mdv_blob *b, int apply) {
  size_t n = (size_t)h->num_envs;
  if (mdv_get_u64(b) != (uint64_t)h->task->n_options && !b->bad)
    mdv_blob_fail(b, "the snapshot's task has another number of options");
  for (int k = 0; k < h->task->n_options; k++) mdv_get(b, NULL, 8);
  for (size_t i = 0; i < n && !b->bad; i++) {
    mdv_slot *s = &h->slots[i];
    mdv_pcg64_load(&s->rng, b, apply);
    int reset_done = (int)mdv_get_range(b, 0, 1, "an env's reset flag");
    int failed = (int)mdv_get_range(b, 0, 1, "an env's failed flag");
    int pending = (int)mdv_get_range(b, 0, h->autoreset == MDVEC_AUTORESET_NEXT_STEP, "an env's pending reset");
    uint64_t errors = mdv_get_u64(b), warnings = mdv_get_u64(b);
    size_t len = (size_t)mdv_get_range(b, 0, SNAP_ERR_MAX, "an env's error message length");
    size_t at = b->at;
    mdv_get(b, NULL, len);
    if (b->bad) break;
    if (memchr(b->in + at, 0, len)) {
      mdv_blob_fail(b, "env %zu's error message holds a NUL byte", i);
      break;
    }
    if (apply) {
      s->reset_done = reset_done;
      s->failed = failed;
      s->pending = pending;
      s->in_step = 0;
      s->errors = errors;
      h->warnings[i] = warnings;
      memcpy(s->error, b->in + at, len);
      s->error[len] = 0;
    }
  }
  mdv_get(b, apply ? h->obs : NULL, n * h->obs_row);
  mdv_get(b, apply ? h->final_obs : NULL, n * h->obs_row);
  mdv_get(b, apply ? h->reward : NULL, sizeof(double) * n);
  uint8_t *rows[5] = {h->terminated, h->truncated, h->done, h->reset_flags, h->error_flags};
  for (int k = 0; k < 5; k++) {
    size_t at = b->at;
    if (mdv_get(b, NULL, flags_bytes(h))) break;
    for (size_t i = 0; i < n; i++)
      if (b->in[at + i] > 1) {
        mdv_blob_fail(b, "a flag of env %zu is %d, not 0 or 1", i, b->in[at + i]);
        break;
      }
    if (apply && !b->bad) memcpy(rows[k], b->in + at, n);
  }
  for (size_t i = 0; i < n && !b->bad; i++) { /* terminated, truncated, done: done is their or */
    const unsigned char *flags = b->in + b->at - 5 * n;
    if (flags[2 * n + i] != (flags[i] | flags[n + i]))
      mdv_blob_fail(b, "env %zu's done flag is not terminated | truncated", i);
  }
  if (h->spec.n_info > 0) {
    mdv_get(b, apply ? h->info : NULL, info_bytes(h));
    mdv_get(b, apply ? h->reset_info : NULL, info_bytes(h));
  }
  for (size_t i = 0; i < n && !b->bad; i++) {
    const mjModel *m;
    mjData *d;
    h->task->physics(env_at(h, (int)i), &m, &d);
    size_t at = b->at;
    mdv_data_load(m, d, b, apply);
    if (h->task->load) h->task->load(env_at(h, (int)i), b, apply);
    if (b->bad) { /* name the env in the message */
      char msg[sizeof b->msg];
      snprintf(msg, sizeof msg, "env %zu (its state from byte %zu): %.200s", i, at, b->msg);
      memcpy(b->msg, msg, sizeof msg);
    }
  }
}

/* Write (buf NULL: count) the whole blob; return its size, or 0 with the reason in *why. */
static size_t snap_write(const mdvec_t *h, unsigned char *buf, const char **why) {
  for (int i = 0; i < h->num_envs; i++) {
    const mjModel *m;
    mjData *d;
    h->task->physics(env_at(h, i), &m, &d);
    if (!mdv_data_savable(d)) {
      *why = "the model has plugin instances, whose data are pointers of this process";
      return 0;
    }
  }
  mdv_blob b;
  memset(&b, 0, sizeof b);
  b.out = buf;
  snap_header(h, &b, 0);
  snap_body(h, &b);
  if (b.bad) {
    *why = "out of memory";
    return 0;
  }
  size_t total = b.at;
  if (buf) { /* the total size and the checksum */
    memcpy(buf + 5 * 8, &(uint64_t){total}, 8);
    uint64_t sum =
      mdv_hash_end(mdv_hash(mdv_hash(MDV_HASH_SEED, buf, SNAP_SUM_AT), buf + SNAP_HEADER, total - SNAP_HEADER));
    memcpy(buf + SNAP_SUM_AT, &sum, 8);
  }
  return total;
}

size_t mdvec_snapshot_size(const mdvec_t *h) {
  if (!h) return 0;
  mdvec_t *w = (mdvec_t *)h; /* the message and the busy flag are the only things written */
  if (enter(w, "mdvec_snapshot_size")) return 0;
  const char *why = "";
  size_t size = snap_write(h, NULL, &why);
  if (!size) fail(w, MDVEC_ERR_STATE, "mdvec_snapshot_size: cannot snapshot: %s", why);
  leave(w, MDVEC_OK);
  return size;
}

/* mdvec_snapshot inside enter/leave. */
static int snapshot(mdvec_t *h, void *buf, size_t size) {
  if (!buf) return fail(h, MDVEC_ERR_ARG, "mdvec_snapshot: buf is NULL");
  const char *why = "";
  size_t need = snap_write(h, NULL, &why);
  if (!need) return fail(h, MDVEC_ERR_STATE, "mdvec_snapshot: cannot snapshot: %s", why);
  if (size < need)
    return fail(h, MDVEC_ERR_ARG, "mdvec_snapshot: size %zu, the snapshot needs %zu bytes (mdvec_snapshot_size)", size,
                need);
  snap_write(h, buf, &why);
  return MDVEC_OK;
}

int mdvec_snapshot(const mdvec_t *h, void *buf, size_t size) {
  if (!h) return MDVEC_ERR_ARG;
  mdvec_t *w = (mdvec_t *)h; /* the message and the busy flag are the only things written */
  int code = enter(w, "mdvec_snapshot");
  return code ? code : leave(w, snapshot(w, buf, size));
}

/* Return the header's 8-byte field k. */
static uint64_t header_u64(const unsigned char *p, int k) {
  uint64_t v;
  memcpy(&v, p + 8 * k, 8);
  return v;
}

/* Check the header against h; return MDVEC_OK or MDVEC_ERR_ARG with the reason. */
static int snap_check_header(mdvec_t *h, const unsigned char *p, size_t size) {
#define REFUSE(...) return fail(h, MDVEC_ERR_ARG, "mdvec_restore: " __VA_ARGS__)
  if (size < 8 || memcmp(p, SNAP_MAGIC, 8)) REFUSE("not an mdvec snapshot (it does not start with \"" SNAP_MAGIC "\")");
  if (size < SNAP_HEADER) REFUSE("truncated: %zu bytes, shorter than a snapshot's header (%d)", size, SNAP_HEADER);
  if (header_u64(p, 1) != SNAP_FORMAT || header_u64(p, 2) != SNAP_HEADER)
    REFUSE("snapshot format %llu (header %llu bytes); this library reads format %d",
           (unsigned long long)header_u64(p, 1), (unsigned long long)header_u64(p, 2), SNAP_FORMAT);
  if (header_u64(p, 5) != size)
    REFUSE("truncated or extended: the snapshot is %llu bytes, %zu were given", (unsigned long long)header_u64(p, 5),
           size);
  uint64_t sum = mdv_hash_end(mdv_hash(mdv_hash(MDV_HASH_SEED, p, SNAP_SUM_AT), p + SNAP_HEADER, size - SNAP_HEADER));
  if (sum != header_u64(p, SNAP_SUM_AT / 8)) REFUSE("corrupted: its checksum does not match its bytes");
  uint64_t lib = header_u64(p, 3), mj = header_u64(p, 4);
  if (lib != (uint64_t)MDVEC_VERSION_NUMBER)
    REFUSE(
      "made by libmdvec %llu.%llu.%llu; this is %d.%d.%d (a snapshot is restored by the library version "
      "that made it)",
      (unsigned long long)lib / 10000, (unsigned long long)lib / 100 % 100, (unsigned long long)lib % 100,
      MDVEC_VERSION_MAJOR, MDVEC_VERSION_MINOR, MDVEC_VERSION_PATCH);
  if (mj != (uint64_t)mj_version())
    REFUSE("made on MuJoCo %llu; this library runs MuJoCo %d (mjData differs between releases)", (unsigned long long)mj,
           mj_version());
  char task[SNAP_TASK + 1];
  memcpy(task, p + 6 * 8, SNAP_TASK);
  task[SNAP_TASK] = 0;
  if (strcmp(task, h->task->name)) REFUSE("a snapshot of task '%s'; this env runs '%s'", task, h->task->name);
  int64_t dims[8];
  for (int k = 0; k < 8; k++) dims[k] = (int64_t)header_u64(p, 7 + SNAP_TASK / 8 + k);
  if (dims[0] != h->num_envs) REFUSE("a snapshot of %lld envs; this env has %d", (long long)dims[0], h->num_envs);
  if (dims[2] != h->autoreset)
    REFUSE("a snapshot with autoreset mode %lld; this env's is %d", (long long)dims[2], h->autoreset);
  if (dims[3] != h->on_error)
    REFUSE("a snapshot with on_error %lld; this env's is %d", (long long)dims[3], h->on_error);
  if (header_u64(p, 6 + SNAP_TASK / 8) != fingerprint(h)) {
    mdv_blob b = {.in = p, .size = size, .at = SNAP_HEADER};
    uint64_t count = mdv_get_u64(&b);
    for (int k = 0; count == (uint64_t)h->task->n_options && k < h->task->n_options && !b.bad; k++)
      if (mdv_get_u64(&b) != option_hash(h, k)) {
        char value[160];
        option_text(h, k, value, sizeof value);
        REFUSE("a snapshot made with another value of option '%s' (this env's is %s)", h->task->options[k].name, value);
      }
    REFUSE("a snapshot made with other options (the model's sizes or numpy's dot differ)");
  }
  return MDVEC_OK;
#undef REFUSE
}

/* mdvec_restore inside enter/leave. */
static int restore(mdvec_t *h, const void *buf, size_t size) {
  if (!buf) return fail(h, MDVEC_ERR_ARG, "mdvec_restore: buf is NULL");
  const unsigned char *p = buf;
  int code = snap_check_header(h, p, size);
  if (code) return code;
  mdv_blob b = {.in = p, .size = size, .at = SNAP_HEADER};
  snap_read(h, &b, 0); /* everything checked before anything changes */
  if (!b.bad && b.at != size) mdv_blob_fail(&b, "%zu bytes past the snapshot's end", size - b.at);
  if (b.bad) return fail(h, MDVEC_ERR_ARG, "mdvec_restore: %s", b.msg);
  b.at = SNAP_HEADER;
  snap_read(h, &b, 1);
  if (b.bad) /* cannot happen: the same bytes passed the check */
    return fail(h, MDVEC_ERR_STATE, "mdvec_restore: %s (the envs are in an undefined state: reset them)", b.msg);
  return MDVEC_OK;
}

int mdvec_restore(mdvec_t *h, const void *buf, size_t size) {
  if (!h) return MDVEC_ERR_ARG;
  int code = enter(h, "mdvec_restore");
  return code ? code : leave(h, restore(h, buf, size));
}

/*---------------------------------- Lent to async.c (async.h) -------------------------------------*/

int mdv_api_enter(mdvec_t *h, const char *call) {
  return enter_call(h, call);
}

int mdv_api_leave(mdvec_t *h, int code) {
  return leave(h, code);
}

int mdv_api_fail(mdvec_t *h, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(h->errmsg, sizeof h->errmsg, fmt, ap);
  va_end(ap);
  return code;
}

mdv_async **mdv_api_async(mdvec_t *h) {
  return &h->async;
}

mdv_pool *mdv_api_pool(const mdvec_t *h) {
  return h->pool;
}

int mdv_api_num_envs(const mdvec_t *h) {
  return h->num_envs;
}

int mdv_api_act_dim(const mdvec_t *h) {
  return h->spec.act_dim;
}

int mdv_api_steppable(mdvec_t *h, int i, const char *call) {
  const mdv_slot *s = &h->slots[i];
  if (!s->reset_done) return fail(h, MDVEC_ERR_STATE, "%s: env %d was never reset; reset it first", call, i);
  if (s->failed)
    return fail(h, MDVEC_ERR_STATE, "%s: env %d stopped on a MuJoCo error (%s); reset it first", call, i, s->error);
  return MDVEC_OK;
}

int mdv_api_check_seed(mdvec_t *h, uint64_t seed, const char *call) {
  return check_seeds(h->task, call, seed, 1, h->errmsg, sizeof h->errmsg);
}

void mdv_api_step_env(mdvec_t *h, int i, const void *actions, int dtype, int thread) {
  const step_src src = {actions, dtype, thread};
  if (h->render) mdv_render_begin(h->render, thread);
  h->error_flags[i] = 0;
  if (!trapped(h, i, step_env, &src) && h->on_error == MDVEC_ON_ERROR_END_EPISODE) end_episode(h, i, thread);
  if (h->render) mdv_render_end(h->render, thread);
}

typedef struct seeded_ { /* mdv_api_reset_env's arguments */
  const uint64_t *seed;  /* the seed, or NULL: the env's generator goes on */
  int thread;            /* the pool thread it runs on, for the renderer */
} seeded;

/* Reset env i, first reseeded with the seed of arg (a seeded) when it has one. */
static void reset_env_seeded(mdvec_t *h, int i, const void *arg) {
  const seeded *a = arg;
  mdv_slot *s = &h->slots[i];
  if (a->seed) {
    mdv_pcg64_seed(&s->rng, *a->seed);
    if (h->task->seed) h->task->seed(env_at(h, i), *a->seed);
  }
  mdv_out out = reset_out(h, i);
  h->task->reset(env_at(h, i), &s->rng, &out);
  mark_reset(h, i);
  draw(h, a->thread, i, MDV_FRAME_RESET);
}

void mdv_api_reset_env(mdvec_t *h, int i, const uint64_t *seed, int thread) {
  const seeded arg = {seed, thread};
  h->reset_flags[i] = 0;
  h->error_flags[i] = 0;
  h->slots[i].failed = 0;
  if (h->render) mdv_render_begin(h->render, thread);
  trapped(h, i, reset_env_seeded, &arg);
  if (h->render) mdv_render_end(h->render, thread);
}

int mdv_api_errors(mdvec_t *h, const int32_t *ids, int n, const uint8_t *stepped, const char *call) {
  int failed = 0, first = -1;
  for (int j = 0; j < n; j++) { /* as physics_errors, over these envs */
    int i = ids[j];
    int stopped = h->error_flags[i] && h->slots[i].failed;
    if (stopped && stepped[i] && h->on_error == MDVEC_ON_ERROR_END_EPISODE && h->autoreset == MDVEC_AUTORESET_DISABLED)
      stopped = 0;
    if (stopped) {
      failed++;
      if (first < 0) first = i;
    }
  }
  if (!failed) return render_errors(h, MDVEC_OK);
  if (mdv_trap_is_nomem(h->slots[first].error))
    return fail(h, MDVEC_ERR_NOMEM, "%s: out of memory in env %d (%d env(s) stopped; reset them): %s", call, first,
                failed, h->slots[first].error);
  return fail(h, MDVEC_ERR_PHYSICS, "%s: MuJoCo error in env %d (%d env(s) stopped; reset them): %s", call, first,
              failed, h->slots[first].error);
}

/*---------------------------------- Pixel observations (render.c) ---------------------------------*/

int mdvec_pixel_option_count(void) {
  return mdv_pixel_option_count();
}

int mdvec_pixel_option(int k, mdvec_option_info_t *info) {
  return mdv_pixel_option(k, info);
}

int mdvec_pixels_info(const mdvec_t *h, mdvec_pixels_info_t *info) {
  if (!h || !info || info->struct_size < sizeof *info) return MDVEC_ERR_ARG;
  mdv_render_info(h->render, &h->px, info);
  info->struct_size = sizeof *info;
  return MDVEC_OK;
}

const uint8_t *mdvec_pixels(const mdvec_t *h) {
  return h ? mdv_render_pixels(h->render) : NULL;
}

const uint8_t *mdvec_final_pixels(const mdvec_t *h) {
  return h ? mdv_render_final_pixels(h->render) : NULL;
}

mdv_render *mdv_handle_render(const mdvec_t *h) {
  return h ? h->render : NULL;
}
