/* Fuzz target: stepping and resetting. Every task (the duck in three configurations, each Gymnasium
 * task when its assets are known, each Control Suite task when dm_control's suite folder is known), 1 to 3
 * envs (on 2 threads when more than 1), each autoreset mode, default or short episodes. Every input starts
 * with a seeded reset of all envs, then runs up to 12 operations: mdvec_step_typed with extreme actions (NaN, inf, huge, denormals, the bounds and just outside
 * them; float32 and float64; now and then a NULL array or a bad dtype), mdvec_reset_envs with
 * fuzzed masks, seeds and has_seed arrays (each NULL or not), mdvec_reset, mdvec_seed, state
 * readout, and a seeded reset repeated to check that it gives the same observation. Seeds come raw or from
 * a table of edges (2**32 - 1 and 2**32, which a task with a RandomState refuses, 2**64 - 1...): a seed past
 * the task's seed_max (spec.seed_max; env i gets seed + i) is refused with MDVEC_ERR_ARG and a message,
 * changing nothing, and any other is taken.
 *
 * Arrays are heap blocks of exactly N x act_dim (or N) elements, so a read past them is an ASan
 * report. Checked after each call: the flags and buffers (fz_touch_buffers); a refused step
 * changed nothing and was refused for a reason (a non-finite action, a NULL array, a bad dtype);
 * a step with finite actions was not refused for its actions; the autoreset mode's contract
 * (DISABLED never resets; SAME_STEP resets exactly the finished envs; NEXT_STEP resets exactly the
 * envs whose previous step finished, with reward 0 and no flags), and final_obs == obs for envs not
 * reset; a masked reset resets exactly the masked envs and leaves the other rows alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_N 3

typedef struct {
  const char *key;
  const char *task;
  int n_opts;
  mdvec_option_t opts[6];
} config;

/* the duck's configurations; Gymnasium tasks get {} or short episodes */
static const config kDuck[3] = {
  {"duck", "duck", 0, {{0}}},
  {"duck_short", "duck", 4, {{"episode_len", "5"}, {"push_window", "0,5"}, {"n_pushes", "1"}, {"init_noise", "0.05"}}},
  {"duck_dr",
   "duck",
   6,
   {{"dr", "true"},
    {"latency", "2"},
    {"sensor_noise", "true"},
    {"episode_len", "8"},
    {"push_window", "1,8"},
    {"n_pushes", "2"}}},
};

static int finite_actions(const void *a, size_t n, int dtype) {
  for (size_t k = 0; k < n; k++) {
    if (dtype == MDVEC_DTYPE_F32 ? !isfinite(((const float *)a)[k]) : !isfinite(((const double *)a)[k])) return 0;
  }
  return 1;
}

typedef struct {
  mdvec_t *h;
  mdvec_spec_t s;
  size_t row;               /* bytes of one obs row */
  int tracking;             /* 1 while prev_done is known (no MuJoCo error since the last full reset) */
  uint8_t prev_done[MAX_N]; /* NEXT_STEP: the previous step finished env i and no reset came since */
} state;

/* Whether `count` envs from seed take it (seed .. seed + count - 1 <= seed_max). */
static int seed_ok(const state *st, uint64_t seed, int count) {
  return seed <= st->s.seed_max && (uint64_t)(count - 1) <= st->s.seed_max - seed;
}

static const unsigned char *row_of(const void *buf, const state *st, int i) {
  return (const unsigned char *)buf + (size_t)i * st->row;
}

static void op_step(fz *f, state *st) {
  mdvec_t *h = st->h;
  int n = st->s.num_envs;
  size_t na = (size_t)n * (size_t)st->s.act_dim;
  uint8_t ds = fz_u8(f) % 16;
  int dtype = ds < 7 ? MDVEC_DTYPE_F32 : ds < 14 ? MDVEC_DTYPE_F64 : ds == 14 ? (int)fz_int(f) : MDVEC_DTYPE_F64;
  int null = ds == 15;
  size_t elem = dtype == MDVEC_DTYPE_F32 ? sizeof(float) : sizeof(double);
  void *a = malloc(na * elem);
  if (!a) return;
  if (dtype == MDVEC_DTYPE_F32 || dtype == MDVEC_DTYPE_F64)
    fz_actions(f, a, na, dtype, h);
  else
    memset(a, 0, na * elem);
  fz_snap before;
  fz_snap_take(h, &before);
  int rc = mdvec_step_typed(h, null ? NULL : a, dtype);
  int typed = dtype == MDVEC_DTYPE_F32 || dtype == MDVEC_DTYPE_F64;
  int finite = typed && finite_actions(a, na, dtype);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_ACTION && rc != MDVEC_ERR_PHYSICS && rc != MDVEC_ERR_STATE &&
      rc != MDVEC_ERR_ARG)
    fz_fail("mdvec_step_typed returned %d", rc);
  if ((null || !typed) && rc != MDVEC_ERR_ARG)
    fz_fail("mdvec_step_typed(%s, dtype %d) returned %d", null ? "NULL" : "actions", dtype, rc);
  if (!null && typed) {
    if (rc == MDVEC_ERR_ACTION && finite) fz_fail("finite actions refused as non-finite: %s", mdvec_errmsg(h));
    if ((rc == MDVEC_OK || rc == MDVEC_ERR_PHYSICS) && !finite) fz_fail("a non-finite action was stepped (rc %d)", rc);
  }
  if (rc == MDVEC_ERR_ACTION || rc == MDVEC_ERR_ARG || rc == MDVEC_ERR_STATE) {
    if (!fz_snap_same(h, &before)) fz_fail("a refused step (rc %d: %s) changed the buffers", rc, mdvec_errmsg(h));
    if (!mdvec_errmsg(h)[0]) fz_fail("a step was refused (rc %d) without a message", rc);
  }
  fz_snap_free(&before);
  fz_touch_buffers(h);
  if (rc == MDVEC_ERR_PHYSICS) st->tracking = 0;
  if (rc == MDVEC_OK) {
    const uint8_t *reset = mdvec_reset_flags(h), *done = mdvec_done(h), *te = mdvec_terminated(h),
                  *tr = mdvec_truncated(h);
    const double *reward = mdvec_reward(h);
    const void *obs = mdvec_obs_data(h), *fin = mdvec_final_obs_data(h);
    for (int i = 0; i < n; i++) {
      switch (st->s.autoreset) {
        case MDVEC_AUTORESET_DISABLED:
          if (reset[i]) fz_fail("DISABLED: env %d was reset by a step", i);
          break;
        case MDVEC_AUTORESET_SAME_STEP:
          if (reset[i] != done[i]) fz_fail("SAME_STEP: env %d reset %u but done %u", i, reset[i], done[i]);
          break;
        default:
          if (st->tracking && reset[i] != st->prev_done[i])
            fz_fail("NEXT_STEP: env %d reset %u but its previous step finished: %u", i, reset[i], st->prev_done[i]);
          if (reset[i] && (reward[i] != 0.0 || te[i] || tr[i]))
            fz_fail("NEXT_STEP: env %d reset with reward %g terminated %u truncated %u", i, reward[i], te[i], tr[i]);
          st->prev_done[i] = done[i];
      }
      if (!reset[i] && memcmp(row_of(obs, st, i), row_of(fin, st, i), st->row))
        fz_fail("env %d: not reset, but final_obs differs from obs", i);
    }
  }
  free(a);
}

/* mask / seeds / has_seed: NULL or an exact heap array filled from the input */
static void op_reset_envs(fz *f, state *st) {
  mdvec_t *h = st->h;
  int n = st->s.num_envs;
  uint8_t how = fz_u8(f);
  uint8_t *mask = NULL, *has = NULL;
  uint64_t *seeds = NULL;
  if (how & 1) {
    mask = malloc((size_t)n);
    for (int i = 0; i < n; i++) mask[i] = fz_u8(f) % 4 == 0 ? 0 : fz_u8(f); /* any nonzero byte means yes */
  }
  if (how & 2) {
    seeds = malloc((size_t)n * sizeof *seeds);
    for (int i = 0; i < n; i++) seeds[i] = fz_seed(f);
  }
  if (how & 4) {
    has = malloc((size_t)n);
    for (int i = 0; i < n; i++) has[i] = fz_u8(f);
  }
  int seeds_ok = 1; /* every seed the call uses is the task's */
  for (int i = 0; seeds && i < n; i++)
    if ((!mask || mask[i]) && (!has || has[i])) seeds_ok &= seed_ok(st, seeds[i], 1);
  unsigned char *obs0 = malloc((size_t)n * st->row);
  memcpy(obs0, mdvec_obs_data(h), (size_t)n * st->row);
  fz_snap before;
  fz_snap_take(h, &before);
  int rc = mdvec_reset_envs(h, mask, seeds, has);
  if (rc != MDVEC_OK && rc != MDVEC_ERR_PHYSICS && !(rc == MDVEC_ERR_ARG && !seeds_ok))
    fz_fail("mdvec_reset_envs returned %d: %s", rc, mdvec_errmsg(h));
  if (rc != MDVEC_ERR_ARG && !seeds_ok) fz_fail("mdvec_reset_envs took a seed past seed_max (rc %d)", rc);
  if (rc == MDVEC_ERR_ARG) {
    if (!fz_snap_same(h, &before)) fz_fail("a reset refused for its seed changed the buffers");
    if (!strstr(mdvec_errmsg(h), "seed")) fz_fail("a reset refused for its seed says: %s", mdvec_errmsg(h));
  }
  fz_snap_free(&before);
  fz_touch_buffers(h);
  const uint8_t *reset = mdvec_reset_flags(h);
  for (int i = 0; i < n; i++) {
    int in = !mask || mask[i];
    if (rc == MDVEC_OK && reset[i] != in) fz_fail("reset_envs: env %d in mask %d, reset flag %u", i, in, reset[i]);
    if (!in && memcmp(row_of(mdvec_obs_data(h), st, i), obs0 + (size_t)i * st->row, st->row))
      fz_fail("reset_envs: env %d outside the mask changed its observation", i);
    if (in && rc != MDVEC_ERR_ARG) st->prev_done[i] = 0;
  }
  if (rc == MDVEC_ERR_PHYSICS) st->tracking = 0;

  /* the same seed twice gives the same first observation (how bit 3: env j alone) */
  if ((how & 8) && rc == MDVEC_OK) {
    int j = (int)fz_pick(f, (size_t)n);
    uint8_t *only = calloc((size_t)n, 1);
    uint64_t *sd = calloc((size_t)n, sizeof *sd);
    only[j] = 1;
    sd[j] = fz_seed(f);
    unsigned char *first = malloc(st->row);
    int rc2 = mdvec_reset_envs(h, only, sd, NULL);
    if ((rc2 == MDVEC_ERR_ARG) != !seed_ok(st, sd[j], 1))
      fz_fail("env %d: a reset with seed %llu returned %d (seed_max %llu)", j, (unsigned long long)sd[j], rc2,
              (unsigned long long)st->s.seed_max);
    if (rc2 == MDVEC_OK) {
      memcpy(first, row_of(mdvec_obs_data(h), st, j), st->row);
      if (mdvec_reset_envs(h, only, sd, NULL) == MDVEC_OK && memcmp(first, row_of(mdvec_obs_data(h), st, j), st->row))
        fz_fail("env %d: two resets with seed %llu gave different observations", j, (unsigned long long)sd[j]);
    } else if (rc2 != MDVEC_ERR_ARG) {
      st->tracking = 0;
    }
    if (rc2 != MDVEC_ERR_ARG) st->prev_done[j] = 0;
    free(first);
    free(only);
    free(sd);
  }
  free(obs0);
  free(mask);
  free(seeds);
  free(has);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_init();
  return 0;
}

/* Whether the task declares an xml_file option (a Gymnasium task: it needs Gymnasium's assets; a Control Suite
 * task needs dm_control's suite folder: fz_needs_suite). */
static int has_xml_option(const char *task) {
  for (int k = 0; k < mdvec_task_option_count(task); k++) {
    mdvec_option_info_t o = {.struct_size = sizeof o};
    if (mdvec_task_option(task, k, &o) == MDVEC_OK && !strcmp(o.name, "xml_file")) return 1;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_init();
  fz in = {data, size}, *f = &in;

  /* the handle: task, configuration, N, T, autoreset */
  static const char *tasks[128];
  static int n_tasks;
  if (!n_tasks) {
    for (int k = 1; mdvec_task_name(k) && n_tasks < 124; k++) { /* a task runs when it needs no files or has them */
      const char *name = mdvec_task_name(k);
      if ((fz_task_xml(name) || !has_xml_option(name)) && (fz_task_suite(name) || !fz_needs_suite(name)))
        tasks[n_tasks++] = name;
    }
    n_tasks += 3; /* the duck's three configurations come first */
    for (int k = n_tasks - 1; k >= 3; k--) tasks[k] = tasks[k - 3];
  }
  /* 255: the task named as text (a duck configuration's key, or a task name; the duck when unknown) */
  uint8_t ws = fz_u8(f);
  size_t which = ws % (size_t)n_tasks;
  if (ws == 255) {
    char name[64];
    fz_str(f, name, sizeof name);
    which = 0;
    for (size_t k = 0; k < (size_t)n_tasks; k++)
      if (!strcmp(name, k < 3 ? kDuck[k].key : tasks[k])) which = k;
  }
  uint8_t b = fz_u8(f);
  int n = 1 + b % MAX_N, t = n == 1 ? 1 : 2, ar = (b >> 2) % 3, short_ep = (b >> 4) & 1;
  config gym = {NULL, NULL, 0, {{0}}};
  const config *c;
  if (which < 3) {
    c = &kDuck[which];
  } else {
    gym.key = gym.task = tasks[which];
    if (short_ep) gym.opts[gym.n_opts++] = (mdvec_option_t){"max_episode_steps", "4"};
    c = &gym;
  }
  char key[160];
  snprintf(key, sizeof key, "%s/%d/%d/%d/%d", c->key, which < 3 ? 0 : short_ep, n, t, ar);
  mdvec_t *h = fz_cache_get(key);
  if (!h) {
    h = fz_create(c->task, n, t, ar, c->opts, c->n_opts);
    if (!h) fz_fail("cannot create the %s handle", key);
    fz_cache_put(key, h);
  }
  state st = {.h = h, .s = {.struct_size = sizeof st.s}, .tracking = 1};
  if (mdvec_spec(h, &st.s) != MDVEC_OK) fz_fail("mdvec_spec of %s", key);
  st.row = (size_t)st.s.obs_dim * (st.s.obs_dtype == MDVEC_DTYPE_F64 ? sizeof(double) : sizeof(float));

  /* the same start whether the handle is cached or new */
  uint64_t seeds[MAX_N];
  uint8_t base = fz_u8(f);
  for (int i = 0; i < n; i++) seeds[i] = (uint64_t)base * MAX_N + (uint64_t)i;
  int rc = mdvec_reset_envs(h, NULL, seeds, NULL);
  if (rc != MDVEC_OK) fz_fail("the seeded reset of %s returned %d: %s", key, rc, mdvec_errmsg(h));

  for (int op = 0; op < 12 && f->n; op++) {
    uint8_t o = fz_u8(f) % 16;
    if (o < 10) {
      op_step(f, &st);
    } else if (o < 13) {
      op_reset_envs(f, &st);
    } else if (o == 13) {
      rc = mdvec_reset(h);
      if (rc != MDVEC_OK && rc != MDVEC_ERR_PHYSICS) fz_fail("mdvec_reset returned %d", rc);
      st.tracking = rc == MDVEC_OK;
      memset(st.prev_done, 0, sizeof st.prev_done);
      fz_touch_buffers(h);
    } else if (o == 14) {
      uint64_t seed = fz_seed(f);
      rc = mdvec_seed(h, seed);
      if (rc != (seed_ok(&st, seed, n) ? MDVEC_OK : MDVEC_ERR_ARG))
        fz_fail("mdvec_seed(%llu) with %d envs returned %d (seed_max %llu): %s", (unsigned long long)seed, n, rc,
                (unsigned long long)st.s.seed_max, mdvec_errmsg(h));
    } else {
      fz_query(h, f);
    }
  }
  fz_cache_release(h);
  return 0;
}
