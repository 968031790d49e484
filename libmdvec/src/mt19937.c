/* mt19937.c: numpy-bit-exact legacy RandomState draws; see mt19937.h.
 *
 * Follows numpy 2.x: numpy/random/src/mt19937/mt19937.c and mt19937.h (mt19937_seed, mt19937_gen,
 * mt19937_next, next64, next_double), numpy/random/src/legacy/legacy-distributions.c (legacy_gauss,
 * legacy_normal), numpy/random/src/distributions/distributions.c (random_uniform, gen_mask,
 * random_bounded_uint64_fill with buffered_bounded_masked_uint32 / bounded_masked_uint64,
 * random_interval), numpy/random/_bounded_integers.pyx.in (_rand_int64: rng = high - 1 - low,
 * off = low) and numpy/random/mtrand.pyx (RandomState.randint with _masked = True, choice,
 * shuffle / _shuffle_raw, permutation). No code is copied; the arithmetic is the same.
 */
#include "mt19937.h"

#include <math.h>
#include <stdlib.h>

#define MDV_MT19937_M        397
#define MDV_MT19937_MATRIX_A 0x9908b0dfU
#define MDV_MT19937_UPPER    0x80000000U
#define MDV_MT19937_LOWER    0x7fffffffU

/*---------------------------------- Generator ----------------------------------------------*/

void mdv_mt19937_seed(mdv_mt19937 *g, uint32_t seed) {
  /* mt19937_seed: key[0] = seed, key[i] = 1812433253 * (key[i-1] ^ (key[i-1] >> 30)) + i (mod 2^32) */
  g->key[0] = seed;
  for (int i = 1; i < MDV_MT19937_N; i++) {
    uint32_t prev = g->key[i - 1];
    g->key[i] = 1812433253U * (prev ^ (prev >> 30)) + (uint32_t)i;
  }
  g->pos = MDV_MT19937_N; /* the first draw regenerates */
  g->has_gauss = 0;       /* RandomState._reset_gauss */
  g->gauss = 0.0;
}

/* mt19937_gen: regenerate the 624 words in place; pos back to 0. */
static void mt19937_gen(mdv_mt19937 *g) {
  uint32_t *key = g->key;
  uint32_t y;
  int i;
  for (i = 0; i < MDV_MT19937_N - MDV_MT19937_M; i++) {
    y = (key[i] & MDV_MT19937_UPPER) | (key[i + 1] & MDV_MT19937_LOWER);
    key[i] = key[i + MDV_MT19937_M] ^ (y >> 1) ^ (-(y & 1U) & MDV_MT19937_MATRIX_A);
  }
  for (; i < MDV_MT19937_N - 1; i++) {
    y = (key[i] & MDV_MT19937_UPPER) | (key[i + 1] & MDV_MT19937_LOWER);
    key[i] = key[i + (MDV_MT19937_M - MDV_MT19937_N)] ^ (y >> 1) ^ (-(y & 1U) & MDV_MT19937_MATRIX_A);
  }
  y = (key[MDV_MT19937_N - 1] & MDV_MT19937_UPPER) | (key[0] & MDV_MT19937_LOWER);
  key[MDV_MT19937_N - 1] = key[MDV_MT19937_M - 1] ^ (y >> 1) ^ (-(y & 1U) & MDV_MT19937_MATRIX_A);
  g->pos = 0;
}

uint32_t mdv_mt19937_next32(mdv_mt19937 *g) {
  if (g->pos == MDV_MT19937_N) mt19937_gen(g);
  uint32_t y = g->key[g->pos++];
  /* Tempering */
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

/* mt19937_next64: the first 32-bit output is the upper half (numpy's gcc build evaluates the
   left operand of `next << 32 | next` first; mt19937_fill_uint64 says so explicitly). */
static uint64_t next64(mdv_mt19937 *g) {
  uint64_t hi = mdv_mt19937_next32(g);
  uint64_t lo = mdv_mt19937_next32(g);
  return hi << 32 | lo;
}

/*---------------------------------- Distributions ------------------------------------------*/

double mdv_mt19937_random(mdv_mt19937 *g) {
  /* mt19937_next_double: int32_t a = next >> 5, b = next >> 6 (a first) */
  int32_t a = (int32_t)(mdv_mt19937_next32(g) >> 5);
  int32_t b = (int32_t)(mdv_mt19937_next32(g) >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double mdv_mt19937_uniform(mdv_mt19937 *g, double low, double high) {
  /* RandomState.uniform: range = high - low; random_uniform: lower + range * next_double */
  double range = high - low;
  return low + range * mdv_mt19937_random(g);
}

double mdv_mt19937_randn(mdv_mt19937 *g) {
  /* legacy_gauss */
  if (g->has_gauss) {
    double temp = g->gauss;
    g->has_gauss = 0;
    g->gauss = 0.0;
    return temp;
  }
  double f, x1, x2, r2;
  do {
    x1 = 2.0 * mdv_mt19937_random(g) - 1.0;
    x2 = 2.0 * mdv_mt19937_random(g) - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  f = sqrt(-2.0 * log(r2) / r2); /* polar Box-Muller */
  g->gauss = f * x1;             /* kept for the next call */
  g->has_gauss = 1;
  return f * x2;
}

double mdv_mt19937_normal(mdv_mt19937 *g, double loc, double scale) {
  /* legacy_normal: loc + scale * legacy_gauss */
  return loc + scale * mdv_mt19937_randn(g);
}

/* gen_mask: the smallest all-ones mask >= max. */
static uint64_t gen_mask(uint64_t max) {
  uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  return mask;
}

/* random_bounded_uint64_fill(off, rng, cnt = 1, use_masked = true) less off: a value in [0, rng]. */
static uint64_t bounded_masked(mdv_mt19937 *g, uint64_t rng) {
  if (rng == 0) return 0; /* no draw */
  uint64_t mask = gen_mask(rng);
  if (rng <= 0xFFFFFFFFULL) {
    /* buffered_bounded_masked_uint32 (the buffer is unused for 32 bits); rng == 2^32 - 1 takes
       next_uint32 whole, which the mask 0xFFFFFFFF also does */
    uint32_t val, m32 = (uint32_t)mask, r32 = (uint32_t)rng;
    while ((val = (mdv_mt19937_next32(g) & m32)) > r32) {}
    return val;
  }
  /* bounded_masked_uint64; rng == 2^64 - 1 takes next_uint64 whole, as the mask does */
  uint64_t val;
  while ((val = (next64(g) & mask)) > rng) {}
  return val;
}

int64_t mdv_mt19937_randint(mdv_mt19937 *g, int64_t low, int64_t high) {
  if (low >= high) return low; /* numpy raises ValueError */
  /* _rand_int64: high -= 1; rng = <uint64_t>(high - low); off = <uint64_t>low; off + value */
  uint64_t rng = (uint64_t)high - 1U - (uint64_t)low;
  return (int64_t)((uint64_t)low + bounded_masked(g, rng));
}

/* random_interval(max): a value in [0, max] by masked rejection, 32-bit outputs when max fits. */
static uint64_t random_interval(mdv_mt19937 *g, uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = gen_mask(max), value;
  if (max <= 0xffffffffULL) {
    while ((value = (mdv_mt19937_next32(g) & mask)) > max) {}
  } else {
    while ((value = (next64(g) & mask)) > max) {}
  }
  return value;
}

int mdv_mt19937_choice(mdv_mt19937 *g, int64_t pop_size, int64_t k, int replace, int64_t *out) {
  if (k < 0) return -1;                  /* numpy raises ValueError (negative dimensions) */
  if (pop_size <= 0 && k > 0) return -1; /* "a must be greater than 0 unless no samples are taken" */
  if (replace) {
    /* self.randint(0, pop_size, size=k) */
    for (int64_t i = 0; i < k; i++) out[i] = mdv_mt19937_randint(g, 0, pop_size);
    return 0;
  }
  if (k > pop_size) return -1; /* "Cannot take a larger sample than population" */
  if (pop_size <= 1) {         /* arange(0) is not shuffled; arange(1) draws nothing */
    if (k == 1) out[0] = 0;
    return 0;
  }
  /* self.permutation(pop_size)[:k]: arr = np.arange(pop_size); shuffle(arr) (_shuffle_raw) */
  int64_t *arr = (int64_t *)malloc((size_t)pop_size * sizeof(int64_t));
  if (!arr) return -1;
  for (int64_t i = 0; i < pop_size; i++) arr[i] = i;
  for (int64_t i = pop_size - 1; i >= 1; i--) {
    int64_t j = (int64_t)random_interval(g, (uint64_t)i);
    int64_t t = arr[j];
    arr[j] = arr[i];
    arr[i] = t;
  }
  for (int64_t i = 0; i < k; i++) out[i] = arr[i];
  free(arr);
  return 0;
}

int64_t mdv_mt19937_choice_p(mdv_mt19937 *g, const double *p, int64_t n) {
  /* cdf = p.cumsum(); cdf /= cdf[-1]; u = self.random_sample(()); cdf.searchsorted(u, side='right') */
  double total = 0.0;
  for (int64_t i = 0; i < n; i++) total += p[i];
  double u = mdv_mt19937_random(g);
  double cum = 0.0;
  int64_t idx = 0;
  for (int64_t i = 0; i < n; i++) {
    cum += p[i];
    if (cum / total <= u) idx = i + 1; /* cdf is non-decreasing: idx counts entries <= u */
  }
  return idx;
}
