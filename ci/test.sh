#!/usr/bin/env bash
# Stage test: the README's test command, `meson setup build && ninja -C build test`, then a digest of
# meson's test log with the pytest output (so the suite's closing line is in the CI log).
source "$(dirname "$0")/lib.sh"
use_venv
BUILD=${MDVEC_CI_BUILD:-build}
if [[ ${CI:-} != true && -d $BUILD ]]; then
  BUILD=build-ci   # a developer's own build/ is left alone when .ci/run is tried by hand
fi
rm -rf "$BUILD"
rc=0
meson setup "$BUILD" && ninja -C "$BUILD" test || rc=$?
python ci/testlog.py "$BUILD/meson-logs/testlog.json" || { [[ $rc -ne 0 ]] || rc=1; }
[[ -f $BUILD/meson-logs/testlog.txt ]] && cp "$BUILD/meson-logs/testlog.txt" "$OUT/testlog-test.txt"
exit $rc
