/* Run one of Gymnasium's MuJoCo v5 tasks from C, with zero actions, on a model file of the installed
 * gymnasium package (libmdvec reads no Python package: the caller gives the task's xml_file option;
 * mdvec-config --model TASK prints the default one). Against a pip-installed mdvec:
 *   cc gym_task.c $(mdvec-config --cflags --libs) -o gym_task
 *   ./gym_task Hopper-v5 "$(mdvec-config --model Hopper-v5)" */
#include <stdio.h>
#include <stdlib.h>

#include <mdvec.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s TASK MODEL_XML   e.g. %s Hopper-v5 \"$(mdvec-config --model Hopper-v5)\"\n", argv[0],
            argv[0]);
    return 2;
  }
  mdvec_option_t xml_file = {"xml_file", argv[2]};
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.task = argv[1];
  cfg.options = &xml_file;
  cfg.n_options = 1;
  cfg.num_envs = 4;
  cfg.threads = 2;
  mdvec_t *env;
  char err[512];
  if (mdvec_create(&env, &cfg, err, sizeof err) != MDVEC_OK) {
    fprintf(stderr, "mdvec_create: %s\n", err);
    return 1;
  }
  mdvec_spec_t spec = {.struct_size = sizeof spec};
  mdvec_spec(env, &spec);
  double *actions = calloc((size_t)spec.num_envs * spec.act_dim, sizeof(double));
  double *running = calloc((size_t)spec.num_envs, sizeof(double));
  if (!actions || !running) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  double total = 0;
  int episodes = 0;
  mdvec_reset(env);
  for (int step = 0; step < 1000; step++) {
    if (mdvec_step(env, actions) != MDVEC_OK) {
      fprintf(stderr, "mdvec_step: %s\n", mdvec_errmsg(env));
      return 1;
    }
    for (int i = 0; i < spec.num_envs; i++) {
      running[i] += mdvec_reward(env)[i];
      if (mdvec_done(env)[i]) {
        total += running[i];
        running[i] = 0;
        episodes++;
      }
    }
  }
  printf("%s (%s): obs %d, actions %d, %d envs; %d episodes in 1000 steps, mean return %.2f\n", spec.task,
         spec.model_path, spec.obs_dim, spec.act_dim, spec.num_envs, episodes, episodes ? total / episodes : 0.0);
  free(running);
  free(actions);
  mdvec_destroy(env);
  return episodes > 0 ? 0 : 1;
}
