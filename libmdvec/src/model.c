/* Generic model loading: the built-in files embedded in the library, MJCF files, the version check. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const mdv_embedded_file *mdv_embedded(const char *name) {
  for (const mdv_embedded_file *f = mdv_embedded_files; f->name; f++) {
    if (!strcmp(f->name, name)) return f;
  }
  return NULL;
}

/* Load an embedded MJCF file through a one-file VFS. */
static mjModel *load_builtin(const char *file, char *err, size_t err_size) {
  const mdv_embedded_file *f = mdv_embedded(file);
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!f || !vfs) {
    free(vfs);
    snprintf(err, err_size, "model: built-in file %s unavailable", file);
    return NULL;
  }
  mj_defaultVFS(vfs);
  char mjerr[512] = "";
  mjModel *m = NULL;
  if (mj_addBufferVFS(vfs, file, f->data, (int)f->size) == 0) {
    m = mj_loadXML(file, vfs, mjerr, sizeof mjerr);
  }
  mj_deleteVFS(vfs);
  free(vfs);
  if (!m) snprintf(err, err_size, "model: built-in %s failed to load: %s", file, mjerr);
  return m;
}

mjModel *mdv_model_load(const char *builtin, const char *path, char *err, size_t err_size) {
  if (!path) return load_builtin(builtin, err, err_size);
  char mjerr[512] = "";
  mjModel *m = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
  if (!m) snprintf(err, err_size, "model: %s failed to load: %s", path, mjerr);
  return m;
}

int mdv_model_check_version(char *err, size_t err_size) {
  if (mj_version() == mjVERSION_HEADER) return 0;
  snprintf(err, err_size, "MuJoCo header version %d differs from the loaded library's %d; rebuild mdvec "
           "against this MuJoCo", mjVERSION_HEADER, mj_version());
  return -1;
}
