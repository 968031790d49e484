#!/usr/bin/env bash
# Stage fuzz: the libFuzzer targets of tests/fuzz (README there), built with clang, ASan and UBSan
# (-Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false) in build-fuzz, each run for
# FUZZ_SECONDS (60) from its committed corpus, after replaying the reproducers of open findings
# (tests/fuzz/findings/<target>/, each fails the stage while it reproduces). Prints the executions of
# each target (libFuzzer's stat::number_of_executed_units) and fails on any crash, sanitizer report,
# leak, timeout (an input running past FUZZ_TIMEOUT s), out-of-memory (RSS past 4 GiB, or one
# allocation past 1 GiB: a few envs never need that much) or broken invariant.
# The Gymnasium tasks need Gymnasium's assets and the Control Suite tasks dm_control's suite folder: meson
# finds both from the venv's python (tests/fuzz/meson.build compiles them in; MDVEC_GYM_ASSETS and
# MDVEC_DM_SUITE override them at run time); the line "fuzz.sh: task files" says which were found (a task
# whose files are missing is not fuzzed).
# Installs clang with apt-get when it is missing (CI runs as root on a fresh Debian-like machine).
#   FUZZ_SECONDS=600 bash ci/fuzz.sh          # longer runs
#   FUZZ_TARGETS="step config" bash ci/fuzz.sh   (targets: config reset_params step restore)
# The inputs each run adds are kept in build-fuzz/fuzz-<target>/ (not committed); a crash's input
# is written to build-ci-out/fuzz/, with the command that replays it.
source "$(dirname "$0")/lib.sh"
use_venv
SECONDS_PER_TARGET=${FUZZ_SECONDS:-60}
TIMEOUT=${FUZZ_TIMEOUT:-30}
TARGETS=(${FUZZ_TARGETS:-config reset_params step restore})
BUILD=build-fuzz

# clang and libFuzzer's runtime (Debian ships it in libclang-rt-<major>-dev, only recommended by clang)
have_libfuzzer() {
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
    > "$OUT/fuzz-probe.c"
  clang -fsanitize=fuzzer,address,undefined "$OUT/fuzz-probe.c" -o "$OUT/fuzz-probe" 2>/dev/null
}
apt_install() {
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "fuzz.sh: $* missing and no root apt-get to install it; install clang with libFuzzer" >&2
    exit 1
  fi
  echo "fuzz.sh: apt-get install $*"
  if [[ -z ${FUZZ_APT_UPDATED:-} ]]; then apt-get update -qq; FUZZ_APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
if ! command -v clang >/dev/null; then
  apt_install clang
fi
if ! have_libfuzzer; then
  major=$(clang -dumpversion | cut -d. -f1)
  apt_install "libclang-rt-$major-dev" || true
  have_libfuzzer || { echo "fuzz.sh: clang $(clang -dumpversion) cannot link -fsanitize=fuzzer" >&2; exit 1; }
fi
echo "fuzz.sh: $(clang --version | head -n1)"

export CC=clang
fresh_setup "$BUILD" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized \
  -Dpython_tests=false
ninja -C "$BUILD" fuzz   # the targets only (alias in tests/fuzz/meson.build)
python - <<'PY'
import importlib.util, os
def found(pkg, *sub):
    s = importlib.util.find_spec(pkg)
    d = os.path.join(list(s.submodule_search_locations)[0], *sub) if s and s.submodule_search_locations else ""
    return d if d and os.path.isdir(d) else f"not found ({pkg} not installed: its tasks are not fuzzed)"
print("fuzz.sh: task files: Gymnasium's assets", found("gymnasium", "envs", "mujoco", "assets"),
      "| dm_control's suite", found("dm_control", "suite"))
PY

# Reports are fatal; the suppression file names libmujoco's prebuilt code only (none so far).
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1:print_summary=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:print_summary=1
export LSAN_OPTIONS=suppressions=$ROOT/ci/lsan.supp:print_suppressions=0

mkdir -p "$OUT/fuzz"
rm -f "$OUT"/fuzz/*
status=0
summary=()
for t in "${TARGETS[@]}"; do
  exe=$BUILD/tests/fuzz/fuzz_$t
  work=$BUILD/fuzz-$t
  log=$OUT/fuzz/fuzz-$t.log
  rm -rf "$work" && mkdir -p "$work"
  limits=(-timeout="$TIMEOUT" -rss_limit_mb=4096 -malloc_limit_mb=1024)
  echo

  # The open findings first, one process per input (the first failure would stop the others).
  open=0
  for input in tests/fuzz/findings/"$t"/*; do
    [[ -f $input ]] || continue
    if timeout --kill-after=30 $((4 * TIMEOUT)) "$exe" "${limits[@]}" -artifact_prefix="$OUT/fuzz/finding-$t-" "$input" \
      >"$OUT/fuzz/finding-$t-$(basename "$input").log" 2>&1; then
      echo "finding $input no longer reproduces: move it to tests/fuzz/corpus/$t/regress-$(basename "$input")"
    else
      echo "finding $input still reproduces (open: tests/fuzz/findings/README.md)"
      open=$((open + 1))
    fi
  done

  dirs=("$work" "tests/fuzz/corpus/$t")   # new inputs go into the first; the corpus is only read
  echo "--- fuzz_$t: ${SECONDS_PER_TARGET}s from ${dirs[1]}"
  rc=0
  timeout --kill-after=30 $((SECONDS_PER_TARGET + 4 * TIMEOUT + 120)) "$exe" "${dirs[@]}" "${limits[@]}" \
    -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 -print_final_stats=1 -artifact_prefix="$OUT/fuzz/$t-" \
    >"$log" 2>&1 || rc=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n1; }
  execs=$(stat number_of_executed_units) rate=$(stat average_exec_per_sec) rss=$(stat peak_rss_mb)
  grep -E '^#[0-9]+\s+(INITED|DONE)' "$log" | tail -n2 || true
  result=PASS
  if [[ $rc -ne 0 || -z $execs ]]; then
    result="FAIL (exit $rc)"
    status=1
    echo "fuzz_$t failed (exit $rc); the report:"
    grep -vE '^#[0-9]+\s|^INFO:|^\s+#[0-9]+ 0x[0-9a-f]+ in (fuzzer::|__libc_start|_start|main )' "$log" | tail -n 60
    for a in "$OUT"/fuzz/"$t"-*; do
      [[ -e $a ]] || continue
      echo "input: $a   replay: FUZZ_NO_CACHE=1 $exe $a"
    done
  fi
  echo "fuzz_$t: $result, ${execs:-?} executions (${rate:-?}/s), peak RSS ${rss:-?} MB"
  if ((open)); then status=1; result="$result, $open open finding(s)"; fi
  summary+=("$(printf '%-18s %12s %8s %8s  %s' "fuzz_$t" "${execs:-?}" "${rate:-?}" "${rss:-?}" "$result")")
done

echo
printf '%-18s %12s %8s %8s  %s\n' target executions exec/s "RSS MB" result
printf '%s\n' "${summary[@]}"
exit $status
