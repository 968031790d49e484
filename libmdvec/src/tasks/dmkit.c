/* dmkit.c: the Control Suite kit; see dmkit.h.
 *
 * References (dm_control 1.0.50): rl/control.py (Environment.reset/step, compute_n_steps), mujoco/engine.py
 * (Physics.reset, after_reset, step, _step_with_up_to_date_position_velocity, check_invalid_state,
 * action_spec), suite/base.py (Task.before_step), suite/common/__init__.py (ASSETS),
 * suite/utils/randomizers.py, utils/rewards.py.
 */
#include "dmkit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mujoco/mjxmacro.h>

#include "model.h"

/*---------------------------------- The model -----------------------------------------------------*/

/* suite/common's files, by the names common.ASSETS gives them (the domain XML includes them so). */
static const char *const common_files[] = {"./common/materials.xml", "./common/skybox.xml", "./common/visual.xml"};
enum { N_COMMON = sizeof common_files / sizeof common_files[0] };

/* Read the regular file at path whole into *data (NUL-terminated); return 0, or -1 with a message. */
static int read_file(const char *path, char **data, size_t *size, char *err, size_t n) {
  *data = NULL;
  struct stat st;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  const char *why = NULL;
  if (fd < 0)
    why = strerror(errno);
  else if (fstat(fd, &st) != 0)
    why = strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = S_ISDIR(st.st_mode) ? "a directory" : "not a regular file";
  else if (st.st_size > INT_MAX)
    why = "larger than 2 GB";
  else if (!(*data = malloc((size_t)st.st_size + 1)))
    why = "out of memory";
  size_t got = 0;
  while (!why && got < (size_t)st.st_size) {
    ssize_t k = read(fd, *data + got, (size_t)st.st_size - got);
    if (k <= 0) why = "could not be read whole";
    got += k > 0 ? (size_t)k : 0;
  }
  if (fd >= 0) close(fd);
  if (why) {
    free(*data);
    *data = NULL;
    snprintf(err, n, "%.600s: %s", path, why);
    return -1;
  }
  (*data)[got] = 0;
  *size = got;
  return 0;
}

typedef struct edit_ctx_ { /* what a dm_def.edit needs, through mdv_spec_edit's ctx */
  const dm_def *def;
  const mdv_value *opts;
  int code;
} edit_ctx;

static int edit_spec(mjSpec *spec, const void *ctx, char *err, size_t n) {
  edit_ctx *c = (edit_ctx *)ctx;
  c->code = c->def->edit(spec, c->opts, err, n);
  return c->code == MDVEC_OK ? 0 : -1;
}

/* Load <suite_dir>/<def->xml> with suite_dir/common's files, as Physics.from_xml_string(xml, common.ASSETS). */
static int load(dm_shared *k, const mdv_value *opts, char *err, size_t n) {
  const dm_def *def = k->def;
  const char *dir = opts[DM_OPT_SUITE_DIR].s;
  if (!dir || !dir[0]) {
    snprintf(err, n,
             "%s: suite_dir is not set: give the folder of dm_control's suite (pip install dm-control; the Python "
             "binding finds it)",
             def->task);
    return MDVEC_ERR_CONFIG;
  }
  size_t len = strlen(dir) + strlen(def->xml) + 2;
  if (!(k->path = malloc(len))) {
    snprintf(err, n, "%s: out of memory", def->task);
    return MDVEC_ERR_NOMEM;
  }
  snprintf(k->path, len, "%s/%s", dir, def->xml);
  mdv_model_file files[1 + N_COMMON];
  memset(files, 0, sizeof files);
  char why[800] = "";
  int rc = MDVEC_OK;
  files[0].name = def->xml;
  if (read_file(k->path, (char **)&files[0].data, &files[0].size, why, sizeof why)) rc = MDVEC_ERR_CONFIG;
  for (int i = 0; rc == MDVEC_OK && i < N_COMMON; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, common_files[i] + 2);
    files[1 + i].name = common_files[i];
    if (read_file(path, (char **)&files[1 + i].data, &files[1 + i].size, why, sizeof why)) rc = MDVEC_ERR_CONFIG;
  }
  if (rc != MDVEC_OK) {
    snprintf(err, n, "%s: cannot read dm_control's model: %s (suite_dir must be dm_control's suite folder)", def->task,
             why);
  } else {
    edit_ctx ctx = {def, opts, MDVEC_OK};
    int code = MDVEC_ERR_MODEL;
    k->m =
      mdv_model_load_files(k->path, files, 1 + N_COMMON, def->edit ? edit_spec : NULL, &ctx, &code, why, sizeof why);
    if (!k->m) {
      snprintf(err, n, "%s: %s", def->task, why);
      rc = ctx.code != MDVEC_OK ? ctx.code : code;
    }
  }
  for (int i = 0; i < 1 + N_COMMON; i++) free((char *)files[i].data);
  return rc;
}

/* compute_n_steps and the step limit, from the options (dm_control's rules and messages). */
static int timing(dm_shared *k, const mdv_value *opts, char *err, size_t n) {
  const char *task = k->def->task;
  double ts = k->m->opt.timestep;
  double ct = opts[DM_OPT_CONTROL_TIMESTEP].d[0];
  int64_t sub = opts[DM_OPT_N_SUB_STEPS].i[0];
  if (!(ts > 0) || !isfinite(ts)) {
    snprintf(err, n, "%s: the model's timestep %g is not a positive finite number", task, ts);
    return MDVEC_ERR_MODEL;
  }
  if (sub > 0 && ct > 0) {
    snprintf(err, n,
             "%s: both n_sub_steps (%lld) and control_timestep (%g) were supplied; give one (control_timestep 0: "
             "unset)",
             task, (long long)sub, ct);
    return MDVEC_ERR_CONFIG;
  }
  if (sub > 0) {
    k->n_sub_steps = (int)sub;
  } else if (ct > 0) {
    if (ct < ts) {
      snprintf(err, n, "%s: control_timestep (%g) cannot be smaller than the physics timestep (%g)", task, ct, ts);
      return MDVEC_ERR_CONFIG;
    }
    double ratio = ct / ts;
    if (fabs(ratio - nearbyint(ratio)) > 1e-8) { /* Python's round: half to even, as nearbyint */
      snprintf(err, n, "%s: control_timestep (%g) must be an integer multiple of the physics timestep (%g)", task, ct,
               ts);
      return MDVEC_ERR_CONFIG;
    }
    if (nearbyint(ratio) > 1e6) {
      snprintf(err, n, "%s: control_timestep (%g) is more than 1e6 physics steps of %g", task, ct, ts);
      return MDVEC_ERR_CONFIG;
    }
    k->n_sub_steps = (int)nearbyint(ratio);
  } else {
    k->n_sub_steps = 1;
  }
  double limit = opts[DM_OPT_TIME_LIMIT].d[0];
  k->step_limit = limit == HUGE_VAL ? HUGE_VAL : limit / (ts * (double)k->n_sub_steps);
  k->legacy_step = opts[DM_OPT_LEGACY_STEP].i[0] != 0;
  k->max_episode_steps = (int)opts[DM_OPT_MAX_EPISODE_STEPS].i[0];
  return MDVEC_OK;
}

/* mujoco.action_spec(physics): ctrlrange where ctrllimited, else -+mjMAXVAL. */
static int action_bounds(dm_shared *k, char *err, size_t n) {
  const mjModel *m = k->m;
  if (m->nu < 1) {
    snprintf(err, n, "%s: the model has no actuator", k->def->task);
    return MDVEC_ERR_MODEL;
  }
  k->act_low = malloc(sizeof(double) * (size_t)m->nu);
  k->act_high = malloc(sizeof(double) * (size_t)m->nu);
  if (!k->act_low || !k->act_high) {
    snprintf(err, n, "%s: out of memory", k->def->task);
    return MDVEC_ERR_NOMEM;
  }
  for (int i = 0; i < m->nu; i++) {
    int limited = m->actuator_ctrllimited[i] != 0;
    k->act_low[i] = limited ? m->actuator_ctrlrange[2 * i] : -mjMAXVAL;
    k->act_high[i] = limited ? m->actuator_ctrlrange[2 * i + 1] : mjMAXVAL;
  }
  return MDVEC_OK;
}

static const mdv_field dm_info[DM_N_INFO] = {
  [DM_INFO_DISCOUNT] = {"timestep.discount", MDVEC_DTYPE_F64, MDVEC_INFO_STEP},
  [DM_INFO_STEP_TYPE] = {"timestep.step_type", MDVEC_DTYPE_I64, MDVEC_INFO_STEP | MDVEC_INFO_RESET},
};

int dm_create(const dm_def *def, void **shared, const mdv_value *opts, const mdv_dot *dot, mdv_spec *spec, char *err,
              size_t n) {
  *shared = NULL;
  dm_shared *k = calloc(1, def->shared_size ? def->shared_size : sizeof *k);
  if (!k) {
    snprintf(err, n, "%s: out of memory", def->task);
    return MDVEC_ERR_NOMEM;
  }
  k->def = def;
  k->dot = *dot;
  int rc = load(k, opts, err, n);
  if (rc == MDVEC_OK) rc = timing(k, opts, err, n);
  if (rc == MDVEC_OK) rc = action_bounds(k, err, n);
  if (rc == MDVEC_OK) {
    spec->obs_dtype = MDVEC_DTYPE_F64;
    rc = def->setup(k, opts, spec, err, n);
  }
  if (rc != MDVEC_OK) {
    dm_destroy(k);
    return rc;
  }
  spec->n_info = DM_N_INFO;
  spec->info = dm_info;
  spec->act_dim = (int)k->m->nu;
  spec->act_low = k->act_low;
  spec->act_high = k->act_high;
  spec->max_episode_steps = k->max_episode_steps; /* the TimeLimit; dm_control's own limit is step_limit */
  spec->nq = (int)k->m->nq;
  spec->nv = (int)k->m->nv;
  spec->nbody = (int)k->m->nbody;
  spec->model_path = k->path;
  spec->dt = k->m->opt.timestep * (double)k->n_sub_steps; /* Environment.control_timestep() */
  spec->env_size = def->env_size ? def->env_size : sizeof(dm_env);
  *shared = k;
  return MDVEC_OK;
}

void dm_destroy(void *shared) {
  dm_shared *k = shared;
  if (!k) return;
  if (k->def->free) k->def->free(k);
  if (k->m) mj_deleteModel(k->m);
  free(k->path);
  free(k->act_low);
  free(k->act_high);
  free(k);
}

int dm_obs_layout(dm_shared *k, const dm_obs_part *parts, int n, mdv_spec *spec, char *err, size_t err_size) {
  size_t used = 0;
  int dim = 0;
  k->obs_layout[0] = 0;
  for (int i = 0; i < n; i++) {
    const dm_obs_part *p = &parts[i];
    int w = p->rows == 0 ? snprintf(k->obs_layout + used, sizeof k->obs_layout - used, "%s%s()", i ? "," : "", p->name)
            : p->cols == 0
              ? snprintf(k->obs_layout + used, sizeof k->obs_layout - used, "%s%s(%d)", i ? "," : "", p->name, p->rows)
              : snprintf(k->obs_layout + used, sizeof k->obs_layout - used, "%s%s(%d,%d)", i ? "," : "", p->name,
                         p->rows, p->cols);
    if (w < 0 || (size_t)w >= sizeof k->obs_layout - used) {
      snprintf(err, err_size, "%s: the observation's layout is longer than %zu bytes", k->def->task,
               sizeof k->obs_layout);
      return MDVEC_ERR_MODEL;
    }
    used += (size_t)w;
    dim += p->rows == 0 ? 1 : p->rows * (p->cols ? p->cols : 1);
  }
  spec->obs_dim = dim;
  spec->obs_layout = k->obs_layout;
  return MDVEC_OK;
}

/*---------------------------------- Env -----------------------------------------------------------*/

/* The arrays an env's model shares with the task's model (read-only: large data MuJoCo never writes and no
 * task changes: texture pixels, mesh and height-field data). Every other array is the env's own copy. */
static const char *const shared_arrays[] = {"tex_data",     "mesh_vert",         "mesh_normal", "mesh_texcoord",
                                            "mesh_face",    "mesh_facenormal",   "mesh_graph",  "mesh_polyvert",
                                            "mesh_polymap", "mesh_facetexcoord", "hfield_data", "mesh_polynormal"};

static int is_shared_array(const char *name) {
  for (size_t i = 0; i < sizeof shared_arrays / sizeof shared_arrays[0]; i++)
    if (!strcmp(name, shared_arrays[i])) return 1;
  return 0;
}

#define XNV X
#undef MJ_M
#define MJ_M(n) n

/* The env's model: a copy of the mjModel struct whose arrays are copies of m's in one block (the copy's
 * buffer), except the shared_arrays, which point into m's. dm_control's Physics.reset changes
 * opt.disableflags and tasks change geom_pos, site_rgba, body_pos ... at reset: each env changes its own.
 * MuJoCo reads a model's arrays through its pointers only, so it steps such a model as a full copy. */
static mjModel *model_copy(const mjModel *m, char *err, size_t n) {
  MJMODEL_POINTERS_PREAMBLE(m)
  size_t bytes = 0;
#define X(type, name, nr, nc) \
  if (!is_shared_array(#name)) bytes += (sizeof(type) * (size_t)(m->nr) * (size_t)(nc) + 63) & ~(size_t)63;
  MJMODEL_POINTERS
#undef X
  mjModel *copy = malloc(sizeof *copy);
  char *block = malloc(bytes ? bytes : 1);
  if (!copy || !block) {
    free(copy);
    free(block);
    snprintf(err, n, "out of memory (a model copy of %zu bytes)", bytes);
    return NULL;
  }
  memcpy(copy, m, sizeof *copy);
  size_t at = 0;
#define X(type, name, nr, nc)                                    \
  if (!is_shared_array(#name)) {                                 \
    size_t size = sizeof(type) * (size_t)(m->nr) * (size_t)(nc); \
    copy->name = (type *)(void *)(block + at);                   \
    if (size) memcpy(copy->name, m->name, size);                 \
    at += (size + 63) & ~(size_t)63;                             \
  }
  MJMODEL_POINTERS
#undef X
  copy->buffer = block; /* holds the copied arrays only (bytes); nbuffer stays m's: the size MuJoCo gives a whole
                        * model of these sizes, which mj_sizeModel/mj_saveModel write and mj_loadModel checks (the
                        * env's MJB, mdvec_save_model). MuJoCo reads a model's arrays through their pointers only. */
  return copy;
}

static void model_free(mjModel *copy) {
  if (!copy) return;
  free(copy->buffer);
  free(copy);
}

int dm_env_init(void *env, const void *shared, char *err, size_t err_size) {
  dm_env *e = env;
  e->sh = shared;
  e->k = shared;
  int code = MDVEC_OK;
  if (!(e->m = model_copy(e->k->m, err, err_size))) return -1;
  if (!(e->d = mdv_data_make(e->m, &code, err, err_size))) return -1;
  mdv_mt19937_seed(&e->rng, 0);
  return 0;
}

void dm_env_free(void *env) {
  dm_env *e = env;
  if (e->d) mj_deleteData(e->d);
  model_free(e->m);
  e->d = NULL;
  e->m = NULL;
}

void dm_physics(void *env, const mjModel **m, mjData **d) {
  dm_env *e = env;
  *m = e->m;
  *d = e->d;
}

void dm_seed(void *env, uint64_t seed) {
  dm_env *e = env;
  mdv_mt19937_seed(&e->rng, (uint32_t)seed); /* the generic layer keeps seeds <= seed_max (UINT32_MAX) */
}

void dm_save(const void *env, mdv_blob *b) {
  const dm_env *e = env;
  mdv_mt19937_save(&e->rng, b);
  mdv_put_i64(b, e->step_count);
  mdv_model_diff_save(e->m, e->k->m, b);
}

void dm_load(void *env, mdv_blob *b, int apply) {
  dm_env *e = env;
  mdv_mt19937_load(&e->rng, b, apply);
  int64_t step_count = mdv_get_range(b, 0, INT64_MAX, "dm_control's step_count");
  if (apply && !b->bad) e->step_count = step_count;
  mdv_model_diff_load(e->m, e->k->m, b, apply);
}

/*---------------------------------- Physics -------------------------------------------------------*/

/* check_invalid_state's end: a warning counted since `before` is dm_control's PhysicsError, here a MuJoCo
 * error (trapped by the generic layer: the env fails with this message). */
static void check_warnings(const dm_env *e, const int *before) {
  static const char *const names[mjNWARNING] = {
    "mjWARN_INERTIA", "mjWARN_CONTACTFULL", "mjWARN_CNSTRFULL", "mjWARN_BADQPOS",
    "mjWARN_BADQVEL", "mjWARN_BADQACC",     "mjWARN_BADCTRL",
  };
  char msg[300] = "";
  size_t used = 0;
  for (int i = 0; i < mjNWARNING; i++) {
    if (e->d->warning[i].number > before[i] && used < sizeof msg) {
      int w = snprintf(msg + used, sizeof msg - used, "%s%s", used ? ", " : "", names[i] ? names[i] : "?");
      used += w > 0 ? (size_t)w : 0;
    }
  }
  if (used) mju_error("Physics state is invalid. Warning(s) raised: %s", msg);
}

static void warnings_now(const dm_env *e, int *out) {
  for (int i = 0; i < mjNWARNING; i++) out[i] = e->d->warning[i].number;
}

/* Physics.forward inside model.disable('actuation'); checked unless check is 0. */
static void forward_unactuated(dm_env *e, int check) {
  int before[mjNWARNING];
  warnings_now(e, before);
  int flags = e->m->opt.disableflags;
  e->m->opt.disableflags = flags | mjDSBL_ACTUATION;
  mj_forward(e->m, e->d);
  e->m->opt.disableflags = flags;
  if (check) check_warnings(e, before);
}

void dm_after_reset(dm_env *e) {
  forward_unactuated(e, 1);
}

void dm_physics_step(dm_env *e, int n) {
  int before[mjNWARNING];
  warnings_now(e, before);
  if (e->k->legacy_step) {
    if (e->m->opt.integrator != mjINT_RK4) {
      mj_step2(e->m, e->d);
      for (int i = 1; i < n; i++) mj_step(e->m, e->d);
    } else {
      for (int i = 0; i < n; i++) mj_step(e->m, e->d);
    }
    mj_step1(e->m, e->d);
  } else {
    for (int i = 0; i < n; i++) mj_step(e->m, e->d);
  }
  check_warnings(e, before);
}

/*---------------------------------- Reset and step ------------------------------------------------*/

void dm_reset(void *env, mdv_pcg64 *unused, const mdv_out *out) {
  (void)unused;
  dm_env *e = env;
  const dm_def *def = e->k->def;
  e->step_count = 0;
  mj_resetData(e->m, e->d); /* Physics.reset, whose PhysicsError reset_context ignores */
  forward_unactuated(e, 0);
  def->initialize_episode(e);
  dm_after_reset(e);
  def->get_observation(e, out->obs);
  out->info[(size_t)DM_INFO_STEP_TYPE * out->stride] = 0.0; /* StepType.FIRST */
}

void dm_step(void *env, const double *action, int action_dtype, mdv_pcg64 *unused, const mdv_out *out) {
  (void)action_dtype, (void)unused; /* float32 actions arrive widened: np.copyto into float64 ctrl is the same */
  dm_env *e = env;
  const dm_def *def = e->k->def;
  if (def->before_step) {
    def->before_step(e, action);
  } else {
    memcpy(e->d->ctrl, action, sizeof(double) * (size_t)e->m->nu);
  }
  dm_physics_step(e, e->k->n_sub_steps);
  if (def->after_step) def->after_step(e);
  double reward = def->get_reward(e);
  def->get_observation(e, out->obs);
  e->step_count += 1;
  double discount = 1.0;
  int last = 0;
  if ((double)e->step_count >= e->k->step_limit) {
    last = 1; /* discount 1.0: truncated */
  } else if (def->get_termination) {
    last = def->get_termination(e, &discount);
  }
  *out->reward = reward == 0.0 ? 0.0 : reward; /* Shimmy's `timestep.reward or 0`: -0.0 comes out as 0 */
  *out->terminated = (uint8_t)(last && !(discount > 0));
  int time_limit = e->k->max_episode_steps > 0 && e->step_count >= e->k->max_episode_steps; /* TimeLimit */
  *out->truncated = (uint8_t)((last && discount > 0) || time_limit);
  out->info[(size_t)DM_INFO_DISCOUNT * out->stride] = discount;
  out->info[(size_t)DM_INFO_STEP_TYPE * out->stride] = last ? 2.0 : 1.0;
}

/*---------------------------------- Pieces of the suite -------------------------------------------*/

void dm_randomize_joints(dm_env *e) {
  const mjModel *m = e->m;
  double *qpos = e->d->qpos;
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j], adr = m->jnt_qposadr[j];
    double lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
    if (m->jnt_limited[j]) {
      if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
        qpos[adr] = mdv_mt19937_uniform(&e->rng, lo, hi);
      } else if (type == mjJNT_BALL) { /* random_limited_quaternion(random, range_max) */
        double axis[3], quat[4];
        for (int i = 0; i < 3; i++) axis[i] = mdv_mt19937_randn(&e->rng);
        double norm = mdv_np_norm(&e->k->dot, axis, 3);
        for (int i = 0; i < 3; i++) axis[i] /= norm;
        double angle = mdv_mt19937_random(&e->rng) * hi;
        mju_axisAngle2Quat(quat, axis, angle);
        memcpy(qpos + adr, quat, sizeof quat);
      }
    } else if (type == mjJNT_HINGE) {
      qpos[adr] = mdv_mt19937_uniform(&e->rng, -3.141592653589793, 3.141592653589793);
    } else if (type == mjJNT_BALL || type == mjJNT_FREE) { /* ball: randn(4); free: rand(4), into qpos[3:] */
      double quat[4];
      for (int i = 0; i < 4; i++)
        quat[i] = type == mjJNT_BALL ? mdv_mt19937_randn(&e->rng) : mdv_mt19937_random(&e->rng);
      double norm = mdv_np_norm(&e->k->dot, quat, 4);
      for (int i = 0; i < 4; i++) qpos[adr + (type == mjJNT_FREE ? 3 : 0) + i] = quat[i] / norm;
    }
  }
}

/* x ** 2 as the reference computes it: libm pow on a numpy scalar, x * x on an array. */
static double square(double x, int kind) {
  return kind == DM_SCALAR ? mdv_py_pow(x, 2.0) : x * x;
}

/* rewards._sigmoids(x, value_at_1, sigmoid) for one value. */
static double sigmoid(double x, double v, int kind_of_sigmoid, int kind) {
  const double pi = 3.141592653589793;
  switch (kind_of_sigmoid) {
    case DM_GAUSSIAN: {
      double scale = sqrt(-2 * log(v));
      return exp(-0.5 * square(x * scale, kind));
    }
    case DM_HYPERBOLIC: {
      double scale = acosh(1 / v);
      return 1 / cosh(x * scale);
    }
    case DM_LONG_TAIL: {
      double scale = sqrt(1 / v - 1);
      return 1 / (square(x * scale, kind) + 1);
    }
    case DM_RECIPROCAL: {
      double scale = 1 / v - 1;
      return 1 / (fabs(x) * scale + 1);
    }
    case DM_COSINE: {
      double scale = acos(2 * v - 1) / pi;
      double scaled = x * scale;
      double c = cos(pi * scaled);
      return fabs(scaled) < 1 ? (1 + c) / 2 : 0.0;
    }
    case DM_LINEAR: {
      double scaled = x * (1 - v);
      return fabs(scaled) < 1 ? 1 - scaled : 0.0;
    }
    case DM_QUADRATIC: {
      double scaled = x * sqrt(1 - v);
      return fabs(scaled) < 1 ? 1 - square(scaled, kind) : 0.0;
    }
    default:
      return NAN;
  }
}

double dm_tolerance(double x, double lo, double hi, double margin, int kind_of_sigmoid, double value_at_margin,
                    int kind) {
  int in_bounds = lo <= x && x <= hi;
  if (margin == 0) return in_bounds ? 1.0 : 0.0;
  double d = (x < lo ? lo - x : x - hi) / margin;
  return in_bounds ? 1.0 : sigmoid(d, value_at_margin, kind_of_sigmoid, kind);
}
