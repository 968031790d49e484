"""Side-by-side benchmark of dm_control's Control Suite tasks: mdvec against EnvPool, dm_control in Python and bare physics.

Per task of ``dm_control.suite.BENCHMARKING`` that libmdvec has ("cheetah-run", ...; ``--tasks``) and per
number of envs N (default 8), every backend below is built once (each thread count its own instance) and
all are stepped in alternating windows (one window per cell per round, the starting cell rotating each
round), at equal threads T (default 1 and 2). First mdvec records a run under uniform random actions in
the task's action bounds (float64, as dm_control's action spec and Shimmy's Box): the actions, the envs it
reset at each step and every env's state after each step. Every cell steps with those actions, each with
the task's own time limit and NEXT_STEP autoresets (the step after a LAST step resets that env instead of
stepping it: Gymnasium's default, EnvPool's behaviour, and what dm_control's own Environment does).

  mdvec         ``mdvec.VecEnv(N, task=ID, threads=T, suite_dir=..., autoreset_mode="next_step")
                .step_into_buffers`` (float64 actions): the Python binding, one ctypes call per vector step
  mdvec C       the same kind of handle stepped by ``mdvec_step_typed`` in a C loop: the C library alone
  EnvPool       ``envpool.make("CheetahRun-v1", env_type="gymnasium", num_envs=N, batch_size=N,
                num_threads=T).step`` (EnvPool 1.2.5's own C++ port of the suite, on the MuJoCo it links
                statically, reading the same XML files: envpool_assets' assets_dmc are dm_control's, byte
                for byte)
  dm sync       dm_control in Python: ``gymnasium.vector.SyncVectorEnv`` of N envs in this process (shown at
                T = 1), each ``mdvec.reference.dm_control.DmControlEnv`` (``suite.load`` + Shimmy's
                reset/step mapping, flat float64 observation) in a minimal ``gymnasium.Env``
  dm async      the same envs in ``gymnasium.vector.AsyncVectorEnv`` (fork, shared memory): N processes,
                pinned to T CPUs for each window (T >= CPUs: not pinned)
  bare          the physics of a suite step and nothing else, through MuJoCo's public C API, on mujoco
                4.0.0 (the libmujoco mdvec links) and the benchmarks' own thread crew (bench/crew.c,
                compiled in; a contiguous block of envs per thread, as mdvec assigns them): per env and
                step either ctrl = action, then dm_control's Physics.step(n_sub_steps) (legacy step:
                mj_step2, n_sub_steps - 1 x mj_step, mj_step1; RK4 models: n_sub_steps x mj_step, mj_step1;
                legacy_step=False: n_sub_steps x mj_step), or, where mdvec reset that env, mj_resetData,
                mdvec's recorded state after its reset (time, qpos, qvel, act, qacc_warmstart), mj_forward.
                No observation, reward, time limit or reset logic (so not cheetah's 200 settling steps,
                nor finger's or ball_in_cup's redraws). Each env has its own copy of the model (as
                dm_control's Physics and mdvec). The model: dm_control's own compiled model as it is after
                a reset (finger-spin's reset sets the hinge's damping), saved by mj_saveModel under
                --build-dir and loaded by mj_loadModel.
                Episode phase: every suite task runs fixed-length episodes, so all N envs reset together
                every P = step_limit + 1 vector steps; each bare window replays the recording from the row
                at the same phase of the episode as the "mdvec C" cell of its T is in its window this
                round (rewound, untimed, to the recording's state there), with mdvec's own actions and
                resets from that row. So bare times the same part of the episodes that the library does,
                and it replays mdvec's physics bit for bit (checked after every window: the JSON's
                replay_max_abs_diff is 0.0 on mujoco 4.0.0).
  engine        (N = engine_envs, T = 1) the bare loop, unchanged, on EnvPool's MuJoCo
                (``envpool/mujoco/mujoco_dmc_envpool.so`` exports MuJoCo's C API: dlopen'ed RTLD_LOCAL |
                RTLD_DEEPBIND), on the task's XML as dm_control builds it (``get_model_and_assets()``;
                swimmer's and manipulator's generated XML written under --build-dir; EnvPool's MuJoCo
                cannot read 4.0.0's binary model, and on finger-spin the file's hinge damping stays),
                same rows as bare T=1: engine ratio = EnvPool's engine / mujoco
                4.0.0 (per CPU-second, paired by round) is the engine's share of a mdvec/EnvPool gap, and
                mdvec/EnvPool x engine ratio is mdvec/EnvPool on equal physics.

Ratios are medians over rounds of per-round ratios (windows of one round are adjacent in time, so machine
drift cancels); rates are medians of the window rates (env-steps per second). The three headline ratios:
mdvec / EnvPool (T), mdvec / dm_control in Python (dm async at T; and dm sync at T = 1), C library / bare
physics (mdvec C / bare at T, wall clock and per CPU-second of this process). The JSON (rewritten after
every task, ``--resume`` continues it), a Markdown table and a PNG go to ``--out``
(``dm_sidebyside_<stamp>.*``).

Run from a source checkout (the bare loop compiles bench/crew.c; a C compiler ``cc``), with a libmdvec built:
  MDVEC_LIB=$PWD/build/libmdvec/libmdvec.so PYTHONPATH=python .venv-envpool/bin/python bench/dm_sidebyside.py
(``.venv-envpool``: a venv with ``pip install envpool==1.2.5`` that sees the main venv's packages through a
.pth file, see docs/benchmarks.md; without envpool the EnvPool and engine cells are skipped, with the
reason). dm_control 1.0.50 is needed (the reference and the XML). ``--quick``: 2 short rounds (well under
a minute per task); the full run: 8 rounds of 0.2 s windows, about 40 s per task.
``--replot A.json ...`` (alone) rewrites runs' .md and .png from their JSON.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import hashlib
import json
import math
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("MUJOCO_GL", "disable")  # dm_control imports no GL back end (no glfw noise)

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "python"))  # mdvec from this checkout when PYTHONPATH has none

import mujoco  # noqa: E402

import _sidebyside  # noqa: E402  (bench/, on sys.path when run as a script)
import mdvec  # noqa: E402
from _sidebyside import cell_of, paired_ratio  # noqa: E402
from _sidebyside import fmt as _f  # noqa: E402
from _sidebyside import ints as _ints  # noqa: E402
from mdvec.vecenv import lib as mdvec_lib  # noqa: E402

try:
    import gymnasium
except ImportError:  # pragma: no cover - the dm_control cells need it
    gymnasium = None

CPUS = len(os.sched_getaffinity(0))
MAX_STEPS = 50000  # cap on vector steps per window (memory of the recording)
SPREAD_WARNING = 0.25  # warn when a cell's windows spread more than this around their median
DTYPE_F64 = 2  # MDVEC_DTYPE_F64
# The state recorded per env and step: mjSTATE_TIME | QPOS | QVEL | ACT | WARMSTART (bits 0-3 and 5, the
# same in mujoco 4.0.0 and in EnvPool's MuJoCo, checked at create by the state sizes).
STATE_SIG = int(
    mujoco.mjtState.mjSTATE_TIME
    | mujoco.mjtState.mjSTATE_QPOS
    | mujoco.mjtState.mjSTATE_QVEL
    | mujoco.mjtState.mjSTATE_ACT
    | mujoco.mjtState.mjSTATE_WARMSTART
)

# --------------------------------------------------------------------------- the bare C loop
BARE_C = _sidebyside.bare_c(
    header=r"""/* Control Suite bare physics (generated by bench/dm_sidebyside.py): N envs of one MJCF on any libmujoco
 * (dlopen'ed by path), stepped on the benchmarks' own crew (bench/crew.c, compiled in; one crew run per
 * vector step, no allocation): per vector step, a contiguous block of envs per thread (crew_share, as
 * mdvec assigns them) either resets where the recording says mdvec reset it (mj_resetData, the recorded
 * state, mj_forward) or takes its action as ctrl and runs dm_control's Physics.step(n_sub_steps):
 * legacy step: mj_step2, n_sub_steps - 1 x mj_step, mj_step1 (RK4: n_sub_steps x mj_step, mj_step1);
 * otherwise n_sub_steps x mj_step. No observation, reward or time limit. Each env has its own model copy
 * (as dm_control's Physics). On mujoco 4.0.0 this replays mdvec's physics bit for bit (checked by the
 * script). Only MuJoCo calls whose signatures and mjtState bits are the same in EnvPool's MuJoCo and 4.0.0
 * are used and no struct field is read, so this drives either engine (state sizes checked at create).
 * Also: mdvec_step_typed and mdvec_get_state in C loops. */""",
    defines=r"""#define S_TIME (1 << 0) /* mjSTATE_TIME */
#define S_QPOS (1 << 1) /* mjSTATE_QPOS */
#define S_QVEL (1 << 2) /* mjSTATE_QVEL */
#define S_ACT (1 << 3)  /* mjSTATE_ACT */
#define S_WARM (1 << 5) /* mjSTATE_WARMSTART (after HISTORY 1<<4) */
#define S_CTRL (1 << 6) /* mjSTATE_CTRL */
#define S_REC (S_TIME | S_QPOS | S_QVEL | S_ACT | S_WARM) /* what the recording holds per env and step */
""",
    functions=(
        "loadXML",
        "loadModel",
        "copyModel",
        "deleteModel",
        "makeData",
        "deleteData",
        "resetData",
        "step",
        "step1",
        "step2",
        "forward",
        "stateSize",
        "getState",
        "setState",
        "versionString",
    ),
    body=r"""typedef struct bare {
  const engine *e;
  int n, nu, n_sub, mode;      /* mode 0: n_sub x mj_step; 1: legacy (mj_step2 ..., mj_step1); 2: legacy RK4 */
  void **m, **d;               /* (n) each env's own model copy and data */
  crew *crew;                  /* T threads, the caller included */
  const double *actions;       /* this step's (n, nu) */
  const unsigned char *resets; /* this step's (n) */
  const double *states;        /* this step's (n, k) recorded states (used where resets[i]) */
  int k;                       /* state size of S_REC */
} bare;

static void set_env(bare *b, int i, const double *x) {
  const engine *e = b->e;
  e->resetData(b->m[i], b->d[i]);
  e->setState(b->m[i], b->d[i], x, S_REC);
  e->forward(b->m[i], b->d[i]);
}

static void step_env(bare *b, int i) {
  const engine *e = b->e;
  void *m = b->m[i], *d = b->d[i];
  e->setState(m, d, b->actions + (size_t)i * (size_t)b->nu, S_CTRL);
  if (b->mode == 1) {
    e->step2(m, d);
    for (int k = 1; k < b->n_sub; k++) e->step(m, d);
    e->step1(m, d);
  } else {
    for (int k = 0; k < b->n_sub; k++) e->step(m, d);
    if (b->mode == 2) e->step1(m, d);
  }
}

static void job(void *ctx, int t, int T) {
  bare *b = ctx;
  size_t k = (size_t)b->k;
  int lo, hi;
  crew_share(b->n, t, T, &lo, &hi);
  for (int i = lo; i < hi; i++) {
    if (b->resets[i]) set_env(b, i, b->states + (size_t)i * k);
    else step_env(b, i);
  }
}

void bare_destroy(bare *b) {
  if (!b) return;
  crew_destroy(b->crew);
  for (int i = 0; i < b->n; i++) {
    if (b->d && b->d[i]) b->e->deleteData(b->d[i]);
    if (b->m && b->m[i]) b->e->deleteModel(b->m[i]);
  }
  free(b->m); free(b->d);
  free(b);
}

/* Load xml (an MJCF file, or a binary model when it ends in .mjb) on engine e: n envs (a model copy and an mjData each), a crew of T threads. nq, nv, nu, na:
 * mujoco 4.0.0's sizes of this model, checked against this engine's. */
bare *bare_create(const engine *e, const char *xml, int n, int T, int n_sub, int mode,
                  int nq, int nv, int nu, int na, char *err, int nerr) {
  bare *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->e = e; b->n = n; b->n_sub = n_sub; b->mode = mode;
  size_t len = strlen(xml);
  void *m = len > 4 && !strcmp(xml + len - 4, ".mjb") ? e->loadModel(xml, NULL) : e->loadXML(xml, NULL, err, nerr);
  if (!m) {
    if (len > 4 && !strcmp(xml + len - 4, ".mjb")) snprintf(err, (size_t)nerr, "%s: mj_loadModel failed", xml);
    free(b);
    return NULL;
  }
  int q = e->stateSize(m, S_QPOS), v = e->stateSize(m, S_QVEL), u = e->stateSize(m, S_CTRL);
  int a = e->stateSize(m, S_ACT), t = e->stateSize(m, S_TIME);
  if (q != nq || v != nv || u != nu || a != na || t != 1) {
    snprintf(err, (size_t)nerr, "%s on MuJoCo %s: state sizes nq %d nv %d nu %d na %d time %d, expected %d %d %d %d 1",
             xml, e->versionString(), q, v, u, a, t, nq, nv, nu, na);
    e->deleteModel(m); free(b); return NULL;
  }
  b->nu = nu;
  b->k = e->stateSize(m, S_REC);
  b->m = calloc((size_t)n, sizeof *b->m); b->d = calloc((size_t)n, sizeof *b->d);
  if (!b->m || !b->d) { snprintf(err, (size_t)nerr, "out of memory"); e->deleteModel(m); bare_destroy(b); return NULL; }
  for (int i = 0; i < n; i++) {
    b->m[i] = e->copyModel(NULL, m);
    b->d[i] = b->m[i] ? e->makeData(b->m[i]) : NULL;
    if (!b->d[i]) { snprintf(err, (size_t)nerr, "env %d: mj_copyModel/mj_makeData failed", i); e->deleteModel(m); bare_destroy(b); return NULL; }
  }
  e->deleteModel(m);
  if (!(b->crew = crew_create(T, err, (size_t)nerr))) { bare_destroy(b); return NULL; }
  return b;
}

""",
    rewind="mj_resetData, the state, mj_forward",
    state="S_REC",
)


class Shim(_sidebyside.Shim):
    """The compiled bare loop (cached by source hash under ``build_dir``) and the engines it opened."""

    def __init__(self, build_dir: Path) -> None:
        super().__init__(build_dir, BARE_C, "dm_bare", 8)


# --------------------------------------------------------------------------- tasks, engines, models
def suite_dir() -> str:
    """dm_control/suite of the installed dm_control (the C tasks' XML)."""
    from mdvec import dm_tasks

    return dm_tasks.suite_dir()


def _quiet_absl() -> None:
    """dm_control logs MuJoCo's compiler warnings through absl (cheetah's deprecated settotalmass, once per
    env made): errors only, here and in the forked dm_control processes."""
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:
        pass


def reference_module() -> Any:
    """mdvec.reference.dm_control (its drop_stale_sizes applied), or None when it is missing."""
    _quiet_absl()
    try:
        from mdvec.reference import dm_control as ref
    except ImportError:
        return None
    ref.drop_stale_sizes()
    return ref


def drop_stale_sizes() -> None:
    """dm_control 1.0.50 on mujoco 4.0.0: drop the 9 size names MuJoCo no longer has (the reference's shim)."""
    ref = reference_module()
    if ref is not None:
        return
    from dm_control.mujoco.wrapper.mjbindings import sizes

    m = mujoco.MjModel.from_xml_string("<mujoco/>")
    d = mujoco.MjData(m)
    for struct, obj in (("mjmodel", m), ("mjdata", d)):
        for name in [n for n in sizes.array_sizes[struct] if not hasattr(obj, n)]:
            del sizes.array_sizes[struct][name]


def benchmarking() -> tuple[str, ...]:
    """The 28 tasks of dm_control.suite.BENCHMARKING as mdvec names them ("cheetah-run")."""
    drop_stale_sizes()
    from dm_control import suite

    return tuple(f"{d}-{t}" for d, t in suite.BENCHMARKING)


def envpool_id(task: str) -> str:
    """EnvPool's id of a suite task: "ball_in_cup-catch" -> "BallInCupCatch-v1"."""
    return "".join(p.capitalize() for p in task.replace("-", "_").split("_")) + "-v1"


# The tasks whose model is not the domain's XML file as it is: dm_control's function that makes it, and its
# arguments (swimmer adds its links, manipulator keeps the props the task uses; cartpole's one pole is the file).
MODEL_MAKERS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "swimmer-swimmer6": ("get_model_and_assets", (6,)),
    "swimmer-swimmer15": ("get_model_and_assets", (15,)),
    "manipulator-bring_ball": ("make_model", (False, False)),
}


def task_xml(task: str, build_dir: Path) -> str:
    """The task's model as an MJCF file: the suite's own file when dm_control loads it unchanged, else the XML
    dm_control generates, written with its assets under build_dir/xml/<task>/ (never into the repo)."""
    drop_stale_sizes()
    from dm_control import suite

    domain = task.split("-", 1)[0]
    module = suite._DOMAINS[domain]
    fn, fargs = MODEL_MAKERS.get(task, ("get_model_and_assets", ()))
    xml, assets = getattr(module, fn)(*fargs)
    xml = xml.decode() if isinstance(xml, bytes) else xml
    path = Path(suite_dir()) / f"{domain}.xml"
    if path.is_file() and path.read_text() == xml:
        return str(path)
    out = build_dir / "xml" / task
    out.mkdir(parents=True, exist_ok=True)
    for name, data in assets.items():
        p = (out / name).resolve()
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else str(data).encode())
    (out / f"{domain}.xml").write_text(xml)
    return str(out / f"{domain}.xml")


class TaskInfo:
    """What the cells need of a task, from dm_control itself (the reference env) and mdvec's spec."""

    def __init__(self, task: str, build_dir: Path) -> None:
        self.task = task
        self.domain, self.name = task.split("-", 1)
        ref = reference_module()
        if ref is None:
            raise RuntimeError("mdvec.reference.dm_control is missing (this checkout predates the Control Suite)")
        env = ref.DmControlEnv(self.domain, self.name, seed=0)
        try:
            self.n_sub_steps, self.step_limit = env.n_sub_steps, env.step_limit
            self.legacy = bool(env.env.physics.legacy_step)
            self.reference = "mdvec.reference.dm_control.DmControlEnv"
            model = env.model
            self.rk4 = int(model.opt.integrator) == int(mujoco.mjtIntegrator.mjINT_RK4)
            self.sizes = (model.nq, model.nv, model.nu, model.na)
            # The bare loop's model on mujoco 4.0.0: dm_control's own, as it is after a reset (finger-spin's
            # initialize_episode sets the hinge's damping), saved as a binary model under build_dir.
            env.reset(seed=0)
            mjb = build_dir / "mjb" / f"{task}.mjb"
            mjb.parent.mkdir(parents=True, exist_ok=True)
            mujoco.mj_saveModel(env.model, str(mjb), None)
            self.mjb = str(mjb)
        finally:
            env.close()
        self.mode = (2 if self.rk4 else 1) if self.legacy else 0
        self.xml = task_xml(task, build_dir)
        probe = mdvec.VecEnv(1, task=task, suite_dir=suite_dir())
        self.low = probe.spec.action_low.astype(np.float64)
        self.high = probe.spec.action_high.astype(np.float64)
        self.dt = probe.spec.dt
        probe.close()
        # NEXT_STEP period: LAST at step ceil(step_limit) (step_count >= step_limit), the next call resets
        self.period = math.ceil(self.step_limit) + 1 if math.isfinite(self.step_limit) else None

    def notes(self) -> dict[str, Any]:
        return {
            "xml": self.xml,
            "mjb": self.mjb,
            "n_sub_steps": self.n_sub_steps,
            "legacy_step": self.legacy,
            "rk4": self.rk4,
            "step_limit": self.step_limit,
            "period": self.period,
            "sizes_nq_nv_nu_na": list(self.sizes),
            "dt": self.dt,
            "reference": self.reference,
        }


def find_engines(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Return the engines to time: label -> {path, role} (or {skipped: why})."""
    out = _sidebyside.base_engines(args.envpool_lib, "mujoco_dmc_envpool.so", "dm_control")
    return out


# --------------------------------------------------------------------------- cells
class Cell:
    """One backend instance (a backend at one thread count, or one engine)."""

    kind = ""
    cpu_in_process = True  # False: the work runs in other processes (its CPU time is not ours)

    def __init__(self, label: str, threads: int | None) -> None:
        self.label, self.threads = label, threads
        self.windows: list[dict[str, float]] = []
        self.steps = 0
        self.calls = 0  # vector steps taken since its reset (the episode phase of a NEXT_STEP vector env)
        self.round_start: dict[int, int] = {}  # round -> calls at the start of its window
        self.notes: dict[str, Any] = {}

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        raise NotImplementedError

    def before_window(self, rd: dict[str, Any], r: int | None) -> None:
        """Per-window set-up outside the timing (async: pin its processes; bare: rewind)."""

    def after_window(self, rd: dict[str, Any]) -> None:
        """Per-window check outside the timing (bare: compare its end state with mdvec's)."""

    def calibrate(self, rd: dict[str, Any], seconds: float) -> int:
        """Warm up, then return the steps that fill ``seconds`` (within rd's recorded steps)."""
        self.before_window(rd, None)
        rows = rd["a64"].shape[0]
        self.step_many(rd, min(2, rows))
        k, steps, t0 = 2, 0, time.perf_counter()
        while True:
            self.step_many(rd, k)
            steps += k
            if time.perf_counter() - t0 >= min(0.1, seconds / 3) or steps + 2 * k > rows:
                break
            k = min(2 * k, rows)
        per = (time.perf_counter() - t0) / steps
        return int(min(MAX_STEPS, max(2, round(seconds / per))))

    def run_window(self, rd: dict[str, Any], r: int) -> dict[str, float]:
        self.round_start[r] = self.calls
        self.before_window(rd, r)
        return _sidebyside.time_window(self, rd)

    def close(self) -> None:
        pass


class MdvecCell(Cell):
    kind = "mdvec"

    def __init__(self, task: str, n: int, threads: int, seed: int) -> None:
        super().__init__("mdvec", threads)
        self.env = mdvec.VecEnv(
            n, seed=seed, threads=threads, task=task, suite_dir=suite_dir(), autoreset_mode="next_step"
        )
        self.env.reset()
        self.notes = {"api": "VecEnv.step_into_buffers(float64 actions)", "threads": self.env.spec.threads}

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step_into_buffers
        for a in rd["a64"][:k]:
            step(a)
        self.calls += k

    def close(self) -> None:
        self.env.close()


class MdvecCCell(Cell):
    kind = "mdvec C"

    def __init__(self, task: str, n: int, threads: int, seed: int, shim: Shim) -> None:
        super().__init__("mdvec C", threads)
        self.env = mdvec.VecEnv(
            n, seed=seed, threads=threads, task=task, suite_dir=suite_dir(), autoreset_mode="next_step"
        )
        self.env.reset()
        self.shim = shim
        self.fn = ctypes.cast(mdvec_lib().mdvec_step_typed, ctypes.c_void_p).value
        self.h = self.env._h.ptr.value  # the library handle (private attribute of the binding)
        self.notes = {"api": "mdvec_step_typed(float64) in a C loop", "threads": self.env.spec.threads}

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        a = rd["a64"]
        rc = self.shim.lib.mdvec_loop(self.fn, self.h, a.ctypes.data, a[0].nbytes, k, DTYPE_F64)
        if rc:
            raise RuntimeError(f"mdvec_step_typed returned {rc}")
        self.calls += k

    def close(self) -> None:
        self.env.close()


class EnvPoolCell(Cell):
    kind = "EnvPool"

    def __init__(self, task: str, n: int, threads: int, seed: int, env_type: str) -> None:
        super().__init__("EnvPool", threads)
        import envpool

        self.env = envpool.make(
            envpool_id(task), env_type=env_type, num_envs=n, batch_size=n, num_threads=threads, seed=seed
        )
        self.env.reset()
        cfg = self.env.spec.config
        self.notes = {
            "api": f"envpool.make({envpool_id(task)!r}, env_type={env_type!r}, batch_size=N).step(float64 actions)",
            "envpool": envpool.__version__,
            "num_threads": cfg.num_threads,
            "max_episode_steps": getattr(cfg, "max_episode_steps", None),
            "frame_skip": getattr(cfg, "frame_skip", None),
            "thread_affinity_offset": cfg.thread_affinity_offset,
        }

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step
        for a in rd["a64"][:k]:
            step(a)
        self.calls += k

    def close(self) -> None:
        self.env.close()


def _dm_gym_env(task: str, seed: int) -> Any:
    """dm_control's task through the reference class, as a minimal gymnasium.Env (flat float64 observation)."""
    ref = reference_module()
    domain, name = task.split("-", 1)

    class DmGym(gymnasium.Env):
        metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

        def __init__(self) -> None:
            self.ref = ref.DmControlEnv(domain, name, seed=seed)
            self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (self.ref.obs_dim,), np.float64)
            self.action_space = gymnasium.spaces.Box(self.ref.action_low, self.ref.action_high, dtype=np.float64)

        def reset(self, *, seed: int | None = None, options: Any = None) -> Any:
            super().reset(seed=seed)
            return self.ref.reset(seed=seed)

        def step(self, action: Any) -> Any:
            return self.ref.step(action)

        def close(self) -> None:
            self.ref.close()

    return DmGym()


class DmCell(Cell):
    """dm_control's own tasks in Python: gymnasium's SyncVectorEnv or AsyncVectorEnv of the reference env."""

    def __init__(self, task: str, n: int, threads: int | None, seed: int, mode: str) -> None:
        super().__init__(f"dm {mode}", threads)
        self.kind = f"dm {mode}"
        if reference_module() is None:
            raise RuntimeError("mdvec.reference.dm_control is missing")
        fns = [lambda i=i: _dm_gym_env(task, seed + i) for i in range(n)]
        if mode == "async":
            self.env = gymnasium.vector.AsyncVectorEnv(fns, shared_memory=True, context="fork")
            kw = {"context": "fork", "shared_memory": True}
        else:
            self.env = gymnasium.vector.SyncVectorEnv(fns)
            kw = {}
        self.env.reset(seed=seed)
        self.notes = {
            "api": f"gymnasium.vector.{'Async' if mode == 'async' else 'Sync'}VectorEnv of "
            "mdvec.reference.dm_control.DmControlEnv (dm_control's Environment, Shimmy's mapping, flat obs)",
            "autoreset_mode": str(self.env.metadata.get("autoreset_mode")),
            **kw,
        }
        self.cpus: list[int] | None = None

    def pin(self, threads: int) -> None:
        """Pin the worker processes to the first ``threads`` allowed CPUs (all when threads >= CPUs)."""
        self.cpus = _sidebyside.pin_processes(self.env, threads)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step
        for a in rd["a64"][:k]:
            step(a)
        self.calls += k

    def close(self) -> None:
        self.env.close()


class AsyncPinned(Cell):
    """One AsyncVectorEnv shared by the thread counts: each cell pins its processes before its windows."""

    kind = "dm async"
    cpu_in_process = False

    def __init__(self, shared: DmCell, threads: int) -> None:
        super().__init__("dm async", threads)
        self.shared = shared
        self.notes = _sidebyside.pinned_notes(shared, threads, CPUS)

    def before_window(self, rd: dict[str, Any], r: int | None) -> None:
        self.shared.pin(self.threads)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        self.shared.step_many(rd, k)


class BareCell(Cell):
    """The bare loop on one engine; each window replays the recording from the row at the episode phase of
    the cell it follows (mdvec C at its T), or, without one or with episodes of unequal lengths, from the
    round's rows."""

    kind = "bare"

    def __init__(
        self, label: str, shim: Shim, engine_path: str, model: str, info: TaskInfo, n: int, threads: int
    ) -> None:
        super().__init__(label, threads)
        self.shim, self.n, self.info = shim, n, info
        eng, version = shim.engine(engine_path)
        err = ctypes.create_string_buffer(4096)
        self.b = shim.lib.bare_create(
            eng, model.encode(), n, threads, info.n_sub_steps, info.mode, *info.sizes, err, len(err)
        )
        if not self.b:
            raise RuntimeError(err.value.decode())
        self.k = shim.lib.bare_state_size(self.b)
        nq, nv, _, na = info.sizes
        if self.k != 1 + nq + 2 * nv + na:
            raise RuntimeError(f"state size {self.k}, expected 1 + nq + 2 nv + na = {1 + nq + 2 * nv + na}")
        self.version = version
        self.replay: list[float] = []  # per window: max |state - mdvec's| at its end (0.0: bit for bit)
        self.follow: Cell | None = None
        self.rec: Recording | None = None
        self.rows: list[int] = []  # per window: the recording row it started at
        self._rd: dict[str, Any] | None = None
        self.notes = {
            "api": "bare C loop on the bench's crew: ctrl, dm_control's Physics.step(n_sub_steps); mdvec's "
            "recorded resets; each env its own model copy",
            "engine": engine_path,
            "mujoco": version,
            "model": model,
            "physics_step": [
                "n_sub_steps x mj_step",
                "mj_step2, n_sub_steps - 1 x mj_step, mj_step1",
                "n_sub_steps x mj_step, mj_step1 (RK4)",
            ][info.mode],
            **info.notes(),
        }

    def start_row(self, rd: dict[str, Any], r: int | None) -> int:
        """The recording row this window starts at (see the class)."""
        period = self.rec.period if self.rec is not None else None
        if self.follow is None or period is None or r is None:
            return rd["offset"]
        phase = self.follow.round_start.get(r, self.follow.calls)
        return phase % period

    def before_window(self, rd: dict[str, Any], r: int | None) -> None:
        row = self.start_row(rd, r)
        self._rd = self.rec.data(row) if self.rec is not None and row != rd["offset"] else rd
        if r is not None:
            self.rows.append(row)
        self.shim.lib.bare_rewind(self.b, self._rd["s0"].ctypes.data)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        d = self._rd if self._rd is not None else rd
        self.shim.lib.bare_run(self.b, d["a64"].ctypes.data, d["resets"].ctypes.data, d["x"].ctypes.data, k)
        self.calls += k

    def after_window(self, rd: dict[str, Any]) -> None:
        d = self._rd if self._rd is not None else rd
        out = np.empty((self.n, self.k))
        self.shim.lib.bare_states(self.b, out.ctypes.data)
        self.replay.append(float(np.max(np.abs(out - d["x"][self.steps - 1]))))

    def close(self) -> None:
        if self.b:
            self.shim.lib.bare_destroy(self.b)
            self.b = None


# --------------------------------------------------------------------------- one group: a task at one N
def env_states(shim: Shim, h: int, n: int, k: int) -> np.ndarray:
    """Every env's STATE_SIG state of the mdvec handle h, (n, k), via mdvec_get_state."""
    return _sidebyside.env_states(shim, h, n, k, STATE_SIG)


class Recording:
    """mdvec's own run under the group's random actions: what every cell steps with and the bare cells replay.

    Actions (uniform in the task's bounds, float64), then per step the reset flags (NEXT_STEP: env i was
    reset instead of stepped) and every env's state (STATE_SIG) after the step, from an mdvec VecEnv that
    starts reset (s0: the states then). Extended on demand as windows grow. ``period``: P when every env
    resets at rows P-1, 2P-1, ... (the suite's fixed-length episodes), else None.
    """

    def __init__(self, info: TaskInfo, n: int, threads: int, seed: int, rng: np.random.Generator, shim: Shim) -> None:
        self.env = mdvec.VecEnv(
            n, seed=seed, threads=threads, task=info.task, suite_dir=suite_dir(), autoreset_mode="next_step"
        )
        self.env.reset()
        self.buf = self.env.buffers()
        nq, nv, nu, na = info.sizes
        self.n, self.k, self.nu = n, 1 + nq + 2 * nv + na, nu
        if mdvec_lib().mdvec_state_size(self.env._h.ptr, STATE_SIG) != self.k:
            raise RuntimeError("mdvec's state size of time, qpos, qvel, act, warmstart is not 1 + nq + 2 nv + na")
        self.box, self.rng, self.shim = (info.low, info.high), rng, shim
        self.h = self.env._h.ptr.value
        self.s0 = env_states(shim, self.h, n, self.k)
        self.a64 = np.zeros((0, n, self.nu))
        self.resets = np.zeros((0, n), np.uint8)
        self.x = np.zeros((0, n, self.k))
        self.expected_period = info.period
        self.period: int | None = None

    def ensure(self, steps: int) -> None:
        """Record until there are at least ``steps`` steps (a quarter more, to spare re-recording)."""
        have = len(self.a64)
        if steps <= have:
            return
        more = max(steps + steps // 4, 64) - have
        low, high = self.box
        a64 = self.rng.uniform(low, high, (more, self.n, self.nu))
        resets = np.zeros((more, self.n), np.uint8)
        x = np.empty((more, self.n, self.k))
        for s in range(more):
            self.env.step_into_buffers(a64[s])
            resets[s] = self.buf["reset"]
            x[s] = env_states(self.shim, self.h, self.n, self.k)
        self.a64 = np.concatenate([self.a64, a64])
        self.resets = np.concatenate([self.resets, resets])
        self.x = np.concatenate([self.x, x])
        self.period = self._period()

    def _period(self) -> int | None:
        p = self.expected_period
        if p is None or len(self.resets) < p:
            return None
        rows = np.arange(len(self.resets))
        want = ((rows + 1) % p == 0)[:, None]
        return p if bool(np.all((self.resets != 0) == want)) else None

    def data(self, offset: int) -> dict[str, Any]:
        """The recording from step ``offset`` on; s0: the states just before it (the bare cells' rewind)."""
        s0 = self.x[offset - 1] if offset > 0 else self.s0
        return {
            "n": self.n,
            "a64": self.a64[offset:],
            "resets": self.resets[offset:],
            "x": self.x[offset:],
            "s0": np.ascontiguousarray(s0),
            "offset": offset,
        }

    def close(self) -> None:
        self.env.close()


class _Closer(Cell):
    """Not a timed cell: closes a shared backend with the group."""

    kind = "closer"

    def __init__(self, inner: Cell) -> None:
        super().__init__("_closer", None)
        self.inner = inner

    def close(self) -> None:
        self.inner.close()


def open_cells(
    info: TaskInfo,
    n: int,
    args: argparse.Namespace,
    shim: Shim,
    engines: dict[str, dict[str, Any]],
    skipped: dict[str, str],
) -> list[Cell]:
    """Build every cell of (task, N); a backend that cannot be built is recorded in skipped."""
    cells: list[Cell] = []
    task = info.task

    def add(name: str, make: Any) -> None:
        if name.split(" T=")[0] not in args.backends:
            return
        try:
            cells.append(make())
        except Exception as exc:  # noqa: BLE001 - one backend failing must not lose the others
            skipped[name] = f"{type(exc).__name__}: {exc}"
            print(f"  skipped {name}: {skipped[name]}", flush=True)

    asyncs: DmCell | None = None
    if "dm async" in args.backends:  # first: fork before the others' threads exist
        try:
            asyncs = DmCell(task, n, None, args.seed, "async")
        except Exception as exc:  # noqa: BLE001 - reported, not fatal
            skipped["dm async"] = f"{type(exc).__name__}: {exc}"
            print(f"  skipped dm async: {skipped['dm async']}", flush=True)
    for t in args.threads:
        add(f"mdvec T={t}", lambda t=t: MdvecCell(task, n, t, args.seed))
        add(f"mdvec C T={t}", lambda t=t: MdvecCCell(task, n, t, args.seed, shim))
        add(f"EnvPool T={t}", lambda t=t: EnvPoolCell(task, n, t, args.seed, args.envpool_type))
        add(f"bare T={t}", lambda t=t: BareCell("bare", shim, engines["mujoco"]["path"], info.mjb, info, n, t))
        if asyncs is not None:
            add(f"dm async T={t}", lambda t=t: AsyncPinned(asyncs, t))
    if 1 in args.threads:
        add("dm sync T=1", lambda: DmCell(task, n, 1, args.seed, "sync"))
    if n == args.engine_envs and "engine" in args.backends:
        e = engines["envpool engine"]
        if "path" in e:
            add("engine T=1", lambda: BareCell("engine", shim, e["path"], info.xml, info, n, 1))
        else:
            skipped["engine"] = e["skipped"]
    if asyncs is not None:
        cells.append(_Closer(asyncs))
    for c in cells:  # bare and engine windows start at the episode phase of mdvec C at the same T
        if isinstance(c, BareCell):
            c.follow = next((m for m in cells if isinstance(m, MdvecCCell) and m.threads == c.threads), None)
            c.notes["follows"] = f"mdvec C T={c.threads}" if c.follow else "nothing (the round's rows)"
    return cells


def run_group(
    task: str, n: int, gi: int, args: argparse.Namespace, shim: Shim, engines: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Run every cell of (task, N) in alternating windows; return the group's JSON."""
    load0 = os.getloadavg()
    t_start = time.perf_counter()
    skipped: dict[str, str] = {}
    phases: dict[str, float] = {}
    tp = time.perf_counter()
    info = TaskInfo(task, args.build_dir)
    cells = open_cells(info, n, args, shim, engines, skipped)
    phases["open"] = time.perf_counter() - tp
    timed = [c for c in cells if c.kind != "closer"]
    rng = np.random.default_rng([args.seed, gi])
    rec: Recording | None = None
    period_ok: bool | None = None
    try:
        rec = Recording(info, n, max(args.threads), args.seed + 1, rng, shim)
        for c in cells:
            if isinstance(c, BareCell):
                c.rec = rec
        # every phase of an episode, and a window past it: a period plus the first windows' rows
        rec.ensure((info.period or 0) + 256)
        phases["record"] = time.perf_counter() - tp - phases["open"]
        for c in list(timed):
            try:
                c.steps = c.calibrate(rec.data(0), args.window_seconds)
            except Exception as exc:  # noqa: BLE001 - a failing backend is reported, not fatal
                skipped[f"{c.label} T={c.threads}"] = f"warmup: {type(exc).__name__}: {exc}"
                print(f"  skipped {c.label} T={c.threads}: {skipped[f'{c.label} T={c.threads}']}", flush=True)
                timed.remove(c)
        phases["calibrate"] = time.perf_counter() - tp - phases["open"] - phases["record"]
        for r in range(args.rounds):
            t_rec = time.perf_counter()
            longest = max([c.steps for c in timed] or [1])
            rec.ensure((info.period or 0) + 2 * longest)
            period_ok = rec.period is not None
            phases["record"] += time.perf_counter() - t_rec
            rd = rec.data(r * longest // args.rounds)  # round r's rows: spread over the recording
            order = timed[r % len(timed) :] + timed[: r % len(timed)] if timed else []
            for c in order:
                try:
                    w = c.run_window(rd, r)
                except Exception as exc:  # noqa: BLE001 - a failing backend is reported, not fatal
                    skipped[f"{c.label} T={c.threads}"] = f"window {r + 1}: {type(exc).__name__}: {exc}"
                    print(f"  skipped {c.label} T={c.threads}: {skipped[f'{c.label} T={c.threads}']}", flush=True)
                    timed.remove(c)
                    continue
                _sidebyside.add_window(c, w, r, args.window_seconds, n, MAX_STEPS)
            if args.verbose:
                print(f"  round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        phases["windows"] = time.perf_counter() - tp - sum(phases.values())
        reset_fraction = float(rec.resets.mean()) if rec is not None and len(rec.resets) else None
        recorded = len(rec.a64) if rec is not None else 0
        if rec is not None:
            rec.close()
        _sidebyside.close_all(cells)
    for c in cells:
        if isinstance(c, BareCell):
            if c.replay:
                c.notes["replay_max_abs_diff"] = max(c.replay)  # 0.0 on mujoco 4.0.0: mdvec's physics bit for bit
            c.notes["start_rows"] = c.rows
            c.notes["episode_phase_aligned"] = bool(period_ok and c.follow is not None)
    out_cells = _sidebyside.cell_results(cells)
    return {
        "task": task,
        "num_envs": n,
        "envpool_id": envpool_id(task),
        "task_info": info.notes(),
        "reset_fraction_mdvec": reset_fraction,
        "recorded_steps": recorded,
        "periodic_resets": period_ok,
        "load_before": list(load0),
        "load_after": list(os.getloadavg()),
        "seconds": time.perf_counter() - t_start,
        "phases": phases,
        "cells": out_cells,
        "skipped": skipped,
    }


# --------------------------------------------------------------------------- summary


def summarize(groups: list[dict[str, Any]], threads: tuple[int, ...]) -> list[dict[str, Any]]:
    """One row per (task, N, T): rates (wall-clock medians) and paired ratios (wall; _cpu: per CPU-second)."""
    rows = []
    for g in groups:
        eng, bare1 = cell_of(g, "engine", 1), cell_of(g, "bare", 1)
        er = paired_ratio(eng, bare1, "cpu_rate") or paired_ratio(eng, bare1)
        for t in threads:
            m, mc, ep = cell_of(g, "mdvec", t), cell_of(g, "mdvec C", t), cell_of(g, "EnvPool", t)
            bare, asy, sync = cell_of(g, "bare", t), cell_of(g, "dm async", t), cell_of(g, "dm sync", 1)

            def rate(c: Any) -> Any:
                return c["median"] if c else None

            row: dict[str, Any] = {
                "task": g["task"],
                "threads": t,
                "num_envs": g["num_envs"],
                "mdvec": rate(m),
                "mdvec_C": rate(mc),
                "envpool": rate(ep),
                "dm_async": rate(asy),
                "dm_sync": rate(sync) if t == 1 else None,
                "bare": rate(bare),
                "engine_ratio": er,
                "reset_fraction_mdvec": g["reset_fraction_mdvec"],
            }
            for name, (a, b) in {
                "mdvec_over_envpool": (m, ep),
                "mdvec_over_dm_async": (m, asy),
                "mdvec_over_dm_sync": (m, sync if t == 1 else None),
                "C_over_bare": (mc, bare),
                "mdvec_over_bare": (m, bare),
                "envpool_over_bare": (ep, bare),
            }.items():
                row[name] = paired_ratio(a, b)
                row[name + "_cpu"] = paired_ratio(a, b, "cpu_rate")
            row["mdvec_over_envpool_equal_physics"] = (
                row["mdvec_over_envpool"] * er if row["mdvec_over_envpool"] and er else None
            )
            rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]], groups: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    """The tables of this run (docs/benchmarks.md's "Control Suite, side by side")."""
    v, s = meta["versions"], meta["settings"]
    after = meta.get("machine_after") or meta["machine"]
    lines = [
        f"Run {meta['stamp']}: {meta['machine']['cpu_model']}, {meta['machine']['cpus_allowed']} CPUs, "
        f"load {meta['machine']['loadavg'][0]:.2f} -> {after['loadavg'][0]:.2f}; mujoco {v['mujoco']}, "
        f"dm_control {v.get('dm_control')}, EnvPool {v.get('envpool')} (MuJoCo {v.get('envpool_engine_version')}), "
        f"gymnasium {v['gymnasium']}; {s['rounds']} rounds of {s['window_seconds']} s windows.",
        "",
        "env-steps/s are medians of wall-clock window rates; ratios are medians of per-round ratios "
        '(wall clock; "cpu": per CPU-second of this process). dm_control = dm async at T (N processes '
        "pinned to T CPUs); dm sync: one process.",
        "",
        "| task | T | N | mdvec | C library | EnvPool | dm_control (async) | dm sync | bare | mdvec/EnvPool "
        "| mdvec/dm_control | mdvec/dm sync | C library/bare | (cpu) | engine ratio | mdvec/EnvPool, equal physics |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['task']} | {r['threads']} | {r['num_envs']} | {_f(r['mdvec'])} | {_f(r['mdvec_C'])} | "
            f"{_f(r['envpool'])} | {_f(r['dm_async'])} | {_f(r['dm_sync'])} | {_f(r['bare'])} | "
            f"{_f(r['mdvec_over_envpool'], True)} | {_f(r['mdvec_over_dm_async'], True)} | "
            f"{_f(r['mdvec_over_dm_sync'], True)} | {_f(r['C_over_bare'], True)} | "
            f"{_f(r['C_over_bare_cpu'], True)} | {_f(r['engine_ratio'] if r['threads'] == 1 else None, True)} | "
            f"{_f(r['mdvec_over_envpool_equal_physics'], True)} |"
        )
    bad = []
    for g in groups:
        for c in g["cells"]:
            d = c["notes"].get("replay_max_abs_diff")
            if c["label"] == "bare" and d not in (None, 0.0):
                bad.append(f"{g['task']} T={c['threads']}: {d:.3g}")
    lines += [
        "",
        "Bare replays mdvec's physics bit for bit on every task (replay_max_abs_diff 0.0)"
        if not bad
        else "Bare does NOT replay mdvec's physics bit for bit on: " + ", ".join(bad),
    ]
    skipped = [f"{g['task']}: {k}: {v}" for g in groups for k, v in g["skipped"].items()]
    if skipped:
        lines += ["", "Skipped: " + "; ".join(skipped)]
    return "\n".join(lines) + "\n"


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> str:
    """Bars per task (log scale), one panel per (T, N), then the three ratio panels."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib not installed"
    configs = sorted({(r["threads"], r["num_envs"]) for r in rows}, key=lambda c: (c[1], c[0]))
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    series = [
        ("mdvec", "mdvec"),
        ("mdvec_C", "C library"),
        ("envpool", "EnvPool"),
        ("dm_async", "dm_control async"),
        ("dm_sync", "dm_control sync"),
        ("bare", "bare (mujoco 4)"),
    ]
    panels = [
        ("mdvec_over_envpool", "mdvec / EnvPool (paired, wall clock); triangles: engine ratio EnvPool / mujoco 4"),
        ("mdvec_over_dm_async", "mdvec / dm_control in Python (async, N processes on T CPUs; paired)"),
        ("C_over_bare", "C library / bare physics (paired, wall clock); dotted: 0.95"),
    ]
    width_in = max(15, 0.55 * len(tasks))
    nplots = len(configs) + len(panels)
    fig, axes = plt.subplots(nplots, 1, figsize=(width_in, 3.6 * nplots), squeeze=False)
    axes = axes[:, 0]
    width = 0.8 / len(series)
    by = {(r["task"], r["threads"], r["num_envs"]): r for r in rows}
    for ax, (t, n) in zip(axes, configs):
        for k, (key, name) in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(tasks))]
            ys = [(by.get((task, t, n)) or {}).get(key) or 0.0 for task in tasks]
            ax.bar(xs, ys, width, label=name)
        ax.set_yscale("log")
        ax.set_title(f"T = {t} threads, N = {n} envs: env-steps/s (median of windows)", fontsize=9)
        ax.set_xticks(range(len(tasks)), tasks, rotation=35, ha="right", fontsize=7)
        ax.legend(fontsize=7, ncol=6)
    for j, (key, label) in enumerate(panels):
        ax = axes[len(configs) + j]
        for t, n in configs:
            ax.plot(
                range(len(tasks)),
                [(by.get((task, t, n)) or {}).get(key) or np.nan for task in tasks],
                "o",
                label=f"T={t} N={n}",
                ms=4,
            )
        if key == "mdvec_over_envpool":
            t0, n0 = configs[0]
            ax.plot(
                range(len(tasks)),
                [(by.get((task, t0, n0)) or {}).get("engine_ratio") or np.nan for task in tasks],
                "k^",
                label="engine ratio",
                ms=6,
            )
        ax.axhline(1.0, color="grey", lw=0.8)
        if key == "C_over_bare":
            ax.axhline(0.95, color="grey", lw=0.8, ls=":")
        if key == "mdvec_over_dm_async":
            ax.set_yscale("log")
        ax.set_xticks(range(len(tasks)), tasks, rotation=35, ha="right", fontsize=7)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7, ncol=4)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return f"wrote {path}"


# --------------------------------------------------------------------------- machine and versions
def _rss_mb() -> float | None:
    """This process's resident memory in MiB (Linux), or None."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def machine_info() -> dict[str, Any]:
    return {
        **_sidebyside.machine_info(CPUS),
        "openblas_env": {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")},
    }


def versions(shim: Shim, engines: dict[str, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "mujoco": mujoco.__version__,
        "gymnasium": gymnasium.__version__ if gymnasium else None,
        "mdvec": mdvec.__version__,
        "mdvec_library": mdvec_lib().mdvec_version(),
        "mdvec_lib_path": os.environ.get("MDVEC_LIB"),
    }
    try:
        from importlib.metadata import version

        out["dm_control"] = version("dm_control")
    except Exception:  # noqa: BLE001 - informative only
        out["dm_control"] = None
    out["envpool"] = _sidebyside.envpool_version()
    _sidebyside.engine_versions(out, shim, engines)
    out["script_sha256"] = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    try:
        out["git"] = _sidebyside.git_describe()
    except OSError:
        pass
    return out


# --------------------------------------------------------------------------- command line
BACKENDS = ("mdvec", "mdvec C", "EnvPool", "bare", "dm sync", "dm async", "engine")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=None, help="comma-separated suite tasks (default: every one mdvec has)")
    p.add_argument("--threads", type=_ints, default=(1, 2))
    p.add_argument("--envs", type=_ints, default=(8,), help="numbers of envs (default 8)")
    p.add_argument("--window-seconds", type=float, default=None, help="default 0.2 (--quick 0.05)")
    p.add_argument("--rounds", type=int, default=None, help="default 8 (--quick 2)")
    p.add_argument("--backends", default=",".join(BACKENDS), help=f"subset of {','.join(BACKENDS)}")
    p.add_argument("--engine-envs", type=int, default=8, help="N of the engine cell (T = 1)")
    p.add_argument("--envpool-type", default="gymnasium", choices=("gymnasium", "dm"), help="EnvPool's env_type")
    p.add_argument("--envpool-lib", default=None, help="EnvPool's mujoco_dmc_envpool.so (default: found via import)")
    p.add_argument("--build-dir", type=Path, default=ROOT / "build-bench" / "dm_bare")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    p.add_argument("--resume", type=Path, default=None, help="a partial dm_sidebyside_*.json to continue")
    p.add_argument("--name", default="dm_sidebyside", help="file name stem before the time stamp")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)
    every = benchmarking()
    have = set(mdvec.task_names())
    if a.tasks is None:
        a.tasks = tuple(t for t in every if t in have)
    else:
        a.tasks = tuple(t for t in a.tasks.split(",") if t)
        unknown = [t for t in a.tasks if t not in every or t not in have]
        if unknown:
            p.error(
                f"--tasks: not a BENCHMARKING task libmdvec has: {unknown}; choose from "
                f"{','.join(t for t in every if t in have)}"
            )
    a.missing = tuple(t for t in every if t not in have)
    for k, (quick, full) in {"window_seconds": (0.05, 0.2), "rounds": (2, 8)}.items():
        if getattr(a, k) is None:
            setattr(a, k, quick if a.quick else full)
    _sidebyside.check_backends(p, a, BACKENDS)
    return a


SETTING_KEYS = (
    "tasks",
    "threads",
    "envs",
    "window_seconds",
    "rounds",
    "backends",
    "engine_envs",
    "envpool_type",
    "seed",
    "quick",
)


def finish(report: dict[str, Any], stem: Path, no_plot: bool = False) -> str:
    """Rows, warnings, the Markdown table and the plot of a report; writes .json, .md and .png."""
    threads = tuple(report["settings"]["threads"])
    rows = summarize(report["groups"], threads)
    report["rows"] = rows
    warnings = []
    for when, m in (("start", report["machine"]), ("end", report.get("machine_after") or report["machine"])):
        if m["loadavg"][0] > 0.5 * m["cpus_allowed"]:
            warnings.append(
                f"load average {m['loadavg'][0]:.2f} at the {when} on {m['cpus_allowed']} CPUs: shared machine"
            )
    for g in report["groups"]:
        for c in g["cells"]:
            if c["spread"] > SPREAD_WARNING:
                warnings.append(
                    f"{g['task']} N={g['num_envs']} {c['label']} T={c['threads']}: windows spread "
                    f"{100 * c['spread']:.0f}%"
                )
            if c["label"] == "bare" and c["notes"].get("replay_max_abs_diff") not in (None, 0.0):
                warnings.append(f"{g['task']} bare T={c['threads']}: replay differs from mdvec's physics")
    report["warnings"] = warnings
    md = markdown(rows, report["groups"], report)
    stem.with_suffix(".md").write_text(md)
    title = (
        f"mdvec Control Suite side-by-side {report['stamp']}: {report['machine']['cpu_model']}, "
        f"{report['machine']['cpus_allowed']} CPUs, load {report['machine']['loadavg'][0]:.1f}"
    )
    report["plot"] = "plot skipped: --no-plot" if no_plot else plot(rows, stem.with_suffix(".png"), title)
    stem.with_suffix(".json").write_text(json.dumps(report, separators=(",", ":")))
    return md


def main(argv: list[str]) -> int:
    if argv[:1] == ["--replot"]:
        for path in map(Path, argv[1:]):
            report = json.loads(path.read_text())
            finish(report, path.with_suffix(""))
            print(report["plot"])
        return 0
    if gymnasium is None:
        print("gymnasium is needed (the dm_control cells)", file=sys.stderr)
        return 2
    args = parse_args(argv)
    settings = {k: getattr(args, k) for k in SETTING_KEYS}
    shim = Shim(args.build_dir)
    engines = find_engines(args)
    report: dict[str, Any]
    if args.resume:
        resumed = _sidebyside.resume_report(args.resume, settings, SETTING_KEYS)
        if resumed is None:
            return 2
        report = resumed
        stem = args.resume.with_suffix("")
    else:
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        stem = args.out / f"{args.name}_{stamp}"
        report = {
            "tool": "bench/dm_sidebyside.py",
            "stamp": stamp,
            "command": " ".join(["bench/dm_sidebyside.py", *argv]),
            "machine": machine_info(),
            "versions": versions(shim, engines),
            "engines": engines,
            "settings": settings,
            "tasks_missing_in_mdvec": list(args.missing),
            "bare_shim": str(shim.path),
            "groups": [],
            "complete": False,
        }
        args.out.mkdir(parents=True, exist_ok=True)
    print(
        f"Control Suite side-by-side: {CPUS} CPUs, load {os.getloadavg()[0]:.2f}; {len(args.tasks)} tasks "
        f"({len(args.missing)} of BENCHMARKING not in libmdvec), threads {args.threads}, envs {args.envs}, "
        f"{args.rounds} x {args.window_seconds} s; engines "
        f"{ {k: e.get('path', e.get('skipped')) for k, e in engines.items()} }",
        flush=True,
    )
    done = {(g["task"], g["num_envs"]) for g in report["groups"]}
    gi = 0
    for task in args.tasks:
        for n in args.envs:
            gi += 1
            if (task, n) in done:
                continue
            print(f"{task} N={n} (load {os.getloadavg()[0]:.2f})", flush=True)
            g = run_group(task, n, gi, args, shim, engines)
            gc.collect()  # the group's cells and recording (bare cells refer to the recording)
            g["rss_mb_after"] = _rss_mb()
            report["groups"].append(g)
            print(f"  {g['seconds']:.1f} s: " + ", ".join(f"{k} {v:.1f} s" for k, v in g["phases"].items()), flush=True)
            stem.with_suffix(".json").write_text(json.dumps(report, separators=(",", ":")))
            for c in g["cells"]:
                extra = ""
                if "replay_max_abs_diff" in c["notes"]:
                    extra = f"  replay diff {c['notes']['replay_max_abs_diff']:.3g}"
                print(
                    f"  {c['label']:10s} T={c['threads']}  {c['median']:>12,.0f} env-steps/s  "
                    f"spread {100 * c['spread']:.0f}%{extra}",
                    flush=True,
                )
    report["machine_after"] = machine_info()
    report["complete"] = True
    md = finish(report, stem, args.no_plot)
    print()
    print(md)
    print(f"{len(report['warnings'])} warnings (see the JSON); wrote {stem}.json, .md; {report['plot']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
