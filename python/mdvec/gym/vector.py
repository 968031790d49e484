"""N envs of a task in C as a ``gymnasium.vector.VectorEnv`` (``make_vec(..., vectorization_mode="vector_entry_point")``).

Results equal Gymnasium's own ``SyncVectorEnv`` over the single env (``backend="reference"``) bit
for bit, autoreset modes NEXT_STEP and SAME_STEP (DISABLED too): observations, rewards, flags,
and info in Gymnasium's vector format (an array per key with a ``_key`` bool mask; SAME_STEP adds
``final_obs`` (object array) and ``final_info`` (nested dict) for the envs that finished). The info
dict is built from libmdvec's buffers with numpy masks: no Python loop over envs while stepping.
Only the order of the info keys may differ from SyncVectorEnv's (which follows env order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ._common import RESET, STEP, FrameRenderer, as_actions, autoreset_name, info_keys, is_int
from ._common import reset_mask as _reset_mask
from ._common import vector_seeds
from .env import action_box, obs_box

if TYPE_CHECKING:
    from ._tasks import TaskEntry

_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
          "disabled": AutoresetMode.DISABLED}


class MdvecVectorEnv(gymnasium.vector.VectorEnv):
    """N envs of a task in libmdvec on worker threads; the C side of ``make_vec``.

    ``seed``: env i starts from seed + i until ``reset(seed=...)`` reseeds it. ``threads``: worker
    threads (None: libmdvec's choice). ``autoreset_mode``: AutoresetMode (default NEXT_STEP, as
    Gymnasium) or its name. ``render_mode`` None or "rgb_array" (``render()`` returns one frame per
    env). Other keywords are task options (and ``mdvec.VecEnv`` keywords such as ``allow_overcommit``).
    """

    entry: TaskEntry  # set on each registered subclass

    def __init__(self, num_envs: int = 1, seed: int = 0, threads: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, render_mode: str | None = None,
                 backend: str = "c", width: int = 480, height: int = 480, camera: int | str | None = None,
                 **options: Any) -> None:
        from ..vecenv import VecEnv

        if backend != "c":
            raise ValueError(f"backend: the vector entry point runs the C envs only (got {backend!r}); for the "
                             "reference use make_vec(..., vectorization_mode='sync', backend='reference')")
        if render_mode is not None and render_mode != "rgb_array":
            raise ValueError(f"render_mode: expected None or 'rgb_array', got {render_mode!r}")
        mode = autoreset_name(autoreset_mode)
        if camera is None and self.entry.render_kwargs:  # Gymnasium MuJoCo keywords for the camera
            camera = options.get("camera_name", options.get("camera_id"))
        self._frames = FrameRenderer(None, width, height, camera)
        self._env = VecEnv(num_envs, seed=seed, threads=threads, task=self.entry.task, autoreset_mode=mode,
                           **self.entry.task_options(options))
        spec = self._env.spec
        self.mode = mode
        self.num_envs = int(spec.num_envs)
        self.threads = int(spec.threads)
        self.task_options = dict(options)
        self.single_observation_space = obs_box(spec.obs_dim, spec.obs_dtype)
        self.single_action_space = action_box(spec.action_low, spec.action_high)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.metadata = {"render_modes": ["rgb_array"], "render_fps": self.entry.render_fps,
                         "autoreset_mode": _MODES[mode]}
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
        self._cat_rows: dict[int, Any] = {bits: (slice(None) if len(rows_of) == 1 else np.asarray(rows, np.intp))
                                          for bits, rows in rows_of.items()}
        # one converted block per dtype other than float64; each key reads its row(s) from block number b
        self._dtype_keys = sorted({d for _, _, d, _, _ in keys if not (isinstance(d, np.dtype) and d == np.float64)},
                                  key=str)
        block = {key: j + 1 for j, key in enumerate(self._dtype_keys)}
        self._field_list = [(name, "_" + name, rows, block.get(d, 0), bits, is_array)
                            for name, rows, d, bits, is_array in keys]

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
            use_s, use_r = s_any and bits & STEP, r_any and bits & RESET
            if use_s and use_r:
                cat_mask[bits] = step | reset
            elif use_s:
                cat_mask[bits] = step
            elif use_r:
                cat_mask[bits] = reset
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
    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every env, or those of ``options={"reset_mask": bool array (N,)}``.

        ``seed``: None (continue each env's generator), an int s (env i reseeded with s + i) or a
        list of N ints/None. Bad arguments raise before any env is reset.
        """
        seeds = vector_seeds(seed, self.num_envs)
        mask = _reset_mask(options, self.num_envs)
        if is_int(seed):
            super().reset(seed=int(seed))
        self._env.reset_envs(mask=mask, seeds=seeds)
        reset = self._all if mask is None else mask
        self._finished[reset] = False
        return self._buf["obs"].copy(), self._fields(self._buf["reset_info"], None, reset)

    # ------------------------------------------------------------------ step
    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env (NEXT_STEP: envs that finished last step are reset instead)."""
        if not (type(actions) is np.ndarray and actions.shape == self._shape
                and (actions.dtype == np.float32 or actions.dtype == np.float64)):
            actions = as_actions(actions, self._shape)
        if self._env.closed:
            raise RuntimeError("mdvec: the environment is closed")
        if self.mode == "disabled" and np.count_nonzero(self._finished):
            envs = np.flatnonzero(self._finished).tolist()
            raise RuntimeError(f"step: env(s) {envs} finished and autoreset is disabled; reset them first with "
                               "reset(options={'reset_mask': mask}); no env was stepped")
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
            gymnasium.logger.warn("render: the env was made without render_mode; pass render_mode='rgb_array'")
            return None
        frames = self._frames.render_states(self._env, range(self.num_envs))
        return tuple(frames)

    def close_extras(self, **kwargs: Any) -> None:
        """Free the envs, threads and renderer."""
        if hasattr(self, "_frames"):
            self._frames.close()
        if hasattr(self, "_env"):
            self._buf = None  # drop the buffer views first, so that close() frees the memory at once
            self._env.close()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.entry.env_id!r}, num_envs={self.num_envs}, threads={self.threads}, "
                f"autoreset_mode={self.metadata['autoreset_mode']})")
