/* The duck-balance task (docs/duck_task.md sections 1-8): its model, options, constants, one env.
 * Internal to the duck's files (duck.c, duck_model.c) and the C tests; the generic layers see only
 * mdv_task_duck. */
#ifndef MDV_DUCK_H
#define MDV_DUCK_H

#include <stdint.h>

#include <mujoco/mujoco.h>

#include "mdvec.h"
#include "pcg64.h"
#include "task.h"

#define MDV_DUCK_INFO_MAX       13     /* info fields of reward v2; v1 has 11 */
#define MDV_DUCK_DR_LATENCY_MAX 2      /* largest latency domain randomisation draws (integers(0, 3)) */
#define MDV_DUCK_NU_MAX         100000 /* most actuators a duck model may have (6 + 3 nu stays far inside int) */

/*---------------------------------- Constants (declared once, in duck_model.c) -------------------*/

extern const double mdv_duck_obs_scale[5];  /* per block: gyro, gravity, joint pos, joint vel, action */
extern const double mdv_duck_noise_std[4];  /* per block: gyro, gravity, joint pos, joint vel */
extern const double mdv_duck_reward_v1[6];  /* w_up, w_height, w_pose, w_rate, height width, pose width */
extern const double mdv_duck_reward_v2[6];  /* w_terms, w_rate, w_effort, height, pose, still widths */
extern const double mdv_duck_fall_div;      /* fallen: trunk height below h_home / this */
extern const double mdv_duck_dr_ranges[10]; /* mass scale, floor friction, latency [lo, hi), init noise,
                                               noise scale: (lo, hi) pairs in draw order */

/*---------------------------------- Model ---------------------------------------------------------*/

typedef struct mdv_duck_model_ { /* the prototype model and what the task derives from it */
  mjModel *m;                    /* the prototype, as loaded; envs copy it */
  int nu;                        /* actuators = actuated joints */
  int nbody;                     /* bodies, world included */
  int trunk;                     /* body id of the root body owning the free joint */
  int free_dof;                  /* dof address of the trunk's free joint */
  int gyro_adr;                  /* sensordata address of the gyro named "gyro" */
  int home;                      /* keyframe id of "home" */
  int floor;                     /* geom id of "floor" */
  int *qadr;                     /* (nu) qpos address of each actuated joint */
  int *dadr;                     /* (nu) dof address of each actuated joint */
  double *range_lo;              /* (nu) actuated joint lower limits */
  double *range_hi;              /* (nu) actuated joint upper limits */
  double *q_home;                /* (nu) home qpos at the actuated joints */
  double *ctrl_home;             /* (nu) home ctrl */
  double h_home;                 /* trunk height after reset to home + mj_forward */
  double fits_lo[5];             /* servo fits range, lower end: kp, damping, armature, ... */
  double fits_hi[5];             /* servo fits range, upper end */
} mdv_duck_model;

/* Load a built-in variant (path NULL) or an MJCF file, check it meets the task's needs (free root,
 * hinge actuators with limits, gyro, home keyframe, floor) and derive the constants; return
 * MDVEC_OK, or MDVEC_ERR_MODEL / MDVEC_ERR_NOMEM with a message in err. */
int mdv_duck_model_load(mdv_duck_model *tm, const char *variant, const char *path, char *err, size_t err_size);

/* Free what mdv_duck_model_load allocated; safe on a zeroed struct. */
void mdv_duck_model_free(mdv_duck_model *tm);

/*---------------------------------- Domain randomisation ------------------------------------------*/

typedef struct mdv_duck_dr_ { /* the model factors of one randomised episode */
  double servo[5];            /* kp, damping, armature, frictionloss, forcerange */
  double *mass_scale;         /* (nbody-1) factor on mass and inertia of bodies 1.. */
  double floor_friction;      /* sliding friction of the floor */
} mdv_duck_dr;

/* Draw one episode's factors, latency, init noise and sensor-noise scale, in the task's order. */
void mdv_duck_dr_draw(mdv_pcg64 *rng, const mdv_duck_model *tm, mdv_duck_dr *f, int *latency, double *init_noise,
                      double *noise_scale);

/* Copy every field randomisation writes back from the prototype into m. */
void mdv_duck_dr_restore(mjModel *m, const mjModel *proto);

/* Write the factors into m (the prototype's values must be in place first). */
void mdv_duck_dr_apply(mjModel *m, const mdv_duck_model *tm, const mdv_duck_dr *f);

/*---------------------------------- Configuration and shared part ---------------------------------*/

typedef struct mdv_duck_cfg_ { /* the duck's options, typed */
  int substeps;                /* mj_step calls per env step */
  int episode_len;             /* steps per episode */
  double action_scale;         /* rad of servo target per unit action */
  int n_pushes;                /* shoves per episode */
  int push_window[2];          /* steps a shove may land on, [lo, hi) */
  double push_speed[2];        /* shove speed range in m/s */
  double init_noise;           /* half-width of the uniform reset noise */
  int latency;                 /* steps of action delay */
  int sensor_noise;            /* nonzero: Gaussian observation noise */
  int reward;                  /* MDVEC_REWARD_V1 or MDVEC_REWARD_V2 */
  int dr;                      /* nonzero: domain randomisation per episode */
} mdv_duck_cfg;

typedef struct mdv_duck_shared_ { /* read-only after create, shared by every env */
  mdv_duck_model tm;              /* prototype and constants */
  mdv_duck_cfg cfg;               /* options */
  int queue_cap;                  /* latency queue capacity: max(latency, MDV_DUCK_DR_LATENCY_MAX) */
  double *act_low, *act_high;     /* (nu) -1 and 1 */
  float *scale;                   /* (6 + 3nu) observation scale per entry, float32 as numpy's table */
  double *std;                    /* (6 + 2nu) sensor-noise standard deviation per entry */
} mdv_duck_shared;

/*---------------------------------- One env -------------------------------------------------------*/

typedef struct mdv_duck_push_ { /* one shove, for ordering given episode parameters */
  int64_t step;                 /* the step it lands on */
  int32_t k;                    /* its index in the parameters */
} mdv_duck_push;

typedef struct mdv_duck_ {   /* one env: its own model copy, data and episode state */
  const mdv_duck_shared *sh; /* the shared part */
  mjModel *m;                /* this env's model copy (domain randomisation writes here) */
  mjData *d;                 /* this env's data */
  int t;                     /* steps taken in this episode */
  int stage1_ready;          /* nonzero when mj_step1 ran on the current state (see step) */
  int latency;               /* action delay of this episode */
  int queue_head;            /* oldest entry of the latency queue */
  double init_noise;         /* reset noise half-width of this episode */
  double noise_scale;        /* sensor-noise scale of this episode */
  int64_t *push_steps;       /* (n_pushes) steps the shoves land on, ascending */
  double *push_vel;          /* (n_pushes x 2) shove velocities, in the same order */
  mdv_duck_push *push_sort;  /* (n_pushes) scratch: reset_with_params orders the given shoves by step */
  int push_next;             /* the first shove not yet applied (a cursor into push_steps) */
  mdv_duck_dr dr;            /* model factors of this episode */
  double *qpos;              /* (nu) actuated qpos after noise */
  double *qvel;              /* (nu) actuated qvel after noise */
  double *queue;             /* (queue_cap x nu) delayed actions */
  double *prev_action;       /* (nu) last clipped action */
  double *action;            /* (nu) this step's clipped action */
  double *raw;               /* (6 + 3nu) unscaled observation */
  double *scratch;           /* (6 + 2nu) normals, differences */
} mdv_duck;

/* The task, as listed in tasks/registry.c. */
extern const mdv_task mdv_task_duck;

#endif /* MDV_DUCK_H */
