/* npmath.h: float64 arithmetic that matches numpy / CPython bit for bit (internal, not ABI).
 *
 * Each function equals the numpy or Python expression named in its comment on x86-64 with
 * glibc (checked against numpy 2.4 by tests/c/test_npmath.c); compile with -ffp-contract=off
 * and without -ffast-math, or the summation order and roundings are not kept.
 *
 * NOT numpy's / Python's (not covered): np.sum/np.mean over other dtypes, axes, where= or
 * dtype=; np.clip of other dtypes; the cases where Python's
 * float ** raises (ZeroDivisionError for 0 ** negative, OverflowError) or returns a complex
 * (negative ** non-integer): here they return what libm pow returns (inf, NaN).
 */
#ifndef MDV_NPMATH_H
#define MDV_NPMATH_H

#include "mdvec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mdv_dot_ {   /* numpy's float64 dot on this machine: cfg.dot and its functions */
  int mode;                 /* MDVEC_DOT_* */
  mdvec_ddot_fn ddot;       /* MDVEC_DOT_CBLAS: the cblas_ddot */
  mdvec_ddot64_fn ddot64;   /* MDVEC_DOT_CBLAS64: the ILP64 cblas_ddot */
  mdvec_dgemv_fn dgemv;     /* MDVEC_DOT_CBLAS: the cblas_dgemv, or NULL: PLAIN's arithmetic */
  mdvec_dgemv64_fn dgemv64; /* MDVEC_DOT_CBLAS64: the ILP64 cblas_dgemv, or NULL: PLAIN's arithmetic */
} mdv_dot;

/* Return x.dot(y) for contiguous float64 vectors of 0 <= n < 16 elements as numpy computes it
   (DOUBLE_dot: 0.0 + cblas_ddot(n, x, 1, y, 1)), the ddot being dot's: PLAIN sums x[i] * y[i] left to
   right from 0.0, FMA the same with fma(), CBLAS and CBLAS64 call the BLAS function. */
double mdv_np_dot(const mdv_dot *dot, const double *x, const double *y, int n);

/* Return np.linalg.norm(x) (ord None or 2) of a contiguous 1-d float64 vector of 0 <= n < 16 elements:
   sqrt(x.dot(x)) with x.dot as mdv_np_dot. */
double mdv_np_norm(const mdv_dot *dot, const double *x, int n);

/* Write np.dot(v, M) (also v.dot(M), v @ M) to out[cols], for a float64 vector v of rows elements and a
   C-contiguous float64 rows x cols matrix M, rows >= 2, cols >= 1 (rows 1 is numpy's scalar case, daxpy:
   not covered). numpy's cblas_matrixproduct: cols 1 is a dot, out[0] = mdv_np_dot(dot, v, M, rows); else
   cblas_dgemv(CblasRowMajor, CblasTrans, rows, cols, 1.0, M, cols, v, 1, 0.0, out, 1) into a zeroed out,
   which CBLAS and CBLAS64 call (dot->dgemv / dgemv64; NULL: PLAIN's arithmetic). The built-in arithmetic:
   PLAIN out[k] = sum of v[i] * M[i][k] left to right from 0.0, FMA the same with fma(). PLAIN equals
   numpy 2.4.6 / scipy-openblas 0.3.31 for rows <= 3 under OPENBLAS_CORETYPE Haswell, Zen, Sandybridge,
   Nehalem and Prescott (rows 4: Sandybridge, Nehalem, Prescott only); FMA (the AVX-512 kernels) is not
   measured. */
void mdv_np_vecmat(const mdv_dot *dot, const double *v, const double *M, int rows, int cols, double *out);

/* Write np.dot(M, v) (also M.dot(v), M @ v) to out[rows], for a C-contiguous float64 rows x cols matrix M
   and a float64 vector v of cols elements, rows >= 1, cols >= 2 (cols 1 is numpy's scalar case: not
   covered). numpy's cblas_matrixproduct: rows 1 is a dot, out[0] = mdv_np_dot(dot, M, v, cols); else
   cblas_dgemv(CblasRowMajor, CblasNoTrans, rows, cols, 1.0, M, cols, v, 1, 0.0, out, 1) into a zeroed out,
   called as in mdv_np_vecmat. The built-in arithmetic: PLAIN out[r] = sum of M[r][j] * v[j] left to right
   from 0.0, FMA the same with fma(). PLAIN equals numpy for cols <= 3 under OPENBLAS_CORETYPE Sandybridge,
   Nehalem and Prescott only: the Haswell kernel (Haswell, Zen) computes fma(M[r][2], v[2], fma(M[r][0],
   v[0], M[r][1] * v[1])) there (its C compiled with FMA contraction), which neither PLAIN nor FMA is. */
void mdv_np_matvec(const mdv_dot *dot, const double *M, const double *v, int rows, int cols, double *out);

/* Return np.sum(x) for a contiguous float64 array of n >= 0 elements: 0.0 (the add identity)
   plus numpy's pairwise sum of all n (blocks of <= 128 summed in 8 accumulators, < 8 summed
   left to right from -0.0, longer runs split at n/2 rounded down to a multiple of 8). */
double mdv_np_sum(const double *x, int n);

/* Return np.sum(np.square(x)) for a contiguous float64 array of n >= 0 elements: mdv_np_sum of
   the squares x[i] * x[i], in the same order, without storing them. */
double mdv_np_sum_square(const double *x, int n);

/* Return np.sum(np.square(x32)), widened, for x32 the float32 array of the n >= 0 float32 values
   x holds (widened): float32 squares summed in float32 (numpy's FLOAT_pairwise_sum) from 0.0f. */
double mdv_np_sum_square_f32(const double *x, int n);

/* Return np.mean(x) for a contiguous float64 array: mdv_np_sum(x, n) / (double)n (NaN when
   n == 0, as numpy's, which also warns). */
double mdv_np_mean(const double *x, int n);

/* Return np.clip(x, lo, hi) with scalar float64 bounds (both lo and hi scalars): lo if lo is
   NaN, else hi if hi is NaN, else x < lo ? lo : x, then > hi ? hi : that; so a NaN x stays,
   lo > hi gives hi and ties keep x (np.clip(-0.0, 0.0, 1.0) is -0.0). */
double mdv_np_clip(double x, double lo, double hi);

/* Return element i of np.clip(x, lo, hi) when lo or hi is an array (numpy's per-element loop):
   m = isnan(x) || x > lo ? x : lo, then isnan(m) || m < hi ? m : hi; differs from mdv_np_clip
   only in NaN priority and signed-zero ties (np.clip(-0.0, [0.0], 1.0) is +0.0). */
double mdv_np_clip_arr(double x, double lo, double hi);

/* Return Python's x ** y for floats (CPython float_pow): its special cases for zeros, NaNs,
   infinities, 1 and negative bases with integral y, else libm pow(|x|, y) with the sign fixed.
   Also equals Python x ** n for int n and np.float64(x) ** y (numpy scalars call libm pow). */
double mdv_py_pow(double x, double y);

/* Return x * x: numpy's arr ** 2, arr ** 2.0, np.power(arr, 2.0) and np.square(arr) on float64
   arrays (numpy squares for a scalar exponent of 2; libm pow(x, 2.0) differs from x * x in
   about 0.09% of doubles, so mdv_py_pow(x, 2.0) is not this). */
double mdv_np_square(double x);

#ifdef __cplusplus
}
#endif

#endif /* MDV_NPMATH_H */
