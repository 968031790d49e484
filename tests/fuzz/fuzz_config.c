/* Fuzz target: configuration. mdvec_config_init and mdvec_create with every config field fuzzed:
 * struct_size (the 1.0, 1.1 and 1.2 layouts, this one, longer ones with a zero or a nonzero tail, any size; the
 * config lives in a heap block of exactly that size, so a read past it is an ASan report), the
 * generic fields, the dot (1.2), the duck's v1 fields, the task name and options by name as text (names of the
 * task, of other tasks, NULL or fuzzed; values typed, odd or raw; n_options negative or with a NULL
 * array), the options' kinds (1.3: MDVEC_VALUE_* or out of range), and the error buffer (NULL, 0, 1 byte or large, heap blocks of exactly that size).
 * A created handle is queried (spec, dims, info fields, state sizes), its buffers read at their
 * declared sizes, reset, and stepped twice when a step is cheap (few mj_step calls).
 *
 * Checked: a refused config returns an error code, no handle and a NUL-terminated message that
 * fits the buffer; sizes the header allows are accepted by mdvec_config_init and mdvec_create;
 * a longer struct with a nonzero tail is refused; a dot mode out of range or without its function is
 * refused; the spec agrees with the config. */
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_OPTS 8

/* Find option `name` of task (NULL: duck); return 1 and fill o, or 0. */
/* ddots for cfg.dot's CBLAS modes: the plain sum, as a BLAS might compute it. */
static double fz_ddot(int n, const double *x, int incx, const double *y, int incy) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
  return s;
}

static double fz_ddot64(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy) {
  return fz_ddot((int)n, x, (int)incx, y, (int)incy);
}

static int find_decl(const char *task, const char *name, mdvec_option_info_t *o) {
  int n = mdvec_task_option_count(task);
  for (int k = 0; name && k < n; k++) {
    *o = (mdvec_option_info_t){.struct_size = sizeof *o};
    if (mdvec_task_option(task, k, o) == MDVEC_OK && !strcmp(o->name, name)) return 1;
  }
  return 0;
}

/* The mj_step calls one step would make, from what the config asked (0: unknown, treat as cheap); for a Control
 * Suite task at least its seconds per step (dt) / 1 ms, the suite's smallest model timestep (its n_sub_steps and
 * control_timestep options reach 1e6 physics steps per step). */
static long long step_cost(const mdvec_config_t *cfg, int full, const char *task, const mdvec_option_t *opts,
                           int n_opts, double dt) {
  long long cost = 1;
  if (!task || !strcmp(task, "duck")) cost = cfg->substeps;
  for (int k = 0; full && opts && k < n_opts; k++) {
    if (opts[k].name && opts[k].value &&
        (!strcmp(opts[k].name, "substeps") || !strcmp(opts[k].name, "frame_skip") ||
         !strcmp(opts[k].name, "n_sub_steps")))
      cost = strtoll(opts[k].value, NULL, 10);
  }
  if (!fz_needs_suite(task)) return cost;
  double by_dt = dt / 1e-3;
  if (!(by_dt < 1e12)) return LLONG_MAX; /* NaN or huge */
  return by_dt > (double)cost ? (long long)by_dt + 1 : cost;
}

static void probe_catalogue(fz *f) {
  char name[128];
  int ntasks = mdvec_task_count();
  const char *task = fz_u8(f) & 1 ? fz_str(f, name, sizeof name) : mdvec_task_name((int)fz_pick(f, (size_t)ntasks + 1));
  int k = fz_int(f);
  size_t size = fz_u8(f) & 1 ? sizeof(mdvec_option_info_t) : fz_pick(f, 2 * sizeof(mdvec_option_info_t));
  mdvec_option_info_t o;
  memset(&o, 0, sizeof o);
  o.struct_size = size;
  int count = mdvec_task_option_count(task);
  int rc = mdvec_task_option(task, k, &o);
  int want = count >= 0 && k >= 0 && k < count && size >= sizeof o;
  if ((rc == MDVEC_OK) != want) fz_fail("mdvec_task_option(k %d of %d, size %zu) returned %d", k, count, size, rc);
  if (rc == MDVEC_OK && (!o.name || !o.help || o.type < MDVEC_OPT_INT || o.type > MDVEC_OPT_CHOICE))
    fz_fail("option %d of task %s: incomplete declaration", k, task ? task : "(default)");
  mdvec_constant_t c = {.struct_size = size <= sizeof c ? size : sizeof c};
  int nc = mdvec_task_constant_count(task);
  rc = mdvec_task_constant(task, k, &c);
  want = nc >= 0 && k >= 0 && k < nc && c.struct_size >= sizeof c;
  if ((rc == MDVEC_OK) != want) fz_fail("mdvec_task_constant(k %d of %d) returned %d", k, nc, rc);
  if (rc == MDVEC_OK) {
    double sum = 0;
    for (int j = 0; j < c.count; j++) sum += c.values[j];
    (void)sum;
  }
  const char *summary = mdvec_task_summary(task);
  if ((summary != NULL) != (count >= 0)) fz_fail("mdvec_task_summary and mdvec_task_option_count disagree");
  if (mdvec_task_name(k) && (k < 0 || k >= ntasks)) fz_fail("mdvec_task_name(%d) out of range answered", k);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_init();
  fz in = {data, size}, *f = &in;
  const size_t full = sizeof(mdvec_config_t), v1 = offsetof(mdvec_config_t, task);
  const size_t v11 = offsetof(mdvec_config_t, dot);          /* the 1.1 layout ended after on_error */
  const size_t v12 = offsetof(mdvec_config_t, option_kinds); /* the 1.2 layout ended after ddot64 */
  const size_t v13 = offsetof(mdvec_config_t, dgemv);        /* the 1.3 layout ended after option_kinds */

  /* struct_size and the block holding the config */
  uint8_t layout = fz_u8(f) % 6;
  size_t declared;
  switch (layout) {
    case 0:
      declared = full;
      break;
    case 1:
      declared = v1;
      break;
    case 5:
      declared = v11;
      break;
    case 2:
    case 3:
      declared = full + 8 * (1 + fz_pick(f, 4));
      break;
    default:
      declared = fz_u16(f);
      break;
  }
  int valid = declared == v1 || declared == v11 || declared == v12 || declared == v13 || declared >= full;
  size_t alloc = declared > sizeof(size_t) ? declared : sizeof(size_t);
  unsigned char *mem = calloc(1, alloc);
  if (!mem) return 0;
  mdvec_config_t *cfg = (mdvec_config_t *)mem;
  int rc = mdvec_config_init(cfg, declared);
  if ((rc == MDVEC_OK) != valid) fz_fail("mdvec_config_init(size %zu) returned %d", declared, rc);
  if (!valid) memcpy(mem, &declared, sizeof declared);
  int tail_set = 0;
  if (valid) {
    if (cfg->struct_size != declared)
      fz_fail("mdvec_config_init left struct_size %zu, not %zu", cfg->struct_size, declared);
    for (size_t k = full; k < declared; k++)
      if (mem[k]) fz_fail("mdvec_config_init left byte %zu of the unknown tail nonzero", k);
    if (layout == 3) {
      size_t at = full + fz_pick(f, declared - full);
      mem[at] = (uint8_t)(1 + fz_pick(f, 255));
      tail_set = 1;
    }
  }
  int has_appended = valid && declared >= v11; /* the 1.1 fields */
  int has_dot = valid && declared >= v12;      /* the 1.2 fields */
  int has_kinds = valid && declared >= v13;    /* the 1.3 field */

  /* fields */
  uint16_t flags = fz_u16(f);
  char vbuf[256], tbuf[256], obuf[MAX_OPTS][512], nbuf[MAX_OPTS][128];
  mdvec_option_t *opts = NULL;
  int n_opts = 0;
  const char *task = NULL;
  if (valid) {
    if (flags & 0x0001) {
      static const int n[] = {1, 1, 2, 3, 4, 0, -1, INT_MIN};
      cfg->num_envs = n[fz_pick(f, 8)];
    }
    if (flags & 0x0002) {
      static const int t[] = {0, 1, 2, 3, 4, -1, 9, 16, INT_MAX, INT_MIN, 1025}; /* the pool takes <= 1024 */
      cfg->threads = t[fz_pick(f, 11)];
    }
    if (flags & 0x0004) cfg->allow_overcommit = fz_u8(f) & 1;
    if (flags & 0x0008) cfg->autoreset = fz_int(f);
    if (flags & 0x0010) cfg->seed = fz_seed(f);
    if (flags & 0x0020) {
      static const char *const v[] = {NULL, "default", "backlash", "backlash_lower", "", "Default"};
      uint8_t s = fz_u8(f) % 8;
      cfg->variant = s < 6 ? v[s] : s == 6 ? fz_str(f, vbuf, sizeof vbuf) : fz_pick_path(f);
    }
    if (flags & 0x0040) cfg->model_path = fz_pick_path(f);
    if (flags & 0x0080) {
      cfg->substeps = fz_int(f);
      cfg->episode_len = fz_int(f);
      cfg->n_pushes = fz_int(f);
      cfg->push_window[0] = fz_int(f);
      cfg->push_window[1] = fz_int(f);
      cfg->latency = fz_int(f);
    }
    if (flags & 0x0100) {
      cfg->action_scale = fz_double(f);
      cfg->push_speed[0] = fz_double(f);
      cfg->push_speed[1] = fz_double(f);
      cfg->init_noise = fz_double(f);
    }
    if (flags & 0x0200) {
      cfg->sensor_noise = fz_int(f);
      cfg->reward = fz_int(f);
      cfg->dr = fz_int(f);
    }
  }
  const char *decl_task = NULL; /* the task whose option names are used (the duck when unknown) */
  if (has_appended && (flags & 0x0400)) {
    /* below 0xF0: a task of the catalogue; 0xF0: NULL; 0xF1: ""; 0xF2: a name as text; above: odd names */
    uint8_t s = fz_u8(f);
    if (s < 0xF0)
      task = mdvec_task_name(s % mdvec_task_count());
    else if (s == 0xF0)
      task = NULL;
    else if (s == 0xF1)
      task = "";
    else if (s == 0xF2)
      task = fz_str(f, tbuf, sizeof tbuf);
    else {
      static const char *const odd[] = {"Hopper-v5 ", "hopper-v5", "duck\n", "DUCK", "Hopper-v4", "Hopper"};
      task = odd[(s - 0xF3) % 6];
    }
    cfg->task = task;
    if (mdvec_task_option_count(task) >= 0) decl_task = task;
  }
  if (has_appended && (flags & 0x0800)) {
    uint8_t s = fz_u8(f) % 10;
    int count = s < 8 ? s : 1 + (int)fz_pick(f, MAX_OPTS);
    opts = calloc((size_t)count, sizeof *opts); /* exactly count entries: a read past them is a report */
    if (!opts) {
      free(mem);
      return 0;
    }
    int n_decl = mdvec_task_option_count(decl_task);
    int xml_given = 0, suite_given = 0;
    for (int k = 0; k < count; k++) {
      uint8_t ns = fz_u8(f) % 8;
      mdvec_option_info_t o;
      const char *name;
      if (ns < 5) {
        o = (mdvec_option_info_t){.struct_size = sizeof o};
        name = mdvec_task_option(decl_task, (int)fz_pick(f, (size_t)(n_decl > 0 ? n_decl : 1)), &o) == MDVEC_OK
                 ? o.name
                 : "substeps";
      } else if (ns == 5) {
        name = NULL;
      } else if (ns == 6) {
        name = fz_str(f, nbuf[k], sizeof nbuf[k]);
      } else {
        static const char *const other[] = {
          "frame_skip",       "xml_file",        "substeps",   "reset_noise_scale", "max_episode_steps",
          "ctrl_cost_weight", "healthy_z_range", "reward",     "suite_dir",         "time_limit",
          "control_timestep", "n_sub_steps",     "legacy_step"};
        name = other[fz_pick(f, sizeof other / sizeof other[0])];
      }
      int known = find_decl(decl_task, name, &o);
      const char *value = fz_option_text(f, known ? &o : NULL, obuf[k], sizeof obuf[k]);
      /* a Gymnasium task's xml_file: usually its own asset, so the other options get exercised */
      if (name && !strcmp(name, "xml_file") && !xml_given && (fz_u8(f) & 3)) {
        const char *xml = fz_task_xml(decl_task);
        if (xml) value = xml;
      }
      xml_given |= name && !strcmp(name, "xml_file");
      /* a Control Suite task's suite_dir: usually dm_control's suite folder */
      if (name && !strcmp(name, "suite_dir") && !suite_given && (fz_u8(f) & 3)) {
        const char *suite = fz_task_suite(decl_task);
        if (suite) value = suite;
      }
      suite_given |= name && !strcmp(name, "suite_dir");
      opts[k] = (mdvec_option_t){name, value};
    }
    if (s < 8) {
      n_opts = count;
      cfg->options = opts;
    } else if (s == 8) {
      n_opts = -1 - (int)fz_pick(f, 3);
      cfg->options = opts;
    } else {
      n_opts = count;
      cfg->options = NULL;
    }
    cfg->n_options = n_opts;
  }
  /* the 1.2 dot: a mode in or out of range, each function pointer set or NULL */
  int dot_ok = 1;
  if (has_dot && (flags & 0x4000)) {
    static const int modes[] = {MDVEC_DOT_PLAIN, MDVEC_DOT_FMA, MDVEC_DOT_CBLAS, MDVEC_DOT_CBLAS64, -1, 4, INT_MIN};
    uint8_t d = fz_u8(f);
    cfg->dot = modes[d % 7];
    cfg->ddot = (d & 0x10) ? fz_ddot : NULL;
    cfg->ddot64 = (d & 0x20) ? fz_ddot64 : NULL;
    dot_ok = cfg->dot >= MDVEC_DOT_PLAIN && cfg->dot <= MDVEC_DOT_CBLAS64 &&
             (cfg->dot != MDVEC_DOT_CBLAS || cfg->ddot) && (cfg->dot != MDVEC_DOT_CBLAS64 || cfg->ddot64);
  }

  /* a Gymnasium task named without options: give it its asset most of the time; a Control Suite task: give it
   * dm_control's suite folder most of the time, after the options when they do not name suite_dir */
  mdvec_option_t xml_only[1];
  uint8_t give_xml = has_appended ? fz_u8(f) : 0;
  if (has_appended && !cfg->options && !cfg->n_options && fz_task_xml(cfg->task) && (give_xml & 3)) {
    xml_only[0] = (mdvec_option_t){"xml_file", fz_task_xml(cfg->task)};
    cfg->options = xml_only;
    cfg->n_options = 1;
  }
  const char *suite = has_appended ? fz_task_suite(cfg->task) : NULL;
  if (suite && (give_xml & 3)) {
    int named = 0;
    for (int k = 0; cfg->options && k < cfg->n_options; k++)
      named |= cfg->options[k].name && !strcmp(cfg->options[k].name, "suite_dir");
    if (!cfg->options && !cfg->n_options) {
      xml_only[0] = (mdvec_option_t){"suite_dir", suite};
      cfg->options = xml_only;
      cfg->n_options = 1;
    } else if (cfg->options == opts && cfg->n_options > 0 && !named) {
      mdvec_option_t *more = malloc((size_t)(cfg->n_options + 1) * sizeof *more); /* exactly n_options + 1 */
      if (more) {
        memcpy(more, opts, (size_t)cfg->n_options * sizeof *more);
        more[cfg->n_options] = (mdvec_option_t){"suite_dir", suite};
        free(opts);
        cfg->options = opts = more;
        cfg->n_options++;
      }
    }
  }

  /* the 1.3 option kinds: one per option, each MDVEC_VALUE_* or out of range (-1, 3) */
  int *kinds = NULL;
  if (has_kinds && cfg->options && cfg->n_options > 0 && (fz_u8(f) & 1)) {
    kinds = malloc((size_t)cfg->n_options * sizeof *kinds); /* exactly n_options entries */
    for (int k = 0; kinds && k < cfg->n_options; k++) kinds[k] = (int)(fz_u8(f) % 5) - 1;
    cfg->option_kinds = kinds;
  }

  /* the error buffer */
  uint8_t es = fz_u8(f) % 4;
  size_t err_size = es == 0 ? 1024 : es == 1 ? 100 : es == 2 ? 1 : 0;
  char *err = es == 1 ? NULL : malloc(err_size ? err_size : 1);
  if (err) memset(err, 'X', err_size ? err_size : 1);

  mdvec_t *h = (mdvec_t *)&rc; /* must be overwritten */
  rc = mdvec_create(&h, cfg, err, err_size);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_ARG && rc != MDVEC_ERR_CONFIG && rc != MDVEC_ERR_MODEL &&
      rc != MDVEC_ERR_NOMEM && rc != MDVEC_ERR_THREAD)
    fz_fail("mdvec_create returned %d", rc);
  if (err && err_size == 0 && err[0] != 'X') fz_fail("mdvec_create wrote into an error buffer of size 0");
  if (rc != MDVEC_OK) {
    if (h) fz_fail("mdvec_create returned %d and left *out = %p (not NULL)", rc, (void *)h);
    if (err && err_size) {
      if (!memchr(err, 0, err_size)) fz_fail("the error message is not NUL-terminated within %zu bytes", err_size);
      if (err_size > 1 && !err[0]) fz_fail("mdvec_create returned %d with an empty message", rc);
    }
    if (!valid && rc != MDVEC_ERR_ARG) fz_fail("struct_size %zu accepted (rc %d)", declared, rc);
    if (getenv("FUZZ_VERBOSE")) fprintf(stderr, "fuzz_config: rc %d: %s\n", rc, err && err_size ? err : "");
  } else {
    if (!valid || tail_set)
      fz_fail("mdvec_create accepted struct_size %zu%s", declared, tail_set ? " with a nonzero tail" : "");
    if (!dot_ok)
      fz_fail("mdvec_create accepted dot %d (ddot %s, ddot64 %s)", cfg->dot, cfg->ddot ? "set" : "NULL",
              cfg->ddot64 ? "set" : "NULL");
    if (!h) fz_fail("mdvec_create returned MDVEC_OK and no handle");
    mdvec_spec_t s = {.struct_size = sizeof s};
    mdvec_spec(h, &s);
    int want_ar = cfg->autoreset == 0 ? 0 : cfg->autoreset == 2 ? 2 : 1;
    const char *want_task = has_appended && cfg->task ? cfg->task : mdvec_task_name(0);
    if (s.num_envs != cfg->num_envs || s.autoreset != want_ar || strcmp(s.task, want_task))
      fz_fail("spec (N %d, autoreset %d, task %s) differs from the config (N %d, autoreset %d, task %s)", s.num_envs,
              s.autoreset, s.task, cfg->num_envs, cfg->autoreset, want_task);
    if (cfg->seed > s.seed_max || (uint64_t)(s.num_envs - 1) > s.seed_max - cfg->seed)
      fz_fail("mdvec_create accepted seed %llu for %d envs of task %s (seed_max %llu)", (unsigned long long)cfg->seed,
              s.num_envs, s.task, (unsigned long long)s.seed_max);
    int want_threads = cfg->threads < cfg->num_envs ? cfg->threads : cfg->num_envs; /* capped at N */
    if (cfg->threads > 0 && s.threads != want_threads)
      fz_fail("spec threads %d, asked %d for %d envs", s.threads, cfg->threads, cfg->num_envs);
    fz_query(h, f);
    fz_touch_buffers(h);
    if (flags & 0x1000) {
      int code = mdvec_reset(h);
      if (code != MDVEC_OK && code != MDVEC_ERR_PHYSICS) fz_fail("mdvec_reset returned %d", code);
      fz_touch_buffers(h);
      long long cost = step_cost(cfg, has_appended, s.task, has_appended ? cfg->options : NULL,
                                 has_appended ? cfg->n_options : 0, s.dt);
      if (code == MDVEC_OK && cost * s.num_envs <= 400) {
        size_t n = (size_t)s.num_envs * (size_t)s.act_dim;
        int dtype = fz_u8(f) & 1 ? MDVEC_DTYPE_F32 : MDVEC_DTYPE_F64;
        void *a = malloc(n * (dtype == MDVEC_DTYPE_F32 ? sizeof(float) : sizeof(double)));
        for (int step = 0; a && step < 2; step++) {
          fz_actions(f, a, n, dtype, h);
          code = mdvec_step_typed(h, a, dtype);
          if (code != MDVEC_OK && code != MDVEC_ERR_ACTION && code != MDVEC_ERR_PHYSICS && code != MDVEC_ERR_STATE)
            fz_fail("mdvec_step_typed returned %d", code);
          fz_touch_buffers(h);
        }
        free(a);
      }
    }
    mdvec_destroy(h);
  }
  if (flags & 0x2000) probe_catalogue(f);
  free(err);
  free(opts);
  free(kinds);
  free(mem);
  return 0;
}
