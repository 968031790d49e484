/* test_mt19937.c: libmdvec/src/mt19937.c against numpy's own RandomState draws (mt19937_fixtures.h).
 *
 * Plain C, no framework; every comparison is on bit patterns. Regenerate the fixtures with
 * tests/c/gen_mt19937_fixtures.py. After every run the next raw 32-bit output and the cached
 * Gaussian (has_gauss, gauss) are checked too, which pins how many outputs the run consumed.
 * Exits non-zero if any check fails.
 */
#include "mt19937.h"
#include "mt19937_fixtures.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Check what follows a run: the next raw output (read after the cache), has_gauss, gauss bits. */
static void check_after(const char *what, mdv_mt19937 *g, const uint64_t want[3]) {
  char label[200];
  snprintf(label, sizeof label, "%s: has_gauss", what);
  CHECK_U64(label, (uint64_t)g->has_gauss, want[1]);
  snprintf(label, sizeof label, "%s: gauss", what);
  CHECK_U64(label, bits(g->gauss), want[2]);
  snprintf(label, sizeof label, "%s: next raw", what);
  CHECK_U64(label, mdv_mt19937_next32(g), want[0]);
}

static void seed(mdv_mt19937 *g, int s) {
  mdv_mt19937_seed(g, (uint32_t)mx_seeds[s]);
}

/*---------------------------------- Tests --------------------------------------------------*/

static void test_seed(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    mdv_mt19937 g;
    memset(&g, 0xAB, sizeof g); /* seeding must not depend on what was there */
    seed(&g, s);
    for (int i = 0; i < 4; i++) CHECK_U64(WHAT("seed %d key[%d]", s, i), g.key[i], mx_seed_key[s][i]);
    CHECK_U64(WHAT("seed %d key[623]", s), g.key[623], mx_seed_key[s][4]);
    uint64_t h = MX_H0;
    for (int i = 0; i < MDV_MT19937_N; i++) h = mx_hash(h, g.key[i]);
    CHECK_U64(WHAT("seed %d key hash", s), h, mx_seed_key[s][5]);
    CHECK_U64(WHAT("seed %d pos", s), (uint64_t)g.pos, 624);
    CHECK_U64(WHAT("seed %d has_gauss", s), (uint64_t)g.has_gauss, 0);
    CHECK_U64(WHAT("seed %d gauss", s), bits(g.gauss), 0);
  }
}

/* One kind of draw for the long runs. */
typedef uint64_t (*draw_fn)(mdv_mt19937 *g);
static uint64_t draw_raw(mdv_mt19937 *g) {
  return mdv_mt19937_next32(g);
}
static uint64_t draw_rand(mdv_mt19937 *g) {
  return bits(mdv_mt19937_random(g));
}
static uint64_t draw_randn(mdv_mt19937 *g) {
  return bits(mdv_mt19937_randn(g));
}

static void run_kind(const char *name, draw_fn draw, long n, const uint64_t first[][8], const uint64_t *hash,
                     const uint64_t after[][3]) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    mdv_mt19937 g;
    seed(&g, s);
    uint64_t h = MX_H0;
    for (long i = 0; i < n; i++) {
      uint64_t v = draw(&g);
      if (i < 8) CHECK_U64(WHAT("seed %d %s[%ld]", s, name, i), v, first[s][i]);
      h = mx_hash(h, v);
    }
    CHECK_U64(WHAT("seed %d %s x %ld hash", s, name, n), h, hash[s]);
    check_after(WHAT("seed %d %s x %ld", s, name, n), &g, after[s]);
  }
}

static void test_raw_rand_randn(void) {
  run_kind("next32", draw_raw, MX_RAW_N, mx_raw_first, mx_raw_hash, mx_raw_after);
  run_kind("rand", draw_rand, MX_RAND_N, mx_rand_first, mx_rand_hash, mx_rand_after);
  run_kind("randn", draw_randn, MX_RANDN_N, mx_randn_first, mx_randn_hash, mx_randn_after);
}

static void test_uniform(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    for (int b = 0; b < MX_NUNIF; b++) {
      double lo = dbl(mx_unif_bounds[b][0]), hi = dbl(mx_unif_bounds[b][1]);
      mdv_mt19937 g;
      seed(&g, s);
      uint64_t h = MX_H0;
      for (long i = 0; i < MX_UNIF_N; i++) {
        uint64_t v = bits(mdv_mt19937_uniform(&g, lo, hi));
        if (i < 4) CHECK_U64(WHAT("seed %d uniform(%g,%g)[%ld]", s, lo, hi, i), v, mx_unif_first[s][b][i]);
        h = mx_hash(h, v);
      }
      CHECK_U64(WHAT("seed %d uniform(%g,%g) hash", s, lo, hi), h, mx_unif_hash[s][b]);
      check_after(WHAT("seed %d uniform(%g,%g)", s, lo, hi), &g, mx_unif_after[s][b]);
    }
  }
}

static void test_randint(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    for (int r = 0; r < MX_NIRANGE; r++) {
      int64_t lo = mx_irange[r][0], hi = mx_irange[r][1];
      mdv_mt19937 g;
      seed(&g, s);
      uint64_t h = MX_H0;
      long out_of_range = 0;
      for (long i = 0; i < MX_INT_N; i++) {
        int64_t v = mdv_mt19937_randint(&g, lo, hi);
        if (i < 4) {
          CHECK_U64(WHAT("seed %d randint(%" PRId64 ",%" PRId64 ")[%ld]", s, lo, hi, i), v, mx_int_first[s][r][i]);
        }
        out_of_range += v < lo || v >= hi;
        h = mx_hash(h, (uint64_t)v);
      }
      CHECK_U64(WHAT("seed %d randint(%" PRId64 ",%" PRId64 ") out of range", s, lo, hi), out_of_range, 0);
      CHECK_U64(WHAT("seed %d randint(%" PRId64 ",%" PRId64 ") hash", s, lo, hi), h, mx_int_hash[s][r]);
      check_after(WHAT("seed %d randint(%" PRId64 ",%" PRId64 ")", s, lo, hi), &g, mx_int_after[s][r]);
    }
  }

  /* low >= high: numpy raises; here low comes back and nothing is drawn. */
  mdv_mt19937 g, g0;
  seed(&g, 0);
  g0 = g;
  CHECK_U64("randint(3, 3)", mdv_mt19937_randint(&g, 3, 3), 3);
  CHECK_U64("randint(4, 3)", mdv_mt19937_randint(&g, 4, 3), 4);
  CHECK_THAT("refused randint draws nothing", memcmp(&g, &g0, sizeof g) == 0);
}

static int64_t g_out[2000];

static void test_choice(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    for (int c = 0; c < MX_NCHOICE; c++) {
      int64_t pop = mx_choice_case[c][0], k = mx_choice_case[c][1], reps = mx_choice_case[c][3];
      int replace = (int)mx_choice_case[c][2];
      mdv_mt19937 g;
      seed(&g, s);
      uint64_t h = MX_H0;
      long n = 0;
      for (int64_t r = 0; r < reps; r++) {
        CHECK_U64(WHAT("choice(%" PRId64 ",%" PRId64 ",%d) rc", pop, k, replace),
                  mdv_mt19937_choice(&g, pop, k, replace, g_out), 0);
        for (int64_t i = 0; i < k; i++, n++) {
          if (n < 8) {
            CHECK_U64(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ",%d)[%ld]", s, pop, k, replace, n), g_out[i],
                      mx_choice_first[s][c][n]);
          }
          h = mx_hash(h, (uint64_t)g_out[i]);
        }
      }
      CHECK_U64(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ",%d) hash", s, pop, k, replace), h, mx_choice_hash[s][c]);
      check_after(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ",%d)", s, pop, k, replace), &g, mx_choice_after[s][c]);
    }
  }

  /* Where numpy raises: -1 and nothing drawn. */
  mdv_mt19937 g, g0;
  seed(&g, 1);
  g0 = g;
  CHECK_U64("choice k > pop", mdv_mt19937_choice(&g, 5, 6, 0, g_out), (uint64_t)-1);
  CHECK_U64("choice k < 0", mdv_mt19937_choice(&g, 5, -1, 0, g_out), (uint64_t)-1);
  CHECK_U64("choice k < 0 replace", mdv_mt19937_choice(&g, 5, -1, 1, g_out), (uint64_t)-1);
  CHECK_U64("choice pop 0 replace", mdv_mt19937_choice(&g, 0, 1, 1, g_out), (uint64_t)-1);
  CHECK_U64("choice pop -1 k 0", mdv_mt19937_choice(&g, -1, 0, 0, g_out), (uint64_t)-1);
  CHECK_U64("choice pop -1 k 0 replace", mdv_mt19937_choice(&g, -1, 0, 1, g_out), 0);
  CHECK_THAT("refused choice draws nothing", memcmp(&g, &g0, sizeof g) == 0);
}

static void test_choice_p(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    for (int c = 0; c < MX_NP; c++) {
      int n = mx_p_len[c];
      double p[MX_P_MAX];
      for (int i = 0; i < n; i++) p[i] = dbl(mx_p[c][i]);
      mdv_mt19937 g;
      seed(&g, s);
      uint64_t h = MX_H0;
      for (long i = 0; i < MX_CHOICE_P_N; i++) {
        int64_t v = mdv_mt19937_choice_p(&g, p, n);
        if (i < 4) CHECK_U64(WHAT("seed %d choice_p case %d [%ld]", s, c, i), v, mx_choice_p_first[s][c][i]);
        h = mx_hash(h, (uint64_t)v);
      }
      CHECK_U64(WHAT("seed %d choice_p case %d hash", s, c), h, mx_choice_p_hash[s][c]);
      check_after(WHAT("seed %d choice_p case %d", s, c), &g, mx_choice_p_after[s][c]);
    }
  }
}

/* One op of the mixed sequence; returns its value as the fixtures store it. */
static uint64_t seq_op(mdv_mt19937 *g, const mx_seq_op *op) {
  switch (op->op) {
    case 0:
      return mdv_mt19937_next32(g);
    case 1:
      return bits(mdv_mt19937_random(g));
    case 2:
      return bits(mdv_mt19937_uniform(g, dbl(op->a), dbl(op->b)));
    case 3:
      return bits(mdv_mt19937_randn(g));
    case 4:
      return (uint64_t)mdv_mt19937_randint(g, (int64_t)op->a, (int64_t)op->b);
    case 5:
      return bits(mdv_mt19937_normal(g, dbl(op->a), dbl(op->b)));
    case 6: {
      const int64_t *c = mx_seq_choice[op->a];
      if (mdv_mt19937_choice(g, c[0], c[1], (int)c[2], g_out) != 0) return 0;
      uint64_t h = MX_H0;
      for (int64_t j = 0; j < c[1]; j++) h = mx_hash(h, (uint64_t)g_out[j]);
      return h;
    }
    default: {
      double p[MX_P_MAX];
      int n = mx_p_len[op->a];
      for (int i = 0; i < n; i++) p[i] = dbl(mx_p[op->a][i]);
      return (uint64_t)mdv_mt19937_choice_p(g, p, n);
    }
  }
}

static void test_sequence(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    mdv_mt19937 g;
    seed(&g, s);
    for (int i = 0; i < MX_SEQ_N; i++) {
      CHECK_U64(WHAT("seed %d seq op %d (kind %d)", s, i, mx_seq_ops[i].op), seq_op(&g, &mx_seq_ops[i]),
                mx_seq_expect[s][i]);
    }
    check_after(WHAT("seed %d seq", s), &g, mx_seq_after[s]);
    uint64_t h = MX_H0;
    for (int l = 0; l < MX_SEQ_LOOPS; l++) {
      for (int i = 0; i < MX_SEQ_N; i++) h = mx_hash(h, seq_op(&g, &mx_seq_ops[i]));
    }
    CHECK_U64(WHAT("seed %d seq x %d hash", s, MX_SEQ_LOOPS), h, mx_seq_loop_hash[s]);
    check_after(WHAT("seed %d seq x %d", s, MX_SEQ_LOOPS), &g, mx_seq_loop_after[s]);
  }
}

/* Reseeding drops the cached Gaussian (RandomState.seed: _legacy_seeding then _reset_gauss). */
static void test_reseed(void) {
  for (int s = 0; s < MX_NSEEDS; s++) {
    mdv_mt19937 g;
    seed(&g, (s + 1) % MX_NSEEDS);
    mdv_mt19937_randn(&g); /* leaves a cached Gaussian */
    CHECK_THAT("randn leaves a cache", g.has_gauss == 1);
    seed(&g, s);
    CHECK_U64(WHAT("seed %d reseeded randn[0]", s), bits(mdv_mt19937_randn(&g)), mx_randn_first[s][0]);
    CHECK_U64(WHAT("seed %d reseeded randn[1]", s), bits(mdv_mt19937_randn(&g)), mx_randn_first[s][1]);
  }
}

/*---------------------------------- Main ---------------------------------------------------*/

int main(void) {
  test_seed();
  test_raw_rand_randn();
  test_uniform();
  test_randint();
  test_choice();
  test_choice_p();
  test_sequence();
  test_reseed();
  return check_summary("test_mt19937");
}
