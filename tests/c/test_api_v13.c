/* The 1.3 calls: registration metadata by key (mdvec_task_meta), the spec's dt and reward kind, the info
 * fields' kinds, the 1.1 layouts of the two structs 1.3 appended to, and the options' kinds
 * (cfg.option_kinds: Ant-v5's main_body as an index or as a name). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "check.h"
#include "mdvec.h"

/* Create one env of task with options given as name, value pairs ended by NULL; the handle or NULL. */
static mdvec_t *open_task(const char *task, ...) {
  mdvec_option_t opts[8];
  int n = 0;
  va_list ap;
  va_start(ap, task);
  for (const char *name; n < 8 && (name = va_arg(ap, const char *));)
    opts[n++] = (mdvec_option_t){name, va_arg(ap, const char *)};
  va_end(ap);
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = task;
  cfg.options = opts;
  cfg.n_options = n;
  mdvec_t *h = NULL;
  char err[512];
  if (mdvec_create(&h, &cfg, err, sizeof err) != MDVEC_OK) {
    fprintf(stderr, "create %s: %s\n", task, err);
    return NULL;
  }
  return h;
}

/* Return the option of task named name (its struct filled into o), or 0 when there is none. */
static int find_option(const char *task, const char *name, mdvec_option_info_t *o) {
  for (int k = 0; k < mdvec_task_option_count(task); k++) {
    *o = (mdvec_option_info_t){.struct_size = sizeof *o};
    if (mdvec_task_option(task, k, o) == MDVEC_OK && !strcmp(o->name, name)) return 1;
  }
  return 0;
}

/* Return the kind of the info field called name, or 0 when the handle has no such field. */
static int field_kind(const mdvec_t *h, const char *name) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  if (mdvec_spec(h, &sp) != MDVEC_OK) return 0;
  for (int k = 0; k < sp.n_info; k++) {
    mdvec_field_t f = {.struct_size = sizeof f};
    if (mdvec_info_field(h, k, &f) == MDVEC_OK && !strcmp(f.name, name)) return f.kind;
  }
  return 0;
}

static void test_meta_keys(void) {
  CHECK(mdvec_version() == MDVEC_VERSION_NUMBER && MDVEC_VERSION_NUMBER >= 10300); /* 1.3 calls, in 1.3 and later */
  CHECK(mdvec_task_meta("nope", "id") == NULL);
  CHECK(mdvec_task_meta("duck", NULL) == NULL && mdvec_task_meta("duck", "no_such_key") == NULL);
  CHECK(mdvec_task_meta(NULL, "id") == mdvec_task_meta("duck", "id"));
  const char *duck_id = mdvec_task_meta("duck", "id");
  CHECK(duck_id && !strcmp(duck_id, "mdvec/DuckBalance-v0"));
  const char *duck_ref = mdvec_task_meta("duck", "reference");
  CHECK(duck_ref && !strcmp(duck_ref, "mdvec.reference:DuckEnv"));
  CHECK(mdvec_task_meta("duck", "reward_threshold") == NULL && mdvec_task_meta("duck", "render_kwargs") == NULL);

  int n = mdvec_task_count();
  for (int k = 0; k < n; k++) {
    const char *task = mdvec_task_name(k);
    const char *id = mdvec_task_meta(task, "id"), *ref = mdvec_task_meta(task, "reference");
    CHECK_THAT(WHAT("%s: an id under mdvec/", task), id && !strncmp(id, "mdvec/", 6) && strlen(id) > 6);
    CHECK_THAT(WHAT("%s: a reference", task), ref && ref[0]);
    for (int j = 0; j < k && id; j++) {
      const char *other = mdvec_task_meta(mdvec_task_name(j), "id");
      CHECK_THAT(WHAT("%s and %s: distinct ids", task, mdvec_task_name(j)), other && strcmp(id, other));
    }
    if (ref && !strchr(ref, ':')) { /* a Gymnasium id: mdvec registers it under mdvec/ with its name */
      CHECK_THAT(WHAT("%s: id mdvec/<reference>", task), id && !strcmp(id + 6, ref) && !strcmp(ref, task));
    }
    const char *thr = mdvec_task_meta(task, "reward_threshold");
    if (thr) {
      char *end;
      strtod(thr, &end);
      CHECK_THAT(WHAT("%s: reward_threshold %s is a number", task, thr), end != thr && *end == '\0');
    }
    /* each index option is a declared string option; no rendering keyword is an option */
    const char *lists[2] = {mdvec_task_meta(task, "index_options"), mdvec_task_meta(task, "render_kwargs")};
    for (int l = 0; l < 2; l++) {
      char buf[256];
      snprintf(buf, sizeof buf, "%s", lists[l] ? lists[l] : "");
      for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        mdvec_option_info_t o;
        int is_option = find_option(task, w, &o);
        if (l == 0)
          CHECK_THAT(WHAT("%s: index option %s is a string option", task, w), is_option && o.type == MDVEC_OPT_STRING);
        else
          CHECK_THAT(WHAT("%s: render keyword %s is not an option", task, w), !is_option);
      }
    }
  }
}

static void test_duck_spec_and_kinds(void) {
  mdvec_t *h = open_task("duck", "substeps", "7", NULL);
  CHECK(h != NULL);
  if (!h) return;
  mjModel *m = mj_loadXML(MDVEC_MODELS_DIR "/duck.xml", NULL, NULL, 0);
  CHECK(m != NULL);
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  CHECK(mdvec_spec(h, &sp) == MDVEC_OK && sp.struct_size == sizeof sp);
  if (m) CHECK_THAT(WHAT("duck dt %.17g", sp.dt), sp.dt == m->opt.timestep * 7);
  CHECK(sp.reward_kind == MDVEC_KIND_FLOAT);
  CHECK(field_kind(h, "t") == MDVEC_KIND_INT && field_kind(h, "pushed") == MDVEC_KIND_BOOL &&
        field_kind(h, "trunk_height") == MDVEC_KIND_FLOAT);
  mj_deleteModel(m);

  /* the 1.1 layouts: filled up to their end, the 1.3 fields left as they were; other sizes refused */
  size_t old_spec = offsetof(mdvec_spec_t, dt), old_field = offsetof(mdvec_field_t, kind);
  mdvec_spec_t s11;
  memset(&s11, 0xAB, sizeof s11);
  s11.struct_size = old_spec;
  CHECK(mdvec_spec(h, &s11) == MDVEC_OK && s11.struct_size == old_spec && s11.num_envs == 1 &&
        s11.obs_dim == sp.obs_dim);
  mdvec_spec_t untouched;
  memset(&untouched, 0xAB, sizeof untouched);
  CHECK(!memcmp(&s11.dt, &untouched.dt, sizeof s11.dt) && s11.reward_kind == untouched.reward_kind);
  mdvec_field_t f11;
  memset(&f11, 0xCD, sizeof f11);
  f11.struct_size = old_field;
  CHECK(mdvec_info_field(h, 0, &f11) == MDVEC_OK && f11.struct_size == old_field && !strcmp(f11.name, "t"));
  mdvec_field_t f_untouched;
  memset(&f_untouched, 0xCD, sizeof f_untouched);
  CHECK(f11.kind == f_untouched.kind);
  mdvec_spec_t bad = {.struct_size = old_spec + sizeof(double)};
  CHECK(mdvec_spec(h, &bad) == MDVEC_ERR_ARG &&
        mdvec_spec(h, &(mdvec_spec_t){.struct_size = old_spec - 1}) == MDVEC_ERR_ARG);
  CHECK(mdvec_info_field(h, 0, &(mdvec_field_t){.struct_size = old_field - 1}) == MDVEC_ERR_ARG);
  CHECK(mdvec_spec(h, NULL) == MDVEC_ERR_ARG && mdvec_info_field(h, 0, NULL) == MDVEC_ERR_ARG);
  CHECK(mdvec_spec(NULL, &sp) == MDVEC_ERR_ARG);
  mdvec_destroy(h);
}

/* Hopper-v5 and InvertedPendulum-v5 on Gymnasium's model files (skipped without them). */
static void test_gym_kinds(void) {
  const char *assets = getenv("MDVEC_GYM_ASSETS");
  if (!assets || !assets[0]) {
    printf("test_api_v13: Gymnasium's assets not found (MDVEC_GYM_ASSETS): the v5 kinds skipped\n");
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/hopper.xml", assets);
  mdvec_t *h = open_task("Hopper-v5", "xml_file", path, "frame_skip", "3", NULL);
  mjModel *m = mj_loadXML(path, NULL, NULL, 0);
  CHECK(h != NULL && m != NULL);
  if (h && m) {
    mdvec_spec_t sp = {.struct_size = sizeof sp};
    CHECK(mdvec_spec(h, &sp) == MDVEC_OK);
    CHECK_THAT(WHAT("Hopper dt %.17g", sp.dt), sp.dt == m->opt.timestep * 3);
    CHECK(sp.reward_kind == MDVEC_KIND_NUMPY);
    CHECK(field_kind(h, "reward_survive") == MDVEC_KIND_FLOAT && field_kind(h, "x_position") == MDVEC_KIND_NUMPY &&
          field_kind(h, "reward_ctrl") == MDVEC_KIND_NUMPY);
  }
  mj_deleteModel(m);
  mdvec_destroy(h);
  snprintf(path, sizeof path, "%s/inverted_pendulum.xml", assets);
  h = open_task("InvertedPendulum-v5", "xml_file", path, NULL);
  CHECK(h != NULL);
  if (h) {
    mdvec_spec_t sp = {.struct_size = sizeof sp};
    CHECK(mdvec_spec(h, &sp) == MDVEC_OK && sp.reward_kind == MDVEC_KIND_INT);
    CHECK(field_kind(h, "reward_survive") == MDVEC_KIND_INT);
  }
  mdvec_destroy(h);
}

/*---------------------------------- Option kinds (issue 25 item 5) -------------------------------*/

/* An ant-like model whose body 1 is named "3": bodies world (0), "3" (1, free), "leg" (2, hinge), "foot"
 * (3, hinge): bodies 1 and 3 move differently, so which one main_body tracks shows in x_velocity. */
static const char *const kNamedThree =
  "<mujoco><option timestep='0.01'/><worldbody><geom type='plane' size='5 5 .1'/>"
  "<body name='3' pos='0 0 .75'><freejoint/><geom size='.25'/>"
  "<body name='leg' pos='.3 0 0'><joint name='hip' type='hinge' axis='0 0 1'/><geom size='.08'/>"
  "<body name='foot' pos='.3 0 0'><joint name='knee' type='hinge' axis='0 1 0'/><geom size='.08'/>"
  "</body></body></body></worldbody><actuator><motor joint='hip' gear='30'/><motor joint='knee' gear='30'/>"
  "</actuator></mujoco>";

/* Create Ant-v5 on the model at path with main_body = text of kind (-1: cfg.option_kinds NULL); run 20
 * steps of constant actions and write each step's x_velocity into xvel. Return the create's code (its
 * message in err). */
static int run_main_body(const char *path, const char *text, int kind, double *xvel, char *err, size_t n) {
  mdvec_option_t opts[3] = {{"xml_file", path}, {"main_body", text}, {"reset_noise_scale", "0"}};
  int kinds[3] = {MDVEC_VALUE_TEXT, kind, MDVEC_VALUE_TEXT};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = "Ant-v5";
  cfg.options = opts;
  cfg.n_options = 3;
  cfg.option_kinds = kind < 0 ? NULL : kinds;
  mdvec_t *h = NULL;
  int code = mdvec_create(&h, &cfg, err, n);
  if (code != MDVEC_OK) return code;
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  int field = -1;
  code = mdvec_spec(h, &sp);
  for (int k = 0; code == MDVEC_OK && k < sp.n_info; k++) {
    mdvec_field_t f = {.struct_size = sizeof f};
    if (mdvec_info_field(h, k, &f) == MDVEC_OK && !strcmp(f.name, "x_velocity")) field = k;
  }
  double actions[2] = {0.8, -0.6};
  if (code == MDVEC_OK && field >= 0 && sp.act_dim == 2 && (code = mdvec_reset(h)) == MDVEC_OK) {
    for (int t = 0; t < 20 && (code = mdvec_step(h, actions)) == MDVEC_OK; t++) xvel[t] = mdvec_info(h)[field];
  } else if (code == MDVEC_OK) {
    code = -1000;
  }
  snprintf(err, n, "%s", code == MDVEC_OK ? "" : mdvec_errmsg(h));
  mdvec_destroy(h);
  return code;
}

static void test_index_option_kinds(void) {
  char path[] = "/tmp/mdvec_named_three_XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  CHECK(f != NULL);
  if (!f) return;
  fputs(kNamedThree, f);
  fclose(f);
  mjModel *m = mj_loadXML(path, NULL, NULL, 0);
  CHECK(m && m->nbody == 4 && mj_name2id(m, mjOBJ_BODY, "3") == 1);
  mj_deleteModel(m);
  char err[512] = "";
  double by_name[20], body1[20], by_index[20], by_text[20], xv[20];
  int code = run_main_body(path, "3", MDVEC_VALUE_STR, by_name, err, sizeof err);
  CHECK_THAT(WHAT("main_body STR '3': the body named '3' (%s)", err), code == MDVEC_OK);
  CHECK(run_main_body(path, "1", MDVEC_VALUE_INT, body1, err, sizeof err) == MDVEC_OK);
  CHECK(run_main_body(path, "3", MDVEC_VALUE_INT, by_index, err, sizeof err) == MDVEC_OK);
  CHECK(run_main_body(path, "3", -1, by_text, err, sizeof err) == MDVEC_OK); /* no kinds: the 1.1 rule */
  CHECK_THAT("main_body STR '3' tracks body 1 (named '3'), as INT 1", !memcmp(by_name, body1, sizeof body1));
  CHECK_THAT("main_body INT 3 and TEXT '3' track body 3", !memcmp(by_index, by_text, sizeof by_text));
  CHECK_THAT("bodies 1 and 3 differ in x_velocity", memcmp(by_name, by_index, sizeof by_index) != 0);
  CHECK(run_main_body(path, "3", MDVEC_VALUE_TEXT, xv, err, sizeof err) == MDVEC_OK && !memcmp(xv, by_text, sizeof xv));
  CHECK(run_main_body(path, "foot", MDVEC_VALUE_STR, xv, err, sizeof err) == MDVEC_OK &&
        !memcmp(xv, by_index, sizeof xv));
  /* names that look like numbers name no body, as data.body("01") raises KeyError */
  const char *no_body[] = {"01", "+1", "1", "", "world "};
  for (int k = 0; k < 5; k++) {
    code = run_main_body(path, no_body[k], MDVEC_VALUE_STR, xv, err, sizeof err);
    CHECK_THAT(WHAT("main_body STR '%s' refused: %s", no_body[k], err),
               code == MDVEC_ERR_CONFIG && strstr(err, "is not a body name") && strstr(err, "'foot'"));
  }
  code = run_main_body(path, "4", MDVEC_VALUE_INT, xv, err, sizeof err);
  CHECK_THAT(WHAT("main_body INT 4: out of range (%s)", err), code == MDVEC_ERR_CONFIG && strstr(err, "from 0 to 3"));
  code = run_main_body(path, "foot", MDVEC_VALUE_INT, xv, err, sizeof err);
  CHECK_THAT(WHAT("main_body INT 'foot': not an integer (%s)", err),
             code == MDVEC_ERR_CONFIG && strstr(err, "main_body") && strstr(err, "not a decimal integer"));
  code = run_main_body(path, "3", 3, xv, err, sizeof err);
  CHECK_THAT(WHAT("kind 3 refused (%s)", err), code == MDVEC_ERR_CONFIG && strstr(err, "option_kinds"));
  remove(path);
}

/* A 1.2 caller's config (it ends after ddot64) is accepted: option_kinds then counts as NULL. */
static void test_config_1_2_layout(void) {
  const size_t v12 = offsetof(mdvec_config_t, option_kinds);
  unsigned char *bytes = malloc(v12); /* exactly the 1.2 struct: a read of option_kinds is an ASan report */
  mdvec_config_t *cfg = (mdvec_config_t *)bytes;
  size_t size = 0; /* struct_size, read as bytes: the compiler knows cfg points at a shorter block */
  CHECK(bytes && mdvec_config_init(cfg, v12) == MDVEC_OK && memcpy(&size, bytes, sizeof size) && size == v12);
  mdvec_t *h = NULL;
  char err[512] = "";
  int code = bytes ? mdvec_create(&h, cfg, err, sizeof err) : MDVEC_ERR_NOMEM;
  CHECK_THAT(WHAT("create with the 1.2 layout (%s)", err), code == MDVEC_OK && h);
  mdvec_destroy(h);
  free(bytes);
}

/* A 1.3 caller's config (it ends after option_kinds) is accepted: dgemv and dgemv64 (1.4) then count as NULL. */
static void test_config_1_3_layout(void) {
  const size_t v13 = offsetof(mdvec_config_t, dgemv);
  CHECK(v13 == offsetof(mdvec_config_t, option_kinds) + sizeof(const int *) && v13 < sizeof(mdvec_config_t));
  unsigned char *bytes = malloc(v13); /* exactly the 1.3 struct: a read of dgemv is an ASan report */
  mdvec_config_t *cfg = (mdvec_config_t *)bytes;
  size_t size = 0;
  CHECK(bytes && mdvec_config_init(cfg, v13) == MDVEC_OK && memcpy(&size, bytes, sizeof size) && size == v13);
  CHECK(mdvec_config_init(cfg, v13 + 8) == MDVEC_ERR_ARG); /* between two layouts */
  mdvec_t *h = NULL;
  char err[512] = "";
  int code = bytes ? mdvec_create(&h, cfg, err, sizeof err) : MDVEC_ERR_NOMEM;
  CHECK_THAT(WHAT("create with the 1.3 layout (%s)", err), code == MDVEC_OK && h);
  mdvec_destroy(h);
  free(bytes);
}

/* cfg.ddot64 and cfg.dgemv64 for the CBLAS64 mode: left-to-right sums from 0.0 (PLAIN's), the dgemv
 * counting its calls; row-major only, as numpy calls it. */
static int g_dgemv_calls;
static double plain_ddot64(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
  return s;
}
static void plain_dgemv64(int order, int trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                          const double *x, int64_t incx, double beta, double *y, int64_t incy) {
  __atomic_fetch_add(&g_dgemv_calls, 1, __ATOMIC_RELAXED);
  if (order != 101 || alpha != 1.0 || beta != 0.0 || incx != 1 || incy != 1) return; /* y stays 0: a failure */
  if (trans == 112) /* y = A^T x: y[k] = sum over i of x[i] * a[i][k] */
    for (int64_t k = 0; k < n; k++) y[k] = plain_ddot64(m, x, 1, a + k, lda);
  else
    for (int64_t r = 0; r < m; r++) y[r] = plain_ddot64(n, a + r * lda, 1, x, 1);
}

/* The Control Suite tasks with a vector-matrix .dot (fish-swim, humanoid-walk) call cfg.dgemv64 in the
 * CBLAS64 mode, and equal the PLAIN mode when it computes PLAIN's sums. */
static void test_dgemv_is_numpys(void) {
  const char *suite = getenv("MDVEC_DM_SUITE");
  if (!suite || !suite[0]) {
    printf("test_dgemv_is_numpys: skipped, MDVEC_DM_SUITE is unset (dm_control not installed)\n");
    return;
  }
  const char *tasks[] = {"fish-swim", "humanoid-walk"};
  for (int t = 0; t < 2; t++) {
    mdvec_t *h[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
      mdvec_option_t opt = {"suite_dir", suite};
      mdvec_config_t cfg;
      mdvec_config_default(&cfg);
      cfg.task = tasks[t], cfg.options = &opt, cfg.n_options = 1, cfg.num_envs = 2, cfg.seed = 7;
      if (k) cfg.dot = MDVEC_DOT_CBLAS64, cfg.ddot64 = plain_ddot64, cfg.dgemv64 = plain_dgemv64;
      char err[512] = "";
      CHECK_THAT(WHAT("create %s (%s)", tasks[t], err), mdvec_create(&h[k], &cfg, err, sizeof err) == MDVEC_OK);
    }
    if (!h[0] || !h[1]) continue;
    mdvec_dims_t dims = {.struct_size = sizeof dims};
    mdvec_spec_t sp = {.struct_size = sizeof sp};
    CHECK(mdvec_dims(h[0], &dims) == MDVEC_OK && mdvec_spec(h[0], &sp) == MDVEC_OK && sp.obs_dtype == MDVEC_DTYPE_F64);
    g_dgemv_calls = 0;
    double actions[2 * 32] = {0};
    int equal = 1;
    for (int step = 0; step < 20; step++) {
      for (int k = 0; k < 2; k++) {
        for (int a = 0; a < 2 * dims.nu && a < 64; a++) actions[a] = ((step * 7 + a * 3) % 11 - 5) / 5.0;
        CHECK(step ? mdvec_step(h[k], actions) == MDVEC_OK : mdvec_reset(h[k]) == MDVEC_OK);
      }
      equal &= !memcmp(mdvec_obs_data(h[0]), mdvec_obs_data(h[1]), sizeof(double) * 2 * (size_t)dims.obs_dim);
    }
    CHECK_THAT(WHAT("%s calls cfg.dgemv64 (%d calls)", tasks[t], g_dgemv_calls), g_dgemv_calls > 0);
    CHECK_THAT(WHAT("%s: the CBLAS64 mode with PLAIN's functions equals PLAIN", tasks[t]), equal);
    mdvec_destroy(h[0]);
    mdvec_destroy(h[1]);
  }
}

int main(void) {
  test_meta_keys();
  test_duck_spec_and_kinds();
  test_gym_kinds();
  test_index_option_kinds();
  test_config_1_2_layout();
  test_config_1_3_layout();
  test_dgemv_is_numpys();
  return check_summary("test_api_v13");
}
