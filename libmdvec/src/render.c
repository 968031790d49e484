/* Pixel observations drawn with MuJoCo's renderer on the worker threads (see render.h). */
#include "render.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "egl.h"
#include "options.h"
#include "trap.h"

#define MAX_SIDE      16384 /* most pixels per side an option accepts (GL's own limit is checked at create) */
#define GYM_MAX_GEOM  1000  /* Gymnasium's MujocoRenderer default max_geom */
#define MORE_MAX_GEOM 10000 /* dm_control estimates its own; mujoco.Renderer's default */

/*---------------------------------- The pixel options ---------------------------------------------*/

enum { PX_OBS_MODE, PX_WIDTH, PX_HEIGHT, PX_CAMERA, PX_FRAME_STACK, PX_GYMNASIUM, PX_N_OPTIONS };

// clang-format off: one option per entry
static const mdv_option_decl px_options[PX_N_OPTIONS] = {
  [PX_OBS_MODE] = {"obs_mode", MDVEC_OPT_CHOICE, "state", 0, 0, "state|pixels|state+pixels",
                   "what the observations are: the state vector, frames of pixels (mdvec_pixels), or both"},
  [PX_WIDTH] = {"width", MDVEC_OPT_INT, "480", 1, MAX_SIDE, NULL,
                "frame width in pixels (480: Gymnasium's default; at most the GL limit, checked at create)"},
  [PX_HEIGHT] = {"height", MDVEC_OPT_INT, "480", 1, MAX_SIDE, NULL,
                 "frame height in pixels (480: Gymnasium's default; at most the GL limit, checked at create)"},
  [PX_CAMERA] = {"camera", MDVEC_OPT_STRING, NULL, 0, 0, NULL,
                 "camera id (-1: the free camera) or name; unset: the task's reference's default camera"},
  [PX_FRAME_STACK] = {"frame_stack", MDVEC_OPT_INT, "1", 1, 1024, NULL,
                      "frames per observation, oldest first; a reset fills the stack with its first frame"},
  [PX_GYMNASIUM] = {"gymnasium", MDVEC_OPT_CHOICE, "1.4", 0, 0, "1.4|1.2",
                    "the rules of Gymnasium's MujocoEnv renderer a v5 task's frames follow: 1.4 (no camera named: the "
                    "free camera; offscreen buffer grown to the frame) or 1.2 (Gymnasium 1.0 - 1.3: the model's "
                    "camera 'track' if any; buffer of the frame's size)"},
};
// clang-format on

/* The pixel options as a task table, so that options.c parses and checks them like a task's. */
static const mdv_task px_table = {
  .name = "pixels",
  .options = px_options,
  .n_options = PX_N_OPTIONS,
  .index_options = "camera",
};

int mdv_pixel_option_count(void) {
  return PX_N_OPTIONS;
}

int mdv_pixel_option(int k, mdvec_option_info_t *info) {
  if (!info || info->struct_size < sizeof *info || k < 0 || k >= PX_N_OPTIONS) return MDVEC_ERR_ARG;
  const mdv_option_decl *o = &px_options[k];
  *info = (mdvec_option_info_t){sizeof *info, o->name, o->type, o->def, o->lo, o->hi, o->choices, o->help};
  return MDVEC_OK;
}

/* Return nonzero when name is a pixel option's. */
static int is_pixel_option(const char *name) {
  for (int k = 0; name && k < PX_N_OPTIONS; k++)
    if (!strcmp(name, px_options[k].name)) return 1;
  return 0;
}

int mdv_pixels_split(const mdvec_option_t *given, const int *kinds, int n_given, mdv_pixels_cfg *px,
                     mdvec_option_t **rest, int **rest_kinds, int *n_rest, char *err, size_t n) {
  memset(px, 0, sizeof *px);
  *rest = NULL;
  *rest_kinds = NULL;
  *n_rest = 0;
  if (n_given < 0 || (n_given > 0 && !given)) {
    snprintf(err, n, "options: %d options at %p", n_given, (const void *)given); /* as options.c words it */
    return MDVEC_ERR_CONFIG;
  }
  mdvec_option_t *px_given = NULL;
  int *px_kinds = NULL, n_px = 0;
  if (n_given > 0) {
    *rest = malloc((size_t)n_given * sizeof **rest);
    *rest_kinds = malloc((size_t)n_given * sizeof **rest_kinds);
    px_given = malloc((size_t)n_given * sizeof *px_given);
    px_kinds = malloc((size_t)n_given * sizeof *px_kinds);
    if (!*rest || !*rest_kinds || !px_given || !px_kinds) {
      free(px_given);
      free(px_kinds);
      snprintf(err, n, "out of memory");
      return MDVEC_ERR_NOMEM;
    }
  }
  for (int j = 0; j < n_given; j++) {
    int kind = kinds ? kinds[j] : MDVEC_VALUE_TEXT;
    if (is_pixel_option(given[j].name)) {
      px_given[n_px] = given[j];
      px_kinds[n_px++] = kind;
    } else {
      (*rest)[*n_rest] = given[j];
      (*rest_kinds)[(*n_rest)++] = kind;
    }
  }
  mdv_value v[PX_N_OPTIONS];
  memset(v, 0, sizeof v);
  int code = mdv_options_resolve(&px_table, NULL, px_given, px_kinds, n_px, v, err, n);
  free(px_given);
  free(px_kinds);
  if (code != MDVEC_OK) return code;
  static const int modes[] = {MDVEC_OBS_STATE, MDVEC_OBS_PIXELS, MDVEC_OBS_STATE_PIXELS};
  px->obs_mode = modes[v[PX_OBS_MODE].i[0]];
  px->width = (int)v[PX_WIDTH].i[0];
  px->height = (int)v[PX_HEIGHT].i[0];
  px->frame_stack = (int)v[PX_FRAME_STACK].i[0];
  px->gym_legacy = v[PX_GYMNASIUM].i[0] == 1;
  px->camera = (char *)v[PX_CAMERA].s; /* the copy options.c made: ours now */
  v[PX_CAMERA].s = NULL;
  px->camera_kind = v[PX_CAMERA].kind;
  mdv_options_free(&px_table, v);
  return MDVEC_OK;
}

void mdv_pixels_cfg_free(mdv_pixels_cfg *px) {
  if (!px) return;
  free(px->camera);
  px->camera = NULL;
}

/*---------------------------------- Sizes and memory ----------------------------------------------*/

/* Set *out = a * b; return -1 when it overflows size_t. */
static int mul(size_t a, size_t b, size_t *out) {
  if (b && a > SIZE_MAX / b) return -1;
  *out = a * b;
  return 0;
}

#define GIB(bytes) ((double)(bytes) / (1024.0 * 1024.0 * 1024.0))

int mdv_render_check_memory(const mdv_pixels_cfg *px, int num_envs, int same_step, char *err, size_t n) {
  if (px->obs_mode == MDVEC_OBS_STATE) return MDVEC_OK;
  size_t frame, env, all, total;
  int copies = same_step ? 2 : 1; /* SAME_STEP keeps each env's final frames apart */
  if (mul((size_t)px->width * 3, (size_t)px->height, &frame) || mul(frame, (size_t)px->frame_stack, &env) ||
      mul(env, (size_t)num_envs, &all) || mul(all, (size_t)copies, &total)) {
    snprintf(err, n,
             "pixels: %d envs x %d frames x %d x %d x 3 bytes%s do not fit in a size_t: reduce num_envs, frame_stack, "
             "width or height",
             num_envs, px->frame_stack, px->height, px->width, same_step ? " x 2 (final frames)" : "");
    return MDVEC_ERR_NOMEM;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t phys = SIZE_MAX;
  if (pages > 0 && page > 0 && mul((size_t)pages, (size_t)page, &phys)) phys = SIZE_MAX;
  if (total > phys) {
    snprintf(err, n,
             "pixels: %d envs x %d frames x %d x %d x 3 bytes%s = %zu bytes (%.1f GiB) of frames, more than this "
             "machine's %.1f GiB of memory; nothing was allocated",
             num_envs, px->frame_stack, px->height, px->width, same_step ? " x 2 (final frames)" : "", total,
             GIB(total), GIB(phys));
    return MDVEC_ERR_NOMEM;
  }
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && total > as.rlim_cur) {
    snprintf(err, n,
             "pixels: %d envs x %d frames x %d x %d x 3 bytes%s = %zu bytes (%.1f GiB) of frames, more than this "
             "process's address-space limit (ulimit -v) of %.1f GiB; nothing was allocated",
             num_envs, px->frame_stack, px->height, px->width, same_step ? " x 2 (final frames)" : "", total,
             GIB(total), GIB(as.rlim_cur));
    return MDVEC_ERR_NOMEM;
  }
  return MDVEC_OK;
}

/*---------------------------------- The renderer --------------------------------------------------*/

typedef struct rthread_ { /* one pool thread's renderer, made on its first frame */
  void *context;          /* its EGLContext, or NULL */
  int failed;             /* nonzero after a GL failure: it draws no more */
  int made;               /* nonzero once con is made */
  int bound;              /* a floating slot: nonzero between begin and end */
  mjrContext con;         /* MuJoCo's GL objects, for the model it was made from */
  mdv_egl_current saved;  /* a floating slot: the binding begin replaced */
  char error[640];        /* the failure's message */
  char pad[64];           /* keep neighbours' hot fields off each other's cache lines */
} rthread;

struct mdv_render_ {
  mdv_pixels_cfg px;      /* the options (camera text owned) */
  int draw;               /* MDV_DRAW_*, or 0: mdvec's tracking camera */
  const mdv_camera *decl; /* the task's declaration, or NULL */
  int camera_id;          /* the camera drawn: -1 the free camera, else a model camera */
  int num_envs, threads;  /* N, T */
  size_t frame_bytes;     /* height x width x 3 */
  size_t env_bytes;       /* frame_stack x frame_bytes */
  uint8_t *pixels;        /* (N x env_bytes) */
  uint8_t *final_pixels;  /* (N x env_bytes) SAME_STEP's final frames, or NULL: pixels */
  mjvCamera *cams;        /* (N) each env's camera, set up on its first frame */
  uint8_t *cam_ready;     /* (N) nonzero once cams[i] is set up */
  mjvScene *scenes;       /* (N) each env's own scene: a scene keeps state between frames (the camera an
                           * infinite plane was placed under), so sharing one made frames depend on the envs a
                           * thread drew before: the duck's floor differed with the thread count */
  uint8_t *scene_made;    /* (N) nonzero once scenes[i] is made */
  mjvOption opt;          /* the reference's scene options */
  int max_geom;           /* the reference's scene size */
  mdv_egl *egl;           /* the loaded EGL */
  char renderer[128];     /* GL_RENDERER of the probe context */
  rthread *th;            /* (T + 1) slot t for pool thread t; slot T for the queue's stand-in (pool.h) */
};

/* Nonzero for a slot whose context is current only between begin and end: the caller's (0), whose
 * thread may change and may have a context of its own, and the queue's stand-in's (T), so that
 * thread 0 can free it at destroy. A worker's context stays current on it. */
static int floating(const mdv_render *r, int thread) {
  return thread == 0 || thread == r->threads;
}

/* Nonzero when frames are drawn in an offscreen buffer of the frame's size (Gymnasium 1.2's MujocoEnv). */
static int frame_sized(const mdv_render *r) {
  return r->px.gym_legacy && r->draw == MDV_DRAW_GYM;
}

/* Resolve the camera: the option's text as an id or a name on m, else the task's (Gymnasium 1.2's
 * MujocoRenderer: the model's camera "track" when it has one); return 0 or -1. */
static int resolve_camera(mdv_render *r, const mjModel *m, char *err, size_t n) {
  const mdv_pixels_cfg *px = &r->px;
  if (!px->camera && r->px.gym_legacy && r->draw == MDV_DRAW_GYM) {
    r->camera_id = mj_name2id(m, mjOBJ_CAMERA, "track"); /* -1 (the free camera) when there is none */
    return 0;
  }
  if (!px->camera) {
    r->camera_id = r->decl ? r->decl->camera_id : -1;
    if (r->camera_id >= m->ncam) r->camera_id = -1; /* a task declaring a camera its model lacks: the free one */
    return 0;
  }
  char *end;
  long id = strtol(px->camera, &end, 10);
  int is_int = *px->camera && !*end && px->camera_kind != MDVEC_VALUE_STR;
  if (is_int) {
    if (id < -1 || id >= m->ncam) {
      snprintf(err, n,
               "camera: id %ld is out of range: the model has %d camera(s), so ids lie in [-1, %d] (-1: the "
               "free camera)",
               id, (int)m->ncam, (int)m->ncam - 1);
      return -1;
    }
    r->camera_id = (int)id;
    return 0;
  }
  int k = mj_name2id(m, mjOBJ_CAMERA, px->camera);
  if (k < 0) {
    int len = snprintf(err, n, "camera: the model has no camera named '%s'; its cameras are:", px->camera);
    for (int c = 0; c < (int)m->ncam && len >= 0 && (size_t)len < n; c++) {
      const char *name = mj_id2name(m, mjOBJ_CAMERA, c);
      len += snprintf(err + len, n - (size_t)len, "%s %d%s%s%s", c ? "," : "", c, name ? " ('" : "", name ? name : "",
                      name ? "')" : "");
    }
    if (m->ncam == 0 && len >= 0 && (size_t)len < n)
      snprintf(err + len, n - (size_t)len, " none (use -1, the free camera)");
    return -1;
  }
  r->camera_id = k;
  return 0;
}

/* Load EGL and check the frame size against the GL limits on a probe context; return a code. */
static int probe_gl(mdv_render *r, const mjModel *m, char *err, size_t n) {
  if (mdv_egl_open(&r->egl, err, n)) return MDVEC_ERR_GL;
  void *ctx = mdv_egl_context(r->egl, err, n);
  if (!ctx) return MDVEC_ERR_GL;
  mdv_egl_current saved;
  mdv_egl_save(r->egl, &saved);
  int side = 0;
  const char *name = "";
  int code = mdv_egl_make_current(r->egl, ctx, err, n) ? MDVEC_ERR_GL : MDVEC_OK;
  if (code == MDVEC_OK) {
    mdv_egl_limits(r->egl, &side, &name);
    snprintf(r->renderer, sizeof r->renderer, "%s", name);
  }
  mdv_egl_restore(r->egl, &saved);
  mdv_egl_destroy(r->egl, ctx);
  if (code != MDVEC_OK) return code;
  int w = r->px.width, h = r->px.height; /* the offscreen buffer's size (make_objects) */
  if (!frame_sized(r) && w < m->vis.global.offwidth) w = m->vis.global.offwidth;
  if (!frame_sized(r) && h < m->vis.global.offheight) h = m->vis.global.offheight;
  if (side <= 0 || w > side || h > side) {
    snprintf(err, n,
             "%s: %d pixels is beyond the GL limit of this renderer (%s): frames and MuJoCo's offscreen buffer "
             "(the model's offwidth x offheight %d x %d, grown to the frame) may be at most %d x %d",
             w > side ? "width" : "height", w > side ? w : h, r->renderer, m->vis.global.offwidth,
             m->vis.global.offheight, side, side);
    return MDVEC_ERR_CONFIG;
  }
  return MDVEC_OK;
}

int mdv_render_create(mdv_render **out, mdv_pixels_cfg *px, const mdv_task *task, const mjModel *m, int num_envs,
                      int threads, int same_step, char *err, size_t n) {
  *out = NULL;
  mdv_render *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, n, "out of memory");
    return MDVEC_ERR_NOMEM;
  }
  r->px = *px;
  px->camera = NULL; /* taken */
  r->decl = task->camera;
  r->draw = r->decl ? r->decl->draw : 0;
  r->num_envs = num_envs;
  r->threads = threads;
  r->frame_bytes = (size_t)r->px.width * (size_t)r->px.height * 3;
  r->env_bytes = r->frame_bytes * (size_t)r->px.frame_stack; /* mdv_render_check_memory checked the products */
  r->max_geom = r->draw == MDV_DRAW_GYM ? GYM_MAX_GEOM : MORE_MAX_GEOM;
  mjv_defaultOption(&r->opt);
  if (r->draw == MDV_DRAW_DM) r->opt.flags[mjVIS_RANGEFINDER] = 0; /* dm_control's wrapper.MjvOption */
  int code = resolve_camera(r, m, err, n) ? MDVEC_ERR_CONFIG : MDVEC_OK;
  if (code == MDVEC_OK) code = probe_gl(r, m, err, n);
  if (code == MDVEC_OK) {
    size_t all = r->env_bytes * (size_t)num_envs;
    r->pixels = calloc(1, all ? all : 1);
    r->final_pixels = same_step ? calloc(1, all ? all : 1) : NULL;
    r->cams = calloc((size_t)num_envs, sizeof *r->cams);
    r->cam_ready = calloc((size_t)num_envs, 1);
    r->scenes = calloc((size_t)num_envs, sizeof *r->scenes);
    r->scene_made = calloc((size_t)num_envs, 1);
    r->th = calloc((size_t)threads + 1, sizeof *r->th);
    if (!r->pixels || (same_step && !r->final_pixels) || !r->cams || !r->cam_ready || !r->scenes || !r->scene_made ||
        !r->th) {
      code = MDVEC_ERR_NOMEM;
      snprintf(err, n, "pixels: out of memory for %zu bytes of frames", all * (same_step ? 2 : 1));
    }
  }
  if (code != MDVEC_OK) {
    mdv_render_free(r);
    return code;
  }
  *out = r;
  return MDVEC_OK;
}

void mdv_render_free(mdv_render *r) {
  if (!r) return;
  mdv_pixels_cfg_free(&r->px);
  if (r->scenes)
    for (int i = 0; i < r->num_envs; i++)
      if (r->scene_made[i]) mjv_freeScene(&r->scenes[i]); /* CPU memory: freed even where GL was abandoned */
  free(r->scenes);
  free(r->scene_made);
  free(r->th);
  free(r->pixels);
  free(r->final_pixels);
  free(r->cams);
  free(r->cam_ready);
  mdv_egl_close(r->egl);
  free(r);
}

/* Record a failure of thread t (the first one wins). */
static void fail_thread(rthread *th, const char *msg) {
  if (!th->failed) snprintf(th->error, sizeof th->error, "%s", msg);
  th->failed = 1;
}

void mdv_render_begin(mdv_render *r, int thread) {
  rthread *th = &r->th[thread];
  if (th->failed) return;
  char msg[512];
  int fresh = !th->context;
  if (fresh && !(th->context = mdv_egl_context(r->egl, msg, sizeof msg))) {
    fail_thread(th, msg);
    return;
  }
  if (floating(r, thread)) {
    mdv_egl_save(r->egl, &th->saved);
    th->bound = 1;
  }
  if ((floating(r, thread) || fresh) && mdv_egl_make_current(r->egl, th->context, msg, sizeof msg)) {
    char full[600];
    snprintf(full, sizeof full, "%s (thread %d)", msg, thread);
    fail_thread(th, full);
  }
}

void mdv_render_end(mdv_render *r, int thread) {
  rthread *th = &r->th[thread];
  if (!th->failed && th->context) {
    unsigned code = mdv_egl_gl_error(r->egl);
    if (code == 0x0505 || code == 0x0507) { /* GL_OUT_OF_MEMORY, GL_CONTEXT_LOST: nothing drawn is trustworthy */
      char msg[256];
      snprintf(msg, sizeof msg, "pixels: OpenGL reported %s while drawing on thread %d; make a new environment",
               mdv_egl_error_name(code), thread);
      fail_thread(th, msg);
    }
  }
  if (floating(r, thread) && th->bound) {
    mdv_egl_restore(r->egl, &th->saved);
    th->bound = 0;
  }
}

/* Make thread t's mjrContext from model m (its offscreen buffer grown to the frame, as Gymnasium 1.4's
 * MujocoEnv and dm_control grow the model's, or set to the frame's size, as Gymnasium 1.2's MujocoEnv sets
 * it); a MuJoCo error fails the thread. */
static void make_objects(mdv_render *r, rthread *th, const mjModel *m) {
  mjModel grown = *m; /* a shallow copy: mjr_makeContext only reads the model */
  if (frame_sized(r) || grown.vis.global.offwidth < r->px.width) grown.vis.global.offwidth = r->px.width;
  if (frame_sized(r) || grown.vis.global.offheight < r->px.height) grown.vis.global.offheight = r->px.height;
  mdv_trap trap;
  mdv_trap_begin(&trap);
  if (setjmp(trap.env) == 0) {
    mjr_defaultContext(&th->con);
    th->made = 1;
    mjr_makeContext(&grown, &th->con, mjFONTSCALE_150);
    mjr_setBuffer(mjFB_OFFSCREEN, &th->con);
  } else {
    char msg[600];
    snprintf(msg, sizeof msg, "pixels: MuJoCo could not make its GL objects: %s", trap.message);
    fail_thread(th, msg);
  }
  mdv_trap_end(&trap);
}

/* Return the median of the n values x[k * stride + axis] (numpy's: the mean of the two middle ones for
 * an even n, (a + b) / 2). */
static double median(const mjtNum *x, int n, int stride, int axis, mjtNum *scratch) {
  for (int k = 0; k < n; k++) {
    mjtNum v = x[(size_t)k * (size_t)stride + (size_t)axis];
    int j = k;
    for (; j > 0 && scratch[j - 1] > v; j--) scratch[j] = scratch[j - 1]; /* insertion sort: ngeom is small */
    scratch[j] = v;
  }
  if (n == 0) return 0.0;
  return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2.0;
}

/* Set up env i's camera on its first frame, as the reference sets up its viewer on its first render. */
static void setup_camera(mdv_render *r, int i, const mjModel *m, const mjData *d) {
  mjvCamera *cam = &r->cams[i];
  mjv_defaultCamera(cam);
  const mdv_camera *c = r->decl;
  if (r->draw == MDV_DRAW_GYM) {
    /* OffScreenViewer._init_camera: a free camera on the median geom position at distance extent ... */
    cam->type = mjCAMERA_FREE;
    cam->fixedcamid = -1;
    mjtNum *scratch = mju_malloc(sizeof(mjtNum) * (size_t)(m->ngeom > 0 ? m->ngeom : 1));
    for (int a = 0; a < 3; a++) cam->lookat[a] = median(d->geom_xpos, m->ngeom, 3, a, scratch);
    mju_free(scratch);
    cam->distance = m->stat.extent;
    /* ... then MujocoRenderer._set_cam_config: DEFAULT_CAMERA_CONFIG's keys */
    if (c->set & MDV_CAM_TRACKBODYID) cam->trackbodyid = c->trackbodyid;
    if (c->set & MDV_CAM_DISTANCE) cam->distance = c->distance;
    if (c->set & MDV_CAM_AZIMUTH) cam->azimuth = c->azimuth;
    if (c->set & MDV_CAM_ELEVATION) cam->elevation = c->elevation;
    if (c->set & MDV_CAM_LOOKAT)
      for (int a = 0; a < 3; a++) cam->lookat[a] = c->lookat[a];
    /* ... and OffScreenViewer.render's camera_id */
    cam->type = r->camera_id == -1 ? mjCAMERA_FREE : mjCAMERA_FIXED;
    cam->fixedcamid = r->camera_id;
  } else if (r->camera_id >= 0) { /* dm_control's Camera, mujoco.Renderer: a model camera */
    cam->type = mjCAMERA_FIXED;
    cam->fixedcamid = r->camera_id;
  } else if (r->draw == MDV_DRAW_DM || (r->px.camera && !r->decl)) { /* the free camera (-1 asked for) */
    cam->fixedcamid = -1;
    cam->type = mjCAMERA_FREE;
    mjv_defaultFreeCamera(m, cam);
  } else { /* mdvec's own default (mdvec._shared.FrameRenderer): tracking the robot's root */
    mjv_defaultFreeCamera(m, cam);
    cam->type = mjCAMERA_TRACKING;
    cam->trackbodyid = m->nbody > 1 ? 1 : 0;
    cam->distance = 2.2 * m->stat.extent;
    cam->elevation = -20.0;
    cam->azimuth = 135.0;
  }
  r->cam_ready[i] = 1;
}

/* Make env i's scene (CPU memory only), on the thread that draws it; a MuJoCo error fails the thread. */
static void make_scene(mdv_render *r, rthread *th, int i, const mjModel *m) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  if (setjmp(trap.env) == 0) {
    mjv_defaultScene(&r->scenes[i]);
    mjv_makeScene(m, &r->scenes[i], r->max_geom);
    r->scene_made[i] = 1;
  } else {
    char msg[600];
    snprintf(msg, sizeof msg, "pixels: MuJoCo could not make env %d's scene: %s", i, trap.message);
    fail_thread(th, msg);
  }
  mdv_trap_end(&trap);
}

void mdv_render_frame(mdv_render *r, int thread, int i, const mjModel *m, const mjData *d, int what) {
  rthread *th = &r->th[thread];
  if (th->failed || !th->context) return;
  if (!th->made) make_objects(r, th, m);
  if (th->failed) return;
  if (!r->cam_ready[i]) setup_camera(r, i, m, d);
  if (!r->scene_made[i]) make_scene(r, th, i, m);
  if (th->failed) return;
  uint8_t *row = r->pixels + (size_t)i * r->env_bytes;
  size_t fb = r->frame_bytes, stack = (size_t)r->px.frame_stack;
  uint8_t *last = row + (stack - 1) * fb;
  if (what == MDV_FRAME_STEP && stack > 1) memmove(row, row + fb, (stack - 1) * fb); /* one frame older */
  mjrRect viewport = {0, 0, r->px.width, r->px.height};
  mjv_updateScene(m, (mjData *)d, &r->opt, NULL, &r->cams[i], mjCAT_ALL, &r->scenes[i]);
  mjr_render(viewport, &r->scenes[i], &th->con);
  mjr_readPixels(last, NULL, viewport, &th->con);
  size_t line = (size_t)r->px.width * 3; /* rows come bottom first: flip them, as the references do */
  for (int top = 0, bottom = r->px.height - 1; top < bottom; top++, bottom--) {
    uint8_t *a = last + (size_t)top * line, *b = last + (size_t)bottom * line;
    for (size_t k = 0; k < line; k++) {
      uint8_t t = a[k];
      a[k] = b[k];
      b[k] = t;
    }
  }
  if (what == MDV_FRAME_RESET)
    for (size_t k = 0; k + 1 < stack; k++) memcpy(row + k * fb, last, fb);
}

void mdv_render_keep_final(mdv_render *r, int i) {
  if (r->final_pixels)
    memcpy(r->final_pixels + (size_t)i * r->env_bytes, r->pixels + (size_t)i * r->env_bytes, r->env_bytes);
}

/* Free slot `slot`'s GL objects and context; a floating slot's on this thread (it is current nowhere). */
static void free_slot(mdv_render *r, int slot) {
  rthread *th = &r->th[slot];
  if (!th->context) return;
  char msg[512];
  mdv_egl_current saved;
  int fl = floating(r, slot);
  if (fl) mdv_egl_save(r->egl, &saved);
  int current = fl ? !mdv_egl_make_current(r->egl, th->context, msg, sizeof msg) : !th->failed;
  if (th->made && current) mjr_freeContext(&th->con); /* its GL objects: only with their context current */
  th->made = 0;
  if (fl) mdv_egl_restore(r->egl, &saved);
  mdv_egl_destroy(r->egl, th->context); /* releases it first where it is current (a worker) */
  th->context = NULL;
}

void mdv_render_thread_free(mdv_render *r, int thread) {
  free_slot(r, thread);
  if (thread == 0) free_slot(r, r->threads); /* the stand-in's, current nowhere between its items */
}

int mdv_render_status(const mdv_render *r, char *msg, size_t n) {
  for (int t = 0; r && t <= r->threads; t++) {
    if (r->th[t].failed) {
      snprintf(msg, n, "%s", r->th[t].error);
      return MDVEC_ERR_GL;
    }
  }
  return MDVEC_OK;
}

const uint8_t *mdv_render_pixels(const mdv_render *r) {
  return r ? r->pixels : NULL;
}

const uint8_t *mdv_render_final_pixels(const mdv_render *r) {
  return r ? (r->final_pixels ? r->final_pixels : r->pixels) : NULL;
}

void mdv_render_info(const mdv_render *r, const mdv_pixels_cfg *px, mdvec_pixels_info_t *info) {
  info->obs_mode = px->obs_mode;
  info->width = r ? r->px.width : 0;
  info->height = r ? r->px.height : 0;
  info->frame_stack = r ? r->px.frame_stack : 0;
  info->camera_id = r ? r->camera_id : -1;
  info->frame_bytes = r ? r->frame_bytes : 0;
  info->env_bytes = r ? r->env_bytes : 0;
  info->renderer = r ? r->renderer : NULL;
}

void mdv_render_lose_context(mdv_render *r) {
  rthread *th = &r->th[0];
  if (!th->context) return;
  mdv_egl_destroy(r->egl, th->context);
  /* the pointer stays: the next begin finds a destroyed context, as after a lost one */
}
