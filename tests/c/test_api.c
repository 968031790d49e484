/* Every public function refuses bad arguments with a code and a message, and changes nothing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mdvec.h"

static mdvec_t *make(int num_envs, int threads) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = num_envs;
  cfg.threads = threads;
  mdvec_t *h = NULL;
  char err[256];
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  return h;
}

/* Return the code of creating with one field changed, and leave the message in err. */
static int create_with(void (*edit)(mdvec_config_t *), char *err, size_t n) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  edit(&cfg);
  mdvec_t *h = (mdvec_t *)&cfg; /* must be overwritten with NULL on failure */
  int code = mdvec_create(&h, &cfg, err, n);
  if (code == MDVEC_OK)
    mdvec_destroy(h);
  else
    CHECK(h == NULL);
  return code;
}

static void zero_envs(mdvec_config_t *c) {
  c->num_envs = 0;
}
static void too_many_threads(mdvec_config_t *c) {
  c->threads = MDVEC_THREAD_BUDGET + 1;
  c->num_envs = 16;
}
static void too_many_threads_for_10_envs(mdvec_config_t *c) { /* one per env lowers 16 to 10: still over */
  c->threads = 16;
  c->num_envs = 10;
}
static void too_many_threads_for_2000_envs(mdvec_config_t *c) { /* over the pool's limit, overcommit or not */
  c->threads = 5000;
  c->num_envs = 2000;
  c->allow_overcommit = 1;
}
static void overcommit(mdvec_config_t *c) {
  c->threads = MDVEC_THREAD_BUDGET + 1;
  c->allow_overcommit = 1;
  c->num_envs = 9;
}
static void bad_reward(mdvec_config_t *c) {
  c->reward = 3;
}
static void bad_variant(mdvec_config_t *c) {
  c->variant = "wobbly";
}
static void bad_window(mdvec_config_t *c) {
  c->n_pushes = 5;
  c->push_window[0] = 10;
  c->push_window[1] = 13;
}
static void bad_noise(mdvec_config_t *c) {
  c->init_noise = -0.1;
}
static void bad_latency(mdvec_config_t *c) {
  c->latency = -1;
}
static void bad_substeps(mdvec_config_t *c) {
  c->substeps = 0;
}
static void bad_speed(mdvec_config_t *c) {
  c->push_speed[0] = NAN;
}
static void bad_scale(mdvec_config_t *c) {
  c->action_scale = INFINITY;
}
static void bad_size(mdvec_config_t *c) {
  c->struct_size -= 4; /* between this layout and the 1.2 one (8 bytes shorter): no layout */
}
static void missing_file(mdvec_config_t *c) {
  c->model_path = "/nonexistent/duck.xml";
}

static void test_create_errors(void) {
  char err[512];
  CHECK(mdvec_create(NULL, NULL, err, sizeof err) == MDVEC_ERR_ARG);
  CHECK(create_with(zero_envs, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "num_envs"));
  CHECK(create_with(too_many_threads, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "allow_overcommit"));
  CHECK(create_with(overcommit, err, sizeof err) == MDVEC_OK);
  /* issue 25 item 10: the message names the count asked for, not only the one it was lowered to */
  int code = create_with(too_many_threads_for_10_envs, err, sizeof err);
  CHECK_THAT(WHAT("16 threads for 10 envs: %s", err),
             code == MDVEC_ERR_CONFIG && strstr(err, "threads: 10 (16 asked, at most one per env) exceeds the budget"));
  code = create_with(too_many_threads_for_2000_envs, err, sizeof err);
  CHECK_THAT(
    WHAT("5000 threads for 2000 envs: %s", err),
    code == MDVEC_ERR_CONFIG && strstr(err, "threads: 2000 (5000 asked, at most one per env) exceeds the most"));
  CHECK(create_with(bad_reward, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "reward"));
  CHECK(create_with(bad_variant, err, sizeof err) == MDVEC_ERR_MODEL && strstr(err, "wobbly"));
  CHECK(create_with(bad_window, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "push_window"));
  CHECK(create_with(bad_noise, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "init_noise"));
  CHECK(create_with(bad_latency, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "latency"));
  CHECK(create_with(bad_substeps, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "substeps"));
  CHECK(create_with(bad_speed, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "push_speed"));
  CHECK(create_with(bad_scale, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "action_scale"));
  CHECK(create_with(bad_size, err, sizeof err) == MDVEC_ERR_ARG && strstr(err, "struct_size"));
  CHECK(create_with(missing_file, err, sizeof err) == MDVEC_ERR_MODEL && strstr(err, "/nonexistent/duck.xml"));
  CHECK(create_with(bad_noise, NULL, 0) == MDVEC_ERR_CONFIG); /* no buffer: still a code */
}

static void test_null_handle(void) {
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  double a[14] = {0};
  mdvec_destroy(NULL);
  CHECK(strlen(mdvec_errmsg(NULL)) > 0);
  CHECK(mdvec_dims(NULL, &dims) == MDVEC_ERR_ARG);
  CHECK(mdvec_seed(NULL, 1) == MDVEC_ERR_ARG);
  CHECK(mdvec_reset(NULL) == MDVEC_ERR_ARG);
  CHECK(mdvec_reset_with_params(NULL, 0, NULL) == MDVEC_ERR_ARG);
  CHECK(mdvec_step(NULL, a) == MDVEC_ERR_ARG);
  CHECK(!mdvec_obs(NULL) && !mdvec_terminal_obs(NULL) && !mdvec_reward(NULL) && !mdvec_done(NULL) && !mdvec_info(NULL));
  CHECK(mdvec_info_name(NULL, 0) == NULL);
  mdvec_config_default(NULL);
  CHECK(strcmp(mdvec_strerror(MDVEC_ERR_ACTION), "non-finite action") == 0);
  CHECK(strcmp(mdvec_strerror(12345), "unknown code") == 0);
  CHECK(mdvec_version() == MDVEC_VERSION_NUMBER);
  CHECK(mdvec_mujoco_version() > 0);
}

/* Copy every output buffer of a handle, to check that a refused call changed nothing. */
typedef struct {
  float obs[4 * 48], term[4 * 48];
  double reward[4], info[4 * 13];
  uint8_t done[4];
} snap_t;

static void snap(const mdvec_t *h, snap_t *s) {
  memset(s, 0, sizeof *s); /* padding too, so whole snapshots compare with memcmp */
  memcpy(s->obs, mdvec_obs(h), sizeof s->obs);
  memcpy(s->term, mdvec_terminal_obs(h), sizeof s->term);
  memcpy(s->reward, mdvec_reward(h), sizeof s->reward);
  memcpy(s->info, mdvec_info(h), sizeof s->info);
  memcpy(s->done, mdvec_done(h), sizeof s->done);
}

static void test_handle_errors(void) {
  mdvec_t *h = make(4, 2), *twin = make(4, 2);
  if (!h || !twin) return;
  double actions[4 * 14];
  for (int k = 0; k < 4 * 14; k++) actions[k] = 0.3 * sin(k);
  CHECK(mdvec_step(h, actions) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "reset"));
  mdvec_reset(h);
  mdvec_reset(twin);
  mdvec_step(h, actions);
  mdvec_step(twin, actions);

  mdvec_dims_t dims = {.struct_size = 3};
  CHECK(mdvec_dims(h, &dims) == MDVEC_ERR_ARG);
  dims.struct_size = sizeof dims;
  CHECK(mdvec_dims(h, &dims) == MDVEC_OK && dims.nu == 14 && dims.obs_dim == 48 && dims.n_info == 13);
  CHECK(strcmp(mdvec_info_name(h, 3), "trunk_height") == 0);
  CHECK(mdvec_info_name(h, 13) == NULL && mdvec_info_name(h, -1) == NULL);

  snap_t before, after;
  snap(h, &before);
  double bad[4 * 14];
  memcpy(bad, actions, sizeof bad);
  bad[3 * 14 + 5] = NAN; /* the last env's action: earlier envs must not have advanced either */
  CHECK(mdvec_step(h, bad) == MDVEC_ERR_ACTION && strstr(mdvec_errmsg(h), "env 3"));
  bad[3 * 14 + 5] = INFINITY;
  CHECK(mdvec_step(h, bad) == MDVEC_ERR_ACTION);
  CHECK(mdvec_step(h, NULL) == MDVEC_ERR_ARG);
  CHECK(mdvec_reset_with_params(h, 4, NULL) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "out of range"));
  CHECK(mdvec_reset_with_params(h, -1, NULL) == MDVEC_ERR_ARG);
  CHECK(mdvec_reset_with_params(h, 0, NULL) == MDVEC_ERR_ARG);

  double qpos[14] = {0}, qvel[14] = {0}, vel[6] = {0.1, 0.2, 0.3, 0.1, 0.2, 0.3};
  int64_t steps[3] = {30, 60, 90};
  mdvec_params_t p = {.struct_size = sizeof p,
                      .qpos = qpos,
                      .qvel = qvel,
                      .n_pushes = 3,
                      .push_steps = steps,
                      .push_vel = vel,
                      .noise_scale = 1.0};
  mdvec_params_t q = p;
  q.struct_size = 8;
  CHECK(mdvec_reset_with_params(h, 0, &q) == MDVEC_ERR_ARG);
  q = p;
  q.n_pushes = 2;
  CHECK(mdvec_reset_with_params(h, 0, &q) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "push"));
  q = p;
  q.qpos = NULL;
  CHECK(mdvec_reset_with_params(h, 0, &q) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "qpos"));
  qvel[2] = NAN;
  CHECK(mdvec_reset_with_params(h, 0, &p) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "qvel"));
  qvel[2] = 0;
  steps[2] = 250;
  CHECK(mdvec_reset_with_params(h, 0, &p) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "push_steps"));
  steps[2] = 90;
  q = p;
  q.latency = 3;
  CHECK(mdvec_reset_with_params(h, 0, &q) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "latency"));
  q = p;
  q.init_noise = -1;
  CHECK(mdvec_reset_with_params(h, 0, &q) == MDVEC_ERR_PARAMS && strstr(mdvec_errmsg(h), "init_noise"));
  snap(h, &after);
  CHECK(!memcmp(before.obs, after.obs, sizeof before.obs));
  CHECK(!memcmp(before.term, after.term, sizeof before.term));
  CHECK(!memcmp(before.reward, after.reward, sizeof before.reward));
  CHECK(!memcmp(before.info, after.info, sizeof before.info));
  CHECK(!memcmp(before.done, after.done, sizeof before.done));

  /* After all the refusals, h continues exactly like its twin that never saw them. */
  mdvec_step(h, actions);
  mdvec_step(twin, actions);
  snap(h, &before);
  snap(twin, &after);
  CHECK(!memcmp(&before, &after, sizeof before));

  CHECK(mdvec_reset_with_params(h, 1, &p) == MDVEC_OK);
  mdvec_destroy(h);
  mdvec_destroy(twin);
}

int main(void) {
  test_create_errors();
  test_null_handle();
  test_handle_errors();
  return check_summary("test_api");
}
