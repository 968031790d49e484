"""``mdvec.make``: any task's N envs as a Gymnasium-style vector env, with or without Gymnasium.

``make(task, num_envs=..., seed=..., threads=..., **options)`` takes a task name (``"Hopper-v5"``,
``"duck"``) or its Gymnasium id (``"mdvec/Hopper-v5"``, ``"mdvec/DuckBalance-v0"``) and returns a vector env
with ``single_observation_space``, ``single_action_space``, ``reset(seed=, options=)`` and ``step`` giving
``(obs, reward, terminated, truncated, info)`` in Gymnasium's vector format (an array per info key with a
``_key`` bool mask), in Gymnasium's default NEXT_STEP autoreset (``autoreset_mode="same_step"`` or
``"disabled"`` by keyword). With Gymnasium installed it is a ``gymnasium.vector.VectorEnv`` with ``Box``
spaces (``mdvec.gym.MdvecVectorEnv``); in the core install (numpy + mujoco) it is :class:`VectorEnv`, the
same code with plain :class:`Space` descriptors. The buffers are the library's, copied once per call.

The core install runs the duck; Gymnasium's tasks read Gymnasium's own model files, so they need it.

dm_control's Control Suite tasks ("cheetah-run", "ball_in_cup-catch", ...; their ids "mdvec/cheetah-run-v0")
are also named by Shimmy's ids ("dm_control/cheetah-run-v0", an alias: :func:`task_name`). Their observation is,
as Shimmy's ``DmControlCompatibilityV0`` gives it, a dict of float64 arrays, one per entry of dm_control's
observation OrderedDict (a scalar entry, walker's "height", has shape ()), batched (N, *shape) by the vector env;
its space a Dict of Box(-inf, inf, shape, float64) (Gymnasium's Dict sorts the keys, as it does Shimmy's), while
each env's own dict keeps dm_control's order. ``flat_observation=True`` (a keyword of ``make``, named after
dm_control's environment keyword) gives instead one float64 vector (N, obs_dim) in dm_control's
``flatten_observation`` order: the OrderedDict's order, which is not ``gymnasium.spaces.flatten``'s of the Dict
(sorted keys). Their action space is Shimmy's: Box(float64) with the action spec's bounds. Seeds: env i takes
a fresh ``np.random.RandomState(seed + i)``, so seeds lie in [0, 2**32 - 1] (seed + N - 1 at most that).
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, SupportsInt, cast

import numpy as np

from ._calls import CallLock, NoCopy, close_envs
from ._shared import (
    GYM_RENDER_MODES,
    RESET,
    STEP,
    FrameRenderer,
    as_actions,
    autoreset_name,
    info_keys,
    is_int,
    load_model,
    make_entry_point,
    task_frames,
    vector_seeds,
)
from ._shared import reset_mask as _reset_mask


@dataclass(frozen=True)
class Space:
    """A box of values, as the core install describes a space: shape, dtype and inclusive bounds."""

    shape: tuple[int, ...]
    dtype: np.dtype
    low: np.ndarray
    high: np.ndarray

    def contains(self, x: Any) -> bool:
        """Whether x has this shape and dtype and lies within the bounds."""
        a = np.asarray(x)
        return (
            a.shape == self.shape and a.dtype == self.dtype and bool(np.all(a >= self.low) and np.all(a <= self.high))
        )

    def sample(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniform draw within finite bounds (unbounded dimensions: a standard normal draw)."""
        rng = rng or np.random.default_rng()
        finite = np.isfinite(self.low) & np.isfinite(self.high)
        out = np.where(
            finite,
            rng.uniform(np.where(finite, self.low, 0), np.where(finite, self.high, 1)),
            rng.standard_normal(self.shape),
        )
        return out.astype(self.dtype)


@dataclass(frozen=True)
class DictSpace:
    """Named spaces, as the core install describes a Control Suite task's Dict observation (the role of
    ``gymnasium.spaces.Dict``, whose key order it keeps: sorted)."""

    spaces: dict[str, Space]

    def keys(self) -> Any:
        return self.spaces.keys()

    def items(self) -> Any:
        return self.spaces.items()

    def __getitem__(self, key: str) -> Space:
        return self.spaces[key]

    def __iter__(self) -> Any:
        return iter(self.spaces)

    def __len__(self) -> int:
        return len(self.spaces)

    def contains(self, x: Any) -> bool:
        """Whether x is a dict with these keys, each value in its space."""
        return (
            isinstance(x, dict)
            and set(x) == set(self.spaces)
            and all(space.contains(x[key]) for key, space in self.spaces.items())
        )

    def sample(self, rng: np.random.Generator | None = None) -> dict[str, np.ndarray]:
        """One draw of each space."""
        rng = rng or np.random.default_rng()
        return {key: space.sample(rng) for key, space in self.spaces.items()}


# ---------------------------------------------------------------------------------- the Control Suite
SHIMMY_NAMESPACE = "dm_control"  # Shimmy's ids: "dm_control/<domain>-<task>-v0"
SHIMMY_VERSION = "-v0"
RANDOMSTATE_SEED_MAX = 2**32 - 1  # np.random.RandomState(seed): the seeds of a Control Suite task


def is_suite_task(task: str) -> bool:
    """Whether ``task`` (a name of ``task_names()``) is one of dm_control's Control Suite tasks."""
    from .dm_tasks import is_dm_task

    try:
        return is_dm_task(task)
    except (ValueError, TypeError):  # not a task of the library
        return False


def shimmy_id(task: str) -> str | None:
    """Shimmy's Gymnasium id of a Control Suite task ("cheetah-run" -> "dm_control/cheetah-run-v0"), None for
    another task. mdvec takes it as an alias of the task (``task_name``, and ``gymnasium.make`` unless Shimmy
    is installed: its own registration of the id is then Shimmy's, dm_control in Python)."""
    return f"{SHIMMY_NAMESPACE}/{task}{SHIMMY_VERSION}" if is_suite_task(task) else None


def _shimmy_inner(name: str) -> str | None:
    """The text between Shimmy's namespace and version ("cheetah-run" of "dm_control/cheetah-run-v0"), None for
    a name of another form."""
    prefix = SHIMMY_NAMESPACE + "/"
    if name.startswith(prefix) and name.endswith(SHIMMY_VERSION) and len(name) > len(prefix) + len(SHIMMY_VERSION):
        return name[len(prefix) : -len(SHIMMY_VERSION)]
    return None


class DictObs:
    """Shimmy's dict observation of a Control Suite task, cut from libmdvec's flat float64 observation (dm_control's
    ``flatten_observation`` of the task's OrderedDict: the parts of ``spec.obs_layout``, in order).

    ``one(flat)``: one env's dict, in dm_control's order (Shimmy's ``dm_obs2gym_obs``), each value a fresh
    array of its shape (a scalar entry: shape ()). ``batch(flat, keys)``: N envs' (N, obs_dim) as
    {key: (N, *shape)} fresh arrays in the order of ``keys`` (the Dict space's: Gymnasium's ``concatenate``
    builds the batch of SyncVectorEnv so)."""

    def __init__(self, layout: Any) -> None:
        self.layout: tuple[tuple[str, tuple[int, ...]], ...] = tuple((str(n), tuple(s)) for n, s in layout)
        if not self.layout:
            raise ValueError("DictObs: the task declares no observation layout (obs_layout)")
        self.parts: dict[str, tuple[int, int, tuple[int, ...]]] = {}
        at = 0
        for name, shape in self.layout:
            size = int(np.prod(shape))
            self.parts[name] = (at, at + size, shape)
            at += size
        self.size = at

    def one(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        return {name: np.array(flat[a:b].reshape(shape)) for name, (a, b, shape) in self.parts.items()}

    def batch(self, flat: np.ndarray, keys: Any = None) -> dict[str, np.ndarray]:
        n = flat.shape[0]
        out = {}
        for name in self.parts if keys is None else keys:
            a, b, shape = self.parts[name]
            out[name] = np.array(flat[:, a:b].reshape((n, *shape)))
        return out


def suite_action_bounds(venv: Any) -> tuple[np.ndarray, np.ndarray]:
    """The float64 action bounds of an ``mdvec.VecEnv``'s envs as the library holds them (dm_control's
    ``action_spec()`` minimum and maximum for a Control Suite task; ``spec.action_low``/``high`` are their
    float32 copies, as a float32 Box holds them)."""
    from .vecenv import lib

    n = int(venv.nu)
    L, h = lib(), venv._h.ptr
    if n == 0 or h is None:
        return np.asarray(venv.spec.action_low, np.float64), np.asarray(venv.spec.action_high, np.float64)
    low = np.ctypeslib.as_array(L.mdvec_action_low(h), (n,)).astype(np.float64)
    high = np.ctypeslib.as_array(L.mdvec_action_high(h), (n,)).astype(np.float64)
    return low, high


def check_suite_seed(seed: Any, num_envs: int, task: str, seed_max: int = RANDOMSTATE_SEED_MAX) -> None:
    """Raise ValueError, naming the range, for an int seed s with s + num_envs - 1 > seed_max (a Control Suite
    task's envs take RandomState seeds: 32 bits), or a list entry above seed_max; before any env is reset."""
    if seed is None:
        return
    if is_int(seed):
        start = int(seed)
        if start > seed_max - (num_envs - 1):
            last = seed_max - (num_envs - 1)
            span = (
                f"with {num_envs} envs the seed must lie in [0, {last}]"
                if num_envs > 1
                else f"the seed must lie in [0, {last}]"
            )
            raise ValueError(
                f"seed: task {task!r} gives env i np.random.RandomState(seed + i), whose seeds lie in "
                f"[0, {seed_max}] (2**32 - 1), so {span}; got {seed!r}"
            )
        return
    for i, s in enumerate(np.asarray(seed, dtype=object).ravel().tolist() if isinstance(seed, np.ndarray) else seed):
        if s is not None and is_int(s) and int(s) > seed_max:
            raise ValueError(
                f"seed[{i}]: task {task!r} gives each env np.random.RandomState(seed), whose seeds lie in "
                f"[0, {seed_max}] (2**32 - 1); got {s!r}"
            )


def render_model(venv: Any) -> Any:
    """A ``mujoco.MjModel`` of an ``mdvec.VecEnv``'s envs to draw their states on. A Control Suite task's is
    dm_control's own model of the task (its reference's ``physics.model``, copied): the suite edits some
    models after reading their XML (swimmer's links, manipulator's removed bodies), so the file alone is not
    the model the envs run. Any other task's: ``mdvec._shared.load_model``."""
    if not is_suite_task(venv.spec.task):
        return load_model(venv)
    import copy
    import logging

    from .vecenv import task_meta

    absl = logging.getLogger("absl")  # dm_control's compiler notes (cheetah's settotalmass): not for a render
    level = absl.level
    absl.setLevel(logging.ERROR)
    try:
        env = make_entry_point(task_meta(venv.spec.task, "reference") or "", 0, dict(venv.spec.options))
    finally:
        absl.setLevel(level)
    try:
        return copy.copy(env.model)
    finally:
        env.close()


SNAPSHOT_MAGIC = b"MDVECPY1"  # VectorEnv.snapshot(): this, 8 bytes of length, JSON of its bookkeeping, the C blob


def split_snapshot(blob: bytes) -> tuple[dict[str, Any] | None, bytes]:
    """Split a ``VectorEnv.snapshot()`` into (its bookkeeping, the library's snapshot); a library snapshot
    (``mdvec.VecEnv.snapshot()``) is (None, blob). ValueError for a damaged wrapper header."""
    if not blob.startswith(SNAPSHOT_MAGIC):
        return None, blob
    at = len(SNAPSHOT_MAGIC)
    if len(blob) < at + 8:
        raise ValueError("restore: truncated: the snapshot's bookkeeping header is cut short")
    n = int.from_bytes(blob[at : at + 8], "little")
    if n > len(blob) - at - 8:
        raise ValueError("restore: truncated: the snapshot's bookkeeping runs past its end")
    try:
        extras = json.loads(blob[at + 8 : at + 8 + n])
    except ValueError as exc:
        raise ValueError(f"restore: corrupted: the snapshot's bookkeeping is not readable ({exc})") from exc
    if not isinstance(extras, dict):
        raise ValueError("restore: corrupted: the snapshot's bookkeeping is not a mapping")
    return extras, blob[at + 8 + n :]


class VectorEnv(NoCopy):
    """N envs of one libmdvec task on worker threads, Gymnasium's vector API without Gymnasium (see the
    module docstring); ``mdvec.gym.MdvecVectorEnv`` is this class as a ``gymnasium.vector.VectorEnv``.

    ``seed``: env i starts from seed + i until ``reset(seed=...)`` reseeds it. ``threads``: worker threads
    (None: the library's choice). ``autoreset_mode``: "next_step" (default, as Gymnasium), "same_step" or
    "disabled" (or Gymnasium's AutoresetMode). ``render_mode`` None or "rgb_array" (``render()``: a tuple of one
    frame per env, as SyncVectorEnv's); a task whose reference is a Gymnasium MuJoCo env (the v5 tasks) renders
    as N of those envs do under SyncVectorEnv, frame for frame (``mdvec._shared.task_frames``: its camera config,
    ``default_camera_config``, ``camera_id``/``camera_name``, ``max_geom``, ``visual_options``; also
    "depth_array" and "rgbd_tuple"); other tasks' ``camera`` None is a camera tracking body 1, or, for a Control
    Suite task, the model's camera 0.
    ``flat_observation``: a Control Suite task's observation as one float64 vector in dm_control's
    flatten_observation order instead of Shimmy's dict (see the module docstring; other tasks' observation is
    one vector either way). Other keywords are task options (``mdvec.task_options(task)``).

    Threads and processes, as ``mdvec.VecEnv``: one thread at a time (a call overlapping another raises
    ``MdvecError``, "concurrent call"); ``close()`` from another thread waits for a call in progress, which
    completes and returns its results; copies and pickles are refused (TypeError); after ``os.fork()`` the
    child's calls raise and its ``close()`` frees the child's copy without waiting.
    """

    env_id: str = ""  # the Gymnasium id ("mdvec/Hopper-v5")
    render_fps: int | None = None

    def __init__(
        self,
        task: str,
        num_envs: int = 1,
        seed: int = 0,
        threads: int | None = None,
        autoreset_mode: Any = "next_step",
        render_mode: str | None = None,
        width: int = 480,
        height: int = 480,
        camera: int | str | None = None,
        flat_observation: bool = False,
        obs_mode: str = "state",
        frame_stack: int | None = None,
        copy: bool = True,
        **options: Any,
    ) -> None:
        from .vecenv import VecEnv, task_meta

        self._calls = CallLock()  # every call holds it; close() waits for it
        if not isinstance(flat_observation, (bool, np.bool_)):
            raise TypeError(f"flat_observation: expected True or False, got {flat_observation!r}")
        mode = autoreset_name(autoreset_mode)
        suite = is_suite_task(task) if isinstance(task, str) else False
        # frames as the task's reference draws them (a Gymnasium MuJoCo env's: its MujocoRenderer's camera and modes);
        # its rendering keywords (default_camera_config, camera_id, ...) are taken out of the task options
        frames_camera = 0 if camera is None and suite else camera
        if isinstance(task, str):
            self._frames, options = task_frames(task, width, height, frames_camera, options, render_mode)
        else:
            self._frames = FrameRenderer(None, width, height, frames_camera)
        if obs_mode != "state":  # frames drawn by the library on its threads (mdvec._pixels)
            options = {**options, "obs_mode": obs_mode, "width": width, "height": height, "camera": camera}
            options["frame_stack"] = frame_stack
        elif frame_stack is not None:
            raise ValueError("frame_stack: stacks frames of pixel observations; pass obs_mode='pixels' too")
        if not isinstance(copy, (bool, np.bool_)):
            raise TypeError(f"copy: expected True or False, got {copy!r}")
        self._copy = bool(copy)  # False: observations are views of the library's buffers (as Gymnasium's copy)
        self._env = VecEnv(num_envs, seed=seed, threads=threads, task=task, autoreset_mode=mode, **options)
        spec = self._env.spec
        self.task = spec.task
        self.env_id = self.env_id or task_meta(self.task, "id") or self.task
        self.mode = mode
        self.closed = False
        self.num_envs = int(spec.num_envs)
        self.threads = int(spec.threads)
        self.task_options = dict(options)
        self.flat_observation = bool(flat_observation)
        self.seed_max = int(self._env.seed_max)  # env i takes seed + i: at most this
        # a Control Suite task's observation as Shimmy's dict (None: one flat vector)
        self._dict_obs = DictObs(spec.obs_layout) if suite and spec.obs_layout and not flat_observation else None
        if self._dict_obs is not None:
            self.single_observation_space = self._dict(
                {
                    name: self._space(np.full(shape, -np.inf), np.full(shape, np.inf), np.float64)
                    for name, shape in self._dict_obs.layout
                }
            )
            self._obs_keys = list(self.single_observation_space.keys())  # the batch's order: the space's
        else:
            self.single_observation_space = self._space(
                np.full(spec.obs_dim, -np.inf), np.full(spec.obs_dim, np.inf), spec.obs_dtype
            )
        if suite:  # Shimmy's action space: the action spec's bounds, float64
            low, high = suite_action_bounds(self._env)
            self.single_action_space = self._space(low, high, np.float64)
        else:
            self.single_action_space = self._space(
                np.asarray(spec.action_low, np.float32), np.asarray(spec.action_high, np.float32), np.float32
            )
        self._pixels = self._env._h.pixel_spec  # None: obs_mode "state"
        self.obs_mode = self._pixels.obs_mode if self._pixels is not None else "state"
        if self._pixels is not None:  # AddRenderObservation's spaces: a uint8 Box, or a Dict with "state"
            shape = self._pixels.shape
            frames = self._space(np.zeros(shape, np.uint8), np.full(shape, 255, np.uint8), np.uint8)
            state = self.single_observation_space
            if self.obs_mode == "pixels":
                self.single_observation_space = frames
            elif self._dict_obs is not None:  # a dict observation gets "pixels" as one more entry
                self.single_observation_space = self._dict({"pixels": frames, **dict(state.items())})
            else:
                self.single_observation_space = self._dict({"state": state, "pixels": frames})
        self.observation_space = self._batch(self.single_observation_space)
        self.action_space = self._batch(self.single_action_space)
        self.metadata = {
            "render_modes": list(GYM_RENDER_MODES) if self._frames.gym is not None else ["rgb_array"],
            "render_fps": self.render_fps or spec.render_fps,
            "autoreset_mode": self._mode_value(mode),
        }
        self.render_mode = render_mode
        self._buf = self._env.buffers()
        self._env_seeds = [int(seed) + i for i in range(self.num_envs)]  # each env's last seed (np_random_seed)
        self._shape = (self.num_envs, *self.single_action_space.shape)
        self._action_dtype = np.dtype(np.float32)
        self._finished = np.zeros(self.num_envs, bool)  # DISABLED: envs that must be reset before stepping
        self._all = np.ones(self.num_envs, bool)
        self._n_info = len(spec.info_fields)
        keys = info_keys(spec.info_fields)
        rows_of: dict[int, list[int]] = {}
        for _, rows, _, bits, is_array in keys:
            rows_of.setdefault(bits, []).extend(rows.tolist() if is_array else [rows])
        # rows of each STEP/RESET combination (all rows as one slice when the task has one combination)
        self._cat_rows: dict[int, Any] = {
            bits: (slice(None) if len(rows_of) == 1 else np.asarray(rows, np.intp)) for bits, rows in rows_of.items()
        }
        # one converted block per dtype other than float64; each key reads its row(s) from block number b
        self._dtype_keys = sorted(
            {d for _, _, d, _, _ in keys if not (isinstance(d, np.dtype) and d == np.float64)}, key=str
        )
        block = {key: j + 1 for j, key in enumerate(self._dtype_keys)}
        self._field_list = [
            (name, "_" + name, rows, block.get(d, 0), bits, is_array) for name, rows, d, bits, is_array in keys
        ]

    # ------------------------------------------------------- what the Gymnasium subclass replaces
    def _space(self, low: np.ndarray, high: np.ndarray, dtype: Any) -> Any:
        """One env's space of low's shape (here a Space; gymnasium.spaces.Box in the Gymnasium subclass)."""
        return Space(np.shape(low), np.dtype(dtype), np.asarray(low, dtype), np.asarray(high, dtype))

    def _dict(self, spaces: dict[str, Any]) -> Any:
        """A Dict of spaces (here a DictSpace, keys sorted as gymnasium.spaces.Dict sorts a dict's)."""
        return DictSpace(dict(sorted(spaces.items())))

    def _batch(self, space: Any) -> Any:
        """The space of N envs' values."""
        n = self.num_envs
        if isinstance(space, DictSpace):
            return DictSpace({key: self._batch(sub) for key, sub in space.items()})
        return Space(
            (n, *space.shape),
            space.dtype,
            np.broadcast_to(space.low, (n, *space.shape)).copy(),
            np.broadcast_to(space.high, (n, *space.shape)).copy(),
        )

    def _mode_value(self, mode: str) -> Any:
        """metadata["autoreset_mode"] (here the mode's name; Gymnasium's AutoresetMode in the subclass)."""
        return mode

    def _seeded(self, seed: int) -> None:
        """An int seed was given to reset (the Gymnasium subclass seeds its np_random from it)."""

    def _warn(self, message: str) -> None:
        warnings.warn(message, stacklevel=3)

    def _closed_error(self, call: str) -> Exception:
        """The error of a call on a closed env (here RuntimeError; Gymnasium's ClosedEnvironmentError in the
        Gymnasium subclass)."""
        return RuntimeError(f"{call}: mdvec: the environment is closed (after a call to close()); make a new one")

    def _check_open(self, call: str) -> None:
        if self.closed or self._env.closed:
            raise self._closed_error(call)

    @property
    def np_random_seed(self) -> tuple[int, ...]:
        """Each env's seed, as SyncVectorEnv's np_random_seed gives its envs': seed + i from the constructor, then
        the seed each env was last reset with (``reset(seed=...)``; a reset without one keeps it)."""
        return tuple(self._env_seeds)

    def _copy_instead(self) -> str:
        return (
            f"make another one with the same arguments (mdvec.make({self.env_id!r}, num_envs={self.num_envs}, "
            "seed=..., ...))"
        )

    # ------------------------------------------------------------------ observations
    def _obs(self, flat: np.ndarray) -> Any:
        """N envs' observations from the (N, obs_dim) buffer: a copy, or Shimmy's dict of a Control Suite task;
        with pixel observations the frames (N, ...) uint8, alone or with the state in a dict."""
        frames = self._env._h.pixels
        if frames is not None:
            return self._with_pixels(flat, frames)
        if self._dict_obs is None:
            return flat.copy() if self._copy else flat
        return self._dict_obs.batch(flat, self._obs_keys)

    def _one_obs(self, flat: np.ndarray, env: int = -1) -> Any:
        """One env's observation (final_obs): the row, or Shimmy's dict (dm_control's order); with pixel
        observations env's final frames (mdvec_final_pixels), alone or with the state."""
        final = self._env._h.final_pixels
        if final is not None:
            return self._with_pixels(flat, final[env].copy(), one=True)
        return flat if self._dict_obs is None else self._dict_obs.one(flat)

    def _with_pixels(self, flat: np.ndarray, frames: np.ndarray, one: bool = False) -> Any:
        """Observations of obs_mode "pixels" (the frames) or "state+pixels" (a dict: "state" and "pixels", or
        a Control Suite task's dict entries and "pixels", as AddRenderObservation(render_only=False) makes it)."""
        if not one and self._copy:
            frames = frames.copy()
        if self.obs_mode == "pixels":
            return frames
        if self._dict_obs is not None:
            state = self._dict_obs.one(flat) if one else self._dict_obs.batch(flat, self._obs_keys)
            out = {"pixels": frames, **state}  # AddRenderObservation's order for one env
        else:
            out = {"state": flat if one else (flat.copy() if self._copy else flat), "pixels": frames}
        return out if one else {key: out[key] for key in self.single_observation_space.keys()}  # the space's order

    # ------------------------------------------------------------------ info
    def _fields(self, src: np.ndarray, step: np.ndarray | None, reset: np.ndarray | None) -> dict[str, Any]:
        """Gymnasium's vector info for the envs in ``step`` (step fields) and ``reset`` (reset fields).

        ``src`` (n_info, N) holds each env's values (step values for the envs of ``step``, reset
        values for those of ``reset``). Each field gets an (N,) array of its dtype and a bool mask;
        entries outside the mask are 0, as Gymnasium's ``_add_info`` leaves them. A field no env
        contributes is left out. Whole-array numpy work: no loop over envs.
        """
        s_any = step is not None and np.count_nonzero(step) > 0
        r_any = reset is not None and np.count_nonzero(reset) > 0
        if not (s_any or r_any):
            return {}
        cat_mask = {}
        for bits in self._cat_rows:
            use_s = step if s_any and bits & STEP else None
            use_r = reset if r_any and bits & RESET else None
            if use_s is not None and use_r is not None:
                cat_mask[bits] = use_s | use_r
            elif use_s is not None:
                cat_mask[bits] = use_s
            elif use_r is not None:
                cat_mask[bits] = use_r
        if not cat_mask:
            return {}
        masks = np.zeros((self._n_info, self.num_envs), np.bool_)
        for bits, m in cat_mask.items():
            masks[self._cat_rows[bits]] = m
        values = src.copy()
        if np.count_nonzero(masks) != masks.size:
            values[~masks] = 0
        blocks = [values]
        for key in self._dtype_keys:
            dtype = self._action_dtype if isinstance(key, str) else key
            blocks.append(values if dtype == np.float64 else values.astype(dtype))
        info: dict[str, Any] = {}
        for name, mask_name, k, b, bits, is_array in self._field_list:
            if bits in cat_mask:
                if is_array:  # (N, size), C order, as Gymnasium's _add_info builds it
                    info[name] = np.ascontiguousarray(blocks[b][k].T)
                    info[mask_name] = masks[k[0]]
                else:
                    info[name] = blocks[b][k]
                    info[mask_name] = masks[k]
        return info

    # ----------------------------------------------------------------- reset
    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every env, or those of ``options={"reset_mask": bool array (N,)}``.

        ``seed``: None (continue each env's generator), an int s (env i reseeded with s + i) or a
        list of N ints/None. Bad arguments raise before any env is reset.
        """
        seeds = vector_seeds(seed, self.num_envs)
        if self.seed_max < 2**64 - 1:  # a task with fewer seeds (a Control Suite task's RandomState: 32 bits)
            check_suite_seed(seed, self.num_envs, self.task, self.seed_max)
        mask = _reset_mask(options, self.num_envs)
        with self._calls.call("reset"):  # a close() from another thread waits for the results
            self._check_open("reset")
            if is_int(seed):
                self._seeded(int(cast(SupportsInt, seed)))  # a Python or numpy integer
            self._env.reset_envs(mask=mask, seeds=seeds)
            if seeds is not None:
                for i, s in enumerate(seeds):
                    if s is not None and (mask is None or mask[i]):
                        self._env_seeds[i] = int(s)
            reset = self._all if mask is None else mask
            self._finished[reset] = False
            return self._obs(self._buf["obs"]), self._fields(self._buf["reset_info"], None, reset)

    # ------------------------------------------------------------------ step
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env (NEXT_STEP: envs that finished last step are reset instead). A scalar action is a
        TypeError, as Gymnasium's vector envs raise it (they cannot iterate over it)."""
        if np.ndim(actions) == 0:
            raise TypeError(
                f"actions: expected an array of shape {self._shape} (one action per env), got the scalar {actions!r}"
            )
        if not (
            type(actions) is np.ndarray
            and actions.shape == self._shape
            and (actions.dtype == np.float32 or actions.dtype == np.float64)
        ):
            actions = as_actions(actions, self._shape, self._env.spec)
        with self._calls.call("step"):  # a close() from another thread waits for the results
            return self._step(actions)

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._check_open("step")
        if self.mode == "disabled" and np.count_nonzero(self._finished):
            envs = np.flatnonzero(self._finished).tolist()
            raise RuntimeError(
                f"step: env(s) {envs} finished and autoreset is disabled; reset them first with "
                "reset(options={'reset_mask': mask}); no env was stepped"
            )
        self._env.step_into_buffers(actions)
        self._action_dtype = actions.dtype
        b = self._buf
        obs, reward = self._obs(b["obs"]), b["reward"].copy()
        terminated, truncated = b["terminated"].copy(), b["truncated"].copy()
        if self.mode == "disabled":
            self._finished = terminated | truncated
            return obs, reward, terminated, truncated, self._fields(b["info"], self._all, None)
        reset = b["reset"].copy()
        any_reset = np.count_nonzero(reset) > 0
        src = np.where(reset, b["reset_info"], b["info"]) if any_reset else b["info"]
        info = self._fields(src, ~reset, reset if any_reset else None)
        if any_reset and self.mode == "same_step":
            idx = np.flatnonzero(reset)
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_obs[idx] = np.fromiter(
                (self._one_obs(row, i) for row, i in zip(b["final_obs"][idx].copy(), idx.tolist())),
                dtype=object,
                count=len(idx),
            )
            info["final_obs"], info["_final_obs"] = final_obs, reset.copy()
            info["final_info"], info["_final_info"] = self._fields(b["info"], reset, None), reset.copy()
        return obs, reward, terminated, truncated, info

    # ----------------------------------------------------------- state in and out
    def get_state(self, env_ids: Any = None, sig: Any = None) -> np.ndarray:
        """The MuJoCo states of envs ``env_ids`` (None: all), (k, size) float64 (see ``mdvec.VecEnv.get_state``;
        sig None: mjSTATE_INTEGRATION)."""
        with self._calls.call("get_state"):
            return self._env.get_state(env_ids, sig)

    def set_state(self, state: Any, env_ids: Any = None, sig: Any = None) -> None:
        """Write states into envs ``env_ids`` (None: all), then mj_forward (see ``mdvec.VecEnv.set_state``); the
        next ``step`` gives their observations, and each env's episode goes on."""
        with self._calls.call("set_state"):
            self._env.set_state(state, env_ids, sig)

    def snapshot(self) -> bytes:
        """A snapshot of every env and of this wrapper's own bookkeeping (which envs a "disabled" autoreset
        holds finished, np_random): ``restore`` puts it back here or into another ``make`` of the same task,
        options, num_envs and autoreset mode (docs/state.md)."""
        with self._calls.call("snapshot"):
            extras: dict[str, Any] = {"finished": self._finished.tolist()}
            if hasattr(self, "_env_seeds"):
                extras["env_seeds"] = list(self._env_seeds)
            rng = getattr(self, "_np_random", None)
            if isinstance(rng, np.random.Generator):
                extras["np_random"] = rng.bit_generator.state
                extras["np_random_seed"] = getattr(self, "_np_random_seed", None)
            head = json.dumps(extras, separators=(",", ":")).encode()
            return SNAPSHOT_MAGIC + len(head).to_bytes(8, "little") + head + self._env.snapshot()

    def restore(self, blob: Any) -> None:
        """Restore a ``snapshot()``: the envs (every later step equal, bit for bit, to what followed the
        snapshot) and this wrapper's bookkeeping. A bare ``mdvec.VecEnv.snapshot()`` is taken too (the envs
        that a "disabled" autoreset holds finished are then those whose last step ended). Refused with the
        reason, nothing changed, for another task, other options, num_envs or mode, or damaged bytes."""
        data = bytes(blob) if not isinstance(blob, bytes) else blob
        extras, core = split_snapshot(data)
        finished = None
        if extras is not None:
            finished = np.asarray(extras.get("finished", []), bool)
            if finished.shape != (self.num_envs,):
                raise ValueError(
                    f"restore: a snapshot of {finished.size} envs' bookkeeping; this env has {self.num_envs}"
                )
        with self._calls.call("restore"):
            self._env.restore(core)  # checks everything first; refused: nothing changed
            self._finished = finished if finished is not None else self._buf["done"].copy()
            if extras is not None and isinstance(extras.get("env_seeds"), list) and hasattr(self, "_env_seeds"):
                self._env_seeds = [int(s) for s in extras["env_seeds"]]
            if extras is not None and "np_random" in extras:
                rng = np.random.Generator(np.random.PCG64())
                rng.bit_generator.state = extras["np_random"]
                self._np_random, self._np_random_seed = rng, extras.get("np_random_seed")

    # ---------------------------------------------------------------- render
    def render(self) -> tuple[np.ndarray, ...] | None:
        """Return one frame per env (of render_mode), as SyncVectorEnv does: a tuple."""
        if self.render_mode is None:
            self._warn("render: the env was made without render_mode; pass render_mode='rgb_array'")
            return None
        with self._calls.call("render"):  # a close() from another thread waits for the frames
            self._check_open("render")
            if self._frames.model is None:
                self._frames.model = render_model(self._env)  # a Control Suite task's: dm_control's own
            return tuple(self._frames.render_states(self._env, range(self.num_envs)))

    def close_extras(self, **kwargs: Any) -> None:
        """Free the envs, threads and renderer, once a call in progress in another thread has returned."""
        close_envs(self)

    def close(self, **kwargs: Any) -> None:
        """Free the envs, threads and renderer; later calls raise."""
        if getattr(self, "closed", False):
            return
        self.close_extras(**kwargs)
        self.closed = True

    def __enter__(self) -> VectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.env_id!r}, num_envs={self.num_envs}, threads={self.threads}, "
            f"autoreset_mode={self.metadata['autoreset_mode']})"
        )


def task_suggestions(name: str) -> list[str]:
    """Return the task names or ids close to ``name``: the name and id of the task it names case aside, else
    (the Control Suite) every task of a domain it names ("walker": walker-stand, walker-walk, walker-run) and the
    tasks close to the task inside a Shimmy-style id ("dm_control/cheetah-runn-v0": cheetah-run), else up to 3 of
    difflib's close matches."""
    from .vecenv import task_meta, task_names

    tasks = task_names()
    ids = {i: t for t in tasks if (i := task_meta(t, "id"))}
    ids.update({i: t for t in tasks if (i := shimmy_id(t))})
    known = [*tasks, *ids]
    folded = [ids.get(k, k) for k in known if k.casefold() == name.casefold()]  # the task, case aside
    if folded:  # its name and its id, nothing less close
        return list(dict.fromkeys(k for t in folded for k in (t, task_meta(t, "id")) if k))
    inner = _shimmy_inner(name)
    if inner is not None:  # Shimmy's form around a name that is no task: the suite's tasks close to that name
        return [t for t in task_suggestions(inner) if t in tasks and is_suite_task(t)]
    key = name.strip().casefold().replace("_", "-")
    domain = [t for t in tasks if is_suite_task(t) and t.rpartition("-")[0].casefold().replace("_", "-") == key]
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    return list(dict.fromkeys([*domain, *close]))


def task_name(name: str) -> str:
    """Return the task (a name of ``task_names()``) that a task name, its declared Gymnasium id or, for a Control
    Suite task, Shimmy's id ("dm_control/cheetah-run-v0": ``shimmy_id``) names; raise ValueError suggesting close
    names (case aside too) otherwise. The one resolver of ``mdvec.make`` and the ``python -m mdvec`` commands."""
    from .vecenv import task_meta, task_names

    if not isinstance(name, str):
        raise TypeError(f"task: expected a task name or id, got {type(name).__name__} {name!r}")
    tasks = task_names()
    if name in tasks:
        return name
    ids = {i: t for t in tasks if (i := task_meta(t, "id"))}
    if name in ids:
        return ids[name]
    inner = _shimmy_inner(name)
    if inner is not None and inner in tasks and is_suite_task(inner):  # Shimmy's id, an alias
        return inner
    close = task_suggestions(name)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else "."
    raise ValueError(f"task: unknown task {name!r}{hint} The tasks are {', '.join(tasks)}")


def resolve_task(name: str) -> tuple[str, str]:
    """Return (task name, Gymnasium id) for a task name or id (see :func:`task_name`)."""
    from .vecenv import task_meta

    task = task_name(name)
    env_id = task_meta(task, "id")
    if env_id is None:  # a task may declare none; next() over ids raised a bare StopIteration here
        raise ValueError(
            f"task: {task!r} declares no id (mdvec_task_meta), so mdvec.make cannot build it; use "
            f"mdvec.VecEnv(num_envs, task={task!r})"
        )
    return task, env_id


# The vector env class of each Gymnasium id, as an adapter registers it: the Gymnasium adapter (mdvec.gym's
# register_task) adds its VectorEnv subclass of each id it registers, and ``import mdvec`` imports that adapter
# whenever Gymnasium is installed. make() builds the registered class, else the core's VectorEnv: the core never
# imports an adapter (tests/py/test_layering.py).
VECTOR_CLASSES: dict[str, Callable[..., VectorEnv]] = {}  # id -> class(num_envs, seed=, threads=, **kwargs)


def make(task: str, num_envs: int = 1, seed: int = 0, threads: int | None = None, **kwargs: Any) -> Any:
    """N envs of ``task`` (a name, its Gymnasium id, or Shimmy's id of a Control Suite task:
    "dm_control/cheetah-run-v0") as a vector env: a ``gymnasium.vector.VectorEnv`` when Gymnasium is
    installed (``mdvec.gym.MdvecVectorEnv``, the class the Gymnasium adapter registered for the id in
    ``VECTOR_CLASSES``), else :class:`VectorEnv`; keywords: ``autoreset_mode``, ``render_mode``, ``width``,
    ``height``, ``camera``, ``flat_observation`` (a Control Suite task: one flat float64 vector instead of
    Shimmy's dict) and the task's options."""
    name, env_id = resolve_task(task)
    cls = VECTOR_CLASSES.get(env_id)
    if cls is None:
        return VectorEnv(name, num_envs, seed, threads, **kwargs)
    return cls(num_envs, seed=seed, threads=threads, **kwargs)
