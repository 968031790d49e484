/* A test-only library exposing the generator to pytest, which compares it with numpy's state.
 * Built by tests/meson.build, never installed; libmdvec itself exports only mdvec_* symbols. */
#include <stdint.h>
#include <string.h>

#include "pcg64.h"

#define HOOK __attribute__((visibility("default")))

/* Return sizeof(mdv_pcg64), so the caller can allocate the state. */
HOOK size_t hook_pcg64_size(void) {
  return sizeof(mdv_pcg64);
}

/* Seed g as np.random.Generator(np.random.PCG64(seed)). */
HOOK void hook_pcg64_seed(mdv_pcg64 *g, uint64_t seed) {
  mdv_pcg64_seed(g, seed);
}

/* Write state and inc as (high, low) 64-bit halves plus the 32-bit buffer. */
HOOK void hook_pcg64_state(const mdv_pcg64 *g, uint64_t out[4], int *has_uint32, uint32_t *uinteger) {
  out[0] = (uint64_t)(g->state >> 64);
  out[1] = (uint64_t)g->state;
  out[2] = (uint64_t)(g->inc >> 64);
  out[3] = (uint64_t)g->inc;
  *has_uint32 = g->has_uint32;
  *uinteger = g->uinteger;
}

/* Draw n values of one kind into out: 0 uniform(a, b), 1 standard_normal, 2 integers(a, b),
 * 3 next64 (as bits), 4 next32. */
HOOK void hook_pcg64_draw(mdv_pcg64 *g, int kind, int n, double a, double b, double *out) {
  for (int k = 0; k < n; k++) {
    switch (kind) {
      case 0:
        out[k] = mdv_pcg64_uniform(g, a, b);
        break;
      case 1:
        out[k] = mdv_pcg64_standard_normal(g);
        break;
      case 2:
        out[k] = (double)mdv_pcg64_integers(g, (int64_t)a, (int64_t)b);
        break;
      case 3: {
        uint64_t v = mdv_pcg64_next64(g);
        memcpy(&out[k], &v, sizeof v);
        break;
      }
      default:
        out[k] = mdv_pcg64_next32(g);
        break;
    }
  }
}

/* rng.choice(pop_size, size=k, replace=False) into out; return 0 or -1. */
HOOK int hook_pcg64_choice(mdv_pcg64 *g, int64_t pop_size, int64_t k, int64_t *out) {
  return mdv_pcg64_choice(g, pop_size, k, out);
}

/*---------------------------------- ABI layout (tests/py/test_abi_layout.py) -----------------------*/
/* sizeof each public struct and offsetof each of its fields as this compiler lays out mdvec.h, for
 * pytest to compare with _lib.py's ctypes declarations. */
#include <stddef.h>

#include "mdvec.h"

#define S(T)    {#T, sizeof(T)},
#define F(T, f) {#T "." #f, offsetof(T, f)},
static const struct {
  const char *key;
  size_t value;
} layout[] = {
  S(mdvec_option_t) F(mdvec_option_t, name) F(mdvec_option_t, value) S(mdvec_config_t) F(mdvec_config_t, struct_size) F(
    mdvec_config_t, num_envs) F(mdvec_config_t, threads) F(mdvec_config_t, allow_overcommit)
    F(mdvec_config_t, autoreset) F(mdvec_config_t, seed) F(mdvec_config_t, variant) F(mdvec_config_t, model_path) F(
      mdvec_config_t, substeps) F(mdvec_config_t, episode_len) F(mdvec_config_t, action_scale)
      F(mdvec_config_t, n_pushes) F(mdvec_config_t, push_window) F(mdvec_config_t, push_speed) F(
        mdvec_config_t, init_noise) F(mdvec_config_t, latency) F(mdvec_config_t, sensor_noise) F(mdvec_config_t, reward)
        F(mdvec_config_t, dr) F(mdvec_config_t, task) F(mdvec_config_t, options) F(mdvec_config_t, n_options)
          F(mdvec_config_t, on_error) F(mdvec_config_t, dot) F(mdvec_config_t, ddot) F(mdvec_config_t, ddot64)
            F(mdvec_config_t, option_kinds) F(mdvec_config_t, dgemv) F(mdvec_config_t, dgemv64) S(mdvec_dims_t)
              F(mdvec_dims_t, struct_size) F(mdvec_dims_t, num_envs) F(mdvec_dims_t, threads) F(mdvec_dims_t, nu)
                F(mdvec_dims_t, obs_dim) F(mdvec_dims_t, n_info) F(mdvec_dims_t, nbody) F(mdvec_dims_t, n_pushes)
                  F(mdvec_dims_t, max_latency) S(mdvec_params_t) F(mdvec_params_t, struct_size)
                    F(mdvec_params_t, init_noise) F(mdvec_params_t, qpos) F(mdvec_params_t, qvel)
                      F(mdvec_params_t, n_pushes) F(mdvec_params_t, push_steps) F(mdvec_params_t, push_vel)
                        F(mdvec_params_t, latency) F(mdvec_params_t, noise_scale) F(mdvec_params_t, has_dr)
                          F(mdvec_params_t, servo) F(mdvec_params_t, mass_scale) F(mdvec_params_t, floor_friction)
                            S(mdvec_option_info_t) F(mdvec_option_info_t, struct_size) F(mdvec_option_info_t, name)
                              F(mdvec_option_info_t, type) F(mdvec_option_info_t, def) F(mdvec_option_info_t, lo)
                                F(mdvec_option_info_t, hi) F(mdvec_option_info_t, choices) F(mdvec_option_info_t, help)
                                  S(mdvec_constant_t) F(mdvec_constant_t, struct_size) F(mdvec_constant_t, name)
                                    F(mdvec_constant_t, count) F(mdvec_constant_t, values) F(mdvec_constant_t, help)
                                      S(mdvec_spec_t) F(mdvec_spec_t, struct_size) F(mdvec_spec_t, task)
                                        F(mdvec_spec_t, num_envs) F(mdvec_spec_t, threads) F(mdvec_spec_t, obs_dim)
                                          F(mdvec_spec_t, obs_dtype) F(mdvec_spec_t, act_dim) F(mdvec_spec_t, n_info)
                                            F(mdvec_spec_t, max_episode_steps) F(mdvec_spec_t, nq) F(mdvec_spec_t, nv)
                                              F(mdvec_spec_t, autoreset) F(mdvec_spec_t, model_path) F(mdvec_spec_t, dt)
                                                F(mdvec_spec_t, reward_kind) F(mdvec_spec_t, obs_layout) F(
                                                  mdvec_spec_t, seed_max) S(mdvec_field_t) F(mdvec_field_t, struct_size)
                                                  F(mdvec_field_t, name) F(mdvec_field_t, dtype) F(mdvec_field_t, when)
                                                    F(mdvec_field_t, kind) S(mdvec_pixels_info_t) F(
                                                      mdvec_pixels_info_t, struct_size) F(mdvec_pixels_info_t, obs_mode)
                                                      F(mdvec_pixels_info_t, width) F(mdvec_pixels_info_t, height)
                                                        F(mdvec_pixels_info_t, frame_stack)
                                                          F(mdvec_pixels_info_t, camera_id)
                                                            F(mdvec_pixels_info_t, frame_bytes)
                                                              F(mdvec_pixels_info_t, env_bytes)
                                                                F(mdvec_pixels_info_t, renderer)};
#undef S
#undef F

/* Return sizeof("mdvec_config_t") or offsetof("mdvec_config_t.dot"); -1 for a key not in the table. */
HOOK long hook_layout(const char *key) {
  for (size_t k = 0; k < sizeof layout / sizeof layout[0]; k++)
    if (!strcmp(layout[k].key, key)) return (long)layout[k].value;
  return -1;
}

/* Return the number of table entries and the key of entry k (NULL past the end). */
HOOK const char *hook_layout_key(int k) {
  return k >= 0 && (size_t)k < sizeof layout / sizeof layout[0] ? layout[k].key : NULL;
}

/*---------------------------------- numpy's vector-matrix products (tests/py/test_npdot.py) ---------------*/
#include "npmath.h"

/* np.dot(v, M) (matvec 0: mdv_np_vecmat, out[cols]) or np.dot(M, v) (matvec 1: mdv_np_matvec, out[rows]) as
 * libmdvec computes it for a handle created with cfg.dot = mode and these functions. */
HOOK void hook_np_gemv(int mode, mdvec_ddot_fn ddot, mdvec_ddot64_fn ddot64, mdvec_dgemv_fn dgemv,
                       mdvec_dgemv64_fn dgemv64, int matvec, const double *M, const double *v, int rows, int cols,
                       double *out) {
  const mdv_dot dot = {.mode = mode, .ddot = ddot, .ddot64 = ddot64, .dgemv = dgemv, .dgemv64 = dgemv64};
  if (matvec)
    mdv_np_matvec(&dot, M, v, rows, cols, out);
  else
    mdv_np_vecmat(&dot, v, M, rows, cols, out);
}
