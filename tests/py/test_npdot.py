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


def _gemv_fn(dot: npdot.NumpyDot, address: int) -> ctypes._CFuncPtr:
    size = ctypes.c_int64 if dot.mode == npdot.DOT_CBLAS64 else ctypes.c_int
    double, ptr, c_int = ctypes.c_double, ctypes.c_void_p, ctypes.c_int
    return ctypes.CFUNCTYPE(None, c_int, c_int, size, size, double, ptr, size, ptr, size, double, ptr, size)(address)


def _random_cases(seed: int, shapes: tuple[tuple[int, int], ...], n: int):
    """(M, v, w) for np.dot(v, M) and np.dot(M, w): standard normal, or over 12 decades, or rotation-like."""
    rng = np.random.default_rng(seed)
    for rows, cols in shapes:
        for k in range(n):
            M, v, w = rng.standard_normal((rows, cols)), rng.standard_normal(rows), rng.standard_normal(cols)
            if k % 3 == 1:
                M, v, w = (a * 10.0 ** rng.uniform(-6, 6, a.shape) for a in (M, v, w))
            elif k % 3 == 2:  # an orthonormal frame (a body's xmat) and positions within a few metres
                M = np.linalg.qr(rng.standard_normal((rows, cols)))[0] if rows == cols else M
                v, w = v * 2.0, w * 2.0
            yield np.ascontiguousarray(M), np.ascontiguousarray(v), np.ascontiguousarray(w)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.view(np.uint64).tolist() == b.view(np.uint64).tolist()


def test_numpys_own_dgemv_is_found_and_proven() -> None:
    """The dgemv handed to C, called with numpy's arguments (cblas_matrixproduct), is np.dot / @ bit for bit."""
    dot = npdot.numpy_dot()
    assert dot.proven and dot.gemv_address and "dgemv" in dot.source
    fn = _gemv_fn(dot, dot.gemv_address)
    for M, v, w in _random_cases(11, ((3, 3), (2, 2), (3, 4), (4, 4)), 300):
        rows, cols = M.shape
        for trans, x, wants in ((112, v, (np.dot(v, M), v @ M)), (111, w, (np.dot(M, w), M @ w))):
            got = np.zeros(wants[0].shape[0])
            fn(101, trans, rows, cols, 1.0, M.ctypes.data, cols, x.ctypes.data, 1, 0.0, got.ctypes.data, 1)
            assert all(_same(got, want) for want in wants), (trans, M.tolist(), x.tolist())


@pytest.fixture(scope="module")
def hooks() -> ctypes.CDLL:
    """The test hooks library (MDVEC_TESTHOOKS, or the one built beside the library under test)."""
    from mdvec import _lib

    path = os.environ.get("MDVEC_TESTHOOKS")
    if not path:
        beside = Path(str(_lib.load().path)).resolve().parents[1] / "tests" / "libmdvec_testhooks.so"
        path = str(beside) if beside.exists() else ""
    if not path:
        pytest.skip("MDVEC_TESTHOOKS not set and no libmdvec_testhooks.so beside the library")
    lib = ctypes.CDLL(path)
    p, c_int = ctypes.c_void_p, ctypes.c_int
    lib.hook_np_gemv.restype = None
    lib.hook_np_gemv.argtypes = [c_int, p, p, p, p, c_int, p, p, c_int, c_int, p]
    return lib


def _binding(hooks: ctypes.CDLL, dot: npdot.NumpyDot, matvec: bool, M: np.ndarray, x: np.ndarray) -> np.ndarray:
    """libmdvec's mdv_np_vecmat / mdv_np_matvec with the config the binding builds from dot (vecenv)."""
    ddot, ddot64, dgemv, dgemv64 = (
        (None, dot.address, None, dot.gemv_address or None)
        if dot.mode == npdot.DOT_CBLAS64
        else (dot.address, None, dot.gemv_address or None, None)
        if dot.mode == npdot.DOT_CBLAS
        else (None, None, None, None)
    )
    rows, cols = M.shape
    out = np.full(rows if matvec else cols, np.nan)
    hooks.hook_np_gemv(
        dot.mode, ddot, ddot64, dgemv, dgemv64, int(matvec), M.ctypes.data, x.ctypes.data, rows, cols, out.ctypes.data
    )
    return out


def test_the_bindings_vector_matrix_dot_is_numpys(hooks: ctypes.CDLL) -> None:
    """np.dot(v, M) and np.dot(M, v) as libmdvec computes them with what the binding hands it equal numpy's bit
    for bit under whatever kernel runs (ci/kernels.py runs this module under each), the ddot cases (a column M
    in v.M, a row M in M.v) included."""
    dot = npdot.numpy_dot()
    shapes = ((3, 3), (2, 2), (2, 3), (3, 2), (3, 4), (4, 3), (4, 4), (3, 1), (1, 3), (5, 7))
    n = 0
    for M, v, w in _random_cases(12, shapes, 200):
        if M.shape[0] >= 2:  # np.dot(v, M) of a 1-row M is numpy's scalar case, not covered
            got = _binding(hooks, dot, False, M, v)
            assert _same(got, np.dot(v, M)) and _same(got, v @ M), (M.tolist(), v.tolist())
            n += 1
        if M.shape[1] >= 2:  # likewise np.dot(M, w) of a 1-column M
            got = _binding(hooks, dot, True, M, w)
            assert _same(got, np.dot(M, w)) and _same(got, M @ w), (M.tolist(), w.tolist())
            n += 1
    assert n == 3600


def test_the_builtin_plain_vector_matrix_dot(hooks: ctypes.CDLL) -> None:
    """PLAIN's np.dot(v, M) of a 3 x 3 M equals numpy under every kernel but the AVX-512 ones; FMA's differs from
    it (the choice matters). PLAIN's np.dot(M, v) equals numpy under Sandybridge, Nehalem and Prescott only."""
    dot = npdot.numpy_dot()
    plain = dataclasses.replace(dot, mode=npdot.DOT_PLAIN, address=0, gemv_address=0)
    fused = dataclasses.replace(plain, mode=npdot.DOT_FMA)
    kernel = dot.kernel.lower()
    equal_vm = equal_mv = fma_differs = 0
    cases = list(_random_cases(13, ((3, 3),), 600))
    for M, v, w in cases:
        want = np.dot(v, M)
        equal_vm += _same(_binding(hooks, plain, False, M, v), want)
        fma_differs += not _same(_binding(hooks, fused, False, M, v), _binding(hooks, plain, False, M, v))
        equal_mv += _same(_binding(hooks, plain, True, M, w), np.dot(M, w))
    assert fma_differs > 0
    if kernel in ("haswell", "zen", "sandybridge", "nehalem", "katmai", "prescott"):
        assert equal_vm == len(cases)
    if kernel in ("sandybridge", "nehalem", "katmai", "prescott"):
        assert equal_mv == len(cases)
    elif kernel in ("haswell", "zen"):
        assert equal_mv < len(cases)  # its dgemv_t rounds fma(M0 v0, M1 v1) first


def test_no_dgemv_keeps_ddot_but_is_not_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy's ddot proven, its dgemv not: norms stay numpy's, the vector-matrix .dot is built in, NOT PROVEN."""
    monkeypatch.setattr(npdot, "_gemv", lambda core, symbol, is64: (0, "no dgemv (test)"))
    with pytest.warns(npdot.NumpyDotWarning, match="not proven.*no dgemv \\(test\\)"):
        dot = _fresh()
    assert not dot.proven and dot.address and not dot.gemv_address
    assert dot.mode in (npdot.DOT_CBLAS, npdot.DOT_CBLAS64) and "NOT PROVEN" in dot.describe()


def test_a_wrong_dgemv_is_caught_by_the_probe() -> None:
    """A dgemv one bit off numpy's on one element fails the probe, naming what differed."""
    dot = npdot.numpy_dot()
    real = _gemv_fn(dot, dot.gemv_address)

    def off_by_one_bit(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy):
        real(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy)
        first = ctypes.cast(y, ctypes.POINTER(ctypes.c_uint64))
        if trans == 111 and m == 3 and n == 3:
            first[0] ^= 1

    assert npdot._gemv_differs(real, "real") == ""
    assert "differs from np.dot(M, v)" in npdot._gemv_differs(off_by_one_bit, "fake")


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
