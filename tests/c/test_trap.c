/* A MuJoCo error inside an env stops that env, not the process; a reset brings it back. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mdvec.h"

static void test_error_while_stepping(void) {
  char path[256], err[512];
  CHECK(check_duck_with_memory("40K", path, sizeof path) != NULL); /* enough to stand, not to lie down */
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = 2;
  cfg.threads = 2;
  cfg.model_path = path;
  cfg.n_pushes = 1;
  cfg.push_window[0] = 10;
  cfg.push_window[1] = 11;
  cfg.push_speed[0] = cfg.push_speed[1] = 2.0; /* both ducks fall, and the fall's contacts overflow */
  mdvec_t *h = NULL;
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_OK);
  if (!h) return;
  CHECK(mdvec_reset(h) == MDVEC_OK);
  double actions[2 * 14] = {0};
  int code = MDVEC_OK, steps = 0;
  while (code == MDVEC_OK && steps < 250) {
    code = mdvec_step(h, actions);
    steps++;
  }
  CHECK(code == MDVEC_ERR_PHYSICS);
  CHECK(steps > 10); /* it stood until the shove */
  CHECK(strstr(mdvec_errmsg(h), "MuJoCo error in env") && strstr(mdvec_errmsg(h), "mj_stackAlloc"));
  CHECK(mdvec_step(h, actions) == MDVEC_ERR_STATE && strstr(mdvec_errmsg(h), "reset it"));
  CHECK(mdvec_reset(h) == MDVEC_OK); /* standing fits the arena again */
  CHECK(mdvec_step(h, actions) == MDVEC_OK);
  CHECK(mdvec_info(h)[0] == 1.0); /* t of env 0: a fresh episode */
  mdvec_destroy(h);
  remove(path);
}

static void test_error_while_creating(void) {
  char path[256], err[512] = "";
  CHECK(check_duck_with_memory("24K", path, sizeof path) != NULL); /* too small even to stand */
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.model_path = path;
  mdvec_t *h = NULL;
  CHECK(mdvec_create(&h, &cfg, err, sizeof err) == MDVEC_ERR_MODEL && h == NULL);
  CHECK(strstr(err, "MuJoCo error") && strstr(err, "mj_stackAlloc"));
  remove(path);
}

int main(void) {
  test_error_while_stepping();
  test_error_while_creating();
  return check_summary("test_trap");
}
