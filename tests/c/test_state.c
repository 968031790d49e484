/* test_state.c: state in and out (1.4; docs/state.md) on the built-in tasks (the duck with domain
 * randomisation, latency, sensor noise and shoves; the cart-pole), through the public API:
 *
 *   snapshots: taken mid-episode, K steps run through autoresets (SAME_STEP, NEXT_STEP), restored, the steps
 *   rerun: every buffer equal byte for byte; restored into two more handles with other thread counts and seeds
 *   (branching): equal again; snapshot(restore(blob)) == blob.
 *   refusals: truncated, extended, corrupted (a byte flipped: the checksum), another library or MuJoCo
 *   version or format (the header patched, the checksum recomputed as the library does), another task, N,
 *   autoreset mode or option, values an env cannot hold (a pending reset of 2, a queue head past the
 *   latency): MDVEC_ERR_ARG with the reason, the env's snapshot unchanged.
 *   set_state: writing an env's own state back changes nothing that follows (the duck's reuse of mj_step1 is
 *   dropped, MuJoCo's whole steps give the same bits); refusals (index, sig, size, NaN, NULL) change nothing.
 *   copy_data / save_model: the MJB bytes load (mj_loadModelBuffer) into the env's model, with its randomised
 *   masses; copy_data fills an mjData of it with the env's data, and refuses an mjData of another model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "check.h"
#include "mdvec.h"
#include "snapshot.h" /* mdv_hash: the checksum, to forge headers the library must still refuse */

#define N     4
#define STEPS 24
#define MAXA  64

static const mdvec_option_t kDuck[] = {{"dr", "true"},       {"sensor_noise", "true"}, {"latency", "2"},
                                       {"episode_len", "9"}, {"push_window", "1,8"},   {"n_pushes", "2"}};
static const mdvec_option_t kCart[] = {{"max_episode_steps", "6"}};

static mdvec_t *make(const char *task, int threads, int autoreset, uint64_t seed, const mdvec_option_t *opts, int n,
                     int num_envs) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = task;
  cfg.num_envs = num_envs;
  cfg.threads = threads;
  cfg.autoreset = autoreset;
  cfg.seed = seed;
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

/* Deterministic actions of step t. */
static void actions(const mdvec_t *h, int t, double *a) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  for (int i = 0; i < sp.num_envs; i++)
    for (int k = 0; k < sp.act_dim; k++) a[i * sp.act_dim + k] = sin(0.9 * t + 1.3 * i + 0.41 * k);
}

/* Every result buffer of the handle, appended to out (a large enough buffer); return the bytes added. */
static size_t buffers(const mdvec_t *h, unsigned char *out) {
  mdvec_spec_t sp = {.struct_size = sizeof sp};
  mdvec_spec(h, &sp);
  size_t n = (size_t)sp.num_envs, obs = n * (size_t)sp.obs_dim * (sp.obs_dtype == MDVEC_DTYPE_F64 ? 8 : 4);
  size_t info = n * (size_t)sp.n_info * 8, at = 0;
#define ADD(p, bytes)             \
  do {                            \
    memcpy(out + at, p, (bytes)); \
    at += (bytes);                \
  } while (0)
  ADD(mdvec_obs_data(h), obs);
  ADD(mdvec_final_obs_data(h), obs);
  ADD(mdvec_reward(h), 8 * n);
  ADD(mdvec_terminated(h), n);
  ADD(mdvec_truncated(h), n);
  ADD(mdvec_reset_flags(h), n);
  ADD(mdvec_error_flags(h), n);
  ADD(mdvec_info(h), info);
  ADD(mdvec_reset_info(h), info);
  ADD(mdvec_warnings(h), 8 * n);
#undef ADD
  return at;
}

#define TRACE (1 << 20)
static unsigned char g_want[TRACE], g_got[TRACE];

/* Run steps first .. first + count - 1 and record every buffer after each; return the bytes, 0 on an error. */
static size_t run(mdvec_t *h, int first, int count, unsigned char *trace, int *resets) {
  static double a[N * MAXA];
  size_t at = 0;
  for (int t = first; t < first + count; t++) {
    actions(h, t, a);
    if (mdvec_step(h, a) != MDVEC_OK) return 0;
    at += buffers(h, trace + at);
    for (int i = 0; resets && i < N; i++) *resets += mdvec_reset_flags(h)[i];
  }
  return at;
}

/* Return a fresh copy of the handle's snapshot (size in *size), or NULL. */
static unsigned char *snap(const mdvec_t *h, size_t *size) {
  *size = mdvec_snapshot_size(h);
  unsigned char *b = *size ? malloc(*size) : NULL;
  if (b && mdvec_snapshot(h, b, *size) != MDVEC_OK) {
    free(b);
    b = NULL;
  }
  return b;
}

static int same_snapshot(const mdvec_t *h, const unsigned char *blob, size_t size) {
  size_t n;
  unsigned char *now = snap(h, &n);
  int same = now && n == size && !memcmp(now, blob, size);
  free(now);
  return same;
}

/* The checksum of a blob, as the library computes it (its header's last field covers all else). */
static void reseal(unsigned char *b, size_t size) {
  const size_t header = 192, sum_at = header - 8;
  uint64_t sum = mdv_hash_end(mdv_hash(mdv_hash(MDV_HASH_SEED, b, sum_at), b + header, size - header));
  memcpy(b + sum_at, &sum, 8);
}

static void put64(unsigned char *b, size_t field, uint64_t v) {
  memcpy(b + 8 * field, &v, 8);
}

static void check_replay(const char *task, const mdvec_option_t *opts, int n_opts, int mode) {
  mdvec_t *h = make(task, 2, mode, 3, opts, n_opts, N);
  if (!h || mdvec_reset(h) != MDVEC_OK) {
    CHECK_THAT(WHAT("%s: create and reset", task), 0);
    mdvec_destroy(h);
    return;
  }
  static unsigned char first[1 << 16], again[1 << 16];
  run(h, 0, 5, g_got, NULL);
  size_t size, first_size = buffers(h, first);
  unsigned char *blob = snap(h, &size);
  CHECK_THAT(WHAT("%s mode %d: snapshot", task, mode), blob != NULL);
  if (!blob) {
    mdvec_destroy(h);
    return;
  }
  int resets = 0;
  size_t want = run(h, 5, STEPS, g_want, &resets);
  CHECK_THAT(WHAT("%s mode %d: autoresets after the snapshot (%d)", task, mode, resets), want && resets >= N);
  CHECK_THAT(WHAT("%s mode %d: restore", task, mode), mdvec_restore(h, blob, size) == MDVEC_OK);
  CHECK_THAT(WHAT("%s mode %d: the snapshot's last results are back", task, mode),
             buffers(h, again) == first_size && !memcmp(first, again, first_size));
  CHECK_THAT(WHAT("%s mode %d: snapshot(restore(blob)) == blob", task, mode), same_snapshot(h, blob, size));
  CHECK_THAT(WHAT("%s mode %d: the rerun is bit-identical", task, mode),
             run(h, 5, STEPS, g_got, NULL) == want && !memcmp(g_got, g_want, want));
  for (int threads = 1; threads <= 3; threads += 2) { /* branching: more handles, other threads and seeds */
    mdvec_t *o = make(task, threads, mode, 100 + (uint64_t)threads, opts, n_opts, N);
    CHECK_THAT(WHAT("%s mode %d: restore into a handle of %d thread(s)", task, mode, threads),
               o && mdvec_restore(o, blob, size) == MDVEC_OK);
    CHECK_THAT(WHAT("%s mode %d: its future is the same", task, mode),
               o && run(o, 5, STEPS, g_got, NULL) == want && !memcmp(g_got, g_want, want));
    mdvec_destroy(o);
  }
  free(blob);
  mdvec_destroy(h);
}

/* A refused restore: MDVEC_ERR_ARG, the message holding `why`, the env's snapshot unchanged. */
static void refused(mdvec_t *h, const void *blob, size_t size, const char *why, const char *label) {
  size_t n;
  unsigned char *before = snap(h, &n);
  int rc = mdvec_restore(h, blob, size);
  const char *msg = mdvec_errmsg(h);
  CHECK_THAT(WHAT("restore refused: %s (rc %d: %s)", label, rc, msg), rc == MDVEC_ERR_ARG && strstr(msg, why));
  CHECK_THAT(WHAT("restore refused: %s: env unchanged", label), before && same_snapshot(h, before, n));
  free(before);
}

static void check_refusals(void) {
  mdvec_t *h = make("duck", 2, MDVEC_AUTORESET_NEXT_STEP, 1, kDuck, 6, N);
  if (!h || mdvec_reset(h)) {
    CHECK_THAT("duck for refusals", 0);
    mdvec_destroy(h);
    return;
  }
  run(h, 0, 3, g_got, NULL);
  size_t size;
  unsigned char *blob = snap(h, &size), *bad = malloc(size + 8);
  run(h, 3, 4, g_got, NULL); /* the env moves on: a refused restore must leave it here */
  if (!blob || !bad) {
    CHECK_THAT("snapshot", 0);
    return;
  }
  refused(h, blob, size - 1, "truncated", "one byte short");
  refused(h, blob, 100, "truncated", "100 bytes");
  memcpy(bad, blob, size);
  bad[size] = 0;
  refused(h, bad, size + 1, "extended", "one byte more");
  refused(h, NULL, size, "NULL", "NULL");
  refused(h, "MDVECSNQ", 8, "not an mdvec snapshot", "bad magic");
  for (size_t at = 200; at < size; at += size / 7) { /* a byte flipped anywhere in the body */
    memcpy(bad, blob, size);
    bad[at] ^= 0x40;
    refused(h, bad, size, "corrupted", "a flipped byte");
  }
  memcpy(bad, blob, size);
  put64(bad, 3, 10300); /* made by libmdvec 1.3.0, sealed as the library would */
  reseal(bad, size);
  refused(h, bad, size, "made by libmdvec 1.3.0", "another library version");
  memcpy(bad, blob, size);
  put64(bad, 4, 3017000);
  reseal(bad, size);
  refused(h, bad, size, "made on MuJoCo 3017000", "another MuJoCo version");
  memcpy(bad, blob, size);
  put64(bad, 1, 2);
  reseal(bad, size);
  refused(h, bad, size, "format 2", "another format");
  memcpy(bad, blob, size);
  memcpy(bad + 6 * 8, "cartpole_swingup", 17);
  reseal(bad, size);
  refused(h, bad, size, "task 'cartpole_swingup'", "another task");

  /* another N, autoreset mode, option */
  mdvec_t *other[3] = {make("duck", 1, MDVEC_AUTORESET_NEXT_STEP, 1, kDuck, 6, N + 1),
                       make("duck", 1, MDVEC_AUTORESET_SAME_STEP, 1, kDuck, 6, N),
                       make("duck", 1, MDVEC_AUTORESET_NEXT_STEP, 1, kDuck, 5, N)}; /* without n_pushes 2 */
  const char *why[3] = {"5 envs", "autoreset mode", "option 'n_pushes'"};
  for (int k = 0; k < 3; k++) {
    size_t n;
    unsigned char *theirs = other[k] ? snap(other[k], &n) : NULL;
    CHECK_THAT(WHAT("other config %d", k), theirs != NULL);
    if (theirs) refused(h, theirs, n, why[k], why[k]);
    free(theirs);
    mdvec_destroy(other[k]);
  }

  /* values an env cannot hold, sealed: the checks behind the checksum. Env 0's bookkeeping follows the option
   * hashes (docs/state.md): its PCG64 (state, increment, has_uint32, buffered half), then reset_done, failed,
   * pending. */
  size_t pending_at = 192 + 8 + 8 * (size_t)mdvec_task_option_count("duck") + 16 + 16 + 8 + 8 + 8 + 8;
  uint64_t was;
  memcpy(&was, blob + pending_at, 8);
  CHECK_THAT(WHAT("env 0's pending flag found (%llu)", (unsigned long long)was), was <= 1);
  memcpy(bad, blob, size);
  put64(bad + pending_at, 0, 2);
  reseal(bad, size);
  refused(h, bad, size, "pending reset", "a pending flag of 2");
  memcpy(bad, blob, size);
  put64(bad + 192 + 8 + 8 * (size_t)mdvec_task_option_count("duck") + 16, 0, 2); /* PCG64 increment: even */
  reseal(bad, size);
  refused(h, bad, size, "increment is even", "an even PCG64 increment");

  CHECK_THAT("the blob itself still restores", mdvec_restore(h, blob, size) == MDVEC_OK);
  CHECK_THAT("mdvec_snapshot: size too small", mdvec_snapshot(h, bad, 10) == MDVEC_ERR_ARG);
  CHECK_THAT("NULL handles", mdvec_snapshot_size(NULL) == 0 && mdvec_snapshot(NULL, bad, size) == MDVEC_ERR_ARG &&
                               mdvec_restore(NULL, blob, size) == MDVEC_ERR_ARG);
  free(bad);
  free(blob);
  mdvec_destroy(h);
}

static void check_set_state(const char *task, const mdvec_option_t *opts, int n_opts) {
  mdvec_t *a = make(task, 2, MDVEC_AUTORESET_NEXT_STEP, 5, opts, n_opts, N);
  mdvec_t *b = make(task, 1, MDVEC_AUTORESET_NEXT_STEP, 5, opts, n_opts, N);
  if (!a || !b || mdvec_reset(a) || mdvec_reset(b)) {
    CHECK_THAT(WHAT("%s: two handles", task), 0);
    mdvec_destroy(a);
    mdvec_destroy(b);
    return;
  }
  run(a, 0, 3, g_got, NULL);
  run(b, 0, 3, g_got, NULL);
  const unsigned sig = mjSTATE_QPOS | mjSTATE_QVEL;
  size_t n = mdvec_state_size(a, sig);
  double *s = calloc(n + 1, sizeof *s);
  int ok = s != NULL;
  for (int i = 0; ok && i < N; i++) /* every env's own qpos/qvel written back into a */
    ok = mdvec_get_state(a, i, sig, s, n) == MDVEC_OK && mdvec_set_state(a, i, sig, s, n) == MDVEC_OK;
  CHECK_THAT(WHAT("%s: set_state of each env's own state", task), ok);
  size_t want = run(b, 3, 12, g_want, NULL), got = run(a, 3, 12, g_got, NULL);
  CHECK_THAT(WHAT("%s: writing an env's own state changes nothing that follows", task),
             want && got == want && !memcmp(g_got, g_want, want));

  size_t size;
  unsigned char *blob = snap(a, &size);
  mdvec_get_state(a, 1, sig, s, n);
  CHECK_THAT(WHAT("%s: size - 1 refused", task), mdvec_set_state(a, 1, sig, s, n - 1) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: size + 1 refused", task), mdvec_set_state(a, 1, sig, s, n + 1) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: env N refused", task), mdvec_set_state(a, N, sig, s, n) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: env -1 refused", task), mdvec_set_state(a, -1, sig, s, n) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: unknown bits refused", task), mdvec_set_state(a, 1, 1u << 30, s, n) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: NULL refused", task), mdvec_set_state(a, 1, sig, NULL, n) == MDVEC_ERR_ARG);
  s[n - 1] = NAN;
  CHECK_THAT(WHAT("%s: NaN refused", task),
             mdvec_set_state(a, 1, sig, s, n) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(a), "finite"));
  s[0] = -INFINITY;
  CHECK_THAT(WHAT("%s: -inf refused", task), mdvec_set_state(a, 1, sig, s, n) == MDVEC_ERR_ARG);
  CHECK_THAT(WHAT("%s: refusals changed nothing", task), blob && same_snapshot(a, blob, size));
  CHECK_THAT(WHAT("%s: NULL handle", task), mdvec_set_state(NULL, 0, sig, s, n) == MDVEC_ERR_ARG);
  free(blob);
  free(s);
  mdvec_destroy(a);
  mdvec_destroy(b);
}

static void check_model_and_data(void) {
  mdvec_t *h = make("duck", 1, MDVEC_AUTORESET_NEXT_STEP, 8, kDuck, 6, 2);
  if (!h || mdvec_reset(h)) {
    CHECK_THAT("duck for save_model", 0);
    mdvec_destroy(h);
    return;
  }
  run(h, 0, 2, g_got, NULL);
  size_t need = 0;
  CHECK_THAT("save_model: the size", mdvec_save_model(h, 1, NULL, 0, &need) == MDVEC_OK && need > 0);
  char *buf = malloc(need);
  CHECK_THAT("save_model: too small", mdvec_save_model(h, 1, buf, need - 1, NULL) == MDVEC_ERR_ARG);
  CHECK_THAT("save_model: env 2 refused", mdvec_save_model(h, 2, buf, need, NULL) == MDVEC_ERR_ARG);
  CHECK_THAT("save_model", mdvec_save_model(h, 1, buf, need, NULL) == MDVEC_OK);
  mjModel *m = mj_loadModelBuffer(buf, (mjtSize)need);
  CHECK_THAT("the MJB loads", m != NULL);
  if (m) {
    mjData *d = mj_makeData(m);
    CHECK_THAT("copy_data", mdvec_copy_data(h, 1, d) == MDVEC_OK);
    size_t n = mdvec_state_size(h, mjSTATE_INTEGRATION);
    double *s = calloc(n, sizeof *s), *t = calloc(n, sizeof *t);
    mdvec_get_state(h, 1, mjSTATE_INTEGRATION, s, n);
    mj_getState(m, d, t, mjSTATE_INTEGRATION);
    CHECK_THAT("the copied data holds env 1's state",
               (size_t)mj_stateSize(m, mjSTATE_INTEGRATION) == n && !memcmp(s, t, n * sizeof *s) && d->time > 0);
    mjData *e = mj_makeData(m);
    mj_copyData(e, m, d);
    mj_forward(m, e); /* the derived arrays of the copy: MuJoCo's own on the saved model */
    CHECK_THAT("its derived arrays equal MuJoCo's for that state on the saved model",
               !memcmp(e->xpos, d->xpos, sizeof(mjtNum) * 3 * (size_t)m->nbody) &&
                 !memcmp(e->sensordata, d->sensordata, sizeof(mjtNum) * (size_t)m->nsensordata));
    mj_deleteData(e);
    free(s);
    free(t);
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  char err[200];
  mjSpec *spec = mj_parseXMLString("<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>",
                                   NULL, err, sizeof err);
  mjModel *small = spec ? mj_compile(spec, NULL) : NULL;
  if (small) {
    mjData *d = mj_makeData(small);
    CHECK_THAT("copy_data into an mjData of another model refused",
               mdvec_copy_data(h, 0, d) == MDVEC_ERR_ARG && strstr(mdvec_errmsg(h), "another model"));
    mj_deleteData(d);
    mj_deleteModel(small);
  }
  if (spec) mj_deleteSpec(spec);
  CHECK_THAT("copy_data: NULL and range refused", mdvec_copy_data(h, 0, NULL) == MDVEC_ERR_ARG &&
                                                    mdvec_copy_data(h, 2, buf) == MDVEC_ERR_ARG &&
                                                    mdvec_copy_data(NULL, 0, buf) == MDVEC_ERR_ARG);
  free(buf);
  mdvec_destroy(h);
}

int main(void) {
  check_replay("duck", kDuck, 6, MDVEC_AUTORESET_SAME_STEP);
  check_replay("duck", kDuck, 6, MDVEC_AUTORESET_NEXT_STEP);
  check_replay("cartpole_swingup", kCart, 1, MDVEC_AUTORESET_SAME_STEP);
  check_replay("cartpole_swingup", kCart, 1, MDVEC_AUTORESET_NEXT_STEP);
  check_refusals();
  check_set_state("duck", kDuck, 6);
  check_set_state("cartpole_swingup", kCart, 1);
  check_model_and_data();
  return check_summary("test_state");
}
