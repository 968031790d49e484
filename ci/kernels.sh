#!/usr/bin/env bash
# Stage kernels: equality under every OpenBLAS kernel this CPU runs. numpy's OpenBLAS picks its ddot
# kernel per CPU (OPENBLAS_CORETYPE forces one, even one the CPU cannot execute). For each of Haswell,
# SkylakeX, Cooperlake, SapphireRapids, Zen, Sandybridge, Nehalem and Prescott, ci/kernels.py first
# probes a fresh Python under it (dots of 1 to 4096 elements, 64x64 and 257x257 matrix products) and
# skips, printing why, a name whose probe dies of SIGILL or whose kernel needs CPU flags /proc/cpuinfo
# lacks (SkylakeX's AVX-512 on a CPU without it); then, once per kernel OpenBLAS really runs, the quick
# contract and the equality test modules run on the library the test stage built. Then numpy's dispatch
# levels, under OpenBLAS's own kernel: for each dispatch target this CPU has beyond numpy's baseline (numpy's
# runtime info; X86_V3 on an AVX2 CPU), the same checks once more with NPY_DISABLE_CPU_FEATURES set to it and
# every target after it, each setting probed first (one numpy refuses is skipped, saying why). Fails when a
# kernel or dispatch level that runs is unequal, a probe fails otherwise, or no kernel runs; a skipped one
# never counts as passed. DISPATCH=none (or a list of targets) narrows the dispatch runs.
# Report: build-ci-out/kernels.json (which kernels and dispatch levels ran, which were skipped and why;
# + contract-<kernel>.json, contract-dispatch-<target>.json).
source "$(dirname "$0")/lib.sh"
use_venv
lib=$(test_stage_lib kernels) || exit 1
MDVEC_LIB=$lib python ci/kernels.py --out "$OUT/kernels.json" ${KERNELS:+--kernels "$KERNELS"} \
  ${DISPATCH:+--dispatch "$DISPATCH"}
