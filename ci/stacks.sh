#!/usr/bin/env bash
# Stage stacks: the equality suite on the other numpy/Gymnasium/MuJoCo stacks users have, against the library
# the test stage built (the test stage itself runs the newest: numpy and Gymnasium as pip resolves them
# today), except mj317, which builds its own against its own MuJoCo.
#   oldest   numpy 2.1.0 (NUMPY_FLOOR in python/mdvec/vecenv.py) + gymnasium[mujoco] 1.2.2 (ray[rllib]'s pin):
#            the quick contract (100% or the stage fails) and the whole Python suite (torch/SB3 absent:
#            their tests skip with the reason)
#   numpy1   numpy 1.26.4 (what mujoco 4.0.0 and Gymnasium 1.2.2 install with): the Gymnasium tasks are
#            refused by name (never silently unequal) and the duck's contract is 100%
#   mj317    mujoco 3.17.0 + dm_control 1.0.50 unmodified (its sizes table needs no shim there): mdvec built
#            against that wheel's libmujoco in build-ci-mj317, the quick contract of the Control Suite tasks
#            (and Hopper-v5, whose XML loads through the guarded VFS mounts), test_dm_control and test_dm_shim
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

echo "--- stacks: mujoco 3.17.0 + dm_control 1.0.50 unmodified (mdvec built against that wheel)"
make_venv mj317 mujoco==3.17.0 dm-control==1.0.50 "gymnasium[mujoco]" pytest meson ninja
v=$ROOT/.venv-ci-mj317
py=$v/bin/python
"$py" -c 'import mujoco, dm_control; from importlib.metadata import version as v
assert mujoco.__version__ == "3.17.0" and v("dm_control") == "1.0.50", (mujoco.__version__, v("dm_control"))
print("stacks: mujoco", mujoco.__version__, "dm_control", v("dm_control"))'
(export PATH=$v/bin:$PATH && fresh_setup "$ROOT/build-ci-mj317" >/dev/null && meson compile -C "$ROOT/build-ci-mj317" mdvec)
libs=("$ROOT"/build-ci-mj317/libmdvec/libmdvec.so.*.*.*)
export MDVEC_LIB=${libs[0]} MUJOCO_GL=disable
version=$("$py" -m mdvec --version)  # "mdvec 1.4.0; libmdvec 1.4.0 (<path>), MuJoCo 3.17.0"
echo "stacks: $version"
[[ $version == *"MuJoCo 3.17.0" ]] || exit 1
dm=$("$py" -c 'from mdvec.vecenv import task_meta, task_names
print(",".join(t for t in task_names() if (task_meta(t, "reference") or "").startswith("mdvec.reference.dm_control:")))')
[[ -n $dm ]] || { echo "stacks: no Control Suite task in $MDVEC_LIB" >&2; exit 1; }
"$py" - <<'PY'  # unmodified: dm_control 1.0.50's size table names nothing MuJoCo 3.17.0 lacks
from mdvec.reference.dm_control import drop_stale_sizes

dropped = drop_stale_sizes()
assert dropped == (), f"the shim dropped {dropped} on MuJoCo 3.17.0: dm_control would not be unmodified"
print("stacks: drop_stale_sizes() drops nothing on MuJoCo 3.17.0")
PY
"$py" -m mdvec contract --quick --task "$dm,Hopper-v5" --json "$OUT/contract-mj317.json"
"$py" - "$OUT/contract-mj317.json" "$dm,Hopper-v5" <<'PY'  # every task ran (none skipped) and was equal
import json
import sys

report = json.load(open(sys.argv[1]))
want, cases = set(sys.argv[2].split(",")), report["cases"]
bad = [c["name"] for c in cases if c["skipped"] or not c["passed"]]
assert not bad and {c["task"] for c in cases} == want and report["total"]["identical"], (bad, want)
print(f"stacks: mujoco 3.17.0: {len(cases)} contract cases over {len(want)} tasks, all bit-identical")
PY
"$py" -m pytest -q -p no:cacheprovider tests/py/test_dm_control.py tests/py/test_dm_shim.py
