#!/usr/bin/env bash
# Stage outoftree: the README's test command for a build folder outside the source tree, a normal meson
# layout (`meson setup /elsewhere/build`). The source (the working tree's files, as git lists them: no
# build*/ folder, so nothing can find the test stage's build instead) is copied to a temporary folder,
# configured into a build folder beside it, not under it, and `ninja -C <that folder> test` runs the C
# suites and, of the Python suite, the modules that find files by path (PATH_MODULES: headers, models,
# benchmarks, docs, ci scripts, the layering rules); the test stage runs the whole suite, and a module
# that does not read paths cannot tell where the build folder is. The real duck of ../shared is passed as
# MDVEC_REAL_DUCK when there is one (the copy has no ../shared). The temporary folder is removed; meson's
# log is kept as build-ci-out/testlog-outoftree.{txt,json}.
source "$(dirname "$0")/lib.sh"
use_venv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src BUILD=$tmp/build
mkdir "$src"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [[ -e $f ]] && printf '%s\0' "$f"   # a file deleted but not yet committed is not copied
done | tar -c --null -T - | tar -x -C "$src"
duck=$ROOT/../shared/models/open_duck_mini_v2
if [[ -z ${MDVEC_REAL_DUCK:-} && -d $duck ]]; then export MDVEC_REAL_DUCK=$duck; fi
echo "outoftree: source copied to $src; meson setup $BUILD (outside it)"
rc=0
PATH_MODULES="test_abi_layout or test_bench or test_docs or test_layering or test_model or test_meta or test_ci_kernels or test_ci_testlog"
echo "outoftree: the C suites, and of pytest: -k '$PATH_MODULES'"
(cd "$src" && meson setup "$BUILD" && PYTEST_ADDOPTS="-k '$PATH_MODULES'" ninja -C "$BUILD" test) || rc=$?
python ci/testlog.py "$BUILD/meson-logs/testlog.json" || { [[ $rc -ne 0 ]] || rc=1; }
for f in testlog.txt testlog.json; do
  [[ -f $BUILD/meson-logs/$f ]] && cp "$BUILD/meson-logs/$f" "$OUT/${f/testlog/testlog-outoftree}"
done
exit $rc
