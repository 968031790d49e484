/* bench_c.c: mdvec_bench, the C benchmark of libmdvec.
 *
 * Modes (one per run):
 *   sweep      mdvec_step on each thread count of --threads, fixed-length windows, with a
 *              single-thread reference window before the sweep and after every row; the JSON is
 *              marked "unstable" when a reference drifts > 10% from the first and "trending" when
 *              the references move one way by > 4% across three consecutive windows.
 *   sustained  one thread count, --windows windows back to back: per-window rates and their median,
 *              with the same drift checks applied to the windows themselves.
 *   bare       the sweep's shape, but each env step is only the task's ctrl from the same actions,
 *              shoves drawn like the task's, and `substeps x mj_step` on the env's own mjModel/mjData copy (home keyframe reset
 *              every episode_len steps), on the bench's own crew of T threads (bench/crew.c: built
 *              like mdvec's pool, spin, then block), a contiguous block of envs per thread as mdvec
 *              assigns them (crew_share; env i always on the same thread), one crew run per vector
 *              step: the physics ceiling for the task. Public API only.
 *   compare    per thread count, one mdvec and one bare engine (same N, same actions, each its own
 *              action cursor) and --windows pairs of windows alternating mdvec, bare, mdvec, ... so
 *              drift biases both alike: per row each one's median, the medians of the per-pair
 *              ratios mdvec/bare (wall clock and per CPU-second) and each one's thread efficiency
 *              against its own T = 1 row; the drift checks run on each row's mdvec windows.
 *
 * A window is a fixed number of vector steps (--window-steps, or derived once per engine from
 * --window-seconds and the warmup's rate); its rate is env-steps per wall-clock second. Actions for
 * every mode are pre-generated (uniform in [-1, 1] or all zero) and cycled. Before running, the machine
 * is recorded (cores, load, CPU model, governor, versions, date, build flags) and suspicious
 * conditions become entries of the JSON's "warnings" list. The JSON goes to --out (default
 * bench/results/c_<mode>_<timestamp>.json), a table to stdout and a line per window to stderr.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include <mdvec.h>

#include "crew.h"

/*---------------------------------- Build-time facts ----------------------------------------------*/

#ifndef MDVEC_BENCH_MODEL
#define MDVEC_BENCH_MODEL "libmdvec/models/duck.xml" /* the built-in duck's MJCF, for bare mode */
#endif
#ifndef MDVEC_BENCH_RESULTS
#define MDVEC_BENCH_RESULTS "bench/results" /* where the JSON goes by default */
#endif
#ifndef MDVEC_BENCH_BUILD
#define MDVEC_BENCH_BUILD "unknown" /* compiler and flags, as meson saw them */
#endif

/*---------------------------------- Limits and thresholds -----------------------------------------*/

#define BENCH_MAX_ROWS       32               /* thread counts in one sweep */
#define BENCH_MAX_THREADS    CREW_MAX_THREADS /* threads of one engine (the crew's bound) */
#define BENCH_MAX_WINDOWS    10000            /* windows per row */
#define BENCH_MAX_WARNINGS   32               /* entries of the warnings list */
#define BENCH_WARNING_LEN    256              /* characters per warning */
#define BENCH_ACTION_BATCHES 64               /* distinct pre-generated (N x nu) action batches, cycled */
#define BENCH_UNSTABLE       0.10             /* a reference this far from the first marks the run unstable */
#define BENCH_TREND          0.04             /* three windows moving one way this far mark it trending */
#define BENCH_LOAD_FRACTION  0.5              /* warn when the 1-minute load average exceeds this x cores */

/*---------------------------------- Options -------------------------------------------------------*/

typedef enum bench_mode_ { MODE_SWEEP, MODE_SUSTAINED, MODE_BARE, MODE_COMPARE } bench_mode;

typedef struct bench_opts_ {   /* the command line */
  bench_mode mode;             /* what to run */
  int threads[BENCH_MAX_ROWS]; /* (nthreads) thread counts, the caller included */
  int nthreads;                /* entries of threads; 0 until given or defaulted */
  int envs;                    /* N, envs per engine */
  int window_steps;            /* vector steps per window; 0: derive from window_seconds */
  double window_seconds;       /* target window length when window_steps is 0 */
  int windows;                 /* windows per row (sweep, bare), in all (sustained), pairs per row (compare) */
  int warmup_steps;            /* untimed vector steps before an engine's first window */
  int reference;               /* nonzero: single-thread reference windows (sweep, bare) */
  int random_actions;          /* nonzero: uniform actions in [-1, 1]; zero: all-zero */
  uint64_t seed;               /* env seed and action-generator seed */
  int allow_overcommit;        /* nonzero: keep thread counts above MDVEC_THREAD_BUDGET */
  const char *model;           /* MJCF path (NULL: built-in for mdvec, MDVEC_BENCH_MODEL bare) */
  const char *out;             /* JSON path (NULL: default under MDVEC_BENCH_RESULTS) */
} bench_opts;

static const char *mode_name(bench_mode mode) {
  static const char *names[] = {"sweep", "sustained", "bare", "compare"};
  return names[mode];
}

/* Return 1 when the mode runs single-thread reference windows (sweep and bare, unless turned off). */
static int with_reference(const bench_opts *o) {
  return o->reference && (o->mode == MODE_SWEEP || o->mode == MODE_BARE);
}

/*---------------------------------- Warnings ------------------------------------------------------*/

static char g_warnings[BENCH_MAX_WARNINGS][BENCH_WARNING_LEN];
static int g_nwarnings;

/* Record a warning for the JSON and echo it on stderr. */
static void warn(const char *fmt, ...) {
  char text[BENCH_WARNING_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(stderr, "warning: %s\n", text);
  if (g_nwarnings < BENCH_MAX_WARNINGS) {
    memcpy(g_warnings[g_nwarnings++], text, sizeof text);
  }
}

/*---------------------------------- Clocks and statistics -----------------------------------------*/

/* Return seconds on the given clock. */
static double clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Return the median of n values (n >= 1); values are not reordered. */
static double median(const double *values, int n) {
  double *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) return NAN;
  memcpy(sorted, values, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, compare_double);
  double m = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  free(sorted);
  return m;
}

/* Return the largest |r[i] / r[0] - 1| over n rates. */
static double max_drift(const double *r, int n) {
  double worst = 0;
  for (int i = 1; i < n; i++) worst = fmax(worst, fabs(r[i] / r[0] - 1));
  return worst;
}

/* Return 1 when three consecutive rates move one way by more than BENCH_TREND in all. */
static int is_trending(const double *r, int n) {
  for (int i = 0; i + 2 < n; i++) {
    double d1 = r[i + 1] - r[i], d2 = r[i + 2] - r[i + 1];
    if (d1 * d2 > 0 && fabs(r[i + 2] / r[i] - 1) > BENCH_TREND) return 1;
  }
  return 0;
}

/*---------------------------------- Machine facts -------------------------------------------------*/

typedef struct machine_ { /* what the machine looked like */
  long cores;             /* online CPUs (sysconf) */
  int cpus_allowed;       /* CPUs this process may run on (sched_getaffinity) */
  double load[3];         /* 1, 5, 15-minute load averages; -1 when unreadable */
  char cpu_model[256];    /* "model name" of /proc/cpuinfo, or "unknown" */
  char governor[64];      /* cpu0's scaling governor, or "unknown" */
  char date[32];          /* UTC, ISO 8601 */
  char stamp[32];         /* UTC, for file names: YYYYmmdd-HHMMSS */
} machine;

/* Copy the first line of a file into buf without its newline; return 0 when unreadable. */
static int read_line(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int ok = fgets(buf, (int)size, f) != NULL;
  fclose(f);
  if (ok) buf[strcspn(buf, "\n")] = 0;
  return ok;
}

/* Read the three load averages from /proc/loadavg (-1 each when unreadable). */
static void read_load(double load[3]) {
  char line[128];
  load[0] = load[1] = load[2] = -1;
  if (read_line("/proc/loadavg", line, sizeof line)) sscanf(line, "%lf %lf %lf", &load[0], &load[1], &load[2]);
}

/* Copy the CPU model name from /proc/cpuinfo into buf, or "unknown". */
static void read_cpu_model(char *buf, size_t size) {
  snprintf(buf, size, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && strncmp(line, "model name", 10) == 0) {
      char *value = colon + 1 + strspn(colon + 1, " \t");
      value[strcspn(value, "\n")] = 0;
      snprintf(buf, size, "%s", value);
      break;
    }
  }
  fclose(f);
}

/* Fill m with the machine's facts as they are now. */
static void read_machine(machine *m) {
  m->cores = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  m->cpus_allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)m->cores;
  read_load(m->load);
  read_cpu_model(m->cpu_model, sizeof m->cpu_model);
  if (!read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", m->governor, sizeof m->governor)) {
    snprintf(m->governor, sizeof m->governor, "unknown");
  }
  time_t now = time(NULL);
  struct tm utc;
  gmtime_r(&now, &utc);
  strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  strftime(m->stamp, sizeof m->stamp, "%Y%m%d-%H%M%S", &utc);
}

/* Warn about conditions that make the numbers less trustworthy. */
static void check_machine(const machine *m) {
  int cpus = m->cpus_allowed < m->cores ? m->cpus_allowed : (int)m->cores;
  if (m->load[0] > BENCH_LOAD_FRACTION * cpus) {
    warn("load average %.2f is above %.1f x %d CPUs: other work shares the machine", m->load[0], BENCH_LOAD_FRACTION,
         cpus);
  }
  if (strcmp(m->governor, "unknown") != 0 && strcmp(m->governor, "performance") != 0) {
    warn("CPU frequency governor is '%s', not 'performance': clocks may vary", m->governor);
  }
}

/*---------------------------------- Actions -------------------------------------------------------*/

/* Return the next value of a splitmix64 stream. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Return BENCH_ACTION_BATCHES batches of (envs x nu) actions: uniform in [-1, 1], or zeros. */
static double *make_actions(int envs, int nu, int random, uint64_t seed) {
  size_t count = (size_t)BENCH_ACTION_BATCHES * (size_t)envs * (size_t)nu;
  double *actions = calloc(count, sizeof *actions);
  if (!actions || !random) return actions;
  uint64_t state = seed;
  for (size_t k = 0; k < count; k++) {
    actions[k] = 2.0 * ((double)(splitmix64(&state) >> 11) * 0x1.0p-53) - 1.0;
  }
  return actions;
}

/*---------------------------------- Bare physics --------------------------------------------------*/

typedef struct bare_envs_ { /* N envs of plain physics, shared by every bare engine */
  int n;                    /* number of envs */
  int nu;                   /* actuators per env */
  int substeps;             /* mj_step calls per env step */
  int episode_len;          /* env steps between home resets */
  int home;                 /* keyframe id of "home" */
  double action_scale;      /* rad of servo target per unit action, as the task's */
  int n_pushes;             /* shoves per episode, as the task's */
  int push_window[2];       /* steps a shove may land on, as the task's */
  double push_speed[2];     /* shove speed range, as the task's */
  uint64_t *rng;            /* (n) per-env splitmix64 state for the shoves */
  int *push_steps;          /* (n x n_pushes) this episode's shove steps */
  double *push_vel;         /* (n x n_pushes x 2) this episode's shove velocities */
  const double *ctrl_home;  /* (nu) home ctrl, from the keyframe */
  const double *actions;    /* the step's (n x nu) actions, set before each crew run */
  mjModel **m;              /* (n) per-env model copies */
  mjData **d;               /* (n) per-env data */
  int *t;                   /* (n) steps since the env's last reset */
} bare_envs;

/* Return a uniform double in [0, 1) from a splitmix64 stream (the shoves need no numpy exactness). */
static double bare_uniform(uint64_t *state) {
  return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

/* Put env i in the home keyframe and draw its shoves like the task: same count, window and speeds. */
static void bare_reset(bare_envs *b, int i) {
  mj_resetDataKeyframe(b->m[i], b->d[i], b->home);
  mj_forward(b->m[i], b->d[i]);
  b->t[i] = 0;
  int span = b->push_window[1] - b->push_window[0];
  for (int k = 0; k < b->n_pushes; k++) {
    double speed = b->push_speed[0] + (b->push_speed[1] - b->push_speed[0]) * bare_uniform(&b->rng[i]);
    double theta = 2 * 3.141592653589793 * bare_uniform(&b->rng[i]);
    b->push_steps[i * b->n_pushes + k] = b->push_window[0] + (int)(span * bare_uniform(&b->rng[i]));
    b->push_vel[2 * (i * b->n_pushes + k)] = speed * cos(theta);
    b->push_vel[2 * (i * b->n_pushes + k) + 1] = speed * sin(theta);
  }
}

/* Free the envs; NULL is a no-op. */
static void bare_destroy(bare_envs *b) {
  if (!b) return;
  for (int i = 0; i < b->n; i++) {
    if (b->d) mj_deleteData(b->d[i]);
    if (b->m) mj_deleteModel(b->m[i]);
  }
  free(b->m);
  free(b->d);
  free(b->t);
  free(b->rng);
  free(b->push_steps);
  free(b->push_vel);
  free(b);
}

/* Load the model once, copy it and make data per env, reset every env; NULL with err on failure. */
static bare_envs *bare_create(const char *path, int n, const mdvec_config_t *cfg, char *err, size_t size) {
  char mjerr[1000] = "";
  mjModel *proto = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
  if (!proto) {
    snprintf(err, size, "bare: cannot load %s: %s", path, mjerr);
    return NULL;
  }
  bare_envs *b = calloc(1, sizeof *b);
  if (b) {
    b->m = calloc((size_t)n, sizeof *b->m);
    b->d = calloc((size_t)n, sizeof *b->d);
    b->t = calloc((size_t)n, sizeof *b->t);
    b->rng = calloc((size_t)n, sizeof *b->rng);
    b->push_steps = calloc((size_t)n * (size_t)(cfg->n_pushes + 1), sizeof *b->push_steps);
    b->push_vel = calloc((size_t)n * (size_t)(cfg->n_pushes + 1) * 2, sizeof *b->push_vel);
  }
  if (!b || !b->m || !b->d || !b->t || !b->rng || !b->push_steps || !b->push_vel) {
    snprintf(err, size, "bare: out of memory");
    bare_destroy(b);
    mj_deleteModel(proto);
    return NULL;
  }
  b->n = n;
  b->nu = proto->nu;
  b->substeps = cfg->substeps;
  b->episode_len = cfg->episode_len;
  b->action_scale = cfg->action_scale;
  b->n_pushes = cfg->n_pushes;
  b->push_window[0] = cfg->push_window[0];
  b->push_window[1] = cfg->push_window[1];
  b->push_speed[0] = cfg->push_speed[0];
  b->push_speed[1] = cfg->push_speed[1];
  b->home = mj_name2id(proto, mjOBJ_KEY, "home");
  if (b->home < 0) {
    snprintf(err, size, "bare: %s has no keyframe 'home'", path);
    bare_destroy(b);
    mj_deleteModel(proto);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    b->rng[i] = cfg->seed + (uint64_t)i;
    b->m[i] = mj_copyModel(NULL, proto);
    b->d[i] = b->m[i] ? mj_makeData(b->m[i]) : NULL;
    if (!b->d[i]) {
      snprintf(err, size, "bare: out of memory at env %d", i);
      bare_destroy(b);
      mj_deleteModel(proto);
      return NULL;
    }
    bare_reset(b, i);
  }
  b->ctrl_home = b->m[0]->key_ctrl + (size_t)b->home * b->nu;
  mj_deleteModel(proto);
  return b;
}

/* One thread's share of one bare vector step: the task's ctrl from the action, its shoves,
 * substeps x mj_step, a home reset when the episode ends (a crew_job). Each thread runs a contiguous
 * block of envs, as mdvec does. What it leaves out (observation, reward, the exact draws) is the task's own cost. */
static void bare_step_job(void *ctx, int thread, int threads) {
  bare_envs *b = ctx;
  int lo, hi;
  crew_share(b->n, thread, threads, &lo, &hi);
  for (int i = lo; i < hi; i++) {
    const double *a = b->actions + (size_t)i * b->nu;
    for (int k = 0; k < b->nu; k++) {
      double clipped = a[k] < -1.0 ? -1.0 : a[k] > 1.0 ? 1.0 : a[k];
      b->d[i]->ctrl[k] = b->ctrl_home[k] + b->action_scale * clipped;
    }
    for (int k = 0; k < b->n_pushes; k++) {
      if (b->push_steps[i * b->n_pushes + k] == b->t[i]) {
        b->d[i]->qvel[0] += b->push_vel[2 * (i * b->n_pushes + k)];
        b->d[i]->qvel[1] += b->push_vel[2 * (i * b->n_pushes + k) + 1];
      }
    }
    for (int k = 0; k < b->substeps; k++) mj_step(b->m[i], b->d[i]);
    if (++b->t[i] >= b->episode_len) bare_reset(b, i);
  }
}

/*---------------------------------- Engines -------------------------------------------------------*/

typedef struct engine_ { /* something that steps N envs on T threads */
  int threads;           /* T */
  int envs;              /* N */
  int window_steps;      /* vector steps per window of this engine */
  mdvec_t *env;          /* mdvec engine: the handle (NULL for bare) */
  const double *actions; /* mdvec engine: BENCH_ACTION_BATCHES x (N x nu) actions */
  int nu;                /* mdvec engine: actuators per env */
  long cursor;           /* mdvec engine: next action batch */
  bare_envs *bare;       /* bare engine: the shared envs (not owned) */
  crew *crew;            /* bare engine: its T threads */
} engine;

/* Make an mdvec engine of N envs on T threads, reset; 0, or an error with err filled. */
static int engine_mdvec(engine *e, const bench_opts *o, int threads, const double *actions, char *err, size_t size) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = o->envs;
  cfg.threads = threads;
  cfg.allow_overcommit = o->allow_overcommit;
  cfg.seed = o->seed;
  cfg.model_path = o->model;
  *e = (engine){.threads = threads, .envs = o->envs, .actions = actions};
  int code = mdvec_create(&e->env, &cfg, err, size);
  if (code != MDVEC_OK) return code;
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  mdvec_dims(e->env, &dims);
  e->nu = dims.nu;
  e->threads = dims.threads;
  code = mdvec_reset(e->env);
  if (code != MDVEC_OK) snprintf(err, size, "mdvec_reset: %s", mdvec_errmsg(e->env));
  return code;
}

/* Run `steps` vector steps; 0 or an error (message on stderr). */
static int engine_run(engine *e, int steps) {
  size_t batch = (size_t)e->envs * (size_t)e->nu;
  for (int s = 0; s < steps && e->bare; s++) {
    e->bare->actions = e->actions + batch * (size_t)(e->cursor++ % BENCH_ACTION_BATCHES);
    crew_run(e->crew, bare_step_job, e->bare);
  }
  for (int s = 0; s < steps && !e->bare; s++) {
    int code = mdvec_step(e->env, e->actions + batch * (size_t)(e->cursor++ % BENCH_ACTION_BATCHES));
    if (code != MDVEC_OK) {
      fprintf(stderr, "mdvec_step: %s\n", mdvec_errmsg(e->env));
      return code;
    }
  }
  return 0;
}

/* Free what the engine owns. */
static void engine_close(engine *e) {
  mdvec_destroy(e->env);
  crew_destroy(e->crew);
  e->env = NULL;
  e->crew = NULL;
}

/* Run the warmup and fix the engine's window length (from window_seconds when asked); 0 or error. */
static int engine_warmup(engine *e, const bench_opts *o) {
  double t0 = clock_seconds(CLOCK_MONOTONIC);
  int code = engine_run(e, o->warmup_steps);
  double dt = clock_seconds(CLOCK_MONOTONIC) - t0;
  e->window_steps = o->window_steps;
  if (e->window_steps == 0) {
    double per_step = dt / o->warmup_steps;
    e->window_steps = (int)ceil(o->window_seconds / (per_step > 0 ? per_step : 1e-9));
    if (e->window_steps < 1) e->window_steps = 1;
  }
  return code;
}

/*---------------------------------- Windows and rows ----------------------------------------------*/

typedef struct window_ { /* one timed window */
  int steps;             /* vector steps */
  double seconds;        /* wall-clock time */
  double cpu_seconds;    /* process CPU time (all threads) */
  double rate;           /* env-steps per second */
} window;

typedef struct row_ { /* every window of one thread count */
  int threads;        /* T */
  int nwindows;       /* entries of windows */
  window *windows;    /* (nwindows) */
  double median;      /* median rate */
  double median_cpu;  /* median env-steps per CPU-second (less sensitive to a busy machine) */
} row;

typedef struct pair_ { /* compare: the bare side of one row and what its pairs gave */
  row bare;            /* the bare engine's windows; window k is paired with the row's k */
  double ratio;        /* median over pairs of mdvec rate / bare rate (wall clock) */
  double ratio_cpu;    /* the same from env-steps per CPU-second */
  double drift;        /* largest |rate / first rate - 1| over the row's mdvec windows */
  int unstable;        /* drift > BENCH_UNSTABLE */
  int trending;        /* three consecutive mdvec windows move one way > BENCH_TREND */
} pair;

/* Return a window's env-steps per second of process CPU time. */
static double cpu_rate(const window *w) {
  return w->rate * w->seconds / w->cpu_seconds;
}

/* Time one window of the engine; 0 or an error. */
static int run_window(engine *e, window *w) {
  double c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID), t0 = clock_seconds(CLOCK_MONOTONIC);
  int code = engine_run(e, e->window_steps);
  double t1 = clock_seconds(CLOCK_MONOTONIC), c1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  *w = (window){e->window_steps, t1 - t0, c1 - c0, (double)e->window_steps * e->envs / (t1 - t0)};
  return code;
}

/* Print the progress line of window k (of n; n = 0 when open-ended) on stderr. */
static void progress(const char *label, int threads, int k, int n, const window *w) {
  char of[32] = "";
  if (n > 0) snprintf(of, sizeof of, "/%d", n);
  fprintf(stderr, "[%s] threads %d window %d%s: %.0f env-steps/s (%d steps, %.3f s, cpu/wall %.2f)\n", label, threads,
          k, of, w->rate, w->steps, w->seconds, w->cpu_seconds / w->seconds);
}

/* Make r an empty row of T threads with room for n windows; 0 or MDVEC_ERR_NOMEM. */
static int row_alloc(row *r, int threads, int n) {
  *r = (row){.threads = threads, .windows = calloc((size_t)n, sizeof *r->windows)};
  return r->windows ? 0 : MDVEC_ERR_NOMEM;
}

/* Set a row's median rate and median CPU rate from its windows (NAN when it has none). */
static void row_stats(row *r) {
  double *rates = malloc((size_t)(r->nwindows > 0 ? r->nwindows : 1) * sizeof *rates);
  r->median = r->median_cpu = NAN;
  if (rates && r->nwindows > 0) {
    for (int k = 0; k < r->nwindows; k++) rates[k] = r->windows[k].rate;
    r->median = median(rates, r->nwindows);
    for (int k = 0; k < r->nwindows; k++) rates[k] = cpu_rate(&r->windows[k]);
    r->median_cpu = median(rates, r->nwindows);
  }
  free(rates);
}

/* Run n windows into r (allocated here); 0 or an error. */
static int run_row(engine *e, int n, const char *label, row *r) {
  if (row_alloc(r, e->threads, n) != 0) return MDVEC_ERR_NOMEM;
  int code = 0;
  for (int k = 0; k < n && code == 0; k++) {
    code = run_window(e, &r->windows[k]);
    r->nwindows = k + 1;
    progress(label, e->threads, k + 1, n, &r->windows[k]);
  }
  row_stats(r);
  return code;
}

/* Return the ratio of pair k, mdvec over bare: of wall-clock rates, or of CPU rates when cpu. */
static double pair_ratio(const row *m, const pair *p, int k, int cpu) {
  const window *a = &m->windows[k], *b = &p->bare.windows[k];
  return cpu ? cpu_rate(a) / cpu_rate(b) : a->rate / b->rate;
}

/* Return the number of complete pairs of a compare row. */
static int pair_count(const row *m, const pair *p) {
  return m->nwindows < p->bare.nwindows ? m->nwindows : p->bare.nwindows;
}

/* Return the median of the row's pair ratios (wall clock, or CPU when cpu); NAN without pairs. */
static double pair_median(const row *m, const pair *p, int cpu) {
  int n = pair_count(m, p);
  double *ratios = malloc((size_t)(n > 0 ? n : 1) * sizeof *ratios);
  double result = NAN;
  if (ratios && n > 0) {
    for (int k = 0; k < n; k++) ratios[k] = pair_ratio(m, p, k, cpu);
    result = median(ratios, n);
  }
  free(ratios);
  return result;
}

/* Run n pairs of windows, mdvec then bare, into m and p->bare (allocated here); 0 or an error. */
static int run_pairs(engine *em, engine *eb, int n, row *m, pair *p) {
  if (row_alloc(m, em->threads, n) != 0 || row_alloc(&p->bare, eb->threads, n) != 0) return MDVEC_ERR_NOMEM;
  int code = 0;
  for (int k = 0; k < n && code == 0; k++) {
    code = run_window(em, &m->windows[k]);
    m->nwindows = k + 1;
    progress("compare mdvec", em->threads, k + 1, n, &m->windows[k]);
    if (code != 0) break;
    code = run_window(eb, &p->bare.windows[k]);
    p->bare.nwindows = k + 1;
    progress("compare bare", eb->threads, k + 1, n, &p->bare.windows[k]);
  }
  row_stats(m);
  row_stats(&p->bare);
  p->ratio = pair_median(m, p, 0);
  p->ratio_cpu = pair_median(m, p, 1);
  return code;
}

/*---------------------------------- Results -------------------------------------------------------*/

typedef struct results_ {          /* everything a run produced */
  row rows[BENCH_MAX_ROWS];        /* (nrows) one per thread count (compare: the mdvec engine's) */
  pair pairs[BENCH_MAX_ROWS];      /* compare: (nrows) the bare side and ratios of each row */
  int nrows;                       /* entries of rows */
  window refs[BENCH_MAX_ROWS + 1]; /* (nrefs) reference windows, T = 1, in time order */
  int nrefs;                       /* entries of refs */
  int ref_steps;                   /* vector steps per reference window */
  double drift;                    /* largest |ref / first ref - 1| (sustained: its windows; compare: worst row) */
  int unstable;                    /* drift > BENCH_UNSTABLE */
  int trending;                    /* three consecutive references move one way > BENCH_TREND */
  int substeps, episode_len;       /* the task shape the engines ran */
  machine before, after;           /* the machine at the start and at the end */
} results;

/* Apply the drift checks to n windows: the largest drift from the first, unstable, trending. */
static void window_drift(const window *w, int n, double *drift, int *unstable, int *trending) {
  double rates[BENCH_MAX_WINDOWS];
  if (n > BENCH_MAX_WINDOWS) n = BENCH_MAX_WINDOWS;
  for (int i = 0; i < n; i++) rates[i] = w[i].rate;
  *drift = n >= 2 ? max_drift(rates, n) : 0;
  *unstable = *drift > BENCH_UNSTABLE;
  *trending = is_trending(rates, n);
}

/* Compare mode: the drift checks on each row's mdvec windows; the run's flags are the worst row's. */
static void check_pair_drift(results *res) {
  for (int i = 0; i < res->nrows; i++) {
    pair *p = &res->pairs[i];
    window_drift(res->rows[i].windows, res->rows[i].nwindows, &p->drift, &p->unstable, &p->trending);
    res->drift = fmax(res->drift, p->drift);
    res->unstable |= p->unstable;
    res->trending |= p->trending;
    if (p->unstable)
      warn("unstable: an mdvec window at %d threads drifted %.1f%% from the row's first", res->rows[i].threads,
           100 * p->drift);
    if (p->trending)
      warn(
        "trending: the mdvec windows at %d threads moved one way by more than %.0f%% over three "
        "windows",
        res->rows[i].threads, 100 * BENCH_TREND);
  }
}

/* Compute the drift flags from the reference windows (sustained: the row's own windows; compare:
 * each row's mdvec windows). */
static void check_drift(results *res, bench_mode mode) {
  if (mode == MODE_COMPARE) {
    check_pair_drift(res);
    return;
  }
  const window *w = mode == MODE_SUSTAINED ? res->rows[0].windows : res->refs;
  int n = mode == MODE_SUSTAINED ? res->rows[0].nwindows : res->nrefs;
  if (n < 2) return;
  window_drift(w, n, &res->drift, &res->unstable, &res->trending);
  const char *what = mode == MODE_SUSTAINED ? "window rate" : "single-thread reference";
  if (res->unstable) warn("unstable: a %s drifted %.1f%% from the first", what, 100 * res->drift);
  if (res->trending)
    warn("trending: the %s moved one way by more than %.0f%% over three windows", what, 100 * BENCH_TREND);
}

/* Return the rate a row's speedup is measured against: the median of the references, or else
 * the median of the T = 1 row; 0 when neither exists. */
static double base_rate(const results *res) {
  if (res->nrefs > 0) {
    double rates[BENCH_MAX_ROWS + 1];
    for (int i = 0; i < res->nrefs; i++) rates[i] = res->refs[i].rate;
    return median(rates, res->nrefs);
  }
  for (int i = 0; i < res->nrows; i++) {
    if (res->rows[i].threads == 1) return res->rows[i].median;
  }
  return 0;
}

/* Return the bare engine's median at T = 1 in compare mode; 0 when T = 1 was not run. */
static double bare_base_rate(const results *res) {
  for (int i = 0; i < res->nrows; i++) {
    if (res->rows[i].threads == 1) return res->pairs[i].bare.median;
  }
  return 0;
}

/* Return the thread efficiency of a median rate at T threads: rate / (T x base); NAN without a base. */
static double efficiency(double rate, int threads, double base) {
  return base > 0 ? rate / base / threads : NAN;
}

/* Write s as a JSON string. */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

/* Write x with the given decimals, or null when it is not finite. */
static void json_number(FILE *f, double x, int decimals) {
  if (isfinite(x))
    fprintf(f, "%.*f", decimals, x);
  else
    fputs("null", f);
}

/* Write a window as a JSON object. */
static void json_window(FILE *f, const window *w) {
  fprintf(f, "{\"steps\": %d, \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"rate\": %.3f}", w->steps, w->seconds,
          w->cpu_seconds, w->rate);
}

/* Write the machine facts as a JSON object. */
static void json_machine(FILE *f, const machine *m) {
  fprintf(f, "{\"cores\": %ld, \"cpus_allowed\": %d, \"loadavg\": [%.2f, %.2f, %.2f], \"cpu_model\": ", m->cores,
          m->cpus_allowed, m->load[0], m->load[1], m->load[2]);
  json_string(f, m->cpu_model);
  fprintf(f, ", \"governor\": ");
  json_string(f, m->governor);
  fprintf(f, ", \"date\": ");
  json_string(f, m->date);
  fputc('}', f);
}

/* Write a row as a JSON object: medians, speedup and efficiency against base (when > 0), windows. */
static void json_row(FILE *f, const row *r, double base) {
  double speedup = base > 0 ? r->median / base : NAN;
  fprintf(f, "{\"threads\": %d, \"median_rate\": ", r->threads);
  json_number(f, r->median, 3);
  fprintf(f, ", \"median_cpu_rate\": ");
  json_number(f, r->median_cpu, 3);
  fprintf(f, ", ");
  if (isfinite(speedup)) fprintf(f, "\"speedup\": %.4f, \"efficiency\": %.4f, ", speedup, speedup / r->threads);
  fprintf(f, "\"windows\": [");
  for (int k = 0; k < r->nwindows; k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_window(f, &r->windows[k]);
  }
  fprintf(f, "]}");
}

/* Write the per-pair ratios of a compare row (wall clock, or CPU when cpu) as a JSON list. */
static void json_pair_ratios(FILE *f, const row *m, const pair *p, int cpu) {
  fputc('[', f);
  for (int k = 0; k < pair_count(m, p); k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_number(f, pair_ratio(m, p, k, cpu), 4);
  }
  fputc(']', f);
}

/* Write compare row i as a JSON object: ratios, the mdvec row's drift checks, both engines' rows. */
static void json_pair(FILE *f, const results *res, int i) {
  const row *m = &res->rows[i];
  const pair *p = &res->pairs[i];
  fprintf(f, "{\"threads\": %d, \"ratio_median\": ", m->threads);
  json_number(f, p->ratio, 4);
  fprintf(f, ", \"ratio_cpu_median\": ");
  json_number(f, p->ratio_cpu, 4);
  fprintf(f, ", \"pair_ratios\": ");
  json_pair_ratios(f, m, p, 0);
  fprintf(f, ", \"pair_ratios_cpu\": ");
  json_pair_ratios(f, m, p, 1);
  fprintf(f, ", \"drift\": %.4f, \"unstable\": %s, \"trending\": %s,\n     \"mdvec\": ", p->drift,
          p->unstable ? "true" : "false", p->trending ? "true" : "false");
  json_row(f, m, base_rate(res));
  fprintf(f, ",\n     \"bare\": ");
  json_row(f, &p->bare, bare_base_rate(res));
  fputc('}', f);
}

/* Return the JSON's "backend" string of a mode. */
static const char *backend_name(bench_mode mode) {
  return mode == MODE_BARE      ? "bare physics (task ctrl + shoves + substeps x mj_step on the bench's crew)"
         : mode == MODE_COMPARE ? "mdvec_step vs bare physics (task ctrl + shoves + substeps x mj_step on "
                                  "the bench's crew), alternating windows"
                                : "mdvec_step";
}

/* Write the whole run as JSON to path; 0 or -1. */
static int write_json(const char *path, const bench_opts *o, const results *res) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  double base = base_rate(res);
  fprintf(f, "{\n  \"tool\": \"mdvec_bench\",\n  \"mode\": \"%s\",\n", mode_name(o->mode));
  fprintf(f, "  \"backend\": ");
  json_string(f, backend_name(o->mode));
  fprintf(f, ",\n");
  fprintf(f, "  \"machine\": ");
  json_machine(f, &res->before);
  fprintf(f, ",\n  \"machine_after\": ");
  json_machine(f, &res->after);
  fprintf(f, ",\n  \"versions\": {\"mujoco\": ");
  json_string(f, mj_versionString());
  fprintf(f, ", \"mdvec\": %d, \"mdvec_mujoco\": %d},\n  \"build\": ", mdvec_version(), mdvec_mujoco_version());
  json_string(f, MDVEC_BENCH_BUILD);
  fprintf(f, ",\n  \"model\": ");
  json_string(f, o->model ? o->model : o->mode == MODE_BARE ? MDVEC_BENCH_MODEL : "built-in default");
  if (o->mode == MODE_COMPARE) {
    fprintf(f, ",\n  \"bare_model\": ");
    json_string(f, o->model ? o->model : MDVEC_BENCH_MODEL);
  }
  fprintf(f,
          ",\n  \"config\": {\"envs\": %d, \"window_steps\": %d, \"window_seconds\": %g, \"windows\": %d, "
          "\"warmup_steps\": %d, \"reference\": %s, \"actions\": \"%s\", \"seed\": %llu, "
          "\"substeps\": %d, \"episode_len\": %d},\n",
          o->envs, o->window_steps, o->window_steps ? 0.0 : o->window_seconds, o->windows, o->warmup_steps,
          with_reference(o) ? "true" : "false", o->random_actions ? "uniform[-1,1]" : "zero",
          (unsigned long long)o->seed, res->substeps, res->episode_len);
  fprintf(f, "  \"rows\": [");
  for (int i = 0; i < res->nrows; i++) {
    fprintf(f, "%s\n    ", i ? "," : "");
    if (o->mode == MODE_COMPARE)
      json_pair(f, res, i);
    else
      json_row(f, &res->rows[i], base);
  }
  fprintf(f, "\n  ],\n  \"reference\": {\"threads\": 1, \"steps\": %d, \"windows\": [", res->ref_steps);
  for (int k = 0; k < res->nrefs; k++) {
    fprintf(f, "%s", k ? ", " : "");
    json_window(f, &res->refs[k]);
  }
  fprintf(f, "]},\n  \"drift\": %.4f,\n  \"unstable\": %s,\n  \"trending\": %s,\n  \"warnings\": [", res->drift,
          res->unstable ? "true" : "false", res->trending ? "true" : "false");
  for (int k = 0; k < g_nwarnings; k++) {
    fprintf(f, "%s\n    ", k ? "," : "");
    json_string(f, g_warnings[k]);
  }
  fprintf(f, "%s]\n}\n", g_nwarnings ? "\n  " : "");
  return fclose(f) == 0 ? 0 : -1;
}

/* Print compare mode's rows on stdout: both medians, the ratio medians, both efficiencies. */
static void print_pairs(const results *res) {
  double base = base_rate(res), bare_base = bare_base_rate(res);
  printf("%8s %16s %16s %13s %17s %10s %10s\n", "threads", "mdvec median/s", "bare median/s", "ratio median",
         "ratio cpu median", "eff mdvec", "eff bare");
  for (int i = 0; i < res->nrows; i++) {
    const row *m = &res->rows[i];
    const pair *p = &res->pairs[i];
    double em = efficiency(m->median, m->threads, base), eb = efficiency(p->bare.median, m->threads, bare_base);
    printf("%8d %16.0f %16.0f %13.3f %17.3f ", m->threads, m->median, p->bare.median, p->ratio, p->ratio_cpu);
    if (isfinite(em) && isfinite(eb))
      printf("%10.2f %10.2f\n", em, eb);
    else
      printf("%10s %10s\n", "-", "-");
  }
}

/* Print the rows of sweep, sustained and bare on stdout: rates, speedup, efficiency, CPU use. */
static void print_rows(const results *res) {
  double base = base_rate(res);
  printf("%8s %14s %14s %14s %8s %10s %9s %14s\n", "threads", "median/s", "min/s", "max/s", "speedup", "efficiency",
         "cpu/wall", "per cpu-s");
  for (int i = 0; i < res->nrows; i++) {
    const row *r = &res->rows[i];
    double lo = INFINITY, hi = 0, cpu = 0, wall = 0;
    for (int k = 0; k < r->nwindows; k++) {
      lo = fmin(lo, r->windows[k].rate);
      hi = fmax(hi, r->windows[k].rate);
      cpu += r->windows[k].cpu_seconds;
      wall += r->windows[k].seconds;
    }
    printf("%8d %14.0f %14.0f %14.0f ", r->threads, r->median, lo, hi);
    if (base > 0)
      printf("%8.2f %10.2f", r->median / base, r->median / base / r->threads);
    else
      printf("%8s %10s", "-", "-");
    printf(" %9.2f %14.0f\n", cpu / wall, r->median_cpu);
  }
}

/* Print the readable table on stdout. */
static void print_table(const bench_opts *o, const results *res) {
  printf("mdvec_bench %s: %d envs, %s actions, MuJoCo %s, %ld cores, load %.2f\n", mode_name(o->mode), o->envs,
         o->random_actions ? "uniform[-1,1]" : "zero", mj_versionString(), res->before.cores, res->before.load[0]);
  if (o->mode == MODE_COMPARE)
    print_pairs(res);
  else
    print_rows(res);
  if (res->nrefs > 0) {
    printf("single-thread references (env-steps/s):");
    for (int k = 0; k < res->nrefs; k++) printf(" %.0f", res->refs[k].rate);
    printf("\n");
  }
  printf("drift %.1f%%%s%s%s; %d warning(s)\n", 100 * res->drift, o->mode == MODE_COMPARE ? " (mdvec windows)" : "",
         res->unstable ? ", UNSTABLE" : "", res->trending ? ", TRENDING" : "", g_nwarnings);
}

/*---------------------------------- Command line --------------------------------------------------*/

static void usage(FILE *f) {
  fprintf(f,
          "usage: mdvec_bench [--mode sweep|sustained|bare|compare] [options]\n"
          "  --threads LIST        thread counts, e.g. 1,2,4,8 (sweep, bare, compare; default 1,2,4,8 capped by\n"
          "                        MDVEC_THREAD_BUDGET and envs); sustained uses the first (default:\n"
          "                        min(cores, budget, envs))\n"
          "  --envs N              envs per engine (default 16)\n"
          "  --window-steps S      vector steps per window (default 50)\n"
          "  --window-seconds X    instead: size windows from the warmup's rate to last about X s\n"
          "  --windows K           windows per thread count (default 3; sustained: 20; compare: 10\n"
          "                        pairs of an mdvec and a bare window)\n"
          "  --warmup-steps S      untimed steps before an engine's first window (default 10)\n"
          "  --no-reference        skip the single-thread reference windows (sweep, bare)\n"
          "  --actions random|zero uniform actions in [-1,1] (default) or all zero\n"
          "  --seed S              env and action seed (default 0)\n"
          "  --allow-overcommit    keep thread counts above MDVEC_THREAD_BUDGET (%d)\n"
          "  --model PATH          MJCF (default: built-in duck; bare, and compare's bare side: %s)\n"
          "  --out PATH            JSON output (default %s/c_<mode>_<timestamp>.json)\n",
          MDVEC_THREAD_BUDGET, MDVEC_BENCH_MODEL, MDVEC_BENCH_RESULTS);
}

/* Parse "1,2,4" into o->threads; 0 or -1. */
static int parse_threads(const char *s, bench_opts *o) {
  o->nthreads = 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v <= 0 || v > BENCH_MAX_THREADS || o->nthreads == BENCH_MAX_ROWS) return -1;
    o->threads[o->nthreads++] = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return o->nthreads > 0 ? 0 : -1;
}

/* Parse a mode name into *mode; 0 or -1. */
static int parse_mode(const char *s, bench_mode *mode) {
  for (int m = MODE_SWEEP; m <= MODE_COMPARE; m++) {
    if (!strcmp(s, mode_name((bench_mode)m))) {
      *mode = (bench_mode)m;
      return 0;
    }
  }
  return -1;
}

/* Parse a positive int; 0 or -1. */
static int parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v <= 0 || v > 100000000) return -1;
  *out = (int)v;
  return 0;
}

/* Return 1 when a is an option that takes a value. */
static int takes_value(const char *a) {
  static const char *names[] = {"--mode",           "--threads", "--envs",         "--window-steps",
                                "--window-seconds", "--windows", "--warmup-steps", "--actions",
                                "--seed",           "--model",   "--out"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    if (!strcmp(a, names[k])) return 1;
  }
  return 0;
}

/* Fill o from argv; 0, 1 for --help, or -1 with a message on stderr. */
static int parse_args(int argc, char **argv, bench_opts *o) {
  *o = (bench_opts){.mode = MODE_SWEEP,
                    .envs = 16,
                    .window_steps = 50,
                    .windows = 0,
                    .warmup_steps = 10,
                    .reference = 1,
                    .random_actions = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = 0, used = 1;
    if (!strcmp(a, "-h") || !strcmp(a, "--help"))
      return 1;
    else if (!strcmp(a, "--no-reference"))
      o->reference = 0, used = 0;
    else if (!strcmp(a, "--allow-overcommit"))
      o->allow_overcommit = 1, used = 0;
    else if (!takes_value(a)) {
      fprintf(stderr, "mdvec_bench: unknown option %s\n", a);
      return -1;
    } else if (!v)
      bad = 1;
    else if (!strcmp(a, "--mode"))
      bad = parse_mode(v, &o->mode);
    else if (!strcmp(a, "--threads"))
      bad = parse_threads(v, o);
    else if (!strcmp(a, "--envs"))
      bad = parse_int(v, &o->envs);
    else if (!strcmp(a, "--window-steps"))
      bad = parse_int(v, &o->window_steps);
    else if (!strcmp(a, "--window-seconds")) {
      char *end;
      o->window_seconds = strtod(v, &end);
      o->window_steps = 0;
      bad = *end || !(o->window_seconds > 0);
    } else if (!strcmp(a, "--windows"))
      bad = parse_int(v, &o->windows);
    else if (!strcmp(a, "--warmup-steps"))
      bad = parse_int(v, &o->warmup_steps);
    else if (!strcmp(a, "--actions")) {
      bad = strcmp(v, "random") && strcmp(v, "zero");
      o->random_actions = !strcmp(v, "random");
    } else if (!strcmp(a, "--seed"))
      o->seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--model"))
      o->model = v;
    else if (!strcmp(a, "--out"))
      o->out = v;
    if (bad) {
      fprintf(stderr, "mdvec_bench: bad or missing value for %s\n", a);
      return -1;
    }
    i += used;
  }
  if (o->windows == 0) o->windows = o->mode == MODE_SUSTAINED ? 20 : o->mode == MODE_COMPARE ? 10 : 3;
  if (o->windows > BENCH_MAX_WINDOWS) o->windows = BENCH_MAX_WINDOWS;
  return 0;
}

/* Settle the thread counts: defaults, then drop counts above envs or the budget, warn above the
 * usable CPUs (cores). */
static void settle_threads(bench_opts *o, long cores) {
  int given = o->nthreads > 0;
  if (!given && o->mode == MODE_SUSTAINED) {
    int t = (int)(cores < MDVEC_THREAD_BUDGET ? cores : MDVEC_THREAD_BUDGET);
    o->threads[0] = t < o->envs ? t : o->envs;
    o->nthreads = 1;
  } else if (!given) {
    int defaults[] = {1, 2, 4, 8};
    memcpy(o->threads, defaults, sizeof defaults);
    o->nthreads = 4;
  }
  if (o->mode == MODE_SUSTAINED && o->nthreads > 1) {
    warn("sustained mode runs one thread count: using %d, ignoring the rest", o->threads[0]);
    o->nthreads = 1;
  }
  int kept = 0;
  for (int i = 0; i < o->nthreads; i++) {
    int t = o->threads[i];
    if (t > o->envs)
      warn("threads %d dropped: more than the %d envs", t, o->envs);
    else if (t > MDVEC_THREAD_BUDGET && !o->allow_overcommit)
      warn("threads %d dropped: above MDVEC_THREAD_BUDGET %d (use --allow-overcommit)", t, MDVEC_THREAD_BUDGET);
    else {
      if (t > cores) warn("threads %d exceeds the %ld usable CPUs: threads share CPUs", t, cores);
      o->threads[kept++] = t;
    }
  }
  o->nthreads = kept;
}

/*---------------------------------- Running -------------------------------------------------------*/

typedef struct shared_ { /* what every engine of the run shares */
  double *actions;       /* pre-generated action batches, the same for every mode */
  bare_envs *bare;       /* bare, compare: the envs (NULL otherwise) */
} shared;

/* Make and warm up an engine with T threads, bare or mdvec; 0, or an error with err filled. */
static int engine_open(engine *e, const bench_opts *o, const shared *sh, int threads, int bare, char *err,
                       size_t size) {
  if (bare) {
    *e = (engine){.threads = threads, .envs = o->envs, .bare = sh->bare, .actions = sh->actions, .nu = sh->bare->nu};
    if (!(e->crew = crew_create(threads, err, size))) return -1;
  } else {
    int code = engine_mdvec(e, o, threads, sh->actions, err, size);
    if (code != MDVEC_OK) return code;
  }
  int code = engine_warmup(e, o);
  if (code != 0) snprintf(err, size, "warmup failed (threads %d)", threads);
  return code;
}

/* Time one reference window into res; 0 or an error. */
static int reference_window(engine *ref, results *res) {
  window *w = &res->refs[res->nrefs];
  int code = run_window(ref, w);
  res->nrefs++;
  progress("reference", 1, res->nrefs, 0, w);
  return code;
}

/* Run compare mode: per thread count an mdvec and a bare engine, windows alternating; 0 or an
 * error with err filled. */
static int run_compare(const bench_opts *o, const shared *sh, results *res, char *err, size_t size) {
  int code = 0;
  for (int i = 0; i < o->nthreads && code == 0; i++) {
    engine m = {0}, b = {0};
    code = engine_open(&m, o, sh, o->threads[i], 0, err, size);
    if (code == 0) code = engine_open(&b, o, sh, o->threads[i], 1, err, size);
    if (code == 0) {
      code = run_pairs(&m, &b, o->windows, &res->rows[res->nrows], &res->pairs[res->nrows]);
      res->nrows++;
      if (code != 0) snprintf(err, size, "stepping failed (threads %d)", o->threads[i]);
    }
    engine_close(&m);
    engine_close(&b);
  }
  return code;
}

/* Run the mode's rows (and references); 0 or an error with err filled. */
static int run_all(const bench_opts *o, const shared *sh, results *res, char *err, size_t size) {
  if (o->mode == MODE_COMPARE) return run_compare(o, sh, res, err, size);
  engine ref = {0};
  int code = 0;
  int with_ref = with_reference(o), bare = o->mode == MODE_BARE;
  if (with_ref) {
    code = engine_open(&ref, o, sh, 1, bare, err, size);
    res->ref_steps = ref.window_steps;
    if (code == 0) code = reference_window(&ref, res);
  }
  for (int i = 0; i < o->nthreads && code == 0; i++) {
    engine e = {0};
    code = engine_open(&e, o, sh, o->threads[i], bare, err, size);
    if (code == 0) {
      code = run_row(&e, o->windows, mode_name(o->mode), &res->rows[res->nrows++]);
      if (code != 0) snprintf(err, size, "stepping failed (threads %d)", o->threads[i]);
    }
    engine_close(&e);
    if (code == 0 && with_ref) code = reference_window(&ref, res);
  }
  engine_close(&ref);
  return code;
}

/* Build what the engines share; 0, or -1 with err filled. */
static int shared_open(const bench_opts *o, shared *sh, results *res, char *err, size_t size) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  res->substeps = cfg.substeps;
  res->episode_len = cfg.episode_len;
  *sh = (shared){0};
  if (o->mode == MODE_BARE || o->mode == MODE_COMPARE) {
    cfg.seed = o->seed;
    sh->bare = bare_create(o->model ? o->model : MDVEC_BENCH_MODEL, o->envs, &cfg, err, size);
    if (!sh->bare) return -1;
  }
  mdvec_t *probe; /* one env, only to learn nu */
  cfg.model_path = o->model;
  if (mdvec_create(&probe, &cfg, err, size) != MDVEC_OK) return -1;
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  mdvec_dims(probe, &dims);
  mdvec_destroy(probe);
  sh->actions = make_actions(o->envs, dims.nu, o->random_actions, o->seed ^ 0x5eedull);
  if (!sh->actions) snprintf(err, size, "out of memory for actions");
  return sh->actions ? 0 : -1;
}

/* Return the JSON path: --out, or a timestamped file under MDVEC_BENCH_RESULTS (created). */
static const char *out_path(const bench_opts *o, const machine *m, char *buf, size_t size) {
  if (o->out) return o->out;
  if (mkdir(MDVEC_BENCH_RESULTS, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "cannot create %s: %s\n", MDVEC_BENCH_RESULTS, strerror(errno));
  }
  snprintf(buf, size, "%s/c_%s_%s.json", MDVEC_BENCH_RESULTS, mode_name(o->mode), m->stamp);
  return buf;
}

int main(int argc, char **argv) {
  bench_opts o;
  int parsed = parse_args(argc, argv, &o);
  if (parsed != 0) {
    if (parsed > 0)
      usage(stdout);
    else
      fprintf(stderr, "run mdvec_bench --help for the options\n");
    return parsed > 0 ? 0 : 2;
  }
  static results res;
  read_machine(&res.before);
  check_machine(&res.before);
  settle_threads(&o, res.before.cpus_allowed < res.before.cores ? res.before.cpus_allowed : res.before.cores);
  if (o.nthreads == 0) {
    fprintf(stderr, "mdvec_bench: no thread count left to run\n");
    return 2;
  }
  char err[1024] = "", path[1024];
  shared sh;
  int code = shared_open(&o, &sh, &res, err, sizeof err);
  if (code == 0) code = run_all(&o, &sh, &res, err, sizeof err);
  if (code != 0) fprintf(stderr, "mdvec_bench: %s\n", err[0] ? err : "failed");
  read_machine(&res.after);
  if (res.after.load[0] > BENCH_LOAD_FRACTION * (double)res.after.cores) {
    warn("load average %.2f at the end is above %.1f x %ld cores", res.after.load[0], BENCH_LOAD_FRACTION,
         res.after.cores);
  }
  if (res.nrows > 0) {
    check_drift(&res, o.mode);
    print_table(&o, &res);
    const char *out = out_path(&o, &res.before, path, sizeof path);
    if (write_json(out, &o, &res) == 0)
      printf("wrote %s\n", out);
    else
      code = -1;
  }
  for (int i = 0; i < res.nrows; i++) {
    free(res.rows[i].windows);
    free(res.pairs[i].bare.windows);
  }
  free(sh.actions);
  bare_destroy(sh.bare);
  return code == 0 ? 0 : 1;
}
