/* The task catalogue: one line per task (its mdv_task lives in its own file beside this one). */
#include <string.h>

#include "task.h"

extern const mdv_task mdv_task_duck;
extern const mdv_task mdv_task_hopper_v5;

const mdv_task *const mdv_tasks[] = {
  &mdv_task_duck,  /* the default task: the first entry */
  &mdv_task_hopper_v5,
  NULL,
};

const mdv_task *mdv_task_find(const char *name) {
  if (!name) return mdv_tasks[0];
  for (const mdv_task *const *t = mdv_tasks; *t; t++) {
    if (!strcmp((*t)->name, name)) return *t;
  }
  return NULL;
}
