#!/usr/bin/env bash
# Stage lint: fails on any finding. ruff (lint and format, configured in pyproject.toml) over the Python of
# python/, tests/, bench/, ci/, examples/ and libmdvec/models/; mypy over python/mdvec; clang-format
# (.clang-format) over the C of libmdvec/, tests/, bench/ and examples/, the generated tests/c/*fixtures*.h left out.
source "$(dirname "$0")/lib.sh"
use_venv
python -m pip install -q -c ci/constraints.txt -r ci/requirements-lint.txt
rc=0
run() { echo "+ $*"; "$@" || rc=1; }
run ruff check
run ruff format --check
run mypy
mapfile -t cfiles < <(git ls-files '*.c' '*.h' | grep -E '^(libmdvec|tests|bench|examples)/' | grep -v -E '^tests/c/.*fixtures.*\.h$')
run clang-format --dry-run --Werror "${cfiles[@]}"
echo "lint: ${#cfiles[@]} C files checked"
exit $rc
