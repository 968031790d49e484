/* render.h: pixel observations, drawn with MuJoCo's renderer on the worker threads (internal).
 *
 * A handle made with the option obs_mode "pixels" or "state+pixels" draws every env after each of its
 * resets and steps into one uint8 buffer, (N x frame_stack x height x width x 3), row i for env i, as
 * its reference draws it: the task's mdv_camera says whose renderer (Gymnasium's MujocoRenderer or
 * dm_control's Physics.render) and which camera; rows top first (mjr_readPixels's rows flipped, as both
 * references flip them); frames of a stack oldest first, a reset filling the whole stack with its first
 * frame (Gymnasium's FrameStackObservation with padding_type "reset", its default, and EnvPool's).
 *
 * Threads: each pool thread owns one EGL context (egl.h) and one mjrContext, made on its first frame
 * from the model of the first env it draws (the envs of a handle share their meshes and textures) and
 * freed at destroy on the same thread (mdv_render_thread_free, run as a pool job); each env has its own
 * mjvScene. A worker's context stays current on it. Thread 0 is the caller's thread, which may change
 * from call to call and may have a context of its own current (a Gymnasium renderer's): mdv_render_begin
 * saves that binding and makes thread 0's context current, mdv_render_end puts it back. Thread T (the
 * thread count) is the background queue's stand-in for thread 0 (pool.h: asynchronous send/recv draws
 * there too); it binds and releases its context the same way, so thread 0 frees it at destroy.
 *
 * Errors: a GL failure (no context, a context lost) stops that thread's drawing and is reported by
 * mdv_render_status after the call (MDVEC_ERR_GL); it stays reported on every later call (make a new
 * handle). A MuJoCo error inside the drawing of an env is that env's (its trapped region's).
 */
#ifndef MDV_RENDER_H
#define MDV_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include <mujoco/mujoco.h>

#include "mdvec.h"
#include "task.h"

typedef struct mdv_pixels_cfg_ { /* the pixel options, resolved (mdv_pixels_split) */
  int obs_mode;                  /* MDVEC_OBS_STATE, _PIXELS or _STATE_PIXELS */
  int width, height;             /* frame size */
  int frame_stack;               /* frames per observation */
  char *camera;                  /* the camera's text (owned), or NULL: the task's */
  int camera_kind;               /* MDVEC_VALUE_* of camera */
  int gym_legacy;                /* nonzero: Gymnasium 1.2's renderer rules (option gymnasium "1.2") */
} mdv_pixels_cfg;

typedef struct mdv_render_ mdv_render;

#define MDV_FRAME_RESET 0 /* the first frame of an episode: it fills the stack */
#define MDV_FRAME_STEP  1 /* a step's frame: the stack moves one frame older */

/* Split named options into the pixel options, resolved (types, bounds, defaults) into *px, and the rest,
 * copied into *rest and *rest_kinds (n_given entries allocated, or NULL when n_given is 0; free both)
 * with their count in *n_rest. Return MDVEC_OK, MDVEC_ERR_CONFIG with a message naming the option, or
 * MDVEC_ERR_NOMEM. Free px->camera with mdv_pixels_cfg_free. */
int mdv_pixels_split(const mdvec_option_t *given, const int *kinds, int n_given, mdv_pixels_cfg *px,
                     mdvec_option_t **rest, int **rest_kinds, int *n_rest, char *err, size_t n);

/* Free what mdv_pixels_split put in px; safe on a zeroed px. */
void mdv_pixels_cfg_free(mdv_pixels_cfg *px);

/* Return the number of pixel options, or fill info (its struct_size set) with option k (mdvec.h). */
int mdv_pixel_option_count(void);
int mdv_pixel_option(int k, mdvec_option_info_t *info);

/* Check that the frames of num_envs envs (twice for SAME_STEP's final frames) fit in size_t, in the
 * machine's memory and in the address-space limit, before anything is built; return MDVEC_OK or
 * MDVEC_ERR_NOMEM / MDVEC_ERR_CONFIG with a message giving the bytes asked for. */
int mdv_render_check_memory(const mdv_pixels_cfg *px, int num_envs, int same_step, char *err, size_t n);

/* Make the renderer of a handle (px->obs_mode not STATE): resolve the camera on the model m (a name
 * or an id in [-1, ncam)), load EGL, check width and height against the GL limits on a probe context
 * (made current on this thread for the check, then destroyed, the thread's binding put back) and
 * allocate the frames. Takes px->camera. Return MDVEC_OK with *out, or MDVEC_ERR_CONFIG (camera, size
 * beyond the GL limit, which the message gives), MDVEC_ERR_GL (no EGL: the message says what to install)
 * or MDVEC_ERR_NOMEM. */
int mdv_render_create(mdv_render **out, mdv_pixels_cfg *px, const mdv_task *task, const mjModel *m, int num_envs,
                      int threads, int same_step, char *err, size_t n);

/* Free the renderer's memory (the threads' GL objects must have been freed with mdv_render_thread_free,
 * or be abandoned in a forked child); NULL is a no-op. */
void mdv_render_free(mdv_render *r);

/* Before drawing on pool thread `thread` (0: the caller's; T: the queue's stand-in): make its context on
 * first use, and on threads 0 and T make it current, saving the binding it replaces. */
void mdv_render_begin(mdv_render *r, int thread);

/* After drawing on pool thread `thread`: check GL's error state; on threads 0 and T put the saved binding
 * back. */
void mdv_render_end(mdv_render *r, int thread);

/* Draw env i (model m, data d) on pool thread `thread` (between begin and end) into its row:
 * MDV_FRAME_RESET fills the stack with the frame, MDV_FRAME_STEP moves the stack and appends it. */
void mdv_render_frame(mdv_render *r, int thread, int i, const mjModel *m, const mjData *d, int what);

/* Copy env i's row into its final row (SAME_STEP, before the autoreset overwrites the row). */
void mdv_render_keep_final(mdv_render *r, int i);

/* Free pool thread `thread`'s GL objects and context on that thread (at destroy, as a pool job); thread 0
 * frees the queue stand-in's (thread T's) too. */
void mdv_render_thread_free(mdv_render *r, int thread);

/* Return MDVEC_OK, or MDVEC_ERR_GL with the first failed thread's message in msg. */
int mdv_render_status(const mdv_render *r, char *msg, size_t n);

/* The frames (N x frame_stack x height x width x 3), and the final frames (the frames when not SAME_STEP). */
const uint8_t *mdv_render_pixels(const mdv_render *r);
const uint8_t *mdv_render_final_pixels(const mdv_render *r);

/* Fill info (its struct_size checked by the caller) from the renderer (NULL: a state-only handle). */
void mdv_render_info(const mdv_render *r, const mdv_pixels_cfg *px, mdvec_pixels_info_t *info);

/* Test hooks (tests/c/test_render.c): the renderer of a handle (api.c; NULL: state only), and thread 0's
 * context destroyed behind the renderer's back, as a lost context leaves it. */
mdv_render *mdv_handle_render(const mdvec_t *h);
void mdv_render_lose_context(mdv_render *r);

#endif /* MDV_RENDER_H */
