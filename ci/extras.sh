#!/usr/bin/env bash
# Stage extras: the wheel stage's venv (.venv-ci-wheel, mdvec installed from the built wheel, then
# "mdvec[gymnasium]" from the wheel file; that stage checked import mdvec.gym's ImportError before it)
# takes `pip install "mdvec[gymnasium]"` the way a user adds the extra (the installed wheel's metadata
# says what it pulls in; torch, if it does, stays on ci/constraints.txt's pin), then, from another
# directory: `import mdvec.gym`, one env through gymnasium.make and a vector env through
# gymnasium.make_vec, on the C backend; then the `sb3` extra (torch==2.13.0 installed first) and an SB3
# VecEnv (mdvec.sb3.make_vec_env); then the `dm-control` extra and a Control Suite vector env.
source "$(dirname "$0")/lib.sh"
WVENV=$ROOT/.venv-ci-wheel
py=$WVENV/bin/python
[[ -x $py ]] || { echo "extras: $WVENV is missing; the wheel stage makes it (bash ci/wheel.sh)" >&2; exit 1; }
"$py" - <<'PY'
from importlib.metadata import metadata
extras = metadata("mdvec").get_all("Provides-Extra") or []
print("mdvec", metadata("mdvec")["Version"], "declares extras:", extras)
if "gymnasium" not in extras:
    raise SystemExit("extras: the installed mdvec declares no 'gymnasium' extra ([project.optional-dependencies] in pyproject.toml)")
PY
elsewhere=$(mktemp -d)
trap 'rm -rf "$elsewhere"' EXIT
cd "$elsewhere"   # nothing of the source tree on sys.path from here
"$py" -m pip install -c "$ROOT/ci/constraints.txt" "mdvec[gymnasium]"
"$py" - <<'PY'
import gymnasium
import numpy as np

import mdvec
import mdvec.gym

print("gymnasium", gymnasium.__version__, "; mdvec ids:", sorted(i for i in gymnasium.registry if i.startswith("mdvec/")))
env = gymnasium.make("mdvec/DuckBalance-v0")
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(np.zeros(env.action_space.shape, env.action_space.dtype))
print("make: obs", obs.shape, obs.dtype, "reward", reward, "terminated", terminated, "truncated", truncated)
env.close()
envs = gymnasium.make_vec("mdvec/DuckBalance-v0", num_envs=4, vectorization_mode="vector_entry_point")
obs, info = envs.reset(seed=0)
obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
print("make_vec:", type(envs).__name__, "obs", obs.shape, "reward", reward.shape)
envs.close()
PY

# The sb3 extra: torch==2.13.0 first, on its own (the CPU build here; see ci/constraints.txt), then
# "mdvec[sb3]", and an SB3 VecEnv on the C envs.
cd "$ROOT"
"$py" -m pip install -c "$ROOT/ci/constraints.txt" torch==2.13.0
"$py" -m pip install -c "$ROOT/ci/constraints.txt" "mdvec[sb3]"
cd "$elsewhere"
"$py" - <<'PY'
import numpy as np
import stable_baselines3
import torch

from mdvec.sb3 import make_vec_env

print("stable-baselines3", stable_baselines3.__version__, "torch", torch.__version__)
venv = make_vec_env(4, seed=0)
obs = venv.reset()
obs, reward, done, infos = venv.step(np.zeros((venv.num_envs, *venv.action_space.shape), np.float32))
print("mdvec.sb3.make_vec_env(4): obs", obs.shape, "reward", reward.shape, reward.dtype)
venv.close()
PY

# The dm-control extra: dm_control itself (the Control Suite tasks read their XML from it), and one of them.
"$py" -m pip install -c "$ROOT/ci/constraints.txt" "mdvec[dm-control]"
"$py" - <<'PY'
import numpy as np

import mdvec

envs = mdvec.make("cheetah-run", num_envs=2, seed=0)
obs, info = envs.reset(seed=0)
obs, reward, terminated, truncated, info = envs.step(np.zeros(envs.action_space.shape))
print("mdvec.make('cheetah-run', 2): obs parts", sorted(obs), "reward", reward, "step_type", info["timestep.step_type"])
envs.close()
PY

# README.md's and docs/'s blocks and commands again, now with the extras: every one must run (--all).
"$py" "$ROOT/ci/readme.py" --all
