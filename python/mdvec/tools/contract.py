"""The equality contract: the C env and the reference env, same draws, same actions, same bits.

``run_case`` plays episodes of one configuration on both backends and counts, per observation,
reward, flag and info value, how many are bit-identical: a value is equal or it is a mismatch, and the
first mismatch of a case is explained (``explain``: both values in hex, their distance in ulps). ``default_cases`` covers every feature of the duck and,
per Gymnasium MuJoCo v5 task (``mdvec.gym_tasks.GYM_TASKS``), ``gymnasium.make_vec("mdvec/<ID>",
vectorization_mode="vector_entry_point")`` against Gymnasium's own ``make_vec("<ID>", "sync")`` in
NEXT_STEP and SAME_STEP (``v5_cases``). ``report`` sums the cases per task (``TASKS``): episodes,
values compared (observation elements, rewards, flags, info values with their masks and dtypes) and
how many were bit-identical. Without gymnasium the v5 cases are listed as skipped, with the reason.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from .._mjwarn import collected
from ..dm_tasks import is_dm_task
from ..gym_tasks import GYM_TASKS, gymnasium_mujoco_unavailable
from ..npdot import NumpyDot, arithmetic, numpy_dot
from ..reference import DuckEnv
from ..reference.vec_common import info_dtypes
from ..vecenv import Env, VecEnv, numpy_refusal, task_meta, task_names, task_uses_numpy_dot

DUCK = "duck"
# mdvec's own tasks: the catalogue's others that declare a Python reference ("module:attr"), compared with it
# like the v5 tasks with Gymnasium's (v5_cases).
OWN_TASKS: tuple[str, ...] = tuple(
    t for t in task_names() if t != DUCK and t not in GYM_TASKS and task_meta(t, "id") and task_meta(t, "reference")
)
# Every task the contract knows, in report order: --task takes these names.
TASKS: tuple[str, ...] = (DUCK, *GYM_TASKS, *OWN_TASKS)

# The real Open Duck Mini v2 (test data beside a checkout, never shipped); $MDVEC_REAL_DUCK overrides.
REAL_DUCK = Path(
    os.environ.get("MDVEC_REAL_DUCK", Path(__file__).resolve().parents[4] / "shared" / "models" / "open_duck_mini_v2")
)


@dataclass
class Case:
    """One configuration to compare, and how."""

    name: str
    cfg: dict[str, Any]  # DuckEnv/Env keywords (variant, model and task options)
    episodes: int = 2
    seed: int = 7
    actions: str = "random"  # "zeros", "random" (uniform in [-1.2, 1.2], so clipping is exercised) or "sine"
    replay: bool = False  # True: the C env replays the reference's drawn params via reset_with_params
    num_envs: int = 1  # > 1: compare VecEnv (autoreset, terminal_obs) with reference envs stepped in a loop
    threads: int = 2
    kind: str = "env"  # "env" (above), "gym" (Gymnasium vector env), "sb3" (SB3 VecEnv): see gym_cases;
    #                    "v5" (a Gymnasium MuJoCo v5 task through make_vec): see v5_cases
    autoreset: str = "next_step"  # kinds "gym"/"v5": "next_step", "same_step" or "disabled"
    task: str = DUCK  # the task the case belongs to (a name of TASKS)


@dataclass
class Result:
    """What one case found; ``identical`` means every compared value was equal bit for bit."""

    name: str
    task: str  # the task the case belongs to (a name of TASKS)
    episodes: int = 0
    steps: int = 0
    observations: int = 0
    obs_identical: int = 0
    rewards_identical: int = 0
    flag_mismatches: int = 0
    info_mismatches: int = 0
    first_mismatch: str = ""
    info_values: int = 0  # kinds "gym"/"sb3"/"v5": info entries compared (arrays, masks, per-env values)
    notes: list[str] = field(default_factory=list)
    values: int = 0  # scalar values compared: obs elements, rewards, flags, info values (masks, dtypes included)
    values_identical: int = 0  # of which bit-identical (same dtype/type, same bits)
    skipped: str = ""  # why the case did not run (e.g. gymnasium missing); a skipped case has not passed
    frames: int = 0  # kind "frames": rendered frames compared (an rgbd_tuple is one frame)
    frames_identical: int = 0  # of which every byte equal (same dtype and shape)
    frame_bytes: int = 0  # bytes of the reference's frames compared
    frame_bytes_identical: int = 0  # of which equal

    @property
    def identical(self) -> bool:
        return (
            self.obs_identical == self.observations
            and self.rewards_identical == self.steps
            and self.flag_mismatches == 0
            and self.info_mismatches == 0
            and self.values_identical == self.values
            and self.frames_identical == self.frames
            and self.frame_bytes_identical == self.frame_bytes
        )

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["identical"] = self.identical
        out["passed"] = self.identical and not self.skipped
        return out

    def count(self, ref: Any, got: Any) -> bool:
        """Add the values of ref/got to ``values``/``values_identical``; True when all are identical."""
        n, same = count_values(ref, got)
        self.values += n
        self.values_identical += same
        return n == same


def _order_keys(x: np.ndarray) -> np.ndarray:
    """Integers that order floats of one width as the reals do: adjacent floats differ by 1 (ulps)."""
    bits = x.view(np.int64 if x.dtype.itemsize == 8 else np.int32).astype(np.int64)
    magnitude = bits & np.int64((1 << (8 * x.dtype.itemsize - 1)) - 1)
    return np.where(bits < 0, -magnitude, magnitude)


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"{x.dtype}{list(x.shape)}"
    if isinstance(x, np.generic):
        return f"np.{type(x).__name__}"
    return type(x).__name__


def explain(ref: Any, got: Any, names: tuple[str, str] = ("reference", "mdvec")) -> str:
    """Say how two values differ: a type, dtype or shape difference by name, else the first differing
    element with its index, both values in hex (float.hex) and decimal, their distance in ulps (floats of
    one width) and how many elements differ. "" when they are bit-identical."""
    a_name, b_name = names
    if type(ref) is not type(got) and not (isinstance(ref, np.ndarray) and isinstance(got, np.ndarray)):
        return f"{a_name} {_describe(ref)} {ref!r} vs {b_name} {_describe(got)} {got!r}"
    a, b = np.asarray(ref), np.asarray(got)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{a_name} {_describe(a)} vs {b_name} {_describe(b)}"
    if a.dtype == object:
        return "" if same_value(ref, got) else f"{a_name} {ref!r} vs {b_name} {got!r}"
    if a.size == 0:
        return ""
    x = np.ascontiguousarray(a).reshape(-1)
    y = np.ascontiguousarray(b).reshape(-1)
    differ = np.flatnonzero(
        np.any(x.view(np.uint8).reshape(x.size, -1) != y.view(np.uint8).reshape(y.size, -1), axis=1)
    )
    if differ.size == 0:
        return ""
    k = int(differ[0])
    where = f"[{', '.join(map(str, np.unravel_index(k, a.shape)))}] " if a.ndim else ""
    u, v = x[k].item(), y[k].item()
    if x.dtype.kind == "f":
        if np.isnan(x[k]) or np.isnan(y[k]):
            dist = "a NaN against a number" if np.isnan(x[k]) != np.isnan(y[k]) else "NaNs of other bits"
        else:
            n = int(abs(_order_keys(x[k : k + 1])[0] - _order_keys(y[k : k + 1])[0]))
            dist = f"{n} ulp{'s' if n != 1 else ''} apart" + (" (signed zeros)" if n == 0 else "")
        text = f"{a_name} {float(u).hex()} ({u!r}) vs {b_name} {float(v).hex()} ({v!r}), {dist}"
    else:
        text = f"{a_name} {u!r} vs {b_name} {v!r}"
    count = f"; {differ.size} of {x.size} elements differ" if x.size > 1 else ""
    return f"{where}{text} ({a.dtype}){count}"


def _action_batch(kind: str, steps: int, shape: tuple[int, ...], seed: int) -> np.ndarray:
    if kind == "zeros":
        return np.zeros((steps, *shape))
    if kind == "sine":
        t = np.arange(steps)[:, None] * 0.1
        phase = np.linspace(0, math.pi, int(np.prod(shape)))[None, :]
        return (1.1 * np.sin(t + phase)).reshape(steps, *shape)
    return np.random.default_rng(seed + 1000).uniform(-1.2, 1.2, (steps, *shape))


class _Tally:
    """Compares one step's outputs and accumulates the counts into a Result."""

    def __init__(self, result: Result) -> None:
        self.r = result

    def _miss(self, what: str) -> None:
        if not self.r.first_mismatch:
            self.r.first_mismatch = what

    def obs(self, ref: Any, got: Any, where: str) -> None:
        """One observation: an array, or a dict of arrays (a Control Suite task's, Shimmy's), compared entry by
        entry; identical when every entry is (same keys in the same order, same dtypes, shapes and bits)."""
        self.r.observations += 1
        self.r.count(ref, got)
        if same_obs(ref, got):
            self.r.obs_identical += 1
        else:
            self._miss(f"obs at {where}: {explain_obs(ref, got)}")

    def step(self, ref: tuple, got: tuple, where: str) -> None:
        (r_obs, r_rew, r_done, r_info), (g_obs, g_rew, g_done, g_info) = ref, got
        self.r.steps += 1
        self.obs(r_obs, g_obs, where)
        self.r.count(np.float64(r_rew), np.float64(g_rew))
        self.r.count(bool(r_done), bool(g_done))
        self.r.count({k: r_info[k] for k in sorted(r_info)}, {k: g_info[k] for k in sorted(g_info)})
        if np.float64(r_rew).tobytes() == np.float64(g_rew).tobytes():
            self.r.rewards_identical += 1
        else:
            self._miss(f"reward at {where}: {explain(np.float64(r_rew), np.float64(g_rew))}")
        if bool(r_done) != bool(g_done):
            self.r.flag_mismatches += 1
            self._miss(f"done at {where}")
        if set(r_info) != set(g_info):
            self.r.info_mismatches += 1
            self._miss(f"info keys at {where}: {sorted(set(r_info) ^ set(g_info))}")
            return
        for key in r_info:
            a, b = r_info[key], g_info[key]
            if type(a) is not type(b) or np.asarray(a).tobytes() != np.asarray(b).tobytes():
                self.r.info_mismatches += 1
                self._miss(f"info[{key!r}] at {where}: {explain(a, b)}")


def _single(case: Case, result: Result) -> None:
    tally = _Tally(result)
    ref = DuckEnv(seed=case.seed, **case.cfg)
    with Env(seed=case.seed, **case.cfg) as env:
        steps = ref.cfg.episode_len
        for ep in range(case.episodes):
            r_obs = ref.reset()
            g_obs = env.reset_with_params(ref.params) if case.replay else env.reset()
            tally.obs(r_obs, g_obs, f"episode {ep} reset")
            actions = _action_batch(case.actions, steps, (ref.nu,), case.seed + ep)
            for t in range(steps):
                tally.step(ref.step(actions[t]), env.step(actions[t]), f"episode {ep} step {t + 1}")
            result.episodes += 1


def _vector(case: Case, result: Result) -> None:
    """VecEnv against reference envs in a loop with the same autoreset rule (ProcVecEnv's)."""
    tally = _Tally(result)
    refs = [DuckEnv(seed=case.seed + i, **case.cfg) for i in range(case.num_envs)]
    steps = refs[0].cfg.episode_len * case.episodes
    cfg = {k: v for k, v in case.cfg.items()}
    with VecEnv(case.num_envs, seed=case.seed, threads=case.threads, **cfg) as venv:
        r_obs = np.stack([e.reset() for e in refs])
        tally.obs(r_obs, venv.reset(), "reset")
        dtypes = info_dtypes(venv.info_keys)
        actions = _action_batch(case.actions, steps, (case.num_envs, refs[0].nu), case.seed)
        for t in range(steps):
            g_obs, g_rew, g_done, g_info = venv.step(actions[t].astype(np.float32))
            for i, env in enumerate(refs):
                obs, rew, done, info = env.step(actions[t, i].astype(np.float32))
                terminal = obs
                if done:
                    obs = env.reset()
                    result.episodes += 1
                where = f"step {t + 1} env {i}"
                row = {k: dtypes[k](g_info[k][i]) for k in venv.info_keys}
                ref_row = {k: dtypes[k](v) for k, v in info.items()}
                tally.step((obs, rew, done, ref_row), (g_obs[i], g_rew[i], g_done[i], row), where)
                tally.obs(terminal, g_info["terminal_obs"][i], where + " terminal_obs")


@contextlib.contextmanager
def _mujoco_warnings_noted(result: Result) -> Iterator[None]:
    """Note MuJoCo's process-wide warnings in result.notes instead of letting MuJoCo append them to
    ./MUJOCO_LOG.TXT: the references (Gymnasium's envs, the Python duck) compile and step through the
    mujoco bindings, whose default handler writes that file (half_cheetah.xml's deprecated
    settotalmass, an unstable simulation). mdvec's own envs count theirs per env and write nothing."""
    with collected() as seen:
        try:
            yield
        finally:
            for message in dict.fromkeys(seen):
                result.notes.append(f"MuJoCo warning ({seen.count(message)}x): {message}")


def run_case(case: Case) -> Result:
    """Play the case on both backends and return the counts (``skipped`` set when it cannot run here)."""
    result = Result(case.name, case.task)
    with _mujoco_warnings_noted(result):
        _play(case, result)
    return result


def _play(case: Case, result: Result) -> None:
    """Run the case's comparison into result."""
    if case.kind == "frames":
        _frames(case, result)
    elif case.kind == "v5":
        result.skipped = v5_unavailable()
        if not result.skipped and is_dm_task(case.task) and importlib.util.find_spec("dm_control") is None:
            result.skipped = "dm_control is not installed (pip install dm-control): the Control Suite's reference"
        if not result.skipped:
            _v5_vector(case, result)
    elif case.kind == "gym":
        _gym_vector(case, result)
    elif case.kind == "sb3":
        _sb3_vector(case, result)
    else:
        (_vector if case.num_envs > 1 else _single)(case, result)


def select_tasks(names: list[str] | None) -> list[str]:
    """Resolve --task values (repeatable, each may be a comma list) to names of TASKS, in report order.

    A value is a task's name or its declared Gymnasium id, resolved as ``mdvec.make`` resolves it
    (``mdvec.vector.task_name``). None or empty: every task. An unknown name raises ValueError naming it
    (with close names) and listing the valid ones.
    """
    from ..vector import task_name, task_suggestions

    if not names:
        return list(TASKS)
    wanted = [n.strip() for arg in names for n in arg.split(",") if n.strip()]
    if not wanted:
        raise ValueError(f"no task named; valid tasks: {', '.join(TASKS)}")
    chosen: set[str] = set()
    unknown: list[str] = []
    for n in wanted:
        try:
            task = task_name(n)
        except ValueError:
            task = None
        if task in TASKS:
            chosen.add(task)
        else:
            close = [c for c in task_suggestions(n) if task_name(c) in TASKS]
            unknown.append(repr(n) + (f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""))
    if unknown:
        raise ValueError(
            f"unknown task{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; valid tasks: {', '.join(TASKS)}"
        )
    return [t for t in TASKS if t in chosen]


def default_cases(quick: bool = False, tasks: list[str] | None = None, frames: bool = False) -> list[Case]:
    """Return the cases of the report for ``tasks`` (names of TASKS; None: all): for the duck every
    reward, feature and variant, its Gymnasium/SB3 adapters and the real duck if present; for each
    Gymnasium MuJoCo v5 task its make_vec case in NEXT_STEP and SAME_STEP (see v5_cases); with ``frames``
    each task's rendered frames too (``frames_cases``)."""
    tasks = select_tasks(tasks)
    cases = _duck_cases(quick) if DUCK in tasks else []
    cases += [c for t in tasks if t != DUCK for c in v5_cases(t, quick)]
    return cases + ([c for t in tasks for c in frames_cases(t, quick)] if frames else [])


def _duck_cases(quick: bool) -> list[Case]:
    ep = 1 if quick else 2
    cases = [
        Case("v2 hold-pose", {"reward": "v2"}, ep, actions="zeros"),
        Case("v1 random", {"reward": "v1"}, ep),
        Case("v2 sine", {}, ep, actions="sine"),
        Case("latency 2", {"latency": 2}, ep),
        Case("init noise 0.02", {"init_noise": 0.02}, ep),
        Case("scale 0.5, 5 pushes", {"action_scale": 0.5, "n_pushes": 5}, ep),
        Case("sensor noise v1", {"sensor_noise": True, "reward": "v1"}, ep),
        Case("backlash", {"variant": "backlash"}, ep),
        Case("backlash_lower v1", {"variant": "backlash_lower", "reward": "v1"}, ep),
        Case("dr v2", {"dr": True}, ep, seed=11),
        Case("dr + sensor noise + init noise v1", {"dr": True, "sensor_noise": True, "reward": "v1"}, ep, seed=12),
        Case("replay: dr + init noise 0.02", {"dr": True, "init_noise": 0.02}, ep, replay=True),
        Case("replay: latency 2, 5 pushes", {"latency": 2, "n_pushes": 5}, ep, replay=True),
        Case(
            "vector 4 envs x 2 threads, autoreset",
            {"sensor_noise": True, "dr": True},
            1 if quick else 2,
            num_envs=4,
            threads=2,
        ),
    ]
    cases += gym_cases(quick)
    if REAL_DUCK.is_dir():
        cases += [
            Case("real duck", {"model": str(REAL_DUCK / "scene_flat_terrain.xml")}, ep),
            Case(
                "real duck backlash dr", {"model": str(REAL_DUCK / "scene_flat_terrain_backlash.xml"), "dr": True}, ep
            ),
        ]
    return cases


def report(cases: list[Case], progress: Any = None) -> dict[str, Any]:
    """Run the cases; return the JSON-ready table: ``cases`` (one row per case), ``tasks`` (per task:
    cases, episodes, values, values_identical, mismatches, skipped reason, passed) and ``total``.

    ``total["identical"]`` is True when no case that ran found a difference (skipped cases are not
    differences, but neither are they passed: see ``total["skipped"]`` and ``total["passed"]``).
    """
    rows = []
    for case in cases:
        result = run_case(case)
        rows.append(result.as_dict())
        if progress:
            progress(result)
    keys = (
        "episodes",
        "steps",
        "observations",
        "obs_identical",
        "rewards_identical",
        "flag_mismatches",
        "info_mismatches",
        "values",
        "values_identical",
        "frames",
        "frames_identical",
        "frame_bytes",
        "frame_bytes_identical",
    )
    total: dict[str, Any] = {k: sum(r[k] for r in rows) for k in keys}
    total["identical"] = all(r["identical"] for r in rows)
    total["cases"] = len(rows)
    total["skipped"] = sum(1 for r in rows if r["skipped"])
    tasks = task_table(rows)
    for r in rows:
        r["passed"] = r["passed"] and tasks[r["task"]]["proven"]
    total["passed"] = sum(1 for r in rows if r["passed"])
    total["not_proven"] = [t for t, row in tasks.items() if not row["proven"] and row["cases_run"]]
    dot = dot_report()
    return {
        "numpy_dot": asdict(dot) | {"describe": dot.describe(), "arithmetic": arithmetic()} if dot else None,
        "cases": rows,
        "tasks": tasks,
        "total": total,
    }


def dot_report() -> NumpyDot | None:
    """How the tasks that reproduce np.linalg.norm follow numpy's dot here (None: no such task in this
    library)."""
    return numpy_dot() if any(task_uses_numpy_dot(t) for t in task_names()) else None


def _proven(task: str) -> bool:
    """False for a task whose values rest on numpy's dot when the binding could not prove that dot
    exact here (mdvec.npdot): its values are reported NOT PROVEN, equal or not."""
    return task not in task_names() or not task_uses_numpy_dot(task) or numpy_dot().proven


def task_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Sum case rows per task (in TASKS order): cases, episodes, values compared, bit-identical,
        mismatches (values - identical, plus structural misses the values do not show), skipped, proven (False:
    the task rests on a numpy dot not proven exact here, see _proven), passed."""
    out: dict[str, dict[str, Any]] = {}
    for task in [t for t in TASKS if any(r["task"] == t for r in rows)]:
        mine = [r for r in rows if r["task"] == task]
        ran = [r for r in mine if not r["skipped"]]
        values = sum(r["values"] for r in ran)
        same = sum(r["values_identical"] for r in ran)
        extra = sum(1 for r in ran if not r["identical"] and r["values"] == r["values_identical"])
        reasons = sorted({r["skipped"] for r in mine if r["skipped"]})
        proven = _proven(task)
        out[task] = {
            "cases": len(mine),
            "cases_run": len(ran),
            "episodes": sum(r["episodes"] for r in ran),
            "steps": sum(r["steps"] for r in ran),
            "values": values,
            "values_identical": same,
            "mismatches": values - same + extra,
            "frames": sum(r["frames"] for r in ran),
            "frames_identical": sum(r["frames_identical"] for r in ran),
            "frame_bytes": sum(r["frame_bytes"] for r in ran),
            "frame_bytes_identical": sum(r["frame_bytes_identical"] for r in ran),
            "skipped": "; ".join(reasons),
            "proven": proven,
            "passed": bool(ran) and len(ran) == len(mine) and all(r["identical"] for r in ran) and proven,
        }
    return out


# --------------------------------------------------------------------------------------------------
# The Gymnasium and SB3 adapters: the C vector envs against the libraries' own vector envs over the
# reference single env (gymnasium.make_vec(..., vectorization_mode="sync", backend="reference") and
# SB3's DummyVecEnv), same seeds, same actions, every output compared bit for bit with its dtype.

GYM_ID = task_meta(DUCK, "id") or ""  # "mdvec/DuckBalance-v0", as the duck declares it
# Short episodes so that autoresets come often; noise on so that seeding shows in every value.
GYM_OPTIONS: dict[str, Any] = {"episode_len": 24, "push_window": (2, 20), "sensor_noise": True, "init_noise": 0.02}


def _have(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def gym_cases(quick: bool = False) -> list[Case]:
    """The adapter cases (present only when gymnasium / stable-baselines3 are installed)."""
    cases = []
    if _have("gymnasium"):
        for mode in ("next_step", "same_step", "disabled"):
            cases.append(
                Case(
                    f"gymnasium make_vec {mode} 4 envs vs sync",
                    dict(GYM_OPTIONS),
                    1,
                    seed=7,
                    num_envs=4,
                    threads=2,
                    kind="gym",
                    autoreset=mode,
                )
            )
    if _have("gymnasium") and _have("stable_baselines3"):
        cases.append(
            Case("sb3 VecEnv 4 envs vs DummyVecEnv", dict(GYM_OPTIONS), 1, seed=5, num_envs=4, threads=2, kind="sb3")
        )
    return cases


def same_array(a: Any, b: Any) -> bool:
    """True when a and b are numpy arrays of one dtype and shape holding the same bytes (object
    arrays: the same None/array/dict-of-arrays entries, e.g. SAME_STEP's final_obs of a dict observation)."""
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray) or a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == object:
        return all(
            (x is None and y is None) or (x is not None and y is not None and same_obs(x, y))
            for x, y in zip(a.ravel().tolist(), b.ravel().tolist())
        )
    return a.tobytes() == b.tobytes()


def same_obs(a: Any, b: Any) -> bool:
    """``same_array``, or for dict observations (a Control Suite task's): the same keys in the same order and
    ``same_array`` for each entry."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b) and all(same_obs(a[k], b[k]) for k in a)
        )
    return same_array(a, b)


def explain_obs(ref: Any, got: Any) -> str:
    """``explain`` for observations: a dict observation's first differing entry by name (or its keys)."""
    if isinstance(ref, dict) and isinstance(got, dict):
        if list(ref) != list(got):
            return f"keys {list(ref)} vs {list(got)}"
        for key in ref:
            if not same_obs(ref[key], got[key]):
                return f"[{key!r}] {explain_obs(ref[key], got[key])}"
        return ""
    return explain(ref, got)


def obs_row(obs: Any, i: int) -> Any:
    """Env i's observation of a batch: its row, or each entry's row of a dict (a 0-d array for an (N,) entry)."""
    if isinstance(obs, dict):
        return {key: value[i, ...] for key, value in obs.items()}
    return obs[i]


def obs_form(obs: Any) -> Any:
    """An observation batch's dtype and shape, per entry for a dict (compared for the batch as a whole)."""
    if isinstance(obs, dict):
        return {key: obs_form(value) for key, value in obs.items()}
    return (np.asarray(obs).dtype, np.shape(obs))


def _bits_equal(a: np.ndarray, b: np.ndarray) -> int:
    """How many elements of two arrays of one (non-object) dtype and shape hold the same bytes."""
    if a.size == 0:
        return 0
    x = np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
    y = np.ascontiguousarray(b).reshape(-1).view(np.uint8).reshape(b.size, -1)
    return int(np.count_nonzero(np.all(x == y, axis=1)))


def count_values(ref: Any, got: Any) -> tuple[int, int]:
    """Count the scalar values of ``ref`` (dicts, lists, object arrays walked; numpy arrays element by
    element) and how many ``got`` matches bit for bit with the same dtype / Python type.

    A key on one side only, a None against a value, a dtype or shape difference: counted, not identical.
    """
    if isinstance(ref, dict) or isinstance(got, dict):
        if not (isinstance(ref, dict) and isinstance(got, dict)):
            return 1, 0
        n = same = 0
        for key in set(ref) | set(got):
            if key not in ref or key not in got:
                n += 1
                continue
            k, s = count_values(ref[key], got[key])
            n, same = n + k, same + s
        return n, same
    if isinstance(ref, (list, tuple)) or isinstance(got, (list, tuple)):
        if type(ref) is not type(got) or len(ref) != len(got):
            return max(len(ref) if isinstance(ref, (list, tuple)) else 1, 1), 0
        n = same = 0
        for a, b in zip(ref, got):
            k, s = count_values(a, b)
            n, same = n + k, same + s
        return n, same
    if isinstance(ref, np.ndarray) or isinstance(got, np.ndarray):
        size = max(getattr(ref, "size", 1), 1)
        if (
            not (isinstance(ref, np.ndarray) and isinstance(got, np.ndarray))
            or ref.dtype != got.dtype
            or ref.shape != got.shape
        ):
            return size, 0
        if ref.dtype == object:
            return count_values(ref.ravel().tolist(), got.ravel().tolist())
        return ref.size, _bits_equal(ref, got)
    if ref is None or got is None:
        return 1, int(ref is None and got is None)
    return 1, int(same_value(ref, got))


def same_value(a: Any, b: Any) -> bool:
    """True for equal Python/numpy scalars of the same type (floats bit for bit) or same arrays."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return same_array(a, b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (float, np.floating)):
        return np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return bool(a == b)


def diff_vector_info(ref: dict[str, Any], got: dict[str, Any], path: str = "info") -> tuple[int, list[str]]:
    """Compare two Gymnasium vector infos (arrays, masks, nested dicts); return (entries, mismatches)."""
    entries, misses = 0, []
    for key in sorted(set(ref) | set(got)):
        if key not in ref or key not in got:
            misses.append(f"{path}[{key!r}] only in {'reference' if key in ref else 'C env'}")
            continue
        a, b = ref[key], got[key]
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                misses.append(f"{path}[{key!r}]: dict vs {type(b).__name__}")
                continue
            n, m = diff_vector_info(a, b, f"{path}[{key!r}]")
            entries, misses = entries + n, misses + m
            continue
        entries += 1
        if not same_array(a, b):
            misses.append(f"{path}[{key!r}]: {explain(a, b) or 'object entries differ'}")
    return entries, misses


def _actions(rng: np.random.Generator, num_envs: int, act_dim: int, t: int) -> np.ndarray:
    """Actions in [-1.2, 1.2] (clipping exercised), float32 on even steps and float64 on odd ones."""
    a = rng.uniform(-1.2, 1.2, (num_envs, act_dim))
    return a.astype(np.float32) if t % 2 == 0 else a


def vector_script(num_envs: int, seed: int) -> list[tuple[str, Any]]:
    """Resets (int seed, seed lists with None, masks, unseeded) between runs of steps that span autoresets."""
    n = num_envs
    first = np.zeros(n, bool)
    first[: max(1, n // 2)] = True
    other = np.zeros(n, bool)
    other[-1] = True
    return [
        ("reset", {"seed": seed}),
        ("steps", 10),
        (
            "reset",
            {"seed": [seed + 100 + i if i % 2 == 0 else None for i in range(n)], "options": {"reset_mask": first}},
        ),
        ("steps", 20),
        ("reset", {"options": {"reset_mask": other}}),
        ("steps", 33),
        ("reset", {"seed": seed + 1000}),
        ("steps", 30),
        ("reset", {}),
        ("steps", 5),
    ]


def compare_vector_envs(
    ref: Any, got: Any, script: list[tuple[str, Any]], result: Result, actions_seed: int = 0, actions: Any = None
) -> None:
    """Play a script on a reference Gymnasium VectorEnv and an mdvec one, tallying every output.

    With autoreset disabled, envs that finished are reset with a reset mask after each step (on both).
    ``actions(rng, num_envs, act_dim, t)`` makes step t's actions (default: ``_actions``).
    """
    actions = actions or _actions
    tally = _Tally(result)
    n = got.num_envs
    act_dim = int(np.prod(got.single_action_space.shape))
    rng = np.random.default_rng(actions_seed)
    disabled = got.metadata["autoreset_mode"].name == "DISABLED"
    t = 0

    def check_info(r_info: dict, g_info: dict, where: str) -> None:
        entries, misses = diff_vector_info(r_info, g_info)
        result.count(r_info, g_info)
        result.info_values += entries
        result.info_mismatches += len(misses)
        if misses:
            tally._miss(f"{where}: {misses[0]}")

    def check_reset(r: tuple, g: tuple, where: str) -> None:
        for i in range(n):
            tally.obs(obs_row(r[0], i), obs_row(g[0], i), f"{where} env {i}")
        if not same_obs(r[0], g[0]):
            tally._miss(f"{where}: obs arrays differ ({explain_obs(r[0], g[0])})")
            if obs_form(r[0]) != obs_form(g[0]):
                result.info_mismatches += 1  # rows compared above may hide a dtype/shape difference
        check_info(r[1], g[1], where)

    for op, arg in script:
        if op == "reset":
            kw = {k: (v if k != "options" else {"reset_mask": v["reset_mask"].copy()}) for k, v in arg.items()}
            kw2 = {k: (v if k != "options" else {"reset_mask": v["reset_mask"].copy()}) for k, v in arg.items()}
            check_reset(ref.reset(**kw), got.reset(**kw2), f"reset {arg.get('seed')!r}")
            continue
        for _ in range(arg):
            t += 1
            a = actions(rng, n, act_dim, t)
            r_obs, r_rew, r_term, r_trunc, r_info = ref.step(a.copy())
            g_obs, g_rew, g_term, g_trunc, g_info = got.step(a.copy())
            where = f"step {t}"
            for i in range(n):
                tally.obs(obs_row(r_obs, i), obs_row(g_obs, i), f"{where} env {i}")
                result.steps += 1
                result.count(r_rew[i], g_rew[i])
                if np.asarray(r_rew[i]).tobytes() == np.asarray(g_rew[i]).tobytes():
                    result.rewards_identical += 1
                else:
                    tally._miss(f"reward at {where} env {i}: {explain(r_rew[i], g_rew[i])}")
            for name, x, y in (("obs", r_obs, g_obs), ("reward", r_rew, g_rew)):
                if obs_form(x) != obs_form(y) or (isinstance(x, dict) and list(x) != list(y)):
                    result.info_mismatches += 1
                    tally._miss(f"{name} array at {where}: {obs_form(x)} vs {obs_form(y)}")
            for name, x, y in (("terminated", r_term, g_term), ("truncated", r_trunc, g_trunc)):
                result.count(x, y)
                if not same_array(x, y):
                    result.flag_mismatches += 1
                    tally._miss(f"{name} at {where}: {explain(x, y)}")
            result.episodes += int(np.sum(r_term | r_trunc))
            check_info(r_info, g_info, where)
            done = r_term | r_trunc
            if disabled and done.any():
                check_reset(
                    ref.reset(options={"reset_mask": done.copy()}),
                    got.reset(options={"reset_mask": done.copy()}),
                    f"{where} reset of finished envs",
                )


def _gym_vector(case: Case, result: Result) -> None:
    import gymnasium
    from gymnasium.vector import AutoresetMode

    import mdvec.adapters.gym  # noqa: F401 - registers the ids

    mode = {
        "next_step": AutoresetMode.NEXT_STEP,
        "same_step": AutoresetMode.SAME_STEP,
        "disabled": AutoresetMode.DISABLED,
    }[case.autoreset]
    ref = gymnasium.make_vec(
        GYM_ID,
        num_envs=case.num_envs,
        vectorization_mode="sync",
        backend="reference",
        vector_kwargs={"autoreset_mode": mode},
        **case.cfg,
    )
    got = gymnasium.make_vec(
        GYM_ID,
        num_envs=case.num_envs,
        vectorization_mode="vector_entry_point",
        threads=case.threads,
        autoreset_mode=mode,
        **case.cfg,
    )
    try:
        compare_vector_envs(ref, got, vector_script(case.num_envs, case.seed), result, case.seed)
    finally:
        ref.close()
        got.close()


def diff_sb3_infos(ref: list[dict[str, Any]], got: list[dict[str, Any]], where: str) -> tuple[int, list[str]]:
    """Compare SB3 info lists: the same keys per env, values of the same type and bits."""
    entries, misses = 0, []
    if len(ref) != len(got):
        return 1, [f"{where}: {len(ref)} infos vs {len(got)}"]
    for i, (a, b) in enumerate(zip(ref, got)):
        if set(a) != set(b):
            misses.append(f"{where} env {i}: keys differ {sorted(set(a) ^ set(b))}")
            continue
        for key in a:
            entries += 1
            if not same_value(a[key], b[key]):
                misses.append(f"{where} env {i} info[{key!r}]: {explain(a[key], b[key]) or 'entries differ'}")
    return entries, misses


def sb3_script(seed: int) -> list[tuple[str, Any]]:
    """Resets (constructor seeds, seed(), unseeded) between runs of steps that span autoresets."""
    return [
        ("reset", None),
        ("steps", 30),
        ("seed", seed + 50),
        ("reset", None),
        ("steps", 55),
        ("reset", None),
        ("steps", 10),
    ]


def compare_sb3_envs(ref: Any, got: Any, script: list[tuple[str, Any]], result: Result, actions_seed: int = 0) -> None:
    """Play a script on SB3's DummyVecEnv (over the reference) and mdvec's SB3 VecEnv; tally every output."""
    tally = _Tally(result)
    n = got.num_envs
    act_dim = int(np.prod(got.action_space.shape))
    rng = np.random.default_rng(actions_seed)
    t = 0

    def check_infos(r: list, g: list, where: str) -> None:
        entries, misses = diff_sb3_infos(r, g, where)
        result.count(r, g)
        result.info_values += entries
        result.info_mismatches += len(misses)
        if misses:
            tally._miss(misses[0])

    for op, arg in script:
        if op == "seed":
            if list(ref.seed(arg)) != list(got.seed(arg)):
                result.flag_mismatches += 1
                tally._miss(f"seed({arg}) returned different seeds")
            continue
        if op == "reset":
            r_obs, g_obs = ref.reset(), got.reset()
            for i in range(n):
                tally.obs(obs_row(r_obs, i), obs_row(g_obs, i), f"reset env {i}")
            check_infos(ref.reset_infos, got.reset_infos, "reset_infos")
            continue
        for _ in range(arg):
            t += 1
            a = _actions(rng, n, act_dim, t)
            r_obs, r_rew, r_done, r_info = ref.step(a.copy())
            g_obs, g_rew, g_done, g_info = got.step(a.copy())
            where = f"step {t}"
            for i in range(n):
                tally.obs(obs_row(r_obs, i), obs_row(g_obs, i), f"{where} env {i}")
                result.steps += 1
                result.count(r_rew[i], g_rew[i])
                if np.asarray(r_rew[i]).tobytes() == np.asarray(g_rew[i]).tobytes():
                    result.rewards_identical += 1
                else:
                    tally._miss(f"reward at {where} env {i}: {explain(r_rew[i], g_rew[i])}")
            result.count(r_done, g_done)
            for name, x, y in (("obs", r_obs, g_obs), ("reward", r_rew, g_rew), ("done", r_done, g_done)):
                if obs_form(x) != obs_form(y) or (name == "done" and not same_array(x, y)):
                    result.flag_mismatches += 1
                    tally._miss(f"{name} at {where}: {explain(x, y)}")
            result.episodes += int(np.sum(r_done))
            check_infos(r_info, g_info, where)
            done = np.flatnonzero(r_done)  # reset_infos change only for the envs that just reset (compared
            # then: gymnasium 1.2.2's Humanoid hands out views of MjData that later steps overwrite)
            check_infos([ref.reset_infos[i] for i in done], [got.reset_infos[i] for i in done], f"{where} reset_infos")


def _sb3_vector(case: Case, result: Result) -> None:
    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    import mdvec.adapters.gym  # noqa: F401 - registers the ids

    from ..adapters.sb3 import make_vec_env

    def one(i: int) -> Any:
        return lambda: gymnasium.make(GYM_ID, backend="reference", seed=case.seed + i, **case.cfg)

    ref = DummyVecEnv([one(i) for i in range(case.num_envs)])
    got = make_vec_env(case.num_envs, seed=case.seed, threads=case.threads, **case.cfg)
    try:
        compare_sb3_envs(ref, got, sb3_script(case.seed), result, case.seed)
    finally:
        ref.close()
        got.close()


# --------------------------------------------------------------------------------------------------
# The Gymnasium MuJoCo v5 tasks: gymnasium.make_vec("mdvec/<ID>", vectorization_mode="vector_entry_point",
# threads=2) against Gymnasium's own make_vec("<ID>", vectorization_mode="sync") over its MuJoCo env, in
# NEXT_STEP and SAME_STEP, through vector_script (seeded reset, reseeds by int and by list with None, reset
# masks) with float32 and float64 actions up to 1.5 times the bounds and a short TimeLimit (V5_MAX_STEPS)
# so that both terminations and truncations happen.

V5_MAX_STEPS = 30
V5_ACTION_SCALE = 1.5  # actions span 1.5 times the Box (beyond the bounds: episodes terminate sooner)


def v5_cases(task: str, quick: bool = False) -> list[Case]:
    """The make_vec cases of one v5 task (a key of GYM_TASKS) or of an own task (OWN_TASKS): NEXT_STEP
    and SAME_STEP."""
    n = 3 if quick else 4
    ep = 1 if quick else 2  # runs of vector_script (each reseeded differently)
    # A Control Suite task ends by its own time limit (LAST, discount 1) in NEXT_STEP and by Gymnasium's
    # TimeLimit over Shimmy's env in SAME_STEP (its dm_control step then stays MID).
    dm = is_dm_task(task)
    return [
        Case(
            f"{task} make_vec {mode}",
            (DM_SHORT[mode] if dm else {"max_episode_steps": V5_MAX_STEPS}),
            ep,
            seed=11 + 97 * k,
            num_envs=n,
            threads=2,
            kind="v5",
            autoreset=mode,
            task=task,
        )
        for k, mode in enumerate(("next_step", "same_step"))
    ]


DM_SHORT: dict[str, dict[str, Any]] = {
    "next_step": {"time_limit": 0.5},
    "same_step": {"max_episode_steps": V5_MAX_STEPS},
}


_V5_UNAVAILABLE: str | None = None


def v5_unavailable() -> str:
    """Why the v5 cases cannot run here ("" when they can): a numpy older than 2.1 (vecenv.numpy_refusal), gymnasium or its
    MuJoCo envs missing."""
    global _V5_UNAVAILABLE
    if _V5_UNAVAILABLE is None and numpy_refusal("the Gymnasium v5 tasks"):
        _V5_UNAVAILABLE = numpy_refusal("the Gymnasium v5 tasks")
    if _V5_UNAVAILABLE is None:
        _V5_UNAVAILABLE = gymnasium_mujoco_unavailable()
        if not _V5_UNAVAILABLE:
            import mdvec.adapters.gym  # noqa: F401 - registers the mdvec/ ids
    return _V5_UNAVAILABLE


def _bounded_actions(low: np.ndarray, high: np.ndarray) -> Any:
    """Actions uniform in the Box widened V5_ACTION_SCALE times about its centre, float32 on even
    steps and float64 on odd ones (as _actions)."""
    mid, half = (high.astype(np.float64) + low) / 2, (high.astype(np.float64) - low) / 2 * V5_ACTION_SCALE

    def make(rng: np.random.Generator, num_envs: int, act_dim: int, t: int) -> np.ndarray:
        a = mid + half * rng.uniform(-1.0, 1.0, (num_envs, act_dim))
        return a.astype(np.float32) if t % 2 == 0 else a

    return make


def _v5_vector(case: Case, result: Result) -> None:
    import gymnasium
    from gymnasium.vector import AutoresetMode

    import mdvec.adapters.gym  # noqa: F401 - registers the mdvec/ ids

    mode = {
        "next_step": AutoresetMode.NEXT_STEP,
        "same_step": AutoresetMode.SAME_STEP,
        "disabled": AutoresetMode.DISABLED,
    }[case.autoreset]
    ref_kwargs: dict[str, Any]
    if case.task in GYM_TASKS:  # Gymnasium's own env, or mdvec's Python reference of the task
        ref_id, ref_kwargs, env_id = GYM_TASKS[case.task].gym_id, {}, GYM_TASKS[case.task].env_id
    else:
        env_id = task_meta(case.task, "id") or ""
        ref_id, ref_kwargs = env_id, {"backend": "reference"}
    ref = gymnasium.make_vec(
        ref_id,
        num_envs=case.num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": mode},
        **ref_kwargs,
        **case.cfg,
    )
    got = gymnasium.make_vec(
        env_id,
        num_envs=case.num_envs,
        vectorization_mode="vector_entry_point",
        threads=case.threads,
        autoreset_mode=mode,
        **case.cfg,
    )
    try:
        for what, a, b in (
            ("single_observation_space", ref.single_observation_space, got.single_observation_space),
            ("single_action_space", ref.single_action_space, got.single_action_space),
            ("autoreset_mode", ref.metadata["autoreset_mode"], got.metadata["autoreset_mode"]),
        ):
            result.values += 1
            if a == b:
                result.values_identical += 1
            else:
                result.info_mismatches += 1
                result.first_mismatch = result.first_mismatch or f"{what}: {a!r} vs {b!r}"
        space = cast(gymnasium.spaces.Box, ref.single_action_space)
        actions = _bounded_actions(space.low, space.high)
        for run in range(case.episodes):  # each run of the script seeded differently
            seed = case.seed + 1000 * run
            compare_vector_envs(ref, got, vector_script(case.num_envs, seed), result, seed, actions)
    finally:
        ref.close()
        got.close()


# --------------------------------------------------------------------------------------------------
# Frames (--frames): what each task's envs render against what its reference renders, byte for byte.
FRAME_WIDTH, FRAME_HEIGHT = 64, 48


def frames_cases(task: str, quick: bool = False) -> list[Case]:
    """The frames case of a task: its vector env (2 envs) and single env against the reference's, after a seeded
    reset, each of 3 (quick) or 10 random steps and, for a v5 task, a set_state."""
    steps = {"steps": 3 if quick else 10}
    return [Case(f"{task} frames", steps, 1, seed=17, num_envs=2, kind="frames", task=task, threads=2)]


def frames_unavailable(task: str) -> str:
    """Why a task's frames cannot be compared here ("" when they can)."""
    if is_dm_task(task):
        return (
            "a Control Suite task's frames are not compared here (its pixel observations are checked against "
            "dm_control's Physics.render by tests/py/test_pixels.py)"
        )
    why = v5_unavailable() if task != DUCK else gymnasium_mujoco_unavailable()
    if why:
        return why
    from .._gl import NoGLError, make_context

    try:
        make_context(1, 1).free()
    except NoGLError as exc:
        return f"no OpenGL context can be made here: {exc}"
    return ""


def count_frame(result: Result, ref: Any, got: Any, where: str) -> None:
    """Add one frame (an array, or a tuple of arrays: one rgbd frame) to result's frame counts; the bytes of a
    part whose dtype or shape differs all count as different."""
    parts = list(ref) if isinstance(ref, tuple) else [ref]
    mine = list(got) if isinstance(got, tuple) else [got]
    total = same = 0
    for k, a in enumerate(parts):
        a = np.ascontiguousarray(a)
        total += a.nbytes
        b = np.ascontiguousarray(mine[k]) if k < len(mine) and isinstance(mine[k], np.ndarray) else None
        if b is not None and b.dtype == a.dtype and b.shape == a.shape:
            same += int(np.count_nonzero(a.reshape(-1).view(np.uint8) == b.reshape(-1).view(np.uint8)))
    equal = same == total and len(parts) == len(mine)
    result.frames += 1
    result.frames_identical += int(equal)
    result.frame_bytes += total
    result.frame_bytes_identical += same
    if not equal and not result.first_mismatch:
        result.first_mismatch = f"{where}: {total - same} of {total} bytes differ"


def _frames(case: Case, result: Result) -> None:
    """Render a task's envs and its reference's in lockstep and count equal frames and bytes.

    A v5 task: ``make_vec("mdvec/<ID>", vector_entry_point)`` against Gymnasium's ``make_vec("<ID>", "sync")``
    and ``gymnasium.make("mdvec/<ID>")`` against the reference's env 0, render_mode "rgbd_tuple" (rgb and depth
    bytes). The duck and mdvec's own tasks: the same against their Python reference (``backend="reference"``),
    "rgb_array"."""
    result.skipped = frames_unavailable(case.task)
    if result.skipped:
        return
    import gymnasium

    import mdvec.adapters.gym  # noqa: F401 - registers the mdvec/ ids

    steps = int(case.cfg.get("steps", 10))
    v5 = case.task in GYM_TASKS
    env_id = GYM_TASKS[case.task].env_id if v5 else task_meta(case.task, "id") or ""
    ref_kw: dict[str, Any] = {} if v5 else {"backend": "reference"}
    ref_id = GYM_TASKS[case.task].gym_id if v5 else env_id
    mode = "rgbd_tuple" if v5 else "rgb_array"
    kw: dict[str, Any] = {"render_mode": mode, "width": FRAME_WIDTH, "height": FRAME_HEIGHT}
    n = case.num_envs
    ref: Any = gymnasium.make_vec(ref_id, num_envs=n, vectorization_mode="sync", **ref_kw, **kw)
    got: Any = gymnasium.make_vec(
        env_id, num_envs=n, vectorization_mode="vector_entry_point", threads=case.threads, **kw
    )
    one: Any = gymnasium.make(env_id, **kw)
    try:
        ref.reset(seed=case.seed)
        got.reset(seed=case.seed)
        one.reset(seed=case.seed)

        def compare(when: str) -> None:
            theirs, mine = ref.render(), got.render()
            for i in range(n):
                count_frame(result, theirs[i], mine[i] if i < len(mine) else None, f"vector env {i} {when}")
            count_frame(result, theirs[0], one.render(), f"single env {when}")

        compare("after the reset")
        space = cast(gymnasium.spaces.Box, ref.action_space)
        rng = np.random.default_rng(case.seed)
        ended = False  # the single env's episode ended: reset it where the vector env 0 autoresets (NEXT_STEP)
        for t in range(steps):
            actions = rng.uniform(space.low, space.high).astype(space.dtype)
            ref.step(actions)
            got.step(actions)
            if ended:
                one.reset()
                ended = False
            else:
                _, _, terminated, truncated, _ = one.step(actions[0])
                ended = bool(terminated or truncated)
            compare(f"after step {t + 1}")
        if v5:  # a set_state, as MujocoEnv.set_state, on each
            import mujoco

            u = ref.envs[0].unwrapped
            qpos = np.stack([u.init_qpos + 0.1 * np.sin(np.arange(u.model.nq) + i) for i in range(n)])
            qvel = np.full((n, u.model.nv), 0.05)
            for i, e in enumerate(ref.envs):
                e.unwrapped.set_state(qpos[i], qvel[i])
            sig = int(mujoco.mjtState.mjSTATE_QPOS | mujoco.mjtState.mjSTATE_QVEL)
            got.set_state(np.concatenate([qpos, qvel], axis=1), None, sig)
            one.unwrapped.set_state(qpos[0], qvel[0])
            compare("after set_state")
        result.episodes += 1
    finally:
        for env in (ref, got, one):
            env.close()
