#!/usr/bin/env bash
# Stage contract: the equality report (C env vs Python reference) in quick mode, on the library that
# the test stage built, written as JSON to build-ci-out/contract.json.
source "$(dirname "$0")/lib.sh"
use_venv
lib=$(test_stage_lib contract) || exit 1
MDVEC_LIB=$lib PYTHONPATH=$ROOT/python python -m mdvec contract --quick --json "$OUT/contract.json"
