"""N envs of a task in C as a ``gymnasium.vector.VectorEnv`` (``make_vec(..., vectorization_mode="vector_entry_point")``).

Results equal Gymnasium's own ``SyncVectorEnv`` over the single env (``backend="reference"``) bit
for bit, autoreset modes NEXT_STEP and SAME_STEP (DISABLED too): observations, rewards, flags,
and info in Gymnasium's vector format (an array per key with a ``_key`` bool mask; SAME_STEP adds
``final_obs`` (object array) and ``final_info`` (nested dict) for the envs that finished). The info
dict is built from libmdvec's buffers with numpy masks: no Python loop over envs while stepping.
Only the order of the info keys may differ from SyncVectorEnv's (which follows env order). The logic
is ``mdvec.vector.VectorEnv``'s (the core install's vector env); this class gives it Gymnasium's spaces,
AutoresetMode, np_random and logger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..._shared import render_camera
from ...vector import VectorEnv
from .env import closed_error

if TYPE_CHECKING:
    from ._tasks import TaskEntry

_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}


class MdvecVectorEnv(VectorEnv, gymnasium.vector.VectorEnv):  # type: ignore[misc] # np_random_seed: SyncVectorEnv's tuple
    """N envs of a task in libmdvec on worker threads; the C side of ``make_vec``.

    ``seed``: env i starts from seed + i until ``reset(seed=...)`` reseeds it. ``threads``: worker
    threads (None: libmdvec's choice). ``autoreset_mode``: AutoresetMode (default NEXT_STEP, as
    Gymnasium) or its name. ``render_mode`` None, "rgb_array", "depth_array" or "rgbd_tuple" (``render()``: a
    tuple of one frame per env, those of Gymnasium's SyncVectorEnv over the reference env; the reference's
    rendering keywords too: ``camera_id``, ``camera_name``, ``default_camera_config``, ``max_geom``,
    ``visual_options``). ``flat_observation``: a Control Suite task's observation as one float64 vector
    (dm_control's flatten_observation order) instead of Shimmy's Dict (``mdvec.vector``). Other keywords are task
    options (and ``mdvec.VecEnv`` keywords such as ``allow_overcommit``).

    As Gymnasium's vector envs: ``np_random_seed`` is the per-env tuple SyncVectorEnv gives, ``step`` of a scalar
    raises TypeError, and a call after ``close()`` raises ``EnvClosedError`` (Gymnasium's ClosedEnvironmentError).
    """

    entry: TaskEntry  # set on each registered subclass

    def __init__(
        self,
        num_envs: int = 1,
        seed: int = 0,
        threads: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        backend: str = "c",
        width: int = 480,
        height: int = 480,
        camera: int | str | None = None,
        flat_observation: bool = False,
        **options: Any,
    ) -> None:
        if backend != "c":
            raise ValueError(
                f"backend: the vector entry point runs the C envs only (got {backend!r}); for the "
                "reference use make_vec(..., vectorization_mode='sync', backend='reference')"
            )
        camera = render_camera(camera, options, self.entry.render_kwargs)  # Gymnasium's camera_name / camera_id
        self.env_id, self.render_fps = self.entry.env_id, self.entry.render_fps  # None: the spec's
        super().__init__(
            self.entry.task,
            num_envs,
            seed,
            threads,
            autoreset_mode,
            render_mode,
            width,
            height,
            camera,
            flat_observation,
            **self._options(options),
        )
        self.task_options = dict(options)

    def _options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The task options and the reference's rendering keywords the core's renderer takes (camera config,
        max_geom, visual_options; camera_id and camera_name went into ``camera``)."""
        keep = ("default_camera_config", "max_geom", "visual_options")
        drawn = {k: options[k] for k in keep if k in options and k in self.entry.render_kwargs}
        return {**self.entry.task_options(options), **drawn}

    def _space(self, low: np.ndarray, high: np.ndarray, dtype: Any) -> Any:
        return gymnasium.spaces.Box(np.asarray(low, dtype), np.asarray(high, dtype), np.shape(low), np.dtype(dtype))

    def _dict(self, spaces: dict[str, Any]) -> Any:
        return gymnasium.spaces.Dict(spaces)  # keys sorted, as Shimmy's dm_spec2gym_space gets them

    def _batch(self, space: Any) -> Any:
        return batch_space(space, self.num_envs)

    def _mode_value(self, mode: str) -> Any:
        return _MODES[mode]

    def _seeded(self, seed: int) -> None:
        gymnasium.vector.VectorEnv.reset(self, seed=seed)  # seeds self.np_random, as VectorEnv.reset does

    def _warn(self, message: str) -> None:
        gymnasium.logger.warn(message)

    def _closed_error(self, call: str) -> Exception:
        return closed_error(self, call)  # Gymnasium's ClosedEnvironmentError (also a RuntimeError)

    def close(self, **kwargs: Any) -> None:
        """Free the envs, threads and renderer (gymnasium.vector.VectorEnv.close: close_extras once)."""
        gymnasium.vector.VectorEnv.close(self, **kwargs)
