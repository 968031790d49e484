#!/usr/bin/env bash
# Stage asan / tsan: the C suite rebuilt with sanitizers and run (the Python suite stays out: loading
# an ASan library into Python needs LD_PRELOAD). Usage: bash ci/sanitize.sh asan|tsan
#   The C suite is every meson test of suite 'c' (tests/meson.build c_tests, examples/c); each
#   tests/c/test_*.c must be one of them (a regression test left out of meson fails the stage).
#   asan: -Db_sanitize=address,undefined, leak checking on; halts on the first report.
#   tsan: -Db_sanitize=thread; tests/c/test_equality.c (1, 2, 4 threads) and test_pool.c are the
#         ones it is for. libmujoco is not instrumented; ci/tsan.supp may only name libmujoco.
source "$(dirname "$0")/lib.sh"
use_venv
kind=${1:?usage: sanitize.sh asan|tsan}
case $kind in
  asan) sanitize=address,undefined ;;
  tsan) sanitize=thread ;;
  *) echo "sanitize.sh: unknown kind $kind" >&2; exit 2 ;;
esac
BUILD=build-$kind
fresh_setup "$BUILD" -Db_sanitize=$sanitize -Dbuildtype=debugoptimized -Dpython_tests=false
ninja -C "$BUILD"

# Every report is fatal; the suppression files name libmujoco's prebuilt code only.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:print_summary=1
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1
export LSAN_OPTIONS=suppressions=$ROOT/ci/lsan.supp:print_suppressions=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/ci/tsan.supp:print_suppressions=1

run=()
if [[ $kind == tsan ]] && command -v setarch >/dev/null; then
  # Some kernels map memory where TSan's shadow layout does not expect it; no ASLR avoids that.
  run=(setarch "$(uname -m)" -R)
fi
# The C tests: every tests/c/test_<name>.c registered as test <name>; print what runs.
listed=$(meson test -C "$BUILD" --no-rebuild --list --suite c 2>/dev/null | sed 's/.*[:/] *//')
missing=()
for f in tests/c/test_*.c; do
  name=$(basename "$f" .c)
  grep -qx "${name#test_}" <<<"$listed" || missing+=("$f")
done
if ((${#missing[@]})); then
  echo "sanitize.sh: not meson tests of suite c (add them to c_tests in tests/meson.build): ${missing[*]}" >&2
  exit 1
fi
echo "C tests under $kind: $(tr '\n' ' ' <<<"$listed")"

rc=0
"${run[@]}" meson test -C "$BUILD" --no-rebuild --suite c --print-errorlogs --timeout-multiplier 3 || rc=$?
python ci/testlog.py "$BUILD/meson-logs/testlog.json" --tail 5 || { [[ $rc -ne 0 ]] || rc=1; }
cp "$BUILD/meson-logs/testlog.txt" "$OUT/testlog-$kind.txt" 2>/dev/null || true
exit $rc
