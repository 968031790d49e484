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

const mdv_task *const mdv_tasks[] = {
  &mdv_task_duck,  /* the default task: the first entry */
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
  NULL,
};

const mdv_task *mdv_task_find(const char *name) {
  if (!name) return mdv_tasks[0];
  for (const mdv_task *const *t = mdv_tasks; *t; t++) {
    if (!strcmp((*t)->name, name)) return *t;
  }
  return NULL;
}
