#!/usr/bin/env bash
# Stage kernels: equality under every OpenBLAS kernel this CPU runs. numpy's OpenBLAS picks its ddot
# kernel per CPU (OPENBLAS_CORETYPE forces one); for each of Haswell, SkylakeX, Cooperlake,
# SapphireRapids, Zen, Sandybridge, Nehalem and Prescott, once per kernel OpenBLAS really runs, the quick
# contract and the equality test modules run on the library the test stage built (ci/kernels.py).
# Report: build-ci-out/kernels.json (+ contract-<kernel>.json).
source "$(dirname "$0")/lib.sh"
use_venv
lib=$(test_stage_lib kernels) || exit 1
MDVEC_LIB=$lib python ci/kernels.py --out "$OUT/kernels.json" ${KERNELS:+--kernels "$KERNELS"}
