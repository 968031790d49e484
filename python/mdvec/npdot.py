"""numpy's float64 dot on this machine, for the tasks that reproduce ``np.linalg.norm``.

``np.linalg.norm(x)`` of a float64 vector is ``sqrt(x.dot(x))``, and numpy computes ``x.dot(x)`` as
``0.0 + cblas_ddot(...)`` through the BLAS it was built with. OpenBLAS picks its ddot kernel per CPU at
run time (``OPENBLAS_CORETYPE`` forces one), and the kernels round differently (FMA or not, the order of
the sum), so no single C formula equals numpy on every machine. The binding therefore hands libmdvec
numpy's own ddot (``cfg.dot = MDVEC_DOT_CBLAS64`` or ``MDVEC_DOT_CBLAS``): libmdvec then calls the very
function numpy calls, exact by construction whatever kernel runs.

:func:`numpy_dot` finds that function once per process in the libraries numpy's core extension links
(numpy 2: ``scipy_cblas_ddot64_``; numpy 1.x wheels: ``cblas_ddot64_``; other builds ``cblas_ddot``),
and checks it against ``ndarray.dot`` on probe vectors before trusting it. Where none is found or the
check fails (another BLAS, numpy without BLAS), it falls back to the built-in arithmetic (plain or FMA)
that matched numpy on every probe vector, and marks the choice as not proven: :func:`numpy_dot` then
warns once (:class:`NumpyDotWarning`) and ``python -m mdvec contract`` reports the values of the tasks
that use the dot as NOT PROVEN instead of passing them.

The same holds for ``np.dot(v, M)`` and ``np.dot(M, v)`` of a 1-d ``v`` and a C-contiguous 2-d ``M``
(the Control Suite's ``.dot(xmat.reshape(3, 3))``): numpy computes them through its BLAS ``dgemv``
(cblas_matrixproduct: row-major, ``CblasTrans`` for ``v.M``, ``CblasNoTrans`` for ``M.v``, lda the column
count, alpha 1.0, beta 0.0, into a zeroed result), whose kernels also round differently. The ``dgemv``
beside the ``ddot`` is found and checked on probe matrices too, and handed over as ``cfg.dgemv64`` (or
``cfg.dgemv``); without it (none found, or it differs from ``np.dot``) the dot is NOT PROVEN and libmdvec
computes those products with its built-in plain arithmetic.
"""

from __future__ import annotations

import ctypes
import functools
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

# cfg.dot values (MDVEC_DOT_* in mdvec.h).
DOT_PLAIN, DOT_FMA, DOT_CBLAS, DOT_CBLAS64 = 0, 1, 2, 3
DOT_NAMES = {DOT_PLAIN: "plain", DOT_FMA: "fma", DOT_CBLAS: "cblas", DOT_CBLAS64: "cblas64"}

# Where numpy's ddot is, in the order tried: (symbol, ILP64). The first two are the OpenBLAS builds that
# numpy's own wheels bundle; they are ILP64 (64-bit sizes). A plain cblas_ddot takes int sizes.
_SYMBOLS = (("scipy_cblas_ddot64_", True), ("cblas_ddot64_", True), ("scipy_cblas_ddot", False), ("cblas_ddot", False))
# OpenBLAS's name for the kernel set it runs (same prefixes and suffixes as the ddot it sits beside).
_CORENAME = {
    "scipy_cblas_ddot64_": "scipy_openblas_get_corename64_",
    "cblas_ddot64_": "openblas_get_corename64_",
    "scipy_cblas_ddot": "scipy_openblas_get_corename",
    "cblas_ddot": "openblas_get_corename",
}

PROBE_LENGTHS = (1, 2, 3, 4, 7, 15)  # the tasks need 2 and 3; the C library calls ddot below 16 elements
PROBE_VECTORS = 500  # per length; ~8% of random 2-vectors tell FMA from plain
# (rows, cols) of the probe matrices for dgemv, each as np.dot(v, M) and np.dot(M, v): the tasks need 3 x 3
PROBE_SHAPES = ((2, 2), (3, 3), (2, 3), (3, 2), (3, 4), (4, 3), (4, 4), (6, 5))
PROBE_MATRICES = 100  # per shape
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # CBLAS_ORDER / CBLAS_TRANSPOSE values


class NumpyDotWarning(UserWarning):
    """numpy's dot could not be proven equal to what libmdvec computes on this machine."""


@dataclass(frozen=True)
class NumpyDot:
    """How libmdvec computes numpy's float64 dot in this process."""

    mode: int  #: cfg.dot (DOT_*)
    address: int  #: the ddot function's address for DOT_CBLAS / DOT_CBLAS64, else 0
    proven: bool  #: True when libmdvec calls numpy's own ddot, checked on the probe vectors
    source: str  #: what was found: the symbol and library, or why none was used
    blas: str  #: numpy's BLAS as numpy reports it (name, version, configuration)
    kernel: str  #: the OpenBLAS kernel set in use (its corename), "" when unknown
    forced: str  #: OPENBLAS_CORETYPE as set in the environment, "" when unset
    arithmetic: str  #: the built-in arithmetic that matched ndarray.dot: plain, fma, neither ("" unchecked)
    gemv_address: int = 0  #: numpy's dgemv (cfg.dgemv / dgemv64 with mode CBLAS / CBLAS64), 0: none proven

    @property
    def mode_name(self) -> str:
        """cfg.dot's name: plain, fma, cblas or cblas64."""
        return DOT_NAMES[self.mode]

    def describe(self) -> str:
        """One line for reports: how the dot is computed and whether that is proven."""
        kernel = f"OpenBLAS kernel {self.kernel}" if self.kernel else "kernel unknown"
        if self.forced:
            kernel += f" (OPENBLAS_CORETYPE={self.forced})"
        proof = "numpy's own ddot and dgemv, exact by construction" if self.proven else "NOT PROVEN: " + self.source
        arithmetic = f"; matches the built-in {self.arithmetic} arithmetic" if self.arithmetic else ""
        return f"numpy dot: {self.mode_name} ({proof}); {kernel}{arithmetic}; BLAS {self.blas}"


def _core_extension() -> str:
    """Return the file of numpy's core extension module (it links numpy's BLAS)."""
    try:
        from numpy._core import _multiarray_umath as core  # type: ignore[attr-defined]  # numpy >= 2 (not in its stubs)
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as core
    return str(core.__file__)


def _blas_config() -> str:
    """numpy's own words on its BLAS (numpy.show_config's 'blas' entry), or 'unknown'."""
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
    except (AttributeError, KeyError, TypeError):
        return "unknown"
    parts = [str(blas.get(k)) for k in ("name", "version", "openblas configuration") if blas.get(k)]
    return " ".join(" ".join(parts).split()) or "unknown"


def _probe_vectors() -> list[np.ndarray]:
    """Deterministic probe pairs: random signs and magnitudes over 12 decades, each length in PROBE_LENGTHS."""
    rng = np.random.default_rng(20261201)
    out = []
    for n in PROBE_LENGTHS:
        x = rng.standard_normal((PROBE_VECTORS, 2, n)) * 10.0 ** rng.uniform(-6, 6, (PROBE_VECTORS, 2, 1))
        out += [np.ascontiguousarray(v) for v in x]
    return out


def _probe_matrices() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Deterministic probe (M, v, w) for np.dot(v, M) and np.dot(M, w): each shape in PROBE_SHAPES, half
    of them with magnitudes over 12 decades, half standard normal (rotation matrices' range)."""
    rng = np.random.default_rng(20261202)
    out = []
    for rows, cols in PROBE_SHAPES:
        for k in range(PROBE_MATRICES):
            M, v, w = rng.standard_normal((rows, cols)), rng.standard_normal(rows), rng.standard_normal(cols)
            if k % 2:
                M, v, w = (a * 10.0 ** rng.uniform(-6, 6, a.shape) for a in (M, v, w))
            out.append((np.ascontiguousarray(M), np.ascontiguousarray(v), np.ascontiguousarray(w)))
    return out


def _gemv_differs(fn: Callable[..., None], bad: str) -> str:
    """Call fn (a cblas_dgemv) as numpy's cblas_matrixproduct does on every probe matrix; return "" when
    each result equals np.dot bit for bit, else what differed (bad names the function)."""
    for M, v, w in _probe_matrices():
        rows, cols = M.shape
        for trans, x, want in ((_TRANS, v, np.dot(v, M)), (_NO_TRANS, w, np.dot(M, w))):
            got = np.zeros(want.shape[0])  # numpy zeroes its result before the call
            fn(_ROW_MAJOR, trans, rows, cols, 1.0, M.ctypes.data, cols, x.ctypes.data, 1, 0.0, got.ctypes.data, 1)
            if got.view(np.uint64).tolist() != want.view(np.uint64).tolist():
                what = "np.dot(v, M)" if trans == _TRANS else "np.dot(M, v)"
                return f"{bad} differs from {what} on probe matrix {M.tolist()!r}, vector {x.tolist()!r}"
    return ""


def _gemv(core: ctypes.CDLL, symbol: str, is64: bool) -> tuple[int, str]:
    """Return (address, "") of numpy's dgemv beside its ddot `symbol`, checked against np.dot on the probe
    matrices, or (0, why not)."""
    name = symbol.replace("ddot", "dgemv")
    try:
        fn = getattr(core, name)
    except AttributeError:
        return 0, f"no {name} beside {symbol} in numpy's libraries"
    size = ctypes.c_int64 if is64 else ctypes.c_int
    fn.restype = None
    fn.argtypes = [ctypes.c_int, ctypes.c_int, size, size, ctypes.c_double, ctypes.c_void_p, size, ctypes.c_void_p]
    fn.argtypes += [size, ctypes.c_double, ctypes.c_void_p, size]
    why = _gemv_differs(fn, name)
    return (0, why) if why else (ctypes.cast(fn, ctypes.c_void_p).value or 0, "")


def _plain(x: np.ndarray, y: np.ndarray) -> float:
    s = 0.0
    for a, b in zip(x.tolist(), y.tolist()):
        s += a * b
    return 0.0 + s


def _fma(x: np.ndarray, y: np.ndarray) -> float:
    s = 0.0
    for a, b in zip(x.tolist(), y.tolist()):
        s = float(Fraction(a) * Fraction(b) + Fraction(s))  # one rounding, as fma()
    return 0.0 + s


@functools.cache
def arithmetic() -> str:
    """Which built-in arithmetic equals ndarray.dot on every probe pair of the tasks' lengths (2 and 3;
    x.x and x.y): "plain", "fma" or "neither". Slower than numpy_dot (exact FMA in Python): run on demand."""
    pairs = [(v[0], v[1]) for v in _probe_vectors() if v.shape[1] in (2, 3)]

    def equal(f: Callable[[np.ndarray, np.ndarray], float]) -> bool:
        return all(f(x, x) == x.dot(x) and f(x, y) == x.dot(y) for x, y in pairs)

    return "plain" if equal(_plain) else "fma" if equal(_fma) else "neither"


def _find() -> tuple[ctypes.CDLL | None, str, bool, str]:
    """Return (library, symbol, ILP64, note) for numpy's ddot, or (None, "", False, why not)."""
    try:
        core = ctypes.CDLL(_core_extension())  # dlsym on it also searches the libraries it links
    except (ImportError, OSError) as exc:
        return None, "", False, f"numpy's core extension could not be opened ({exc})"
    ilp64 = "USE64BITINT" in _blas_config() or None  # numpy says so for its OpenBLAS builds
    for symbol, is64 in _SYMBOLS:
        if ilp64 and not is64:
            continue  # a 64-bit-integer BLAS: an int-sized signature would be wrong
        try:
            getattr(core, symbol)
        except AttributeError:
            continue
        return core, symbol, is64, ""
    return None, "", False, "no cblas ddot symbol (" + ", ".join(s for s, _ in _SYMBOLS) + ") in numpy's libraries"


def _kernel(core: ctypes.CDLL | None, symbol: str) -> str:
    if core is None or symbol not in _CORENAME:
        return ""
    try:
        fn = getattr(core, _CORENAME[symbol])
    except AttributeError:
        return ""
    fn.restype, fn.argtypes = ctypes.c_char_p, []
    return (fn() or b"").decode(errors="replace").strip()


@functools.cache
def numpy_dot() -> NumpyDot:
    """Find and check numpy's ddot once per process; warn once (NumpyDotWarning) when it is not proven."""
    pairs = [(v[0], v[1]) for v in _probe_vectors()]
    core, symbol, is64, why = _find()
    forced = os.environ.get("OPENBLAS_CORETYPE", "")
    kernel = _kernel(core, symbol)
    if core is not None:
        fn = getattr(core, symbol)
        size = ctypes.c_int64 if is64 else ctypes.c_int
        fn.restype = ctypes.c_double
        fn.argtypes = [size, ctypes.c_void_p, size, ctypes.c_void_p, size]
        bad = next(
            (
                (x, y)
                for x, y in pairs
                if 0.0 + fn(x.size, x.ctypes.data, 1, x.ctypes.data, 1) != x.dot(x)
                or 0.0 + fn(x.size, x.ctypes.data, 1, y.ctypes.data, 1) != x.dot(y)
            ),
            None,
        )
        if bad is None:
            address = ctypes.cast(fn, ctypes.c_void_p).value or 0
            gemv_address, gemv_why = _gemv(core, symbol, is64)
            where = f"{os.path.basename(_core_extension())}'s libraries"
            gemv_name = symbol.replace("ddot", "dgemv")
            source = f"{symbol} and {gemv_name} in {where}"
            if not gemv_address:  # numpy's ddot still serves np.linalg.norm; the vector-matrix .dot is built in
                source = (
                    f"{symbol} in {where}, but {gemv_why}; using the built-in plain arithmetic for np.dot of "
                    "a vector and a matrix, whose values may differ in the last bit"
                )
            result = NumpyDot(
                DOT_CBLAS64 if is64 else DOT_CBLAS,
                address,
                bool(gemv_address),
                source,
                _blas_config(),
                kernel,
                forced,
                "",
                gemv_address,
            )
            if not gemv_address:
                warnings.warn(
                    f"mdvec: equality with numpy is not proven for tasks that use np.dot: {source}",
                    NumpyDotWarning,
                    stacklevel=2,
                )
            return result
        why = f"{symbol} found but it differs from ndarray.dot on probe vector {bad[0].tolist()!r}"
    found = arithmetic()
    mode = DOT_FMA if found == "fma" else DOT_PLAIN
    fallback = f"{why}; using the built-in {DOT_NAMES[mode]} arithmetic, which " + (
        "matched ndarray.dot on every probe vector"
        if found != "neither"
        else "does not match ndarray.dot on this machine: values of np.linalg.norm may differ in the last bit"
    )
    result = NumpyDot(mode, 0, False, fallback, _blas_config(), kernel, forced, found)
    warnings.warn(
        f"mdvec: equality with numpy is not proven for tasks that use np.linalg.norm: {fallback}",
        NumpyDotWarning,
        stacklevel=2,
    )
    return result
