/* test_npmath.c: libmdvec/src/npmath.c against numpy / Python results (rng_fixtures.h, gemv_fixtures.h).
 *
 * Plain C, no framework; every comparison is on bit patterns. Regenerate the fixtures with
 * tests/c/gen_rng_fixtures.py and tests/c/gen_gemv_fixtures.py. Exits non-zero if any check fails.
 */
#include "npmath.h"
#include "gemv_fixtures.h"
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
  mdv_dot plain = {.mode = MDVEC_DOT_PLAIN}, fused = {.mode = MDVEC_DOT_FMA};
  CHECK(bits(mdv_np_dot(&plain, x2, y2, 2)) == 0xbfee9badd8ecbfc7ULL);
  CHECK(bits(mdv_np_dot(&fused, x2, y2, 2)) == 0xbfee9badd8ecbfc8ULL);
  CHECK(bits(mdv_np_dot(&plain, x3, y3, 3)) == 0x3fe0fd4a21110f79ULL);
  CHECK(bits(mdv_np_dot(&fused, x3, y3, 3)) == 0x3fe0fd4a21110f78ULL);
  CHECK(bits(mdv_np_dot(&plain, x3, y3, 0)) == 0 && bits(mdv_np_dot(&fused, x3, y3, 0)) == 0);
  double neg[1] = {-0.0};
  CHECK(bits(mdv_np_norm(&plain, neg, 1)) == 0); /* 0.0 + (-0.0)^2: +0.0 */
  double three_four[2] = {3.0, 4.0};
  CHECK(mdv_np_norm(&plain, three_four, 2) == 5.0 && mdv_np_norm(&fused, three_four, 2) == 5.0);

  mdv_dot cb = {.mode = MDVEC_DOT_CBLAS, .ddot = fake_ddot}, cb64 = {.mode = MDVEC_DOT_CBLAS64, .ddot64 = fake_ddot64};
  g_calls = 0;
  CHECK(bits(mdv_np_dot(&cb, x3, y3, 3)) == 0); /* the BLAS's -0.0, plus numpy's 0.0 */
  CHECK(g_calls == 1 && g_n == 3 && g_incx == 1 && g_incy == 1 && g_x == x3 && g_y == y3);
  CHECK(mdv_np_norm(&cb64, x2, 2) == sqrt(0.5) && g_calls == 2 && g_n == 2 && g_x == x2 && g_y == x2);
}

/*---------------------------------- np.dot of a vector and a matrix (mdv_np_vecmat, _matvec) ------------*/

/* A cblas_ddot64 that sums left to right from 0.0 (PLAIN's ddot), for the CBLAS64 mode without a dgemv. */
static double plain_ddot64(int64_t n, const double *x, int64_t incx, const double *y, int64_t incy) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i * incx] * y[i * incy];
  return s;
}

/* The last call of a fake dgemv: its arguments, and whether y was all +0.0 when it came. */
static struct {
  int calls, order, trans, zeroed;
  int64_t m, n, lda, incx, incy;
  double alpha, beta;
  const double *a, *x;
  double *y;
} g_gemv;

static void record_gemv(int order, int trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                        const double *x, int64_t incx, double beta, double *y, int64_t incy) {
  g_gemv.calls++;
  g_gemv.order = order, g_gemv.trans = trans, g_gemv.m = m, g_gemv.n = n, g_gemv.alpha = alpha, g_gemv.a = a;
  g_gemv.lda = lda, g_gemv.x = x, g_gemv.incx = incx, g_gemv.beta = beta, g_gemv.y = y, g_gemv.incy = incy;
  int64_t len = trans == 112 ? n : m; /* row-major: y has n elements with CblasTrans, m without */
  g_gemv.zeroed = 1;
  for (int64_t k = 0; k < len; k++) {
    if (bits(y[k])) g_gemv.zeroed = 0;
    y[k] = -1.5 - (double)k; /* what the BLAS wrote: the result, whatever the arithmetic */
  }
}

static void fake_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                       int incx, double beta, double *y, int incy) {
  record_gemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

static void fake_dgemv64(int order, int trans, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                         const double *x, int64_t incx, double beta, double *y, int64_t incy) {
  record_gemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
  g_gemv.calls += 100; /* tell the ILP64 function from the other */
}

/* Every case of gemv_fixtures.h in PLAIN, FMA, and CBLAS64 without a dgemv (PLAIN's arithmetic). */
static void test_gemv_fixtures(void) {
  static double pool[FXG_POOL];
  const mdv_dot plain = {.mode = MDVEC_DOT_PLAIN}, fused = {.mode = MDVEC_DOT_FMA};
  const mdv_dot no_gemv = {.mode = MDVEC_DOT_CBLAS64, .ddot64 = plain_ddot64};
  long value = 0, cases = 0, bad_plain = 0, bad_fma = 0, bad_no_gemv = 0;
  for (int kind = 0; kind < FXG_KINDS; kind++) {
    make_array(kind, FXG_POOL, pool);
    int at = 0;
    for (int vm = 1; vm >= 0; vm--) {
      for (int s = 0; s < FXG_N_SHAPES; s++) {
        int rows = vm ? fxg_vecmat[s][0] : fxg_matvec[s][0], cols = vm ? fxg_vecmat[s][1] : fxg_matvec[s][1];
        int n_out = vm ? cols : rows;
        for (int c = 0; c < FXG_CASES; c++, cases++) {
          const double *M = pool + at, *v = M + rows * cols;
          at += rows * cols + (vm ? rows : cols);
          double out[3][8];
          const mdv_dot *dots[3] = {&plain, &fused, &no_gemv};
          for (int d = 0; d < 3; d++) {
            if (vm)
              mdv_np_vecmat(dots[d], v, M, rows, cols, out[d]);
            else
              mdv_np_matvec(dots[d], M, v, rows, cols, out[d]);
          }
          for (int k = 0; k < n_out; k++, value++) {
            const char *what =
              WHAT("kind %d %s %dx%d case %d out[%d]", kind, vm ? "np.dot(v, M)" : "np.dot(M, v)", rows, cols, c, k);
            bad_plain += bits(out[0][k]) != fxg_plain[value];
            bad_fma += bits(out[1][k]) != fxg_fma[value];
            bad_no_gemv += bits(out[2][k]) != fxg_plain[value];
            if (bits(out[0][k]) != fxg_plain[value]) CHECK_U64(what, bits(out[0][k]), fxg_plain[value]);
            if (bits(out[1][k]) != fxg_fma[value]) CHECK_U64(what, bits(out[1][k]), fxg_fma[value]);
          }
        }
      }
    }
    CHECK(at <= FXG_POOL);
  }
  CHECK(value == FXG_N_VALUES);
  CHECK_THAT("every PLAIN value equals numpy's", bad_plain == 0);
  CHECK_THAT("every FMA value equals the fused sum", bad_fma == 0);
  CHECK_THAT("CBLAS64 without a dgemv is PLAIN", bad_no_gemv == 0);
  printf("np.dot(v, M) / np.dot(M, v): %ld cases, %ld values; %ld PLAIN, %ld FMA, %ld no-dgemv differ\n", cases, value,
         bad_plain, bad_fma, bad_no_gemv);
}

/* The CBLAS modes call the dgemv as numpy's cblas_matrixproduct: row-major M, lda cols, alpha 1.0, beta 0.0,
 * unit strides, into a zeroed out; a column or row M is a ddot instead. */
static void test_gemv_calls(void) {
  const double M[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, v[4] = {0.5, -1, 2, 0.25};
  double out[4] = {7, 7, 7, 7};
  const mdv_dot cb = {.mode = MDVEC_DOT_CBLAS, .ddot = fake_ddot, .dgemv = fake_dgemv};
  const mdv_dot cb64 = {.mode = MDVEC_DOT_CBLAS64, .ddot64 = fake_ddot64, .dgemv64 = fake_dgemv64};
  memset(&g_gemv, 0, sizeof g_gemv);
  mdv_np_vecmat(&cb, v, M, 3, 4, out); /* np.dot(v[:3], M.reshape(3, 4)) */
  CHECK(g_gemv.calls == 1 && g_gemv.order == 101 && g_gemv.trans == 112 && g_gemv.m == 3 && g_gemv.n == 4);
  CHECK(g_gemv.alpha == 1.0 && g_gemv.a == M && g_gemv.lda == 4 && g_gemv.x == v && g_gemv.incx == 1);
  CHECK(bits(g_gemv.beta) == 0 && g_gemv.y == out && g_gemv.incy == 1 && g_gemv.zeroed);
  CHECK(out[0] == -1.5 && out[3] == -4.5); /* the BLAS's values, as they are */

  for (int k = 0; k < 4; k++) out[k] = -0.0;
  mdv_np_matvec(&cb64, M, v, 3, 4, out); /* np.dot(M.reshape(3, 4), v) */
  CHECK(g_gemv.calls == 102 && g_gemv.order == 101 && g_gemv.trans == 111 && g_gemv.m == 3 && g_gemv.n == 4);
  CHECK(g_gemv.alpha == 1.0 && g_gemv.a == M && g_gemv.lda == 4 && g_gemv.x == v && g_gemv.incx == 1);
  CHECK(bits(g_gemv.beta) == 0 && g_gemv.y == out && g_gemv.incy == 1 && g_gemv.zeroed);
  CHECK(out[0] == -1.5 && out[2] == -3.5 && bits(out[3]) == bits(-0.0)); /* out[rows] only */

  /* np.dot(v, M) of a column M (rows x 1) and np.dot(M, v) of a row M (1 x cols): numpy's ddot, no dgemv */
  g_calls = 0;
  mdv_np_vecmat(&cb, v, M, 3, 1, out);
  CHECK(g_calls == 1 && g_n == 3 && g_x == v && g_y == M && g_incx == 1 && g_incy == 1 && bits(out[0]) == 0);
  mdv_np_matvec(&cb64, M, v, 1, 4, out);
  CHECK(g_calls == 2 && g_n == 4 && g_x == M && g_y == v && out[0] == 1.0);
  CHECK(g_gemv.calls == 102);

  /* the mode decides: a dgemv beside PLAIN or FMA is not called */
  const mdv_dot plain_with = {.mode = MDVEC_DOT_PLAIN, .dgemv = fake_dgemv, .dgemv64 = fake_dgemv64};
  mdv_np_vecmat(&plain_with, v, M, 2, 2, out);
  CHECK(g_gemv.calls == 102 && out[0] == 0.5 * 1 + -1.0 * 3 && out[1] == 0.5 * 2 + -1.0 * 4);
  mdv_np_matvec(&plain_with, M, v, 2, 2, out);
  CHECK(g_gemv.calls == 102 && out[0] == 0.5 * 1 + -1.0 * 2 && out[1] == 0.5 * 3 + -1.0 * 4);
  const double zero_products[4] = {-0.0, 1.0, 2.0, -0.0}, minus_zero[2] = {-0.0, -0.0};
  mdv_np_vecmat(&plain_with, minus_zero, zero_products, 2, 2, out); /* -0 * ... sums to +0.0 from 0.0 */
  CHECK(bits(out[0]) == 0 && bits(out[1]) == 0);
}

int main(void) {
  test_sum();
  test_pow();
  test_clip();
  test_dot();
  test_gemv_fixtures();
  test_gemv_calls();
  return check_summary("test_npmath");
}
