/* Results never depend on the thread count; a pool equals single handles; DR restores exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mdvec.h"
#include "options.h"
#include "tasks/duck.h"

#define N_ENVS 8
#define STEPS  300

/* A fixed pseudo-random action in [-1.2, 1.2] for (step, env, actuator). */
static double action_at(int step, int env, int k) {
  uint64_t x = (uint64_t)step * 0x9E3779B97F4A7C15u ^ (uint64_t)(env * 131 + k) * 0xBF58476D1CE4E5B9u;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBu;
  x ^= x >> 29;
  return -1.2 + 2.4 * (double)(x >> 11) / 9007199254740992.0;
}

static mdvec_config_t task_config(int num_envs, int threads) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = num_envs;
  cfg.threads = threads;
  cfg.seed = 42;
  cfg.dr = 1;
  cfg.sensor_noise = 1;
  cfg.init_noise = 0.02;
  cfg.latency = 1;
  cfg.episode_len = 120; /* 300 steps cross two autoresets */
  cfg.push_window[0] = 10;
  cfg.push_window[1] = 110;
  return cfg;
}

typedef struct { /* every output buffer of every step, concatenated */
  float *obs, *terminal;
  double *reward, *info;
  uint8_t *done;
} trace_t;

static void trace_alloc(trace_t *t, int n, int obs_dim, int n_info) {
  t->obs = calloc((size_t)(STEPS + 1) * n * obs_dim, sizeof(float));
  t->terminal = calloc((size_t)STEPS * n * obs_dim, sizeof(float));
  t->reward = calloc((size_t)STEPS * n, sizeof(double));
  t->info = calloc((size_t)STEPS * n * n_info, sizeof(double));
  t->done = calloc((size_t)STEPS * n, 1);
}

static void trace_free(trace_t *t) {
  free(t->obs);
  free(t->terminal);
  free(t->reward);
  free(t->info);
  free(t->done);
}

/* Run STEPS steps of a pool with T threads and record every buffer. */
static void run_pool(int threads, trace_t *t) {
  mdvec_config_t cfg = task_config(N_ENVS, threads);
  mdvec_t *h = NULL;
  char err[256];
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  if (!h) {
    fprintf(stderr, "mdvec_create: %s\n", err);
    exit(check_summary("test_equality"));
  }
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  mdvec_dims(h, &dims);
  CHECK(dims.threads == threads);
  size_t ob = (size_t)N_ENVS * dims.obs_dim;
  trace_alloc(t, N_ENVS, dims.obs_dim, dims.n_info);
  double *actions = malloc(sizeof(double) * N_ENVS * dims.nu);
  mdvec_reset(h);
  memcpy(t->obs, mdvec_obs(h), ob * sizeof(float));
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < N_ENVS; i++)
      for (int k = 0; k < dims.nu; k++) actions[i * dims.nu + k] = action_at(s, i, k);
    CHECK(mdvec_step(h, actions) == MDVEC_OK);
    memcpy(t->obs + (s + 1) * ob, mdvec_obs(h), ob * sizeof(float));
    memcpy(t->terminal + s * ob, mdvec_terminal_obs(h), ob * sizeof(float));
    memcpy(t->reward + s * N_ENVS, mdvec_reward(h), N_ENVS * sizeof(double));
    memcpy(t->done + s * N_ENVS, mdvec_done(h), N_ENVS);
    memcpy(t->info + (size_t)s * N_ENVS * dims.n_info, mdvec_info(h), sizeof(double) * N_ENVS * dims.n_info);
  }
  free(actions);
  mdvec_destroy(h);
}

static int traces_equal(const trace_t *a, const trace_t *b, int obs_dim, int n_info) {
  size_t ob = (size_t)N_ENVS * obs_dim;
  return !memcmp(a->obs, b->obs, (STEPS + 1) * ob * sizeof(float)) &&
         !memcmp(a->terminal, b->terminal, STEPS * ob * sizeof(float)) &&
         !memcmp(a->reward, b->reward, STEPS * N_ENVS * sizeof(double)) && !memcmp(a->done, b->done, STEPS * N_ENVS) &&
         !memcmp(a->info, b->info, (size_t)STEPS * N_ENVS * n_info * sizeof(double));
}

/* The same steps on 1, 2 and 4 threads give identical buffers, terminal observations included. */
static void test_thread_independence(void) {
  trace_t t1, t2, t4;
  run_pool(1, &t1);
  run_pool(2, &t2);
  run_pool(4, &t4);
  int obs_dim = 48, n_info = 13;
  CHECK(traces_equal(&t1, &t2, obs_dim, n_info));
  CHECK(traces_equal(&t1, &t4, obs_dim, n_info));
  int dones = 0;
  for (int k = 0; k < STEPS * N_ENVS; k++) dones += t1.done[k];
  CHECK(dones == 2 * N_ENVS); /* both autoresets happened */
  trace_free(&t1);
  trace_free(&t2);
  trace_free(&t4);
}

/* N envs in one pool equal N single-env handles (seeded seed + i) stepped one after another. */
static void test_pool_equals_singles(void) {
  trace_t pool;
  run_pool(3, &pool);
  mdvec_t *single[N_ENVS] = {0};
  char err[256];
  int nu = 14, obs_dim = 48, n_info = 13, same = 1;
  for (int i = 0; i < N_ENVS; i++) {
    mdvec_config_t cfg = task_config(1, 1);
    cfg.seed = 42 + (uint64_t)i;
    CHECK(mdvec_create(&single[i], &cfg, err, sizeof err) == MDVEC_OK);
    if (!single[i]) return;
    mdvec_reset(single[i]);
    same &= !memcmp(mdvec_obs(single[i]), pool.obs + i * obs_dim, obs_dim * sizeof(float));
  }
  double actions[14];
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < N_ENVS; i++) {
      for (int k = 0; k < nu; k++) actions[k] = action_at(s, i, k);
      mdvec_step(single[i], actions);
      size_t row = ((size_t)s * N_ENVS + i) * obs_dim;
      same &= !memcmp(mdvec_obs(single[i]), pool.obs + row + (size_t)N_ENVS * obs_dim, obs_dim * sizeof(float));
      same &= !memcmp(mdvec_terminal_obs(single[i]), pool.terminal + row, obs_dim * sizeof(float));
      same &= !memcmp(mdvec_reward(single[i]), &pool.reward[s * N_ENVS + i], sizeof(double));
      same &= mdvec_done(single[i])[0] == pool.done[s * N_ENVS + i];
      for (int k = 0; k < n_info; k++) {
        double v = pool.info[(size_t)s * N_ENVS * n_info + (size_t)k * N_ENVS + i];
        same &= !memcmp(&mdvec_info(single[i])[k], &v, sizeof v);
      }
    }
  }
  CHECK(same);
  for (int i = 0; i < N_ENVS; i++) mdvec_destroy(single[i]);
  trace_free(&pool);
}

/* The DR fields of a model equal the prototype's, byte for byte. */
static int dr_fields_equal(const mjModel *a, const mjModel *b) {
#define SAME(field, count) !memcmp(a->field, b->field, sizeof(*a->field) * (size_t)(count))
  return SAME(actuator_gainprm, a->nu * mjNGAIN) && SAME(actuator_biasprm, a->nu * mjNBIAS) &&
         SAME(actuator_forcerange, a->nu * 2) && SAME(dof_damping, a->nv) && SAME(dof_armature, a->nv) &&
         SAME(dof_frictionloss, a->nv) && SAME(body_mass, a->nbody) && SAME(body_inertia, a->nbody * 3) &&
         SAME(geom_friction, a->ngeom * 3);
#undef SAME
}

/* After 100 randomised episodes a restore gives the prototype back exactly; each env owns its model. */
static void test_dr_restore_and_isolation(void) {
  const mdv_task *t = &mdv_task_duck;
  char err[256];
  mdv_value opts[32] = {0};
  mdvec_config_t cfg = task_config(2, 1);
  void *shared = NULL;
  mdv_spec spec = {0};
  CHECK(t->n_options <= 32 && mdv_options_resolve(t, &cfg, NULL, NULL, 0, opts, err, sizeof err) == MDVEC_OK);
  const mdv_dot plain = {.mode = MDVEC_DOT_PLAIN};
  CHECK(t->create(&shared, opts, &plain, &spec, err, sizeof err) == MDVEC_OK);
  if (!shared) return;
  const mdv_duck_shared *sh = shared;
  mdv_duck a = {0}, b = {0};
  CHECK(t->env_init(&a, shared, err, sizeof err) == 0);
  CHECK(t->env_init(&b, shared, err, sizeof err) == 0);
  mdv_pcg64 rng_a, rng_b;
  mdv_pcg64_seed(&rng_a, 1);
  mdv_pcg64_seed(&rng_b, 2);
  float obs[48];
  mdv_out out = {obs, NULL, NULL, NULL, NULL, 0};
  mjModel *proto_copy = mj_copyModel(NULL, sh->tm.m);
  for (int ep = 0; ep < 100; ep++) t->reset(&a, &rng_a, &out);
  t->reset(&b, &rng_b, &out);
  CHECK(!dr_fields_equal(a.m, sh->tm.m));       /* randomisation changed a's copy */
  CHECK(!dr_fields_equal(a.m, b.m));            /* each env has its own factors */
  CHECK(dr_fields_equal(sh->tm.m, proto_copy)); /* the prototype is untouched */
  mdv_duck_dr_restore(a.m, sh->tm.m);
  CHECK(dr_fields_equal(a.m, sh->tm.m)); /* restore is exact after 100 episodes */
  CHECK(a.m->body_mass[1] == sh->tm.m->body_mass[1]);
  mj_deleteModel(proto_copy);
  t->env_free(&a);
  t->env_free(&b);
  t->destroy(shared);
  mdv_options_free(t, opts);
}

/* Creating and destroying 1,000 handles leaks nothing the sanitizers see and never fails. */
static void test_create_destroy_cycles(void) {
  mdvec_config_t cfg = task_config(2, 2);
  char err[256];
  int ok = 1;
  for (int k = 0; k < 1000; k++) {
    mdvec_t *h = NULL;
    ok &= mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK;
    mdvec_destroy(h);
  }
  CHECK(ok);
}

int main(void) {
  test_thread_independence();
  test_pool_equals_singles();
  test_dr_restore_and_isolation();
  test_create_destroy_cycles();
  return check_summary("test_equality");
}
