/* mt19937.h: numpy-bit-exact legacy np.random.RandomState draws (internal, not part of the ABI).
 *
 * Reproduces np.random.RandomState(seed) (MT19937 with numpy's legacy seeding and legacy
 * distributions) draw for draw, bit for bit, for the calls listed below: what dm_control's Control
 * Suite draws from (its tasks' `self.random`). Each function equals the numpy call named in its
 * comment, including how many 32-bit outputs it consumes and the cached second Gaussian of the
 * legacy polar method (has_gauss/gauss), which RandomState keeps between calls, so any mix of these
 * calls on one generator stays in step with the same mix on one RandomState (checked against numpy
 * 2.4 by tests/c/test_mt19937.c).
 *
 * NOT numpy's (not covered): seeds other than one int in [0, 2**32 - 1] (numpy also takes arrays of
 * ints: init_by_array); set_state/get_state; dtypes other than float64/int64; uniform with a
 * non-finite range; randint with low >= high (numpy raises; here low is returned without a draw);
 * array-valued arguments; choice with replace=False and p; all other RandomState methods.
 */
#ifndef MDV_MT19937_H
#define MDV_MT19937_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MDV_MT19937_N 624

/* MT19937 state plus RandomState's cached Gaussian. */
typedef struct mdv_mt19937 {
  uint32_t key[MDV_MT19937_N]; /* the state vector */
  int pos;                     /* next word of key to temper (MDV_MT19937_N: regenerate first) */
  int has_gauss;               /* 1 when gauss holds the cached second value of the polar method */
  double gauss;                /* that value */
} mdv_mt19937;

/* Seed g as np.random.RandomState(seed) for an int seed (numpy's mt19937_seed: Knuth's
   init_genrand with multiplier 1812433253); the cached Gaussian is dropped. */
void mdv_mt19937_seed(mdv_mt19937 *g, uint32_t seed);

/* Return the next tempered 32-bit output (numpy's mt19937_next32). */
uint32_t mdv_mt19937_next32(mdv_mt19937 *g);

/* Return rs.random_sample() (= rs.rand()): (a >> 5) * 67108864.0 + (b >> 6), over 9007199254740992.0,
   a and b two consecutive 32-bit outputs. rs.rand(n) equals n calls. */
double mdv_mt19937_random(mdv_mt19937 *g);

/* Return rs.uniform(low, high) = low + (high - low) * random_sample(); rs.uniform(low, high, n)
   equals n calls. */
double mdv_mt19937_uniform(mdv_mt19937 *g, double low, double high);

/* Return rs.randn() (= rs.standard_normal()): numpy's legacy_gauss, the polar Box-Muller method
   that returns the cached second value when there is one. rs.randn(n) equals n calls. */
double mdv_mt19937_randn(mdv_mt19937 *g);

/* Return rs.randint(low, high) (scalar, int64 dtype, high exclusive): numpy's legacy masked
   rejection sampling on 32-bit outputs when high - 1 - low fits 32 bits, else on 64-bit words made
   of two outputs; no draw when high - low == 1. Requires low < high. */
int64_t mdv_mt19937_randint(mdv_mt19937 *g, int64_t low, int64_t high);

/* Return rs.normal(loc, scale) (scalar loc and scale): numpy's legacy_normal, loc + scale * randn()
   with randn as mdv_mt19937_randn (cache included). rs.normal(loc, scale, n) equals n calls. */
double mdv_mt19937_normal(mdv_mt19937 *g, double loc, double scale);

/* Write rs.choice(pop_size, size=k, replace=replace) (int population, no p) into out[0..k-1]:
   replace != 0 is rs.randint(0, pop_size, size=k), k calls of mdv_mt19937_randint(g, 0, pop_size);
   replace == 0 is rs.permutation(pop_size)[:k]: legacy shuffle of 0..pop_size-1 (for i from
   pop_size - 1 down to 1, swap i with random_interval(i), the masked rejection on one 32-bit output
   when i < 2^32, else on a 64-bit word of two), which draws for the whole population whatever k is
   and needs pop_size * 8 bytes of scratch. rs.choice(np.arange(a, a + pop_size), ...) is a + out[i].
   Return 0, or -1 without drawing where numpy raises (k < 0; pop_size <= 0 with k > 0; replace == 0
   with k > pop_size) or scratch cannot be allocated. k == 0 draws nothing. */
int mdv_mt19937_choice(mdv_mt19937 *g, int64_t pop_size, int64_t k, int replace, int64_t *out);

/* Return rs.choice(n, p=p) (scalar, replace=True, p given as n float64 values): one
   random_sample() u and the index searchsorted(cdf, u, side='right') of cdf = np.cumsum(p) / its
   last element (cumsum left to right; the count of cdf entries <= u). rs.choice(a, p=p) with a
   1-d population of n is a[that index]; rs.choice(n, size=k, p=p) equals k calls. numpy's checks
   on p (1-d, size n, no NaN, non-negative, sum within sqrt(eps) of 1) are the caller's: here n >= 1
   and p are taken as given. */
int64_t mdv_mt19937_choice_p(mdv_mt19937 *g, const double *p, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* MDV_MT19937_H */
