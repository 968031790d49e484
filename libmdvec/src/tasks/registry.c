/* The task catalogue. A task is one line of MDV_TASK_LIST: MDV_TASK(file, name) for the
 * `const mdv_task mdv_task_<name>` defined in tasks/<file>.c. libmdvec/meson.build reads the file
 * names from these lines, so this line is all a new task adds besides its file. Any order. */
#include <string.h>

#include "task.h"

#define MDV_TASK_LIST(MDV_TASK)                                   \
  MDV_TASK(hopper, hopper_v5)                                     \
  MDV_TASK(walker2d, walker2d_v5)                                 \
  MDV_TASK(half_cheetah, half_cheetah_v5)                         \
  MDV_TASK(swimmer, swimmer_v5)                                   \
  MDV_TASK(inverted_pendulum, inverted_pendulum_v5)               \
  MDV_TASK(inverted_double_pendulum, inverted_double_pendulum_v5) \
  MDV_TASK(ant, ant_v5)                                           \
  MDV_TASK(humanoid, humanoid_v5)                                 \
  MDV_TASK(humanoid_standup, humanoid_standup_v5)                 \
  MDV_TASK(reacher, reacher_v5)                                   \
  MDV_TASK(pusher, pusher_v5)                                     \
  MDV_TASK(cartpole_swingup, cartpole_swingup)                    \
  MDV_TASK(dm_cheetah, dm_cheetah_run)                            \
  MDV_TASK(dm_walker, dm_walker_stand)                            \
  MDV_TASK(dm_walker, dm_walker_walk)                             \
  MDV_TASK(dm_walker, dm_walker_run)                              \
  MDV_TASK(dm_hopper, dm_hopper_stand)                            \
  MDV_TASK(dm_hopper, dm_hopper_hop)                              \
  MDV_TASK(dm_humanoid, dm_humanoid_stand)                        \
  MDV_TASK(dm_humanoid, dm_humanoid_walk)                         \
  MDV_TASK(dm_humanoid, dm_humanoid_run)                          \
  MDV_TASK(dm_fish, dm_fish_upright)                              \
  MDV_TASK(dm_fish, dm_fish_swim)                                 \
  MDV_TASK(dm_cartpole, dm_cartpole_balance)                      \
  MDV_TASK(dm_cartpole, dm_cartpole_balance_sparse)               \
  MDV_TASK(dm_cartpole, dm_cartpole_swingup)                      \
  MDV_TASK(dm_cartpole, dm_cartpole_swingup_sparse)               \
  MDV_TASK(dm_pendulum, dm_pendulum_swingup)                      \
  MDV_TASK(dm_acrobot, dm_acrobot_swingup)                        \
  MDV_TASK(dm_acrobot, dm_acrobot_swingup_sparse)                 \
  MDV_TASK(dm_reacher, dm_reacher_easy)                           \
  MDV_TASK(dm_reacher, dm_reacher_hard)                           \
  MDV_TASK(dm_swimmer, dm_swimmer_swimmer6)                       \
  MDV_TASK(dm_swimmer, dm_swimmer_swimmer15)                      \
  MDV_TASK(dm_manipulator, dm_manipulator_bring_ball)             \
  MDV_TASK(dm_finger, dm_finger_spin)                             \
  MDV_TASK(dm_finger, dm_finger_turn_easy)                        \
  MDV_TASK(dm_finger, dm_finger_turn_hard)                        \
  MDV_TASK(dm_ball_in_cup, dm_ball_in_cup_catch)                  \
  MDV_TASK(dm_point_mass, dm_point_mass_easy)                     \
  MDV_TASK(duck, duck) /* last here, and still the default (task 0 of the catalogue) */

/* The default task (cfg.task NULL, the v1 config fields), chosen by name: the list's order is free. */
#define MDV_DEFAULT_TASK "duck"

#define MDV_TASK_EXTERN(file, name) extern const mdv_task mdv_task_##name;
#define MDV_TASK_ENTRY(file, name)  &mdv_task_##name,
MDV_TASK_LIST(MDV_TASK_EXTERN)

const mdv_task *const mdv_tasks[] = {MDV_TASK_LIST(MDV_TASK_ENTRY) NULL};

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
  for (const mdv_task *const *t = mdv_tasks; *t; t++) { /* the others in list order, the default left out */
    if (*t != def && --k == 0) return *t;
  }
  return NULL;
}
