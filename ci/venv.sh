#!/usr/bin/env bash
# Stage venv: a fresh venv with the requirements (mujoco==4.0.0, numpy, pytest, meson, ninja, meson-python)
# and the optional extras, so that the Gymnasium, SB3 and Hopper tests run too: torch==2.13.0 first, on
# its own (ci/constraints.txt keeps every later install on it), then gymnasium[mujoco],
# stable-baselines3 and matplotlib (ci/requirements-extras.txt).
source "$(dirname "$0")/lib.sh"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -c ci/constraints.txt)
"${pip[@]}" torch==2.13.0
"${pip[@]}" -r requirements.txt -r ci/requirements-extras.txt
"$VENV/bin/python" -m pip list
"$VENV/bin/python" - <<'PY'
import torch
print("torch", torch.__version__, "CUDA build" if torch.version.cuda else "CPU-only build")
PY
