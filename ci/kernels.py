"""Equality under every OpenBLAS kernel this CPU runs (ci/kernels.sh; issue: bit for bit on every CPU).

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
tests run under it. A skipped kernel is never counted as passed. Prints a table and writes JSON (which
kernels ran, which names were skipped and why); exit status 1 unless every kernel that runs is 100%
equal (contract and tests) and every other name was skipped for a reason the probe showed.

    python ci/kernels.py --out build-ci-out/kernels.json [--kernels Haswell,SkylakeX]
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
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ("Haswell", "SkylakeX", "Cooperlake", "SapphireRapids", "Zen", "Sandybridge", "Nehalem", "Prescott")
# The equality tests: every module that compares mdvec with its reference bit for bit.
TESTS = (
    "test_npdot.py",
    "test_v5_a.py",
    "test_v5_b.py",
    "test_hopper.py",
    "test_binding.py",
    "test_gym.py",
    "test_sb3.py",
    "test_contract.py",
    "test_make.py",
)
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

Runner = Callable[[Sequence[str], str, float], "subprocess.CompletedProcess[str]"]


def run(cmd: Sequence[str], coretype: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run cmd in the checkout with OPENBLAS_CORETYPE=coretype and the checkout's python/ on PYTHONPATH."""
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run(list(cmd), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


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


def check(kernel: str, coretype: str, out_dir: Path, runner: Runner = run) -> dict[str, object]:
    """Run the quick contract and the equality tests under coretype; return the kernel's report row."""
    py = sys.executable
    t0 = time.perf_counter()
    json_path = out_dir / f"contract-{kernel}.json"
    json_path.unlink(missing_ok=True)  # a stale report must not speak for this run
    contract = runner([py, "-m", "mdvec", "contract", "--quick", "--json", str(json_path)], coretype, 900)
    total = json.loads(json_path.read_text()).get("total", {}) if json_path.is_file() else {}
    tests = runner(
        [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *[f"tests/py/{t}" for t in TESTS]], coretype, 1800
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

    skipped = {name: str(req["skipped"]) for name, req in requested.items() if "skipped" in req}
    passed = sum(bool(row["passed"]) for row in kernels.values())
    report = {
        "requested": requested,
        "kernels": kernels,
        "skipped": skipped,
        "ran": len(kernels),
        "equal": passed,
        "passed": not failed and bool(kernels),
    }
    args.out.write_text(json.dumps(report, indent=2))
    print()
    print(f"{'kernel':16s} {'asked as':40s} {'values compared':>15s} {'bit-identical':>13s}  tests")
    for kernel, row in kernels.items():
        print(
            f"{kernel:16s} {', '.join(names_of(row)):40s} {row['values']:15d} {row['values_identical']:13d}  "
            f"{row['tests']}"
        )
    for name, req in requested.items():
        if "runs" in req and req["runs"] is None:
            what = f"skipped, cannot run here: {req['skipped']}" if "skipped" in req else f"FAILED: {req['error']}"
            print(f"{'-':16s} {name:40s} {'-':>15s} {'-':>13s}  {what}")
    if not kernels:
        print("kernels: no kernel could run; FAILED")
        return 1
    print(
        f"kernels: {passed} of {len(kernels)} kernels that run here equal; {len(skipped)} skipped "
        f"({', '.join(skipped) or 'none'}: this CPU cannot run them, not counted as passed)"
        + ("" if not failed else "; FAILED")
    )
    return 1 if failed else 0


def names_of(row: dict[str, object]) -> list[str]:
    """The OPENBLAS_CORETYPE names a kernel's row was asked as."""
    names = row["requested"]
    assert isinstance(names, list)
    return [str(n) for n in names]


if __name__ == "__main__":
    sys.exit(main())
