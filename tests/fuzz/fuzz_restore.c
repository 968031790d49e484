/* Fuzz target: mdvec_restore with damaged snapshots, and mdvec_set_state with fuzzed states (1.4).
 *
 * A few configurations (the duck with domain randomisation, latency and sensor noise; the cart-pole; Hopper-v5
 * and cheetah-run when their files are known), 1 to 3 envs, each autoreset mode. Every input starts with a
 * seeded reset and a few steps, then takes a snapshot (the base, a heap block of exactly its size) and runs up
 * to 6 operations:
 *   restore a damaged copy of the base: bits flipped, bytes overwritten, cut short, extended, a header field
 *   replaced (format, versions, sizes, the task's name, N, the modes) or a body field set to an edge value,
 *   each optionally resealed (the checksum recomputed as the library computes it: mdv_hash, the one internal
 *   symbol the harness uses) so that the structural checks behind the checksum are reached;
 *   restore a snapshot of another configuration; set_state with a fuzzed sig, size and values; steps.
 * Checked: restore and set_state return only MDVEC_OK, MDVEC_ERR_ARG (or MDVEC_ERR_PHYSICS for set_state's
 * mj_forward); a refused call leaves a message and the env's snapshot byte for byte as it was; an unsealed
 * damaged blob is always refused; an accepted blob reads back (snapshot, buffers with their invariants). A
 * forged blob the checks accept is not stepped (restore guards against damage, not forgery: mdvec.h): the base
 * is restored over it, which must succeed and give the base's snapshot back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* The checksum of snapshot.h (internal; declared here so the harness can reseal what it damages). */
uint64_t mdv_hash(uint64_t h, const void *data, size_t n);
uint64_t mdv_hash_end(uint64_t h);
#define MDV_HASH_SEED 0xcbf29ce484222325ull

#define HEADER 192 /* the header's bytes; its last 8 are the checksum (docs/state.md) */

typedef struct {
  const char *key;
  const char *task;
  int n_opts;
  mdvec_option_t opts[4];
} config;

static const config kConfigs[4] = {
  {"duck", "duck", 4, {{"dr", "true"}, {"latency", "2"}, {"sensor_noise", "true"}, {"push_window", "2,200"}}},
  {"cart", "cartpole_swingup", 1, {{"max_episode_steps", "5"}}},
  {"hopper", "Hopper-v5", 1, {{"max_episode_steps", "5"}}},
  {"cheetah", "cheetah-run", 1, {{"time_limit", "0.05"}}},
};

static void reseal(unsigned char *b, size_t size) {
  if (size < HEADER) return;
  uint64_t sum = mdv_hash_end(mdv_hash(mdv_hash(MDV_HASH_SEED, b, HEADER - 8), b + HEADER, size - HEADER));
  memcpy(b + HEADER - 8, &sum, 8);
}

/* A heap copy of h's snapshot (exactly its size, in *size); aborts when the library cannot make one. */
static unsigned char *take(const mdvec_t *h, size_t *size) {
  *size = mdvec_snapshot_size(h);
  unsigned char *b = *size ? malloc(*size) : NULL;
  if (!b || mdvec_snapshot(h, b, *size) != MDVEC_OK) fz_fail("snapshot: %s", mdvec_errmsg(h));
  return b;
}

static int is_snapshot(const mdvec_t *h, const unsigned char *blob, size_t size) {
  size_t n;
  unsigned char *now = take(h, &n);
  int same = n == size && !memcmp(now, blob, n);
  free(now);
  return same;
}

/* Restore blob (size bytes; `sealed`: its checksum is right, `damaged`: it differs from a real snapshot), check
 * the outcome and return the code. */
static int restore(mdvec_t *h, const unsigned char *blob, size_t size, int sealed, int damaged,
                   const unsigned char *base, size_t base_size) {
  size_t before_size;
  unsigned char *before = take(h, &before_size);
  int rc = mdvec_restore(h, blob, size);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_ARG) fz_fail("mdvec_restore returned %d: %s", rc, mdvec_errmsg(h));
  if (rc == MDVEC_ERR_ARG) {
    if (!mdvec_errmsg(h)[0]) fz_fail("restore refused without a message");
    if (!is_snapshot(h, before, before_size)) fz_fail("a refused restore (%s) changed the env", mdvec_errmsg(h));
  } else {
    if (damaged && !sealed) fz_fail("a damaged blob with a wrong checksum was restored");
    fz_touch_buffers(h);
    size_t n;
    free(take(h, &n));
    if (damaged) { /* forged and accepted: never stepped; the base goes back over it */
      if (mdvec_restore(h, base, base_size) != MDVEC_OK) fz_fail("the base no longer restores: %s", mdvec_errmsg(h));
      if (!is_snapshot(h, base, base_size)) fz_fail("the base restored over a forged blob reads back otherwise");
    }
  }
  free(before);
  return rc;
}

/* A damaged copy of base (into *out, exactly *out_size bytes); return whether it differs from base. */
static int damage(fz *f, const unsigned char *base, size_t size, unsigned char **out, size_t *out_size, int *sealed) {
  uint8_t how = fz_u8(f);
  size_t n = size;
  int kind = how % 8;
  if (kind == 3) n = fz_pick(f, 255) < 128 ? (size_t)fz_u32(f) % (size + 1) : size - 1 - fz_pick(f, 16) % size;
  if (kind == 4) n = size + 1 + fz_pick(f, 64);
  unsigned char *b = malloc(n ? n : 1);
  if (!b) fz_fail("out of memory");
  memcpy(b, base, n < size ? n : size);
  for (size_t k = size; k < n; k++) b[k] = fz_u8(f);
  size_t at = size ? (size_t)fz_u32(f) % size : 0;
  switch (kind) {
    case 0: /* bits flipped, anywhere */
    case 1:
      for (int k = 0, flips = 1 + fz_u8(f) % 4; k < flips && n; k++) b[(at + (size_t)fz_u32(f)) % n] ^= fz_u8(f) | 1;
      break;
    case 2: /* bytes overwritten */
      for (int k = 0, len = 1 + fz_u8(f) % 16; k < len && at + (size_t)k < n; k++) b[at + (size_t)k] = fz_u8(f);
      break;
    case 5: /* a header field (8 bytes) replaced by an edge value */
    case 6: {
      size_t field = fz_pick(f, HEADER / 8 - 1);
      uint64_t v = (uint64_t)fz_i64(f);
      if (n >= HEADER) memcpy(b + 8 * field, &v, 8);
      break;
    }
    case 7: { /* an 8-byte body field (aligned) set to an edge value */
      if (n > HEADER + 8) {
        size_t field = HEADER + 8 * (fz_u32(f) % ((n - HEADER) / 8));
        uint64_t v = (uint64_t)fz_i64(f);
        memcpy(b + field, &v, 8);
      }
      break;
    }
    default:
      break;
  }
  *sealed = n == size && (how & 0x80) != 0;
  if (*sealed) reseal(b, n);
  *out = b;
  *out_size = n;
  return n != size || memcmp(b, base, size) != 0;
}

/* set_state with a fuzzed sig, size and values on a fuzzed env index. */
static void set_state(fz *f, mdvec_t *h, int n) {
  unsigned sig = fz_u8(f) & 1 ? (unsigned)fz_u32(f) : (unsigned)fz_u8(f) % 64 * 2; /* QPOS.. bits, or anything */
  size_t need = mdvec_state_size(h, sig);
  size_t size = fz_u8(f) % 4 ? need : (size_t)fz_u8(f);
  int i = fz_u8(f) % 8 ? (int)fz_pick(f, (size_t)n) : fz_int(f);
  double *s = malloc((size ? size : 1) * sizeof *s);
  if (!s) fz_fail("out of memory");
  int own = fz_u8(f) % 2; /* start from the env's own state, then change a few values */
  if (own && !(i >= 0 && i < n && size == need && need && mdvec_get_state(h, i, sig, s, size) == MDVEC_OK))
    own = 0; /* no own state to start from (a refused sig, index or size): values from the input */
  for (size_t k = 0; k < size; k++)
    if (!own || fz_u8(f) % 4 == 0) s[k] = fz_double(f);
  size_t before_size;
  unsigned char *before = take(h, &before_size);
  int rc = mdvec_set_state(h, i, sig, fz_u8(f) % 16 ? s : NULL, size);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_ARG && rc != MDVEC_ERR_PHYSICS)
    fz_fail("mdvec_set_state returned %d: %s", rc, mdvec_errmsg(h));
  if (rc == MDVEC_ERR_ARG && !is_snapshot(h, before, before_size))
    fz_fail("a refused set_state (%s) changed the env", mdvec_errmsg(h));
  if (rc == MDVEC_ERR_PHYSICS) mdvec_reset(h); /* mj_forward raised an error: that env is stopped */
  free(before);
  free(s);
  fz_touch_buffers(h);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_init();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_init();
  fz in = {data, size}, *f = &in;
  uint8_t sel = fz_u8(f);
  const config *c = &kConfigs[sel % 4];
  if ((!strcmp(c->task, "Hopper-v5") && !fz_task_xml(c->task)) || (fz_needs_suite(c->task) && !fz_task_suite(c->task)))
    c = &kConfigs[sel % 2]; /* its files are unknown here */
  int n = 1 + (sel >> 2) % 3, t = 1 + (sel >> 4) % 2, ar = (sel >> 5) % 3;
  char key[128];
  snprintf(key, sizeof key, "restore/%s/%d/%d/%d", c->key, n, t, ar);
  mdvec_t *h = fz_cache_get(key);
  if (!h) {
    h = fz_create(c->task, n, t, ar, c->opts, c->n_opts);
    if (!h) fz_fail("cannot create the %s handle", key);
    fz_cache_put(key, h);
  }
  mdvec_spec_t s = {.struct_size = sizeof s};
  if (mdvec_spec(h, &s) != MDVEC_OK) fz_fail("spec of %s", key);
  uint64_t seeds[3];
  uint8_t first = fz_u8(f);
  for (int i = 0; i < n; i++) seeds[i] = (uint64_t)first * 3 + (uint64_t)i;
  if (mdvec_reset_envs(h, NULL, seeds, NULL) != MDVEC_OK) fz_fail("the seeded reset of %s: %s", key, mdvec_errmsg(h));
  size_t na = (size_t)n * (size_t)s.act_dim;
  double *a = malloc(na * sizeof *a);
  for (int k = 0, steps = fz_u8(f) % 6; k < steps; k++) {
    for (size_t j = 0; j < na; j++) a[j] = ((int)fz_u8(f) - 128) / 100.0;
    int rc = mdvec_step(h, a);
    if (rc != MDVEC_OK && rc != MDVEC_ERR_PHYSICS) fz_fail("step returned %d", rc);
    if (rc == MDVEC_ERR_PHYSICS) mdvec_reset(h);
  }
  size_t base_size;
  unsigned char *base = take(h, &base_size);
  for (int op = 0; op < 6 && f->n; op++) {
    uint8_t o = fz_u8(f) % 8;
    if (o <= 3) {
      unsigned char *bad;
      size_t bad_size;
      int sealed, damaged = damage(f, base, base_size, &bad, &bad_size, &sealed);
      restore(h, bad, bad_size, sealed, damaged, base, base_size);
      free(bad);
    } else if (o == 4) { /* another configuration's snapshot: N, mode or task differ (or not) */
      const config *oc = &kConfigs[fz_u8(f) % 2];
      int on = 1 + fz_u8(f) % 3, oar = fz_u8(f) % 3;
      char okey[128];
      snprintf(okey, sizeof okey, "restore-other/%s/%d/%d", oc->key, on, oar);
      mdvec_t *other = fz_cache_get(okey);
      if (!other) {
        if (!(other = fz_create(oc->task, on, 1, oar, oc->opts, oc->n_opts))) fz_fail("cannot create %s", okey);
        fz_cache_put(okey, other);
      }
      if (mdvec_reset(other) != MDVEC_OK) fz_fail("reset of %s", okey);
      size_t osize;
      unsigned char *theirs = take(other, &osize);
      fz_cache_release(other);
      int same = oc == c && on == n && oar == ar;
      int rc = restore(h, theirs, osize, 1, 0, base, base_size);
      if ((rc == MDVEC_OK) != same) fz_fail("a snapshot of %s into %s: rc %d (%s)", okey, key, rc, mdvec_errmsg(h));
      free(theirs);
    } else if (o == 5) {
      set_state(f, h, n);
    } else if (o == 6) {
      if (mdvec_restore(h, base, base_size) != MDVEC_OK) fz_fail("the base does not restore: %s", mdvec_errmsg(h));
      if (!is_snapshot(h, base, base_size)) fz_fail("snapshot(restore(base)) != base");
    } else {
      for (size_t j = 0; j < na; j++) a[j] = fz_double(f);
      int rc = mdvec_step(h, a);
      if (rc == MDVEC_ERR_PHYSICS || rc == MDVEC_ERR_STATE) mdvec_reset(h);
      fz_touch_buffers(h);
    }
  }
  free(a);
  free(base);
  fz_cache_release(h);
  return 0;
}
