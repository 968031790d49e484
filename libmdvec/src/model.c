/* Loading a task model once and deriving what the task needs from it (ENV_SPEC section 1). */
#include "model.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trap.h"

static const struct { const char *variant, *file; } kVariants[] = {
  {"default", "duck.xml"},
  {"backlash", "duck_backlash.xml"},
  {"backlash_lower", "duck_backlash_lower.xml"},
};

/* Return the embedded file of that name, or NULL. */
static const mdv_embedded_file *embedded(const char *name) {
  for (const mdv_embedded_file *f = mdv_embedded_files; f->name; f++) {
    if (!strcmp(f->name, name)) return f;
  }
  return NULL;
}

/* Load a built-in variant from the embedded XML through a one-file VFS. */
static mjModel *load_builtin(const char *variant, char *err, size_t err_size) {
  const char *file = NULL;
  for (size_t k = 0; k < sizeof kVariants / sizeof kVariants[0]; k++) {
    if (!strcmp(kVariants[k].variant, variant)) file = kVariants[k].file;
  }
  if (!file) {
    snprintf(err, err_size, "variant: unknown variant '%s'; choose default, backlash or backlash_lower",
             variant);
    return NULL;
  }
  const mdv_embedded_file *f = embedded(file);
  mjVFS *vfs = malloc(sizeof *vfs);
  if (!f || !vfs) {
    free(vfs);
    snprintf(err, err_size, "variant: built-in file %s unavailable", file);
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

/* Parse the embedded servo fits table into per-column min and max. */
static int load_fits(mdv_task_model *tm, char *err, size_t err_size) {
  const mdv_embedded_file *f = embedded("servo_fits.csv");
  int rows = 0;
  for (const char *line = f ? f->data : NULL; line && *line;) {
    const char *next = strchr(line, '\n');
    if (*line != '#' && *line != '\n' && (*line == '-' || *line == '.' || (*line >= '0' && *line <= '9'))) {
      const char *p = line;
      for (int k = 0; k < 5; k++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p) {
          snprintf(err, err_size, "servo_fits.csv: row %d has fewer than 5 values", rows + 1);
          return -1;
        }
        tm->fits_lo[k] = (rows == 0 || v < tm->fits_lo[k]) ? v : tm->fits_lo[k];
        tm->fits_hi[k] = (rows == 0 || v > tm->fits_hi[k]) ? v : tm->fits_hi[k];
        p = end + (*end == ',');
      }
      rows++;
    }
    line = next ? next + 1 : NULL;
  }
  if (rows == 0) {
    snprintf(err, err_size, "servo_fits.csv: no rows");
    return -1;
  }
  return 0;
}

/* Allocate the per-actuator arrays in one block. */
static int alloc_arrays(mdv_task_model *tm) {
  int nu = tm->nu;
  tm->qadr = calloc((size_t)nu, sizeof(int));
  tm->dadr = calloc((size_t)nu, sizeof(int));
  tm->range_lo = calloc((size_t)nu, sizeof(double));
  tm->range_hi = calloc((size_t)nu, sizeof(double));
  tm->q_home = calloc((size_t)nu, sizeof(double));
  tm->ctrl_home = calloc((size_t)nu, sizeof(double));
  return (tm->qadr && tm->dadr && tm->range_lo && tm->range_hi && tm->q_home && tm->ctrl_home) ? 0 : -1;
}

/* Check the model meets the task's requirements and derive indices and constants (d: scratch data). */
static int inspect(mdv_task_model *tm, mjData *d, char *err, size_t err_size) {
  const mjModel *m = tm->m;
  int root = -1, roots = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_type[j] == mjJNT_FREE && m->body_parentid[m->jnt_bodyid[j]] == 0) {
      root = j;
      roots++;
    }
  }
  if (roots != 1) {
    snprintf(err, err_size, "model: need exactly one root body owning a free joint (the trunk)");
    return -1;
  }
  tm->trunk = m->jnt_bodyid[root];
  tm->free_dof = m->jnt_dofadr[root];
  tm->nu = m->nu;
  tm->nbody = m->nbody;
  if (m->nu == 0) {
    snprintf(err, err_size, "model: no actuators");
    return -1;
  }
  if (alloc_arrays(tm)) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  for (int i = 0; i < m->nu; i++) {
    int j = m->actuator_trnid[2 * i];
    if (m->actuator_trntype[i] != mjTRN_JOINT || m->jnt_type[j] != mjJNT_HINGE) {
      snprintf(err, err_size, "model: actuator %d does not drive a hinge joint", i);
      return -1;
    }
    if (!m->jnt_limited[j]) {
      snprintf(err, err_size, "model: actuated joint %d is not limited", j);
      return -1;
    }
    tm->qadr[i] = m->jnt_qposadr[j];
    tm->dadr[i] = m->jnt_dofadr[j];
    tm->range_lo[i] = m->jnt_range[2 * j];
    tm->range_hi[i] = m->jnt_range[2 * j + 1];
  }
  int gyro = mj_name2id(m, mjOBJ_SENSOR, "gyro");
  tm->home = mj_name2id(m, mjOBJ_KEY, "home");
  tm->floor = mj_name2id(m, mjOBJ_GEOM, "floor");
  if (gyro < 0 || tm->home < 0 || tm->floor < 0) {
    snprintf(err, err_size, "model: no %s", gyro < 0 ? "sensor 'gyro'" : tm->home < 0 ? "keyframe 'home'"
                                                                                    : "geom 'floor'");
    return -1;
  }
  if (m->sensor_type[gyro] != mjSENS_GYRO) {
    snprintf(err, err_size, "model: sensor 'gyro' is not a gyro");
    return -1;
  }
  tm->gyro_adr = m->sensor_adr[gyro];
  for (int i = 0; i < m->nu; i++) {
    tm->q_home[i] = m->key_qpos[(size_t)tm->home * m->nq + tm->qadr[i]];
    tm->ctrl_home[i] = m->key_ctrl[(size_t)tm->home * m->nu + i];
  }
  mj_resetDataKeyframe(m, d, tm->home);
  mj_forward(m, d);
  tm->h_home = d->xpos[3 * tm->trunk + 2];
  return 0;
}

int mdv_model_load(mdv_task_model *tm, const char *variant, const char *path, char *err, size_t err_size) {
  memset(tm, 0, sizeof *tm);
  if (path) {
    char mjerr[512] = "";
    tm->m = mj_loadXML(path, NULL, mjerr, sizeof mjerr);
    if (!tm->m) snprintf(err, err_size, "model: %s failed to load: %s", path, mjerr);
  } else {
    tm->m = load_builtin(variant ? variant : "default", err, err_size);
  }
  mjData *scratch = tm->m ? mj_makeData(tm->m) : NULL;  /* made outside the trap: never leaked */
  if (tm->m && !scratch) snprintf(err, err_size, "out of memory");
  mdv_trap trap;  /* inspect runs mj_forward: an arena too small for the model raises an error */
  mdv_trap_begin(&trap);
  volatile int bad = 1;
  if (setjmp(trap.env) == 0) {
    bad = !scratch || inspect(tm, scratch, err, err_size) || load_fits(tm, err, err_size);
  } else {
    snprintf(err, err_size, "model: MuJoCo error while checking the model: %s", trap.message);
  }
  mdv_trap_end(&trap);
  if (scratch) mj_deleteData(scratch);
  if (bad) {
    mdv_model_free(tm);
    return -1;
  }
  return 0;
}

void mdv_model_free(mdv_task_model *tm) {
  if (tm->m) mj_deleteModel(tm->m);
  free(tm->qadr);
  free(tm->dadr);
  free(tm->range_lo);
  free(tm->range_hi);
  free(tm->q_home);
  free(tm->ctrl_home);
  memset(tm, 0, sizeof *tm);
}
