/* Generic model loading: the built-in files embedded in the library, MJCF files, the version check,
 * trapped MuJoCo allocations (see model.h). */
#include "model.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Load an embedded MJCF file through a one-file VFS. */
static mjModel *load_builtin(const char *file, int *code, char *err, size_t err_size) {
  const mdv_embedded_file *f = mdv_embedded(file);
  if (!f) {
    set_code(code, MDVEC_ERR_MODEL);
    snprintf(err, err_size, "model: built-in file %s unavailable", file);
    return NULL;
  }
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!vfs) {
    set_code(code, MDVEC_ERR_NOMEM);
    snprintf(err, err_size, "model: out of memory loading built-in %s", file);
    return NULL;
  }
  mj_defaultVFS(vfs);
  char mjerr[512] = "";
  mjModel *m = NULL;
  if (mj_addBufferVFS(vfs, file, f->data, (int)f->size) == 0) {
    m = load_trapped(file, vfs, mjerr, sizeof mjerr);
  } else {
    snprintf(mjerr, sizeof mjerr, "could not add it to a VFS (out of memory)");
  }
  mj_deleteVFS(vfs);
  free(vfs);
  if (!m) {
    set_code(code, mdv_trap_is_nomem(mjerr) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
    snprintf(err, err_size, "model: built-in %s failed to load: %s", file, mjerr);
  }
  return m;
}

mjModel *mdv_model_load(const char *builtin, const char *path, int *code, char *err, size_t err_size) {
  set_code(code, MDVEC_OK);
  if (!path) return load_builtin(builtin, code, err, err_size);
  set_code(code, MDVEC_ERR_MODEL);
  struct stat st;  /* before MuJoCo opens it: a directory reads as "over 2GB", a FIFO blocks forever */
  if (stat(path, &st) != 0) {
    snprintf(err, err_size, "model: %s: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, err_size, "model: %s is %s, not an MJCF file", path,
             S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file");
    return NULL;
  }
  char mjerr[512] = "";
  mjModel *m = load_trapped(path, NULL, mjerr, sizeof mjerr);
  if (!m) {
    set_code(code, mdv_trap_is_nomem(mjerr) ? MDVEC_ERR_NOMEM : MDVEC_ERR_MODEL);
    snprintf(err, err_size, "model: %s failed to load: %s", path, mjerr);
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
static size_t add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

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

int mdv_model_check_version(char *err, size_t err_size) {
  if (mj_version() == mjVERSION_HEADER) return 0;
  snprintf(err, err_size, "MuJoCo header version %d differs from the loaded library's %d; rebuild mdvec "
           "against this MuJoCo", mjVERSION_HEADER, mj_version());
  return -1;
}
