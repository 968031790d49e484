/* spec.c: what a task's create declared, checked before the generic layer sizes anything from it. */
#include <math.h>
#include <stdio.h>

#include "task.h"

int mdv_spec_check(const char *task, const mdv_spec *sp, char *msg, size_t n) {
#define BAD(...)                                                           \
  do {                                                                     \
    snprintf(msg, n, "task '%s' declares a malformed spec: " __VA_ARGS__); \
    return MDVEC_ERR_MODEL;                                                \
  } while (0)
  if (sp->obs_dim <= 0) BAD("obs_dim %d (must be positive)", task, sp->obs_dim);
  if (sp->obs_dtype != MDVEC_DTYPE_F32 && sp->obs_dtype != MDVEC_DTYPE_F64)
    BAD("obs_dtype %d (MDVEC_DTYPE_F32 or _F64)", task, sp->obs_dtype);
  if (sp->act_dim < 0) BAD("act_dim %d", task, sp->act_dim);
  if (sp->act_dim > 0 && (!sp->act_low || !sp->act_high))
    BAD("act_low/act_high NULL for act_dim %d", task, sp->act_dim);
  for (int k = 0; k < sp->act_dim; k++)
    if (!(sp->act_low[k] <= sp->act_high[k]))
      BAD("act_low[%d] %g > act_high[%d] %g", task, k, sp->act_low[k], k, sp->act_high[k]);
  if (sp->n_info < 0 || (sp->n_info > 0 && !sp->info))
    BAD("n_info %d with info %s", task, sp->n_info, sp->info ? "set" : "NULL");
  for (int k = 0; k < sp->n_info; k++) {
    const mdv_field *f = &sp->info[k];
    if (!f->name || !f->name[0]) BAD("info field %d has no name", task, k);
    if (f->dtype != MDVEC_DTYPE_F64 && f->dtype != MDVEC_DTYPE_I64 && f->dtype != MDVEC_DTYPE_BOOL &&
        f->dtype != MDVEC_DTYPE_ACTION)
      BAD("info field '%s' dtype %d", task, f->name, f->dtype);
    if (f->when <= 0 || (f->when & ~(MDVEC_INFO_STEP | MDVEC_INFO_RESET)))
      BAD("info field '%s' when %d", task, f->name, f->when);
  }
  if (sp->max_episode_steps < 0) BAD("max_episode_steps %d", task, sp->max_episode_steps);
  if (sp->nq <= 0 || sp->nv < 0 || sp->nbody <= 0) BAD("nq %d, nv %d, nbody %d", task, sp->nq, sp->nv, sp->nbody);
  if (sp->env_size == 0) BAD("env_size 0", task);
  if (!(sp->dt > 0.0 && sp->dt < HUGE_VAL)) BAD("dt %g (must be positive and finite)", task, sp->dt);
#undef BAD
  return MDVEC_OK;
}
