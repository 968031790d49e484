"""Side-by-side benchmark of Gymnasium's MuJoCo v5 tasks: mdvec against EnvPool, Gymnasium and bare physics.

Per task and per number of envs N, every backend below is built once (each thread count its own
instance) and all are stepped in alternating windows (one window per cell per round, the starting
cell rotating each round). First mdvec records a run under uniform random actions in the task's
action box (float32, as Gymnasium's Box; float64 copies of the same values for the float64 APIs):
the actions, the envs it reset at each step and every env's qpos and qvel after each step. Every
cell steps with those actions, each with the task's own terminations, truncations and NEXT_STEP
autoresets (Gymnasium's default and EnvPool's behaviour: the step after an episode ends resets
that env instead of stepping it); the bare cells replay the recording's resets too.

  mdvec         ``mdvec.VecEnv(N, task=ID, threads=T, autoreset_mode="next_step").step_into_buffers``:
                the Python binding's zero-copy path (one ctypes call per vector step)
  mdvec C       the same kind of handle stepped by ``mdvec_step_typed`` in a C loop: the library alone
  mdvec gym     ``gymnasium.make_vec("mdvec/ID", N, vectorization_mode="vector_entry_point",
                threads=T).step``: Gymnasium's vector API (tuples, info dicts), as EnvPool's
  EnvPool       ``envpool.make(ID, env_type="gymnasium", num_envs=N, batch_size=N, num_threads=T).step``
                (EnvPool's own v5 port on the MuJoCo it links statically, with its own *_envpool.xml)
  sync          ``gymnasium.make_vec(ID, N, vectorization_mode="sync")``: one process (shown at T=1)
  async         ``gymnasium.make_vec(ID, N, vectorization_mode="async")`` (fork, shared memory): N
                processes, pinned to T CPUs for each window (T >= CPUs: not pinned)
  bare          the physics of a v5 step and nothing else, on mujoco 4.0.0 (the libmujoco mdvec links)
                and the benchmarks' own thread crew (bench/crew.c compiled in, built like mdvec's pool: spin,
                then block; a contiguous block of envs per thread as mdvec assigns them, env i always on the
                same thread; "bare dyn": the next env from a shared counter):
                rewound to the recording's start before each window (untimed), then per env and step
                either ctrl = action, frame_skip x mj_step, mj_rnePostConstraint (Gymnasium v5's
                do_simulation; EnvPool's post_constraint) or, where mdvec reset that env, mj_resetData,
                the recorded qpos and qvel, mj_forward (reset_model + set_state with mdvec's noise draws).
                So it replays mdvec's physics, bit for bit (checked at each window's end: the JSON's
                replay_max_abs_diff is 0.0); no observation, reward or termination check. A small C
                library compiled by this script (cc) and called once per window.
  batch         ``mujoco.batch.Batch(model, N, nthread=T, persistent=True)``: MuJoCo 4's own thread pool
                from Python (ctrl written per step, step(ids, nstep=frame_skip); resets as bare's, by
                reset(ids), qpos/qvel writes and forward(ids); no mj_rnePostConstraint): the best a
                MuJoCo 4 Python user gets without C.

Engines (N = engine_envs, T = 1, in the same rotation as the N = engine_envs cells): the bare C loop
above, unchanged, on each libmujoco: mujoco 4.0.0, the MuJoCo that EnvPool's module links statically
(``envpool/mujoco/mujoco_gym_envpool.so`` exports MuJoCo's C API: dlopen'ed, RTLD_LOCAL|RTLD_DEEPBIND)
and, when present, the official wheel of that MuJoCo version (``--old-mujoco``; separates the version
from EnvPool's build of it), each on Gymnasium's v5 model file and on EnvPool's. Same driver, same
model file, same actions, same resets to the same states: only the engine binary differs, so
``engine ratio = EnvPool's engine / mujoco 4.0.0`` (same model file) is the engine's speed alone,
``physics ratio`` (EnvPool's engine on EnvPool's file over mujoco 4.0.0 on Gymnasium's) the physics
under each wrapper, and ``mdvec/EnvPool x physics ratio`` compares the wrappers on equal physics.

Ratios are medians over rounds of per-round ratios (windows of one round are adjacent in time, so
machine drift cancels); rates are medians of the window rates. The JSON (written after every task
and N, ``--resume`` continues it), a Markdown table and a PNG go to ``--out``
(``v5_sidebyside_<stamp>.*``).

Run from a source checkout (the bare loop compiles bench/crew.c), with a libmdvec built:
  MDVEC_LIB=$PWD/build-bench/libmdvec/libmdvec.so PYTHONPATH=python .venv-envpool/bin/python bench/v5_sidebyside.py
(``.venv-envpool``: a venv with envpool that sees the main venv's packages; without envpool the EnvPool
cells are skipped, and the EnvPool engine too unless ``--envpool-lib`` names its module). ``--quick``:
N = 8 only, 2 short rounds, no batch cells (< 2 minutes); the full run takes about 10-15 minutes.
``--pool A.json B.json ...`` (alone) prints ratios pooled over several runs' per-round pairs;
``--replot A.json ...`` (alone) rewrites runs' .md and .png from their JSON.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import hashlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "python"))  # mdvec from this checkout when PYTHONPATH has none

import mujoco  # noqa: E402
import mujoco.batch  # noqa: E402

import _sidebyside  # noqa: E402  (bench/, on sys.path when run as a script)
import mdvec  # noqa: E402
from _sidebyside import cell_of, paired_ratio  # noqa: E402
from _sidebyside import fmt as _f  # noqa: E402
from _sidebyside import ints as _ints  # noqa: E402
from mdvec import gym_tasks  # noqa: E402
from mdvec.vecenv import lib as mdvec_lib  # noqa: E402

try:
    import gymnasium
except ImportError:  # pragma: no cover - gymnasium is needed for the v5 model files anyway
    gymnasium = None

TASKS = tuple(gym_tasks.GYM_TASKS)
CPUS = len(os.sched_getaffinity(0))
MAX_STEPS = 50000  # cap on vector steps per window (memory of the recording)
BURN_IN = 32  # recorded steps no window starts in: every env was reset at step 0 (cold warmstart, first contacts)
SPREAD_WARNING = 0.25  # warn when a cell's windows spread more than this around their median
DTYPE_F32 = 1  # MDVEC_DTYPE_F32

# --------------------------------------------------------------------------- the bare C loop
BARE_C = _sidebyside.bare_c(
    header=r"""/* v5 bare physics (generated by bench/v5_sidebyside.py): N envs of one MJCF on any libmujoco
 * (dlopen'ed by path), stepped on the benchmarks' own crew (bench/crew.c, compiled in; one crew run per
 * vector step, no allocation): per vector step, a contiguous block of envs per thread (crew_share, as
 * mdvec assigns them; or, dynamic, the next env from a counter) either resets where the recording says mdvec reset it
 * (mj_resetData, the recorded qpos and qvel, mj_forward: a v5 reset_model + set_state with mdvec's own
 * noise draws) or takes its action as ctrl and runs frame_skip x mj_step, then mj_rnePostConstraint
 * (Gymnasium v5's do_simulation). No observation, reward or termination check. On mujoco 4.0.0 this
 * replays mdvec's physics bit for bit (checked by the script). Only MuJoCo calls whose signatures and
 * mjtState bits are the same in 3.6.0 and 4.0.0 are used and no struct field is read, so this drives
 * either engine (state sizes checked at create). Also: mdvec_step_typed and mdvec_get_state in C loops. */""",
    defines=r"""#define S_QPOS (1 << 1) /* mjSTATE_QPOS, 3.6.0 and 4.0.0 */
#define S_QVEL (1 << 2) /* mjSTATE_QVEL */
#define S_WARM (1 << 5) /* mjSTATE_WARMSTART (after HISTORY 1<<4, both versions) */
#define S_CTRL (1 << 6) /* mjSTATE_CTRL */
#define S_REC (S_QPOS | S_QVEL | S_WARM) /* what the recording holds per env and step */
""",
    functions=(
        "loadXML",
        "deleteModel",
        "makeData",
        "deleteData",
        "resetData",
        "step",
        "forward",
        "rnePostConstraint",
        "stateSize",
        "getState",
        "setState",
        "versionString",
    ),
    body=r"""typedef struct bare {
  const engine *e;
  int n, nq, nv, nu, frame_skip, post;
  void *model;                 /* the one mjModel, shared by every env (as mdvec's v5 tasks) */
  void **m, **d;               /* (n) each env's model (the shared one) and its own data */
  crew *crew;                  /* T threads, the caller included */
  const double *actions;       /* this step's (n, nu) */
  const unsigned char *resets; /* this step's (n) */
  const double *states;        /* this step's (n, k) recorded states (used where resets[i]) */
  int k;                       /* state size: nq + nv + nv (qpos, qvel, qacc_warmstart) */
  int dynamic;                 /* 0: a contiguous block of envs per thread (as mdvec); 1: threads take the next env from a counter */
  atomic_int next;             /* dynamic: the next env to take */
} bare;

static void set_env(bare *b, int i, const double *x) {
  const engine *e = b->e;
  e->resetData(b->m[i], b->d[i]);
  e->setState(b->m[i], b->d[i], x, S_REC);
  e->forward(b->m[i], b->d[i]);
}

static void step_env(bare *b, int i) {
  const engine *e = b->e;
  e->setState(b->m[i], b->d[i], b->actions + (size_t)i * (size_t)b->nu, S_CTRL);
  for (int k = 0; k < b->frame_skip; k++) e->step(b->m[i], b->d[i]);
  if (b->post) e->rnePostConstraint(b->m[i], b->d[i]);
}

static void job(void *ctx, int t, int T) {
  bare *b = ctx;
  size_t k = (size_t)b->k;
  if (b->dynamic) {
    for (int i; (i = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed)) < b->n;) {
      if (b->resets[i]) set_env(b, i, b->states + (size_t)i * k);
      else step_env(b, i);
    }
    return;
  }
  int lo, hi;
  crew_share(b->n, t, T, &lo, &hi);
  for (int i = lo; i < hi; i++) {
    if (b->resets[i]) set_env(b, i, b->states + (size_t)i * k);
    else step_env(b, i);
  }
}

void bare_set_dynamic(bare *b, int dynamic) { b->dynamic = dynamic; }

void bare_destroy(bare *b) {
  if (!b) return;
  crew_destroy(b->crew);
  for (int i = 0; i < b->n; i++) {
    if (b->d && b->d[i]) b->e->deleteData(b->d[i]);
  }
  if (b->model) b->e->deleteModel(b->model);
  free(b->m); free(b->d);
  free(b);
}

/* Load xml on engine e: n envs (one shared mjModel and an mjData each, as mdvec), a crew of T threads.
 * nq, nv, nu: mujoco 4.0.0's sizes of this model, checked against this engine's. */
bare *bare_create(const engine *e, const char *xml, int n, int T, int frame_skip, int post,
                  int nq, int nv, int nu, char *err, int nerr) {
  bare *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->e = e; b->n = n; b->frame_skip = frame_skip; b->post = post;
  void *m = e->loadXML(xml, NULL, err, nerr);
  if (!m) { free(b); return NULL; }
  b->nq = e->stateSize(m, S_QPOS); b->nv = e->stateSize(m, S_QVEL); b->nu = e->stateSize(m, S_CTRL);
  if (b->nq != nq || b->nv != nv || b->nu != nu) {
    snprintf(err, (size_t)nerr, "%s on MuJoCo %s: state sizes nq %d nv %d nu %d, expected %d %d %d",
             xml, e->versionString(), b->nq, b->nv, b->nu, nq, nv, nu);
    e->deleteModel(m); free(b); return NULL;
  }
  b->k = e->stateSize(m, S_REC);
  b->model = m;
  b->m = calloc((size_t)n, sizeof *b->m); b->d = calloc((size_t)n, sizeof *b->d);
  if (!b->m || !b->d) { snprintf(err, (size_t)nerr, "out of memory"); bare_destroy(b); return NULL; }
  for (int i = 0; i < n; i++) {
    b->m[i] = m;
    b->d[i] = e->makeData(m);
    if (!b->d[i]) { snprintf(err, (size_t)nerr, "env %d: mj_makeData failed", i); bare_destroy(b); return NULL; }
  }
  if (!(b->crew = crew_create(T, err, (size_t)nerr))) { bare_destroy(b); return NULL; }
  return b;
}

""",
    rewind="mj_resetData, qpos, qvel and qacc_warmstart, mj_forward",
    state="qpos, qvel, qacc_warmstart",
    atomic=True,
    warning_comment=r"""/* MuJoCo's warnings (e.g. the compiler's about an old model attribute) go nowhere instead of into
   MUJOCO_LOG.TXT in the working directory; the bench counts the envs' warnings from mjData itself. */
""",
)


class Shim(_sidebyside.Shim):
    """The compiled bare loop (cached by source hash under ``build_dir``) and the engines it opened."""

    def __init__(self, build_dir: Path) -> None:
        super().__init__(build_dir, BARE_C, "v5_bare", 7, dynamic=True)


# --------------------------------------------------------------------------- engines and models
def find_engines(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Return the engines to time: label -> {path, role} (or {skipped: why})."""
    out = _sidebyside.base_engines(args.envpool_lib, "mujoco_gym_envpool.so", "gym")
    old = args.old_mujoco
    if old is None:
        found = sorted(glob.glob(str(ROOT / "build-bench" / "mujoco-*" / "libmujoco.so.*")))
        old = found[-1] if found else None
    out["official old"] = (
        {"path": old, "role": "the official mujoco wheel's libmujoco of EnvPool's MuJoCo version"}
        if old
        else {"skipped": "no --old-mujoco (see docs/benchmarks_v5.md to fetch it)"}
    )
    return out


def envpool_xml(task: str) -> str | None:
    """Return the model file EnvPool's v5 task loads (<stem>_envpool.xml of envpool_assets), or None."""
    spec = importlib.util.find_spec("envpool_assets")
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(next(iter(spec.submodule_search_locations))) / "mujoco" / "assets_gym"
    stem = Path(gym_tasks.GYM_TASKS[task].xml_file).stem
    for name in (f"{stem}_envpool.xml", f"{stem}.xml"):
        if (base / name).is_file():
            return str(base / name)
    return None


# --------------------------------------------------------------------------- cells
class Cell:
    """One backend instance (a backend at one thread count, or one engine on one model file)."""

    kind = ""
    cpu_in_process = True  # False: the work runs in other processes (its CPU time is not ours)

    def __init__(self, label: str, threads: int | None) -> None:
        self.label, self.threads = label, threads
        self.windows: list[dict[str, float]] = []
        self.steps = 0
        self.notes: dict[str, Any] = {}
        self.done_fraction: float | None = None

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        raise NotImplementedError

    def before_window(self, rd: dict[str, Any] | None = None) -> None:
        """Per-window set-up outside the timing (async: pin its processes; bare: rewind to the recording)."""

    def after_window(self, rd: dict[str, Any]) -> None:
        """Per-window check outside the timing (bare: compare its end state with mdvec's)."""

    def calibrate(self, rd: dict[str, Any], seconds: float) -> int:
        """Warm up, then return the steps that fill ``seconds`` (within rd's recorded steps)."""
        self.before_window(rd)
        rows = rd["a32"].shape[0]
        self.step_many(rd, min(2, rows))
        k, steps, t0 = 2, 0, time.perf_counter()
        while True:
            self.step_many(rd, k)
            steps += k
            if time.perf_counter() - t0 >= min(0.1, seconds / 3):
                break
            k = min(2 * k, rows)
        per = (time.perf_counter() - t0) / steps
        return int(min(MAX_STEPS, max(2, round(seconds / per))))

    def run_window(self, rd: dict[str, Any]) -> dict[str, float]:
        self.before_window(rd)
        return _sidebyside.time_window(self, rd)

    def close(self) -> None:
        pass


class MdvecCell(Cell):
    kind = "mdvec"

    def __init__(self, task: str, n: int, threads: int, seed: int) -> None:
        super().__init__("mdvec", threads)
        self.env = mdvec.VecEnv(n, seed=seed, threads=threads, task=task, autoreset_mode="next_step")
        self.env.reset()
        self.buf = self.env.buffers()
        self.notes = {"api": "VecEnv.step_into_buffers(float32 actions)", "threads": self.env.spec.threads}

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step_into_buffers
        for a in rd["a32"][:k]:
            step(a)

    def close(self) -> None:
        self.env.close()


class MdvecCCell(Cell):
    kind = "mdvec C"

    def __init__(self, task: str, n: int, threads: int, seed: int, shim: Shim) -> None:
        super().__init__("mdvec C", threads)
        self.env = mdvec.VecEnv(n, seed=seed, threads=threads, task=task, autoreset_mode="next_step")
        self.env.reset()
        self.shim = shim
        self.fn = ctypes.cast(mdvec_lib().mdvec_step_typed, ctypes.c_void_p).value
        self.h = self.env._h.ptr.value  # the library handle (private attribute of the binding)
        self.notes = {"api": "mdvec_step_typed(float32) in a C loop", "threads": self.env.spec.threads}

    def states(self, k: int) -> np.ndarray:
        """Every env's qpos, qvel and warmstart now, (N, k) (untimed; for a bare cell that follows this one)."""
        return env_states(self.shim, self.h, self.env.num_envs, k)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        a = rd["a32"]
        rc = self.shim.lib.mdvec_loop(self.fn, self.h, a.ctypes.data, a[0].nbytes, k, DTYPE_F32)
        if rc:
            raise RuntimeError(f"mdvec_step_typed returned {rc}")

    def close(self) -> None:
        self.env.close()


class MdvecGymCell(Cell):
    kind = "mdvec gym"

    def __init__(self, task: str, n: int, threads: int, seed: int) -> None:
        super().__init__("mdvec gym", threads)
        self.env = gymnasium.make_vec(
            f"mdvec/{task}", num_envs=n, vectorization_mode="vector_entry_point", threads=threads, seed=seed
        )
        self.env.reset(seed=seed)
        self.notes = {
            "api": "gymnasium.make_vec('mdvec/ID', vectorization_mode='vector_entry_point').step",
            "autoreset_mode": str(self.env.metadata.get("autoreset_mode")),
        }

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step
        for a in rd["a32"][:k]:
            step(a)

    def close(self) -> None:
        self.env.close()


class EnvPoolCell(Cell):
    kind = "EnvPool"

    def __init__(self, task: str, n: int, threads: int, seed: int) -> None:
        super().__init__("EnvPool", threads)
        import envpool

        self.env = envpool.make(task, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=threads, seed=seed)
        self.env.reset()
        cfg = self.env.spec.config
        self.notes = {
            "api": "envpool.make(ID, env_type='gymnasium', batch_size=N).step(float64 actions)",
            "envpool": envpool.__version__,
            "num_threads": cfg.num_threads,
            "xml_file": cfg.xml_file,
            "frame_skip": cfg.frame_skip,
            "post_constraint": getattr(cfg, "post_constraint", None),
            "thread_affinity_offset": cfg.thread_affinity_offset,
        }

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step
        for a in rd["a64"][:k]:
            step(a)

    def calibrate(self, rd: dict[str, Any], seconds: float) -> int:
        """As Cell's, then (untimed) the fraction of env-steps ending an episode, to compare with mdvec's."""
        steps = super().calibrate(rd, seconds)
        if self.threads != 1:
            return steps  # once per task and N is enough
        ends, rows = 0, rd["a64"][: max(30, 1200 // rd["n"])]
        for a in rows:
            _, _, term, trunc, _ = self.env.step(a)
            ends += int(np.count_nonzero(term | trunc))
        self.done_fraction = ends / len(rows) / rd["n"]
        return steps

    def close(self) -> None:
        self.env.close()


class GymCell(Cell):
    """Gymnasium's own SyncVectorEnv or AsyncVectorEnv of the task."""

    def __init__(self, task: str, n: int, threads: int | None, seed: int, mode: str) -> None:
        super().__init__(mode, threads)
        self.kind = mode
        kw: dict[str, Any] = {}
        if mode == "async":
            kw["vector_kwargs"] = {"context": "fork", "shared_memory": True}
        self.env = gymnasium.make_vec(task, num_envs=n, vectorization_mode=mode, **kw)
        self.env.reset(seed=seed)
        self.notes = {
            "api": f"gymnasium.make_vec(ID, vectorization_mode='{mode}').step",
            "autoreset_mode": str(self.env.metadata.get("autoreset_mode")),
            **kw,
        }
        self.cpus: list[int] | None = None

    def pin(self, threads: int) -> None:
        """Pin the worker processes to the first ``threads`` allowed CPUs (all when threads >= CPUs)."""
        self.cpus = _sidebyside.pin_processes(self.env, threads)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        step = self.env.step
        for a in rd["a32"][:k]:
            step(a)

    def close(self) -> None:
        self.env.close()


class AsyncPinned(Cell):
    """One AsyncVectorEnv shared by the thread counts: each cell pins its processes before its windows."""

    kind = "async"
    cpu_in_process = False

    def __init__(self, shared: GymCell, threads: int) -> None:
        super().__init__("async", threads)
        self.shared = shared
        self.notes = _sidebyside.pinned_notes(shared, threads, CPUs())

    def before_window(self, rd: dict[str, Any] | None = None) -> None:
        self.shared.pin(self.threads)

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        self.shared.step_many(rd, k)


def CPUs() -> int:  # a constant-like accessor
    return CPUS


class BareCell(Cell):
    kind = "bare"

    def __init__(
        self,
        label: str,
        shim: Shim,
        engine_path: str,
        xml: str,
        n: int,
        threads: int,
        frame_skip: int,
        sizes: tuple[int, int, int],
        dynamic: bool = False,
    ) -> None:
        super().__init__(label, threads)
        self.shim, self.n = shim, n
        eng, version = shim.engine(engine_path)
        err = ctypes.create_string_buffer(4096)
        self.b = shim.lib.bare_create(eng, xml.encode(), n, threads, frame_skip, 1, *sizes, err, len(err))
        if not self.b:
            raise RuntimeError(err.value.decode())
        self.k = shim.lib.bare_state_size(self.b)
        shim.lib.bare_set_dynamic(self.b, int(dynamic))
        if self.k != sizes[0] + 2 * sizes[1]:
            raise RuntimeError(f"state size {self.k}, expected nq + 2 nv = {sizes[0] + 2 * sizes[1]}")
        self.version = version
        self.replay: list[float] = []  # per window: max |qpos, qvel - mdvec's| at its end (0.0: bit for bit)
        self.follow: MdvecCCell | None = None  # --bare-follows-mdvec: start each window from that cell's states
        self.notes = {
            "api": "bare C loop on the bench's crew: ctrl, frame_skip x mj_step, mj_rnePostConstraint; "
            "mdvec's recorded resets",
            "engine": engine_path,
            "mujoco": version,
            "xml": xml,
            "frame_skip": frame_skip,
            "envs_to_threads": "next env from a shared counter" if dynamic else "a contiguous block of envs per thread",
        }

    def before_window(self, rd: dict[str, Any] | None = None) -> None:
        if rd is not None and self.follow is not None:  # to where the timed mdvec C cell's envs are now
            states = self.follow.states(self.k)
            self.shim.lib.bare_rewind(self.b, states.ctypes.data)
        elif rd is not None:
            self.shim.lib.bare_rewind(self.b, rd["s0"].ctypes.data)  # to the recording's start

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        resets = rd["resets"] if self.follow is None else np.zeros_like(rd["resets"])  # following: no replayed resets
        self.shim.lib.bare_run(self.b, rd["a64"].ctypes.data, resets.ctypes.data, rd["x"].ctypes.data, k)

    def after_window(self, rd: dict[str, Any]) -> None:
        if self.follow is not None:
            return  # not a replay of the recording: nothing to compare
        out = np.empty((self.n, self.k))
        self.shim.lib.bare_states(self.b, out.ctypes.data)
        self.replay.append(float(np.max(np.abs(out - rd["x"][self.steps - 1]))))

    def close(self) -> None:
        if self.b:
            self.shim.lib.bare_destroy(self.b)
            self.b = None


class BatchCell(Cell):
    kind = "batch"

    def __init__(self, xml: str, n: int, threads: int, frame_skip: int) -> None:
        super().__init__("batch", threads)
        model = mujoco.MjModel.from_xml_path(xml)
        self.batch = mujoco.batch.Batch(model, nsim=n, nthread=threads, persistent=True)
        b = self.batch
        self.ctrl, self.qpos, self.qvel = b.bind("ctrl"), b.bind("qpos"), b.bind("qvel")
        self.warm = b.bind("qacc_warmstart")
        self.fs, self.nq, self.nv = frame_skip, model.nq, model.nv
        self.notes = {
            "api": "mujoco.batch.Batch(persistent=True): ctrl[:] = a; reset(ids, stage=NONE), qpos/qvel "
            "of the recording, forward(ids); step(ids, nstep=frame_skip)",
            "nthread": threads,
            "rnePostConstraint": False,
        }

    def _set(self, ids: Any, x: np.ndarray) -> None:
        nq, nv = self.nq, self.nv
        self.batch.reset(ids, stage=mujoco.mjtStage.mjSTAGE_NONE)
        self.qpos[ids] = x[:, :nq]
        self.qvel[ids] = x[:, nq : nq + nv]
        self.warm[ids] = x[:, nq + nv :]
        self.batch.forward(ids)

    def before_window(self, rd: dict[str, Any] | None = None) -> None:
        if rd is not None:
            self._set(np.arange(rd["n"]), rd["s0"])

    def step_many(self, rd: dict[str, Any], k: int) -> None:
        b, ctrl, fs = self.batch, self.ctrl, self.fs
        a64, resets, x = rd["a64"], rd["resets"], rd["x"]
        for s in range(k):
            ctrl[:] = a64[s]
            if resets[s].any():
                ids = np.flatnonzero(resets[s])
                self._set(ids, x[s, ids])
                b.step(np.flatnonzero(resets[s] == 0), nstep=fs)
            else:
                b.step(nstep=fs)


# --------------------------------------------------------------------------- one group: a task at one N
STATE_SIG = int(mujoco.mjtState.mjSTATE_QPOS | mujoco.mjtState.mjSTATE_QVEL | mujoco.mjtState.mjSTATE_WARMSTART)


def env_states(shim: Shim, h: int, n: int, k: int) -> np.ndarray:
    """Every env's qpos, qvel and warmstart (STATE_SIG) of the mdvec handle h, (n, k), via mdvec_get_state."""
    return _sidebyside.env_states(shim, h, n, k, STATE_SIG)


class Recording:
    """mdvec's own run under the group's random actions: what every cell replays.

    Actions (uniform in the task's box, float32, and their float64 copies), then per step the reset flags
    (NEXT_STEP: env i was reset instead of stepped) and every env's qpos and qvel after the step, from an
    mdvec VecEnv that starts reset (s0: the states then). Every cell steps with these actions; the bare
    cells also rewind to s0 before a window and reset where and to what mdvec did, so they replay mdvec's
    physics (bit for bit on mujoco 4.0.0). Extended on demand as windows grow.
    """

    def __init__(
        self,
        task: str,
        n: int,
        threads: int,
        seed: int,
        box: tuple[np.ndarray, np.ndarray],
        rng: np.random.Generator,
        shim: Shim,
        sizes: tuple[int, int, int],
    ) -> None:
        self.env = mdvec.VecEnv(n, seed=seed, threads=threads, task=task, autoreset_mode="next_step")
        self.env.reset()
        self.buf = self.env.buffers()
        self.n, self.k, self.nu = n, sizes[0] + 2 * sizes[1], sizes[2]
        self.box, self.rng, self.shim = box, rng, shim
        if self.env._h.spec and mdvec_lib().mdvec_state_size(self.env._h.ptr, STATE_SIG) != self.k:
            raise RuntimeError("mdvec's state size of qpos, qvel, warmstart is not nq + 2 nv")
        self.h = self.env._h.ptr.value
        self.s0 = self._states()
        self.a32 = np.zeros((0, n, self.nu), np.float32)
        self.a64 = np.zeros((0, n, self.nu))
        self.resets = np.zeros((0, n), np.uint8)
        self.x = np.zeros((0, n, self.k))

    def _states(self) -> np.ndarray:
        return env_states(self.shim, self.h, self.n, self.k)

    def ensure(self, steps: int) -> None:
        """Record until there are at least ``steps`` steps (a quarter more, to spare re-recording)."""
        have = len(self.a32)
        if steps <= have:
            return
        more = max(steps + steps // 4, 64) - have
        low, high = self.box
        a32 = self.rng.uniform(low, high, (more, self.n, self.nu)).astype(np.float32)
        resets = np.zeros((more, self.n), np.uint8)
        x = np.empty((more, self.n, self.k))
        for s in range(more):
            self.env.step_into_buffers(a32[s])
            resets[s] = self.buf["reset"]
            x[s] = self._states()
        self.a32 = np.concatenate([self.a32, a32])
        self.a64 = self.a32.astype(np.float64)
        self.resets = np.concatenate([self.resets, resets])
        self.x = np.concatenate([self.x, x])

    def data(self, offset: int) -> dict[str, Any]:
        """The recording from step ``offset`` on; s0: the states just before it (the bare cells' rewind)."""
        s0 = self.x[offset - 1] if offset > 0 else self.s0
        return {
            "n": self.n,
            "a32": self.a32[offset:],
            "a64": self.a64[offset:],
            "resets": self.resets[offset:],
            "x": self.x[offset:],
            "s0": np.ascontiguousarray(s0),
            "offset": offset,
        }

    def close(self) -> None:
        self.env.close()


def task_model(task: str) -> tuple[str, int, tuple[int, int, int]]:
    """Return the task's model file (as mdvec resolves it), frame_skip and (nq, nv, nu)."""
    probe = mdvec.VecEnv(1, task=task)
    opts = probe.spec.options
    probe.close()
    model = mujoco.MjModel.from_xml_path(opts["xml_file"])
    return opts["xml_file"], int(opts["frame_skip"]), (model.nq, model.nv, model.nu)


def open_cells(
    task: str, n: int, args: argparse.Namespace, shim: Shim, engines: dict[str, dict[str, Any]], skipped: dict[str, str]
) -> list[Cell]:
    """Build every cell of (task, N); a backend that cannot be built is recorded in skipped."""
    cells: list[Cell] = []
    xml, fs, sizes = task_model(task)

    def add(name: str, make: Any) -> None:
        if name.split(" T=")[0] not in args.backends and not name.startswith("engine"):
            return
        try:
            c = make()
            if c is not None:
                cells.append(c)
        except Exception as exc:  # noqa: BLE001 - one backend failing must not lose the others
            skipped[name] = f"{type(exc).__name__}: {exc}"
            print(f"  skipped {name}: {skipped[name]}", flush=True)

    asyncs: GymCell | None = None
    if "async" in args.backends and n <= args.async_max_envs:  # first: fork before the others' threads
        try:
            asyncs = GymCell(task, n, None, args.seed, "async")
        except Exception as exc:  # noqa: BLE001 - the async backend failing is reported, not fatal
            skipped["async"] = f"{type(exc).__name__}: {exc}"
    elif "async" in args.backends:
        skipped["async"] = f"N = {n} > --async-max-envs {args.async_max_envs}"
    for t in args.threads:
        add(f"mdvec T={t}", lambda t=t: MdvecCell(task, n, t, args.seed))
        add(f"mdvec C T={t}", lambda t=t: MdvecCCell(task, n, t, args.seed, shim))
        add(f"mdvec gym T={t}", lambda t=t: MdvecGymCell(task, n, t, args.seed))
        add(f"EnvPool T={t}", lambda t=t: EnvPoolCell(task, n, t, args.seed))
        add(f"bare T={t}", lambda t=t: BareCell("bare", shim, engines["mujoco"]["path"], xml, n, t, fs, sizes))
        add(f"batch T={t}", lambda t=t: BatchCell(xml, n, t, fs))
        if t > 1:
            add(
                f"bare dyn T={t}",
                lambda t=t: BareCell("bare dyn", shim, engines["mujoco"]["path"], xml, n, t, fs, sizes, dynamic=True),
            )
        if asyncs is not None:
            add(f"async T={t}", lambda t=t: AsyncPinned(asyncs, t))
    add("sync T=1", lambda: GymCell(task, n, 1, args.seed, "sync"))
    if n == args.engine_envs and "engines" in args.backends:
        ep_xml = envpool_xml(task)
        for label, e in engines.items():
            if "path" not in e:
                continue
            for xml_kind, path in (("gym xml", xml), ("envpool xml", ep_xml)):
                if path is None or (label == "mujoco" and xml_kind == "gym xml" and 1 in args.threads):
                    continue  # that one is the bare T=1 cell
                if label == "official old" and xml_kind == "envpool xml":
                    continue
                add(
                    f"engine {label} / {xml_kind}",
                    lambda e=e, path=path, label=label, xml_kind=xml_kind: BareCell(
                        f"engine {label} / {xml_kind}", shim, e["path"], path, n, 1, fs, sizes
                    ),
                )
    if asyncs is not None:
        cells.append(_Closer(asyncs))
    if args.bare_follows_mdvec:
        for c in cells:
            if isinstance(c, BareCell) and c.label == "bare":
                c.follow = next((m for m in cells if isinstance(m, MdvecCCell) and m.threads == c.threads), None)
                c.notes["follows"] = "the mdvec C cell's current states (no replayed resets)" if c.follow else "nothing"
    return cells


class _Closer(Cell):
    """Not a timed cell: closes a shared backend with the group."""

    kind = "closer"

    def __init__(self, inner: Cell) -> None:
        super().__init__("_closer", None)
        self.inner = inner

    def close(self) -> None:
        self.inner.close()


def run_group(
    task: str, n: int, gi: int, args: argparse.Namespace, shim: Shim, engines: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Run every cell of (task, N) in alternating windows; return the group's JSON."""
    load0 = os.getloadavg()
    t_start = time.perf_counter()
    skipped: dict[str, str] = {}
    phases: dict[str, float] = {}
    tp = time.perf_counter()
    cells = open_cells(task, n, args, shim, engines, skipped)
    phases["open"] = time.perf_counter() - tp
    timed = [c for c in cells if c.kind != "closer"]
    spec = gym_tasks.GYM_TASKS[task]
    box_env = mdvec.VecEnv(1, task=task)
    box = (box_env.spec.action_low.astype(np.float64), box_env.spec.action_high.astype(np.float64))
    box_env.close()
    rng = np.random.default_rng([args.seed, gi])
    rec: Recording | None = None
    try:
        rec = Recording(task, n, max(args.threads), args.seed + 1, box, rng, shim, task_model(task)[2])
        rec.ensure(BURN_IN + 128)
        phases["record"] = time.perf_counter() - tp - phases["open"]
        for c in list(timed):
            try:
                c.steps = c.calibrate(rec.data(BURN_IN), args.window_seconds)
            except Exception as exc:  # noqa: BLE001 - a failing backend is reported, not fatal
                skipped[f"{c.label} T={c.threads}"] = f"warmup: {type(exc).__name__}: {exc}"
                timed.remove(c)
        phases["calibrate"] = time.perf_counter() - tp - phases["open"] - phases["record"]
        for r in range(args.rounds):
            t_rec = time.perf_counter()
            longest = max([c.steps for c in timed] or [1])
            rec.ensure(BURN_IN + 2 * longest)
            phases["record"] += time.perf_counter() - t_rec
            rd = rec.data(BURN_IN + r * longest // args.rounds)  # round r's rows: spread over the recording
            order = timed[r % len(timed) :] + timed[: r % len(timed)] if timed else []
            for c in order:
                try:
                    w = c.run_window(rd)
                except Exception as exc:  # noqa: BLE001 - a failing backend is reported, not fatal
                    skipped[f"{c.label} T={c.threads}"] = f"window {r + 1}: {type(exc).__name__}: {exc}"
                    timed.remove(c)
                    continue
                _sidebyside.add_window(c, w, r, args.window_seconds, n, MAX_STEPS)
            if args.verbose:
                print(f"  round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        phases["windows"] = time.perf_counter() - tp - sum(phases.values())
        reset_fraction = float(rec.resets.mean()) if rec is not None and len(rec.resets) else None
        recorded = len(rec.a32) if rec is not None else 0
        if rec is not None:
            rec.close()
        _sidebyside.close_all(cells)
    for c in cells:
        if isinstance(c, BareCell) and c.replay:
            c.notes["replay_max_abs_diff"] = max(c.replay)  # 0.0: replayed mdvec's physics bit for bit
    out_cells = _sidebyside.cell_results(cells, done_fraction=True)
    return {
        "task": task,
        "num_envs": n,
        "reset_fraction_mdvec": reset_fraction,
        "recorded_steps": recorded,
        "load_before": list(load0),
        "load_after": list(os.getloadavg()),
        "seconds": time.perf_counter() - t_start,
        "phases": phases,
        "cells": out_cells,
        "skipped": skipped,
        "max_episode_steps": spec.max_episode_steps,
    }


# --------------------------------------------------------------------------- summary


def engine_ratios(groups: list[dict[str, Any]], task: str, engine_envs: int) -> dict[str, Any]:
    """Engine timings of a task (bare C loop, N = engine_envs, T = 1): medians and paired ratios.

    Each ratio is given per wall-clock second and per CPU-second of this process (single-threaded cells:
    the CPU-second one ignores the time other processes held the CPU, so it is the steadier on a shared
    machine); ``engine_ratio`` is the CPU one (wall when there is none): EnvPool's engine over mujoco
    4.0.0 on Gymnasium's model file; ``physics_ratio``: EnvPool's engine on EnvPool's model file over
    mujoco 4.0.0 on Gymnasium's, the physics under each wrapper.
    """
    g = next((g for g in groups if g["task"] == task and g["num_envs"] == engine_envs), None)
    if g is None:
        return {}
    m_gym = cell_of(g, "bare", 1)
    m_ep = cell_of(g, "engine mujoco / envpool xml", None)
    e_gym = cell_of(g, "engine envpool engine / gym xml", None)
    e_ep = cell_of(g, "engine envpool engine / envpool xml", None)
    o_gym = cell_of(g, "engine official old / gym xml", None)
    out: dict[str, Any] = {}
    for name, c in (
        ("mujoco_gym_xml", m_gym),
        ("mujoco_envpool_xml", m_ep),
        ("envpool_engine_gym_xml", e_gym),
        ("envpool_engine_envpool_xml", e_ep),
        ("official_old_gym_xml", o_gym),
    ):
        out[name] = c["median"] if c else None
        out[name + "_cpu"] = c.get("cpu_median") if c else None
    for name, (a, b) in {
        "envpool_engine_over_mujoco": (e_gym, m_gym),
        "envpool_engine_over_mujoco_envpool_xml": (e_ep, m_ep),
        "official_old_over_mujoco": (o_gym, m_gym),
        "envpool_physics_over_mujoco_physics": (e_ep, m_gym),
        "envpool_xml_over_gym_xml_on_mujoco": (m_ep, m_gym),
    }.items():
        out["ratio_" + name] = paired_ratio(a, b)
        out["ratio_" + name + "_cpu"] = paired_ratio(a, b, "cpu_rate")

    def pick(k: str) -> Any:
        return out["ratio_" + k + "_cpu"] or out["ratio_" + k]

    out["engine_ratio"] = pick("envpool_engine_over_mujoco")
    out["physics_ratio"] = pick("envpool_physics_over_mujoco_physics")
    return out


def summarize(groups: list[dict[str, Any]], args: argparse.Namespace) -> list[dict[str, Any]]:
    """One row per (task, T, N): rates (wall-clock medians) and paired ratios (wall; _cpu: per CPU-second)."""
    rows = []
    for g in groups:
        eng = engine_ratios(groups, g["task"], args.engine_envs)
        er, pr = eng.get("engine_ratio"), eng.get("physics_ratio")
        for t in args.threads:
            m, mc, mg = cell_of(g, "mdvec", t), cell_of(g, "mdvec C", t), cell_of(g, "mdvec gym", t)
            ep, bare, batch = cell_of(g, "EnvPool", t), cell_of(g, "bare", t), cell_of(g, "batch", t)
            dyn = cell_of(g, "bare dyn", t)
            sync, asy = cell_of(g, "sync", 1), cell_of(g, "async", t)

            def rate(c: Any) -> Any:
                return c["median"] if c else None

            row: dict[str, Any] = {
                "task": g["task"],
                "threads": t,
                "num_envs": g["num_envs"],
                "mdvec": rate(m),
                "mdvec_C": rate(mc),
                "mdvec_gym": rate(mg),
                "envpool": rate(ep),
                "bare": rate(bare),
                "batch": rate(batch),
                "sync": rate(sync),
                "async": rate(asy),
                "bare_dyn": rate(dyn),
                "engine_ratio": er,
                "physics_ratio": pr,
                "reset_fraction_mdvec": g["reset_fraction_mdvec"],
                "envpool_done_fraction": ep.get("done_fraction") if ep else None,
            }
            for name, (a, b) in {
                "mdvec_over_bare": (m, bare),
                "mdvec_C_over_bare": (mc, bare),
                "mdvec_gym_over_bare": (mg, bare),
                "mdvec_over_batch": (m, batch),
                "mdvec_over_envpool": (m, ep),
                "mdvec_gym_over_envpool": (mg, ep),
                "envpool_over_bare": (ep, bare),
                "mdvec_over_sync": (m, sync),
                "mdvec_over_async": (m, asy),
                "bare_dyn_over_bare": (dyn, bare),
                "envpool_over_bare_dyn": (ep, dyn),
            }.items():
                row[name] = paired_ratio(a, b)
                row[name + "_cpu"] = paired_ratio(a, b, "cpu_rate")
            # on equal physics: EnvPool's rate divided by its physics' speed relative to mdvec's
            for name in ("mdvec_over_envpool", "mdvec_gym_over_envpool"):
                row[name + "_equal_physics"] = row[name] * pr if row[name] and pr else None
            row["envpool_over_own_bare"] = row["envpool_over_bare"] / pr if row["envpool_over_bare"] and pr else None
            rows.append(row)
    return rows


def markdown(
    rows: list[dict[str, Any]], groups: list[dict[str, Any]], args: argparse.Namespace, meta: dict[str, Any]
) -> str:
    """The tables of docs/benchmarks_v5.md for this run."""
    v = meta["versions"]
    lines = [
        f"Run {meta['stamp']}: {meta['machine']['cpu_model']}, {meta['machine']['cores']} cores, "
        f"load {meta['machine']['loadavg'][0]:.2f} -> {meta['machine_after']['loadavg'][0]:.2f}; "
        f"mujoco {v['mujoco']}, EnvPool {v.get('envpool')} (MuJoCo {v.get('envpool_mujoco')}), "
        f"gymnasium {v['gymnasium']}; {args.rounds} rounds of {args.window_seconds} s windows.",
        "",
        "env-steps/s are medians of wall-clock window rates; ratios are medians of per-round ratios "
        '(wall clock; "cpu": per CPU-second of the process).',
        "",
        "| task | T | N | mdvec | mdvec/bare | (cpu) | mdvec C/bare | mdvec gym | EnvPool | mdvec gym/EnvPool "
        "| mdvec/EnvPool | physics ratio | mdvec/EnvPool, equal physics | bare | batch | sync | async |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['task']} | {r['threads']} | {r['num_envs']} | {_f(r['mdvec'])} | "
            f"{_f(r['mdvec_over_bare'], True)} | {_f(r['mdvec_over_bare_cpu'], True)} | "
            f"{_f(r['mdvec_C_over_bare'], True)} | {_f(r['mdvec_gym'])} | {_f(r['envpool'])} | "
            f"{_f(r['mdvec_gym_over_envpool'], True)} | {_f(r['mdvec_over_envpool'], True)} | "
            f"{_f(r['physics_ratio'], True)} | {_f(r['mdvec_over_envpool_equal_physics'], True)} | "
            f"{_f(r['bare'])} | {_f(r['batch'])} | {_f(r['sync'])} | {_f(r['async'])} |"
        )
    dyn_rows = [r for r in rows if r.get("bare_dyn")]
    if dyn_rows:
        lines += [
            "",
            "Static against dynamic env-to-thread assignment (bare dyn: the bare loop with threads taking "
            "the next env from a shared counter; paired wall-clock ratios):",
            "",
            "| task | T | N | bare | bare dyn | bare dyn / bare | EnvPool / bare | EnvPool / bare dyn |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in dyn_rows:
            lines.append(
                f"| {r['task']} | {r['threads']} | {r['num_envs']} | {_f(r['bare'])} | {_f(r['bare_dyn'])} | "
                f"{_f(r['bare_dyn_over_bare'], True)} | {_f(r['envpool_over_bare'], True)} | "
                f"{_f(r['envpool_over_bare_dyn'], True)} |"
            )
    lines += [
        "",
        f"Engines: the bare C loop at N = {args.engine_envs}, T = 1 on each engine and model file "
        "(env-steps per CPU-second; ratios per CPU-second, paired by round, wall-clock ones in brackets):",
        "",
        "| task | mujoco 4, gym xml | EnvPool's engine, gym xml | official old, gym xml | mujoco 4, EnvPool xml "
        "| EnvPool's engine, EnvPool xml | engine ratio | official old / mujoco 4 | EnvPool xml / gym xml "
        "(mujoco 4) | physics ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for task in dict.fromkeys(g["task"] for g in groups):
        e = engine_ratios(groups, task, args.engine_envs)
        if not e:
            continue

        def both(k: str, e: dict[str, Any] = e) -> str:
            return f"{_f(e['ratio_' + k + '_cpu'], True)} ({_f(e['ratio_' + k], True)})"

        lines.append(
            f"| {task} | {_f(e['mujoco_gym_xml_cpu'])} | {_f(e['envpool_engine_gym_xml_cpu'])} | "
            f"{_f(e['official_old_gym_xml_cpu'])} | {_f(e['mujoco_envpool_xml_cpu'])} | "
            f"{_f(e['envpool_engine_envpool_xml_cpu'])} | {both('envpool_engine_over_mujoco')} | "
            f"{both('official_old_over_mujoco')} | {both('envpool_xml_over_gym_xml_on_mujoco')} | "
            f"{both('envpool_physics_over_mujoco_physics')} |"
        )
    return "\n".join(lines) + "\n"


SHORT = {
    "InvertedPendulum-v5": "InvPend",
    "InvertedDoublePendulum-v5": "InvDblPend",
    "HumanoidStandup-v5": "HumStandup",
    "HalfCheetah-v5": "Cheetah",
}


def plot(rows: list[dict[str, Any]], args: argparse.Namespace, path: Path, title: str) -> str:
    """Bars per task (log scale), one panel per (T, N), then mdvec/bare and mdvec/EnvPool panels."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib not installed"
    configs = sorted({(r["threads"], r["num_envs"]) for r in rows}, key=lambda c: (c[1], c[0]))
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    names = [SHORT.get(t, t.replace("-v5", "")) for t in tasks]
    series = [
        ("mdvec", "mdvec"),
        ("mdvec_gym", "mdvec gym"),
        ("envpool", "EnvPool"),
        ("bare", "bare (mujoco 4)"),
        ("batch", "mujoco.batch"),
        ("sync", "gym sync"),
        ("async", "gym async"),
    ]
    ncols = 2
    nrows = (len(configs) + 2 + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(15, 4.0 * nrows), squeeze=False)
    width = 0.8 / len(series)
    by = {(r["task"], r["threads"], r["num_envs"]): r for r in rows}
    for ax, (t, n) in zip(axes.flat, configs):
        for k, (key, name) in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(tasks))]
            ys = [(by.get((task, t, n)) or {}).get(key) or 0.0 for task in tasks]
            ax.bar(xs, ys, width, label=name)
        ax.set_yscale("log")
        ax.set_title(f"T = {t} threads, N = {n} envs: env-steps/s (median of windows)", fontsize=9)
        ax.set_xticks(range(len(tasks)), names, rotation=25, fontsize=8)
    axes.flat[0].legend(fontsize=7, ncol=4)
    panels = [
        ("mdvec_over_bare_cpu", "mdvec / bare physics (paired, per CPU-second); dotted: 0.95"),
        ("mdvec_gym_over_envpool", "mdvec gym / EnvPool (paired, wall clock); triangles: physics ratio"),
    ]
    for j, (key, label) in enumerate(panels):
        ax = axes.flat[len(configs) + j]
        for t, n in configs:
            ax.plot(
                range(len(tasks)),
                [(by.get((task, t, n)) or {}).get(key) or np.nan for task in tasks],
                "o-",
                label=f"T={t} N={n}",
                ms=4,
            )
        if key == "mdvec_gym_over_envpool":
            ax.plot(
                range(len(tasks)),
                [(by.get((task, configs[0][0], configs[0][1])) or {}).get("physics_ratio") or np.nan for task in tasks],
                "k^",
                label="physics ratio",
                ms=6,
            )
        ax.axhline(1.0, color="grey", lw=0.8)
        if key == "mdvec_over_bare_cpu":
            ax.axhline(0.95, color="grey", lw=0.8, ls=":")
        ax.set_xticks(range(len(tasks)), names, rotation=25, fontsize=8)
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7, ncol=3)
    for extra in list(axes.flat)[len(configs) + len(panels) :]:
        extra.axis("off")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"wrote {path}"


# --------------------------------------------------------------------------- pooling runs
POOLED = (
    ("mdvec/bare (cpu)", "mdvec", "bare", "cpu_rate"),
    ("mdvec C/bare (cpu)", "mdvec C", "bare", "cpu_rate"),
    ("mdvec/bare", "mdvec", "bare", "rate"),
    ("mdvec/EnvPool", "mdvec", "EnvPool", "rate"),
    ("mdvec gym/EnvPool", "mdvec gym", "EnvPool", "rate"),
)


def pair_ratios(a: dict[str, Any] | None, b: dict[str, Any] | None, key: str) -> list[float]:
    """Every per-round ratio of a's window to b's (the values paired_ratio takes the median of)."""
    if not a or not b:
        return []
    rb = {w["round"]: w.get(key) for w in b["windows"]}
    return [w[key] / rb[w["round"]] for w in a["windows"] if w.get(key) and rb.get(w["round"])]


def pool(paths: list[Path]) -> str:
    """Pooled ratios over several runs' JSON: per (task, T, N) the median of all their per-round ratios and
    the quartiles (in brackets), then per task over both N; engine ratios likewise over every engine cell."""
    reports = [json.loads(p.read_text()) for p in paths]
    groups = [g for r in reports for g in r["groups"]]
    tasks = list(dict.fromkeys(g["task"] for g in groups))
    threads = sorted({c["threads"] for g in groups for c in g["cells"] if c["label"] == "mdvec"})

    def q(xs: list[float]) -> str:
        if not xs:
            return "-"
        qs = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
        return f"{statistics.median(xs):.2f} ({qs[0]:.2f}-{qs[2]:.2f}, {len(xs)})"

    loads = [
        f"{r['stamp']}: load {r['machine']['loadavg'][0]:.1f} -> {r['machine_after']['loadavg'][0]:.1f}"
        for r in reports
    ]
    lines = [
        f"Pooled over {len(reports)} runs ({'; '.join(loads)}): median of every per-round ratio, "
        "(quartiles, number of pairs).",
        "",
        "| task | T | " + " | ".join(name for name, *_ in POOLED) + " |",
        "|---|---|" + "---|" * len(POOLED),
    ]
    for task in tasks:
        for t in threads:
            cols = []
            for _, a, b, key in POOLED:
                xs = [
                    x for g in groups if g["task"] == task for x in pair_ratios(cell_of(g, a, t), cell_of(g, b, t), key)
                ]
                cols.append(q(xs))
            lines.append(f"| {task} | {t} | " + " | ".join(cols) + " |")
    eng = (
        ("engine ratio", "engine envpool engine / gym xml", "bare"),
        ("official old / mujoco 4", "engine official old / gym xml", "bare"),
        ("EnvPool xml / gym xml (mujoco 4; control)", "engine mujoco / envpool xml", "bare"),
        ("physics ratio", "engine envpool engine / envpool xml", "bare"),
    )
    lines += ["", "| task | " + " | ".join(name for name, *_ in eng) + " |", "|---|" + "---|" * len(eng)]
    for task in tasks:
        cols = []
        for _, a, b in eng:
            xs = [
                x
                for g in groups
                if g["task"] == task
                for x in pair_ratios(cell_of(g, a, None), cell_of(g, b, 1), "cpu_rate")
            ]
            cols.append(q(xs))
        lines.append(f"| {task} | " + " | ".join(cols) + " |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- machine and versions
def machine_info() -> dict[str, Any]:
    return _sidebyside.machine_info(CPUS)


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
    out["envpool"] = _sidebyside.envpool_version()
    _sidebyside.engine_versions(out, shim, engines)
    out["envpool_mujoco"] = out.get("envpool_engine_version")
    out["script_sha256"] = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    try:
        out["git"] = _sidebyside.git_describe()
        if out["git"] is None and (ROOT / "COMMIT").is_file():  # an export (git archive) of a commit
            out["git"] = (ROOT / "COMMIT").read_text().strip() + " (export)"
        out["crew_modified"] = bool(
            subprocess.run(  # the crew compiled into the bare loop, not in script_sha256
                ["git", "-C", str(ROOT), "status", "--porcelain", "--", "bench/crew.c", "bench/crew.h"],
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
    except OSError:
        pass
    return out


# --------------------------------------------------------------------------- command line
BACKENDS = ("mdvec", "mdvec C", "mdvec gym", "EnvPool", "bare", "batch", "sync", "async", "engines", "bare dyn")
DEFAULT_BACKENDS = BACKENDS[:-1]  # "bare dyn" (bare with dynamic env-to-thread assignment, T > 1) on request


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=",".join(TASKS), help="comma-separated v5 ids (default: all mdvec has)")
    p.add_argument("--threads", type=_ints, default=(1, 2))
    p.add_argument("--envs", type=_ints, default=None, help="numbers of envs (default 8,64; --quick 8)")
    p.add_argument("--window-seconds", type=float, default=None, help="default 0.15 (--quick 0.05)")
    p.add_argument("--rounds", type=int, default=None, help="default 8 (--quick 2)")
    p.add_argument("--backends", default=None, help=f"subset of {','.join(BACKENDS)} (--quick: all but batch)")
    p.add_argument("--engine-envs", type=int, default=8, help="N of the engine cells (T = 1)")
    p.add_argument("--async-max-envs", type=int, default=64)
    p.add_argument("--envpool-lib", default=None, help="EnvPool's mujoco_gym_envpool.so (default: found via import)")
    p.add_argument(
        "--old-mujoco",
        default=None,
        help="the official libmujoco.so of EnvPool's MuJoCo version (default build-bench/mujoco-*/)",
    )
    p.add_argument("--build-dir", type=Path, default=ROOT / "build-bench" / "v5_bare")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    p.add_argument("--resume", type=Path, default=None, help="a partial v5_sidebyside_*.json to continue")
    p.add_argument("--name", default="v5_sidebyside", help="file name stem before the time stamp")
    p.add_argument("--verbose", action="store_true")
    p.add_argument(
        "--bare-follows-mdvec",
        action="store_true",
        help="experiment: each bare window starts from the mdvec C cell's current states (the same part of "
        "the episodes) instead of the recording's start; no replayed resets, no replay check",
    )
    a = p.parse_args(argv)
    a.tasks = tuple(t for t in a.tasks.split(",") if t)
    unknown = [t for t in a.tasks if t not in TASKS]
    if unknown:
        p.error(f"--tasks: unknown {unknown}; choose from {','.join(TASKS)}")
    quick = {
        "envs": (8,),
        "window_seconds": 0.05,
        "rounds": 2,
        "backends": ",".join(b for b in DEFAULT_BACKENDS if b != "batch"),
    }
    full = {"envs": (8, 64), "window_seconds": 0.15, "rounds": 8, "backends": ",".join(DEFAULT_BACKENDS)}
    for k, v in (quick if a.quick else full).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
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
    "async_max_envs",
    "seed",
    "quick",
)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--pool"]:
        print(pool([Path(p) for p in argv[1:]]), end="")
        return 0
    if argv[:1] == ["--replot"]:  # rewrite a finished run's .md and .png from its JSON (this script's format)
        for path in map(Path, argv[1:]):
            report = json.loads(path.read_text())
            args = argparse.Namespace(**report["settings"])
            rows = summarize(report["groups"], args)
            stem = path.with_suffix("")
            stem.with_suffix(".md").write_text(markdown(rows, report["groups"], args, report))
            title = (
                f"mdvec v5 side-by-side {report['stamp']}: {report['machine']['cpu_model']}, "
                f"{report['machine']['cpus_allowed']} CPUs, load {report['machine']['loadavg'][0]:.1f}"
            )
            print(plot(rows, args, stem.with_suffix(".png"), title))
        return 0
    args = parse_args(argv)
    if gymnasium is None:
        print("gymnasium is needed (the v5 model files and the Gymnasium backends)", file=sys.stderr)
        return 2
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
            "tool": "bench/v5_sidebyside.py",
            "stamp": stamp,
            "machine": machine_info(),
            "versions": versions(shim, engines),
            "engines": engines,
            "settings": settings,
            "bare_shim": str(shim.path),
            "groups": [],
            "complete": False,
        }
        args.out.mkdir(parents=True, exist_ok=True)
    print(
        f"v5 side-by-side: {CPUS} CPUs, load {os.getloadavg()[0]:.2f}; tasks {len(args.tasks)}, threads "
        f"{args.threads}, envs {args.envs}, {args.rounds} x {args.window_seconds} s; engines "
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
            report["groups"].append(g)
            print(f"  {g['seconds']:.1f} s: " + ", ".join(f"{k} {v:.1f} s" for k, v in g["phases"].items()), flush=True)
            stem.with_suffix(".json").write_text(json.dumps(report, separators=(",", ":")))
            for c in g["cells"]:
                print(
                    f"  {c['label']:38s} T={c['threads']}  {c['median']:>12,.0f} env-steps/s  "
                    f"spread {100 * c['spread']:.0f}%",
                    flush=True,
                )
    report["machine_after"] = machine_info()
    rows = summarize(report["groups"], args)
    report["rows"] = rows
    report["engine_summary"] = {t: engine_ratios(report["groups"], t, args.engine_envs) for t in args.tasks}
    warnings = []
    for when, m in (("start", report["machine"]), ("end", report["machine_after"])):
        if m["loadavg"][0] > 0.5 * CPUS:
            warnings.append(f"load average {m['loadavg'][0]:.2f} at the {when} on {CPUS} CPUs: shared machine")
    for g in report["groups"]:
        for c in g["cells"]:
            if c["spread"] > SPREAD_WARNING:
                warnings.append(
                    f"{g['task']} N={g['num_envs']} {c['label']} T={c['threads']}: windows spread "
                    f"{100 * c['spread']:.0f}%"
                )
    report["warnings"] = warnings
    report["complete"] = True
    md = markdown(rows, report["groups"], args, report)
    stem.with_suffix(".md").write_text(md)
    title = (
        f"mdvec v5 side-by-side {report['stamp']}: {report['machine']['cpu_model']}, {CPUS} CPUs, load "
        f"{report['machine']['loadavg'][0]:.1f}"
    )
    report["plot"] = plot(rows, args, stem.with_suffix(".png"), title)
    stem.with_suffix(".json").write_text(json.dumps(report, separators=(",", ":")))
    print()
    print(md)
    print(f"{len(warnings)} warnings (see the JSON); wrote {stem}.json, .md; {report['plot']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
