"""Gymnasium's ``MujocoEnv`` members on mdvec's single env (``gymnasium.make("mdvec/Hopper-v5").unwrapped``).

Users' code and Gymnasium's own tests check ``isinstance(env.unwrapped, MujocoEnv)`` and read ``model``, ``data``,
``dt``, ``frame_skip``, ``init_qpos``, ``init_qvel``, ``observation_structure``, ``mujoco_renderer``, or call
``set_state(qpos, qvel)``, ``state_vector()``, ``get_body_com(name)``. mdvec's single env is such an env:
:func:`add_mujoco_base` makes ``gymnasium.envs.mujoco.MujocoEnv`` a base of ``MdvecTaskEnv`` (and so of every
registered task class) when the first env is made, so ``import mdvec`` imports neither mujoco's Python package nor
Gymnasium's MuJoCo envs. ``MujocoEnv.__init__`` never runs: it would load the model from XML and step it in
Python, while the physics stays in C. Where Gymnasium's MuJoCo envs cannot be imported the class stays without
MujocoEnv among its bases, with the same members.

Backend "c" (the env's physics is a libmdvec env; these members are views of it):

* ``model``: a ``mujoco.MjModel`` of the C env's own model (its MJB, ``mdvec.VecEnv.model_mjb``), made on first
  read, its offscreen buffer grown to ``width`` x ``height`` as MujocoEnv grows it. A task whose reference is no
  Gymnasium env may change its model at a reset (the duck's domain randomisation, a Control Suite task's
  ``initialize_episode``): its model is read again after each reset (a new object when it changed). Writes to
  ``model`` change this copy only, never the C env (``model.opt.timestep = ...`` leaves the physics and ``dt`` as
  they are): it is read-only in spirit.
* ``data``: a ``mujoco.MjData`` holding the C env's whole ``mjData`` (``mj_copyData``, ``mdvec.VecEnv.copy_data``)
  as of the env's last reset, step or ``set_state``: copied again when read after one of them (one copy per step
  at most, none when unread), so it equals the reference's ``data`` after the same calls, field for field. Writes
  to ``data`` (or ``mujoco.mj_kinematics(env.model, env.data)``) change this copy only and last until the env
  next moves; they never reach the C env. To put the env in a state, use ``set_state(qpos, qvel)``.
* ``set_state(qpos, qvel)``: Gymnasium's shape assertion, then the C env's ``mj_setState`` of qpos and qvel and
  ``mj_forward``, as MujocoEnv.set_state does (the rest of the state, time, act, ctrl and warm start, is kept).
* ``dt``: the C env's seconds per step (its timestep times frame_skip, as the C env runs them);
  ``frame_skip``: physics steps per step.
* ``init_qpos``, ``init_qvel``: the reference's: the model's qpos0 and zeros, and, where the reference's
  ``reset_model`` writes into its ``init_qpos`` (Pusher-v5 puts each reset's cylinder and goal positions there),
  those writes too, replayed by Gymnasium's own ``reset_model`` on the env's mirrored generator (``np_random``).
  Writing into them changes nothing in C.
* ``observation_structure``: the reference's dict (read from the reference env made with the same options, once);
  tasks whose reference has none (the duck, the Control Suite) have none (``hasattr`` is False), as MujocoEnv.
* ``mujoco_renderer``: Gymnasium's ``MujocoRenderer`` over ``model`` and ``data`` with the reference's
  ``default_camera_config`` (the task option, else the reference class's default), ``width``, ``height``,
  ``camera_id``/``camera_name``, ``max_geom`` and ``visual_options``. ``render()`` brings ``data`` up to date and
  draws with it (tasks whose reference is a Gymnasium env), so frames equal the reference's byte for byte; drawing
  through ``env.unwrapped.mujoco_renderer.render(mode)`` directly draws ``data`` as last read.
* ``do_simulation`` and ``_step_mujoco_simulation`` raise NotImplementedError: the physics is stepped in C by
  ``step(action)``.

Backend "reference": every member is the reference env's own, or built on its live ``model`` and ``data`` (writes
reach the reference env).
"""

from __future__ import annotations

import hashlib
import inspect
from typing import Any

import numpy as np

from ..._gl import grow_offscreen


def add_mujoco_base(cls: type) -> bool:
    """Put Gymnasium's ``MujocoEnv`` among the bases of ``cls`` in place of ``gymnasium.Env`` (its base), so that
    ``cls`` and every subclass (the registered task classes) are MujocoEnv classes from then on; return whether
    they are. Done once, when the first env is made (``MdvecTaskEnv.__init__``), not at registration: importing
    MujocoEnv imports mujoco's Python package and Gymnasium's renderer, which ``import mdvec`` must not. Where
    Gymnasium's MuJoCo envs cannot be imported (mujoco's Python package or Gymnasium's rendering dependencies
    missing), ``cls`` is left as it is (the members work the same; ``isinstance(env, MujocoEnv)`` is False)."""
    import gymnasium

    try:
        from gymnasium.envs.mujoco.mujoco_env import MujocoEnv
    except Exception:  # noqa: BLE001 - gymnasium.error.DependencyNotInstalled, ImportError, a broken GL import
        return False
    if not issubclass(cls, MujocoEnv):
        cls.__bases__ = tuple(MujocoEnv if base is gymnasium.Env else base for base in cls.__bases__)
    return True


def model_from_mjb(blob: bytes, width: int, height: int, gymnasium_rule: bool = True) -> Any:
    """A ``mujoco.MjModel`` from MJB bytes (read from memory: mujoco's virtual file system, no file written), its
    offscreen buffer grown to width x height as MujocoEnv._initialize_simulation grows it (never shrunk)."""
    import mujoco

    model = mujoco.MjModel.from_binary_path("model.mjb", {"model.mjb": bytes(blob)})
    grow_offscreen(model, width, height, gymnasium_rule)
    return model


def mjb_digest(blob: bytes) -> bytes:
    """A digest of a model's MJB, to tell whether a model changed without keeping its bytes."""
    return hashlib.blake2b(blob, digest_size=32).digest()


def reference_class(gym_id: str) -> Any:
    """The class a Gymnasium id's entry point names (e.g. gymnasium.envs.mujoco.hopper_v5.HopperEnv)."""
    import gymnasium
    from gymnasium.envs.registration import load_env_creator

    point = gymnasium.spec(gym_id).entry_point
    return load_env_creator(point) if isinstance(point, str) else point


def renderer_defaults(gym_id: str | None) -> dict[str, Any]:
    """The rendering keywords a reference env passes to MujocoRenderer when its caller passes none: its class's
    ``default_camera_config`` default (e.g. Hopper-v5's DEFAULT_CAMERA_CONFIG) and MujocoEnv's ``max_geom`` and
    ``visual_options`` defaults. ``gym_id`` None (a reference that is no Gymnasium env): Gymnasium's own defaults."""
    from gymnasium.envs.mujoco.mujoco_env import MujocoEnv

    base = inspect.signature(MujocoEnv.__init__).parameters
    out = {
        "default_camera_config": base["default_camera_config"].default,
        "max_geom": base["max_geom"].default,
        "visual_options": base["visual_options"].default,
    }
    if gym_id is not None:
        own = inspect.signature(reference_class(gym_id).__init__).parameters
        for key in out:
            if key in own and own[key].default is not inspect.Parameter.empty:
                out[key] = own[key].default
    return out


def _closed_reference_structure(gym_id: str, options: dict[str, Any]) -> dict[str, int] | None:
    """The ``observation_structure`` of the Gymnasium env ``gym_id`` made with ``options`` (None when it has none)."""
    import gymnasium

    env = gymnasium.make(gym_id, disable_env_checker=True, **options)
    try:
        found = getattr(env.unwrapped, "observation_structure", None)
        return None if found is None else dict(found)
    finally:
        env.close()


class MujocoMembers:
    """The MujocoEnv members of ``MdvecTaskEnv`` (see the module docstring). They read the env's core (``_core``:
    ``mj_model()``, ``mj_data()``, ``set_qpos_qvel()``, ``dt``, ``reference_env()``), its call lock (``_calls``) and
    ``_check_open()``; ``render()`` and ``close()`` in ``MdvecTaskEnv`` use ``_mj_renderer()``."""

    _core: Any
    _calls: Any
    entry: Any
    task_options: dict[str, Any]
    width: int
    height: int
    camera_id: int | None
    camera_name: str | None

    def _check_open(self, call: str) -> None:  # MdvecTaskEnv's
        raise NotImplementedError

    def _init_mujoco_members(self) -> None:
        """Set the members' caches (before the first call)."""
        self._obs_structure: dict[str, int] | None = None
        self._renderer: Any = None  # Gymnasium's MujocoRenderer, made on first use
        self._renderer_model: Any = None  # the model it draws (a new model: a new renderer)
        self._init_q: tuple[np.ndarray, np.ndarray] | None = None  # init_qpos, init_qvel (backend "c")

    # ----------------------------------------------------------- model and data
    @property
    def model(self) -> Any:
        """The env's ``mujoco.MjModel`` (backend "c": a copy of the C env's model; writes stay in the copy)."""
        with self._calls.call("model"):
            self._check_open("model")
            return self._core.mj_model()

    @property
    def data(self) -> Any:
        """The env's ``mujoco.MjData`` (backend "c": the C env's mjData as of its last reset, step or set_state,
        copied when read after one; writes stay in the copy until the env next moves: use set_state)."""
        with self._calls.call("data"):
            self._check_open("data")
            return self._core.mj_data()

    @property
    def fullpath(self) -> str:
        """The model file the env runs (MujocoEnv.fullpath); AttributeError for a model built into the library."""
        ref = self._core.reference_env()
        if ref is not None and hasattr(ref, "fullpath"):
            return str(ref.fullpath)
        try:
            return str(self._core.venv.model_path)
        except (AttributeError, ValueError) as exc:
            raise AttributeError(f"fullpath: {type(self).__name__} runs a model with no file") from exc

    @property
    def dt(self) -> float:
        """Seconds per step: the C env's (backend "c"), the reference's (backend "reference")."""
        return float(self._core.dt)

    @property
    def frame_skip(self) -> int:
        """Physics steps per step."""
        ref = self._core.reference_env()
        if ref is not None and hasattr(ref, "frame_skip"):
            return int(ref.frame_skip)
        own = getattr(self._core, "frame_skip", None)
        if own is not None:
            return int(own)
        return round(self.dt / float(self.model.opt.timestep))

    # ---------------------------------------------------------- initial state
    def _initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        """init_qpos and init_qvel as the env holds them (backend "c": made on first use from the model's qpos0)."""
        if self._init_q is None:
            model = self._core.mj_model()
            self._init_q = (np.array(model.qpos0, np.float64), np.zeros(model.nv, np.float64))
        return self._init_q

    @property
    def init_qpos(self) -> np.ndarray:
        """The reference's init_qpos (the model's qpos0, and what the reference's resets wrote into it)."""
        ref = self._core.reference_env()
        if ref is not None and hasattr(ref, "init_qpos"):
            return ref.init_qpos
        with self._calls.call("init_qpos"):
            self._check_open("init_qpos")
            self._replay_resets()
            return self._initial_state()[0]

    @property
    def init_qvel(self) -> np.ndarray:
        """The reference's init_qvel (zeros)."""
        ref = self._core.reference_env()
        if ref is not None and hasattr(ref, "init_qvel"):
            return ref.init_qvel
        with self._calls.call("init_qvel"):
            self._check_open("init_qvel")
            self._replay_resets()
            return self._initial_state()[1]

    def _replay_resets(self) -> None:  # MdvecTaskEnv's (np_random's catch-up)
        pass

    # ------------------------------------------------------------ set and read
    def set_state(self, qpos: Any, qvel: Any) -> None:
        """Set the joints' positions and velocities, then ``mj_forward``, as Gymnasium's MujocoEnv.set_state (its
        assertion on the shapes first). Backend "c": the C env's state (the next step starts from it)."""
        with self._calls.call("set_state"):
            self._check_open("set_state")
            nq, nv = self._core.nq_nv()
            qpos, qvel = np.asarray(qpos), np.asarray(qvel)
            if not (qpos.shape == (nq,) and qvel.shape == (nv,)):
                raise AssertionError(
                    f"set_state: qpos must have shape ({nq},) and qvel ({nv},) (model.nq, model.nv), got "
                    f"{qpos.shape} and {qvel.shape}"
                )
            self._core.set_qpos_qvel(np.array(qpos, np.float64), np.array(qvel, np.float64))

    def state_vector(self) -> np.ndarray:
        """qpos and qvel of ``data``, concatenated (MujocoEnv.state_vector)."""
        data = self.data
        return np.concatenate([data.qpos.flat, data.qvel.flat])

    def get_body_com(self, body_name: str) -> np.ndarray:
        """The cartesian position of a body's frame, ``data.body(body_name).xpos`` (MujocoEnv.get_body_com)."""
        return self.data.body(body_name).xpos

    def do_simulation(self, ctrl: Any, n_frames: int) -> None:
        """MujocoEnv.do_simulation: stepping the physics outside ``step``. The reference backend's; backend "c"
        raises NotImplementedError: its physics is stepped in C by ``step(action)``."""
        ref = self._core.reference_env()
        if ref is not None and hasattr(ref, "do_simulation"):
            ref.do_simulation(ctrl, n_frames)
            return
        if ref is None and not hasattr(self._core, "venv"):
            raise NotImplementedError(f"do_simulation: the reference env of {type(self).__name__} has none")
        raise NotImplementedError(
            f"do_simulation: {type(self).__name__} steps its physics in C, by step(action) (frame_skip physics steps "
            "with the task's reward and episode bookkeeping); data is a copy of that physics, so stepping it here "
            "would not move the env. To start from a given state, use set_state(qpos, qvel)"
        )

    def _step_mujoco_simulation(self, ctrl: Any, n_frames: int) -> None:
        self.do_simulation(ctrl, n_frames)

    # ------------------------------------------------------ observation layout
    @property
    def observation_structure(self) -> dict[str, int]:
        """The reference's observation_structure (AttributeError where the reference has none)."""
        ref = self._core.reference_env()
        if ref is not None:
            if not hasattr(ref, "observation_structure"):
                raise AttributeError(f"{type(self).__name__}: the reference env has no observation_structure")
            return ref.observation_structure
        gym_id = self.entry.reference if isinstance(self.entry.reference, str) else None
        if gym_id is None:
            raise AttributeError(
                f"{type(self).__name__}: no observation_structure (its reference is no Gymnasium MuJoCo env)"
            )
        if self._obs_structure is None:
            found = _closed_reference_structure(gym_id, self.task_options)
            if found is None:
                raise AttributeError(f"{type(self).__name__}: the reference {gym_id} has no observation_structure")
            self._obs_structure = found
        return dict(self._obs_structure)

    # --------------------------------------------------------------- renderer
    @property
    def mujoco_renderer(self) -> Any:
        """Gymnasium's MujocoRenderer over ``model`` and ``data``, with the reference's camera and sizes (made on
        first use; made again when the model changed)."""
        with self._calls.call("mujoco_renderer"):
            self._check_open("mujoco_renderer")
            return self._mj_renderer()

    def _mj_renderer(self) -> Any:
        """The renderer (the call lock held); data brought up to date first."""
        model = self._core.mj_model()
        data = self._core.mj_data()
        if self._renderer is not None and self._renderer_model is model:
            return self._renderer
        from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer

        self._close_renderer()
        gym_id = self.entry.reference if isinstance(self.entry.reference, str) else None
        kw = renderer_defaults(gym_id)
        kw.update({k: self.task_options[k] for k in kw if k in self.task_options})
        grow_offscreen(model, self.width, self.height, gym_id is not None)  # a reference's too: as MujocoEnv does
        self._renderer = MujocoRenderer(
            model,
            data,
            kw["default_camera_config"],
            self.width,
            self.height,
            kw["max_geom"],
            self.camera_id,
            self.camera_name,
            kw["visual_options"],
        )
        self._renderer_model = model
        return self._renderer

    def _close_renderer(self) -> None:
        """Free the renderer's GL contexts."""
        renderer, self._renderer, self._renderer_model = getattr(self, "_renderer", None), None, None
        if renderer is not None:
            renderer.close()
