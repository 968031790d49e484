"""Equality under every OpenBLAS kernel this CPU runs and every numpy dispatch level it has (ci/kernels.sh;
issue: bit for bit on every CPU).

numpy's OpenBLAS picks its kernels per CPU at run time and OPENBLAS_CORETYPE forces one, whether or not
the CPU can execute it. For each name in KERNELS this first probes a fresh Python under it (PROBE): dot
products of 1 to 4096 elements and 64x64 and 257x257 matrix products, in float64 and float32, long
enough to reach the kernel's vector code, then which kernel OpenBLAS really runs (some names are
aliases: Zen runs Haswell's, Cooperlake and SapphireRapids fall back to SkylakeX's or Haswell's on a
CPU without their extensions, Prescott reports Katmai). A name is skipped, with its reason printed and
written to the report, when its probe is killed by SIGILL (the CPU lacks the kernel's instructions) or
when /proc/cpuinfo lacks a flag the kernel it runs needs (KERNEL_FLAGS: avx512f and the rest for
SkylakeX's code on a CPU without AVX-512). A probe that fails otherwise (another signal, an exit
status) fails the stage. Then, once per distinct kernel, the quick equality contract and the equality
tests run under it. A skipped kernel is never counted as passed.

numpy's float64 ufuncs (exp, log, cos, sin, arccos...) may run SIMD loops chosen per CPU from numpy's dispatch
targets (numpy._core._multiarray_umath.__cpu_dispatch__; X86_V3, X86_V4, AVX512_ICL... on x86-64), and
NPY_DISABLE_CPU_FEATURES turns targets off. Under the default OpenBLAS kernel, for each dispatch target T this
CPU has that is not in numpy's baseline (dispatch_levels: X86_V3 on an AVX2 CPU without AVX-512), the same
checks run once more with T and every target after it disabled, so that each level of dispatch below the
CPU's best gets a run (the best, nothing disabled, is the kernel runs'). Each setting is first probed in a
fresh Python (numpy refuses or warns about a name it cannot disable): a refused one is skipped with the
reason, never counted as passed.

Prints a table and writes JSON (which kernels and dispatch levels ran, which were skipped and why); exit
status 1 unless every kernel and dispatch level that runs is 100% equal (contract and tests) and every other
name was skipped for a reason its probe showed.

    python ci/kernels.py --out build-ci-out/kernels.json [--kernels Haswell,SkylakeX] [--dispatch auto|none|X86_V3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("Haswell", "SkylakeX", "Cooperlake", "SapphireRapids", "Zen", "Sandybridge", "Nehalem", "Prescott")
# The equality tests: every module that compares mdvec's C envs with their reference bit for bit, where the
# reference's numbers come from numpy under the kernel. Left out: the adapters' modules (test_gym, test_sb3,
# test_make: the same C envs and references behind Gymnasium's, SB3's and mdvec.make's calls, run by the test
# stage) and the contract cases of test_binding (DESELECT): the quick contract itself runs under every kernel.
TESTS = (
    "test_npdot.py",
    "test_v5_a.py",
    "test_v5_b.py",
    "test_hopper.py",
    "test_binding.py",
    "test_dm_control.py",
)
DESELECT = ("tests/py/test_binding.py::test_contract_case_is_bit_identical",)
# The /proc/cpuinfo flags the code of a kernel (named as OpenBLAS reports the one it runs) is built for.
# A CPU that lacks one cannot run that kernel, though a short probe may not reach the instructions.
_AVX512 = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")
KERNEL_FLAGS: dict[str, tuple[str, ...]] = {
    "SkylakeX": _AVX512,
    "Cooperlake": (*_AVX512, "avx512_bf16"),
    "SapphireRapids": (*_AVX512, "avx512_bf16"),
    "Haswell": ("avx2", "fma"),
    "Zen": ("avx2", "fma"),
    "Sandybridge": ("avx",),
}
# Run under the forced kernel: numpy's dot and matrix products long enough to reach the kernel's vector
# code (a 64-long ddot dies with SIGILL under SkylakeX on a CPU without AVX-512; short ones may not),
# then the kernel OpenBLAS says it runs, as JSON on the last line.
PROBE = """
import json
import numpy as np
for dtype in (np.float64, np.float32):
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
              511, 512, 1023, 1024, 4096):
        x = np.arange(n, dtype=dtype) / 7
        x.dot(x)
    for n in (64, 257):
        a = np.arange(n * n, dtype=dtype).reshape(n, n) / n
        a @ a
        a @ a[0]
import mdvec
d = mdvec.numpy_dot()
print(json.dumps({'kernel': d.kernel, 'proven': d.proven, 'describe': d.describe()}))
"""

# numpy's CPU dispatch as this Python sees it, as JSON on the last line: the baseline targets (always on), the
# dispatch targets in numpy's order, and which CPU features are on (NPY_DISABLE_CPU_FEATURES turns them off).
# Run with ImportWarning shown: numpy warns (ImportWarning) about a name it cannot disable.
NUMPY_CPU = """
import json
try:
    from numpy._core import _multiarray_umath as m
except ImportError:  # numpy 1.x
    from numpy.core import _multiarray_umath as m
print(json.dumps({"baseline": list(m.__cpu_baseline__), "dispatch": list(m.__cpu_dispatch__),
                  "features": {k: bool(v) for k, v in m.__cpu_features__.items()}}))
"""

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


def run(
    cmd: Sequence[str], coretype: str, timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run cmd in the checkout with OPENBLAS_CORETYPE=coretype (""/None: unset, OpenBLAS's own choice), the
    checkout's python/ on PYTHONPATH and env's variables added."""
    full = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    full.pop("OPENBLAS_CORETYPE", None)
    full.pop("NPY_DISABLE_CPU_FEATURES", None)
    if coretype:
        full["OPENBLAS_CORETYPE"] = coretype
    full.update(env or {})
    return subprocess.run(list(cmd), cwd=ROOT, env=full, capture_output=True, text=True, timeout=timeout)


def call(
    runner: Runner, cmd: Sequence[str], coretype: str, timeout: float, env: Mapping[str, str] | None
) -> subprocess.CompletedProcess[str]:
    """runner(cmd, coretype, timeout), with env=env when there is one (a runner without it still serves kernels)."""
    return runner(cmd, coretype, timeout, env=env) if env else runner(cmd, coretype, timeout)


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str] | None:
    """Return the CPU's flags (the first ``flags`` line of cpuinfo), None where there is no such line."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    match = re.search(r"^flags\s*:(.*)$", text, re.MULTILINE)
    return set(match.group(1).split()) if match else None


def signal_name(returncode: int) -> str:
    """Name the signal that killed a process whose return code is -returncode (``SIGILL``)."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def probe(
    name: str, runner: Runner = run, command: Sequence[str] | None = None, flags: set[str] | None = None
) -> dict[str, object]:
    """Probe OPENBLAS_CORETYPE=name in a fresh process; return what the report says of it.

    ``{"runs": KERNEL, "describe": ...}`` when it runs; ``{"runs": None, "skipped": WHY}`` when the CPU
    cannot run it (the probe was killed by SIGILL, or flags, the CPU's flags, lack one the kernel
    needs); ``{"runs": None, "error": WHY}`` when the probe failed otherwise (another signal, an exit
    status, no JSON, a timeout: not a reason to skip).
    ``command`` replaces the probe (the tests give one that kills itself)."""
    cmd = list(command) if command is not None else [sys.executable, "-c", PROBE]
    try:
        done = runner(cmd, name, 300)
    except subprocess.TimeoutExpired:
        return {"runs": None, "error": "the probe timed out after 300 s"}
    if done.returncode == -signal.SIGILL:
        return {"runs": None, "skipped": "the probe was killed by SIGILL: this CPU cannot execute the kernel"}
    if done.returncode < 0:  # not an instruction the CPU lacks: a crash, or the OOM killer
        return {"runs": None, "error": f"the probe was killed by {signal_name(done.returncode)}"}
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [""])[-1]
        return {"runs": None, "error": f"the probe exited with status {done.returncode}: {why}"}
    try:
        info = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"runs": None, "error": f"the probe printed no JSON: {done.stdout.strip()[-200:]!r}"}
    kernel = info.get("kernel") or name
    missing = [f for f in KERNEL_FLAGS.get(kernel, ()) if flags is not None and f not in flags]
    if missing:
        return {
            "runs": None,
            "skipped": f"OpenBLAS would run its {kernel} kernel, whose code needs {', '.join(missing)}, "
            "which this CPU's flags (/proc/cpuinfo) lack",
        }
    return {"runs": kernel, "describe": info.get("describe", "")}


def check(
    kernel: str, coretype: str, out_dir: Path, runner: Runner = run, env: Mapping[str, str] | None = None
) -> dict[str, object]:
    """Run the quick contract and the equality tests under coretype (and env's variables: a numpy dispatch level);
    return the report row (the contract's JSON is out_dir/contract-<kernel>.json)."""
    py = sys.executable
    t0 = time.perf_counter()
    json_path = out_dir / f"contract-{kernel}.json"
    json_path.unlink(missing_ok=True)  # a stale report must not speak for this run
    contract = call(runner, [py, "-m", "mdvec", "contract", "--quick", "--json", str(json_path)], coretype, 900, env)
    total = json.loads(json_path.read_text()).get("total", {}) if json_path.is_file() else {}
    tests = call(
        runner,
        [
            py,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *[f"tests/py/{t}" for t in TESTS],
            *[f"--deselect={d}" for d in DESELECT],
        ],
        coretype,
        1800,
        env,
    )
    closing = (tests.stdout.strip().splitlines() or [""])[-1]
    if tests.returncode < 0:
        closing = f"killed by {signal_name(tests.returncode)}: {closing}"
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", closing)}
    values, identical = int(total.get("values", 0)), int(total.get("values_identical", 0))
    ok = (
        contract.returncode == 0
        and values > 0
        and identical == values
        and tests.returncode == 0
        and counts.get("passed", 0) > 0
    )
    row: dict[str, object] = {
        "contract_exit": contract.returncode,
        "values": values,
        "values_identical": identical,
        "not_proven": total.get("not_proven"),
        "tests": closing,
        "tests_exit": tests.returncode,
        "passed": ok,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    if not ok:
        row["tail"] = "\n".join((contract.stdout + tests.stdout + tests.stderr).strip().splitlines()[-40:])
    return row


def numpy_cpu(runner: Runner = run, disable: Sequence[str] = ()) -> dict[str, Any]:
    """numpy's CPU dispatch in a fresh Python (NUMPY_CPU), with NPY_DISABLE_CPU_FEATURES set to disable's names
    when there are any, under OpenBLAS's own kernel. Returns NUMPY_CPU's JSON, or {"error": WHY} when the Python
    failed or numpy refused or warned about the names (its message)."""
    cmd = [sys.executable, "-W", "always::ImportWarning", "-c", NUMPY_CPU]
    env = {"NPY_DISABLE_CPU_FEATURES": " ".join(disable)} if disable else None
    try:
        done = call(runner, cmd, "", 120, env)
    except subprocess.TimeoutExpired:
        return {"error": "numpy's runtime probe timed out after 120 s"}
    said = " ".join(line.strip() for line in done.stderr.splitlines() if line.strip())
    if done.returncode != 0:
        return {"error": f"numpy's runtime probe exited with status {done.returncode}: {said[-300:]}"}
    if "NPY_DISABLE_CPU_FEATURES" in done.stderr:
        return {"error": f"numpy warned: {said[-300:]}"}
    try:
        info: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"error": f"numpy's runtime probe printed no JSON: {done.stdout.strip()[-200:]!r}"}
    still = [t for t in disable if info.get("features", {}).get(t)]
    if still:
        return {"error": f"NPY_DISABLE_CPU_FEATURES={' '.join(disable)!r} left {', '.join(still)} on"}
    return info


def dispatch_levels(info: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The dispatch runs numpy's runtime info (NUMPY_CPU's JSON) calls for: for each dispatch target T this CPU
    has that is not in the baseline, in numpy's order, (T, [T and every dispatch target after it]): the names
    NPY_DISABLE_CPU_FEATURES gets so that the best target left is the one below T."""
    baseline = set(info.get("baseline") or ())
    features = info.get("features") or {}
    dispatch = [str(t) for t in info.get("dispatch") or () if t not in baseline]
    return [(t, dispatch[k:]) for k, t in enumerate(dispatch) if features.get(t)]


def main(
    argv: Sequence[str] | None = None,
    runner: Runner = run,
    probe_command: Sequence[str] | None = None,
    cpuinfo: Path = Path("/proc/cpuinfo"),
) -> int:
    """Run the stage; return its exit status. ``runner``, ``probe_command`` and ``cpuinfo`` are for tests."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="JSON report")
    ap.add_argument("--kernels", default=",".join(KERNELS), help="OPENBLAS_CORETYPE names, comma-separated")
    ap.add_argument(
        "--dispatch",
        default="auto",
        help="numpy dispatch targets to run with each disabled, with those after it (comma-separated); auto: "
        "every one this CPU has beyond numpy's baseline; none: no dispatch run",
    )
    args = ap.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    flags = cpu_flags(cpuinfo)
    if flags is None:
        print(f"kernels: no CPU flags in {cpuinfo}; the probes alone decide what runs", flush=True)
    groups: dict[str, list[str]] = {}
    requested: dict[str, dict[str, object]] = {}
    kernels: dict[str, dict[str, object]] = {}
    failed = False
    for name in [k for k in args.kernels.split(",") if k]:
        req = requested[name] = probe(name, runner, probe_command, flags)
        if "skipped" in req:
            print(f"kernels: OPENBLAS_CORETYPE={name}: cannot run here ({req['skipped']}); skipped", flush=True)
        elif "error" in req:
            print(f"kernels: OPENBLAS_CORETYPE={name}: FAILED: {req['error']}", flush=True)
            failed = True
        else:
            print(f"kernels: OPENBLAS_CORETYPE={name}: {req['describe']}", flush=True)
            groups.setdefault(str(req["runs"]), []).append(name)

    for kernel, names in groups.items():
        row = kernels[kernel] = {"requested": names, **check(kernel, names[0], args.out.parent, runner)}
        failed |= not row["passed"]
        print(
            f"kernels: {kernel} ({', '.join(names)}): contract {row['values_identical']}/{row['values']} values "
            f"bit-identical (exit {row['contract_exit']}); tests: {row['tests']}; {row['seconds']} s",
            flush=True,
        )
        if not row["passed"]:
            print(f"kernels: {kernel} FAILED; last lines:\n{row['tail']}", flush=True)

    # numpy's dispatch levels, under OpenBLAS's own kernel
    cpu: dict[str, Any] = {}
    dispatch: dict[str, dict[str, object]] = {}
    dispatch_skipped: dict[str, str] = {}
    if args.dispatch != "none":
        cpu = numpy_cpu(runner)
        if "error" in cpu:
            print(f"kernels: numpy's dispatch targets: FAILED: {cpu['error']}", flush=True)
            failed = True
            levels = []
        else:
            levels = dispatch_levels(cpu)
            if args.dispatch != "auto":
                wanted = [t for t in args.dispatch.split(",") if t]
                found = {t for t, _ in levels}
                for t in wanted:
                    if t not in found:
                        dispatch_skipped[t] = "not a dispatch target this CPU has beyond numpy's baseline"
                levels = [(t, names) for t, names in levels if t in wanted]
            print(
                f"kernels: numpy dispatch: baseline {' '.join(map(str, cpu['baseline']))}; targets "
                f"{' '.join(map(str, cpu['dispatch']))}; this CPU has "
                f"{' '.join(t for t, _ in dispatch_levels(cpu)) or 'none of them'}",
                flush=True,
            )
        for target, names in levels:
            probed = numpy_cpu(runner, names)
            if "error" in probed:
                dispatch_skipped[target] = (
                    f"numpy refused NPY_DISABLE_CPU_FEATURES={' '.join(names)!r}: {probed['error']}"
                )
                print(f"kernels: dispatch: {target} disabled: skipped ({dispatch_skipped[target]})", flush=True)
                continue
            env = {"NPY_DISABLE_CPU_FEATURES": " ".join(names)}
            row = dispatch[target] = {
                "label": f"dispatch: {target} disabled",
                "disabled": names,
                **check(f"dispatch-{target}", "", args.out.parent, runner, env),
            }
            failed |= not row["passed"]
            print(
                f"kernels: dispatch: {target} disabled (NPY_DISABLE_CPU_FEATURES={' '.join(names)!r}, OpenBLAS's own "
                f"kernel): contract {row['values_identical']}/{row['values']} values bit-identical (exit "
                f"{row['contract_exit']}); tests: {row['tests']}; {row['seconds']} s",
                flush=True,
            )
            if not row["passed"]:
                print(f"kernels: dispatch: {target} disabled FAILED; last lines:\n{row['tail']}", flush=True)

    skipped = {name: str(req["skipped"]) for name, req in requested.items() if "skipped" in req}
    passed = sum(bool(row["passed"]) for row in kernels.values())
    report = {
        "requested": requested,
        "kernels": kernels,
        "skipped": skipped,
        "ran": len(kernels),
        "equal": passed,
        "numpy_cpu": cpu,
        "dispatch": dispatch,
        "dispatch_skipped": dispatch_skipped,
        "passed": not failed and bool(kernels),
    }
    args.out.write_text(json.dumps(report, indent=2))
    print()
    w = 26  # the first column: a kernel, or "dispatch: AVX512_ICL disabled"
    print(f"{'kernel':{w}s} {'asked as':40s} {'values compared':>15s} {'bit-identical':>13s}  tests")
    for kernel, row in kernels.items():
        print(
            f"{kernel:{w}s} {', '.join(names_of(row)):40s} {row['values']:15d} {row['values_identical']:13d}  "
            f"{row['tests']}"
        )
    for name, req in requested.items():
        if "runs" in req and req["runs"] is None:
            what = f"skipped, cannot run here: {req['skipped']}" if "skipped" in req else f"FAILED: {req['error']}"
            print(f"{'-':{w}s} {name:40s} {'-':>15s} {'-':>13s}  {what}")
    for row in dispatch.values():
        asked = "NPY_DISABLE_CPU_FEATURES=" + " ".join(names_of(row, "disabled"))
        print(f"{row['label']!s:{w}s} {asked:40s} {row['values']:15d} {row['values_identical']:13d}  {row['tests']}")
    for target, why in dispatch_skipped.items():
        print(f"{'dispatch: ' + target + ' disabled':{w}s} {'-':40s} {'-':>15s} {'-':>13s}  skipped: {why}")
    if not kernels:
        print("kernels: no kernel could run; FAILED")
        return 1
    equal_levels = sum(bool(row["passed"]) for row in dispatch.values())
    print(
        f"kernels: {passed} of {len(kernels)} kernels that run here equal; {len(skipped)} skipped "
        f"({', '.join(skipped) or 'none'}: this CPU cannot run them, not counted as passed); "
        f"numpy dispatch: {equal_levels} of {len(dispatch)} levels equal"
        + (f" ({', '.join(f'{t} disabled' for t in dispatch)})" if dispatch else "")
        + (f", {len(dispatch_skipped)} skipped ({', '.join(dispatch_skipped)})" if dispatch_skipped else "")
        + ("" if not failed else "; FAILED")
    )
    return 1 if failed else 0


def names_of(row: dict[str, object], key: str = "requested") -> list[str]:
    """The OPENBLAS_CORETYPE names a kernel's row was asked as (key "disabled": a dispatch row's targets)."""
    names = row[key]
    assert isinstance(names, list)
    return [str(n) for n in names]


if __name__ == "__main__":
    sys.exit(main())
