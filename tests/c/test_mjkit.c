/* test_mjkit.c: the task kit (tasks/mjkit.[ch]) by itself, on made-up task descriptions: each of the
 * three model sources loads (an MJCF string, a file embedded at build time, a path option), and each
 * bad description or model is refused with an error code and a message naming the task, never a crash
 * and never a MUJOCO_LOG.TXT; the defaults fill the spec, make an env and run its reset and step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tasks/mjkit.h"

static const char kPendulum[] =
  "<mujoco><worldbody><body><joint name='hinge' type='hinge' axis='0 1 0'/>"
  "<geom type='capsule' fromto='0 0 0 0 0 0.5' size='0.05'/></body></worldbody>"
  "<actuator><motor joint='hinge' ctrlrange='-2 2'/></actuator></mujoco>";

static int obs_setup(void *shared, const mdv_value *opts, mdv_spec *spec, char *err, size_t n) {
  (void)shared, (void)opts, (void)err, (void)n;
  spec->obs_dim = 2;
  return MDVEC_OK;
}

/* mk_create with def and opts; return the code, the shared part in *sh (NULL on error) and the message. */
static int create(const mk_def *def, const mdv_value *opts, void **sh, mdv_spec *spec, char *err, size_t n) {
  static const mdv_dot dot; /* unused by these tasks */
  memset(spec, 0, sizeof *spec);
  err[0] = 0;
  return mk_create(def, sh, opts, &dot, spec, err, n);
}

static void check_sources(void) {
  char err[1200];
  mdv_spec spec;
  void *sh;
  mdv_value none[1] = {{{0, 0}, {0, 0}, NULL, 0, MDVEC_VALUE_TEXT}};

  mk_def str = {.task = "kit_string",
                .model_from = MK_MODEL_STRING,
                .model = kPendulum,
                .frame_skip = 3,
                .max_episode_steps = 2,
                .setup = obs_setup};
  CHECK_THAT(WHAT("an MJCF string loads (%s)", err), create(&str, none, &sh, &spec, err, sizeof err) == MDVEC_OK);
  if (sh) {
    const mk_shared *k = sh;
    CHECK(spec.act_dim == 1 && spec.act_low[0] == -2.0 && spec.act_high[0] == 2.0 && spec.obs_dim == 2);
    CHECK(spec.obs_dtype == MDVEC_DTYPE_F64 && spec.env_size == sizeof(mk_env) && spec.model_path == NULL);
    CHECK(spec.max_episode_steps == 2 && k->frame_skip == 3 && k->dt == 3 * k->m->opt.timestep);
    CHECK(mdv_spec_check("kit_string", &spec, err, sizeof err) == MDVEC_OK);
    mk_env *e = calloc(1, spec.env_size);
    CHECK(e && mk_env_init(e, sh, err, sizeof err) == 0);
    if (e && e->d) { /* the kit's pieces: a reset, two steps, the time limit on the second */
      mk_reset_begin(e);
      mk_set_state_done(e);
      double a = 1.0;
      mk_do_simulation(e, &a);
      CHECK(e->d->ctrl[0] == 1.0 && e->d->time == 3 * k->m->opt.timestep);
      CHECK(mk_time_limit(e) == 0 && mk_time_limit(e) == 1);
      const mjModel *m;
      mjData *d;
      mk_physics(e, &m, &d);
      CHECK(m == k->m && d == e->d);
    }
    mk_env_free(e);
    mk_env_free(e); /* safe twice (zeroed after the first) */
    free(e);
    mk_destroy(sh);
  }

  mk_def emb = {
    .task = "kit_embedded", .model_from = MK_MODEL_EMBEDDED, .model = "duck.xml", .frame_skip = 1, .setup = obs_setup};
  CHECK_THAT(WHAT("an embedded file loads (%s)", err), create(&emb, none, &sh, &spec, err, sizeof err) == MDVEC_OK);
  CHECK(sh && spec.act_dim == 14 && spec.nq > 7);
  mk_destroy(sh);

  mdv_value path[1] = {{{0, 0}, {0, 0}, MDVEC_MODELS_DIR "/duck.xml", 1, MDVEC_VALUE_TEXT}};
  mk_def opt = {
    .task = "kit_path", .model_from = MK_MODEL_OPTION, .model_option = MK_OPT(0), .frame_skip = 1, .setup = obs_setup};
  CHECK_THAT(WHAT("a path option loads (%s)", err), create(&opt, path, &sh, &spec, err, sizeof err) == MDVEC_OK);
  CHECK(sh && spec.model_path && !strcmp(spec.model_path, MDVEC_MODELS_DIR "/duck.xml"));
  mk_destroy(sh);
}

static void check_refusals(void) {
  char err[1200];
  mdv_spec spec;
  void *sh;
  mdv_value none[1] = {{{0, 0}, {0, 0}, NULL, 0, MDVEC_VALUE_TEXT}};
  mdv_value dir[1] = {{{0, 0}, {0, 0}, "/tmp", 1, MDVEC_VALUE_TEXT}};
  struct {
    const char *what;
    mk_def def;
    const mdv_value *opts;
    int code;
  } bad[] = {
    {"malformed MJCF text",
     {.task = "kit_bad",
      .model_from = MK_MODEL_STRING,
      .model = "<mujoco><nonsense/>",
      .frame_skip = 1,
      .setup = obs_setup},
     none,
     MDVEC_ERR_MODEL},
    {"a model with no actuator",
     {.task = "kit_bad", .model_from = MK_MODEL_STRING, .model = "<mujoco/>", .frame_skip = 1, .setup = obs_setup},
     none,
     MDVEC_ERR_MODEL},
    {"an unknown embedded file",
     {.task = "kit_bad", .model_from = MK_MODEL_EMBEDDED, .model = "nothing.xml", .frame_skip = 1, .setup = obs_setup},
     none,
     MDVEC_ERR_MODEL},
    {"an empty path option",
     {.task = "kit_bad", .model_from = MK_MODEL_OPTION, .model_option = MK_OPT(0), .frame_skip = 1, .setup = obs_setup},
     none,
     MDVEC_ERR_CONFIG},
    {"a directory as the path",
     {.task = "kit_bad", .model_from = MK_MODEL_OPTION, .model_option = MK_OPT(0), .frame_skip = 1, .setup = obs_setup},
     dir,
     MDVEC_ERR_MODEL},
    {"no model source in the description",
     {.task = "kit_bad", .frame_skip = 1, .setup = obs_setup},
     none,
     MDVEC_ERR_MODEL},
    {"frame_skip 0 in the description",
     {.task = "kit_bad", .model_from = MK_MODEL_STRING, .model = kPendulum, .setup = obs_setup},
     none,
     MDVEC_ERR_MODEL},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    int code = create(&bad[k].def, bad[k].opts, &sh, &spec, err, sizeof err);
    CHECK_THAT(WHAT("%s refused with code %d naming the task (got %d: %s)", bad[k].what, bad[k].code, code, err),
               code == bad[k].code && sh == NULL && strstr(err, "kit_bad"));
  }
}

/* The size of MUJOCO_LOG.TXT in the working directory, -1 when there is none. */
static long log_size(void) {
  FILE *f = fopen("MUJOCO_LOG.TXT", "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

int main(void) {
  long before = log_size();
  check_sources();
  check_refusals();
  CHECK_THAT("no MUJOCO_LOG.TXT written", log_size() == before);
  return check_summary("test_mjkit");
}
