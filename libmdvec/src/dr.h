/* Domain randomisation on one env's own model copy: draw, apply, exact restore (ENV_SPEC section 8). */
#ifndef MDV_DR_H
#define MDV_DR_H

#include <mujoco/mujoco.h>

#include "model.h"
#include "pcg64.h"

typedef struct mdv_dr_factors_ {  /* the model factors of one randomised episode */
  double servo[5];                /* kp, damping, armature, frictionloss, forcerange */
  double *mass_scale;             /* (nbody-1) factor on mass and inertia of bodies 1.. */
  double floor_friction;          /* sliding friction of the floor */
} mdv_dr_factors;

/* Draw one episode's factors, latency, init noise and sensor-noise scale, in the task's order. */
void mdv_dr_draw(mdv_pcg64 *rng, const mdv_task_model *tm, mdv_dr_factors *f, int *latency,
                 double *init_noise, double *noise_scale);

/* Copy every field randomisation writes back from the prototype into m. */
void mdv_dr_restore(mjModel *m, const mjModel *proto);

/* Write the factors into m (the prototype's values must be in place first). */
void mdv_dr_apply(mjModel *m, const mdv_task_model *tm, const mdv_dr_factors *f);

#endif /* MDV_DR_H */
