#!/usr/bin/env python3
"""Write tests/c/gemv_fixtures.h: numpy's np.dot(v, M) and np.dot(M, v) for test_npmath.c (mdv_np_vecmat,
mdv_np_matvec in the built-in PLAIN and FMA modes).

Run with the project's Python (numpy 2.x wheel, its bundled OpenBLAS); the header is checked in and CI does
not regenerate it:

    python tests/c/gen_gemv_fixtures.py [--out tests/c/gemv_fixtures.h]

The inputs are make_array() of gen_rng_fixtures.py (mirrored in test_npmath.c), consumed in order: for each
array kind, shape and case, M (rows * cols, C order) then v. numpy runs these products through its BLAS
dgemv, whose OpenBLAS kernel is picked per CPU, so the script asks numpy under each kernel this CPU runs
(OPENBLAS_CORETYPE, one subprocess each) and asserts the facts the C side documents before writing:

- np.dot(v, M) (also v @ M) is the same under Haswell, Zen, Sandybridge, Nehalem and Prescott for every
  shape here (rows <= 3) and equals the left-to-right sum from 0.0 without FMA (PLAIN): the header stores it;
- np.dot(M, v) (also M @ v) under Sandybridge, Nehalem and Prescott equals PLAIN (stored); the Haswell
  kernel's (Haswell, Zen) is fma(M2 v2, fma(M0 v0, M1 v1)), neither PLAIN nor FMA (checked, not stored);
- a column M in np.dot(v, M) or a row M in np.dot(M, v) is numpy's ddot (0.0 + ddot), PLAIN under Haswell,
  Zen, Sandybridge and Nehalem (Prescott's ddot differs: not asked).

The FMA expectations (fma() left to right from 0.0) are computed exactly with fractions.Fraction, not by
numpy: no kernel this CPU runs uses them (SkylakeX needs AVX-512).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_rng_fixtures import Out, dbits, make_array, u64

KINDS = (0, 1, 2, 3)  # make_array kinds: wide magnitudes, [0, 1), heavy cancellation, small integers
CASES = 24  # per kind and shape
POOL = 6000  # make_array(kind, POOL): the inputs of one kind
VECMAT = ((2, 1), (3, 1), (2, 2), (2, 3), (3, 2), (3, 3), (3, 4), (2, 5))  # (rows, cols) of np.dot(v, M)
MATVEC = ((1, 2), (1, 3), (2, 2), (3, 2), (2, 3), (3, 3), (4, 3), (5, 2))  # (rows, cols) of np.dot(M, v)
KERNELS = ("Haswell", "Zen", "Sandybridge", "Nehalem", "Prescott")  # SkylakeX, Cooperlake: AVX-512 only
PLAIN_MATVEC_KERNELS = ("Sandybridge", "Nehalem", "Prescott")
PLAIN_DOT_KERNELS = ("Haswell", "Zen", "Sandybridge", "Nehalem")  # a column M or a row M: numpy's ddot


def cases():
    """Yield (which, kind, rows, cols, M, v) in the order test_npmath.c consumes make_array's pool."""
    for kind in KINDS:
        pool = make_array(kind, POOL)
        at = 0
        for which, shapes in (("vecmat", VECMAT), ("matvec", MATVEC)):
            for rows, cols in shapes:
                nv = rows if which == "vecmat" else cols
                for _ in range(CASES):
                    M = np.ascontiguousarray(pool[at : at + rows * cols].reshape(rows, cols))
                    v = np.ascontiguousarray(pool[at + rows * cols : at + rows * cols + nv])
                    at += rows * cols + nv
                    yield which, kind, rows, cols, M, v
        assert at <= POOL, at


def numpy_results() -> list[list[int]]:
    """np.dot(v, M) / np.dot(M, v) bits of every case, also checking v @ M, v.dot(M), M @ v, M.dot(v)."""
    out = []
    for which, _, _, _, M, v in cases():
        if which == "vecmat":
            r = np.dot(v, M)
            others = (v @ M, v.dot(M))
        else:
            r = np.dot(M, v)
            others = (M @ v, M.dot(v))
        bits = r.view(np.uint64).tolist()
        assert all(o.view(np.uint64).tolist() == bits for o in others)
        out.append(bits)
    return out


def plain(a, b):
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


def fused(a, b):
    s = 0.0
    for x, y in zip(a, b):
        s = float(Fraction(x) * Fraction(y) + Fraction(s))  # one rounding, as fma()
    return s


def haswell_matvec(a, b):
    """The Haswell dgemv_t tail (dot length 2 or 3) as its compiler contracted it."""
    s = float(Fraction(a[0]) * Fraction(b[0]) + Fraction(a[1] * b[1]))
    if len(a) == 3:
        s = float(Fraction(a[2]) * Fraction(b[2]) + Fraction(s))
    return s


def formula(which, M, v, f):
    """0.0 + f over each output element's products, in numpy's order of the products."""
    if which == "vecmat":
        return [dbits(0.0 + f(v.tolist(), M[:, k].tolist())) for k in range(M.shape[1])]
    return [dbits(0.0 + f(M[r].tolist(), v.tolist())) for r in range(M.shape[0])]


def by_kernel() -> dict[str, list[list[int]]]:
    found = {}
    for kernel in KERNELS:
        env = dict(os.environ, OPENBLAS_CORETYPE=kernel)
        text = subprocess.run([sys.executable, __file__, "--dump"], env=env, check=True, capture_output=True).stdout
        found[kernel] = json.loads(text)
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "gemv_fixtures.h"))
    ap.add_argument("--dump", action="store_true", help="print numpy's results as JSON (one kernel)")
    args = ap.parse_args()
    if args.dump:
        json.dump(numpy_results(), sys.stdout)
        return

    found = by_kernel()
    all_cases = list(cases())
    plain_bits, fma_bits, n_values = [], [], 0
    for i, (which, kind, rows, cols, M, v) in enumerate(all_cases):
        p = formula(which, M, v, plain)
        plain_bits += p
        fma_bits += formula(which, M, v, fused)
        n_values += len(p)
        is_dot = cols == 1 if which == "vecmat" else rows == 1
        kernels = PLAIN_DOT_KERNELS if is_dot else KERNELS if which == "vecmat" else PLAIN_MATVEC_KERNELS
        for k in kernels:
            assert found[k][i] == p, (which, k, kind, rows, cols, M.tolist(), v.tolist())
        if which == "matvec" and not is_dot:
            hw = formula(which, M, v, haswell_matvec)
            assert found["Haswell"][i] == hw and found["Zen"][i] == hw, (kind, rows, cols)
    plain_differs = sum(a != b for a, b in zip(plain_bits, fma_bits))
    print(
        f"{len(all_cases)} cases, {n_values} values: numpy == PLAIN for np.dot(v, M) under {', '.join(KERNELS)}, "
        f"np.dot(M, v) under {', '.join(PLAIN_MATVEC_KERNELS)} and the ddot cases under "
        f"{', '.join(PLAIN_DOT_KERNELS)}; Haswell/Zen np.dot(M, v) == fma(M2 v2, fma(M0 v0, M1 v1)); FMA differs "
        f"from PLAIN in {plain_differs} values"
    )

    out = Out()
    out("/* gemv_fixtures.h: GENERATED by tests/c/gen_gemv_fixtures.py; do not edit.")
    out(f" * numpy {np.__version__}, Python {sys.version.split()[0]}. Doubles are uint64 bit patterns. */")
    out("#ifndef MDV_GEMV_FIXTURES_H")
    out("#define MDV_GEMV_FIXTURES_H")
    out()
    out("#include <stdint.h>")
    out()
    out("/* Inputs: make_array(kind, FXG_POOL) for each kind 0..FXG_KINDS-1, consumed in order: the FXG_VECMAT")
    out(" * shapes (rows, cols) of np.dot(v, M), then the FXG_MATVEC shapes of np.dot(M, v), FXG_CASES cases each,")
    out(" * a case M (rows * cols, C order) then v (rows for vecmat, cols for matvec). */")
    out(f"#define FXG_KINDS {len(KINDS)}")
    out(f"#define FXG_CASES {CASES}")
    out(f"#define FXG_POOL {POOL}")
    out(f"#define FXG_N_SHAPES {len(VECMAT)}")
    out.arr("int", "fxg_vecmat", [len(VECMAT), 2], [x for s in VECMAT for x in s], str, 2)
    out.arr("int", "fxg_matvec", [len(MATVEC), 2], [x for s in MATVEC for x in s], str, 2)
    out()
    out("/* The outputs of every case in order: numpy's (PLAIN: left to right from 0.0, no FMA; numpy under the")
    out(f" * kernels {', '.join(KERNELS)} for vecmat, {', '.join(PLAIN_MATVEC_KERNELS)} for matvec,")
    out(f" * {', '.join(PLAIN_DOT_KERNELS)} for a column M in vecmat or a row M in matvec: numpy's ddot), and")
    out(" * FMA's (fma() left to right from 0.0, computed exactly). */")
    out(f"#define FXG_N_VALUES {n_values}")
    out.arr("uint64_t", "fxg_plain", [n_values], plain_bits, u64, 4)
    out.arr("uint64_t", "fxg_fma", [n_values], fma_bits, u64, 4)
    out()
    out("#endif /* MDV_GEMV_FIXTURES_H */")
    with open(args.out, "w") as f:
        f.write("\n".join(out.lines) + "\n")
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
