/* async.h: asynchronous send/recv (async.c; public calls mdvec_send, mdvec_send_reset, mdvec_recv,
 * mdvec_in_flight in mdvec.h), and the few internals of the handle that api.c lends it (internal, not
 * part of the ABI).
 *
 * Design: envs are sent in order (each send appends its envs, each env at most once in flight) and
 * received in the same order (mdvec_recv(n) takes the next n sent envs, waiting for them). The worker
 * pool's background queue (pool.h) steps them: every env's work is the very code of a synchronous step
 * or reset, on its own rows of the handle's buffers, so which envs come back together and what they hold
 * never depend on timing or on the thread count. */
#ifndef MDV_ASYNC_H
#define MDV_ASYNC_H

#include <stdint.h>

#include "mdvec.h"
#include "pool.h"

typedef struct mdv_async mdv_async;

/*---------------------------------- async.c, for api.c --------------------------------------------*/

/* Return the number of envs sent and not yet received (0 for NULL). */
int mdv_async_in_flight(const mdv_async *a);

/* Drop the envs sent and not yet started, and wait for those running (a destroy with work in flight);
 * NULL is a no-op. Call before the pool is destroyed. */
void mdv_async_cancel(mdv_async *a, mdv_pool *pool);

/* Free a's memory (after the pool is destroyed or abandoned); NULL is a no-op. */
void mdv_async_free(mdv_async *a);

/*---------------------------------- api.c, for async.c --------------------------------------------*/

/* Start a call that may run while envs are in flight (enter() without the in-flight refusal). */
int mdv_api_enter(mdvec_t *h, const char *call);

/* End a call started by mdv_api_enter; return code. */
int mdv_api_leave(mdvec_t *h, int code);

/* Record a message on the handle and return code. */
int mdv_api_fail(mdvec_t *h, int code, const char *fmt, ...);

/* The handle's async state (NULL until the first send), its pool, N, and the action length. */
mdv_async **mdv_api_async(mdvec_t *h);
mdv_pool *mdv_api_pool(const mdvec_t *h);
int mdv_api_num_envs(const mdvec_t *h);
int mdv_api_act_dim(const mdvec_t *h);

/* Return MDVEC_OK when env i may be stepped (it was reset and is not stopped by an error), else
 * MDVEC_ERR_STATE with the message of a synchronous step, naming call. */
int mdv_api_steppable(mdvec_t *h, int i, const char *call);

/* Return MDVEC_OK when seed is one of the task's seeds, else MDVEC_ERR_ARG with a message naming call. */
int mdv_api_check_seed(mdvec_t *h, uint64_t seed, const char *call);

/* Step env i as a synchronous step does (its error flag cleared, MuJoCo errors trapped, on_error and the
 * autoreset mode applied, its frames drawn), with row i of actions (N x act_dim, C order, of dtype), on
 * the queue's thread `thread` (pool.h's numbering: the renderer's slot). */
void mdv_api_step_env(mdvec_t *h, int i, const void *actions, int dtype, int thread);

/* Reset env i as mdvec_reset_envs does (its flags cleared, a failure cleared, errors trapped, its frame
 * stack filled), first reseeded with *seed when seed is not NULL, on the queue's thread `thread`. */
void mdv_api_reset_env(mdvec_t *h, int i, const uint64_t *seed, int thread);

/* Return MDVEC_ERR_PHYSICS (or MDVEC_ERR_NOMEM) naming the first of envs ids[0..n-1] that raised an error
 * in its last work and is stopped by it (stepped[i]: env i's work was a step), as a synchronous call
 * reports it; else MDVEC_ERR_GL when the renderer failed (render.h); else MDVEC_OK. */
int mdv_api_errors(mdvec_t *h, const int32_t *ids, int n, const uint8_t *stepped, const char *call);

#endif /* MDV_ASYNC_H */
