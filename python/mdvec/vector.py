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
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, SupportsInt, cast

import numpy as np

from ._calls import CallLock, NoCopy, close_envs
from ._shared import RESET, STEP, FrameRenderer, as_actions, autoreset_name, info_keys, is_int, vector_seeds
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


class VectorEnv(NoCopy):
    """N envs of one libmdvec task on worker threads, Gymnasium's vector API without Gymnasium (see the
    module docstring); ``mdvec.gym.MdvecVectorEnv`` is this class as a ``gymnasium.vector.VectorEnv``.

    ``seed``: env i starts from seed + i until ``reset(seed=...)`` reseeds it. ``threads``: worker threads
    (None: the library's choice). ``autoreset_mode``: "next_step" (default, as Gymnasium), "same_step" or
    "disabled" (or Gymnasium's AutoresetMode). ``render_mode`` None or "rgb_array" (one frame per env).
    Other keywords are task options (``mdvec.task_options(task)``).

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
        **options: Any,
    ) -> None:
        from .vecenv import VecEnv, task_meta

        self._calls = CallLock()  # every call holds it; close() waits for it
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        mode = autoreset_name(autoreset_mode)
        self._frames = FrameRenderer(None, width, height, camera)
        self._env = VecEnv(num_envs, seed=seed, threads=threads, task=task, autoreset_mode=mode, **options)
        spec = self._env.spec
        self.task = spec.task
        self.env_id = self.env_id or task_meta(self.task, "id") or self.task
        self.mode = mode
        self.closed = False
        self.num_envs = int(spec.num_envs)
        self.threads = int(spec.threads)
        self.task_options = dict(options)
        self.single_observation_space = self._space(
            np.full(spec.obs_dim, -np.inf), np.full(spec.obs_dim, np.inf), spec.obs_dtype
        )
        self.single_action_space = self._space(
            np.asarray(spec.action_low, np.float32), np.asarray(spec.action_high, np.float32), np.float32
        )
        self.observation_space = self._batch(self.single_observation_space)
        self.action_space = self._batch(self.single_action_space)
        self.metadata = {
            "render_modes": ["rgb_array"],
            "render_fps": self.render_fps or spec.render_fps,
            "autoreset_mode": self._mode_value(mode),
        }
        self.render_mode = render_mode
        self._buf = self._env.buffers()
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
        """One env's space (here a Space; gymnasium.spaces.Box in the Gymnasium subclass)."""
        return Space((len(low),), np.dtype(dtype), np.asarray(low, dtype), np.asarray(high, dtype))

    def _batch(self, space: Any) -> Any:
        """The space of N envs' values."""
        n = self.num_envs
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

    def _copy_instead(self) -> str:
        return (
            f"make another one with the same arguments (mdvec.make({self.env_id!r}, num_envs={self.num_envs}, "
            "seed=..., ...))"
        )

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
        mask = _reset_mask(options, self.num_envs)
        with self._calls.call("reset"):  # a close() from another thread waits for the results
            if is_int(seed):
                self._seeded(int(cast(SupportsInt, seed)))  # a Python or numpy integer
            self._env.reset_envs(mask=mask, seeds=seeds)
            reset = self._all if mask is None else mask
            self._finished[reset] = False
            return self._buf["obs"].copy(), self._fields(self._buf["reset_info"], None, reset)

    # ------------------------------------------------------------------ step
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env (NEXT_STEP: envs that finished last step are reset instead)."""
        if not (
            type(actions) is np.ndarray
            and actions.shape == self._shape
            and (actions.dtype == np.float32 or actions.dtype == np.float64)
        ):
            actions = as_actions(actions, self._shape, self._env.spec)
        with self._calls.call("step"):  # a close() from another thread waits for the results
            return self._step(actions)

    def _step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self._env.closed:
            raise RuntimeError("mdvec: the environment is closed")
        if self.mode == "disabled" and np.count_nonzero(self._finished):
            envs = np.flatnonzero(self._finished).tolist()
            raise RuntimeError(
                f"step: env(s) {envs} finished and autoreset is disabled; reset them first with "
                "reset(options={'reset_mask': mask}); no env was stepped"
            )
        self._env.step_into_buffers(actions)
        self._action_dtype = actions.dtype
        b = self._buf
        obs, reward = b["obs"].copy(), b["reward"].copy()
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
            final_obs[idx] = np.fromiter(b["final_obs"][idx].copy(), dtype=object, count=len(idx))
            info["final_obs"], info["_final_obs"] = final_obs, reset.copy()
            info["final_info"], info["_final_info"] = self._fields(b["info"], reset, None), reset.copy()
        return obs, reward, terminated, truncated, info

    # ---------------------------------------------------------------- render
    def render(self) -> tuple[np.ndarray, ...] | None:
        """Return one RGB frame per env (render_mode="rgb_array"), as SyncVectorEnv does."""
        if self.render_mode is None:
            self._warn("render: the env was made without render_mode; pass render_mode='rgb_array'")
            return None
        with self._calls.call("render"):  # a close() from another thread waits for the frames
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
    up to 3 of difflib's close matches."""
    from .vecenv import task_meta, task_names

    tasks = task_names()
    ids = {i: t for t in tasks if (i := task_meta(t, "id"))}
    known = [*tasks, *ids]
    folded = [ids.get(k, k) for k in known if k.casefold() == name.casefold()]  # the task, case aside
    if folded:  # its name and its id, nothing less close
        return list(dict.fromkeys(k for t in folded for k in (t, task_meta(t, "id")) if k))
    return difflib.get_close_matches(name, known, n=3, cutoff=0.6)


def task_name(name: str) -> str:
    """Return the task (a name of ``task_names()``) that a task name or its declared Gymnasium id names; raise
    ValueError suggesting close names (case aside too) otherwise. The one resolver of ``mdvec.make`` and the
    ``python -m mdvec`` commands."""
    from .vecenv import task_meta, task_names

    if not isinstance(name, str):
        raise TypeError(f"task: expected a task name or id, got {type(name).__name__} {name!r}")
    tasks = task_names()
    if name in tasks:
        return name
    ids = {i: t for t in tasks if (i := task_meta(t, "id"))}
    if name in ids:
        return ids[name]
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
    """N envs of ``task`` (a name or Gymnasium id) as a vector env: a ``gymnasium.vector.VectorEnv`` when
    Gymnasium is installed (``mdvec.gym.MdvecVectorEnv``, the class the Gymnasium adapter registered for the
    id in ``VECTOR_CLASSES``), else :class:`VectorEnv`; keywords: ``autoreset_mode``, ``render_mode``,
    ``width``, ``height``, ``camera`` and the task's options."""
    name, env_id = resolve_task(task)
    cls = VECTOR_CLASSES.get(env_id)
    if cls is None:
        return VectorEnv(name, num_envs, seed, threads, **kwargs)
    return cls(num_envs, seed=seed, threads=threads, **kwargs)
