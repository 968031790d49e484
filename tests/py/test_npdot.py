"""mdvec.npdot: numpy's own ddot found and checked, the built-in fallbacks identified, NOT PROVEN said once.

The tasks that reproduce np.linalg.norm (Swimmer, Ant, Humanoid, Reacher, Pusher) equal Gymnasium only
when libmdvec computes numpy's dot as numpy does on this machine. These tests run under whatever kernel
OpenBLAS picks (ci/kernels.sh runs them under each OPENBLAS_CORETYPE the CPU accepts).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import mdvec
from mdvec import npdot, vecenv

ROOT = Path(__file__).resolve().parents[2]


def _fresh() -> npdot.NumpyDot:
    """numpy_dot() without the per-process cache."""
    return npdot.numpy_dot.__wrapped__()


def test_numpys_own_ddot_is_found_and_proven() -> None:
    dot = npdot.numpy_dot()
    assert dot.proven and dot.mode in (npdot.DOT_CBLAS, npdot.DOT_CBLAS64) and dot.address
    assert "exact by construction" in dot.describe()
    size = ctypes.c_int64 if dot.mode == npdot.DOT_CBLAS64 else ctypes.c_int
    fn = ctypes.CFUNCTYPE(ctypes.c_double, size, ctypes.c_void_p, size, ctypes.c_void_p, size)(dot.address)
    rng = np.random.default_rng(5)
    for _ in range(200):  # the address handed to C is the function numpy calls
        x = rng.standard_normal(3)
        assert 0.0 + fn(3, x.ctypes.data, 1, x.ctypes.data, 1) == x.dot(x)
    assert npdot.numpy_dot() is dot  # once per process


def test_arithmetic_identifies_the_kernel_family() -> None:
    """plain on Haswell/Zen/Sandybridge/Nehalem, fma on SkylakeX and later, neither on Prescott."""
    found = npdot.arithmetic()
    kernel = npdot.numpy_dot().kernel.lower()
    expected = {
        "haswell": "plain",
        "zen": "plain",
        "sandybridge": "plain",
        "nehalem": "plain",
        "skylakex": "fma",
        "cooperlake": "fma",
        "sapphirerapids": "fma",
        "katmai": "neither",
        "prescott": "neither",
    }
    if kernel not in expected:
        pytest.skip(f"no expectation for OpenBLAS kernel {kernel!r} (found {found!r})")
    assert found == expected[kernel]


def test_no_symbol_falls_back_warns_once_and_is_not_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(npdot, "_find", lambda: (None, "", False, "no cblas ddot symbol (test)"))
    with pytest.warns(npdot.NumpyDotWarning, match="not proven.*no cblas ddot symbol"):
        dot = _fresh()
    assert not dot.proven and dot.address == 0 and "NOT PROVEN" in dot.describe()
    assert dot.mode == (npdot.DOT_FMA if npdot.arithmetic() == "fma" else npdot.DOT_PLAIN)


def test_a_wrong_function_is_caught_by_the_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A symbol that is not numpy's ddot (here: dasum, the sum of |x|) fails the check and is not used."""
    core, symbol, _, _ = npdot._find()
    if core is None or not symbol.endswith("ddot64_"):
        pytest.skip(f"numpy's BLAS here exports no *ddot64_ ({symbol!r})")
    wrong = symbol.replace("ddot", "dasum")
    getattr(core, wrong)  # present beside ddot in every OpenBLAS
    monkeypatch.setattr(npdot, "_find", lambda: (core, wrong, True, ""))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        dot = _fresh()
    assert not dot.proven and "differs from ndarray.dot" in dot.source
    assert len([w for w in seen if issubclass(w.category, npdot.NumpyDotWarning)]) == 1


def _reacher_identical(monkeypatch: pytest.MonkeyPatch, dot: npdot.NumpyDot) -> bool:
    from mdvec.tools import contract

    if contract.v5_unavailable():
        pytest.skip(contract.v5_unavailable())
    monkeypatch.setattr(vecenv, "numpy_dot", lambda: dot)
    result = contract.run_case(contract.v5_cases("Reacher-v5", quick=True)[0])
    assert result.steps > 0
    return result.identical


@pytest.mark.parametrize("mode", [npdot.DOT_PLAIN, npdot.DOT_FMA])
def test_builtin_arithmetic_equals_numpy_exactly_where_it_matches(monkeypatch: pytest.MonkeyPatch, mode: int) -> None:
    """The C library's built-in PLAIN and FMA modes: the one numpy's kernel matches gives Gymnasium's
    Reacher bit for bit; the other one does not (so the choice matters, and the test can fail)."""
    found = npdot.arithmetic()
    dot = dataclasses.replace(npdot.numpy_dot(), mode=mode, address=0, proven=False)
    identical = _reacher_identical(monkeypatch, dot)
    if found == npdot.DOT_NAMES[mode]:
        assert identical
    elif found in ("plain", "fma"):
        assert not identical
    else:
        pytest.skip(f"numpy's dot here matches neither built-in arithmetic ({npdot.numpy_dot().kernel})")


def test_duck_never_asks_for_the_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> npdot.NumpyDot:
        raise AssertionError("the duck does not compute numpy's dot")

    monkeypatch.setattr(vecenv, "numpy_dot", refuse)
    with mdvec.VecEnv(2, seed=1) as venv:
        venv.reset()
        assert venv._h.numpy_dot is None


@pytest.mark.parametrize("coretype", ["NoSuchKernel"])
def test_an_unknown_forced_kernel_is_reported_not_a_crash(coretype: str) -> None:
    """OPENBLAS_CORETYPE naming no kernel: OpenBLAS picks one itself; mdvec says which and stays exact."""
    env = dict(os.environ, OPENBLAS_CORETYPE=coretype, PYTHONPATH=str(ROOT / "python"))
    code = (
        "import mdvec; d = mdvec.numpy_dot(); print(d.describe()); "
        "assert d.proven and d.kernel and d.forced == %r" % coretype
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"OPENBLAS_CORETYPE={coretype}" in out.stdout and "exact by construction" in out.stdout


@pytest.mark.parametrize("version, reason", [((1, 26), "value-based casting"), ((2, 0), "np.clip(-0.0, 0.0, 0.0)")])
def test_numpy_older_than_the_floor_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, version: tuple[int, int], reason: str
) -> None:
    """Below numpy 2.1 the Gymnasium tasks would be silently unequal: refused, naming numpy's version and
    why; the duck (no action-dtype terms) still runs."""
    from mdvec.gym_tasks import gymnasium_mujoco_unavailable

    if gymnasium_mujoco_unavailable():
        pytest.skip(gymnasium_mujoco_unavailable())
    monkeypatch.setattr(vecenv, "_NUMPY", version)
    with pytest.raises(
        mdvec.MdvecError, match=rf"Hopper-v5: .*numpy >= 2\.1.*numpy {np.__version__}.*{re.escape(reason)}"
    ):
        mdvec.VecEnv(2, task="Hopper-v5")
    with mdvec.VecEnv(2, seed=1) as venv:
        venv.reset()
    monkeypatch.setattr(vecenv, "_NUMPY", vecenv.NUMPY_FLOOR)
    assert vecenv.numpy_refusal("Hopper-v5") == ""
