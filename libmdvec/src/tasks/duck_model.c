/* Domain randomisation on one env's own model copy: draw, apply, exact restore (ENV_SPEC section 8). */
#include "dr.h"

#include <string.h>

void mdv_dr_draw(mdv_pcg64 *rng, const mdv_task_model *tm, mdv_dr_factors *f, int *latency,
                 double *init_noise, double *noise_scale) {
  for (int k = 0; k < 5; k++) f->servo[k] = mdv_pcg64_uniform(rng, tm->fits_lo[k], tm->fits_hi[k]);
  for (int b = 0; b < tm->nbody - 1; b++) f->mass_scale[b] = mdv_pcg64_uniform(rng, 0.9, 1.1);
  f->floor_friction = mdv_pcg64_uniform(rng, 0.4, 1.0);
  *latency = (int)mdv_pcg64_integers(rng, 0, 3);
  *init_noise = mdv_pcg64_uniform(rng, 0.0, 0.03);
  *noise_scale = mdv_pcg64_uniform(rng, 0.5, 1.5);
}

void mdv_dr_restore(mjModel *m, const mjModel *proto) {
#define RESTORE(field, count) memcpy(m->field, proto->field, sizeof(*m->field) * (size_t)(count))
  RESTORE(actuator_gainprm, m->nu * mjNGAIN);
  RESTORE(actuator_biasprm, m->nu * mjNBIAS);
  RESTORE(actuator_forcerange, m->nu * 2);
  RESTORE(dof_damping, m->nv);
  RESTORE(dof_armature, m->nv);
  RESTORE(dof_frictionloss, m->nv);
  RESTORE(body_mass, m->nbody);
  RESTORE(body_inertia, m->nbody * 3);
  RESTORE(geom_friction, m->ngeom * 3);
#undef RESTORE
}

void mdv_dr_apply(mjModel *m, const mdv_task_model *tm, const mdv_dr_factors *f) {
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
