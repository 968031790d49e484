/* EGL and a few GL entry points loaded at run time (see egl.h). The types and constants below are
 * EGL 1.5's and OpenGL's own values, declared here so that building libmdvec needs no GL headers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* RTLD_NODELETE */
#endif
#include "egl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*---------------------------------- EGL's and GL's types and constants ----------------------------*/

typedef void *EGLDisplay, *EGLConfig, *EGLContext, *EGLSurface, *EGLDeviceEXT;
typedef int32_t EGLint;
typedef unsigned EGLBoolean, EGLenum;
typedef unsigned GLenum;
typedef int GLint;

#define EGL_SUCCESS              0x3000
#define EGL_ALPHA_SIZE           0x3021
#define EGL_BLUE_SIZE            0x3022
#define EGL_GREEN_SIZE           0x3023
#define EGL_RED_SIZE             0x3024
#define EGL_DEPTH_SIZE           0x3025
#define EGL_STENCIL_SIZE         0x3026
#define EGL_SURFACE_TYPE         0x3033
#define EGL_NONE                 0x3038
#define EGL_COLOR_BUFFER_TYPE    0x303F
#define EGL_RENDERABLE_TYPE      0x3040
#define EGL_EXTENSIONS           0x3055
#define EGL_DRAW                 0x3059
#define EGL_READ                 0x305A
#define EGL_RGB_BUFFER           0x308E
#define EGL_OPENGL_API           0x30A2
#define EGL_PLATFORM_DEVICE_EXT  0x313F
#define EGL_PBUFFER_BIT          0x0001
#define EGL_OPENGL_BIT           0x0008
#define GL_MAX_TEXTURE_SIZE      0x0D33
#define GL_MAX_VIEWPORT_DIMS     0x0D3A
#define GL_MAX_RENDERBUFFER_SIZE 0x84E8
#define GL_RENDERER              0x1F01

/*---------------------------------- The loaded library --------------------------------------------*/

struct mdv_egl_ {
  void *lib;          /* dlopen handle */
  EGLDisplay display; /* the device's display, initialised */
  EGLConfig config;   /* MuJoCo's framebuffer configuration */
  void *(*GetProcAddress)(const char *);
  EGLint (*GetError)(void);
  const char *(*QueryString)(EGLDisplay, EGLint);
  EGLBoolean (*Initialize)(EGLDisplay, EGLint *, EGLint *);
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
  EGLBoolean (*BindAPI)(EGLenum);
  EGLenum (*QueryAPI)(void);
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext);
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
  EGLContext (*GetCurrentContext)(void);
  EGLDisplay (*GetCurrentDisplay)(void);
  EGLSurface (*GetCurrentSurface)(EGLint);
  EGLBoolean (*QueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);
  GLenum (*glGetError)(void);
  void (*glGetIntegerv)(GLenum, GLint *);
  const unsigned char *(*glGetString)(GLenum);
};

const char *mdv_egl_error_name(unsigned code) {
  static const struct {
    unsigned code;
    const char *name;
  } names[] = {
    {0x3000, "EGL_SUCCESS"},          {0x3001, "EGL_NOT_INITIALIZED"},     {0x3002, "EGL_BAD_ACCESS"},
    {0x3003, "EGL_BAD_ALLOC"},        {0x3004, "EGL_BAD_ATTRIBUTE"},       {0x3005, "EGL_BAD_CONFIG"},
    {0x3006, "EGL_BAD_CONTEXT"},      {0x3007, "EGL_BAD_CURRENT_SURFACE"}, {0x3008, "EGL_BAD_DISPLAY"},
    {0x3009, "EGL_BAD_MATCH"},        {0x300C, "EGL_BAD_PARAMETER"},       {0x300D, "EGL_BAD_SURFACE"},
    {0x300E, "EGL_CONTEXT_LOST"},     {0x0500, "GL_INVALID_ENUM"},         {0x0501, "GL_INVALID_VALUE"},
    {0x0502, "GL_INVALID_OPERATION"}, {0x0505, "GL_OUT_OF_MEMORY"},        {0x0506, "GL_INVALID_FRAMEBUFFER_OPERATION"},
    {0x0507, "GL_CONTEXT_LOST"},
  };
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (names[k].code == code) return names[k].name;
  return "an unknown error";
}

/* Return nonzero when the space-separated list holds word. */
static int has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; p && (p = strstr(p, word)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

/* Pick the display as mujoco/egl does: the device MUJOCO_EGL_DEVICE_ID names, else the first of
 * eglQueryDevicesEXT's that initialises. Return 0 or -1 with a message. */
static int pick_display(mdv_egl *e, char *err, size_t n) {
  const char *ext = e->QueryString(NULL, EGL_EXTENSIONS);
  if (!ext || !has_word(ext, "EGL_EXT_platform_device") || !e->QueryDevicesEXT || !e->GetPlatformDisplayEXT) {
    snprintf(err, n,
             "pixels: this EGL (%s) lacks EGL_EXT_platform_device, which headless rendering needs (MuJoCo's "
             "MUJOCO_GL=egl needs it too); %s",
             MDV_EGL_LIBRARY, MDV_EGL_HINT);
    return -1;
  }
  EGLDeviceEXT devices[32];
  EGLint count = 0;
  if (!e->QueryDevicesEXT(32, devices, &count) || count < 1) {
    snprintf(err, n, "pixels: EGL lists no device (eglQueryDevicesEXT: %s); %s",
             mdv_egl_error_name((unsigned)e->GetError()), MDV_EGL_HINT);
    return -1;
  }
  int first = 0, last = count - 1;
  const char *id = getenv("MUJOCO_EGL_DEVICE_ID");
  if (id && *id) {
    char *end;
    errno = 0;
    long k = strtol(id, &end, 10);
    if (*end || errno || k < 0 || k >= count) {
      snprintf(err, n,
               "pixels: MUJOCO_EGL_DEVICE_ID is '%s'; it must be an integer between 0 and %d (inclusive): EGL lists "
               "%d device(s)",
               id, count - 1, (int)count);
      return -1;
    }
    first = last = (int)k;
  }
  unsigned last_error = EGL_SUCCESS;
  for (int k = first; k <= last; k++) {
    EGLDisplay d = e->GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[k], NULL);
    if (d && e->Initialize(d, NULL, NULL)) {
      e->display = d;
      return 0;
    }
    last_error = (unsigned)e->GetError();
  }
  snprintf(err, n, "pixels: no EGL device display could be initialised (%d tried, last error %s); %s", last - first + 1,
           mdv_egl_error_name(last_error), MDV_EGL_HINT);
  return -1;
}

int mdv_egl_open(mdv_egl **out, char *err, size_t n) {
  *out = NULL;
  const char *name = getenv("MDVEC_LIBEGL");
  if (!name || !*name) name = MDV_EGL_LIBRARY;
  mdv_egl *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(err, n, "pixels: out of memory");
    return -1;
  }
  /* NODELETE: the display stays initialised for the process (see egl.h), so its code must stay loaded */
  e->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!e->lib) {
    const char *why = dlerror();
    snprintf(err, n, "pixels: cannot load %s (%s); %s", name, why ? why : "dlopen failed", MDV_EGL_HINT);
    free(e);
    return -1;
  }
  *(void **)&e->GetProcAddress = dlsym(e->lib, "eglGetProcAddress");
  if (!e->GetProcAddress) {
    snprintf(err, n, "pixels: %s has no eglGetProcAddress: it is not an EGL library; %s", name, MDV_EGL_HINT);
    mdv_egl_close(e);
    return -1;
  }
  struct {
    void *slot;
    const char *name;
  } fns[] = {
    {&e->GetError, "eglGetError"},
    {&e->QueryString, "eglQueryString"},
    {&e->Initialize, "eglInitialize"},
    {&e->ChooseConfig, "eglChooseConfig"},
    {&e->BindAPI, "eglBindAPI"},
    {&e->QueryAPI, "eglQueryAPI"},
    {&e->CreateContext, "eglCreateContext"},
    {&e->DestroyContext, "eglDestroyContext"},
    {&e->MakeCurrent, "eglMakeCurrent"},
    {&e->GetCurrentContext, "eglGetCurrentContext"},
    {&e->GetCurrentDisplay, "eglGetCurrentDisplay"},
    {&e->GetCurrentSurface, "eglGetCurrentSurface"},
    {&e->glGetError, "glGetError"},
    {&e->glGetIntegerv, "glGetIntegerv"},
    {&e->glGetString, "glGetString"},
  };
  for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
    void *f = dlsym(e->lib, fns[k].name);
    if (!f) f = e->GetProcAddress(fns[k].name); /* GL entry points come through eglGetProcAddress */
    if (!f) {
      snprintf(err, n, "pixels: %s lacks %s; %s", name, fns[k].name, MDV_EGL_HINT);
      mdv_egl_close(e);
      return -1;
    }
    memcpy(fns[k].slot, &f, sizeof f);
  }
  void *f = e->GetProcAddress("eglQueryDevicesEXT");
  memcpy(&e->QueryDevicesEXT, &f, sizeof f);
  f = e->GetProcAddress("eglGetPlatformDisplayEXT");
  memcpy(&e->GetPlatformDisplayEXT, &f, sizeof f);
  if (pick_display(e, err, n)) {
    mdv_egl_close(e);
    return -1;
  }
  // clang-format off: MuJoCo's EGL_ATTRIBUTES (mujoco/egl/__init__.py), a pair per line
  static const EGLint attribs[] = {
    EGL_RED_SIZE, 8,
    EGL_GREEN_SIZE, 8,
    EGL_BLUE_SIZE, 8,
    EGL_ALPHA_SIZE, 8,
    EGL_DEPTH_SIZE, 24,
    EGL_STENCIL_SIZE, 8,
    EGL_COLOR_BUFFER_TYPE, EGL_RGB_BUFFER,
    EGL_SURFACE_TYPE, EGL_PBUFFER_BIT,
    EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
    EGL_NONE,
  };
  // clang-format on
  EGLint found = 0;
  if (!e->ChooseConfig(e->display, attribs, &e->config, 1, &found) || found < 1) {
    snprintf(err, n,
             "pixels: the EGL display has no RGBA8 / depth 24 / stencil 8 desktop-OpenGL pbuffer configuration "
             "(MuJoCo's); %s",
             MDV_EGL_HINT);
    mdv_egl_close(e);
    return -1;
  }
  *out = e;
  return 0;
}

void mdv_egl_close(mdv_egl *e) {
  if (!e) return;
  if (e->lib) dlclose(e->lib); /* NODELETE: drops the reference only */
  free(e);
}

void *mdv_egl_context(mdv_egl *e, char *err, size_t n) {
  EGLenum api = e->QueryAPI();
  e->BindAPI(EGL_OPENGL_API);
  EGLContext c = e->CreateContext(e->display, e->config, NULL, NULL);
  unsigned code = c ? EGL_SUCCESS : (unsigned)e->GetError();
  e->BindAPI(api);
  if (!c) snprintf(err, n, "pixels: eglCreateContext failed (%s); %s", mdv_egl_error_name(code), MDV_EGL_HINT);
  return c;
}

void mdv_egl_destroy(mdv_egl *e, void *context) {
  if (!context) return;
  if (e->GetCurrentContext() == context) e->MakeCurrent(e->display, NULL, NULL, NULL);
  e->DestroyContext(e->display, context);
}

int mdv_egl_make_current(mdv_egl *e, void *context, char *err, size_t n) {
  e->BindAPI(EGL_OPENGL_API);
  if (e->MakeCurrent(e->display, NULL, NULL, context)) return 0;
  unsigned code = (unsigned)e->GetError();
  snprintf(err, n, "pixels: eglMakeCurrent failed (%s)%s", mdv_egl_error_name(code),
           code == 0x300E ? ": the GL context was lost (a GPU reset or a driver error); make a new environment" : "");
  return -1;
}

void mdv_egl_save(const mdv_egl *e, mdv_egl_current *cur) {
  cur->api = e->QueryAPI();
  cur->context = e->GetCurrentContext();
  cur->display = cur->context ? e->GetCurrentDisplay() : NULL;
  cur->draw = cur->context ? e->GetCurrentSurface(EGL_DRAW) : NULL;
  cur->read = cur->context ? e->GetCurrentSurface(EGL_READ) : NULL;
}

int mdv_egl_restore(const mdv_egl *e, const mdv_egl_current *cur) {
  EGLBoolean ok = cur->context ? e->MakeCurrent(cur->display, cur->draw, cur->read, cur->context)
                               : e->MakeCurrent(e->display, NULL, NULL, NULL);
  if (cur->api) e->BindAPI(cur->api);
  return ok ? 0 : -1;
}

void mdv_egl_limits(const mdv_egl *e, int *side, const char **renderer) {
  GLint rb = 0, tex = 0, vp[2] = {0, 0};
  e->glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &rb);
  e->glGetIntegerv(GL_MAX_TEXTURE_SIZE, &tex);
  e->glGetIntegerv(GL_MAX_VIEWPORT_DIMS, vp);
  int s = rb;
  if (tex < s) s = tex;
  if (vp[0] < s) s = vp[0];
  if (vp[1] < s) s = vp[1];
  *side = s;
  const unsigned char *r = e->glGetString(GL_RENDERER);
  *renderer = r ? (const char *)r : "";
}

unsigned mdv_egl_gl_error(const mdv_egl *e) {
  return e->glGetError();
}
