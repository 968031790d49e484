/* What the libFuzzer targets share: input readers, value tables, model paths, handle cache and
 * buffer checks (see fuzz.h). */
#include "fuzz.h"

#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#ifndef MDVEC_MODELS_DIR
#define MDVEC_MODELS_DIR "libmdvec/models"
#endif
#ifndef FUZZ_MODELS_DIR
#define FUZZ_MODELS_DIR "tests/fuzz/models"
#endif
#ifndef FUZZ_GYM_ASSETS
#define FUZZ_GYM_ASSETS ""
#endif
#ifndef FUZZ_DM_SUITE
#define FUZZ_DM_SUITE ""
#endif

/*---------------------------------- Failing ------------------------------------------------------*/

void fz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\n==mdvec-fuzz== invariant violated: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fflush(stderr);
  abort();
}

/*---------------------------------- Input reader --------------------------------------------------*/

uint8_t fz_u8(fz *f) {
  if (!f->n) return 0;
  f->n--;
  return *f->p++;
}

static uint64_t le(fz *f, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; k++) v |= (uint64_t)fz_u8(f) << (8 * k);
  return v;
}

uint16_t fz_u16(fz *f) {
  return (uint16_t)le(f, 2);
}
uint32_t fz_u32(fz *f) {
  return (uint32_t)le(f, 4);
}
uint64_t fz_u64(fz *f) {
  return le(f, 8);
}
size_t fz_pick(fz *f, size_t n) {
  return n ? fz_u8(f) % n : 0;
}

const double fz_doubles[FZ_N_DOUBLES] = {
  0.0,
  -0.0,
  1.0,
  -1.0,
  0.5,
  -0.5,
  2.0,
  NAN,
  -NAN,
  INFINITY,
  -INFINITY,
  DBL_MAX,
  -DBL_MAX,
  DBL_MIN,
  4.9406564584124654e-324,
  -4.9406564584124654e-324,
  FLT_MAX,
  -FLT_MAX,
  3.4028235677973366e38 /* rounds to inf as float32 */,
  1e300,
  -1e300,
  1e9,
  -1e9,
  1e-9,
  1.0000001,
  0.99999994,
  9007199254740992.0,
  9223372036854775808.0,
  2147483648.0,
  -2147483649.0,
  100.0,
  1000.0,
  1e6,
  -1e6,
  1e20,
  1.0 + DBL_EPSILON,
  1.5,
  0.3,
  FLT_MIN,
  1e-300,
};

double fz_double(fz *f) {
  uint8_t s = fz_u8(f);
  if (s < FZ_N_DOUBLES) return fz_doubles[s];
  if (s == 255) {
    uint64_t bits = fz_u64(f);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  return ((int)s - 144) / 8.0;
}

const int fz_ints[FZ_N_INTS] = {
  0,       1,       -1,       2,         3,         4,          5,          7,       8,       9,           10,
  13,      14,      15,       16,        17,        24,         25,         26,      100,     224,         225,
  226,     249,     250,      251,       255,       256,        1000,       10000,   10001,   65535,       65536,
  1000000, 1000001, 10000000, 100000000, 999999999, 1000000000, 1000000001, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
  -2,      -3,      -100,     -1000000,  6,         11,         12,         20,      30,      32,          50,
  64,      127,     128,      200,       300,       500,        1024,       4096,    1 << 30,
};

int fz_int(fz *f) {
  uint8_t s = fz_u8(f);
  if (s < FZ_N_INTS) return fz_ints[s];
  if (s == 255) return (int)fz_u32(f);
  return (int)s - 64;
}

const int64_t fz_i64s[FZ_N_I64] = {
  INT64_MAX,
  INT64_MIN,
  INT64_MAX - 1,
  INT64_MIN + 1,
  (int64_t)INT_MAX + 1,
  (int64_t)INT_MIN - 1,
  (int64_t)UINT32_MAX,
  (int64_t)1 << 53,
  ((int64_t)1 << 53) + 1,
  (int64_t)1e12,
  -(int64_t)1e12,
  (int64_t)1e15,
  1000000000,
  1000000001,
  999999999,
  2147483647,
};

int64_t fz_i64(fz *f) {
  uint8_t s = fz_u8(f);
  if (s < FZ_N_I64) return fz_i64s[s];
  if (s == 255) return (int64_t)fz_u64(f);
  /* the same small numbers and table as fz_int, shifted */
  uint8_t t = (uint8_t)(s - FZ_N_I64);
  if (t < FZ_N_INTS) return fz_ints[t];
  return (int64_t)t - 64;
}

const uint64_t fz_seeds[FZ_N_SEEDS] = {
  1,
  424242,
  2147483647,
  2147483648,
  (uint64_t)UINT32_MAX - 3,
  (uint64_t)UINT32_MAX - 2,
  (uint64_t)UINT32_MAX - 1,
  (uint64_t)UINT32_MAX, /* the largest seed of a task with a RandomState (seed_max) */
  (uint64_t)UINT32_MAX + 1,
  (uint64_t)UINT32_MAX + 2,
  (uint64_t)1 << 53,
  (uint64_t)INT64_MAX,
  (uint64_t)INT64_MAX + 1,
  UINT64_MAX - 2,
  UINT64_MAX - 1,
  UINT64_MAX,
};

uint64_t fz_seed(fz *f) {
  uint8_t s = fz_u8(f);
  if (s & 1) return fz_u64(f);
  if (s == 0) return fz_u8(f);
  return fz_seeds[((s >> 1) - 1) % FZ_N_SEEDS];
}

const char *fz_str(fz *f, char *buf, size_t cap) {
  size_t len = fz_u8(f);
  if (len == 255) len = fz_u16(f);
  if (len > f->n) len = f->n;
  size_t keep = len < cap - 1 ? len : cap - 1;
  memcpy(buf, f->p, keep);
  buf[keep] = 0;
  f->p += len;
  f->n -= len;
  return buf;
}

/*---------------------------------- Text ----------------------------------------------------------*/

#define LONG_DIGITS                                                                                      \
  "1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111" \
  "1111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111" \
  "11111111111111111111111111111111111111111111111111111111111111111111111111111111"

const char *const fz_weird[FZ_N_WEIRD] = {
  "",
  " ",
  "1 ",
  " 1",
  "0x10",
  "1e3",
  "+5",
  "-0",
  "true",
  "True",
  "TRUE",
  "false",
  "1,2",
  "1,,2",
  ",",
  "1,2,3",
  "inf,inf",
  "-inf,inf",
  "nan,1",
  "v1",
  "v2",
  "v1|v2",
  "|",
  "9223372036854775808",
  "-9223372036854775809",
  "1e400",
  "0x1p-1074",
  "1e-400",
  LONG_DIGITS,
  "0," LONG_DIGITS,
  LONG_DIGITS ",1",
  "nan",
  "-nan",
  "infinity",
  "NaN",
  "1.5",
  "2147483648",
  "-2147483649",
  "1000000001",
  "0,0",
  "5,4",
  "-1,1",
  "1e9,1e9",
  "0,1e9",
  "default",
  "backlash",
  "backlash_lower",
  "\xff\xfe",
};

static char g_paths[64][1024];
static const char *g_path_list[64];
static int g_n_paths = -1;

static void add_path(const char *p) {
  if (g_n_paths < 0 || g_n_paths >= 64) return;
  if (!p) {
    g_path_list[g_n_paths++] = NULL;
    return;
  }
  snprintf(g_paths[g_n_paths], sizeof g_paths[0], "%s", p);
  g_path_list[g_n_paths] = g_paths[g_n_paths];
  g_n_paths++;
}

static void add_joined(const char *dir, const char *name) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s/%s", dir, name);
  add_path(buf);
}

const char *fz_gym_assets(void) {
  const char *env = getenv("MDVEC_GYM_ASSETS");
  return env && *env ? env : FUZZ_GYM_ASSETS;
}

const char *fz_task_xml(const char *task) {
  static char xml[128][1024];
  const char *assets = fz_gym_assets();
  int count = mdvec_task_option_count(task);
  if (!*assets || count <= 0) return NULL;
  for (int k = 0; k < count; k++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    if (mdvec_task_option(task, k, &o) != MDVEC_OK || strcmp(o.name, "xml_file")) continue;
    if (!o.def || !*o.def) return NULL;
    int t = 0;
    while (mdvec_task_name(t) && task && strcmp(mdvec_task_name(t), task)) t++;
    if (t >= 128) return NULL;
    if (o.def[0] == '/') return o.def;
    snprintf(xml[t], sizeof xml[t], "%s/%s", assets, o.def);
    return xml[t];
  }
  return NULL;
}

const char *fz_dm_suite(void) {
  const char *env = getenv("MDVEC_DM_SUITE");
  return env && *env ? env : FUZZ_DM_SUITE;
}

int fz_needs_suite(const char *task) {
  int count = mdvec_task_option_count(task);
  for (int k = 0; k < count; k++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    if (mdvec_task_option(task, k, &o) == MDVEC_OK && !strcmp(o.name, "suite_dir") && o.type == MDVEC_OPT_STRING)
      return !o.def || !*o.def;
  }
  return 0;
}

const char *fz_task_suite(const char *task) {
  return fz_needs_suite(task) && *fz_dm_suite() ? fz_dm_suite() : NULL;
}

/* suite_dir values: folders that are not dm_control's suite, one that lacks common/, the suite with a trailing
 * slash, NULL; and the suite itself (fz_pick_suite gives it half the time). */
static char g_suites[FZ_N_SUITES][1024];
static const char *g_suite_list[FZ_N_SUITES];
static int g_n_suites = -1;

static void build_suites(void) {
  if (g_n_suites >= 0) return;
  const char *suite = fz_dm_suite();
  const char *fixed[] = {
    NULL, "", "/", "/nonexistent/suite", "suite", FUZZ_MODELS_DIR, MDVEC_MODELS_DIR, FUZZ_MODELS_DIR "/dm_suite"};
  g_n_suites = 0;
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
    if (fixed[k]) snprintf(g_suites[g_n_suites], sizeof g_suites[0], "%s", fixed[k]);
    g_suite_list[g_n_suites] = fixed[k] ? g_suites[g_n_suites] : NULL;
    g_n_suites++;
  }
  const char *gym = fz_gym_assets();
  if (*gym) {
    snprintf(g_suites[g_n_suites], sizeof g_suites[0], "%s", gym);
    g_suite_list[g_n_suites] = g_suites[g_n_suites];
    g_n_suites++;
  }
  if (*suite) {
    static const char *const under[] = {"/", "/common", "/.."};
    for (size_t k = 0; k < sizeof under / sizeof under[0]; k++) {
      snprintf(g_suites[g_n_suites], sizeof g_suites[0], "%s%s", suite, under[k]);
      g_suite_list[g_n_suites] = g_suites[g_n_suites];
      g_n_suites++;
    }
  }
}

const char *fz_pick_suite(fz *f) {
  build_suites();
  uint8_t s = fz_u8(f);
  if (!(s & 1) && *fz_dm_suite()) return fz_dm_suite();
  return g_suite_list[(s >> 1) % (unsigned)g_n_suites];
}

static void build_paths(void) {
  if (g_n_paths >= 0) return;
  g_n_paths = 0;
  add_path(NULL);
  add_path("");
  add_path("hopper.xml");
  add_path("~/hopper.xml");
  add_path("/nonexistent/model.xml");
  add_path("./nonexistent.xml");
  add_path("/");
  add_path("/dev/null");
  add_joined(MDVEC_MODELS_DIR, "duck.xml");
  add_joined(MDVEC_MODELS_DIR, "duck_backlash.xml");
  add_joined(MDVEC_MODELS_DIR, "duck_backlash_lower.xml");
  static const char *const odd[] = {"empty.xml",          "malformed.xml",  "no_actuator.xml", "one_slide.xml",
                                    "two_hinge.xml",      "free_motor.xml", "tiny_arena.xml",  "tiny_stack.xml",
                                    "many_actuators.xml", "unstable.xml"};
  for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) add_joined(FUZZ_MODELS_DIR, odd[k]);
  for (int t = 1; mdvec_task_name(t); t++) {
    const char *xml = fz_task_xml(mdvec_task_name(t));
    if (xml) add_path(xml);
  }
}

int fz_path_count(void) {
  build_paths();
  return g_n_paths;
}

const char *fz_path(int k) {
  build_paths();
  return k >= 0 && k < g_n_paths ? g_path_list[k] : NULL;
}

const char *fz_pick_path(fz *f) {
  return fz_path((int)fz_pick(f, (size_t)fz_path_count()));
}

static const char *fmt_double(double v, char *buf, size_t cap) {
  snprintf(buf, cap, "%.17g", v);
  return buf;
}

const char *fz_option_text(fz *f, const mdvec_option_info_t *o, char *buf, size_t cap) {
  uint8_t s = fz_u8(f);
  char a[64], b[64];
  switch (s % 8) {
    case 0:
      return o ? o->def : NULL;
    case 1:
      return fz_weird[fz_pick(f, FZ_N_WEIRD)];
    case 2:
      return fz_str(f, buf, cap);
    case 3:
      return fz_pick_path(f);
    default:
      break;
  }
  int type = o ? o->type : 1 + (int)fz_pick(f, 7);
  switch (type) {
    case MDVEC_OPT_INT:
      snprintf(buf, cap, "%" PRId64, fz_i64(f));
      return buf;
    case MDVEC_OPT_DOUBLE:
      return fmt_double(fz_double(f), buf, cap);
    case MDVEC_OPT_BOOL: {
      static const char *const words[] = {"true", "false", "1", "0", "True", "False"};
      return words[fz_pick(f, 6)];
    }
    case MDVEC_OPT_RANGE:
      fmt_double(fz_double(f), a, sizeof a);
      fmt_double(fz_double(f), b, sizeof b);
      snprintf(buf, cap, "%s,%s", a, b);
      return buf;
    case MDVEC_OPT_IRANGE: {
      int64_t lo = fz_i64(f), hi = fz_i64(f);
      snprintf(buf, cap, "%" PRId64 ",%" PRId64, lo, hi);
      return buf;
    }
    case MDVEC_OPT_CHOICE: {
      const char *c = o && o->choices ? o->choices : "v1|v2";
      size_t words = 1;
      for (const char *p = c; *p; p++) words += *p == '|';
      size_t k = fz_pick(f, words + 1), at = 0;
      const char *p = c;
      while (at < k && p) {
        p = strchr(p, '|');
        if (p) p++;
        at++;
      }
      if (k == words || !p) return "";
      size_t len = strcspn(p, "|");
      snprintf(buf, cap, "%.*s", (int)len, p);
      return buf;
    }
    default: /* MDVEC_OPT_STRING */
      if (o && (!strcmp(o->name, "xml_file") || !strcmp(o->name, "model_path"))) return fz_pick_path(f);
      if (o && !strcmp(o->name, "suite_dir")) return fz_pick_suite(f);
      if (fz_u8(f) & 1) return fz_str(f, buf, cap);
      {
        static const char *const variants[] = {"default", "backlash", "backlash_lower", "Default", "duck"};
        return variants[fz_pick(f, 5)];
      }
  }
}

/*---------------------------------- Handles -------------------------------------------------------*/

mdvec_t *fz_create(const char *task, int n, int t, int autoreset, const mdvec_option_t *opts, int n_opts) {
  mdvec_option_t all[32];
  int k = 0, has_xml = 0, has_suite = 0;
  for (int j = 0; j < n_opts; j++) {
    has_xml |= opts[j].name && !strcmp(opts[j].name, "xml_file");
    has_suite |= opts[j].name && !strcmp(opts[j].name, "suite_dir");
  }
  const char *xml = fz_task_xml(task), *suite = fz_task_suite(task);
  if (xml && !has_xml) all[k++] = (mdvec_option_t){"xml_file", xml};
  if (suite && !has_suite) all[k++] = (mdvec_option_t){"suite_dir", suite};
  for (int j = 0; j < n_opts && k < 32; j++) all[k++] = opts[j];
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = task;
  cfg.num_envs = n;
  cfg.threads = t;
  cfg.autoreset = autoreset;
  cfg.options = all;
  cfg.n_options = k;
  mdvec_t *h = NULL;
  char err[1024] = "";
  int rc = mdvec_create(&h, &cfg, err, sizeof err);
  if (rc != MDVEC_OK) {
    if (h) fz_fail("mdvec_create returned %d and a handle", rc);
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "fuzz: create %s failed: %s\n", task ? task : "(duck)", err);
    return NULL;
  }
  return h;
}

#define CACHE_MAX     256
#define CACHE_RSS_MIB 1536 /* the cache is emptied past this resident size (ci/fuzz.sh allows 4096 MiB) */
static struct {
  char key[128];
  mdvec_t *h;
} g_cache[CACHE_MAX];
static int g_cache_n;

int fz_cache_on(void) {
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("FUZZ_NO_CACHE");
    on = !(e && *e && strcmp(e, "0"));
  }
  return on;
}

mdvec_t *fz_cache_get(const char *key) {
  if (!fz_cache_on()) return NULL;
  for (int k = 0; k < g_cache_n; k++)
    if (!strcmp(g_cache[k].key, key)) return g_cache[k].h;
  return NULL;
}

/* Resident memory of this process in MiB (0 when unknown). */
static long rss_mib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return (long)((double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0));
}

void fz_cache_put(const char *key, mdvec_t *h) {
  if (!fz_cache_on() || !h) return;
  /* full, or holding too much memory (a Control Suite env owns a model copy with its skybox texture, ~12 MB:
   * 256 handles would pass ci/fuzz.sh's 4 GiB RSS limit): start over */
  if (g_cache_n == CACHE_MAX || (g_cache_n && rss_mib() > CACHE_RSS_MIB)) {
    for (int k = 0; k < g_cache_n; k++) mdvec_destroy(g_cache[k].h);
    g_cache_n = 0;
  }
  snprintf(g_cache[g_cache_n].key, sizeof g_cache[0].key, "%s", key);
  g_cache[g_cache_n].h = h;
  g_cache_n++;
}

void fz_cache_release(mdvec_t *h) {
  if (!fz_cache_on()) mdvec_destroy(h);
}

/*---------------------------------- Checks --------------------------------------------------------*/

static volatile unsigned g_sink;

static void touch(const void *p, size_t bytes, const char *what) {
  if (!bytes) return;
  if (!p) fz_fail("%s: NULL buffer of %zu bytes", what, bytes);
  const unsigned char *c = p;
  unsigned acc = 0;
  for (size_t k = 0; k < bytes; k++) acc += c[k];
  g_sink += acc;
}

static void spec_of(const mdvec_t *h, mdvec_spec_t *s) {
  *s = (mdvec_spec_t){.struct_size = sizeof *s};
  if (mdvec_spec(h, s) != MDVEC_OK) fz_fail("mdvec_spec failed on a live handle");
}

static size_t obs_bytes(const mdvec_spec_t *s) {
  return (size_t)s->num_envs * (size_t)s->obs_dim * (s->obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float));
}

void fz_touch_buffers(const mdvec_t *h) {
  mdvec_spec_t s;
  spec_of(h, &s);
  size_t n = (size_t)s.num_envs, ni = (size_t)(s.n_info > 0 ? s.n_info : 0);
  touch(mdvec_obs_data(h), obs_bytes(&s), "mdvec_obs_data");
  touch(mdvec_final_obs_data(h), obs_bytes(&s), "mdvec_final_obs_data");
  touch(mdvec_reward(h), n * sizeof(double), "mdvec_reward");
  touch(mdvec_info(h), ni * n * sizeof(double), "mdvec_info");
  touch(mdvec_reset_info(h), ni * n * sizeof(double), "mdvec_reset_info");
  touch(mdvec_action_low(h), (size_t)s.act_dim * sizeof(double), "mdvec_action_low");
  touch(mdvec_action_high(h), (size_t)s.act_dim * sizeof(double), "mdvec_action_high");
  const uint8_t *te = mdvec_terminated(h), *tr = mdvec_truncated(h), *d = mdvec_done(h), *r = mdvec_reset_flags(h);
  touch(te, n, "mdvec_terminated");
  touch(tr, n, "mdvec_truncated");
  touch(d, n, "mdvec_done");
  touch(r, n, "mdvec_reset_flags");
  for (size_t i = 0; i < n; i++) {
    if (te[i] > 1 || tr[i] > 1 || d[i] > 1 || r[i] > 1)
      fz_fail("env %zu: flags not 0/1: terminated %u truncated %u done %u reset %u", i, te[i], tr[i], d[i], r[i]);
    if (d[i] != (te[i] | tr[i])) fz_fail("env %zu: done %u != terminated %u | truncated %u", i, d[i], te[i], tr[i]);
  }
  const float *obs32 = mdvec_obs(h), *fin32 = mdvec_terminal_obs(h);
  if (s.obs_dtype == MDVEC_DTYPE_F32) {
    if ((const void *)obs32 != mdvec_obs_data(h) || (const void *)fin32 != mdvec_final_obs_data(h))
      fz_fail("mdvec_obs / mdvec_terminal_obs differ from the typed buffers of a float32 task");
  } else if (obs32 || fin32) {
    fz_fail("mdvec_obs is not NULL for a float64-obs task");
  }
}

void fz_query(mdvec_t *h, fz *f) {
  mdvec_spec_t s;
  spec_of(h, &s);
  if (!s.task || s.num_envs < 1 || s.threads < 1 || s.obs_dim < 1 || s.act_dim < 1 || s.n_info < 0 ||
      (s.obs_dtype != MDVEC_DTYPE_F32 && s.obs_dtype != MDVEC_DTYPE_F64) || s.autoreset < 0 || s.autoreset > 2 ||
      s.nq < 0 || s.nv < 0 || s.max_episode_steps < 0)
    fz_fail("spec out of range: task %s N %d T %d obs %d/%d act %d info %d ar %d nq %d nv %d max %d",
            s.task ? s.task : "(null)", s.num_envs, s.threads, s.obs_dim, s.obs_dtype, s.act_dim, s.n_info, s.autoreset,
            s.nq, s.nv, s.max_episode_steps);
  mdvec_spec_t small = {.struct_size = sizeof small - 1};
  if (mdvec_spec(h, &small) != MDVEC_ERR_ARG) fz_fail("mdvec_spec took a short struct_size");
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  if (mdvec_dims(h, &dims) != MDVEC_OK) fz_fail("mdvec_dims failed");
  if (dims.num_envs != s.num_envs || dims.threads != s.threads || dims.nu != s.act_dim || dims.obs_dim != s.obs_dim ||
      dims.n_info != s.n_info)
    fz_fail("mdvec_dims disagrees with mdvec_spec");
  for (int k = -1; k <= s.n_info; k++) {
    mdvec_field_t fl = {.struct_size = sizeof fl};
    int rc = mdvec_info_field(h, k, &fl);
    const char *name = mdvec_info_name(h, k);
    if (k < 0 || k == s.n_info) {
      if (rc != MDVEC_ERR_ARG || name) fz_fail("info field %d out of range answered", k);
      continue;
    }
    if (rc != MDVEC_OK || !fl.name || name != fl.name || fl.dtype < MDVEC_DTYPE_F64 || fl.dtype > MDVEC_DTYPE_ACTION ||
        fl.when < 1 || fl.when > 3)
      fz_fail("info field %d: rc %d name %s dtype %d when %d", k, rc, fl.name ? fl.name : "(null)", fl.dtype, fl.when);
    g_sink += (unsigned)strlen(fl.name);
  }
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  for (int k = 0; k < s.act_dim; k++)
    if (!(lo[k] <= hi[k])) fz_fail("action bound %d: low %g > high %g", k, lo[k], hi[k]);
  g_sink += (unsigned)strlen(mdvec_errmsg(h));
  if (s.model_path) g_sink += (unsigned)strlen(s.model_path);
  int n_opt = mdvec_task_option_count(s.task);
  if (n_opt < 0) fz_fail("the handle's task '%s' is not in the catalogue", s.task);
  /* state readout: a few sigs, valid or not, into buffers of exactly the size asked for */
  unsigned sigs[4] = {mjSTATE_PHYSICS | mjSTATE_TIME, (1u << mjNSTATE) - 1, 0, 0};
  sigs[2] = fz_u32(f); /* read in this order (an initializer list's order is unspecified) */
  sigs[3] = 1u << fz_pick(f, 32);
  for (int k = 0; k < 4; k++) {
    unsigned sig = sigs[k];
    size_t size = mdvec_state_size(h, sig);
    int valid = sig < (1u << mjNSTATE);
    if (!valid && size) fz_fail("mdvec_state_size(0x%x) = %zu for an invalid sig", sig, size);
    size_t give = size;
    uint8_t how = fz_u8(f);
    if (how % 4 == 1 && give) give--;
    int i = how % 4 == 2 ? fz_int(f) : (int)(how / 4) % s.num_envs;
    double *buf = malloc(sizeof(double) * (give ? give : 1));
    if (!buf) continue;
    int rc = mdvec_get_state(h, i, sig, buf, give);
    int ok = valid && i >= 0 && i < s.num_envs && give == size;
    if ((rc == MDVEC_OK) != ok)
      fz_fail("mdvec_get_state(env %d, sig 0x%x, size %zu of %zu) returned %d", i, sig, give, size, rc);
    if (rc == MDVEC_OK) touch(buf, give * sizeof(double), "state");
    free(buf);
  }
}

void fz_snap_take(const mdvec_t *h, fz_snap *s) {
  mdvec_spec_t sp;
  spec_of(h, &sp);
  size_t n = (size_t)sp.num_envs, ni = (size_t)(sp.n_info > 0 ? sp.n_info : 0), ob = obs_bytes(&sp);
  s->size = 2 * ob + n * sizeof(double) + 4 * n + 2 * ni * n * sizeof(double);
  s->bytes = malloc(s->size ? s->size : 1);
  if (!s->bytes) fz_fail("out of memory for a snapshot");
  unsigned char *p = s->bytes;
#define PUT(src, len)        \
  do {                       \
    memcpy(p, (src), (len)); \
    p += (len);              \
  } while (0)
  PUT(mdvec_obs_data(h), ob);
  PUT(mdvec_final_obs_data(h), ob);
  PUT(mdvec_reward(h), n * sizeof(double));
  PUT(mdvec_terminated(h), n);
  PUT(mdvec_truncated(h), n);
  PUT(mdvec_done(h), n);
  PUT(mdvec_reset_flags(h), n);
  PUT(mdvec_info(h), ni * n * sizeof(double));
  PUT(mdvec_reset_info(h), ni * n * sizeof(double));
#undef PUT
}

int fz_snap_same(const mdvec_t *h, const fz_snap *s) {
  fz_snap now;
  fz_snap_take(h, &now);
  int same = now.size == s->size && !memcmp(now.bytes, s->bytes, s->size);
  fz_snap_free(&now);
  return same;
}

void fz_snap_free(fz_snap *s) {
  free(s->bytes);
  s->bytes = NULL;
}

/* double -> float32 with overflow to +-inf spelt out (the conversion itself is undefined outside
 * float's range in ISO C). */
static float to_f32(double v) {
  if (v > FLT_MAX) return v <= 3.4028235677973366e38 ? FLT_MAX : INFINITY;
  if (v < -FLT_MAX) return v >= -3.4028235677973366e38 ? -FLT_MAX : -INFINITY;
  return (float)v;
}

void fz_actions(fz *f, void *actions, size_t n, int dtype, const mdvec_t *h) {
  mdvec_spec_t s;
  spec_of(h, &s);
  size_t act = (size_t)s.act_dim;
  const double *lo = mdvec_action_low(h), *hi = mdvec_action_high(h);
  uint8_t mode = fz_u8(f) % 6;
  double one = mode == 0 || mode == 1 ? fz_double(f) : 0.0;
  for (size_t k = 0; k < n; k++) {
    double v;
    switch (mode) {
      case 0:
        v = one;
        break;
      case 1:
        v = (k % act == 0 && k) ? (one = fz_double(f)) : one;
        break;
      case 2:
        v = fz_double(f);
        break;
      case 3:
        v = ((int)fz_u8(f) - 128) / 64.0;
        break;
      case 4:
        v = 0.0;
        break;
      default: {
        size_t j = k % act;
        uint8_t w = fz_u8(f) % 5;
        v = w == 0   ? lo[j]
            : w == 1 ? hi[j]
            : w == 2 ? nextafter(lo[j], -INFINITY)
            : w == 3 ? nextafter(hi[j], INFINITY)
                     : 0.5 * lo[j] + 0.5 * hi[j];
      }
    }
    if (dtype == MDVEC_DTYPE_F32)
      ((float *)actions)[k] = to_f32(v);
    else
      ((double *)actions)[k] = v;
  }
}

/*---------------------------------- MuJoCo's log ---------------------------------------------------*/

static void log_handler(const mjLogMessage *msg) {
  if (msg->level == mjLOG_ERROR)
    fz_fail("a MuJoCo error reached the process-wide handler (not trapped by libmdvec): %s", msg->subject);
  /* warnings and info: dropped (no MUJOCO_LOG.TXT, no output) */
}

void fz_init(void) {
  static int done;
  if (done) return;
  done = 1;
  mju_setLogHandler(log_handler);
  build_paths();
  build_suites();
}
