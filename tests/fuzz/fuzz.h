/* What the libFuzzer targets of tests/fuzz share (see tests/fuzz/README.md).
 *
 * An input is a stream of bytes read front to back by the fz_* readers; a reader past the end
 * returns 0, so every prefix of an input is an input too. Values come either from tables of
 * interesting values (selector bytes) or raw from the input, so the fuzzer reaches NaN, inf,
 * huge counts and odd text quickly; make_corpus.py writes seeds in the same format.
 *
 * The harness is the application here: it owns MuJoCo's process-wide log handler, which drops
 * warnings (no MUJOCO_LOG.TXT, no printing) and aborts on an error that reached it: every MuJoCo
 * error raised inside libmdvec must be trapped per env, so one reaching the global handler is a
 * finding. Only the public ABI (mdvec.h) is called. */
#ifndef MDVEC_FUZZ_H
#define MDVEC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "mdvec.h"

/*---------------------------------- Input reader --------------------------------------------------*/

typedef struct fz_ {
  const uint8_t *p; /* next byte */
  size_t n;         /* bytes left */
} fz;

uint8_t fz_u8(fz *f);   /* next byte, 0 past the end */
uint16_t fz_u16(fz *f); /* little endian */
uint32_t fz_u32(fz *f);
uint64_t fz_u64(fz *f);
size_t fz_pick(fz *f, size_t n); /* one byte modulo n (n > 0) */

/* A double: selector byte s; s < FZ_N_DOUBLES: table value; s == 255: 8 raw bytes (any bit
 * pattern, NaN payloads included); otherwise (s - 144) / 8 (small numbers in [-14, 13.75]). */
double fz_double(fz *f);
#define FZ_N_DOUBLES 40
extern const double fz_doubles[FZ_N_DOUBLES];

/* An int: selector byte s; s < FZ_N_INTS: table value; s == 255: 4 raw bytes; otherwise s - 64
 * (0 .. 190). */
int fz_int(fz *f);
#define FZ_N_INTS 64
extern const int fz_ints[FZ_N_INTS];

/* An int64: selector byte s; s < FZ_N_I64: table value; s == 255: 8 raw bytes; otherwise fz_int's
 * small numbers. */
int64_t fz_i64(fz *f);
#define FZ_N_I64 16
extern const int64_t fz_i64s[FZ_N_I64];

/* A seed: selector byte s; s odd: 8 raw bytes; s == 0: one more byte (0 .. 255); otherwise a table value
 * (the edges of 32-bit seeds, which a task with a RandomState takes, and of 64-bit ones). */
uint64_t fz_seed(fz *f);
#define FZ_N_SEEDS 16
extern const uint64_t fz_seeds[FZ_N_SEEDS];

/* A string: length byte L (255: a 2-byte length follows, at most cap - 1), then L bytes (a NUL in
 * them ends the C string early). Written into buf (cap bytes), NUL-terminated. */
const char *fz_str(fz *f, char *buf, size_t cap);

/*---------------------------------- Text the library parses ---------------------------------------*/

/* Odd strings: malformed numbers, ranges, bools, boundary integers, a long string (> 256 bytes). */
#define FZ_N_WEIRD 48
extern const char *const fz_weird[FZ_N_WEIRD];

/* Model files the harness may name (never arbitrary fuzzed paths: "/dev/zero" or a FIFO would
 * hang): NULL, "", bare names, missing files, a directory, /dev/null, the duck's models, every
 * Gymnasium task's default asset (when the assets are known) and the odd models in
 * tests/fuzz/models/. */
int fz_path_count(void);
const char *fz_path(int k);
const char *fz_pick_path(fz *f);

/* Gymnasium's assets folder: $MDVEC_GYM_ASSETS, else the one meson found; "" when unknown. */
const char *fz_gym_assets(void);

/* dm_control's suite folder (the Control Suite tasks' suite_dir): $MDVEC_DM_SUITE, else the one meson
 * found; "" when unknown. */
const char *fz_dm_suite(void);

/* Whether the task declares a suite_dir option without a default (a Control Suite task). */
int fz_needs_suite(const char *task);

/* The suite_dir value such a task needs, or NULL when the suite folder is unknown or the task needs none. */
const char *fz_task_suite(const char *task);

/* A suite_dir value: the suite folder half the time (when known), else one that is not it (NULL, "", "/",
 * missing, relative, other model folders, tests/fuzz/models/dm_suite, the suite's common/ or parent). */
#define FZ_N_SUITES 16
const char *fz_pick_suite(fz *f);

/* The xml_file value a Gymnasium task needs (its default asset resolved), or NULL when the assets
 * are unknown or the task has no xml_file option. Static storage per task. */
const char *fz_task_xml(const char *task);

/* Text for an option of the given declaration: its default, a typed value drawn from the
 * fz_double / fz_i64 tables (so "nan", "inf", "1e+300" and INT64_MAX occur), a choice word, a
 * weird string, a path, or raw fuzzed text. buf holds the text (cap bytes); may return NULL. */
const char *fz_option_text(fz *f, const mdvec_option_info_t *o, char *buf, size_t cap);

/*---------------------------------- Handles and checks --------------------------------------------*/

/* Create a handle of task (NULL: duck) with n envs, t threads, the autoreset mode and options;
 * Gymnasium tasks get xml_file from fz_task_xml, Control Suite tasks suite_dir from fz_task_suite, first
 * (unless opts names it). Return NULL when
 * creation fails (fz_create_failed tells why when FUZZ_VERBOSE is set). */
mdvec_t *fz_create(const char *task, int n, int t, int autoreset, const mdvec_option_t *opts, int n_opts);

/* A per-process cache of handles by key (FUZZ_NO_CACHE=1 in the environment turns it off: each
 * input then creates and destroys its own, the way to reproduce a finding from one input alone).
 * Callers reset every env with explicit seeds before use so the state is the same either way.
 * fz_cache_put takes ownership; fz_cache_release destroys h when caching is off. */
mdvec_t *fz_cache_get(const char *key);
void fz_cache_put(const char *key, mdvec_t *h);
void fz_cache_release(mdvec_t *h);
int fz_cache_on(void);

/* Read every byte of every buffer the handle exposes, at the sizes its spec declares (so ASan
 * sees a short allocation), and check the flag invariants: terminated, truncated, done and reset
 * flags are 0 or 1 and done == terminated | truncated. Aborts on a violation. */
void fz_touch_buffers(const mdvec_t *h);

/* Query everything a handle answers (spec, dims, info fields, action bounds, state sizes with odd
 * sigs, errmsg) and check the answers agree with each other. */
void fz_query(mdvec_t *h, fz *f);

/* Snapshot of the output buffers, to check that a refused call changed nothing. */
typedef struct fz_snap_ {
  size_t size;
  unsigned char *bytes;
} fz_snap;
void fz_snap_take(const mdvec_t *h, fz_snap *s);
int fz_snap_same(const mdvec_t *h, const fz_snap *s); /* 1 when nothing changed */
void fz_snap_free(fz_snap *s);

/* Fill (n) actions of dtype (MDVEC_DTYPE_F32 / F64) from the input: a fill mode byte, then values
 * (one for all, one per env, one per element, or the action bounds and their neighbours). */
void fz_actions(fz *f, void *actions, size_t n, int dtype, const mdvec_t *h);

/* Print a message and abort: an invariant of the library does not hold. */
void fz_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* Install the harness's MuJoCo log handler (once). */
void fz_init(void);

#endif /* MDVEC_FUZZ_H */
