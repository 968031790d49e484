/* The duck-balance task on one environment: reset, step, observation, reward (ENV_SPEC 4-8). */
#ifndef MDV_DUCK_H
#define MDV_DUCK_H

#include <stdint.h>

#include <mujoco/mujoco.h>

#include "dr.h"
#include "mdvec.h"
#include "model.h"
#include "pcg64.h"

#define MDV_INFO_MAX 13  /* info fields of reward v2; v1 has 11 */

typedef struct mdv_duck_ {     /* one env: its own model copy, data, generator and episode state */
  const mdv_task_model *tm;    /* the shared prototype and constants */
  const mdvec_config_t *cfg;   /* the task configuration */
  mjModel *m;                  /* this env's model copy (domain randomisation writes here) */
  mjData *d;                   /* this env's data */
  mdv_pcg64 rng;               /* this env's generator */
  int t;                       /* steps taken in this episode */
  int reset_done;              /* nonzero once the env has been reset */
  int stage1_ready;            /* nonzero when mj_step1 ran on the current state (see mdv_duck_step) */
  int failed;                  /* nonzero after a MuJoCo error, until the next reset */
  char error[512];             /* that error's message */
  int latency;                 /* action delay of this episode */
  int queue_cap;               /* capacity of the latency queue, max(cfg latency, 2) */
  int queue_head;              /* oldest entry of the latency queue */
  double init_noise;           /* reset noise half-width of this episode */
  double noise_scale;          /* sensor-noise scale of this episode */
  int64_t *push_steps;         /* (n_pushes) steps the shoves land on */
  double *push_vel;            /* (n_pushes x 2) shove velocities */
  mdv_dr_factors dr;           /* model factors of this episode */
  double *qpos;                /* (nu) actuated qpos after noise */
  double *qvel;                /* (nu) actuated qvel after noise */
  double *queue;               /* (queue_cap x nu) delayed actions */
  double *prev_action;         /* (nu) last clipped action */
  double *action;              /* (nu) this step's clipped action */
  double *raw;                 /* (6 + 3nu) unscaled observation */
  double *scratch;             /* (6 + 2nu) normals, differences */
} mdv_duck;

typedef struct mdv_duck_out_ {  /* where one env writes one step's results */
  float *obs;                   /* (obs_dim) observation */
  double *reward;               /* reward */
  uint8_t *done;                /* done flag */
  double *info;                 /* info field k at info[k * info_stride] */
  int info_stride;              /* distance between info fields */
} mdv_duck_out;

/* Return the number of info fields for a reward version. */
int mdv_duck_info_count(int reward);

/* Return the name of info field k for a reward version, or NULL. */
const char *mdv_duck_info_name(int reward, int k);

/* Make the env's model copy, data and buffers; return 0 or -1 (out of memory). */
int mdv_duck_init(mdv_duck *e, const mdv_task_model *tm, const mdvec_config_t *cfg, uint64_t seed);

/* Free the env; safe on a zeroed struct. */
void mdv_duck_free(mdv_duck *e);

/* Reseed the env's generator as numpy's PCG64(seed). */
void mdv_duck_seed(mdv_duck *e, uint64_t seed);

/* Draw a new episode from the env's generator, start it and write the first observation. */
void mdv_duck_reset(mdv_duck *e, float *obs);

/* Check episode parameters against this env; return 0 or -1 with a message naming the field. */
int mdv_duck_check_params(const mdv_duck *e, const mdvec_params_t *p, char *err, size_t err_size);

/* Start an episode with checked parameters and write the first observation. */
void mdv_duck_reset_with_params(mdv_duck *e, const mdvec_params_t *p, float *obs);

/* Take one step with a finite action (nu); write observation, reward, done and info. */
void mdv_duck_step(mdv_duck *e, const double *action, const mdv_duck_out *out);

#endif /* MDV_DUCK_H */
