/* The duck's constants, model checks and domain randomisation (docs/duck_task.md sections 1, 5 and 8). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duck.h"
#include "model.h"
#include "trap.h"

/*---------------------------------- Constants -----------------------------------------------------*/

const double mdv_duck_obs_scale[5] = {0.25, 1.0, 1.0, 0.05, 1.0};
const double mdv_duck_noise_std[4] = {0.1, 0.05, 0.01, 0.5};
const double mdv_duck_reward_v1[6] = {0.5, 0.75, 0.75, 0.05, 0.03, 0.1};
const double mdv_duck_reward_v2[6] = {0.5, 0.05, 0.01, 0.03, 0.15, 4.0};
const double mdv_duck_fall_div = 3.0;
const double mdv_duck_dr_ranges[10] = {0.9, 1.1, 0.4, 1.0, 0.0, MDV_DUCK_DR_LATENCY_MAX + 1, 0.0, 0.03, 0.5, 1.5};

/*---------------------------------- Model ---------------------------------------------------------*/

static const struct {
  const char *variant, *file;
} kVariants[] = {
  {"default", "duck.xml"},
  {"backlash", "duck_backlash.xml"},
  {"backlash_lower", "duck_backlash_lower.xml"},
};

/* Parse the embedded servo fits table into per-column min and max. */
static int load_fits(mdv_duck_model *tm, char *err, size_t err_size) {
  const mdv_embedded_file *f = mdv_embedded("servo_fits.csv");
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

/* Allocate the per-actuator arrays. */
static int alloc_arrays(mdv_duck_model *tm) {
  size_t nu = (size_t)tm->nu;
  tm->qadr = calloc(nu, sizeof(int));
  tm->dadr = calloc(nu, sizeof(int));
  tm->range_lo = calloc(nu, sizeof(double));
  tm->range_hi = calloc(nu, sizeof(double));
  tm->q_home = calloc(nu, sizeof(double));
  tm->ctrl_home = calloc(nu, sizeof(double));
  return (tm->qadr && tm->dadr && tm->range_lo && tm->range_hi && tm->q_home && tm->ctrl_home) ? 0 : -1;
}

/* Check the model meets the task's requirements and derive indices and constants (d: scratch data). */
static int inspect(mdv_duck_model *tm, mjData *d, char *err, size_t err_size) {
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
  if (m->nu > MDV_DUCK_NU_MAX) {
    snprintf(err, err_size, "model: %lld actuators; the task takes at most %d", (long long)m->nu, MDV_DUCK_NU_MAX);
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
    snprintf(err, err_size, "model: no %s",
             gyro < 0       ? "sensor 'gyro'"
             : tm->home < 0 ? "keyframe 'home'"
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

int mdv_duck_model_load(mdv_duck_model *tm, const char *variant, const char *path, char *err, size_t err_size) {
  memset(tm, 0, sizeof *tm);
  const char *file = NULL;
  if (!path) {
    for (size_t k = 0; k < sizeof kVariants / sizeof kVariants[0]; k++) {
      if (!strcmp(kVariants[k].variant, variant)) file = kVariants[k].file;
    }
    if (!file) {
      snprintf(err, err_size, "variant: unknown variant '%s'; choose default, backlash or backlash_lower", variant);
      return MDVEC_ERR_MODEL;
    }
  }
  int code;
  tm->m = mdv_model_load(file, path, &code, err, err_size);
  if (!tm->m) return code;
  mjData *scratch = mdv_data_make(tm->m, &code, err, err_size); /* made outside the trap below: never leaked */
  if (!scratch) {
    mdv_duck_model_free(tm);
    return code;
  }
  mdv_trap trap; /* inspect runs mj_forward: an arena too small for the model raises an error */
  mdv_trap_begin(&trap);
  volatile int bad = 1;
  if (setjmp(trap.env) == 0) {
    bad = inspect(tm, scratch, err, err_size) || load_fits(tm, err, err_size);
  } else {
    snprintf(err, err_size, "model: MuJoCo error while checking the model: %s", trap.message);
  }
  mdv_trap_end(&trap);
  mj_deleteData(scratch);
  if (bad) {
    mdv_duck_model_free(tm);
    return MDVEC_ERR_MODEL;
  }
  return MDVEC_OK;
}

void mdv_duck_model_free(mdv_duck_model *tm) {
  if (tm->m) mj_deleteModel(tm->m);
  free(tm->qadr);
  free(tm->dadr);
  free(tm->range_lo);
  free(tm->range_hi);
  free(tm->q_home);
  free(tm->ctrl_home);
  memset(tm, 0, sizeof *tm);
}

/*---------------------------------- Domain randomisation ------------------------------------------*/

void mdv_duck_dr_draw(mdv_pcg64 *rng, const mdv_duck_model *tm, mdv_duck_dr *f, int *latency, double *init_noise,
                      double *noise_scale) {
  const double *r = mdv_duck_dr_ranges;
  for (int k = 0; k < 5; k++) f->servo[k] = mdv_pcg64_uniform(rng, tm->fits_lo[k], tm->fits_hi[k]);
  for (int b = 0; b < tm->nbody - 1; b++) f->mass_scale[b] = mdv_pcg64_uniform(rng, r[0], r[1]);
  f->floor_friction = mdv_pcg64_uniform(rng, r[2], r[3]);
  *latency = (int)mdv_pcg64_integers(rng, (int64_t)r[4], (int64_t)r[5]);
  *init_noise = mdv_pcg64_uniform(rng, r[6], r[7]);
  *noise_scale = mdv_pcg64_uniform(rng, r[8], r[9]);
}

void mdv_duck_dr_restore(mjModel *m, const mjModel *proto) {
#define RESTORE(field, count) memcpy(m->field, proto->field, sizeof(*m->field) * (count))
  RESTORE(actuator_gainprm, (size_t)m->nu * mjNGAIN);
  RESTORE(actuator_biasprm, (size_t)m->nu * mjNBIAS);
  RESTORE(actuator_forcerange, (size_t)m->nu * 2);
  RESTORE(dof_damping, (size_t)m->nv);
  RESTORE(dof_armature, (size_t)m->nv);
  RESTORE(dof_frictionloss, (size_t)m->nv);
  RESTORE(body_mass, (size_t)m->nbody);
  RESTORE(body_inertia, (size_t)m->nbody * 3);
  RESTORE(geom_friction, (size_t)m->ngeom * 3);
#undef RESTORE
}

void mdv_duck_dr_apply(mjModel *m, const mdv_duck_model *tm, const mdv_duck_dr *f) {
  double kp = f->servo[0], damping = f->servo[1], armature = f->servo[2];
  double frictionloss = f->servo[3], forcerange = f->servo[4];
  for (int i = 0; i < m->nu; i++) {
    m->actuator_gainprm[i * mjNGAIN] = kp;
    m->actuator_biasprm[i * mjNBIAS + 1] = -kp;
    m->actuator_forcerange[2 * i] = -forcerange;
    m->actuator_forcerange[2 * i + 1] = forcerange;
    m->dof_damping[tm->dadr[i]] = damping;
    m->dof_armature[tm->dadr[i]] = armature;
    m->dof_frictionloss[tm->dadr[i]] = frictionloss;
  }
  for (int b = 1; b < m->nbody; b++) {
    m->body_mass[b] *= f->mass_scale[b - 1];
    for (int k = 0; k < 3; k++) m->body_inertia[3 * b + k] *= f->mass_scale[b - 1];
  }
  m->geom_friction[3 * tm->floor] = f->floor_friction;
}
