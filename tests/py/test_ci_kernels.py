"""ci/kernels.py (the CI's kernels stage): which OPENBLAS_CORETYPE kernels it runs, which it skips and why,
and that a kernel that runs but is unequal fails the stage. The contract and the equality tests are not
run here (the stage takes minutes): a fake runner stands for them; the probes are real processes."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SIGILL_PROBE = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"]


@pytest.fixture(scope="module")
def kernels() -> ModuleType:
    """ci/kernels.py, imported by its path (ci/ is not a package)."""
    spec = importlib.util.spec_from_file_location("ci_kernels", ROOT / "ci" / "kernels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dies_under(coretype: str) -> bool:
    """Whether numpy's dot of two 64-vectors kills Python under OPENBLAS_CORETYPE=coretype (the issue's case)."""
    r = subprocess.run(
        [sys.executable, "-c", "import numpy as np; a = np.ones(64); print(a.dot(a))"],
        env=dict(os.environ, OPENBLAS_CORETYPE=coretype),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode in (0, -signal.SIGILL), r.stderr
    return r.returncode == -signal.SIGILL


def test_skylakex_is_skipped_exactly_where_the_cpu_cannot_run_it(kernels: ModuleType) -> None:
    """On a CPU without AVX-512 (the issue's AMD EPYC) SkylakeX must be skipped; where it runs, it runs."""
    result = kernels.probe("SkylakeX", flags=kernels.cpu_flags())
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").is_file() else ""
    if dies_under("SkylakeX") or (cpuinfo and " avx512f " not in cpuinfo.replace("\n", " ")):
        assert result["runs"] is None and "error" not in result, result
        assert "SIGILL" in result["skipped"] or "avx512f" in result["skipped"], result
    else:
        assert result["runs"] in ("SkylakeX", "Haswell"), result  # Haswell: an OpenBLAS that refuses to force it


def test_the_kernel_this_cpu_picks_runs(kernels: ModuleType) -> None:
    """Haswell's kernel (AVX2) or its fallback runs on every x86-64 CI machine: not skipped."""
    result = kernels.probe("Haswell", flags=kernels.cpu_flags())
    assert result.get("runs"), result


def test_a_probe_killed_by_sigill_is_skipped_saying_so(kernels: ModuleType) -> None:
    result = kernels.probe("Haswell", command=SIGILL_PROBE)
    assert result == {"runs": None, "skipped": "the probe was killed by SIGILL: this CPU cannot execute the kernel"}


def test_a_probe_that_fails_otherwise_is_an_error_not_a_skip(kernels: ModuleType) -> None:
    for code in ("import sys; sys.exit('no mdvec')", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"):
        result = kernels.probe("Haswell", command=[sys.executable, "-c", code])
        assert result["runs"] is None and "skipped" not in result, result
    assert "no mdvec" in kernels.probe("X", command=[sys.executable, "-c", "import sys; sys.exit('no mdvec')"])["error"]


def test_a_kernel_whose_flags_the_cpu_lacks_is_skipped_even_if_its_probe_survives(
    kernels: ModuleType, tmp_path: Path
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 fma\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    flags = kernels.cpu_flags(cpuinfo)
    assert flags == {"fpu", "sse", "sse2", "avx", "avx2", "fma"}
    survives = [sys.executable, "-c", 'print(\'{"kernel": "SkylakeX", "describe": "d"}\')']
    result = kernels.probe("Cooperlake", command=survives, flags=flags)
    assert result["runs"] is None and "avx512f" in result["skipped"] and "SkylakeX" in result["skipped"], result
    haswell = [sys.executable, "-c", 'print(\'{"kernel": "Haswell", "describe": "d"}\')']
    assert kernels.probe("SapphireRapids", command=haswell, flags=flags)["runs"] == "Haswell"
    assert kernels.probe("SkylakeX", command=survives, flags=None)["runs"] == "SkylakeX"  # no cpuinfo: probe decides
    assert kernels.cpu_flags(tmp_path / "missing") is None


class FakeStage:
    """Stands for the subprocesses of ci/kernels.py: probes (SIGILL for the names in sigill, else the kernel
    named in kernel_of), the contract (writes its JSON: `unequal` values differ) and pytest (`failed`)."""

    def __init__(
        self, kernel_of: dict[str, str], sigill: Sequence[str] = (), unequal: int = 0, failed: int = 0
    ) -> None:
        self.kernel_of, self.sigill, self.unequal, self.failed = kernel_of, sigill, unequal, failed
        self.checked: list[str] = []

    def __call__(self, cmd: Sequence[str], coretype: str, timeout: float) -> subprocess.CompletedProcess[str]:
        cmd = list(cmd)
        if cmd[1] == "-c":  # the probe
            if coretype in self.sigill:
                return subprocess.run(SIGILL_PROBE, capture_output=True, text=True)
            info = {"kernel": self.kernel_of[coretype], "proven": True, "describe": f"fake {coretype}"}
            return subprocess.CompletedProcess(cmd, 0, json.dumps(info) + "\n", "")
        if "contract" in cmd:
            self.checked.append(coretype)
            total = {"values": 1000, "values_identical": 1000 - self.unequal}
            Path(cmd[cmd.index("--json") + 1]).write_text(json.dumps({"total": total}))
            return subprocess.CompletedProcess(cmd, 1 if self.unequal else 0, "contract\n", "")
        assert "pytest" in cmd
        line = f"{self.failed} failed, 10 passed in 1.00s" if self.failed else "10 passed in 1.00s"
        return subprocess.CompletedProcess(cmd, 1 if self.failed else 0, f"...\n{line}\n", "")


def stage(kernels: ModuleType, tmp_path: Path, names: str, fake: FakeStage) -> tuple[int, dict[str, object]]:
    out = tmp_path / "kernels.json"
    rc = kernels.main(["--out", str(out), "--kernels", names], runner=fake, cpuinfo=tmp_path / "no-cpuinfo")
    return rc, json.loads(out.read_text())


def test_equal_kernels_pass_once_per_kernel_and_a_sigill_one_is_skipped_not_passed(
    kernels: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeStage({"Haswell": "Haswell", "Zen": "Haswell", "Nehalem": "Nehalem"}, sigill=["SkylakeX"])
    rc, report = stage(kernels, tmp_path, "Haswell,SkylakeX,Zen,Nehalem", fake)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert fake.checked == ["Haswell", "Nehalem"]  # Zen runs Haswell's kernel: checked once
    assert report["kernels"].keys() == {"Haswell", "Nehalem"}  # type: ignore[attr-defined]
    assert report["skipped"] == {"SkylakeX": "the probe was killed by SIGILL: this CPU cannot execute the kernel"}
    assert (report["ran"], report["equal"], report["passed"]) == (2, 2, True)
    assert "OPENBLAS_CORETYPE=SkylakeX: cannot run here (the probe was killed by SIGILL" in out
    assert "2 of 2 kernels that run here equal; 1 skipped (SkylakeX" in out


@pytest.mark.parametrize("unequal, failed", [(1, 0), (0, 2)])
def test_a_kernel_that_runs_but_is_unequal_fails_the_stage(
    kernels: ModuleType, tmp_path: Path, unequal: int, failed: int
) -> None:
    fake = FakeStage({"Haswell": "Haswell"}, sigill=["SkylakeX"], unequal=unequal, failed=failed)
    rc, report = stage(kernels, tmp_path, "Haswell,SkylakeX", fake)
    assert rc == 1
    assert report["passed"] is False and report["equal"] == 0
    assert report["kernels"]["Haswell"]["passed"] is False  # type: ignore[index]


def test_nothing_that_runs_is_a_failure_not_a_pass(kernels: ModuleType, tmp_path: Path) -> None:
    rc, report = stage(kernels, tmp_path, "SkylakeX,Cooperlake", FakeStage({}, sigill=["SkylakeX", "Cooperlake"]))
    assert rc == 1
    assert report["kernels"] == {} and report["passed"] is False
    assert set(report["skipped"]) == {"SkylakeX", "Cooperlake"}  # type: ignore[arg-type]


def test_a_broken_probe_fails_the_stage(kernels: ModuleType, tmp_path: Path) -> None:
    class Broken(FakeStage):
        def __call__(self, cmd: Sequence[str], coretype: str, timeout: float) -> subprocess.CompletedProcess[str]:
            if coretype == "Nehalem" and list(cmd)[1] == "-c":
                return subprocess.CompletedProcess(list(cmd), 1, "", "ImportError: mdvec: libmdvec not found\n")
            return super().__call__(cmd, coretype, timeout)

    rc, report = stage(kernels, tmp_path, "Haswell,Nehalem", Broken({"Haswell": "Haswell"}))
    assert rc == 1
    assert "libmdvec not found" in report["requested"]["Nehalem"]["error"]  # type: ignore[index]
    assert report["skipped"] == {}
