#!/usr/bin/env bash
# Stage contract: the equality report (C env vs Python reference) in quick mode, on the library that
# the test stage built, written as JSON to build-ci-out/contract.json.
source "$(dirname "$0")/lib.sh"
use_venv
BUILD=${MDVEC_CI_BUILD:-build}
if [[ ${CI:-} != true && -d build-ci ]]; then BUILD=build-ci; fi
libs=("$ROOT/$BUILD"/libmdvec/libmdvec.so.*.*.*)
lib=${libs[0]}
[[ -f $lib ]] || { echo "contract: no libmdvec in $BUILD (the test stage builds it)" >&2; exit 1; }
MDVEC_LIB=$lib PYTHONPATH=$ROOT/python python -m mdvec contract --quick --json "$OUT/contract.json"
