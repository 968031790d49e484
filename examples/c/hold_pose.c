/* Run the built-in duck under the hold-pose policy (all-zero actions) and print what it earned.
 * Build against an installed mdvec: cc hold_pose.c $(pkg-config --cflags --libs mdvec) */
#include <stdio.h>
#include <stdlib.h>

#include <mdvec.h>

int main(void) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 8;
  cfg.threads = 2;
  mdvec_t *env;
  char err[512];
  if (mdvec_create(&env, &cfg, err, sizeof err) != MDVEC_OK) {
    fprintf(stderr, "mdvec_create: %s\n", err);
    return 1;
  }
  mdvec_dims_t dims = {.struct_size = sizeof dims};
  mdvec_dims(env, &dims);
  double *actions = calloc((size_t)dims.num_envs * dims.nu, sizeof(double));
  double total = 0;
  int episodes = 0;
  mdvec_reset(env);
  for (int step = 0; step < 250; step++) {
    if (mdvec_step(env, actions) != MDVEC_OK) {
      fprintf(stderr, "mdvec_step: %s\n", mdvec_errmsg(env));
      return 1;
    }
    for (int i = 0; i < dims.num_envs; i++) {
      total += mdvec_reward(env)[i];
      episodes += mdvec_done(env)[i];
    }
  }
  printf("mdvec %d on MuJoCo %d: %d envs x %d threads, %d episodes, mean return %.2f\n", mdvec_version(),
         mdvec_mujoco_version(), dims.num_envs, dims.threads, episodes, total / dims.num_envs);
  free(actions);
  mdvec_destroy(env);
  return episodes == dims.num_envs ? 0 : 1;
}
