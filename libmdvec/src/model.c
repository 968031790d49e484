/* Generic model loading: the built-in files embedded in the library, MJCF files, the version check,
 * trapped MuJoCo allocations (see model.h). */
#include "model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mdvec.h"
#include "trap.h"

const mdv_embedded_file *mdv_embedded(const char *name) {
  for (const mdv_embedded_file *f = mdv_embedded_files; f->name; f++) {
    if (!strcmp(f->name, name)) return f;
  }
  return NULL;
}

static void set_code(int *code, int value) {
  if (code) *code = value;
}

/*---------------------------------- Loads and forks ----------------------------------------------*/
/* The one piece of process-wide mutable state in libmdvec, because a fork is process-wide: mj_loadXML
 * takes libmujoco's own global locks while it runs (seen in a hung child: the lock of the last loaded
 * spec, which mj_saveLastXML reads), and a fork made by another thread meanwhile leaves them locked for
 * good in the child, whose first load then blocks forever. So every load here (VFS, parse, compile) holds
 * g_load_lock, and a pthread_atfork prepare handler takes it too: a fork waits for a load in progress,
 * and no load starts until the fork is done (the parent and child handlers release it).
 * Lock order: g_load_lock is a leaf. Nothing else is locked while it is held (no libmdvec lock, no
 * caller's callback), and a load never forks, so the prepare handler never runs on a thread holding it.
 * Loads made by others in the process (the mujoco Python package's MjModel.from_xml_path) do not take
 * it: a fork during one of them can still leave libmujoco's lock held in the child. */
static pthread_mutex_t g_load_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_load_atfork_once = PTHREAD_ONCE_INIT;

static void load_fork_prepare(void) {
  pthread_mutex_lock(&g_load_lock);
}

static void load_fork_release(void) { /* in the parent, and in the child (the same thread, now its only one) */
  pthread_mutex_unlock(&g_load_lock);
}

static void register_load_atfork(void) {
  pthread_atfork(load_fork_prepare, load_fork_release, load_fork_release);
}

/* Start a load: no fork can happen until load_end. */
static void load_begin(void) {
  pthread_once(&g_load_atfork_once, register_load_atfork);
  pthread_mutex_lock(&g_load_lock);
}

static void load_end(void) {
  pthread_mutex_unlock(&g_load_lock);
}

/* mj_loadXML(file, vfs) with this thread's MuJoCo messages trapped; NULL with a message in mjerr on error. */
static mjModel *load_trapped(const char *file, const mjVFS *vfs, char *mjerr, int mjerr_size) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  mjModel *volatile m = NULL;
  if (setjmp(trap.env) == 0) {
    m = mj_loadXML(file, vfs, mjerr, mjerr_size);
  } else {
    snprintf(mjerr, (size_t)mjerr_size, "%s", trap.message);
  }
  mdv_trap_end(&trap);
  return m;
}

/* Load MJCF text of size bytes, named file, through a one-file VFS (it can include no other file). */
static mjModel *load_buffer(const char *file, const char *data, size_t size, int *code, char *err, size_t err_size) {
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!vfs) {
    set_code(code, MDVEC_ERR_NOMEM);
    snprintf(err, err_size, "model: out of memory loading built-in %s", file);
    return NULL;
  }
  load_begin();
  mj_defaultVFS(vfs);
  char mjerr[512] = "";
  mjModel *m = NULL;
  if (size > INT_MAX) {
    snprintf(mjerr, sizeof mjerr, "larger than 2 GB");
  } else if (mj_addBufferVFS(vfs, file, data, (int)size) == 0) {
    m = load_trapped(file, vfs, mjerr, sizeof mjerr);
  } else {
    snprintf(mjerr, sizeof mjerr, "could not add it to a VFS (out of memory)");
  }
  mj_deleteVFS(vfs);
  load_end();
  free(vfs);
  if (!m) {
    set_code(code, mdv_trap_is_nomem(mjerr) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
    snprintf(err, err_size, "model: built-in %s failed to load: %s", file, mjerr);
  }
  return m;
}

/* Load an embedded MJCF file through a one-file VFS. */
static mjModel *load_builtin(const char *file, int *code, char *err, size_t err_size) {
  const mdv_embedded_file *f = mdv_embedded(file);
  if (!f) {
    set_code(code, MDVEC_ERR_MODEL);
    snprintf(err, err_size, "model: built-in file %s unavailable", file);
    return NULL;
  }
  return load_buffer(file, f->data, f->size, code, err, err_size);
}

mjModel *mdv_model_load_string(const char *name, const char *xml, int *code, char *err, size_t err_size) {
  set_code(code, MDVEC_OK);
  return load_buffer(name, xml, strlen(xml), code, err, err_size);
}

/*---------------------------------- Files MuJoCo opens --------------------------------------------*/
/* MuJoCo opens the model's <include>s, meshes, textures and other assets itself. So that each of them
 * must be a regular file (a FIFO would block the create forever, a directory reads as garbage), the
 * load runs on a VFS whose providers, mounted on every directory under "/", open each file with
 * O_NONBLOCK, check it with fstat and read it whole. The first refusal's reason is kept in the load's
 * guard (the providers' data) for the error message. */

typedef struct {                /* one load's provider and its first refusal; lives as long as the load */
  mjpResourceProvider provider; /* mounted by pointer: MuJoCo keeps the address, not a copy */
  char why[600];                /* the first file refused, and why */
} load_guard;
typedef struct {
  void *bytes;
  int size;
} opened; /* one open resource */

static int guarded_open(mjResource *r) {
  load_guard *g = r->provider ? r->provider->data : NULL;
  const char *why = NULL;
  struct stat st;
  int fd = open(r->name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  opened *o = NULL;
  if (fd < 0)
    why = strerror(errno);
  else if (fstat(fd, &st) != 0)
    why = strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file";
  else if (st.st_size > INT_MAX)
    why = "larger than 2 GB";
  else if (!(o = calloc(1, sizeof *o)) || !(o->bytes = malloc(st.st_size ? (size_t)st.st_size : 1)))
    why = "out of memory";
  else {
    size_t got = 0;
    while (got < (size_t)st.st_size) {
      ssize_t k = read(fd, (char *)o->bytes + got, (size_t)st.st_size - got);
      if (k <= 0) break;
      got += (size_t)k;
    }
    if (got == (size_t)st.st_size)
      o->size = (int)got;
    else
      why = "could not be read whole";
  }
  if (fd >= 0) close(fd);
  if (why) {
    if (g && !g->why[0]) snprintf(g->why, sizeof g->why, "%.400s is %s", r->name, why);
    if (o) free(o->bytes);
    free(o);
    return 0;
  }
  r->data = o;
  return 1;
}

static int guarded_read(mjResource *r, const void **buffer) {
  const opened *o = r->data;
  *buffer = o->bytes;
  return o->size;
}

static void guarded_close(mjResource *r) {
  opened *o = r->data;
  if (o) free(o->bytes);
  free(o);
  r->data = NULL;
}

#if mjVERSION_HEADER < 4000000
/* MuJoCo 3.x's mj_mountVFS calls the provider's mount callback without checking it for NULL (its header
 * calls it optional; 4.0 skips a NULL one): a mount that does nothing, leaving r->data NULL as ~VFS wants. */
static int guarded_mount(mjResource *r) {
  (void)r;
  return 1;
}
#endif

/* Mount g's guarded provider on every directory under "/" of vfs; return 0, or -1 (out of memory). g must
 * outlive the load (MuJoCo keeps a pointer to the provider). */
static int guard_vfs(mjVFS *vfs, load_guard *g) {
  mjpResourceProvider *p = &g->provider;
  mjp_defaultProvider(p);
  p->open = guarded_open;
  p->read = guarded_read;
  p->close = guarded_close;
#if mjVERSION_HEADER < 4000000
  p->mount = guarded_mount;
#endif
  p->data = g;
  DIR *root = opendir("/");
  if (!root) return 0; /* nothing to mount on: MuJoCo's own opening applies */
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(root));) {
    char dir[512];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(dir, sizeof dir, "/%s", e->d_name);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    int m = mj_mountVFS(vfs, dir, p);
    if (m != 0 && m != 2) rc = -1;
  }
  closedir(root);
  return rc;
}

mjModel *mdv_model_load(const char *builtin, const char *path, int *code, char *err, size_t err_size) {
  set_code(code, MDVEC_OK);
  if (!path) return load_builtin(builtin, code, err, err_size);
  set_code(code, MDVEC_ERR_MODEL);
  struct stat st; /* before MuJoCo opens it: a directory reads as "over 2GB", a FIFO blocks forever */
  if (stat(path, &st) != 0) {
    snprintf(err, err_size, "model: %s: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, err_size, "model: %s is %s, not an MJCF file", path,
             S_ISDIR(st.st_mode)    ? "a directory"
             : S_ISFIFO(st.st_mode) ? "a FIFO"
                                    : "not a regular file");
    return NULL;
  }
  char absolute[PATH_MAX], cwd[PATH_MAX]; /* the providers match absolute names */
  int len = path[0] != '/' && getcwd(cwd, sizeof cwd) ? snprintf(absolute, sizeof absolute, "%s/%s", cwd, path)
                                                      : snprintf(absolute, sizeof absolute, "%s", path);
  if (len < 0 || (size_t)len >= sizeof absolute) {
    snprintf(err, err_size, "model: %.200s...: the path is longer than %d bytes", path, PATH_MAX);
    return NULL;
  }
  load_guard guard;
  memset(&guard, 0, sizeof guard);
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!vfs) {
    set_code(code, MDVEC_ERR_NOMEM);
    snprintf(err, err_size, "model: out of memory loading %s", path);
    return NULL;
  }
  load_begin();
  mj_defaultVFS(vfs);
  char mjerr[512] = "";
  mjModel *m = NULL;
  if (guard_vfs(vfs, &guard) == 0)
    m = load_trapped(absolute, vfs, mjerr, sizeof mjerr);
  else
    snprintf(mjerr, sizeof mjerr, "out of memory mounting its files");
  mj_deleteVFS(vfs);
  load_end();
  free(vfs);
  if (!m) {
    set_code(code, mdv_trap_is_nomem(mjerr) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
    size_t end = strlen(mjerr);
    while (end && (mjerr[end - 1] == '\n' || mjerr[end - 1] == ' ')) mjerr[--end] = 0; /* MuJoCo ends with a newline */
    snprintf(err, err_size, "model: %s failed to load: %s%s%s", path, mjerr, guard.why[0] ? " (" : "",
             guard.why[0] ? guard.why : "");
    if (guard.why[0] && strlen(err) + 1 < err_size) strcat(err, ")");
    return NULL;
  }
  set_code(code, MDVEC_OK);
  return m;
}

/* Parse, edit and compile files[0] on vfs with this thread's MuJoCo messages trapped; NULL with a message. */
static mjModel *compile_trapped(const char *file, const mjVFS *vfs, mdv_spec_edit edit, const void *ctx, char *why,
                                size_t n) {
  mdv_trap trap;
  mdv_trap_begin(&trap);
  mjSpec *volatile spec = NULL;
  mjModel *volatile m = NULL;
  if (setjmp(trap.env) == 0) {
    spec = mj_parseXML(file, vfs, why, (int)n);
    if (spec && (!edit || edit(spec, ctx, why, n) == 0)) {
      m = mj_compile(spec, vfs);
      if (!m) snprintf(why, n, "%s", mjs_getError(spec));
    }
  } else {
    snprintf(why, n, "%s", trap.message);
  }
  if (spec) mj_deleteSpec(spec);
  mdv_trap_end(&trap);
  return m;
}

mjModel *mdv_model_load_files(const char *what, const mdv_model_file *files, int n, mdv_spec_edit edit, const void *ctx,
                              int *code, char *err, size_t err_size) {
  set_code(code, MDVEC_ERR_MODEL);
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!vfs) {
    set_code(code, MDVEC_ERR_NOMEM);
    snprintf(err, err_size, "model: out of memory loading %s", what);
    return NULL;
  }
  load_begin();
  mj_defaultVFS(vfs);
  char why[512] = "";
  mjModel *m = NULL;
  int added = 0;
  for (; added < n; added++) {
    if (files[added].size > INT_MAX) {
      snprintf(why, sizeof why, "%s is larger than 2 GB", files[added].name);
      break;
    }
    if (mj_addBufferVFS(vfs, files[added].name, files[added].data, (int)files[added].size) != 0) {
      snprintf(why, sizeof why, "could not add %s to a VFS (out of memory, or a name given twice)", files[added].name);
      break;
    }
  }
  if (added == n && n > 0) m = compile_trapped(files[0].name, vfs, edit, ctx, why, sizeof why);
  mj_deleteVFS(vfs);
  load_end();
  free(vfs);
  if (!m) {
    set_code(code, mdv_trap_is_nomem(why) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
    size_t end = strlen(why);
    while (end && (why[end - 1] == '\n' || why[end - 1] == ' ')) why[--end] = 0;
    snprintf(err, err_size, "model: %s failed to load: %s", what, why);
    return NULL;
  }
  set_code(code, MDVEC_OK);
  return m;
}

/* Return 0 when `bytes` can be allocated now (allocated and released), else -1. */
static int can_allocate(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  free(p);
  return p ? 0 : -1;
}

/* Add without wrapping (SIZE_MAX on overflow: it cannot be allocated). */
static size_t add(size_t a, size_t b) {
  return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Set the code and message of a trapped MuJoCo error or of a failed probe. */
static void alloc_failed(const char *what, const char *message, int *code, char *err, size_t err_size) {
  int nomem = !message || mdv_trap_is_nomem(message);
  set_code(code, nomem ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
  snprintf(err, err_size, "%s: %s", what, message ? message : "out of memory");
}

mjModel *mdv_model_copy(const mjModel *m, int *code, char *err, size_t err_size) {
  if (can_allocate(add(sizeof(mjModel), (size_t)m->nbuffer))) {
    alloc_failed("model copy", NULL, code, err, err_size);
    return NULL;
  }
  mdv_trap trap;
  mdv_trap_begin(&trap);
  mjModel *volatile copy = NULL;
  int trapped = setjmp(trap.env);
  if (!trapped) copy = mj_copyModel(NULL, m);
  mdv_trap_end(&trap);
  if (!copy) {
    alloc_failed("model copy", trapped ? trap.message : "mj_copyModel failed", code, err, err_size);
    return NULL;
  }
  set_code(code, MDVEC_OK);
  return copy;
}

mjData *mdv_data_make(const mjModel *m, int *code, char *err, size_t err_size) {
  /* mjData's buffer is not known before it is made; the arena, its big part, is */
  if (can_allocate(add(sizeof(mjData), (size_t)m->narena))) {
    alloc_failed("mjData", NULL, code, err, err_size);
    return NULL;
  }
  mdv_trap trap;
  mdv_trap_begin(&trap);
  mjData *volatile d = NULL;
  int trapped = setjmp(trap.env);
  if (!trapped) d = mj_makeData(m);
  mdv_trap_end(&trap);
  if (!d) {
    alloc_failed("mjData", trapped ? trap.message : "mj_makeData failed", code, err, err_size);
    return NULL;
  }
  set_code(code, MDVEC_OK);
  return d;
}

int mdv_model_check_timestep(const mjModel *m, int steps, const char *what, const char *task, const char *path,
                             char *err, size_t err_size) {
  double dt = m->opt.timestep * (double)steps;
  if (dt > 0.0 && dt < HUGE_VAL) return MDVEC_OK;
  snprintf(err, err_size,
           "%s: the model%s%s%s has timestep %g (MJCF <option timestep=\"...\">): a step lasts timestep x %s "
           "(%d), which must be positive and finite; give the model a positive timestep",
           task, path ? " '" : "", path ? path : "", path ? "'" : "", m->opt.timestep, what, steps);
  return MDVEC_ERR_MODEL;
}

int mdv_model_check_version(char *err, size_t err_size) {
  if (mj_version() == mjVERSION_HEADER) return 0;
  snprintf(err, err_size,
           "MuJoCo header version %d differs from the loaded library's %d; rebuild mdvec "
           "against this MuJoCo",
           mjVERSION_HEADER, mj_version());
  return -1;
}
