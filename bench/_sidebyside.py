"""What bench/v5_sidebyside.py and bench/dm_sidebyside.py share: the bare C loop's common parts, its build.

Both scripts embed a small C library (the "bare" physics loop on any libmujoco, dlopen'ed by path, stepped
on bench/crew.c's thread crew, plus ``mdvec_step_typed`` / ``mdvec_get_state`` in C loops), compile it at
run time and load it with ctypes. The parts that are the same in both live here: :func:`bare_c` assembles
a script's C source from its own pieces (header comment, state bits, the MuJoCo functions it loads, its
``bare`` struct and stepping) around the shared ones; :class:`Shim` compiles and loads it; the summary and
report helpers after it are the scripts' common ones. The scripts run as ``python bench/<x>.py``, so
``bench/`` is on ``sys.path`` and they import this as ``_sidebyside``.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import hashlib
import importlib.util
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- the bare C loop
# The MuJoCo functions a bare loop may load: the engine struct's field declaration of each (the symbol
# is "mj_" + the name).
MJ_FUNCTIONS: dict[str, str] = {
    "loadXML": "void *(*loadXML)(const char *, const void *, char *, int);",
    "loadModel": "void *(*loadModel)(const char *, const void *);",
    "copyModel": "void *(*copyModel)(void *, const void *);",
    "deleteModel": "void (*deleteModel)(void *);",
    "makeData": "void *(*makeData)(const void *);",
    "deleteData": "void (*deleteData)(void *);",
    "resetData": "void (*resetData)(const void *, void *);",
    "step": "void (*step)(const void *, void *);",
    "step1": "void (*step1)(const void *, void *);",
    "step2": "void (*step2)(const void *, void *);",
    "forward": "void (*forward)(const void *, void *);",
    "rnePostConstraint": "void (*rnePostConstraint)(const void *, void *);",
    "stateSize": "int (*stateSize)(const void *, int);",
    "getState": "void (*getState)(const void *, const void *, double *, int);",
    "setState": "void (*setState)(const void *, void *, const double *, int);",
    "versionString": "const char *(*versionString)(void);",
}

_C_INCLUDES = """#define _GNU_SOURCE
#include <dlfcn.h>
{atomic}#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crew.h"

"""

_C_LOAD = r"""#define LOAD(name, sym)                                                    \
  do {                                                                     \
    *(void **)&e->name = dlsym(e->so, sym);                                \
    if (!e->name) {                                                        \
      snprintf(err, (size_t)nerr, "%s: no symbol %s", path, sym);          \
      free(e);                                                             \
      return NULL;                                                         \
    }                                                                      \
  } while (0)

"""

_C_OPEN = """static void quiet_warning(const char *msg) { (void)msg; }

/* Open a libmujoco, or a library exporting MuJoCo's C API (EnvPool's module). Never closed. */
engine *bare_open(const char *path, char *err, int nerr) {
  engine *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->so = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!e->so) {
    snprintf(err, (size_t)nerr, "dlopen %s: %s", path, dlerror());
    free(e);
    return NULL;
  }
"""

_C_OPEN_END = """  void (**user_warning)(const char *) = (void (**)(const char *))dlsym(e->so, "mju_user_warning");
  if (user_warning) *user_warning = quiet_warning;
  return e;
}

const char *bare_version(const engine *e) { return e->versionString(); }

"""

_C_RUN = """/* Put every env in state (n, k) ({rewind}). */
void bare_rewind(bare *b, const double *states) {{
  size_t k = (size_t)b->k;
  for (int i = 0; i < b->n; i++) set_env(b, i, states + (size_t)i * k);
}}

/* steps vector steps: actions (steps, n, nu) float64, resets (steps, n) bytes, states (steps, n, k). */
void bare_run(bare *b, const double *actions, const unsigned char *resets, const double *states, int steps) {{
  size_t k = (size_t)b->k;
  for (int s = 0; s < steps; s++) {{
    b->actions = actions + (size_t)s * (size_t)b->n * (size_t)b->nu;
    b->resets = resets + (size_t)s * (size_t)b->n;
    b->states = states + (size_t)s * (size_t)b->n * k;
{next}    crew_run(b->crew, job, b);
  }}
}}
"""

_C_NEXT = "    atomic_store_explicit(&b->next, 0, memory_order_relaxed); /* published by crew_run */\n"

_C_TAIL = """
/* Every env's state ({state}) into out (n, k). */
void bare_states(const bare *b, double *out) {{
  size_t k = (size_t)b->k;
  for (int i = 0; i < b->n; i++) b->e->getState(b->m[i], b->d[i], out + (size_t)i * k, S_REC);
}}

int bare_state_size(const bare *b) {{ return b->k; }}

/* mdvec_step_typed(h, row s of actions, dtype) for s < steps; the first nonzero code, else 0. */
typedef int (*step_typed_fn)(void *, const void *, int);
int mdvec_loop(void *fn, void *h, const char *actions, size_t row_bytes, int steps, int dtype) {{
  step_typed_fn f = (step_typed_fn)fn;
  for (int s = 0; s < steps; s++) {{
    int rc = f(h, actions + (size_t)s * row_bytes, dtype);
    if (rc) return rc;
  }}
  return 0;
}}

/* mdvec_get_state(h, i, sig, out + i * k, k) for i < n; the first nonzero code, else 0. */
typedef int (*get_state_fn)(const void *, int, unsigned int, double *, size_t);
int mdvec_states(void *fn, const void *h, int n, unsigned int sig, double *out, size_t k) {{
  get_state_fn f = (get_state_fn)fn;
  for (int i = 0; i < n; i++) {{
    int rc = f(h, i, sig, out + (size_t)i * k, k);
    if (rc) return rc;
  }}
  return 0;
}}
"""


def bare_c(
    header: str,
    defines: str,
    functions: Sequence[str],
    body: str,
    rewind: str,
    state: str,
    atomic: bool = False,
    warning_comment: str = "",
) -> str:
    """A script's bare C source: its own pieces around the shared includes, engine loader and C loops.

    header: the leading comment (from its ``/*`` to its ``*/``, no newline after); defines: the state-bit
    ``#define`` lines (each ending in a newline); functions: the :data:`MJ_FUNCTIONS` names the engine
    loads, in struct order; body: from ``typedef struct bare`` up to ``bare_rewind`` (its ``set_env``, ``job``,
    ``bare_create``..., ending in a blank line); rewind: what ``bare_rewind`` does per env, as its comment says;
    state: the state ``bare_states`` writes, as its comment names it; atomic: include ``<stdatomic.h>`` and
    reset the dynamic env counter ``b->next`` before each crew run; warning_comment: comment lines (each ending
    in a newline) before quiet_warning.
    """
    fields = "".join(f"  {MJ_FUNCTIONS[f]}\n" for f in functions)
    loads = "".join(f'  LOAD({f}, "mj_{f}");\n' for f in functions)
    return (
        "\n"
        + header
        + "\n"
        + _C_INCLUDES.format(atomic="#include <stdatomic.h>\n" if atomic else "")
        + defines
        + "\ntypedef struct engine {\n  void *so;\n"
        + fields
        + "} engine;\n\n"
        + _C_LOAD
        + warning_comment
        + _C_OPEN
        + loads
        + _C_OPEN_END
        + body
        + _C_RUN.format(rewind=rewind, next=_C_NEXT if atomic else "")
        + _C_TAIL.format(state=state)
    )


class Shim:
    """The compiled bare loop (cached by source hash under ``build_dir``) and the engines it opened.

    source: the C source (:func:`bare_c`); name: the file-name stem of the C file and of the library
    (``<name>.c``, ``<name>_<hash>.so``); create_ints: how many ``int`` parameters ``bare_create`` takes
    between the xml path and the error buffer; dynamic: the library has ``bare_set_dynamic``.
    """

    def __init__(self, build_dir: Path, source: str, name: str, create_ints: int, dynamic: bool = False) -> None:
        crew_c, crew_h = ROOT / "bench" / "crew.c", ROOT / "bench" / "crew.h"
        src = source + crew_h.read_text() + crew_c.read_text()
        tag = hashlib.sha256(src.encode()).hexdigest()[:12]
        build_dir.mkdir(parents=True, exist_ok=True)
        so = build_dir / f"{name}_{tag}.so"
        if not so.is_file():
            c = build_dir / f"{name}.c"
            c.write_text(source)
            cmd = [
                os.environ.get("CC", "cc"),
                "-O2",
                "-std=c11",
                "-shared",
                "-fPIC",
                "-pthread",
                f"-I{ROOT / 'bench'}",
                "-o",
                str(so),
                str(c),
                str(crew_c),
                "-ldl",
            ]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-1000:]}")
        self.path = so
        L = self.lib = ctypes.CDLL(str(so))
        vp, cp, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        L.bare_open.restype, L.bare_open.argtypes = vp, [cp, cp, i]
        L.bare_version.restype, L.bare_version.argtypes = cp, [vp]
        L.bare_create.restype = vp
        L.bare_create.argtypes = [vp, cp, *([i] * create_ints), cp, i]
        L.bare_run.restype, L.bare_run.argtypes = None, [vp, vp, vp, vp, i]
        L.bare_rewind.restype, L.bare_rewind.argtypes = None, [vp, vp]
        L.bare_states.restype, L.bare_states.argtypes = None, [vp, vp]
        L.bare_state_size.restype, L.bare_state_size.argtypes = i, [vp]
        if dynamic:
            L.bare_set_dynamic.restype, L.bare_set_dynamic.argtypes = None, [vp, i]
        L.mdvec_states.restype, L.mdvec_states.argtypes = i, [vp, vp, i, ctypes.c_uint, vp, ctypes.c_size_t]
        L.bare_destroy.restype, L.bare_destroy.argtypes = None, [vp]
        L.mdvec_loop.restype, L.mdvec_loop.argtypes = i, [vp, vp, vp, ctypes.c_size_t, i, i]
        self.engines: dict[str, tuple[int, str]] = {}

    def engine(self, path: str) -> tuple[int, str]:
        """Open (once) the libmujoco at path; return (handle, MuJoCo version string)."""
        if path not in self.engines:
            err = ctypes.create_string_buffer(4096)
            h = self.lib.bare_open(path.encode(), err, len(err))
            if not h:
                raise RuntimeError(err.value.decode())
            self.engines[path] = (h, self.lib.bare_version(h).decode())
        return self.engines[path]


def env_states(shim: Shim, h: int, n: int, k: int, sig: int) -> np.ndarray:
    """Every env's state sig (mjtState bits) of the mdvec handle h, (n, k), via mdvec_get_state in a C loop."""
    from mdvec.vecenv import lib as mdvec_lib

    out = np.empty((n, k))
    get_state = ctypes.cast(mdvec_lib().mdvec_get_state, ctypes.c_void_p).value
    rc = shim.lib.mdvec_states(get_state, h, n, sig, out.ctypes.data, k)
    if rc:
        raise RuntimeError(f"mdvec_get_state returned {rc}")
    return out


# --------------------------------------------------------------------------- summary helpers
def cell_of(group: dict[str, Any], label: str, threads: int | None) -> dict[str, Any] | None:
    """The cell of group with this label (and thread count, unless None), or None."""
    for c in group["cells"]:
        if c["label"] == label and (threads is None or c["threads"] == threads):
            return c
    return None


def paired_ratio(a: dict[str, Any] | None, b: dict[str, Any] | None, key: str = "rate") -> float | None:
    """Median over rounds of a's window rate / b's in the same round (key "cpu_rate": per CPU-second)."""
    if not a or not b:
        return None
    rb = {w["round"]: w.get(key) for w in b["windows"]}
    rs = [w[key] / rb[w["round"]] for w in a["windows"] if w.get(key) and rb.get(w["round"])]
    return statistics.median(rs) if rs else None


def fmt(x: float | None, ratio: bool = False) -> str:
    """A rate with thousands separators, a ratio with 2 decimals, "-" for None or non-finite."""
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.2f}" if ratio else f"{x:,.0f}"


def ints(text: str) -> tuple[int, ...]:
    """A comma-separated list of integers (argparse type)."""
    return tuple(int(v) for v in text.split(",") if v.strip())


# --------------------------------------------------------------------------- machine and versions
def machine_info(cpus: int) -> dict[str, Any]:
    """The machine's CPU model, governor, load and platform; cpus: the CPUs this process may use."""
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        gov = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").read_text().strip()
    except OSError:
        gov = "unknown"
    return {
        "cores": os.cpu_count(),
        "cpus_allowed": cpus,
        "loadavg": list(os.getloadavg()),
        "cpu_model": model,
        "governor": gov,
        "platform": platform.platform(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def envpool_version() -> Any:
    """EnvPool's version, or why it is not importable."""
    try:
        import envpool

        return envpool.__version__
    except ImportError as exc:
        return f"not importable: {exc}"


def engine_versions(out: dict[str, Any], shim: Shim, engines: dict[str, dict[str, Any]]) -> None:
    """Put each engine's MuJoCo version into out (``<label>_version``); one that fails to open is skipped."""
    for label, e in engines.items():
        if "path" in e:
            try:
                out[f"{label.replace(' ', '_')}_version"] = shim.engine(e["path"])[1]
            except RuntimeError as exc:
                e["skipped"] = str(exc)
                del e["path"]


def git_describe() -> str | None:
    """``git describe --always --dirty`` of the repository, or None (raises OSError without git)."""
    return (
        subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True
        ).stdout.strip()
        or None
    )


# --------------------------------------------------------------------------- engines
def base_engines(envpool_lib: str | None, envpool_so: str, module: str) -> dict[str, dict[str, Any]]:
    """The engines both scripts time: label -> {path, role} (or {skipped: why}).

    "mujoco": the libmujoco of the mujoco package (the one mdvec links); "envpool engine": envpool_lib, or
    else envpool's ``mujoco/<envpool_so>`` (the MuJoCo it links statically; module names its EnvPool module).
    """
    import mujoco

    out: dict[str, dict[str, Any]] = {}
    mj_dir = Path(mujoco.__file__).parent
    libs = sorted(glob.glob(str(mj_dir / "libmujoco.so*")))
    out["mujoco"] = {"path": libs[0], "role": f"mujoco {mujoco.__version__}: the libmujoco mdvec links"}
    ep = envpool_lib
    if ep is None:
        spec = importlib.util.find_spec("envpool")
        if spec is not None and spec.submodule_search_locations:
            cand = Path(next(iter(spec.submodule_search_locations))) / "mujoco" / envpool_so
            ep = str(cand) if cand.is_file() else None
    out["envpool engine"] = (
        {"path": ep, "role": f"the MuJoCo EnvPool links statically (its {module} module)"}
        if ep
        else {"skipped": "envpool not installed here and no --envpool-lib"}
    )
    return out


# --------------------------------------------------------------------------- cells and groups
def time_window(cell: Any, rd: dict[str, Any]) -> dict[str, Any]:
    """Time cell.step_many(rd, cell.steps) (wall clock and this process's CPU), then cell.after_window(rd).

    Returns the window's steps, seconds, rate (env steps per second), cpu_seconds and cpu_rate (None when
    the cell's work runs in other processes, ``cell.cpu_in_process`` False).
    """
    c0, t0 = time.process_time(), time.perf_counter()
    cell.step_many(rd, cell.steps)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    cell.after_window(rd)
    env_steps = cell.steps * rd["n"]
    return {
        "steps": cell.steps,
        "seconds": dt,
        "rate": env_steps / dt,
        "cpu_seconds": cpu,
        "cpu_rate": env_steps / cpu if cpu > 0 and cell.cpu_in_process else None,
    }


def pin_processes(env: Any, threads: int) -> list[int]:
    """Pin the worker processes of an AsyncVectorEnv to the first ``threads`` allowed CPUs (all when threads >=
    CPUs); return those CPUs."""
    allowed = sorted(os.sched_getaffinity(0))
    cpus = allowed[:threads] if threads < len(allowed) else allowed
    for p in env.processes:
        os.sched_setaffinity(p.pid, cpus)
    return cpus


def pinned_notes(shared: Any, threads: int, cpus: int) -> dict[str, Any]:
    """The notes of a thread count's view of a shared AsyncVectorEnv cell (cpus: the CPUs allowed)."""
    return dict(
        shared.notes,
        processes=len(shared.env.processes),
        pinned="to the first T CPUs" if threads < cpus else "not pinned (T >= CPUs)",
    )


def add_window(cell: Any, w: dict[str, Any], r: int, window_seconds: float, n: int, max_steps: int) -> None:
    """Record cell's window w of round r, then resize its windows from the median rate so far (n envs)."""
    w["round"] = r
    cell.windows.append(w)
    # resize from the windows so far (a warmup on a busy machine can be far off)
    med = statistics.median(x["rate"] for x in cell.windows)
    cell.steps = int(min(max_steps, max(2, round(window_seconds * med / n))))


def close_all(cells: Sequence[Any]) -> None:
    """Close every cell, best effort (a failing close does not stop the others)."""
    for c in cells:
        try:
            c.close()
        except Exception:  # noqa: BLE001 - closing is best effort
            pass


def cell_results(cells: Sequence[Any], done_fraction: bool = False) -> list[dict[str, Any]]:
    """The JSON of a group's timed cells (closers and cells without windows left out): medians, spread.

    done_fraction: include each cell's ``done_fraction`` (after ``steps_per_window``).
    """
    out_cells = []
    for c in cells:
        if c.kind == "closer" or not c.windows:
            continue
        rates = [w["rate"] for w in c.windows]
        med = statistics.median(rates)
        cpu_rates = [w["cpu_rate"] for w in c.windows if w.get("cpu_rate")]
        row: dict[str, Any] = {"label": c.label, "threads": c.threads, "steps_per_window": c.steps}
        if done_fraction:
            row["done_fraction"] = c.done_fraction
        row.update(
            {
                "cpu_median": statistics.median(cpu_rates) if cpu_rates else None,
                "median": med,
                "spread": (max(rates) - min(rates)) / med,
                "windows": c.windows,
                "notes": c.notes,
            }
        )
        out_cells.append(row)
    return out_cells


# --------------------------------------------------------------------------- command line and report
def check_backends(p: argparse.ArgumentParser, a: argparse.Namespace, backends: Sequence[str]) -> None:
    """Split ``a.backends`` (comma-separated) into a tuple; an unknown name is a usage error."""
    a.backends = tuple(b.strip() for b in a.backends.split(",") if b.strip())
    bad = [b for b in a.backends if b not in backends]
    if bad:
        p.error(f"--backends: unknown {bad}; choose from {','.join(backends)}")


def resume_report(path: Path, settings: dict[str, Any], keys: Sequence[str]) -> dict[str, Any] | None:
    """The partial report at path to continue, or None (said on stderr) when its settings differ."""
    report: dict[str, Any] = json.loads(path.read_text())
    old = report["settings"]
    if {k: old.get(k) for k in keys} != json.loads(json.dumps(settings)):
        print(f"--resume: settings differ from {path}: {old}", file=sys.stderr)
        return None
    return report
