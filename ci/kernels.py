"""Equality under every OpenBLAS kernel this CPU runs (ci/kernels.sh; issue: bit for bit on every CPU).

numpy's OpenBLAS picks its kernels per CPU at run time and OPENBLAS_CORETYPE forces one. For each name in
KERNELS this asks a fresh Python which kernel OpenBLAS then really runs (some names are aliases: Zen runs
Haswell's, Cooperlake and SapphireRapids SkylakeX's on a CPU without their extensions, Prescott reports
Katmai), then, once per distinct kernel, runs the quick equality contract and the equality tests under
it. A name whose probe dies (a kernel the CPU cannot execute) is reported and skipped, never counted as
passed. Prints a table and writes JSON; exit status 1 unless every kernel that runs is 100% equal.

    python ci/kernels.py --out build-ci-out/kernels.json [--kernels Haswell,SkylakeX]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
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
PROBE = (
    "import json, mdvec; d = mdvec.numpy_dot(); "
    "print(json.dumps({'kernel': d.kernel, 'proven': d.proven, 'describe': d.describe()}))"
)


def run(cmd: list[str], coretype: str, timeout: float) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="JSON report")
    ap.add_argument("--kernels", default=",".join(KERNELS), help="OPENBLAS_CORETYPE names, comma-separated")
    args = ap.parse_args()
    py = sys.executable
    groups: dict[str, list[str]] = {}
    report: dict[str, object] = {"requested": {}, "kernels": {}}
    for name in [k for k in args.kernels.split(",") if k]:
        probe = run([py, "-c", PROBE], name, 120)
        if probe.returncode != 0:
            why = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
            print(f"kernels: OPENBLAS_CORETYPE={name}: cannot run here ({why}); skipped", flush=True)
            report["requested"][name] = {"runs": None, "skipped": why}  # type: ignore[index]
            continue
        info = json.loads(probe.stdout.strip().splitlines()[-1])
        print(f"kernels: OPENBLAS_CORETYPE={name}: {info['describe']}", flush=True)
        report["requested"][name] = {"runs": info["kernel"]}  # type: ignore[index]
        groups.setdefault(info["kernel"] or name, []).append(name)

    failed = False
    for kernel, names in groups.items():
        coretype = names[0]
        t0 = time.perf_counter()
        json_path = args.out.parent / f"contract-{kernel}.json"
        contract = run([py, "-m", "mdvec", "contract", "--quick", "--json", str(json_path)], coretype, 900)
        total = json.loads(json_path.read_text())["total"] if json_path.is_file() else {}
        tests = run(
            [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *[f"tests/py/{t}" for t in TESTS]], coretype, 1800
        )
        closing = (tests.stdout.strip().splitlines() or [""])[-1]
        counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", closing)}
        ok = contract.returncode == 0 and tests.returncode == 0 and counts.get("passed", 0) > 0
        failed |= not ok
        row = {
            "requested": names,
            "contract_exit": contract.returncode,
            "values": total.get("values", 0),
            "values_identical": total.get("values_identical", 0),
            "not_proven": total.get("not_proven"),
            "tests": closing,
            "tests_exit": tests.returncode,
            "passed": ok,
            "seconds": round(time.perf_counter() - t0, 1),
        }
        report["kernels"][kernel] = row  # type: ignore[index]
        print(
            f"kernels: {kernel} ({', '.join(names)}): contract {row['values_identical']}/{row['values']} values "
            f"bit-identical (exit {contract.returncode}); tests: {closing}; {row['seconds']} s",
            flush=True,
        )
        if not ok:
            tail = "\n".join((contract.stdout + tests.stdout + tests.stderr).strip().splitlines()[-40:])
            print(f"kernels: {kernel} FAILED; last lines:\n{tail}", flush=True)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print()
    print(f"{'kernel':16s} {'asked as':40s} {'values compared':>15s} {'bit-identical':>13s}  tests")
    for kernel, row in report["kernels"].items():  # type: ignore[union-attr]
        print(
            f"{kernel:16s} {', '.join(row['requested']):40s} {row['values']:15d} {row['values_identical']:13d}  "
            f"{row['tests']}"
        )
    for name, req in report["requested"].items():  # type: ignore[union-attr]
        if req.get("skipped"):
            print(f"{'-':16s} {name:40s} {'-':>15s} {'-':>13s}  cannot run here: {req['skipped']}")
    if not groups:
        print("kernels: no kernel could run")
        return 1
    print(
        f"kernels: {sum(r['passed'] for r in report['kernels'].values())} of {len(groups)} kernels equal"  # type: ignore[union-attr]
        + ("" if not failed else "; FAILED")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
