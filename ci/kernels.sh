#!/usr/bin/env bash
# Stage kernels: equality under every OpenBLAS kernel this CPU runs. numpy's OpenBLAS picks its ddot
# kernel per CPU (OPENBLAS_CORETYPE forces one); for each of Haswell, SkylakeX, Cooperlake,
# SapphireRapids, Zen, Sandybridge, Nehalem and Prescott, once per kernel OpenBLAS really runs, the quick
# contract and the equality test modules run on the library the test stage built (ci/kernels.py).
# Report: build-ci-out/kernels.json (+ contract-<kernel>.json).
source "$(dirname "$0")/lib.sh"
use_venv
BUILD=${MDVEC_CI_BUILD:-build}
if [[ ${CI:-} != true && -d build-ci ]]; then BUILD=build-ci; fi
libs=("$ROOT/$BUILD"/libmdvec/libmdvec.so.*.*.*)
lib=${libs[0]}
[[ -f $lib ]] || { echo "kernels: no libmdvec in $BUILD (the test stage builds it)" >&2; exit 1; }
MDVEC_LIB=$lib python ci/kernels.py --out "$OUT/kernels.json" ${KERNELS:+--kernels "$KERNELS"}
