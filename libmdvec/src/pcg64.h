/* pcg64.h: numpy-bit-exact PCG64 random numbers (internal, not part of the ABI).
 *
 * Reproduces np.random.Generator(np.random.PCG64(seed)) draw for draw, bit for bit, for the calls
 * listed below (checked against numpy 2.4 by tests/c/test_rng.c). Each function equals the numpy
 * call named in its comment, including how many 64-bit outputs it consumes and the buffered
 * 32-bit half-word (has_uint32/uinteger) that numpy's PCG64 keeps between calls, so any mix of
 * these calls on one generator stays in step with the same mix on one numpy Generator.
 *
 * NOT numpy's (not covered): seeds other than one non-negative int (no arrays of ints, no
 * SeedSequence spawning/spawn_key, no entropy=None); jumped()/advance(); array-valued low/high;
 * dtypes other than float64/int64; uniform with high < low or a non-finite range (numpy raises,
 * here the formula just runs); integers with low >= high (numpy raises, here low is returned
 * without a draw); choice with replace=True, with p=, with shuffle=False, or k > pop_size
 * (numpy raises; here nothing is drawn and -1 is returned). All other Generator methods.
 *
 * Needs unsigned __int128 (gcc/clang on 64-bit targets).
 */
#ifndef MDV_PCG64_H
#define MDV_PCG64_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*---------------------------------- Types --------------------------------------------------*/

/* unsigned __int128 (__extension__ keeps -Wpedantic quiet). */
__extension__ typedef unsigned __int128 mdv_u128;

/* PCG64 (XSL-RR 128/64) state plus numpy's buffered upper half of the last 64-bit output. */
typedef struct mdv_pcg64 {
  mdv_u128 state;    /* LCG state */
  mdv_u128 inc;      /* LCG increment (odd) */
  int has_uint32;    /* 1 when uinteger holds an unused upper 32-bit half */
  uint32_t uinteger; /* that buffered half */
} mdv_pcg64;

/*---------------------------------- Functions ----------------------------------------------*/

/* Seed g as np.random.PCG64(seed) does: SeedSequence(seed).generate_state(4, uint64), then
   pcg64_set_seed; the 32-bit buffer is emptied. Any uint64 seed (numpy accepts ints >= 0). */
void mdv_pcg64_seed(mdv_pcg64 *g, uint64_t seed);

/* Return the next 64-bit output: bit_generator.random_raw(); numpy's next_uint64. */
uint64_t mdv_pcg64_next64(mdv_pcg64 *g);

/* Return numpy's next_uint32: the buffered upper half if there is one, else the lower half of a
   fresh 64-bit output (buffering its upper half). */
uint32_t mdv_pcg64_next32(mdv_pcg64 *g);

/* Return a double in [0, 1): rng.random(); (next64 >> 11) * 2^-53. */
double mdv_pcg64_next_double(mdv_pcg64 *g);

/* Return rng.uniform(low, high) = low + (high - low) * next_double; rng.uniform(low, high, n)
   equals n calls. */
double mdv_pcg64_uniform(mdv_pcg64 *g, double low, double high);

/* Return rng.standard_normal(): numpy's 256-layer ziggurat with its tables and its libm calls
   (exp in the wedges, log1p in the tail); rng.standard_normal(n) equals n calls. */
double mdv_pcg64_standard_normal(mdv_pcg64 *g);

/* Return rng.integers(low, high) (scalar, int64, high exclusive): Lemire's method on numpy's
   buffered next_uint32 when high - 1 - low < 2^32 - 1, all of next_uint32 when it equals
   2^32 - 1, else on next64; no draw when high - low == 1. Requires low < high. */
int64_t mdv_pcg64_integers(mdv_pcg64 *g, int64_t low, int64_t high);

/* Write rng.choice(pop_size, size=k, replace=False) into out[0..k-1] in numpy's order and
   consume the same draws: Floyd's algorithm with numpy's hash set then a shuffle, or, when
   pop_size > 10000 and k > pop_size / 50, numpy's tail shuffle of 0..pop_size-1 (which needs
   pop_size * 8 bytes of scratch). rng.choice(np.arange(a, a + pop_size), ...) is a + out[i].
   Return 0, or -1 without drawing when k < 0, k > pop_size or scratch cannot be allocated. */
int mdv_pcg64_choice(mdv_pcg64 *g, int64_t pop_size, int64_t k, int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* MDV_PCG64_H */
