#!/usr/bin/env bash
# Stage test: the README's test command, `meson setup build && ninja -C build test` (pytest's output
# streams, its closing line included), then a digest of meson's test log; the log is kept as
# build-ci-out/testlog-test.{txt,json} (ci/run.sh ends the run with its closing lines).
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
for f in testlog.txt testlog.json; do  # testlog-test.json: ci/run.sh's closing lines come from it
  [[ -f $BUILD/meson-logs/$f ]] && cp "$BUILD/meson-logs/$f" "$OUT/${f/testlog/testlog-test}"
done
exit $rc
