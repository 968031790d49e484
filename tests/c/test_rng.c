/* test_rng.c: libmdvec/src/pcg64.c against numpy's own draws (rng_fixtures.h).
 *
 * Plain C, no framework; every comparison is on bit patterns. Regenerate the fixtures with
 * tests/c/gen_rng_fixtures.py. Exits non-zero if any check fails.
 */
#include "pcg64.h"
#include "rng_fixtures.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/*---------------------------------- Tests --------------------------------------------------*/

static void test_seed(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    CHECK_U64(WHAT("seed %d state hi", s), (uint64_t)(g.state >> 64), fx_seed_state[s][0]);
    CHECK_U64(WHAT("seed %d state lo", s), (uint64_t)g.state, fx_seed_state[s][1]);
    CHECK_U64(WHAT("seed %d inc hi", s), (uint64_t)(g.inc >> 64), fx_seed_state[s][2]);
    CHECK_U64(WHAT("seed %d inc lo", s), (uint64_t)g.inc, fx_seed_state[s][3]);
    CHECK_THAT(WHAT("seed %d buffer empty", s), g.has_uint32 == 0 && g.uinteger == 0);
  }
}

static void test_raw(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    uint64_t h = FX_H0;
    for (int i = 0; i < 1000; i++) {
      uint64_t v = mdv_pcg64_next64(&g);
      if (i < 8) CHECK_U64(WHAT("seed %d raw[%d]", s, i), v, fx_raw_first[s][i]);
      h = fx_hash(h, v);
    }
    CHECK_U64(WHAT("seed %d raw hash", s), h, fx_raw_hash1000[s]);
  }
}

static void test_interleave(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    for (int i = 0; i < FX_IL_N; i++) {
      uint64_t v = fx_il_ops[i] == 0   ? mdv_pcg64_next64(&g)
                   : fx_il_ops[i] == 1 ? mdv_pcg64_next32(&g)
                                       : bits(mdv_pcg64_next_double(&g));
      CHECK_U64(WHAT("seed %d interleave op %d (kind %d)", s, i, fx_il_ops[i]), v, fx_il_expect[s][i]);
    }
  }
}

static void test_uniform(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    for (int b = 0; b < FX_NUNIF; b++) {
      mdv_pcg64 g;
      mdv_pcg64_seed(&g, fx_seeds[s]);
      double lo = dbl(fx_unif_bounds[b][0]), hi = dbl(fx_unif_bounds[b][1]);
      uint64_t h = FX_H0;
      for (int i = 0; i < 1000; i++) {
        uint64_t v = bits(mdv_pcg64_uniform(&g, lo, hi));
        if (i < 4) CHECK_U64(WHAT("seed %d uniform(%g,%g)[%d]", s, lo, hi, i), v, fx_unif_first[s][b][i]);
        h = fx_hash(h, v);
      }
      CHECK_U64(WHAT("seed %d uniform(%g,%g) hash", s, lo, hi), h, fx_unif_hash[s][b]);
      CHECK_U64(WHAT("seed %d uniform(%g,%g) next", s, lo, hi), mdv_pcg64_next64(&g), fx_unif_next[s][b]);
    }
  }
}

static void test_normal(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    uint64_t h = FX_H0;
    for (int i = 0; i < 1000; i++) {
      uint64_t v = bits(mdv_pcg64_standard_normal(&g));
      if (i < 8) CHECK_U64(WHAT("seed %d normal[%d]", s, i), v, fx_norm_first[s][i]);
      h = fx_hash(h, v);
    }
    CHECK_U64(WHAT("seed %d normal hash", s), h, fx_norm_hash[s]);
    CHECK_U64(WHAT("seed %d normal next", s), mdv_pcg64_next64(&g), fx_norm_next[s]);
  }

  /* The slow paths: wedges, redraws and the idx == 0 tail. */
  mdv_pcg64 g;
  mdv_pcg64_seed(&g, FX_RARE_SEED);
  uint64_t h = FX_H0;
  int t = 0;
  for (int i = 0; i < FX_RARE_N; i++) {
    uint64_t v = bits(mdv_pcg64_standard_normal(&g));
    if (t < FX_RARE_NTAIL && i == fx_rare_tail_at[t]) {
      CHECK_U64(WHAT("tail draw %d", i), v, fx_rare_tail_val[t]);
      t++;
    }
    h = fx_hash(h, v);
  }
  CHECK_U64("slow-path run hash", h, fx_rare_hash);
  CHECK_U64("slow-path run next", mdv_pcg64_next64(&g), fx_rare_next);

  /* A million draws touch every table entry. */
  mdv_pcg64_seed(&g, FX_BIG_SEED);
  h = FX_H0;
  for (int i = 0; i < FX_BIG_N; i++) h = fx_hash(h, bits(mdv_pcg64_standard_normal(&g)));
  CHECK_U64("1e6 normals hash", h, fx_big_hash);
  CHECK_U64("1e6 normals next", mdv_pcg64_next64(&g), fx_big_next);
}

static void test_integers(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    for (int i = 0; i < 1000; i++) {
      int64_t v = mdv_pcg64_integers(&g, 0, 3);
      CHECK_U64(WHAT("seed %d integers(0,3)[%d]", s, i), v, fx_int03[s][i] - '0');
    }
    CHECK_U64(WHAT("seed %d integers(0,3) next", s), mdv_pcg64_next64(&g), fx_int03_next[s]);

    for (int r = 0; r < FX_NIRANGE; r++) {
      int64_t lo = fx_irange[r][0], hi = fx_irange[r][1];
      mdv_pcg64_seed(&g, fx_seeds[s]);
      uint64_t h = FX_H0;
      for (int i = 0; i < 200; i++) {
        int64_t v = mdv_pcg64_integers(&g, lo, hi);
        if (i < 4)
          CHECK_U64(WHAT("seed %d integers(%" PRId64 ",%" PRId64 ")[%d]", s, lo, hi, i), v, fx_irange_first[s][r][i]);
        CHECK_THAT(WHAT("integers in range"), v >= lo && v < hi);
        h = fx_hash(h, (uint64_t)v);
      }
      CHECK_U64(WHAT("seed %d integers(%" PRId64 ",%" PRId64 ") hash", s, lo, hi), h, fx_irange_hash[s][r]);
      CHECK_U64(WHAT("seed %d integers(%" PRId64 ",%" PRId64 ") next", s, lo, hi), mdv_pcg64_next64(&g),
                fx_irange_next[s][r]);
    }
  }
}

#define MAX_K 20000
static int64_t g_out[MAX_K];

static void test_choice(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    for (int c = 0; c < FX_NCHOICE; c++) {
      int64_t pop = fx_choice_case[c][0], k = fx_choice_case[c][1], reps = fx_choice_case[c][2];
      mdv_pcg64 g;
      mdv_pcg64_seed(&g, fx_seeds[s]);
      uint64_t h = FX_H0;
      for (int64_t r = 0; r < reps; r++) {
        int rc = mdv_pcg64_choice(&g, pop, k, g_out);
        CHECK_U64(WHAT("choice(%" PRId64 ",%" PRId64 ") rc", pop, k), rc, 0);
        for (int64_t i = 0; i < k; i++) {
          if (r == 0 && i < 8) {
            CHECK_U64(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ")[%d]", s, pop, k, (int)i), g_out[i],
                      fx_choice_first[s][c][i]);
          }
          h = fx_hash(h, (uint64_t)g_out[i]);
        }
      }
      CHECK_U64(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ") hash", s, pop, k), h, fx_choice_hash[s][c]);
      CHECK_U64(WHAT("seed %d choice(%" PRId64 ",%" PRId64 ") next", s, pop, k), mdv_pcg64_next64(&g),
                fx_choice_next[s][c]);
    }
  }

  /* Refused calls draw nothing. */
  mdv_pcg64 g, g0;
  mdv_pcg64_seed(&g, 1);
  g0 = g;
  CHECK_U64("integers(3, 3)", mdv_pcg64_integers(&g, 3, 3), 3);
  CHECK_U64("choice k > pop", mdv_pcg64_choice(&g, 5, 6, g_out), (uint64_t)-1);
  CHECK_U64("choice k < 0", mdv_pcg64_choice(&g, 5, -1, g_out), (uint64_t)-1);
  CHECK_THAT("refused choice draws nothing", g.state == g0.state && g.has_uint32 == g0.has_uint32);
}

/* The mixed stream: every kind of call on one generator, checking that numpy's buffered
   32-bit half carries across calls exactly as numpy's does. */
static void test_sequence(void) {
  for (int s = 0; s < FX_NSEEDS; s++) {
    mdv_pcg64 g;
    mdv_pcg64_seed(&g, fx_seeds[s]);
    for (int i = 0; i < FX_SEQ_NOPS; i++) {
      const fx_seq_op *op = &fx_seq_ops[i];
      const uint64_t *want = &fx_seq_out[s][op->off];
      uint64_t got = 0;
      switch (op->op) {
        case 0:
          got = mdv_pcg64_next64(&g);
          break;
        case 1:
          got = mdv_pcg64_next32(&g);
          break;
        case 2:
          got = bits(mdv_pcg64_next_double(&g));
          break;
        case 3:
          got = bits(mdv_pcg64_uniform(&g, dbl(op->a), dbl(op->b)));
          break;
        case 4:
          got = bits(mdv_pcg64_standard_normal(&g));
          break;
        case 5:
          got = (uint64_t)mdv_pcg64_integers(&g, (int64_t)op->a, (int64_t)op->b);
          break;
        default: {
          int64_t k = (int64_t)op->b;
          CHECK_THAT("sequence choice rc", mdv_pcg64_choice(&g, (int64_t)op->a, k, g_out) == 0);
          if (k > FX_SEQ_MAX_LISTED) {
            uint64_t h = FX_H0;
            for (int64_t j = 0; j < k; j++) h = fx_hash(h, (uint64_t)g_out[j]);
            CHECK_U64(WHAT("seed %d seq op %d choice hash", s, i), h, want[0]);
          } else {
            for (int64_t j = 1; j < k; j++) {
              CHECK_U64(WHAT("seed %d seq op %d choice[%d]", s, i, (int)j), g_out[j], want[j]);
            }
          }
          got = k > FX_SEQ_MAX_LISTED ? want[0] : (uint64_t)g_out[0];
          break;
        }
      }
      CHECK_U64(WHAT("seed %d seq op %d (kind %d)", s, i, op->op), got, want[0]);
    }
    CHECK_U64(WHAT("seed %d seq next", s), mdv_pcg64_next64(&g), fx_seq_next[s]);
  }
}

/*---------------------------------- Main ---------------------------------------------------*/

int main(void) {
  test_seed();
  test_raw();
  test_interleave();
  test_uniform();
  test_normal();
  test_integers();
  test_choice();
  test_sequence();
  return check_summary("test_rng");
}
