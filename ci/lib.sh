# Shared settings for the ci/ scripts (sourced, not run). Each stage script runs from the repo root.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
VENV=$ROOT/.venv-ci                    # the requirements venv (gitignored: /.venv*/)
PYTHON=${PYTHON:-python3}              # the interpreter the venvs are made from
OUT=$ROOT/build-ci-out                 # logs and reports a run leaves behind (gitignored: /build*/)
export MESON_TESTTHREADS=${MESON_TESTTHREADS:-2}   # CI machines have 2 cores
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
mkdir -p "$OUT"

# Put the requirements venv first on PATH: meson asks that Python where mujoco is.
use_venv() {
  if [[ ! -x $VENV/bin/python ]]; then
    echo "ci: $VENV is missing; run the venv stage first (bash ci/venv.sh)" >&2
    exit 1
  fi
  export PATH=$VENV/bin:$PATH
}

# Configure build dir $1 from scratch with the remaining meson options (a stale dir is wiped).
fresh_setup() {
  local dir=$1; shift
  if [[ -d $dir ]]; then rm -rf "$dir"; fi
  meson setup "$dir" "$@"
}

# Print the libmdvec the test stage built (in build, or build-ci when .ci/run is tried by hand); exit
# when there is none. Usage: lib=$(test_stage_lib NAME), NAME the calling stage for the message.
test_stage_lib() {
  local build=${MDVEC_CI_BUILD:-build}
  if [[ ${CI:-} != true && -d $ROOT/build-ci ]]; then build=build-ci; fi
  local libs=("$ROOT/$build"/libmdvec/libmdvec.so.*.*.*)
  if [[ ! -f ${libs[0]} ]]; then
    echo "$1: no libmdvec in $build (the test stage builds it)" >&2
    exit 1
  fi
  echo "${libs[0]}"
}
