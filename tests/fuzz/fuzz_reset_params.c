/* Fuzz target: mdvec_reset_with_params. A few duck configurations (domain randomisation, sensor
 * noise, latency, no shoves, reward v1, another variant; plus Hopper-v5, which takes no episode
 * parameters), 1 or 2 envs, each autoreset mode; every input starts with a seeded reset of all envs,
 * then runs up to 8 operations: reset_with_params with fuzzed parameters (struct_size, env index,
 * each field valid or fuzzed: NaN, inf, huge, negative, NULL arrays, counts that differ from the
 * config), steps with fuzzed actions, masked resets.
 *
 * Arrays are heap blocks of exactly the length the parameters declare, so a read past them is an
 * ASan report. Checked: a refused call changes no buffer and leaves a message; an accepted one
 * resets env i only (its reset flag set, the other envs' rows untouched), and its parameters were
 * valid (counts equal the config's, latency in [0, max_latency], shove steps inside the episode,
 * values finite). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

typedef struct {
  const char *key;
  const char *task;
  int n_opts;
  mdvec_option_t opts[4];
} config;

static const config kConfigs[8] = {
  {"plain", "duck", 0, {{0}}},
  {"dr", "duck", 1, {{"dr", "true"}}},
  {"noise_lat", "duck", 2, {{"sensor_noise", "true"}, {"latency", "5"}}},
  {"v1_nopush", "duck", 4, {{"reward", "v1"}, {"n_pushes", "0"}, {"episode_len", "20"}, {"push_window", "0,20"}}},
  {"short", "duck", 4, {{"episode_len", "5"}, {"push_window", "0,5"}, {"n_pushes", "1"}, {"init_noise", "0.01"}}},
  {"dr_noise", "duck", 3, {{"dr", "true"}, {"sensor_noise", "true"}, {"init_noise", "0.1"}}},
  {"backlash", "duck", 2, {{"variant", "backlash"}, {"n_pushes", "5"}}},
  {"hopper", "Hopper-v5", 0, {{0}}},
};

/* A heap array of n doubles (exactly n; a 1-byte block when n is 0) filled from the input. */
static double *fuzz_array(fz *f, size_t n, double valid) {
  double *a = malloc(n ? n * sizeof(double) : 1);
  if (!a) return NULL;
  uint8_t mode = fz_u8(f) % 4;
  double one = mode == 1 ? fz_double(f) : valid;
  for (size_t k = 0; k < n; k++) a[k] = mode == 2 ? fz_double(f) : mode == 3 ? ((int)fz_u8(f) - 128) / 16.0 : one;
  return a;
}

static int all_finite(const double *a, size_t n) {
  if (!a) return 0;
  for (size_t k = 0; k < n; k++)
    if (!isfinite(a[k])) return 0;
  return 1;
}

/* One reset_with_params call with parameters from the input, and its checks. */
static void reset_with_params(fz *f, mdvec_t *h, const mdvec_spec_t *s, const mdvec_dims_t *d, int dr) {
  size_t nu = (size_t)d->nu, nbody = (size_t)d->nbody;
  mdvec_params_t p;
  memset(&p, 0, sizeof p);
  uint8_t ss = fz_u8(f) % 8;
  p.struct_size = ss < 5 ? sizeof p : ss == 5 ? sizeof p - 8 : ss == 6 ? sizeof p + 8 : 0;
  uint16_t fuzzed = fz_u16(f);
  p.init_noise = fuzzed & 0x0001 ? fz_double(f) : 0.0;
  double *qpos = NULL, *qvel = NULL, *pvel = NULL, *mass = NULL;
  int64_t *steps = NULL;
  if (!(fuzzed & 0x0002))
    qpos = fuzz_array(&(fz){0}, nu, 0.0);
  else if (fz_u8(f) % 8)
    qpos = fuzz_array(f, nu, 0.0);
  if (!(fuzzed & 0x0004))
    qvel = fuzz_array(&(fz){0}, nu, 0.0);
  else if (fz_u8(f) % 8)
    qvel = fuzz_array(f, nu, 0.0);
  p.qpos = qpos;
  p.qvel = qvel;
  p.n_pushes = fuzzed & 0x0008 ? fz_int(f) : d->n_pushes;
  size_t np = p.n_pushes >= 0 && p.n_pushes <= 4096 ? (size_t)p.n_pushes : 0;
  if (!(fuzzed & 0x0010) || fz_u8(f) % 8) {
    steps = malloc(np ? np * sizeof(int64_t) : 1);
    int64_t len = s->max_episode_steps > 0 ? s->max_episode_steps : 250;
    for (size_t k = 0; steps && k < np; k++)
      steps[k] = fuzzed & 0x0010 ? fz_i64(f) : (int64_t)((k * 7 + 1) % (size_t)len);
  }
  p.push_steps = steps;
  if (!(fuzzed & 0x0020))
    pvel = fuzz_array(&(fz){0}, 2 * np, 0.5);
  else if (fz_u8(f) % 8)
    pvel = fuzz_array(f, 2 * np, 0.5);
  p.push_vel = pvel;
  p.latency = fuzzed & 0x0040 ? fz_int(f) : 0;
  p.noise_scale = fuzzed & 0x0080 ? fz_double(f) : 1.0;
  p.has_dr = fuzzed & 0x0100 ? fz_int(f) : dr;
  for (int k = 0; k < 5; k++) p.servo[k] = fuzzed & 0x0200 ? fz_double(f) : 1.0;
  if (!(fuzzed & 0x0400))
    mass = fuzz_array(&(fz){0}, nbody - 1, 1.0);
  else if (fz_u8(f) % 8)
    mass = fuzz_array(f, nbody - 1, 1.0);
  p.mass_scale = mass;
  p.floor_friction = fuzzed & 0x0800 ? fz_double(f) : 1.0;
  int i = fuzzed & 0x1000 ? fz_int(f) : (int)fz_pick(f, (size_t)s->num_envs);

  fz_snap before;
  fz_snap_take(h, &before);
  size_t row = (size_t)s->obs_dim * (s->obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float));
  unsigned char *obs0 = malloc((size_t)s->num_envs * row);
  memcpy(obs0, mdvec_obs_data(h), (size_t)s->num_envs * row);

  int rc = mdvec_reset_with_params(h, i, &p);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_ARG && rc != MDVEC_ERR_PARAMS && rc != MDVEC_ERR_PHYSICS)
    fz_fail("mdvec_reset_with_params returned %d", rc);
  if (rc == MDVEC_ERR_ARG || rc == MDVEC_ERR_PARAMS) {
    if (!fz_snap_same(h, &before))
      fz_fail("a refused reset_with_params (rc %d: %s) changed the buffers", rc, mdvec_errmsg(h));
    if (!mdvec_errmsg(h)[0]) fz_fail("reset_with_params refused (rc %d) without a message", rc);
  } else {
    int ok_size = p.struct_size == sizeof p, ok_i = i >= 0 && i < s->num_envs;
    int ok_counts = p.n_pushes == d->n_pushes && p.latency >= 0 && p.latency <= d->max_latency;
    int ok_steps = 1;
    for (size_t k = 0; ok_counts && k < np && ok_steps; k++)
      ok_steps = steps && steps[k] >= 0 && (s->max_episode_steps <= 0 || steps[k] < s->max_episode_steps);
    int ok_values = isfinite(p.init_noise) && p.init_noise >= 0 && isfinite(p.noise_scale) && p.noise_scale >= 0 &&
                    all_finite(qpos, nu) && all_finite(qvel, nu) && (np == 0 || all_finite(pvel, 2 * np));
    int ok_dr = !dr || (p.has_dr && all_finite(p.servo, 5) && all_finite(mass, nbody - 1) &&
                        isfinite(p.floor_friction) && p.floor_friction >= 0);
    if (!(ok_size && ok_i && ok_counts && ok_steps && ok_values && ok_dr))
      fz_fail(
        "reset_with_params accepted invalid parameters (rc %d): size %d env %d counts %d steps %d values %d dr %d", rc,
        ok_size, ok_i, ok_counts, ok_steps, ok_values, ok_dr);
    const uint8_t *flags = mdvec_reset_flags(h);
    const unsigned char *obs = mdvec_obs_data(h);
    for (int j = 0; j < s->num_envs; j++) {
      if (flags[j] != (j == i)) fz_fail("after reset_with_params(env %d): reset flag of env %d is %u", i, j, flags[j]);
      if (j != i && memcmp(obs + (size_t)j * row, obs0 + (size_t)j * row, row))
        fz_fail("reset_with_params(env %d) changed the observation row of env %d", i, j);
    }
  }
  fz_snap_free(&before);
  free(obs0);
  free(qpos);
  free(qvel);
  free(steps);
  free(pvel);
  free(mass);
  fz_touch_buffers(h);
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
  uint8_t sel = fz_u8(f);
  const config *c = &kConfigs[sel % 8];
  if (!strcmp(c->task, "Hopper-v5") && !fz_task_xml(c->task)) c = &kConfigs[0]; /* no Gymnasium assets */
  int n = 1 + (sel >> 3) % 2, t = 1 + (sel >> 4) % 2, ar = (sel >> 5) % 3;
  char key[128];
  snprintf(key, sizeof key, "%s/%d/%d/%d", c->key, n, t, ar);
  mdvec_t *h = fz_cache_get(key);
  if (!h) {
    h = fz_create(c->task, n, t, ar, c->opts, c->n_opts);
    if (!h) fz_fail("cannot create the %s handle", key);
    fz_cache_put(key, h);
  }
  mdvec_spec_t s = {.struct_size = sizeof s};
  mdvec_dims_t d = {.struct_size = sizeof d};
  if (mdvec_spec(h, &s) != MDVEC_OK || mdvec_dims(h, &d) != MDVEC_OK) fz_fail("spec/dims of %s", key);
  int dr = strstr(c->key, "dr") != NULL;

  /* the same start whether the handle is cached or new: every env reset from an explicit seed */
  uint64_t seeds[2];
  uint8_t base = fz_u8(f);
  for (int i = 0; i < n; i++) seeds[i] = (uint64_t)base * 2 + (uint64_t)i;
  int rc = mdvec_reset_envs(h, NULL, seeds, NULL);
  if (rc != MDVEC_OK) fz_fail("the seeded reset of %s returned %d: %s", key, rc, mdvec_errmsg(h));

  size_t na = (size_t)n * (size_t)s.act_dim;
  double *a64 = malloc(na * sizeof(double));
  float *a32 = malloc(na * sizeof(float));
  for (int op = 0; op < 8 && f->n; op++) {
    uint8_t o = fz_u8(f) % 4;
    if (o <= 1) {
      reset_with_params(f, h, &s, &d, dr);
    } else if (o == 2) {
      int dtype = fz_u8(f) & 1 ? MDVEC_DTYPE_F32 : MDVEC_DTYPE_F64;
      void *a = dtype == MDVEC_DTYPE_F32 ? (void *)a32 : (void *)a64;
      fz_actions(f, a, na, dtype, h);
      rc = mdvec_step_typed(h, a, dtype);
      if (rc != MDVEC_OK && rc != MDVEC_ERR_ACTION && rc != MDVEC_ERR_PHYSICS && rc != MDVEC_ERR_STATE)
        fz_fail("mdvec_step_typed returned %d", rc);
      fz_touch_buffers(h);
    } else {
      uint8_t mask[2];
      mask[0] = fz_u8(f) & 1;
      mask[1] = fz_u8(f) & 1;
      rc = mdvec_reset_envs(h, mask, NULL, NULL);
      if (rc != MDVEC_OK && rc != MDVEC_ERR_PHYSICS) fz_fail("mdvec_reset_envs returned %d", rc);
      fz_touch_buffers(h);
    }
  }
  free(a64);
  free(a32);
  fz_cache_release(h);
  return 0;
}
