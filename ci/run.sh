#!/usr/bin/env bash
# The CI run (`bash .ci/run`): each stage is one script in ci/, run under a time limit; a failed stage
# does not stop the later ones that can still run. Ends with a table of stages and times, and the line
# 'stages: N passed, N failed'. Exit status 0 only when every stage passed.
#
#   venv      fresh .venv-ci: torch==2.13.0 (CPU), requirements.txt, extras ci/venv.sh
#   lint      ruff check, ruff format --check, mypy, clang-format --dry-run --Werror  ci/lint.sh
#   test      meson setup build && ninja -C build test (the README's)      ci/test.sh
#   outoftree the same for a build folder outside the source tree           ci/outoftree.sh
#   contract  python -m mdvec contract --quick --json                      ci/contract.sh
#   kernels   contract + equality tests under each OPENBLAS_CORETYPE       ci/kernels.sh
#   stacks    oldest numpy + Gymnasium 1.2.2 suite; numpy 1.x refused      ci/stacks.sh
#   installs  the README's first command in a fresh clone; its test command in a core-only and a
#             gymnasium-without-[mujoco] venv                                ci/installs.sh
#   wheel     ci/build_wheel.sh (sdist + manylinux wheel); the wheel installed with no compiler on
#             PATH, demo, bench, contract --quick; examples/c built against the pip install  ci/wheel.sh
#   extras    pip install "mdvec[gymnasium]" there, gymnasium.make(_vec)   ci/extras.sh
#   install   meson install + examples/c/Makefile through pkg-config       ci/install.sh
#   asan      C suite with -Db_sanitize=address,undefined                  ci/sanitize.sh asan
#   tsan      C suite with -Db_sanitize=thread                             ci/sanitize.sh tsan
#   fuzz      libFuzzer targets (clang, ASan+UBSan), 60 s each             ci/fuzz.sh
#   rllib     own venv with ray[rllib] (gymnasium 1.2.2), 2-node Ray PPO   ci/rllib.sh
#
# Run one stage by hand: bash ci/<script> (after ci/venv.sh). Limits below keep the whole run
# inside CI's 90 minutes on 2 cores (docs/ci.md: the stage times measured, about 70-75 minutes in all).
set -u
cd "$(dirname "$0")/.." || exit 1
rm -f build-ci-out/testlog-test.json build-ci-out/testlog-outoftree.json   # a stale log must not speak for this run
mkdir -p build-ci-out
export PYTHONUNBUFFERED=1

names=() results=() times=()
passed=0 failed=0
run_start=$SECONDS

budget=${CI_BUDGET_S:-5100}   # the whole run stops starting stages past this (CI allows 5400 s)

stage() {  # stage NAME LIMIT_S SCRIPT [ARGS...]: run ci/SCRIPT, at most LIMIT_S and what the budget has left
  local name=$1 limit=$2; shift 2
  local left=$((budget - (SECONDS - run_start)))
  if ((left < 60)); then skip "$name" "out of time"; return 1; fi
  ((limit <= left)) || limit=$left
  local t0=$SECONDS rc=0
  echo
  echo "=================== stage $name: bash ci/$* (limit ${limit}s) ==================="
  timeout --kill-after=30 "$limit" bash "ci/$@" || rc=$?
  local dt=$((SECONDS - t0)) result=PASS
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then result="FAIL (timed out)"; elif [[ $rc -ne 0 ]]; then result="FAIL (exit $rc)"; fi
  echo "=================== stage $name: $result in ${dt}s ==================="
  names+=("$name") results+=("$result") times+=("$dt")
  if [[ $result == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  [[ $result == PASS ]]
}

skip() {  # skip NAME REASON
  echo; echo "=================== stage $1: SKIPPED ($2) ==================="
  names+=("$1") results+=("FAIL (skipped: $2)") times+=(0)
  failed=$((failed + 1))
}

echo "mdvec CI on $(uname -srm), $(nproc) cores, $(${PYTHON:-python3} --version 2>&1), $(gcc --version | head -n1)"
if stage venv 1200 venv.sh; then
  stage lint 300 lint.sh
  stage test 2400 test.sh
  stage outoftree 2400 outoftree.sh
  stage contract 600 contract.sh
  stage kernels 1500 kernels.sh
  stage stacks 900 stacks.sh
  stage installs 1200 installs.sh
  if stage wheel 900 wheel.sh; then
    stage extras 600 extras.sh
  else
    skip extras "no wheel venv"
  fi
  stage install 600 install.sh
  stage asan 1200 sanitize.sh asan
  stage tsan 1500 sanitize.sh tsan
  stage fuzz 900 fuzz.sh
else
  for s in lint test outoftree contract kernels stacks installs wheel extras install asan tsan fuzz; do skip "$s" "no venv"; done
fi
stage rllib 1200 rllib.sh   # its own venv (ray[rllib] pins gymnasium 1.2.2): runs without .venv-ci

echo
echo "=================== summary ==================="
printf '%-10s %-28s %8s\n' stage result seconds
for i in "${!names[@]}"; do
  printf '%-10s %-28s %8s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
done
printf '%-10s %-28s %8s\n' total "" "$((SECONDS - run_start))"
echo "logs and reports: build-ci-out/ (contract.json, meson test logs)"
echo
if [[ -f build-ci-out/testlog-test.json ]]; then  # the test stage's suites: pytest's line, then meson's
  echo "test stage:"
  python3 ci/testlog.py build-ci-out/testlog-test.json --closing || true
else
  echo "test stage: no meson test log (build-ci-out/testlog-test.json)"
fi
if [[ -f build-ci-out/testlog-outoftree.json ]]; then  # the same suites, built outside the source tree
  echo "outoftree stage:"
  python3 ci/testlog.py build-ci-out/testlog-outoftree.json --closing || true
fi
echo "stages: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
