"""ci/kernels.py (the CI's kernels stage): which OPENBLAS_CORETYPE kernels it runs, which it skips and why,
and that a kernel that runs but is unequal fails the stage; which numpy dispatch levels it runs
(NPY_DISABLE_CPU_FEATURES) from numpy's runtime info, which it skips, and that an unequal one fails the stage.
The contract and the equality tests are not run here (the stage takes minutes): a fake runner stands for them;
the probes are real processes."""

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
from typing import Any

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


# numpy's runtime info (ci/kernels.py NUMPY_CPU's JSON) as numpy 2.4 reports it on three CPUs
AVX2_CPU: dict[str, Any] = {  # the AMD EPYC: AVX2, no AVX-512
    "baseline": ["X86_V2"],
    "dispatch": ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"],
    "features": {"SSE42": True, "X86_V2": True, "AVX2": True, "X86_V3": True, "X86_V4": False, "AVX512_ICL": False},
}
ICL_CPU: dict[str, Any] = {  # an Ice Lake server: AVX-512 up to AVX512_ICL
    "baseline": ["X86_V2"],
    "dispatch": ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"],
    "features": {"X86_V2": True, "X86_V3": True, "X86_V4": True, "AVX512_ICL": True, "AVX512_SPR": False},
}
NO_DISPATCH: dict[str, Any] = {
    "baseline": ["ASIMD"],
    "dispatch": [],
    "features": {"ASIMD": True},
}  # nothing beyond the baseline


class FakeStage:
    """Stands for the subprocesses of ci/kernels.py: probes (SIGILL for the names in sigill, else the kernel
    named in kernel_of), numpy's runtime info (`cpu`, with the disabled targets turned off; `refuse`: numpy warns
    about any NPY_DISABLE_CPU_FEATURES), the contract (writes its JSON: `unequal` values differ; under a
    NPY_DISABLE_CPU_FEATURES setting `dispatch_unequal` of them) and pytest (`failed`)."""

    def __init__(
        self,
        kernel_of: dict[str, str],
        sigill: Sequence[str] = (),
        unequal: int = 0,
        failed: int = 0,
        cpu: dict[str, Any] | None = None,
        dispatch_unequal: int = 0,
        refuse: bool = False,
    ) -> None:
        self.kernel_of, self.sigill, self.unequal, self.failed = kernel_of, sigill, unequal, failed
        self.cpu = NO_DISPATCH if cpu is None else cpu
        self.dispatch_unequal, self.refuse = dispatch_unequal, refuse
        self.checked: list[str] = []  # the OPENBLAS_CORETYPE of each contract run ("": OpenBLAS's own)
        self.disabled: list[str] = []  # NPY_DISABLE_CPU_FEATURES of each contract run ("": none)
        self.pytest_env: list[str] = []  # and of each pytest run

    def __call__(
        self, cmd: Sequence[str], coretype: str, timeout: float, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        cmd = list(cmd)
        disable = (env or {}).get("NPY_DISABLE_CPU_FEATURES", "")
        if "__cpu_dispatch__" in cmd[-1]:  # numpy's runtime info
            assert coretype == ""  # under OpenBLAS's own kernel
            if disable and self.refuse:
                warning = f"ImportWarning: During parsing environment variable: 'NPY_DISABLE_CPU_FEATURES': {disable}"
                return subprocess.CompletedProcess(cmd, 0, "{}\n", warning + "\n")
            features = {k: v and k not in disable.split() for k, v in self.cpu["features"].items()}
            return subprocess.CompletedProcess(cmd, 0, json.dumps(dict(self.cpu, features=features)) + "\n", "")
        if cmd[1] == "-c":  # the probe
            if coretype in self.sigill:
                return subprocess.run(SIGILL_PROBE, capture_output=True, text=True)
            info = {"kernel": self.kernel_of[coretype], "proven": True, "describe": f"fake {coretype}"}
            return subprocess.CompletedProcess(cmd, 0, json.dumps(info) + "\n", "")
        if "contract" in cmd:
            self.checked.append(coretype)
            self.disabled.append(disable)
            unequal = self.dispatch_unequal if disable else self.unequal
            total = {"values": 1000, "values_identical": 1000 - unequal}
            Path(cmd[cmd.index("--json") + 1]).write_text(json.dumps({"total": total}))
            return subprocess.CompletedProcess(cmd, 1 if unequal else 0, "contract\n", "")
        assert "pytest" in cmd
        self.pytest_env.append(disable)
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
        def __call__(
            self, cmd: Sequence[str], coretype: str, timeout: float, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
            if coretype == "Nehalem" and list(cmd)[1] == "-c":
                return subprocess.CompletedProcess(list(cmd), 1, "", "ImportError: mdvec: libmdvec not found\n")
            return super().__call__(cmd, coretype, timeout, env)

    rc, report = stage(kernels, tmp_path, "Haswell,Nehalem", Broken({"Haswell": "Haswell"}))
    assert rc == 1
    assert "libmdvec not found" in report["requested"]["Nehalem"]["error"]  # type: ignore[index]
    assert report["skipped"] == {}


def test_dispatch_levels_from_numpy_runtime_info(kernels: ModuleType) -> None:
    """One run per dispatch target the CPU has beyond the baseline, each disabling it and every target after it."""
    all4 = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]
    assert kernels.dispatch_levels(AVX2_CPU) == [("X86_V3", all4)]
    assert kernels.dispatch_levels(ICL_CPU) == [("X86_V3", all4), ("X86_V4", all4[1:]), ("AVX512_ICL", all4[2:])]
    assert kernels.dispatch_levels(NO_DISPATCH) == []
    assert kernels.dispatch_levels({}) == []
    # numpy 1.26's names (older numpys list single features): a baseline feature listed again is left out
    old = {
        "baseline": ["SSE", "SSE2", "SSE3"],
        "dispatch": ["SSE3", "SSSE3", "AVX2", "AVX512F"],
        "features": {"SSE3": True, "SSSE3": True, "AVX2": True, "AVX512F": False},
    }
    assert kernels.dispatch_levels(old) == [("SSSE3", ["SSSE3", "AVX2", "AVX512F"]), ("AVX2", ["AVX2", "AVX512F"])]


def test_numpy_accepts_the_levels_of_this_cpu_and_refuses_other_names(kernels: ModuleType) -> None:
    """The real numpy: each level dispatch_levels derives here is accepted (and turns its targets off); a name
    that is not a dispatch target (numpy warns) and a baseline one (numpy raises) are refused, saying why."""
    info = kernels.numpy_cpu()
    assert "error" not in info, info
    assert set(info) >= {"baseline", "dispatch", "features"}
    for target, names in kernels.dispatch_levels(info):
        probed = kernels.numpy_cpu(disable=names)
        assert "error" not in probed, (target, probed)
        assert not any(probed["features"].get(t) for t in names), probed
    refused = kernels.numpy_cpu(disable=["NOT_A_TARGET"])
    assert "NOT_A_TARGET" in refused["error"], refused
    if info["baseline"]:
        assert "error" in kernels.numpy_cpu(disable=info["baseline"][:1])


def test_each_dispatch_level_runs_once_under_openblas_own_kernel(
    kernels: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeStage({"Haswell": "Haswell"}, cpu=ICL_CPU)
    rc, report = stage(kernels, tmp_path, "Haswell", fake)
    out = capsys.readouterr().out
    assert rc == 0, out
    levels = ["X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "X86_V4 AVX512_ICL AVX512_SPR", "AVX512_ICL AVX512_SPR"]
    assert fake.checked == ["Haswell", "", "", ""]  # the kernel, then each level under OpenBLAS's own kernel
    assert fake.disabled == ["", *levels] and fake.pytest_env == ["", *levels]
    dispatch = report["dispatch"]
    assert list(dispatch) == ["X86_V3", "X86_V4", "AVX512_ICL"]  # type: ignore[call-overload]
    assert dispatch["X86_V4"]["label"] == "dispatch: X86_V4 disabled"  # type: ignore[index]
    assert dispatch["X86_V4"]["disabled"] == ["X86_V4", "AVX512_ICL", "AVX512_SPR"]  # type: ignore[index]
    assert all(row["passed"] for row in dispatch.values())  # type: ignore[attr-defined]
    assert report["passed"] is True and report["dispatch_skipped"] == {}
    assert (tmp_path / "contract-dispatch-X86_V3.json").is_file()
    assert "dispatch: X86_V3 disabled" in out and "numpy dispatch: 3 of 3 levels equal" in out


def test_a_dispatch_level_that_is_unequal_fails_the_stage(kernels: ModuleType, tmp_path: Path) -> None:
    fake = FakeStage({"Haswell": "Haswell"}, cpu=AVX2_CPU, dispatch_unequal=1)
    rc, report = stage(kernels, tmp_path, "Haswell", fake)
    assert rc == 1
    assert report["kernels"]["Haswell"]["passed"] is True  # type: ignore[index]
    assert report["dispatch"]["X86_V3"]["passed"] is False  # type: ignore[index]
    assert report["passed"] is False


def test_a_failing_dispatch_test_run_fails_the_stage(kernels: ModuleType, tmp_path: Path) -> None:
    class FailsUnderDispatch(FakeStage):
        def __call__(
            self, cmd: Sequence[str], coretype: str, timeout: float, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
            if env and "pytest" in cmd:
                return subprocess.CompletedProcess(list(cmd), 1, "...\n1 failed, 9 passed in 1.00s\n", "")
            return super().__call__(cmd, coretype, timeout, env)

    rc, report = stage(kernels, tmp_path, "Haswell", FailsUnderDispatch({"Haswell": "Haswell"}, cpu=AVX2_CPU))
    assert rc == 1
    assert report["dispatch"]["X86_V3"]["tests"] == "1 failed, 9 passed in 1.00s"  # type: ignore[index]


def test_a_dispatch_setting_numpy_refuses_is_skipped_not_passed(
    kernels: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeStage({"Haswell": "Haswell"}, cpu=AVX2_CPU, refuse=True)
    rc, report = stage(kernels, tmp_path, "Haswell", fake)
    out = capsys.readouterr().out
    assert rc == 0, out
    assert report["dispatch"] == {} and fake.disabled == [""]
    assert "numpy warned" in report["dispatch_skipped"]["X86_V3"]  # type: ignore[index]
    assert "numpy dispatch: 0 of 0 levels equal, 1 skipped (X86_V3)" in out


def test_no_dispatch_target_beyond_the_baseline_adds_no_run(kernels: ModuleType, tmp_path: Path) -> None:
    fake = FakeStage({"Haswell": "Haswell"}, cpu=NO_DISPATCH)
    rc, report = stage(kernels, tmp_path, "Haswell", fake)
    assert rc == 0 and report["dispatch"] == {} and fake.checked == ["Haswell"]
    none = FakeStage({"Haswell": "Haswell"}, cpu=ICL_CPU)
    args = ["--out", str(tmp_path / "k.json"), "--kernels", "Haswell", "--dispatch", "none"]
    rc = kernels.main(args, runner=none, cpuinfo=tmp_path / "no-cpuinfo")
    report = json.loads((tmp_path / "k.json").read_text())
    assert rc == 0 and report["dispatch"] == {} and report["numpy_cpu"] == {}


def test_numpys_runtime_info_failing_fails_the_stage(kernels: ModuleType, tmp_path: Path) -> None:
    class NoNumpy(FakeStage):
        def __call__(
            self, cmd: Sequence[str], coretype: str, timeout: float, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
            if "__cpu_dispatch__" in list(cmd)[-1]:
                return subprocess.CompletedProcess(list(cmd), 1, "", "ModuleNotFoundError: No module named 'numpy'\n")
            return super().__call__(cmd, coretype, timeout, env)

    rc, report = stage(kernels, tmp_path, "Haswell", NoNumpy({"Haswell": "Haswell"}))
    assert rc == 1 and report["passed"] is False
    assert "No module named 'numpy'" in report["numpy_cpu"]["error"]  # type: ignore[index]
