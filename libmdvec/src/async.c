/* async.c: asynchronous send/recv (see async.h for the design, mdvec.h for the contract). The caller
 * thread only checks arguments, copies actions into the env's own row and pushes env indices onto the
 * pool's background queue; the T background threads step the envs while the caller works; mdvec_recv
 * takes the oldest sent envs in send order, running any of them that no thread has started yet. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "async.h"

enum { WORK_STEP = 1, WORK_RESET = 2 };

struct mdv_async {
  mdvec_t *h;                  /* the handle */
  int num_envs;                /* N: the ring's size and the most envs in flight */
  int act_dim;                 /* actions per env */
  unsigned long long sent;     /* envs sent since the first send (the queue's item count) */
  unsigned long long received; /* envs received since the first send */
  int32_t *order;              /* (N) env indices in send order, item k in slot k % N */
  int32_t *ids;                /* (N) the envs of the last recv, in order */
  uint8_t *in_flight;          /* (N) 1 from env i's send to its recv */
  uint8_t *mark;               /* (N) scratch: envs named by the send being checked */
  uint8_t *work;               /* (N) WORK_STEP or WORK_RESET: env i's work in flight */
  uint8_t *stepped;            /* (N) 1 when env i's last work was a step (for the error report) */
  int *dtype;                  /* (N) MDVEC_DTYPE_F32 or _F64: the dtype of env i's action row */
  float *act32;                /* (N x act_dim) env i's float32 actions */
  double *act64;               /* (N x act_dim) env i's float64 actions */
  uint64_t *seed;              /* (N) env i's reset seed, when has_seed[i] */
  uint8_t *has_seed;           /* (N) 1: env i's reset reseeds it first */
};

int mdv_async_in_flight(const mdv_async *a) {
  return a ? (int)(a->sent - a->received) : 0;
}

void mdv_async_cancel(mdv_async *a, mdv_pool *pool) {
  if (!a || a->sent == a->received) return;
  mdv_pool_queue_cancel(pool, a->received);
  a->received = a->sent;
}

void mdv_async_free(mdv_async *a) {
  if (!a) return;
  free(a->order);
  free(a->ids);
  free(a->in_flight);
  free(a->mark);
  free(a->work);
  free(a->stepped);
  free(a->dtype);
  free(a->act32);
  free(a->act64);
  free(a->seed);
  free(a->has_seed);
  free(a);
}

/* One env's work, on whichever thread claimed it (`thread`: pool.h's numbering): the synchronous code path
 * for that env. */
static void run_env(void *ctx, int i, int thread) {
  mdv_async *a = ctx;
  if (a->work[i] == WORK_RESET) {
    a->stepped[i] = 0;
    mdv_api_reset_env(a->h, i, a->has_seed[i] ? &a->seed[i] : NULL, thread);
  } else {
    a->stepped[i] = 1;
    mdv_api_step_env(a->h, i, a->dtype[i] == MDVEC_DTYPE_F32 ? (const void *)a->act32 : (const void *)a->act64,
                     a->dtype[i], thread);
  }
}

/* Return h's async state, made (and the pool's queue opened) at the first send; NULL with the error in
 * *code and the handle's message. */
static mdv_async *async_of(mdvec_t *h, const char *call, int *code) {
  mdv_async **slot = mdv_api_async(h);
  if (*slot) return *slot;
  size_t n = (size_t)mdv_api_num_envs(h), act = (size_t)(mdv_api_act_dim(h) > 0 ? mdv_api_act_dim(h) : 1);
  mdv_async *a = calloc(1, sizeof *a);
  if (a) {
    a->h = h;
    a->num_envs = (int)n;
    a->act_dim = mdv_api_act_dim(h);
    a->order = calloc(n, sizeof *a->order);
    a->ids = calloc(n, sizeof *a->ids);
    a->in_flight = calloc(n, 1);
    a->mark = calloc(n, 1);
    a->work = calloc(n, 1);
    a->stepped = calloc(n, 1);
    a->dtype = calloc(n, sizeof *a->dtype);
    a->act32 = n * act <= SIZE_MAX / sizeof(float) ? calloc(n * act, sizeof(float)) : NULL;
    a->act64 = n * act <= SIZE_MAX / sizeof(double) ? calloc(n * act, sizeof(double)) : NULL;
    a->seed = calloc(n, sizeof *a->seed);
    a->has_seed = calloc(n, 1);
  }
  if (!a || !a->order || !a->ids || !a->in_flight || !a->mark || !a->work || !a->stepped || !a->dtype || !a->act32 ||
      !a->act64 || !a->seed || !a->has_seed) {
    mdv_async_free(a);
    *code = mdv_api_fail(h, MDVEC_ERR_NOMEM, "%s: out of memory for the asynchronous state of %zu envs", call, n);
    return NULL;
  }
  char why[256];
  int rc = mdv_pool_queue_open(mdv_api_pool(h), (int)n, run_env, a, why, sizeof why);
  if (rc != MDV_POOL_OK) {
    mdv_async_free(a);
    *code = mdv_api_fail(h, rc == MDV_POOL_ENOMEM ? MDVEC_ERR_NOMEM : MDVEC_ERR_THREAD, "%s: %s", call, why);
    return NULL;
  }
  *slot = a;
  return a;
}

/* Check env_ids (NULL: all N envs in order, n == N): in range, named once, not in flight, and (steps only)
 * steppable; return MDVEC_OK or an error with the handle's message. Leaves a->mark clear. */
static int check_ids(mdvec_t *h, mdv_async *a, const int32_t *env_ids, int n, int stepping, const char *call) {
  int N = a->num_envs, code = MDVEC_OK, marked = 0; /* env_ids[0..marked-1] are marked */
  if (n < 1 || n > N) return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: n is %d; send 1 .. %d envs (num_envs)", call, n, N);
  if (!env_ids && n != N)
    return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: env_ids is NULL (all envs) but n is %d, not num_envs %d", call, n, N);
  for (int j = 0; j < n && code == MDVEC_OK; j++) {
    int i = env_ids ? env_ids[j] : j;
    if (i < 0 || i >= N)
      code = mdv_api_fail(h, MDVEC_ERR_ARG, "%s: env_ids[%d] is %d, out of range [0, %d)", call, j, i, N);
    else if (a->mark[i])
      code = mdv_api_fail(h, MDVEC_ERR_ARG, "%s: env %d is named twice in env_ids; nothing was sent", call, i);
    else if (a->in_flight[i])
      code = mdv_api_fail(h, MDVEC_ERR_STATE,
                          "%s: env %d is in flight (sent and not yet received); mdvec_recv it before sending it "
                          "again; nothing was sent",
                          call, i);
    else if (stepping)
      code = mdv_api_steppable(h, i, call);
    if (code == MDVEC_OK) {
      a->mark[i] = 1;
      marked++;
    }
  }
  for (int k = 0; k < marked; k++) a->mark[env_ids ? env_ids[k] : k] = 0;
  return code;
}

/* Queue envs env_ids[0..n-1] (their work already written) and mark them in flight. */
static void push(mdv_async *a, const int32_t *env_ids, int n) {
  int N = a->num_envs;
  for (int j = 0; j < n; j++) {
    int i = env_ids ? env_ids[j] : j;
    a->order[(a->sent + (unsigned long long)j) % (unsigned long long)N] = i;
    a->in_flight[i] = 1;
  }
  /* the queue's ring holds the values; order keeps them for recv (the queue's slots are its own) */
  if (env_ids) {
    mdv_pool_queue_push(mdv_api_pool(a->h), env_ids, n);
  } else {
    for (int j = 0; j < n; j += 256) { /* all envs: in chunks, from a small table */
      int32_t chunk[256];
      int m = n - j < 256 ? n - j : 256;
      for (int k = 0; k < m; k++) chunk[k] = j + k;
      mdv_pool_queue_push(mdv_api_pool(a->h), chunk, m);
    }
  }
  a->sent += (unsigned long long)n;
}

/* mdvec_send inside mdv_api_enter/leave. */
static int send_actions(mdvec_t *h, const void *actions, int dtype, const int32_t *env_ids, int n) {
  const char *call = "mdvec_send";
  if (!actions) return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: actions is NULL", call);
  if (dtype != MDVEC_DTYPE_F32 && dtype != MDVEC_DTYPE_F64)
    return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: action dtype %d; use MDVEC_DTYPE_F32 or MDVEC_DTYPE_F64", call, dtype);
  size_t align = dtype == MDVEC_DTYPE_F32 ? _Alignof(float) : _Alignof(double);
  if ((uintptr_t)actions % align)
    return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: actions at %p are not aligned to %zu bytes (their element type's)", call,
                        actions, align);
  int code = MDVEC_OK;
  mdv_async *a = async_of(h, call, &code);
  if (!a) return code;
  if ((code = check_ids(h, a, env_ids, n, 1, call)) != MDVEC_OK) return code;
  size_t act_dim = (size_t)a->act_dim, total = (size_t)n * act_dim;
  for (size_t k = 0; k < total; k++) {
    int finite =
      dtype == MDVEC_DTYPE_F32 ? isfinite(((const float *)actions)[k]) : isfinite(((const double *)actions)[k]);
    if (!finite)
      return mdv_api_fail(h, MDVEC_ERR_ACTION,
                          "%s: non-finite action at row %zu (env %d), actuator %zu; nothing was sent", call,
                          k / act_dim, env_ids ? env_ids[k / act_dim] : (int)(k / act_dim), k % act_dim);
  }
  for (int j = 0; j < n; j++) { /* each env's row of actions, in its own row of the library's buffers */
    int i = env_ids ? env_ids[j] : j;
    if (dtype == MDVEC_DTYPE_F32)
      memcpy(a->act32 + (size_t)i * act_dim, (const float *)actions + (size_t)j * act_dim, act_dim * sizeof(float));
    else
      memcpy(a->act64 + (size_t)i * act_dim, (const double *)actions + (size_t)j * act_dim, act_dim * sizeof(double));
    a->dtype[i] = dtype;
    a->work[i] = WORK_STEP;
  }
  push(a, env_ids, n);
  return MDVEC_OK;
}

int mdvec_send(mdvec_t *h, const void *actions, int dtype, const int32_t *env_ids, int n) {
  if (!h) return MDVEC_ERR_ARG;
  int code = mdv_api_enter(h, "mdvec_send");
  return code ? code : mdv_api_leave(h, send_actions(h, actions, dtype, env_ids, n));
}

/* mdvec_send_reset inside mdv_api_enter/leave. */
static int send_reset(mdvec_t *h, const int32_t *env_ids, int n, const uint64_t *seeds, const uint8_t *has_seed) {
  const char *call = "mdvec_send_reset";
  int code = MDVEC_OK;
  mdv_async *a = async_of(h, call, &code);
  if (!a) return code;
  if ((code = check_ids(h, a, env_ids, n, 0, call)) != MDVEC_OK) return code;
  for (int j = 0; seeds && j < n; j++)
    if ((!has_seed || has_seed[j]) && (code = mdv_api_check_seed(h, seeds[j], call)) != MDVEC_OK) return code;
  for (int j = 0; j < n; j++) {
    int i = env_ids ? env_ids[j] : j;
    a->work[i] = WORK_RESET;
    a->has_seed[i] = seeds && (!has_seed || has_seed[j]);
    a->seed[i] = a->has_seed[i] ? seeds[j] : 0;
  }
  push(a, env_ids, n);
  return MDVEC_OK;
}

int mdvec_send_reset(mdvec_t *h, const int32_t *env_ids, int n, const uint64_t *seeds, const uint8_t *has_seed) {
  if (!h) return MDVEC_ERR_ARG;
  int code = mdv_api_enter(h, "mdvec_send_reset");
  return code ? code : mdv_api_leave(h, send_reset(h, env_ids, n, seeds, has_seed));
}

/* mdvec_recv inside mdv_api_enter/leave. */
static int recv(mdvec_t *h, int n, int32_t *env_ids_out) {
  const char *call = "mdvec_recv";
  mdv_async *a = *mdv_api_async(h);
  int flying = mdv_async_in_flight(a);
  if (n < 1) return mdv_api_fail(h, MDVEC_ERR_ARG, "%s: n is %d; receive at least 1 env", call, n);
  if (flying == 0)
    return mdv_api_fail(h, MDVEC_ERR_STATE, "%s: nothing in flight: no env was sent (mdvec_send) and not received",
                        call);
  if (n > flying)
    return mdv_api_fail(h, MDVEC_ERR_STATE,
                        "%s: %d env(s) asked for, but only %d are in flight (sent and not received)", call, n, flying);
  mdv_pool_queue_wait(mdv_api_pool(h), a->received, (unsigned long long)n);
  unsigned long long N = (unsigned long long)a->num_envs;
  for (int j = 0; j < n; j++) {
    int i = a->order[(a->received + (unsigned long long)j) % N];
    a->ids[j] = i;
    a->in_flight[i] = 0;
  }
  a->received += (unsigned long long)n;
  if (env_ids_out) memcpy(env_ids_out, a->ids, (size_t)n * sizeof *env_ids_out);
  return mdv_api_errors(h, a->ids, n, a->stepped, call);
}

int mdvec_recv(mdvec_t *h, int n, int32_t *env_ids_out) {
  if (!h) return MDVEC_ERR_ARG;
  int code = mdv_api_enter(h, "mdvec_recv");
  return code ? code : mdv_api_leave(h, recv(h, n, env_ids_out));
}

int mdvec_in_flight(mdvec_t *h) {
  if (!h) return MDVEC_ERR_ARG;
  int code = mdv_api_enter(h, "mdvec_in_flight");
  return code ? code : mdv_api_leave(h, mdv_async_in_flight(*mdv_api_async(h)));
}
