/* npmath.c: numpy / CPython bit-exact float64 arithmetic; see npmath.h.
 *
 * Follows numpy/_core/src/umath/loops_utils.h.src (DOUBLE_pairwise_sum), the add reduction of
 * numpy 2.x (which starts from the identity 0.0 and sums every element pairwise, found
 * empirically: np.sum([-0.0]) is 0.0 and no element is peeled off first), numpy 2.4's clip
 * loops (found empirically: the scalar-bounds loop is not the per-element Min(Max(x, lo), hi) of
 * numpy/_core/src/umath/clip.cpp, which the array-bounds loop is) and CPython's
 * Objects/floatobject.c (float_pow).
 */
#include "npmath.h"

#include <math.h>

/*---------------------------------- Sum ----------------------------------------------------*/

#define MDV_PW_BLOCKSIZE 128

/* numpy's DOUBLE_/FLOAT_pairwise_sum, accumulating in type T, of LOAD(a[i]) over a contiguous
   float64 array: the elements of np.square(a) (or of a) never stored, summed in numpy's order. */
#define MDV_PAIRWISE_SUM(name, T, LOAD)                                          \
  static T name(const double *a, int n) {                                        \
    if (n < 8) {                                                                 \
      T res = (T) - 0.0; /* keeps an all -0.0 run at -0.0 */                     \
      for (int i = 0; i < n; i++) res += LOAD(a[i]);                             \
      return res;                                                                \
    }                                                                            \
    if (n <= MDV_PW_BLOCKSIZE) {                                                 \
      T r[8];                                                                    \
      int i;                                                                     \
      for (int k = 0; k < 8; k++) r[k] = LOAD(a[k]);                             \
      for (i = 8; i < n - (n % 8); i += 8) {                                     \
        for (int k = 0; k < 8; k++) r[k] += LOAD(a[i + k]);                      \
      }                                                                          \
      T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])); \
      for (; i < n; i++) res += LOAD(a[i]);                                      \
      return res;                                                                \
    }                                                                            \
    int n2 = n / 2;                                                              \
    n2 -= n2 % 8;                                                                \
    return name(a, n2) + name(a + n2, n - n2);                                   \
  }

#define MDV_LOAD(x)            (x)
#define MDV_LOAD_SQUARE(x)     ((x) * (x))
#define MDV_LOAD_SQUARE_F32(x) ((float)(x) * (float)(x))

MDV_PAIRWISE_SUM(pairwise_sum, double, MDV_LOAD)
MDV_PAIRWISE_SUM(pairwise_sum_square, double, MDV_LOAD_SQUARE)
MDV_PAIRWISE_SUM(pairwise_sum_square_f32, float, MDV_LOAD_SQUARE_F32)

double mdv_np_sum(const double *x, int n) {
  return 0.0 + pairwise_sum(x, n > 0 ? n : 0);
}

double mdv_np_sum_square(const double *x, int n) {
  return 0.0 + pairwise_sum_square(x, n > 0 ? n : 0);
}

double mdv_np_sum_square_f32(const double *x, int n) {
  return (double)(0.0f + pairwise_sum_square_f32(x, n > 0 ? n : 0));
}

double mdv_np_mean(const double *x, int n) {
  return mdv_np_sum(x, n) / (double)n;
}

/*---------------------------------- Elementwise --------------------------------------------*/

double mdv_np_clip(double x, double lo, double hi) {
  if (isnan(lo)) return lo;
  if (isnan(hi)) return hi;
  double y = x < lo ? lo : x;
  return y > hi ? hi : y;
}

double mdv_np_clip_arr(double x, double lo, double hi) {
  double m = isnan(x) || x > lo ? x : lo;
  return isnan(m) || m < hi ? m : hi;
}

double mdv_np_square(double x) {
  return x * x;
}

/* CPython's DOUBLE_IS_ODD_INTEGER. */
static int is_odd_integer(double v) {
  return fmod(fabs(v), 2.0) == 1.0;
}

double mdv_py_pow(double x, double y) {
  int negate = 0;
  if (y == 0.0) return 1.0; /* x ** 0 is 1, even nan ** 0 */
  if (isnan(x)) return x;
  if (isnan(y)) return x == 1.0 ? 1.0 : y;
  if (isinf(y)) {
    double ax = fabs(x);
    if (ax == 1.0) return 1.0;
    if ((y > 0.0) == (ax > 1.0)) return fabs(y);
    return 0.0;
  }
  if (isinf(x)) {
    int odd = is_odd_integer(y);
    if (y > 0.0) return odd ? x : fabs(x);
    return odd ? copysign(0.0, x) : 0.0;
  }
  if (x == 0.0) { /* Python raises ZeroDivisionError for y < 0 */
    if (y < 0.0) return pow(x, y);
    return is_odd_integer(y) ? x : 0.0;
  }
  if (x < 0.0) {
    if (y != floor(y)) return pow(x, y); /* Python returns a complex */
    x = -x;
    negate = is_odd_integer(y);
  }
  if (x == 1.0) return negate ? -1.0 : 1.0;
  double r = pow(x, y); /* Python raises OverflowError on overflow */
  return negate ? -r : r;
}

double mdv_np_dot(const mdv_dot *dot, const double *x, const double *y, int n) {
  double sum = 0.0;
  switch (dot->mode) {
    case MDVEC_DOT_CBLAS:
      sum = dot->ddot(n, x, 1, y, 1);
      break;
    case MDVEC_DOT_CBLAS64:
      sum = dot->ddot64(n, x, 1, y, 1);
      break;
    case MDVEC_DOT_FMA:
      for (int i = 0; i < n; i++) sum = fma(x[i], y[i], sum);
      break;
    default:
      for (int i = 0; i < n; i++) sum += x[i] * y[i];
      break;
  }
  return 0.0 + sum; /* numpy's DOUBLE_dot: sum = 0. + cblas_ddot(...) */
}

double mdv_np_norm(const mdv_dot *dot, const double *x, int n) {
  return sqrt(mdv_np_dot(dot, x, x, n));
}

#define MDV_CBLAS_ROW_MAJOR 101 /* CBLAS_ORDER CblasRowMajor */
#define MDV_CBLAS_NO_TRANS  111 /* CBLAS_TRANSPOSE CblasNoTrans */
#define MDV_CBLAS_TRANS     112 /* CBLAS_TRANSPOSE CblasTrans */

/* Call numpy's dgemv as cblas_matrixproduct does (row-major M, lda cols, unit strides, alpha 1.0, beta 0.0,
   out zeroed first as numpy's memset of its result); return 0 when dot has no dgemv for its mode. */
static int blas_gemv(const mdv_dot *dot, int trans, const double *M, const double *x, int rows, int cols, double *out,
                     int n_out) {
  for (int k = 0; k < n_out; k++) out[k] = 0.0;
  if (dot->mode == MDVEC_DOT_CBLAS && dot->dgemv) {
    dot->dgemv(MDV_CBLAS_ROW_MAJOR, trans, rows, cols, 1.0, M, cols, x, 1, 0.0, out, 1);
    return 1;
  }
  if (dot->mode == MDVEC_DOT_CBLAS64 && dot->dgemv64) {
    dot->dgemv64(MDV_CBLAS_ROW_MAJOR, trans, rows, cols, 1.0, M, cols, x, 1, 0.0, out, 1);
    return 1;
  }
  return 0;
}

void mdv_np_vecmat(const mdv_dot *dot, const double *v, const double *M, int rows, int cols, double *out) {
  if (cols == 1) { /* M is a column: numpy's dotfunc, 0.0 + ddot(v, M[:, 0]) */
    out[0] = mdv_np_dot(dot, v, M, rows);
    return;
  }
  if (blas_gemv(dot, MDV_CBLAS_TRANS, M, v, rows, cols, out, cols)) return;
  for (int k = 0; k < cols; k++) {
    double sum = 0.0;
    if (dot->mode == MDVEC_DOT_FMA)
      for (int i = 0; i < rows; i++) sum = fma(v[i], M[i * cols + k], sum);
    else
      for (int i = 0; i < rows; i++) sum += v[i] * M[i * cols + k];
    out[k] = sum;
  }
}

void mdv_np_matvec(const mdv_dot *dot, const double *M, const double *v, int rows, int cols, double *out) {
  if (rows == 1) { /* M is a row: numpy's dotfunc, 0.0 + ddot(M[0], v) */
    out[0] = mdv_np_dot(dot, M, v, cols);
    return;
  }
  if (blas_gemv(dot, MDV_CBLAS_NO_TRANS, M, v, rows, cols, out, rows)) return;
  for (int r = 0; r < rows; r++) {
    const double *row = M + (size_t)r * cols;
    double sum = 0.0;
    if (dot->mode == MDVEC_DOT_FMA)
      for (int j = 0; j < cols; j++) sum = fma(row[j], v[j], sum);
    else
      for (int j = 0; j < cols; j++) sum += row[j] * v[j];
    out[r] = sum;
  }
}
