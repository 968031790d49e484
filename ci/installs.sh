#!/usr/bin/env bash
# Stage installs: the README's test command (meson setup BUILD && ninja -C BUILD test) in the installs a
# user plausibly has besides the all-extras one of the test stage, each in a fresh venv:
#   core     requirements.txt only (numpy, mujoco, pytest, meson, ninja): the extras' tests skip with
#            their reason
#   gymonly  requirements.txt + gymnasium without its [mujoco] extra (no imageio): Gymnasium's own MuJoCo
#            envs cannot run, so every test that compares with them skips, saying so
#   readme   the README's first command, word for word (python3 -m venv .venv && . .venv/bin/activate &&
#            pip install . && python -m mdvec demo), in a fresh clone of this checkout's HEAD
# Each must pass (skips allowed, with -rs printing why); pip's cache keeps a rerun's downloads small.
source "$(dirname "$0")/lib.sh"
rc=0
first=$(python3 - <<'PY'
import sys
sys.path.insert(0, "ci")
import readme  # its own parsers: the README's blocks and their commands, as ci/readme.py lists them

body = next(body for lang, body, _ in readme.fenced_blocks(open("README.md").read()) if lang == "sh")
print(readme.commands(body)[0])
PY
)
clone=$OUT/readme-clone
rm -rf "$clone"
git clone -q "$ROOT" "$clone"
echo "--- installs: readme: in a fresh clone of HEAD: $first"
if (cd "$clone" && env -u VIRTUAL_ENV bash -euo pipefail -c "$first"); then
  echo "--- installs: readme: PASS"
else
  echo "--- installs: readme: FAIL"
  rc=1
fi
rm -rf "$clone"
for name in core gymonly; do
  v=$ROOT/.venv-ci-$name
  rm -rf "$v" "$ROOT/build-ci-$name"
  "$PYTHON" -m venv "$v"
  extra=()
  [[ $name == gymonly ]] && extra=(gymnasium)
  "$v/bin/python" -m pip install -q -c ci/constraints.txt -r requirements.txt "${extra[@]}"
  echo "--- installs: $name: $("$v/bin/python" -m pip list 2>/dev/null | grep -ciE '^(gymnasium|imageio|torch|stable.baselines3) ') of gymnasium/imageio/torch/stable-baselines3 installed"
  if (export PATH=$v/bin:$PATH; meson setup "$ROOT/build-ci-$name" >/dev/null && ninja -C "$ROOT/build-ci-$name" test); then
    echo "--- installs: $name: PASS"
  else
    echo "--- installs: $name: FAIL"
    rc=1
  fi
  python3 ci/testlog.py "$ROOT/build-ci-$name/meson-logs/testlog.json" --closing 2>/dev/null || true
done
exit $rc
