/* test_npmath.c: libmdvec/src/npmath.c against numpy / Python results (rng_fixtures.h).
 *
 * Plain C, no framework; every comparison is on bit patterns. Regenerate the fixtures with
 * tests/c/gen_rng_fixtures.py. Exits non-zero if any check fails.
 */
#include "npmath.h"
#include "rng_fixtures.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/*---------------------------------- Arrays -------------------------------------------------*/

static uint64_t splitmix64(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* make_array() of gen_rng_fixtures.py: n values of the given kind, 2 splitmix64 draws each. */
static void make_array(int kind, int n, double* x) {
  uint64_t s = (uint64_t)kind * 1000003u + (uint64_t)n;
  for (int i = 0; i < n; i++) {
    uint64_t r1 = splitmix64(&s), r2 = splitmix64(&s);
    uint64_t mant = r1 & ((1ULL << 52) - 1), sign = (r2 >> 63) << 63;
    switch (kind) {
      case 0: x[i] = dbl(sign | (uint64_t)(1023 + (int)(r2 % 41) - 20) << 52 | mant); break;
      case 1: x[i] = (double)(r1 >> 11) * 0x1p-53; break;
      case 2: x[i] = dbl(sign | (uint64_t)(1023 + (int)(r2 % 121) - 60) << 52 | mant); break;
      default: x[i] = (double)((int64_t)(r1 % 2001) - 1000); break;
    }
  }
}

/*---------------------------------- Tests --------------------------------------------------*/

static void test_sum(void) {
  static double x[300000];
  for (int kind = 0; kind < 4; kind++) {
    for (int n = 1; n <= FX_SUM_MAXN; n++) {
      make_array(kind, n, x);
      CHECK_U64(WHAT("sum kind %d n %d", kind, n), bits(mdv_np_sum(x, n)),
                fx_sum_gen[kind][n - 1][0]);
      CHECK_U64(WHAT("mean kind %d n %d", kind, n), bits(mdv_np_mean(x, n)),
                fx_sum_gen[kind][n - 1][1]);
    }
  }
  for (int i = 0; i < FX_SUM_NBIG; i++) {
    int kind = (int)fx_sum_big[i][0], n = (int)fx_sum_big[i][1];
    if (n > (int)(sizeof x / sizeof x[0])) abort();
    make_array(kind, n, x);
    CHECK_U64(WHAT("sum kind %d n %d", kind, n), bits(mdv_np_sum(x, n)), fx_sum_big[i][2]);
    CHECK_U64(WHAT("mean kind %d n %d", kind, n), bits(mdv_np_mean(x, n)), fx_sum_big[i][3]);
  }
  for (int c = 0; c < FX_ADV_N; c++) {
    int off = (int)fx_adv_case[c][0], n = (int)fx_adv_case[c][1];
    for (int i = 0; i < n; i++) x[i] = dbl(fx_adv_vals[off + i]);
    CHECK_U64(WHAT("adversarial sum %d", c), bits(mdv_np_sum(x, n)), fx_adv_case[c][2]);
    CHECK_U64(WHAT("adversarial mean %d", c), bits(mdv_np_mean(x, n)), fx_adv_case[c][3]);
  }

  /* The tree matters: {1e16, 1 x7, -1e16, 0 x5} is 6 pairwise but 0 left to right. */
  const double a[14] = {1e16, 1, 1, 1, 1, 1, 1, 1, -1e16, 0, 0, 0, 0, 0};
  double seq = 0.0;
  for (int i = 0; i < 14; i++) seq += a[i];
  CHECK_THAT("np.sum tree gives 6", mdv_np_sum(a, 14) == 6.0);
  CHECK_THAT("left-to-right gives 0", seq == 0.0);

  CHECK_U64("np.sum(empty)", bits(mdv_np_sum(x, 0)), fx_empty_sum);
  CHECK_THAT("np.mean(empty) is NaN", fx_empty_mean != fx_empty_mean || mdv_np_mean(x, 0) != 0.0);
  CHECK_U64("np.mean(empty)", bits(mdv_np_mean(x, 0)), fx_empty_mean);
}

static void test_pow(void) {
  CHECK_THAT("pow(x, 2.0) != x*x cases exist", FX_POW2_FOUND > 0);
  for (int i = 0; i < FX_POW2_N; i++) {
    double x = dbl(fx_pow2[i][0]);
    CHECK_U64(WHAT("python %a ** 2.0", x), bits(mdv_py_pow(x, 2.0)), fx_pow2[i][1]);
    CHECK_U64(WHAT("numpy arr ** 2 at %a", x), bits(mdv_np_square(x)), fx_pow2[i][2]);
    CHECK_THAT(WHAT("pow(%a, 2) differs from x*x", x), fx_pow2[i][1] != fx_pow2[i][2]);
  }
  for (int i = 0; i < FX_POW_N; i++) {
    double x = dbl(fx_pow[i][0]), y = dbl(fx_pow[i][1]);
    CHECK_U64(WHAT("python %a ** %a", x, y), bits(mdv_py_pow(x, y)), fx_pow[i][2]);
  }
}

static void test_clip(void) {
  for (int i = 0; i < FX_CLIP_N; i++) {
    double x = dbl(fx_clip[i][0]), lo = dbl(fx_clip[i][1]), hi = dbl(fx_clip[i][2]);
    CHECK_U64(WHAT("np.clip(%a, %a, %a) [%d]", x, lo, hi, i), bits(mdv_np_clip(x, lo, hi)),
              fx_clip[i][3]);
    CHECK_U64(WHAT("np.clip(%a, [%a], [%a]) [%d]", x, lo, hi, i),
              bits(mdv_np_clip_arr(x, lo, hi)), fx_clip[i][4]);
  }
}

/*---------------------------------- Main ---------------------------------------------------*/

int main(void) {
  test_sum();
  test_pow();
  test_clip();
  return check_summary("test_npmath");
}
