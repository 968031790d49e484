#!/usr/bin/env bash
# Stage venv: a fresh venv with the requirements (mujoco==4.0.0, numpy, pytest, meson, ninja, meson-python).
source "$(dirname "$0")/lib.sh"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -r requirements.txt
"$VENV/bin/python" -m pip list
