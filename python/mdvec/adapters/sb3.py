"""mdvec's C envs as a Stable-Baselines3 ``VecEnv`` (needs ``pip install 'mdvec[sb3]'``).

``make_vec_env(num_envs, seed=0, threads=None, **task_options)`` returns ``MdvecSB3VecEnv``: SB3's
vector API on libmdvec with SAME_STEP autoreset, results equal to SB3's ``DummyVecEnv`` over the
reference single env (``gymnasium.make("mdvec/DuckBalance-v0", backend="reference", seed=seed + i)``)
bit for bit: observations (float32), rewards (float32, as DummyVecEnv stores them), dones, and
infos (the task's info values as Python int/bool/float, ``TimeLimit.truncated``, and
``terminal_observation`` for finished envs). Works under VecMonitor and VecNormalize.

A Control Suite task (``task="cheetah-run"``) gives, as ``DummyVecEnv`` over Shimmy's env, a Dict observation
space (Box(-inf, inf, shape, float64) per entry of dm_control's observation, keys sorted) and observations
{key: (N, *shape) float64}, each finished env's ``terminal_observation`` a dict; its action space is Box(float64).
SB3's ``MultiInputPolicy`` takes such a Dict, but not an entry of shape () (walker's "height", humanoid's
"head_height", finger's "dist_to_target", fish's "upright": its Flatten layer needs a dimension), so for those,
and for ``MlpPolicy``, pass ``flat_observation=True``: one float64 vector (N, obs_dim) in dm_control's
flatten_observation order (what ``python -m mdvec train`` does).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env import VecEnv as _SB3VecEnv
except ImportError as exc:  # pragma: no cover - exercised in a venv without stable-baselines3
    raise ImportError(
        "mdvec.sb3 needs stable-baselines3, which is not installed: install a CPU torch first "
        "(e.g. pip install torch==2.13.0, or a build from PyTorch's CPU wheel index), then "
        "pip install 'mdvec[sb3]'"
    ) from exc

from .._calls import CallLock, NoCopy, close_envs
from .._shared import RESET, STEP, as_actions, check_seed, field_dtype, info_keys, task_frames
from ..vecenv import VecEnv
from ..vector import (
    SNAPSHOT_MAGIC,
    DictObs,
    check_suite_seed,
    is_suite_task,
    render_model,
    split_snapshot,
    suite_action_bounds,
    task_name,
)
from .gym.env import action_box, obs_box

__all__ = ["MdvecSB3VecEnv", "make_vec_env"]

_ENV_METHODS = ("get_state", "render")


class MdvecSB3VecEnv(NoCopy, _SB3VecEnv):
    """N envs of an mdvec task in C behind SB3's VecEnv API (SAME_STEP autoreset, as SB3 expects).

    ``seed``: env i starts from seed + i; ``seed(s)`` reseeds env i with s + i at the next
    ``reset()`` (SB3's rule). ``render_mode``: None or "rgb_array" (``render()`` tiles the frames; a Gymnasium
    task's frames are DummyVecEnv's over the reference env, ``mdvec._shared.task_frames``; other tasks' ``camera``
    None: a camera tracking body 1, or a Control Suite task's camera 0). ``flat_observation``: a
    Control Suite task's observation as one float64 vector instead of a Dict (see the module docstring).
    Other keywords are task options (and ``mdvec.VecEnv`` keywords such as ``allow_overcommit``).

    Threads and processes, as ``mdvec.VecEnv``: one thread at a time (a call overlapping another raises
    ``MdvecError``, "concurrent call"); ``close()`` from another thread waits for a call in progress, which
    completes and returns its results; copies and pickles are refused (TypeError); after ``os.fork()``
    the child's calls raise and its ``close()`` frees the child's copy without waiting.
    """

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        threads: int | None = None,
        *,
        task: str = "duck",
        render_mode: str | None = None,
        width: int = 480,
        height: int = 480,
        camera: int | str | None = None,
        flat_observation: bool = False,
        **task_options: Any,
    ) -> None:
        self._calls = CallLock()  # every call holds it; close() waits for it
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        if not isinstance(flat_observation, (bool, np.bool_)):
            raise TypeError(f"flat_observation: expected True or False, got {flat_observation!r}")
        task = task_name(task)  # a name, its id or a Control Suite task's Shimmy id
        suite = is_suite_task(task)
        if camera is None and suite:
            camera = 0  # the model's first camera, as dm_control's videos use
        from .gym import TASKS

        entry = next((e for e in TASKS.values() if e.task == task), None)
        # the frames the reference draws (task_frames: a Gymnasium task's MujocoRenderer, with its camera_name or
        # camera_id, not both, and default_camera_config), its rendering keywords out of the task options
        self._frames, options = task_frames(task, width, height, camera, task_options)
        if entry is not None:
            options = entry.task_options(options)
        self._env = VecEnv(num_envs, seed=seed, threads=threads, task=task, autoreset_mode="same_step", **options)
        spec = self._env.spec
        self.spec_ = spec
        self.threads = int(spec.threads)
        self.task_options = dict(task_options)
        self.render_mode = render_mode
        self.flat_observation = bool(flat_observation)
        self._dict_obs = DictObs(spec.obs_layout) if suite and spec.obs_layout and not flat_observation else None
        if self._dict_obs is not None:  # Shimmy's Dict (gymnasium.spaces.Dict sorts the keys)
            observation_space: Any = spaces.Dict(
                {n: spaces.Box(-np.inf, np.inf, shape, np.float64) for n, shape in self._dict_obs.layout}
            )
            self._obs_keys = list(observation_space.keys())
        else:
            observation_space = obs_box(spec.obs_dim, spec.obs_dtype)
        if suite:  # Shimmy's action space: the action spec's bounds, float64
            low, high = suite_action_bounds(self._env)
            action_space: Any = spaces.Box(low, high, low.shape, np.float64)
        else:
            action_space = action_box(spec.action_low, spec.action_high)
        super().__init__(int(spec.num_envs), observation_space, action_space)
        self._buf = self._env.buffers()
        self._shape = (self.num_envs, *cast(tuple[int, ...], self.action_space.shape))  # a Box's
        self._actions: np.ndarray | None = None
        keys = info_keys(spec.info_fields)
        self._step_fields = [(rows, n, d, a) for n, rows, d, bits, a in keys if bits & STEP]
        self._reset_fields = [(rows, n, d, a) for n, rows, d, bits, a in keys if bits & RESET]
        self._step_keys = [n for _, n, _, _ in self._step_fields] + ["TimeLimit.truncated"]
        # float info values as the reference's single env types them: np.float64 (Gymnasium's MuJoCo tasks,
        # some keys Python floats) or Python floats (the duck), the kinds the task declares
        self._numpy = {name for (name, _, _), kind in zip(spec.info_fields, spec.info_kinds) if kind == "numpy"}

    # --------------------------------------------------------------- helpers
    def _obs(self, flat: np.ndarray) -> Any:
        """N envs' observations: a copy of the buffer, or a Control Suite task's dict {key: (N, *shape)}."""
        return flat.copy() if self._dict_obs is None else self._dict_obs.batch(flat, self._obs_keys)

    def _columns(self, buf: np.ndarray, fields: list, action_dtype: Any) -> list[list[Any]]:
        """One list per info key over the envs: Python int/bool/float values (np.float32 for float32
        "action" fields, an array per env for array-valued keys)."""
        cols = []
        for rows, name, dtype, is_array in fields:
            dt = field_dtype(dtype, action_dtype)
            if is_array:
                cols.append(list(buf[rows].T.astype(dt)))
            elif dt == np.float64:
                cols.append(list(buf[rows]) if name in self._numpy else buf[rows].tolist())
            elif dt == np.float32:
                cols.append(list(buf[rows].astype(np.float32)))
            else:
                cols.append(buf[rows].astype(dt).tolist())
        return cols

    def _reset_info_rows(self, idx: np.ndarray) -> list[dict[str, Any]]:
        if not self._reset_fields:
            return [{} for _ in idx]
        names = [n for _, n, _, _ in self._reset_fields]
        cols = self._columns(self._buf["reset_info"][:, idx], self._reset_fields, np.float64)
        return [dict(zip(names, row)) for row in zip(*cols)]

    def _indices(self, indices: Any) -> list[int]:
        out = list(self._get_indices(indices))
        for i in out:
            if not isinstance(i, (int, np.integer)) or not 0 <= int(i) < self.num_envs:
                raise IndexError(f"indices: env index must lie in [0, {self.num_envs}), got {i!r}")
        return [int(i) for i in out]

    # ------------------------------------------------------------- VecEnv API
    def reset(self) -> np.ndarray:
        """Reset every env (reseeded from ``seed()`` when it was called since the last reset)."""
        seeds = [None if s is None else check_seed(s, f"seed (env {i})") for i, s in enumerate(self._seeds)]
        if self._env.seed_max < 2**64 - 1:  # a Control Suite task's RandomState seeds: 32 bits
            check_suite_seed(seeds, self.num_envs, self.spec_.task, self._env.seed_max)
        for i, opts in enumerate(self._options):
            if opts:
                raise ValueError(f"set_options: the task has no reset options, got {opts!r} for env {i}")
        with self._calls.call("reset"):  # a close() from another thread waits for the results
            self._env.reset_envs(seeds=None if all(s is None for s in seeds) else seeds)
            self.reset_infos = self._reset_info_rows(np.arange(self.num_envs))
            self._reset_seeds()
            self._reset_options()
            return self._obs(self._buf["obs"])

    def step_async(self, actions: np.ndarray) -> None:
        """Check and keep the actions ((N, act_dim) float32/float64); a bad array raises here, nothing stepped."""
        self._actions = as_actions(actions, self._shape, self.spec_)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every env; finished envs reset at once (``terminal_observation`` in their info)."""
        if self._actions is None:
            raise RuntimeError("step_wait: call step_async(actions) first")
        actions, self._actions = self._actions, None
        with self._calls.call("step"):  # a close() from another thread waits for the results
            return self._step(actions)

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        self._env.step_into_buffers(actions)
        b = self._buf
        terminated, truncated = b["terminated"], b["truncated"]
        dones = terminated | truncated
        cols = self._columns(b["info"], self._step_fields, actions.dtype)
        cols.append((truncated & ~terminated).tolist())
        keys = self._step_keys
        infos = [dict(zip(keys, row)) for row in zip(*cols)]
        idx = np.flatnonzero(dones)
        if idx.size:
            final_obs = b["final_obs"][idx].copy()
            for j, i in enumerate(idx.tolist()):  # finished envs only
                infos[i]["terminal_observation"] = (
                    final_obs[j] if self._dict_obs is None else self._dict_obs.one(final_obs[j])
                )
            for i, row in zip(idx.tolist(), self._reset_info_rows(idx)):
                self.reset_infos[i] = row
        return self._obs(b["obs"]), b["reward"].astype(np.float32), dones, infos

    # ----------------------------------------------------------- state in and out
    def snapshot(self) -> bytes:
        """A snapshot of every env (``mdvec.VecEnv.snapshot``) and of this wrapper's own bookkeeping (the seeds
        and options ``seed()`` / ``set_options()`` left for the next ``reset()``): ``restore`` puts it back here
        or into another VecEnv of the same task, options and num_envs (docs/state.md)."""
        with self._calls.call("snapshot"):
            extras = {"seeds": list(self._seeds), "options": [dict(o) if o else {} for o in self._options]}
            head = json.dumps(extras, separators=(",", ":")).encode()
            return SNAPSHOT_MAGIC + len(head).to_bytes(8, "little") + head + self._env.snapshot()

    def restore(self, blob: Any) -> None:
        """Restore a ``snapshot()``: every later step gives, bit for bit, what followed the snapshot. Refused
        with the reason, nothing changed, for another task, other options or num_envs, or damaged bytes."""
        extras, core = split_snapshot(bytes(blob))
        seeds = list((extras or {}).get("seeds", [None] * self.num_envs))
        options = list((extras or {}).get("options", [{}] * self.num_envs))
        if len(seeds) != self.num_envs or len(options) != self.num_envs:
            raise ValueError(f"restore: a snapshot of {len(seeds)} envs' bookkeeping; this VecEnv has {self.num_envs}")
        with self._calls.call("restore"):
            self._env.restore(core)  # checks everything first; refused: nothing changed
            self._seeds = [None if s is None else int(s) for s in seeds]
            self._options = [dict(o) for o in options]
            self._actions = None

    def close(self) -> None:
        """Free the envs, threads and renderer, once a call in progress in another thread has returned."""
        close_envs(self)

    def _copy_instead(self) -> str:
        return (
            f"make another one with the same arguments (mdvec.sb3.make_vec_env({self.num_envs}, seed=..., "
            f"task={self.spec_.task!r}, ...)); VecNormalize.save keeps the normalisation without the envs"
        )

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One RGB frame per env (render_mode="rgb_array"), None each otherwise."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        with self._calls.call("render"):  # a close() from another thread waits for the frames
            self._model_for_frames()
            return self._frames.render_states(self._env, range(self.num_envs))

    def _model_for_frames(self) -> None:
        if self._frames.model is None:
            self._frames.model = render_model(self._env)  # a Control Suite task's: dm_control's own

    def _attributes(self) -> dict[str, Any]:
        return {
            "render_mode": self.render_mode,
            "observation_space": self.observation_space,
            "action_space": self.action_space,
            "task_options": dict(self.task_options),
            "metadata": {"render_modes": ["rgb_array"], "render_fps": self.spec_.render_fps},
            "spec": None,
        }

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """Return an attribute of each env; the supported names are those of a single env listed below.

        Supported: render_mode, observation_space, action_space, task_options, metadata, spec (None).
        """
        attrs = self._attributes()
        if attr_name not in attrs:
            raise AttributeError(
                f"get_attr: {attr_name!r} is not an attribute of mdvec's C envs; supported: {sorted(attrs)}"
            )
        return [attrs[attr_name] for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Refused: the C envs are configured at creation (pass task options to make_vec_env)."""
        raise AttributeError(
            f"set_attr: mdvec's C envs have no settable attributes (got {attr_name!r}); "
            "configure the task at creation, make_vec_env(..., option=value)"
        )

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """Call a method of each env. Supported: ``render`` (an RGB frame) and ``get_state(sig=...)``."""
        idx = self._indices(indices)
        if method_name == "render":
            if self.render_mode != "rgb_array":
                return [None] * len(idx)
            with self._calls.call("render"):
                self._model_for_frames()
                return self._frames.render_states(self._env, idx)
        if method_name == "get_state":
            with self._calls.call("get_state"):
                return [self._env.get_state(i, *method_args, **method_kwargs) for i in idx]
        raise AttributeError(
            f"env_method: {method_name!r} is not a method of mdvec's C envs; supported: {list(_ENV_METHODS)}"
        )

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """The C envs are not gymnasium.Env objects: never wrapped (wrap the VecEnv with VecMonitor)."""
        return [False for _ in self._indices(indices)]


def make_vec_env(num_envs: int, seed: int = 0, threads: int | None = None, **task_options: Any) -> MdvecSB3VecEnv:
    """Return ``num_envs`` duck envs (or ``task=...``: a name, its Gymnasium id or a Control Suite task's Shimmy id)
    in C as an SB3 VecEnv; env i seeded ``seed + i``."""
    return MdvecSB3VecEnv(num_envs, seed=seed, threads=threads, **task_options)
