/* profile_step: one env on one thread, 500 steps of fixed pseudo-random actions, for a profiler:
 *   valgrind --tool=callgrind ./build/bench/profile_step && callgrind_annotate --inclusive=yes callgrind.out.*
 * Instruction counts repeat exactly run to run, unlike timings on a shared machine. */
#include <stdio.h>

#include <mdvec.h>

int main(void) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.threads = 1;
  mdvec_t *env;
  char err[512];
  if (mdvec_create(&env, &cfg, err, sizeof err) != MDVEC_OK) {
    fprintf(stderr, "mdvec_create: %s\n", err);
    return 1;
  }
  double a[14] = {0};
  mdvec_reset(env);
  for (int s = 0; s < 500; s++) {
    for (int k = 0; k < 14; k++) a[k] = ((s * 7 + k * 3) % 11 - 5) / 5.0;
    if (mdvec_step(env, a) != MDVEC_OK) return 1;
  }
  mdvec_destroy(env);
  return 0;
}
