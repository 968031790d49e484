#!/usr/bin/env bash
# Stage rllib: RLlib on mdvec (tests/py/test_rllib.py) in a venv of its own, .venv-ci-rllib, since
# ray[rllib] pins gymnasium==1.2.2: torch==2.13.0 first, on its own, then requirements.txt and
# ci/requirements-rllib.txt; a check that the package's extras resolve together (from pyproject.toml's
# requirement strings, without building the wheel); libmdvec built in build-ci-rllib against that venv;
# then the test: a two-node Ray cluster on 127.0.0.1 (ray.cluster_utils.Cluster), PPO with one EnvRunner
# on each node, the seed rule, and fault tolerance after a MuJoCo error. pytest runs under a time cap
# (RLLIB_TEST_LIMIT_S, default 900 s); each test bounds itself too and shuts the cluster down.
source "$(dirname "$0")/lib.sh"
RVENV=$ROOT/.venv-ci-rllib
BUILD=$ROOT/build-ci-rllib
limit=${RLLIB_TEST_LIMIT_S:-900}
rm -rf "$RVENV"
"$PYTHON" -m venv "$RVENV"
py=$RVENV/bin/python
pip=("$py" -m pip install -c ci/constraints.txt)
"${pip[@]}" torch==2.13.0
"${pip[@]}" -r requirements.txt -r ci/requirements-rllib.txt
"$py" -m pip check
"$py" - <<'PY'
import gymnasium, ray, torch
print("ray", ray.__version__, "gymnasium", gymnasium.__version__, "torch", torch.__version__,
      "(CUDA build)" if torch.version.cuda else "(CPU-only build)")
PY

# The extras resolve together: mdvec's dependencies and every optional extra at once (pip --dry-run).
mapfile -t reqs < <("$py" - <<'PY'
import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = p.get("optional-dependencies", {})
reqs = list(p["dependencies"]) + [r for rs in extras.values() for r in rs]
if "rllib" not in extras:  # until pyproject.toml declares it: the CI's own line stands in
    import sys
    print("note: pyproject.toml declares no 'rllib' extra; using ci/requirements-rllib.txt", file=sys.stderr)
    reqs += [l.strip() for l in open("ci/requirements-rllib.txt") if l.strip() and not l.startswith("#")]
print("\n".join(dict.fromkeys(reqs)))
PY
)
echo "extras resolve together: ${reqs[*]}"
"$py" -m pip install -c ci/constraints.txt --dry-run --quiet torch==2.13.0 "${reqs[@]}"

# libmdvec against this venv's mujoco (meson asks the first python on PATH).
export PATH=$RVENV/bin:$PATH
fresh_setup "$BUILD" -Dpython_tests=false
meson compile -C "$BUILD" mdvec   # the library alone (its target, with the .so links)

export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0   # before ray is imported: every node on the loopback address
export MDVEC_LIB=$BUILD/libmdvec/libmdvec.so PYTHONPATH=$ROOT/python
rc=0
timeout --kill-after=30 "$limit" "$py" -m pytest -v -p no:cacheprovider tests/py/test_rllib.py \
  --junitxml="$OUT/rllib-junit.xml" || rc=$?
if [[ $rc -eq 124 || $rc -eq 137 ]]; then echo "rllib: pytest ran past ${limit} s" >&2; fi
# Whatever happened: no Ray process of this stage may outlive it (the tests shut their cluster down;
# this catches a killed pytest). Only processes started from this venv's interpreter or its ray package.
for pid in $(pgrep -f "$RVENV/" || true); do
  [[ $pid != $$ ]] && kill "$pid" 2>/dev/null || true
done
exit $rc
