/* Pixel observations (render.c, egl.c): EGL is loaded only when frames are asked for; a missing EGL, bad
 * sizes and cameras are refused at create with a message; frames are drawn with one context per pool thread
 * (the same bytes at 1 and 2 threads, and with asynchronous send/recv), stacked oldest first and filled on
 * reset; the caller's own EGL binding survives a call; a lost context fails the call, not the process;
 * nothing leaks (ASan, TSan).
 * The built-in duck keeps it free of files. Without a usable EGL the drawing checks are skipped (exit 77)
 * saying why. Frames equal to the references' are tests/py/test_pixels.py's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "egl.h"
#include "mdvec.h"
#include "render.h"

#define W 21 /* 3 * 21 bytes per row: not a multiple of 4 (GL's default row alignment) */
#define H 16

/* Return nonzero when a library whose name holds `name` is mapped into this process. */
static int mapped(const char *name) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return 0;
  char line[1024];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
  fclose(f);
  return found;
}

/* Create a duck handle with these pixel options (n of them) and num_envs / threads; return the code. */
static int make(mdvec_t **h, int num_envs, int threads, const mdvec_option_t *opts, int n, char *err, size_t size) {
  mdvec_config_t cfg;
  mdvec_config_default(&cfg);
  cfg.num_envs = num_envs;
  cfg.threads = threads;
  cfg.seed = 7;
  cfg.autoreset = MDVEC_AUTORESET_NEXT_STEP;
  cfg.options = opts;
  cfg.n_options = n;
  err[0] = 0;
  return mdvec_create(h, &cfg, err, size);
}

static const mdvec_option_t pixels3[] = {
  {"obs_mode", "state+pixels"}, {"width", "21"}, {"height", "16"}, {"frame_stack", "3"}};

/* The checks that need no EGL: a state-only handle loads none; refusals made before EGL is loaded. */
static void without_gl(void) {
  char err[1024];
  mdvec_t *h = NULL;
  CHECK_THAT("libEGL not mapped at start", !mapped("libEGL"));
  CHECK(make(&h, 2, 2, NULL, 0, err, sizeof err) == MDVEC_OK);
  double act[2 * 14] = {0};
  CHECK(mdvec_reset(h) == MDVEC_OK);
  CHECK(mdvec_step(h, act) == MDVEC_OK);
  CHECK_THAT("state only: no frames", mdvec_pixels(h) == NULL && mdvec_final_pixels(h) == NULL);
  mdvec_pixels_info_t info = {.struct_size = sizeof info};
  CHECK(mdvec_pixels_info(h, &info) == MDVEC_OK && info.obs_mode == MDVEC_OBS_STATE && info.width == 0);
  mdvec_destroy(h);
  CHECK_THAT("a state-only handle never loads libEGL", !mapped("libEGL"));

  /* the catalogue of pixel options */
  CHECK(mdvec_pixel_option_count() == 6);
  mdvec_option_info_t o = {.struct_size = sizeof o};
  CHECK(mdvec_pixel_option(0, &o) == MDVEC_OK && !strcmp(o.name, "obs_mode"));
  CHECK(mdvec_pixel_option(5, &o) == MDVEC_OK && !strcmp(o.name, "gymnasium") && !strcmp(o.def, "1.4"));
  CHECK(mdvec_pixel_option(6, &o) == MDVEC_ERR_ARG);

  /* refused before EGL is loaded */
  const mdvec_option_t bad_mode[] = {{"obs_mode", "rgb"}};
  CHECK(make(&h, 1, 1, bad_mode, 1, err, sizeof err) == MDVEC_ERR_CONFIG && h == NULL);
  CHECK_THAT(WHAT("bad obs_mode named: %s", err), strstr(err, "obs_mode") != NULL);
  const mdvec_option_t too_wide[] = {{"obs_mode", "pixels"}, {"width", "16385"}};
  CHECK(make(&h, 1, 1, too_wide, 2, err, sizeof err) == MDVEC_ERR_CONFIG);
  CHECK_THAT(WHAT("width bound named: %s", err), strstr(err, "width") && strstr(err, "16384"));
  const mdvec_option_t bad_rules[] = {{"obs_mode", "pixels"}, {"gymnasium", "1.3"}};
  CHECK(make(&h, 1, 1, bad_rules, 2, err, sizeof err) == MDVEC_ERR_CONFIG);
  CHECK_THAT(WHAT("gymnasium's choices named: %s", err), strstr(err, "gymnasium") && strstr(err, "1.2"));
  const mdvec_option_t twice[] = {{"obs_mode", "pixels"}, {"width", "8"}, {"width", "9"}};
  CHECK(make(&h, 1, 1, twice, 3, err, sizeof err) == MDVEC_ERR_CONFIG);
  /* frames that cannot fit: refused with the bytes asked for, nothing allocated */
  const mdvec_option_t huge[] = {{"obs_mode", "pixels"}, {"width", "16384"}, {"height", "16384"}};
  CHECK(make(&h, 100000, 1, huge, 3, err, sizeof err) == MDVEC_ERR_NOMEM && h == NULL);
  CHECK_THAT(WHAT("memory refusal gives the size: %s", err), strstr(err, "80530636800000 bytes") != NULL);
  const mdvec_option_t overflow[] = {
    {"obs_mode", "pixels"}, {"width", "16384"}, {"height", "16384"}, {"frame_stack", "1024"}};
  CHECK(make(&h, 2147483647, 1, overflow, 4, err, sizeof err) == MDVEC_ERR_NOMEM && h == NULL);
  CHECK_THAT(WHAT("overflow refused: %s", err), strstr(err, "size_t") != NULL);
  /* an unknown task option still names the task's options */
  const mdvec_option_t unknown[] = {{"obs_mode", "pixels"}, {"widht", "8"}};
  CHECK(make(&h, 1, 1, unknown, 2, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "widht"));
  CHECK_THAT("refusals load no libEGL", !mapped("libEGL"));

  /* no EGL library: one clear error naming MUJOCO_GL and what to install, never an abort */
  setenv("MDVEC_LIBEGL", "/nonexistent/libEGL.so.1", 1);
  const mdvec_option_t px[] = {{"obs_mode", "pixels"}, {"width", "8"}, {"height", "8"}};
  CHECK(make(&h, 2, 2, px, 3, err, sizeof err) == MDVEC_ERR_GL && h == NULL);
  CHECK_THAT(WHAT("no EGL: %s", err),
             strstr(err, "MUJOCO_GL") && strstr(err, "apt install libegl1") && strstr(err, "/nonexistent/libEGL.so.1"));
  unsetenv("MDVEC_LIBEGL");
  CHECK(!strcmp(mdvec_strerror(MDVEC_ERR_GL), "OpenGL (EGL) missing or failed"));
}

/* Return frame f of env i. */
static const uint8_t *frame(const mdvec_t *h, int i, int f) {
  mdvec_pixels_info_t info = {.struct_size = sizeof info};
  mdvec_pixels_info(h, &info);
  return mdvec_pixels(h) + (size_t)i * info.env_bytes + (size_t)f * info.frame_bytes;
}

/* The drawing checks; return 0, or 77 (skip) when no EGL works here. */
static int with_gl(void) {
  char err[1024];
  mdvec_t *h2 = NULL, *h1 = NULL;
  int code = make(&h2, 2, 2, pixels3, 4, err, sizeof err);
  if (code == MDVEC_ERR_GL) {
    printf("render: no usable EGL here, drawing checks skipped: %s\n", err);
    return 77;
  }
  CHECK_THAT(WHAT("create: %s", err), code == MDVEC_OK);
  CHECK(make(&h1, 2, 1, pixels3, 4, err, sizeof err) == MDVEC_OK);
  if (!h1 || !h2) return 0;
  mdvec_pixels_info_t info = {.struct_size = sizeof info};
  CHECK(mdvec_pixels_info(h2, &info) == MDVEC_OK);
  CHECK(info.obs_mode == MDVEC_OBS_STATE_PIXELS && info.width == W && info.height == H && info.frame_stack == 3);
  CHECK(info.frame_bytes == (size_t)W * H * 3 && info.env_bytes == 3 * info.frame_bytes);
  CHECK_THAT("the duck's default camera: mdvec's tracking one", info.camera_id == -1);
  CHECK_THAT(WHAT("renderer named: %s", info.renderer ? info.renderer : "(null)"), info.renderer && *info.renderer);
  CHECK_THAT("NEXT_STEP: the final frames are the frames", mdvec_final_pixels(h2) == mdvec_pixels(h2));
  CHECK_THAT("libEGL loaded now", mapped("libEGL"));

  /* the caller's own EGL binding survives the calls (thread 0 renders on the caller's thread) */
  mdv_egl *mine = NULL;
  CHECK(mdv_egl_open(&mine, err, sizeof err) == 0);
  void *ctx = mine ? mdv_egl_context(mine, err, sizeof err) : NULL;
  CHECK(ctx && mdv_egl_make_current(mine, ctx, err, sizeof err) == 0);

  CHECK(mdvec_reset(h2) == MDVEC_OK);
  CHECK(mdvec_reset(h1) == MDVEC_OK);
  mdv_egl_current cur;
  mdv_egl_save(mine, &cur);
  CHECK_THAT("the caller's context is current again after a call", cur.context == ctx);
  size_t fb = info.frame_bytes, all = 2 * info.env_bytes;
  CHECK_THAT("1 and 2 threads: the same bytes", !memcmp(mdvec_pixels(h1), mdvec_pixels(h2), all));
  int filled = 1, drawn = 0;
  for (int i = 0; i < 2; i++) {
    filled &= !memcmp(frame(h2, i, 0), frame(h2, i, 2), fb) && !memcmp(frame(h2, i, 1), frame(h2, i, 2), fb);
    for (size_t k = 0; k < fb; k++) drawn |= frame(h2, i, 2)[k] != 0;
  }
  CHECK_THAT("a reset fills the stack with its first frame", filled);
  CHECK_THAT("something was drawn", drawn);

  /* steps: the stack moves one frame older and the new frame is last */
  uint8_t *before = malloc(all);
  double act[2 * 14];
  int shifted = 1, same = 1, moved = 0;
  for (int t = 0; t < 2 && before; t++) {
    for (int k = 0; k < 2 * 14; k++) act[k] = 0.6 * ((k * 7 + t * 3) % 5 - 2) / 2.0;
    memcpy(before, mdvec_pixels(h2), all);
    CHECK(mdvec_step(h2, act) == MDVEC_OK && mdvec_step(h1, act) == MDVEC_OK);
    for (int i = 0; i < 2; i++) {
      const uint8_t *old = before + (size_t)i * info.env_bytes;
      shifted &= mdvec_reset_flags(h2)[i] || !memcmp(frame(h2, i, 0), old + fb, 2 * fb);
      moved |= memcmp(frame(h2, i, 2), old + 2 * fb, fb) != 0;
    }
    same &= !memcmp(mdvec_pixels(h1), mdvec_pixels(h2), all);
  }
  free(before);
  CHECK_THAT("a step moves the stack one frame older", shifted);
  CHECK_THAT("the newest frame changes as the duck moves", moved);
  CHECK_THAT("1 and 2 threads: the same bytes after steps", same);
  mdv_egl_save(mine, &cur);
  CHECK_THAT("the caller's context is still current", cur.context == ctx);

  /* asynchronous send/recv draws too, on the queue's threads and on the caller's in recv: envs sent out of
   * order and received in two batches hold the bytes of synchronous steps, and a seeded send_reset the
   * bytes of a seeded reset; the caller's binding survives */
  int same_async = 1;
  for (int t = 0; t < 3; t++) {
    double rev[2 * 14]; /* rows in the order of ids: env 1, then env 0 */
    for (int k = 0; k < 2 * 14; k++) act[k] = 0.5 * ((k * 5 + t * 7) % 5 - 2) / 2.0;
    memcpy(rev, act + 14, 14 * sizeof *rev);
    memcpy(rev + 14, act, 14 * sizeof *rev);
    const int32_t order[2] = {1, 0};
    int32_t got[2] = {-1, -1};
    CHECK(mdvec_step(h1, act) == MDVEC_OK);
    CHECK(mdvec_send(h2, rev, MDVEC_DTYPE_F64, order, 2) == MDVEC_OK);
    CHECK(mdvec_recv(h2, 1, got) == MDVEC_OK && got[0] == 1);
    CHECK(mdvec_recv(h2, 1, got + 1) == MDVEC_OK && got[1] == 0);
    same_async &= !memcmp(mdvec_pixels(h1), mdvec_pixels(h2), all);
  }
  CHECK_THAT("async steps: the bytes of synchronous steps", same_async);
  const uint64_t reseed[2] = {11, 12};
  CHECK(mdvec_reset_envs(h1, NULL, reseed, NULL) == MDVEC_OK);
  CHECK(mdvec_send_reset(h2, NULL, 2, reseed, NULL) == MDVEC_OK && mdvec_recv(h2, 2, NULL) == MDVEC_OK);
  CHECK_THAT("async seeded reset: the bytes of a synchronous one", !memcmp(mdvec_pixels(h1), mdvec_pixels(h2), all));
  CHECK(!memcmp(frame(h2, 0, 0), frame(h2, 0, 2), fb));
  mdv_egl_save(mine, &cur);
  CHECK_THAT("the caller's context is still current after recv", cur.context == ctx);

  /* explicit reset of one env with parameters-free mask: its stack is refilled */
  uint8_t mask[2] = {0, 1};
  CHECK(mdvec_reset_envs(h2, mask, NULL, NULL) == MDVEC_OK);
  CHECK(!memcmp(frame(h2, 1, 0), frame(h2, 1, 2), fb) && !memcmp(frame(h2, 1, 1), frame(h2, 1, 2), fb));

  /* bad cameras are refused, naming the range or the cameras */
  mdvec_t *h = NULL;
  const mdvec_option_t cam_id[] = {{"obs_mode", "pixels"}, {"width", "8"}, {"height", "8"}, {"camera", "99"}};
  CHECK(make(&h, 1, 1, cam_id, 4, err, sizeof err) == MDVEC_ERR_CONFIG && h == NULL);
  CHECK_THAT(WHAT("camera id range: %s", err), strstr(err, "camera") && strstr(err, "[-1,"));
  const mdvec_option_t cam_name[] = {{"obs_mode", "pixels"}, {"width", "8"}, {"height", "8"}, {"camera", "nope"}};
  CHECK(make(&h, 1, 1, cam_name, 4, err, sizeof err) == MDVEC_ERR_CONFIG && strstr(err, "'nope'"));
  const mdvec_option_t free_cam[] = {{"obs_mode", "pixels"}, {"width", "8"}, {"height", "8"}, {"camera", "-1"}};
  CHECK(make(&h, 1, 1, free_cam, 4, err, sizeof err) == MDVEC_OK);
  mdvec_destroy(h);

  /* sizes beyond the GL limit: refused with the limit */
  const mdvec_option_t gl_big[] = {{"obs_mode", "pixels"}, {"width", "16384"}, {"height", "16384"}};
  code = make(&h, 1, 1, gl_big, 3, err, sizeof err);
  if (code == MDVEC_ERR_CONFIG)
    CHECK_THAT(WHAT("GL limit given: %s", err), strstr(err, "GL limit") != NULL);
  else
    CHECK_THAT(WHAT("16384 x 16384 within this GL's limit: %d %s", code, err), code == MDVEC_OK);
  mdvec_destroy(h);

  /* a lost context: the call fails with MDVEC_ERR_GL (the physics happened), later ones too; no crash */
  mdv_render_lose_context(mdv_handle_render(h2));
  code = mdvec_step(h2, act);
  CHECK_THAT(WHAT("lost context: %d %s", code, mdvec_errmsg(h2)),
             code == MDVEC_ERR_GL && strstr(mdvec_errmsg(h2), "eglMakeCurrent"));
  CHECK(mdvec_step(h2, act) == MDVEC_ERR_GL);
  mdv_egl_save(mine, &cur);
  CHECK_THAT("the caller's context survives a failed call", cur.context == ctx);
  mdvec_destroy(h2);
  mdvec_destroy(h1);

  /* a state-only handle still works after pixel ones */
  mdvec_t *s = NULL;
  CHECK(make(&s, 2, 2, NULL, 0, err, sizeof err) == MDVEC_OK && mdvec_reset(s) == MDVEC_OK);
  mdvec_destroy(s);

  if (mine) {
    mdv_egl_restore(mine, &(mdv_egl_current){0});
    mdv_egl_destroy(mine, ctx);
    mdv_egl_close(mine);
  }
  return 0;
}

int main(void) {
  without_gl();
  int skip = with_gl();
  int rc = check_summary("render");
  return rc ? rc : skip;
}
