#!/usr/bin/env bash
# Stage stacks: the equality suite on the other numpy/Gymnasium stacks users have, against the library the
# test stage built (the test stage itself runs the newest: numpy and Gymnasium as pip resolves them today).
#   oldest   numpy 2.1.0 (NUMPY_FLOOR in python/mdvec/vecenv.py) + gymnasium[mujoco] 1.2.2 (ray[rllib]'s pin):
#            the quick contract (100% or the stage fails) and the whole Python suite (torch/SB3 absent:
#            their tests skip with the reason)
#   numpy1   numpy 1.26.4 (what mujoco 4.0.0 and Gymnasium 1.2.2 install with): the Gymnasium tasks are
#            refused by name (never silently unequal) and the duck's contract is 100%
# Each venv is made fresh (.venv-ci-<name>); pip's cache keeps the downloads of a rerun small.
source "$(dirname "$0")/lib.sh"
export MDVEC_LIB=$(test_stage_lib stacks) PYTHONPATH=$ROOT/python
[[ -f $MDVEC_LIB ]] || exit 1

make_venv() {  # make_venv NAME REQUIREMENT...
  local v=$ROOT/.venv-ci-$1; shift
  rm -rf "$v"
  "$PYTHON" -m venv "$v"
  "$v/bin/python" -m pip install -q "$@"
  "$v/bin/python" -c 'import numpy, gymnasium; print("stacks:", "numpy", numpy.__version__, "gymnasium", gymnasium.__version__)'
}

echo "--- stacks: oldest supported (numpy 2.1.0, gymnasium 1.2.2)"
make_venv oldest mujoco==4.0.0 numpy==2.1.0 "gymnasium[mujoco]==1.2.2" pytest
py=$ROOT/.venv-ci-oldest/bin/python
"$py" -m mdvec contract --quick --json "$OUT/contract-oldest.json"
"$py" -m pytest -q -p no:cacheprovider tests/py

echo "--- stacks: numpy 1.26.4 (refused for the Gymnasium tasks)"
make_venv numpy1 mujoco==4.0.0 numpy==1.26.4 "gymnasium[mujoco]==1.2.2"
py=$ROOT/.venv-ci-numpy1/bin/python
"$py" -m mdvec contract --quick --task duck --json "$OUT/contract-numpy1.json"
"$py" - <<'PY'
import mdvec

try:
    mdvec.VecEnv(2, task="Hopper-v5")
except mdvec.MdvecError as exc:
    assert "numpy >= 2.1" in str(exc) and "1.26.4" in str(exc), exc
    print("stacks: numpy 1.26.4 refuses Hopper-v5:", exc)
else:
    raise SystemExit("stacks: numpy 1.26.4 ran Hopper-v5 although it cannot be equal there")
PY
