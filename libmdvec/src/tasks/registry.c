/* The task catalogue: one line per task (its mdv_task lives in its own file beside this one). */
#include <string.h>

#include "task.h"

extern const mdv_task mdv_task_duck;
extern const mdv_task mdv_task_hopper_v5;
extern const mdv_task mdv_task_walker2d_v5;
extern const mdv_task mdv_task_half_cheetah_v5;
extern const mdv_task mdv_task_swimmer_v5;
extern const mdv_task mdv_task_inverted_pendulum_v5;
extern const mdv_task mdv_task_inverted_double_pendulum_v5;
extern const mdv_task mdv_task_ant_v5;
extern const mdv_task mdv_task_humanoid_v5;
extern const mdv_task mdv_task_humanoid_standup_v5;
extern const mdv_task mdv_task_reacher_v5;
extern const mdv_task mdv_task_pusher_v5;

/* The default task (cfg.task NULL, the v1 config fields), chosen by name: the list's order is free. */
#define MDV_DEFAULT_TASK "duck"

const mdv_task *const mdv_tasks[] = {
  &mdv_task_hopper_v5,
  &mdv_task_walker2d_v5,
  &mdv_task_half_cheetah_v5,
  &mdv_task_swimmer_v5,
  &mdv_task_inverted_pendulum_v5,
  &mdv_task_inverted_double_pendulum_v5,
  &mdv_task_ant_v5,
  &mdv_task_humanoid_v5,
  &mdv_task_humanoid_standup_v5,
  &mdv_task_reacher_v5,
  &mdv_task_pusher_v5,
  &mdv_task_duck,  /* last here, and still the default (task 0 of the catalogue): MDV_DEFAULT_TASK */
  NULL,
};

const mdv_task *mdv_task_find(const char *name) {
  if (!name) name = MDV_DEFAULT_TASK;
  for (const mdv_task *const *t = mdv_tasks; *t; t++) {
    if (!strcmp((*t)->name, name)) return *t;
  }
  return NULL;
}

int mdv_task_count(void) {
  int n = 0;
  while (mdv_tasks[n]) n++;
  return n;
}

const mdv_task *mdv_task_at(int k) {
  const mdv_task *def = mdv_task_find(NULL);
  if (k < 0 || k >= mdv_task_count() || !def) return NULL;
  if (k == 0) return def;
  for (const mdv_task *const *t = mdv_tasks; *t; t++) {  /* the others in list order, the default left out */
    if (*t != def && --k == 0) return *t;
  }
  return NULL;
}
