/* egl.h: EGL and the few OpenGL entry points the renderer needs, loaded at run time (internal).
 *
 * libmdvec links no GL library: a handle that renders pixel observations dlopens libEGL.so.1 (the
 * library MUJOCO_GL=egl uses) when it is created, and a state-only handle never does. The display is
 * the one MuJoCo's Python package picks (mujoco/egl/__init__.py): an EGL device through
 * EGL_EXT_platform_device, the first that initialises, or the one MUJOCO_EGL_DEVICE_ID names, with the
 * same framebuffer configuration (RGBA8, depth 24, stencil 8, pbuffer, desktop OpenGL). Contexts are
 * surfaceless (EGL_NO_SURFACE, as MuJoCo's): MuJoCo draws into its own offscreen framebuffer.
 *
 * The display is shared with every other EGL user of the process (eglGetPlatformDisplayEXT returns
 * one display per device), so it is never terminated here: eglTerminate would destroy the contexts of
 * others (a Gymnasium renderer in the same process). Contexts are created and destroyed per handle.
 */
#ifndef MDV_EGL_H
#define MDV_EGL_H

#include <stddef.h>
#include <stdint.h>

/* The library to load; the environment variable MDVEC_LIBEGL names another (a path or a soname). */
#define MDV_EGL_LIBRARY "libEGL.so.1"

/* The hint every failure message ends with. */
#define MDV_EGL_HINT                                                                                               \
  "pixel observations are rendered headless with EGL (what MUJOCO_GL=egl uses), whatever MUJOCO_GL says; install " \
  "an EGL driver: Mesa's software one (apt install libegl1 libgl1-mesa-dri) or your GPU driver's"

typedef struct mdv_egl_ mdv_egl; /* the loaded library, the display and its configuration */

typedef struct mdv_egl_current_ { /* the EGL binding of a thread, saved to be put back */
  void *display;                  /* EGLDisplay */
  void *draw, *read;              /* EGLSurface */
  void *context;                  /* EGLContext */
  unsigned api;                   /* EGLenum from eglQueryAPI */
} mdv_egl_current;

/* Load EGL, pick and initialise the display and choose the configuration; return 0 and set *out, or
 * -1 with a message in err (no library, no device, no configuration) that names what to install. */
int mdv_egl_open(mdv_egl **out, char *err, size_t n);

/* Unload (the display stays initialised for the process's other EGL users); NULL is a no-op. */
void mdv_egl_close(mdv_egl *e);

/* Return a new context (not current anywhere), or NULL with a message in err. */
void *mdv_egl_context(mdv_egl *e, char *err, size_t n);

/* Destroy a context made by mdv_egl_context that is current on no thread but maybe the calling one (it
 * is released there first); NULL is a no-op. */
void mdv_egl_destroy(mdv_egl *e, void *context);

/* Make context current on the calling thread (binding desktop OpenGL); return 0, or -1 with a message
 * naming EGL's error (EGL_CONTEXT_LOST, EGL_BAD_CONTEXT for a destroyed one, ...). */
int mdv_egl_make_current(mdv_egl *e, void *context, char *err, size_t n);

/* Save the calling thread's current EGL binding (none: all NULL). */
void mdv_egl_save(const mdv_egl *e, mdv_egl_current *cur);

/* Put back a binding saved by mdv_egl_save (none: release the thread's context); return 0 or -1. */
int mdv_egl_restore(const mdv_egl *e, const mdv_egl_current *cur);

/* The current context's limits on a framebuffer side: min(GL_MAX_RENDERBUFFER_SIZE, GL_MAX_VIEWPORT_DIMS,
 * GL_MAX_TEXTURE_SIZE) in *side; also its GL_RENDERER text (static, or "") in *renderer. */
void mdv_egl_limits(const mdv_egl *e, int *side, const char **renderer);

/* Return glGetError() of the current context, or 0 (GL_NO_ERROR). */
unsigned mdv_egl_gl_error(const mdv_egl *e);

/* Return the name of an EGL or GL error code ("EGL_CONTEXT_LOST", "GL_OUT_OF_MEMORY", ...). */
const char *mdv_egl_error_name(unsigned code);

#endif /* MDV_EGL_H */
