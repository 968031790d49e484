/* A test-only library exposing the generator to pytest, which compares it with numpy's state.
 * Built by tests/meson.build, never installed; libmdvec itself exports only mdvec_* symbols. */
#include <stdint.h>
#include <string.h>

#include "pcg64.h"

#define HOOK __attribute__((visibility("default")))

/* Return sizeof(mdv_pcg64), so the caller can allocate the state. */
HOOK size_t hook_pcg64_size(void) { return sizeof(mdv_pcg64); }

/* Seed g as np.random.Generator(np.random.PCG64(seed)). */
HOOK void hook_pcg64_seed(mdv_pcg64 *g, uint64_t seed) { mdv_pcg64_seed(g, seed); }

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
      case 0: out[k] = mdv_pcg64_uniform(g, a, b); break;
      case 1: out[k] = mdv_pcg64_standard_normal(g); break;
      case 2: out[k] = (double)mdv_pcg64_integers(g, (int64_t)a, (int64_t)b); break;
      case 3: { uint64_t v = mdv_pcg64_next64(g); memcpy(&out[k], &v, sizeof v); break; }
      default: out[k] = mdv_pcg64_next32(g); break;
    }
  }
}

/* rng.choice(pop_size, size=k, replace=False) into out; return 0 or -1. */
HOOK int hook_pcg64_choice(mdv_pcg64 *g, int64_t pop_size, int64_t k, int64_t *out) {
  return mdv_pcg64_choice(g, pop_size, k, out);
}
