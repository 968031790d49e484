/* test_npmath.c: libmdvec/src/npmath.c against numpy / Python results (rng_fixtures.h).
 *
 * Plain C, no framework; every comparison is on bit patterns. Regenerate the fixtures with
 * tests/c/gen_rng_fixtures.py. Exits non-zero if any check fails.
 */
#include "npmath.h"
#include "rng_fixtures.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/*---------------------------------- Arrays -------------------------------------------------*/

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* make_array() of gen_rng_fixtures.py: n values of the given kind, 2 splitmix64 draws each. */
static void make_array(int kind, int n, double *x) {
  uint64_t s = (uint64_t)kind * 1000003u + (uint64_t)n;
  for (int i = 0; i < n; i++) {
    uint64_t r1 = splitmix64(&s), r2 = splitmix64(&s);
    uint64_t mant = r1 & ((1ULL << 52) - 1), sign = (r2 >> 63) << 63;
    switch (kind) {
      case 0:
        x[i] = dbl(sign | (uint64_t)(1023 + (int)(r2 % 41) - 20) << 52 | mant);
        break;
      case 1:
        x[i] = (double)(r1 >> 11) * 0x1p-53;
        break;
      case 2:
        x[i] = dbl(sign | (uint64_t)(1023 + (int)(r2 % 121) - 60) << 52 | mant);
        break;
      default:
        x[i] = (double)((int64_t)(r1 % 2001) - 1000);
        break;
    }
  }
}

/*---------------------------------- Tests --------------------------------------------------*/

static void test_sum(void) {
  static double x[300000];
  for (int kind = 0; kind < 4; kind++) {
    for (int n = 1; n <= FX_SUM_MAXN; n++) {
      make_array(kind, n, x);
      CHECK_U64(WHAT("sum kind %d n %d", kind, n), bits(mdv_np_sum(x, n)), fx_sum_gen[kind][n - 1][0]);
      CHECK_U64(WHAT("mean kind %d n %d", kind, n), bits(mdv_np_mean(x, n)), fx_sum_gen[kind][n - 1][1]);
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
    CHECK_U64(WHAT("np.clip(%a, %a, %a) [%d]", x, lo, hi, i), bits(mdv_np_clip(x, lo, hi)), fx_clip[i][3]);
    CHECK_U64(WHAT("np.clip(%a, [%a], [%a]) [%d]", x, lo, hi, i), bits(mdv_np_clip_arr(x, lo, hi)), fx_clip[i][4]);
  }
}

/*---------------------------------- Main ---------------------------------------------------*/

/*---------------------------------- numpy's dot (mdv_np_dot) ------------------------------------*/

/* Vectors whose dot differs between the plain and the FMA order; the expected bits were computed
 * exactly with Python's fractions.Fraction (each product and sum rounded once to float64). */
static const uint64_t DOT_X2[2] = {0x3fd61e0d28bbb3a1ULL, 0x3fea4ab22204681fULL};
static const uint64_t DOT_Y2[2] = {0x3fd525e18ce5fc0aULL, 0xbff4d9bb65b49607ULL};
static const uint64_t DOT_X3[3] = {0x3fecf8acddd349f3ULL, 0x3fdc9166a7847147ULL, 0xbfe12eb88d2b5275ULL};
static const uint64_t DOT_Y3[3] = {0x3fe29884fe946122ULL, 0x3fd7552775a92feeULL, 0x3fd2d3111b74e252ULL};

static int g_calls, g_n, g_incx, g_incy;
static const double *g_x, *g_y;

static double fake_ddot(int n, const double *x, int incx, const double *y, int incy) {
  g_calls++, g_n = n, g_incx = incx, g_incy = incy, g_x = x, g_y = y;
  return -0.0; /* numpy adds 0.0: the dot of a BLAS returning -0.0 is +0.0 */
}

static double fake_ddot64(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy) {
  return fake_ddot((int)n, x, (int)incx, y, (int)incy) + 0.25 * (double)n;
}

static void test_dot(void) {
  double x2[2], y2[2], x3[3], y3[3];
  for (int i = 0; i < 2; i++) x2[i] = dbl(DOT_X2[i]), y2[i] = dbl(DOT_Y2[i]);
  for (int i = 0; i < 3; i++) x3[i] = dbl(DOT_X3[i]), y3[i] = dbl(DOT_Y3[i]);
  mdv_dot plain = {MDVEC_DOT_PLAIN, NULL, NULL}, fused = {MDVEC_DOT_FMA, NULL, NULL};
  CHECK(bits(mdv_np_dot(&plain, x2, y2, 2)) == 0xbfee9badd8ecbfc7ULL);
  CHECK(bits(mdv_np_dot(&fused, x2, y2, 2)) == 0xbfee9badd8ecbfc8ULL);
  CHECK(bits(mdv_np_dot(&plain, x3, y3, 3)) == 0x3fe0fd4a21110f79ULL);
  CHECK(bits(mdv_np_dot(&fused, x3, y3, 3)) == 0x3fe0fd4a21110f78ULL);
  CHECK(bits(mdv_np_dot(&plain, x3, y3, 0)) == 0 && bits(mdv_np_dot(&fused, x3, y3, 0)) == 0);
  double neg[1] = {-0.0};
  CHECK(bits(mdv_np_norm(&plain, neg, 1)) == 0); /* 0.0 + (-0.0)^2: +0.0 */
  double three_four[2] = {3.0, 4.0};
  CHECK(mdv_np_norm(&plain, three_four, 2) == 5.0 && mdv_np_norm(&fused, three_four, 2) == 5.0);

  mdv_dot cb = {MDVEC_DOT_CBLAS, fake_ddot, NULL}, cb64 = {MDVEC_DOT_CBLAS64, NULL, fake_ddot64};
  g_calls = 0;
  CHECK(bits(mdv_np_dot(&cb, x3, y3, 3)) == 0); /* the BLAS's -0.0, plus numpy's 0.0 */
  CHECK(g_calls == 1 && g_n == 3 && g_incx == 1 && g_incy == 1 && g_x == x3 && g_y == y3);
  CHECK(mdv_np_norm(&cb64, x2, 2) == sqrt(0.5) && g_calls == 2 && g_n == 2 && g_x == x2 && g_y == x2);
}

int main(void) {
  test_sum();
  test_pow();
  test_clip();
  test_dot();
  return check_summary("test_npmath");
}
