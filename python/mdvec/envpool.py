"""``mdvec.envpool``: EnvPool's Python API over libmdvec, so that a script written for EnvPool runs on mdvec by
changing one import (``import mdvec.envpool as envpool``). docs/envpool.md says what is the same and what differs.

``make(task_id, env_type="gymnasium", num_envs=1, batch_size=None, seed=42, num_threads=None,
max_episode_steps=None, **task_options)`` (and ``make_gymnasium``, ``make_gym``, ``make_dm``), ``make_spec`` and
``list_all_envs`` take EnvPool's ids: ``Hopper-v5`` ... for Gymnasium's MuJoCo v5 tasks, ``CheetahRun-v1`` ... for
the Control Suite tasks (``cheetah-run``), and mdvec's own ids for the tasks EnvPool does not have
(``mdvec/DuckBalance-v0``, ``mdvec/cartpole_swingup``); mdvec's task names and ids are taken too.

The env: ``reset(env_id=None)``, ``step(actions, env_id=None)``, ``async_reset()``, ``send(actions, env_id=None)``,
``recv()``, ``spec``, ``config``, ``observation_space``, ``action_space`` (and Gymnasium's vector attributes for
the gymnasium type), ``info["env_id"]``, ``info["players"]["env_id"]``, ``info["elapsed_step"]`` and the task's own
info keys (Gymnasium's, e.g. Hopper's ``x_position`` ... ``reward_survive``). Autoreset as EnvPool's (and
Gymnasium's NEXT_STEP): the step after an episode ended resets that env, its action ignored, and returns its first
observation with reward 0, not terminated, not truncated, ``elapsed_step`` 0.

Pixel observations (mdvec's, not EnvPool's ``from_pixels``): ``obs_mode="pixels"`` or ``"state+pixels"`` with ``width``,
``height``, ``camera`` and ``frame_stack`` as ``mdvec.make`` takes them; the frames are drawn on the library's
threads in both modes, and the observation is the frames, or a dict of the state (``"state"``, or a Control Suite
task's parts) and ``"pixels"`` (the dm type: one more field ``pixels`` of ``State``).

Asynchronous mode (``batch_size < num_envs``): ``send`` returns at once while the library's threads step the
envs; ``recv`` returns the next ``batch_size`` envs *in send order* (EnvPool: the first ``batch_size`` to finish).
So which envs come back together never depends on timing, and each env's results equal, bit for bit, those of
synchronous steps with the same actions, at any thread count. With the usual loop (``async_reset()``, then
``recv`` / ``send`` the received ids) the envs go round in fixed groups: ``[0, B)``, ``[B, 2B)``, ...
"""

from __future__ import annotations

import collections
import importlib
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import _lib
from ._calls import NoCopy
from ._shared import RESET, STEP, info_keys, is_int
from .vecenv import VecEnv, is_gymnasium_id, lib, task_meta, task_names, task_options
from .vector import is_suite_task, task_name

__all__ = [
    "ArraySpec",
    "DMEnvPool",
    "EnvPool",
    "EnvSpec",
    "GymnasiumEnvPool",
    "list_all_envs",
    "make",
    "make_dm",
    "make_gym",
    "make_gymnasium",
    "make_spec",
]

# EnvPool's keywords that mdvec takes only at the value EnvPool's v5 / Control Suite tasks have (anything else
# would change what the envs compute, which mdvec's tasks do not offer): name -> value.
FIXED = {
    "max_num_players": 1,
    "frame_stack": 1,
    "gym_reset_return_info": True,
    "post_constraint": True,
    "legacy_healthy_reward": False,
}
# EnvPool's keywords that change nothing here: thread pinning (mdvec does not pin threads), the asset folder
# (mdvec reads Gymnasium's and dm_control's own files), the reward threshold and render camera (no rendering).
IGNORED = ("thread_affinity_offset", "base_path", "reward_threshold", "gymnasium_v5_render_camera")
# EnvPool's own names of some v5 info keys (those of Gymnasium's v3/v4 tasks), given beside Gymnasium's: the key of
# mdvec's (Gymnasium's) value with that meaning, or a number for a term Gymnasium adds as a constant
# (HumanoidStandup-v5's reward is uph_cost - quad_ctrl_cost - quad_impact_cost + 1: EnvPool's reward_alive).
ENVPOOL_INFO_ALIASES: dict[str, dict[str, str | float]] = {
    "HalfCheetah-v5": {"reward_run": "reward_forward"},
    "Swimmer-v5": {"reward_fwd": "reward_forward"},
    "Humanoid-v5": {
        "reward_linvel": "reward_forward",
        "reward_quadctrl": "reward_ctrl",
        "reward_alive": "reward_survive",
        "reward_impact": "reward_contact",
    },
    "HumanoidStandup-v5": {"reward_alive": 1.0},
}
RENDER_KEYS = ("render_mode", "render_env_id", "render_width", "render_height", "render_camera_id", "from_pixels")
# mdvec's pixel observations (mdvec._pixels: frames drawn on the library's threads, asynchronous calls included),
# mdvec.make's keywords, not EnvPool's from_pixels (channel-first frames of its own camera: refused with
# RENDER_KEYS). frame_stack is taken with obs_mode only (else FIXED at 1).
PIXEL_KEYS = ("obs_mode", "width", "height", "camera")

_STEP_TYPE_FIRST, _STEP_TYPE_MID, _STEP_TYPE_LAST = 0, 1, 2  # dm_env.StepType
_namedtuple: Any = collections.namedtuple  # field names known at run time (EnvPool builds its tuples so)


# ------------------------------------------------------------------------------------------------ ids
def _camel(words: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words.split("_"))


def envpool_id(task: str) -> str:
    """EnvPool's id of an mdvec task: the Gymnasium id of a Gymnasium task ("Hopper-v5"), EnvPool's
    ``<Domain><Task>-v1`` of a Control Suite task ("cheetah-run": "CheetahRun-v1", "ball_in_cup-catch":
    "BallInCupCatch-v1"), else mdvec's own id ("mdvec/DuckBalance-v0")."""
    reference = task_meta(task, "reference")
    if is_gymnasium_id(reference):
        return str(reference)
    if is_suite_task(task):
        domain, _, name = task.partition("-")
        return f"{_camel(domain)}{_camel(name)}-v1"
    return task_meta(task, "id") or task


def _ids() -> dict[str, str]:
    return {envpool_id(t): t for t in task_names()}


def list_all_envs() -> list[str]:
    """Every task's id (``envpool_id``), as EnvPool's ``list_all_envs``."""
    return list(_ids())


def _task(task_id: str) -> str:
    """The mdvec task of an EnvPool id, or of an mdvec task name or id; ValueError otherwise."""
    if not isinstance(task_id, str):
        raise TypeError(f"task_id: expected a str, got {type(task_id).__name__} {task_id!r}")
    ids = _ids()
    if task_id in ids:
        return ids[task_id]
    try:
        return task_name(task_id)
    except ValueError:
        raise ValueError(
            f"task_id: {task_id!r} is not supported; mdvec.envpool.list_all_envs() lists the {len(ids)} ids: "
            f"{', '.join(ids)}"
        ) from None


# ------------------------------------------------------------------------------------------------ spec
@dataclass(frozen=True)
class ArraySpec:
    """Shape, dtype and bounds of one array of EnvPool's state or action (EnvPool's ``ArraySpec``); a leading
    -1 is the batch dimension."""

    dtype: np.dtype
    shape: tuple[int, ...]
    minimum: Any
    maximum: Any


def _options_of(task: str, max_episode_steps: int | None, kwargs: dict[str, Any]) -> dict[str, Any]:
    """mdvec task options from EnvPool's keywords: mdvec's own option names; EnvPool's ``<name>_min`` /
    ``<name>_max`` pairs for mdvec's range options ``<name>_range``; ``max_episode_steps`` (the duck:
    ``episode_len``). EnvPool keywords fixed at their value (``FIXED``) are checked, those of no effect here
    (``IGNORED``) dropped; rendering is refused; anything else is a TypeError naming the task's options."""
    declared = {o.name: o for o in task_options(task)}
    out: dict[str, Any] = {}
    for key in RENDER_KEYS:
        if key in kwargs:
            raise NotImplementedError(
                f"{key}: mdvec.envpool has no render(); frames as observations: obs_mode='pixels' (width, height, "
                "camera, frame_stack), and mdvec.make(..., render_mode='rgb_array') renders"
            )
    for key, value in kwargs.items():
        if key in FIXED:
            if value != FIXED[key]:
                raise ValueError(
                    f"{key}: mdvec.envpool supports only {FIXED[key]!r} (EnvPool's default), got {value!r}"
                )
        elif key in IGNORED:
            continue
        elif key in declared:
            out[key] = value
        elif key.endswith(("_min", "_max")) and f"{key[:-4]}_range" in declared:
            name = f"{key[:-4]}_range"
            low, high = out.get(name, declared[name].default)
            out[name] = (value, high) if key.endswith("_min") else (low, value)
        elif key == "task_name" and is_suite_task(task) and value == task.partition("-")[2]:
            continue
        else:
            raise TypeError(
                f"unknown keyword {key!r} for {envpool_id(task)!r} (mdvec task {task!r}); its options are "
                f"{sorted(declared)}, and mdvec.envpool also takes {sorted(FIXED)} at EnvPool's values"
            )
    if max_episode_steps is not None:
        if "max_episode_steps" in declared:
            out["max_episode_steps"] = max_episode_steps
        elif "episode_len" in declared:
            out["episode_len"] = max_episode_steps
        else:
            raise TypeError(f"max_episode_steps: task {task!r} has no episode limit option")
    return out


def _pixel_options(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Take mdvec's pixel keywords (``PIXEL_KEYS``, and ``frame_stack`` beside an ``obs_mode`` with frames) out of
    kwargs; return them for VecEnv. A frame size or camera without frames is a ValueError."""
    pixels = {k: kwargs.pop(k) for k in PIXEL_KEYS if k in kwargs}
    if pixels.get("obs_mode", "state") == "state":
        extra = sorted(set(pixels) - {"obs_mode"})
        if extra:
            raise ValueError(
                f"{', '.join(extra)}: settings of pixel observations; pass obs_mode='pixels' or 'state+pixels' too"
            )
        return {}
    if "frame_stack" in kwargs:
        pixels["frame_stack"] = kwargs.pop("frame_stack")
    return pixels


def _seeds(seed: Any, num_envs: int) -> tuple[int, list[int] | None]:
    """(the handle's seed, per-env seeds for the first reset or None) of EnvPool's ``seed``: an int (env i
    takes seed + i) or a sequence of num_envs ints."""
    if is_int(seed) and not isinstance(seed, bool):
        if int(seed) < 0:
            raise ValueError(f"seed: must be >= 0 (env i takes seed + i), got {seed!r}")
        return int(seed), None
    if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
        raise TypeError(f"seed: expected an int or a sequence of {num_envs} ints, got {seed!r}")
    seeds = [int(s) for s in np.asarray(seed).ravel().tolist()]
    if len(seeds) != num_envs or any(s < 0 for s in seeds):
        raise ValueError(f"seed: a sequence must hold num_envs = {num_envs} ints >= 0, got {seed!r}")
    return 0, seeds


def _spaces() -> Any:
    """gymnasium.spaces when Gymnasium is installed, else None (the core install's mdvec.vector spaces)."""
    try:
        return importlib.import_module("gymnasium.spaces")
    except ImportError:
        return None


class EnvSpec:
    """EnvPool's EnvSpec of one configuration: ``config`` (a namedtuple of every setting and task option),
    ``reward_threshold``, ``state_array_spec``, ``action_array_spec``, ``observation_space``, ``action_space``
    (Gymnasium spaces, or mdvec.vector's without Gymnasium), ``observation_spec()``, ``action_spec()`` (dm_env's,
    which needs dm_env), and mdvec's ``task`` and ``env_id``."""

    def __init__(self, task: str, config: dict[str, Any], venv: VecEnv) -> None:
        from .vector import DictObs, DictSpace, Space, suite_action_bounds

        spec = venv.spec
        px = venv._h.pixel_spec
        self.obs_mode = px.obs_mode if px is not None else "state"
        self.pixel_shape: tuple[int, ...] | None = tuple(px.shape) if px is not None else None
        self.task = task
        self.env_id = envpool_id(task)
        self.gen_config = _namedtuple("Config", list(config))  # EnvPool's name
        self._config = self.gen_config(**config)
        threshold = task_meta(task, "reward_threshold")
        self.reward_threshold: float | None = float(threshold) if threshold is not None else None
        self.obs_dim = int(spec.obs_dim)
        self.obs_dtype = np.dtype(spec.obs_dtype)
        self.layout = DictObs(spec.obs_layout).layout if is_suite_task(task) and spec.obs_layout else ()
        low, high = suite_action_bounds(venv)
        self.action_low, self.action_high = low.astype(np.float64), high.astype(np.float64)
        self.info_fields = tuple(spec.info_fields)
        self.max_episode_steps = int(spec.max_episode_steps)
        spaces = _spaces()

        def box(lo: Any, hi: Any, dtype: Any) -> Any:
            lo, hi = np.asarray(lo, dtype), np.asarray(hi, dtype)
            if spaces is not None:
                return spaces.Box(lo, hi, lo.shape, dtype)
            return Space(lo.shape, np.dtype(dtype), lo, hi)

        def dict_space(parts: list[tuple[str, Any]]) -> Any:
            return spaces.Dict(parts) if spaces is not None else DictSpace(dict(parts))

        if self.layout:
            parts = [
                (name, box(np.full(shape, -np.inf), np.full(shape, np.inf), np.float64)) for name, shape in self.layout
            ]
            self.observation_space = dict_space(parts)
        else:
            d = self.obs_dim
            self.observation_space = box(np.full(d, -np.inf), np.full(d, np.inf), self.obs_dtype)
        # the keys of a dict observation with frames, sorted as mdvec.make's (gymnasium.spaces.Dict sorts a dict's)
        self.pixel_keys: tuple[str, ...] = ()
        if self.pixel_shape is not None:  # mdvec.make's spaces: the frames, or a dict with "pixels"
            frames = box(np.zeros(self.pixel_shape), np.full(self.pixel_shape, 255), np.uint8)
            if self.obs_mode == "pixels":
                self.observation_space = frames
            else:
                state = (
                    dict(self.observation_space.spaces.items()) if self.layout else {"state": self.observation_space}
                )
                both = sorted({**state, "pixels": frames}.items())
                self.pixel_keys = tuple(k for k, _ in both)
                self.observation_space = dict_space(both)
        self.action_space = box(self.action_low, self.action_high, np.float64)  # EnvPool's: float64

    @property
    def config(self) -> NamedTuple:
        """Every setting and task option of this configuration."""
        return self._config

    @property
    def state_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's state keys and their specs: info:env_id, info:players.env_id, elapsed_step, done, reward,
        discount, step_type, trunc, obs (or obs:<part> of a Control Suite task), info:<field>."""
        i32 = np.dtype(np.int32)
        big = (np.iinfo(np.int32).min, np.iinfo(np.int32).max)
        out = {
            "info:env_id": ArraySpec(i32, (), *big),
            "info:players.env_id": ArraySpec(i32, (-1,), *big),
            "elapsed_step": ArraySpec(i32, (), *big),
            "done": ArraySpec(np.dtype(bool), (), False, True),
            "reward": ArraySpec(np.dtype(np.float64), (-1,), -np.inf, np.inf),
            "discount": ArraySpec(np.dtype(np.float32), (-1,), 0.0, 1.0),
            "step_type": ArraySpec(i32, (), *big),
            "trunc": ArraySpec(np.dtype(bool), (), False, True),
        }
        if self.obs_mode != "pixels" and self.layout:
            for name, shape in self.layout:
                out[f"obs:{name}"] = ArraySpec(np.dtype(np.float64), tuple(shape), -np.inf, np.inf)
        elif self.obs_mode != "pixels":
            out["obs"] = ArraySpec(self.obs_dtype, (self.obs_dim,), -np.inf, np.inf)
        if self.pixel_shape is not None:
            name = "obs" if self.obs_mode == "pixels" else "obs:pixels"
            out[name] = ArraySpec(np.dtype(np.uint8), self.pixel_shape, 0, 255)
        for name, rows, dtype, _, is_array in info_keys(self.info_fields):
            shape = (len(rows),) if is_array else ()
            dt = np.dtype(np.float64) if isinstance(dtype, str) else np.dtype(dtype)
            out[f"info:{name}"] = ArraySpec(dt, shape, -np.inf, np.inf)
        return out

    @property
    def action_array_spec(self) -> dict[str, ArraySpec]:
        """EnvPool's action keys: env_id, players.env_id, action (-1, act_dim) float64."""
        i32 = np.dtype(np.int32)
        big = (np.iinfo(np.int32).min, np.iinfo(np.int32).max)
        return {
            "env_id": ArraySpec(i32, (), *big),
            "players.env_id": ArraySpec(i32, (-1,), *big),
            "action": ArraySpec(np.dtype(np.float64), (-1, len(self.action_low)), self.action_low, self.action_high),
        }

    @property
    def gymnasium_observation_space(self) -> Any:
        return self.observation_space

    @property
    def gymnasium_action_space(self) -> Any:
        return self.action_space

    def observation_spec(self) -> Any:
        """dm_env's observation spec (a namedtuple State of BoundedArrays: env_id, players, obs or the parts,
        the info fields), as EnvPool's dm type gives it."""
        specs = importlib.import_module("dm_env.specs")
        fields: dict[str, Any] = {
            "env_id": specs.Array((), np.int32, "env_id"),
            "players": _namedtuple("players", ["env_id"])(specs.Array((), np.int32, "env_id")),
        }
        parts = () if self.obs_mode == "pixels" else (self.layout or (("obs", (self.obs_dim,)),))
        arrays = {}
        for name, shape in parts:
            dtype = np.float64 if self.layout else self.obs_dtype
            arrays[name] = specs.BoundedArray(tuple(shape), dtype, -np.inf, np.inf, name)
        if self.pixel_shape is not None:
            arrays["pixels"] = specs.BoundedArray(self.pixel_shape, np.uint8, 0, 255, "pixels")
        fields.update((name, arrays[name]) for name in self.dm_parts())
        for name, rows, dtype, _, is_array in info_keys(self.info_fields):
            dt = np.float64 if isinstance(dtype, str) else dtype
            fields[_field(name)] = specs.Array((len(rows),) if is_array else (), dt, _field(name))
        return _namedtuple("State", list(fields))(**fields)

    def dm_parts(self) -> list[str]:
        """The dm type's observation fields of State, in order: ``obs`` or a Control Suite task's parts, with
        frames ``pixels`` (alone, or with the others in the gymnasium type's key order, "state" as ``obs``)."""
        if self.obs_mode == "pixels":
            return ["pixels"]
        if self.pixel_keys:
            return ["obs" if k == "state" else k for k in self.pixel_keys]
        return [name for name, _ in self.layout] or ["obs"]

    def action_spec(self) -> Any:
        """dm_env's action spec: a BoundedArray (act_dim,) float64 with the task's bounds."""
        specs = importlib.import_module("dm_env.specs")
        return specs.BoundedArray((len(self.action_low),), np.float64, self.action_low, self.action_high, "action")

    def __repr__(self) -> str:
        return f"EnvSpec({self.env_id!r}, {self._config})"


def _field(name: str) -> str:
    """An info key as a namedtuple field (dm type): non-word characters become '_'."""
    return re.sub(r"\W", "_", name)


# ------------------------------------------------------------------------------------------------ the env
def _gym_vector_base() -> type:
    try:
        return importlib.import_module("gymnasium.vector").VectorEnv
    except ImportError:
        return object


class EnvPool(NoCopy):
    """N envs of one mdvec task behind EnvPool's API (see the module docstring); ``GymnasiumEnvPool`` and
    ``DMEnvPool`` give its results in EnvPool's gymnasium and dm formats.

    One thread at a time (a call overlapping another raises ``MdvecError``); ``close()`` frees the envs (envs
    in flight are dropped or finished first); copies and pickles are refused.
    """

    def __init__(
        self,
        task: str,
        num_envs: int = 1,
        batch_size: int | None = None,
        seed: Any = 42,
        num_threads: int | None = None,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        if not is_int(num_envs) or int(num_envs) < 1:
            raise ValueError(f"num_envs: must be an int >= 1, got {num_envs!r}")
        num_envs = int(num_envs)
        if batch_size is None or batch_size == 0:  # EnvPool: 0 means num_envs
            batch_size = num_envs
        if not is_int(batch_size) or not 1 <= int(batch_size) <= num_envs:
            raise ValueError(
                f"batch_size: must be an int in [1, num_envs = {num_envs}] (or 0, None), got {batch_size!r}"
            )
        if num_threads is not None and (not is_int(num_threads) or int(num_threads) < 0):
            raise ValueError(f"num_threads: must be None or an int >= 0 (0: the library's choice), got {num_threads!r}")
        env_seeds = kwargs.pop("env_seed", None)
        base_seed, first_seeds = _seeds(seed, num_envs)
        if env_seeds is not None and len(env_seeds):
            base_seed, first_seeds = _seeds(list(env_seeds), num_envs)
        pixels = _pixel_options(kwargs)
        options = _options_of(task, max_episode_steps, kwargs)
        threads = int(num_threads) if num_threads else None
        self._env = VecEnv(
            num_envs, seed=base_seed, threads=threads, task=task, autoreset_mode="next_step", **options, **pixels
        )
        h = self._env._h
        self._pixels = h.pixel_spec  # None: obs_mode "state"
        L = lib()
        if getattr(L, "mdvec_send", None) is None or L.mdvec_send.argtypes is None:
            self._env.close()
            raise RuntimeError(f"mdvec.envpool needs libmdvec's mdvec_send (1.4); the loaded library is {L.path}")
        self._h = h
        spec = self._env.spec
        self.num_envs = num_envs
        self.batch_size = int(batch_size)
        self.threads = int(spec.threads)
        self._first_seeds: list[int | None] | None = list(first_seeds) if first_seeds is not None else None
        config: dict[str, Any] = {
            "num_envs": num_envs,
            "batch_size": self.batch_size,
            "num_threads": self.threads,
            "max_num_players": 1,
            "thread_affinity_offset": -1,
            "seed": base_seed,
            "env_seed": list(first_seeds or []),
            "gym_reset_return_info": True,
            "max_episode_steps": int(spec.max_episode_steps),
        }
        config.update({k: v for k, v in spec.options.items() if k not in config})
        if self._pixels is not None:
            px = self._pixels
            config.update(obs_mode=px.obs_mode, width=px.width, height=px.height, camera_id=px.camera_id)
            config["frame_stack"] = px.frame_stack
        self._spec = EnvSpec(task, config, self._env)
        self.task = task
        self.env_id = self._spec.env_id
        self._act_dim = int(spec.act_dim)
        self._send_fn, self._reset_fn, self._recv_fn = L.mdvec_send, L.mdvec_send_reset, L.mdvec_recv
        self._all_ids = np.arange(num_envs, dtype=np.int32)
        self._ids_out = np.zeros(num_envs, np.int32)
        self._elapsed = np.zeros(num_envs, np.int32)
        self._in_flight = 0
        self._f32, self._f64 = np.dtype(np.float32), np.dtype(np.float64)
        self._info_keys = []
        for name, rows, dtype, _bits, is_array in info_keys(spec.info_fields):
            convert = None if isinstance(dtype, str) or np.dtype(dtype) == np.float64 else np.dtype(dtype)
            self._info_keys.append((name, rows, convert, is_array))
        self._aliases = ENVPOOL_INFO_ALIASES.get(task, {})
        fields = spec.info_fields
        self._step_only_rows = np.asarray([k for k, (_, _, w) in enumerate(fields) if not (int(w) & RESET)], np.intp)
        self._reset_rows = np.asarray([k for k, (_, _, w) in enumerate(fields) if int(w) & RESET], np.intp)
        self._has_step_rows = any(int(w) & STEP for _, _, w in fields)
        self._parts = []
        at = 0
        for name, shape in self._spec.layout:
            size = int(np.prod(shape))
            self._parts.append((name, at, at + size, tuple(shape)))
            at += size
        self.closed = False

    # -------------------------------------------------------------------- EnvPool's attributes
    @property
    def spec(self) -> EnvSpec:
        """EnvPool's EnvSpec of this env (``config``, spaces, state/action array specs)."""
        return self._spec

    @spec.setter
    def spec(self, value: Any) -> None:  # gymnasium.vector.VectorEnv.__init__-free classes may assign it
        pass

    @property
    def config(self) -> dict[str, Any]:
        """EnvPool's config: num_envs, batch_size, num_threads, seed, max_episode_steps, ... and the task's
        options."""
        return dict(self._spec.config._asdict())

    @property
    def all_env_ids(self) -> np.ndarray:
        """0 .. num_envs - 1 as int32."""
        return self._all_ids

    @property
    def is_async(self) -> bool:
        """Whether batch_size < num_envs (EnvPool's asynchronous mode)."""
        return self.batch_size < self.num_envs

    def __len__(self) -> int:
        return self.num_envs

    def seed(self, seed: Any = None) -> None:
        """EnvPool's abandoned ``seed``: refused, saying what to do instead."""
        raise NotImplementedError(
            "seed(): give seed= to make() (env i takes seed + i), or reset(seed=...) (mdvec honours it)"
        )

    # -------------------------------------------------------------------- calls
    def _ids(self, env_id: Any) -> np.ndarray:
        if env_id is None:
            return self._all_ids
        ids = env_id if type(env_id) is np.ndarray and env_id.dtype == np.int32 else np.asarray(env_id)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"env_id: expected integers, got dtype {ids.dtype}")
        ids = ids.reshape(-1)
        if len(ids) and (ids.min() < 0 or ids.max() >= self.num_envs):
            raise ValueError(f"env_id: an id is out of range [0, {self.num_envs}): {ids.tolist()}")
        return np.ascontiguousarray(ids, dtype=np.int32)

    def _actions(self, actions: Any, n: int) -> np.ndarray:
        a = actions
        if type(a) is np.ndarray and (a.dtype == self._f64 or a.dtype == self._f32) and a.flags.c_contiguous:
            if a.shape == (n, self._act_dim):
                return a
        a = np.asarray(actions)
        if a.dtype.kind not in "fiu":
            raise TypeError(f"actions: expected a float array, got dtype {a.dtype}")
        if a.dtype != self._f32:
            a = a.astype(np.float64, copy=False)
        if a.shape != (n, self._act_dim):
            if a.size == n * self._act_dim and (a.ndim == 1 or a.shape[0] == n):
                a = a.reshape(n, self._act_dim)
            else:
                raise ValueError(f"actions: expected shape ({n}, {self._act_dim}) for {n} env id(s), got {a.shape}")
        return np.ascontiguousarray(a)

    def send(self, action: Any, env_id: Any = None) -> None:
        """Hand envs ``env_id`` (None: all) their actions (len(env_id), act_dim) and return at once; the library's
        threads step them while the caller works. Raises (nothing sent) for an env already in flight, an env id
        out of range or repeated, a non-finite action. ``action`` may also be EnvPool's dict form
        ``{"action": actions, "env_id": ids}``."""
        if isinstance(action, dict):
            env_id = action.get("env_id", env_id)
            action = action["action"]
        ids = self._ids(env_id)
        a = self._actions(action, len(ids))
        ptr = self._h.enter("send")
        try:
            code = self._send_fn(ptr, a.ctypes.data, _lib.DTYPE_F32 if a.dtype == self._f32 else _lib.DTYPE_F64,
                                 ids.ctypes.data, len(ids))  # fmt: skip
            if code:
                self._h.check(code, "send")
            self._in_flight += len(ids)
        finally:
            self._h.lock.release()

    def _send_reset(self, ids: np.ndarray, seeds: list[int | None] | None) -> None:
        seeds_arr = has_arr = None
        if seeds is not None:
            seeds_arr = np.asarray([0 if s is None else int(s) for s in seeds], np.uint64)
            has_arr = np.asarray([s is not None for s in seeds], np.uint8)
        ptr = self._h.enter("reset")
        try:
            code = self._reset_fn(ptr, ids.ctypes.data, len(ids), None if seeds_arr is None else seeds_arr.ctypes.data,
                                  None if has_arr is None else has_arr.ctypes.data)  # fmt: skip
            if code:
                self._h.check(code, "reset")
            self._in_flight += len(ids)
        finally:
            self._h.lock.release()

    def async_reset(self) -> None:
        """Send a reset to every env (EnvPool's ``async_reset``); ``recv`` returns them batch_size at a time."""
        seeds, self._first_seeds = self._first_seeds, None
        self._send_reset(self._all_ids, list(seeds) if seeds is not None else None)

    def _recv_raw(self, n: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Receive the next n envs in send order (None: batch_size, or everything in flight when batch_size is
        num_envs); return their ids and copies of their rows."""
        if n is None:
            n = self.batch_size if self.batch_size < self.num_envs else self._in_flight
        if self._in_flight == 0:
            raise _lib.error(
                _lib.ERR_STATE, "recv: nothing in flight; send actions (send / step) or resets (async_reset) first"
            )
        if n > self._in_flight:
            raise _lib.error(
                _lib.ERR_STATE,
                f"recv: batch_size {n} envs asked for, but only {self._in_flight} are in flight (EnvPool would wait "
                "forever); send more envs first",
            )
        h = self._h
        ptr = h.enter("recv")
        try:
            code = self._recv_fn(ptr, n, self._ids_out.ctypes.data)
            self._in_flight -= n  # received even on a physics error
            ids = self._ids_out[:n].copy()
            rows = self._rows(ids)
            if code:
                h.check(code, "recv")
        finally:
            h.lock.release()
        return ids, rows

    def _rows(self, ids: np.ndarray | None) -> dict[str, Any]:
        """Copies of the result rows of envs ids (None: all, in order); the caller holds the handle's lock."""
        h = self._h
        if ids is None:
            return {
                "obs": h.obs.copy(),
                "pixels": h.pixels.copy() if h.pixels is not None else None,
                "reward": h.reward.copy(),
                "terminated": h.terminated.copy(),
                "truncated": h.truncated.copy(),
                "reset": h.reset_flags.copy(),
                "info": h.info.copy(),
                "reset_info": h.reset_info.copy() if len(self._reset_rows) else None,
            }
        return {
            "obs": h.obs[ids],
            "pixels": h.pixels[ids] if h.pixels is not None else None,
            "reward": h.reward[ids],
            "terminated": h.terminated[ids],
            "truncated": h.truncated[ids],
            "reset": h.reset_flags[ids],
            "info": h.info[:, ids],
            "reset_info": h.reset_info[:, ids] if len(self._reset_rows) else None,
        }

    def _synchronous(self, env_id: Any) -> bool:
        """Whether a step / reset of env_id may take libmdvec's synchronous call (the caller and T-1 workers, as
        mdvec.VecEnv steps): the synchronous mode, nothing in flight, and (steps) every env. Same results."""
        return self.batch_size == self.num_envs and self._in_flight == 0 and env_id is None

    def _info(self, ids: np.ndarray, rows: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
        """The info dict (env_id, players, the task's fields, elapsed_step) and the elapsed steps of envs ids."""
        reset = rows["reset"]
        elapsed = self._elapsed[ids] + 1
        info_rows = rows["info"]
        if reset.any():
            elapsed[reset] = 0
            if len(self._step_only_rows):  # a reset writes no step info: 0, as EnvPool's reset steps
                info_rows[np.ix_(self._step_only_rows, np.flatnonzero(reset))] = 0.0
            if len(self._reset_rows):  # the reset's own info
                cols = np.flatnonzero(reset)
                info_rows[np.ix_(self._reset_rows, cols)] = rows["reset_info"][np.ix_(self._reset_rows, cols)]
        self._elapsed[ids] = elapsed
        info: dict[str, Any] = {"env_id": ids, "players": {"env_id": ids.copy()}}
        for name, k, convert, is_array in self._info_keys:
            value = info_rows[k].T.copy() if is_array else info_rows[k]
            info[name] = value if convert is None else value.astype(convert)
        for name, source in self._aliases.items():  # EnvPool's names of the same values
            info[name] = info[source].copy() if isinstance(source, str) else np.where(reset, 0.0, source)
        info["elapsed_step"] = elapsed
        return info, elapsed

    def _obs(self, rows: dict[str, Any]) -> Any:
        """The observations of rows: the state (a Control Suite task's parts in a dict), the frames (obs_mode
        "pixels"), or a dict of both ("state" or the parts, then "pixels")."""
        obs, frames = rows["obs"], rows["pixels"]
        if self._pixels is not None and self._pixels.obs_mode == "pixels":
            return frames
        n = obs.shape[0]
        state = {name: obs[:, a:b].reshape((n, *shape)) for name, a, b, shape in self._parts} if self._parts else obs
        if frames is None:
            return state
        both = {**state, "pixels": frames} if self._parts else {"state": state, "pixels": frames}
        return {k: both[k] for k in self._spec.pixel_keys}

    def recv(self, reset: bool = False, return_info: bool = True) -> Any:
        """Receive the next batch_size envs in send order (waiting for them); in the synchronous mode
        (batch_size == num_envs) every env in flight. Returns the gymnasium or dm format of this env type."""
        ids, rows = self._recv_raw()
        return self._format(ids, rows, reset)

    def step(self, action: Any, env_id: Any = None) -> Any:
        """``send(action, env_id)`` then ``recv()`` (EnvPool's step; in the asynchronous mode recv returns the
        oldest batch in flight, which need not be the envs just sent). Every env in the synchronous mode: one
        synchronous libmdvec step (the same results, without the queue)."""
        if self._synchronous(env_id):
            a = self._actions(action, self.num_envs)
            rows = self._h.step(a, lambda _: self._rows(None))
            return self._format(self._all_ids.copy(), rows, False)
        self.send(action, env_id)
        return self.recv()

    def reset(self, env_id: Any = None, *, seed: Any = None, options: dict[str, Any] | None = None) -> Any:
        """Reset envs ``env_id`` (None: all, or ``options={"reset_mask": (num_envs,) bool}``) and receive: the
        reset envs in the synchronous mode, the next batch_size in send order in the asynchronous mode (EnvPool:
        "not defined in async mode"). ``seed``: None, an int s (env i reseeded with s + i) or one seed per env of
        env_id (mdvec honours it; EnvPool ignores it)."""
        if options:
            unknown = set(options) - {"reset_mask"}
            if unknown:
                raise ValueError(f"options: only 'reset_mask' is supported, got {sorted(unknown)}")
            if options.get("reset_mask") is not None:
                if env_id is not None:
                    raise ValueError("pass either env_id or options['reset_mask'], not both")
                mask = np.asarray(options["reset_mask"], bool)
                if mask.shape != (self.num_envs,) or not mask.any():
                    raise ValueError(f"reset_mask: expected a (num_envs,) bool array with a True, got {mask!r}")
                env_id = np.flatnonzero(mask)
        ids = self._ids(env_id)
        seeds: list[int | None] | None = None
        if seed is not None:
            if is_int(seed):
                seeds = [int(seed) + int(i) for i in ids]
            else:
                seeds = [None if s is None else int(s) for s in seed]
                if len(seeds) != len(ids):
                    raise ValueError(f"seed: expected {len(ids)} seeds (one per env reset), got {len(seeds)}")
        elif self._first_seeds is not None:  # make(seed=[...]): each env's seed, taken by its first reset
            seeds = [self._first_seeds[int(i)] for i in ids]
        if self._first_seeds is not None:
            for i in ids.tolist():
                self._first_seeds[i] = None
        if self.batch_size == self.num_envs and self._in_flight == 0:  # libmdvec's synchronous reset
            mask = np.zeros(self.num_envs, bool)
            mask[ids] = True
            if mask.sum() != len(ids):
                raise ValueError(f"env_id: an env is named twice in {ids.tolist()}")
            per_env: list[int | None] | None = None
            if seeds is not None:
                per_env = [None] * self.num_envs
                for i, s in zip(ids.tolist(), seeds):
                    per_env[i] = s
            rows = self._h.reset_envs(mask, per_env, lambda: self._rows(ids))
            return self._format(ids.copy(), rows, True)
        self._send_reset(ids, seeds)
        got, rows = self._recv_raw()
        return self._format(got, rows, True)

    def _format(self, ids: np.ndarray, rows: dict[str, Any], reset: bool) -> Any:
        raise NotImplementedError

    def close(self, **kwargs: Any) -> None:
        """Free the envs and threads (envs in flight: those not started are dropped, the running ones finish)."""
        if getattr(self, "_env", None) is not None:
            self._env.close()
        self.closed = True

    def __del__(self) -> None:
        if getattr(self, "_env", None) is not None:
            self._env.close()

    def _copy_instead(self) -> str:
        return f"make another one with mdvec.envpool.make({self.env_id!r}, ...)"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env_id!r}, num_envs={self.num_envs}, batch_size={self.batch_size})"


class GymnasiumEnvPool(EnvPool, _gym_vector_base()):  # type: ignore[misc]
    """EnvPool's gymnasium type: ``reset`` gives (obs, info), ``step`` / ``recv`` (obs, reward, terminated,
    truncated, info); a ``gymnasium.vector.VectorEnv`` when Gymnasium is installed, NEXT_STEP autoreset."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        EnvPool.__init__(self, *args, **kwargs)
        self.single_observation_space = self._spec.observation_space
        self.single_action_space = self._spec.action_space
        self.observation_space = self._spec.observation_space  # EnvPool's: the single env's spaces
        self.action_space = self._spec.action_space
        mode: Any = "next_step"
        try:
            mode = importlib.import_module("gymnasium.vector").AutoresetMode.NEXT_STEP
        except (ImportError, AttributeError):
            pass
        self.metadata = {"render_modes": [], "autoreset_mode": mode}
        self.render_mode = None

    @property
    def is_vector_env(self) -> bool:
        return True

    def _format(self, ids: np.ndarray, rows: dict[str, Any], reset: bool) -> Any:
        info, _ = self._info(ids, rows)
        obs = self._obs(rows)
        if reset:
            return obs, info
        return obs, rows["reward"], rows["terminated"], rows["truncated"], info


class DMEnvPool(EnvPool):
    """EnvPool's dm type: every call gives a ``dm_env.TimeStep`` (step_type FIRST / MID / LAST, reward, discount
    0 where an episode terminated, observation a namedtuple State of env_id, players, the observation (``obs``
    or a Control Suite task's parts) and the info fields)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        EnvPool.__init__(self, *args, **kwargs)
        try:
            self._timestep: Any = importlib.import_module("dm_env").TimeStep
        except ImportError:
            self._timestep = _namedtuple("TimeStep", ["step_type", "reward", "discount", "observation"])
        parts = self._spec.dm_parts()
        self._state = _namedtuple("State", ["env_id", "players", *parts, *(_field(k[0]) for k in self._info_keys)])
        self._players = _namedtuple("players", ["env_id"])

    def observation_spec(self) -> Any:
        return self._spec.observation_spec()

    def action_spec(self) -> Any:
        return self._spec.action_spec()

    def _format(self, ids: np.ndarray, rows: dict[str, Any], reset: bool) -> Any:
        info, _ = self._info(ids, rows)
        obs = self._obs(rows)
        if isinstance(obs, dict):
            parts = {("obs" if k == "state" else k): v for k, v in obs.items()}
        else:
            parts = {"pixels" if self._pixels is not None else "obs": obs}
        fields = [info[k[0]] for k in self._info_keys]
        state = self._state(ids, self._players(ids.copy()), *parts.values(), *fields)
        step_type = np.full(len(ids), _STEP_TYPE_MID, np.int32)
        step_type[rows["terminated"] | rows["truncated"]] = _STEP_TYPE_LAST
        step_type[rows["reset"]] = _STEP_TYPE_FIRST
        discount = np.where(rows["terminated"], 0.0, 1.0).astype(np.float32)
        return self._timestep(step_type, rows["reward"], discount, state)


# ------------------------------------------------------------------------------------------------ make
def make(
    task_id: str,
    env_type: str = "gymnasium",
    num_envs: int = 1,
    batch_size: int | None = None,
    seed: Any = 42,
    num_threads: int | None = None,
    max_episode_steps: int | None = None,
    **kwargs: Any,
) -> Any:
    """EnvPool's ``make``: ``num_envs`` envs of ``task_id`` (``list_all_envs()``) as ``env_type`` "gymnasium" (or
    "gym", the same) or "dm"; ``batch_size`` (None or 0: num_envs, synchronous) envs per recv; env i seeded with
    seed + i (or seed[i] for a sequence); ``num_threads`` (None or 0: the library's choice); other keywords are
    the task's options (mdvec's names, or EnvPool's ``<name>_min`` / ``<name>_max`` for a range)."""
    task = _task(task_id)
    if env_type in ("gymnasium", "gym"):
        cls: type[EnvPool] = GymnasiumEnvPool
    elif env_type == "dm":
        cls = DMEnvPool
    else:
        raise ValueError(f"env_type: expected 'gymnasium', 'gym' or 'dm', got {env_type!r}")
    return cls(task, num_envs, batch_size, seed, num_threads, max_episode_steps, **kwargs)


def make_gymnasium(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, "gymnasium", ...)``."""
    return make(task_id, "gymnasium", **kwargs)


def make_gym(task_id: str, **kwargs: Any) -> GymnasiumEnvPool:
    """``make(task_id, "gym", ...)``: EnvPool 1.2's gym type is its gymnasium type."""
    return make(task_id, "gym", **kwargs)


def make_dm(task_id: str, **kwargs: Any) -> DMEnvPool:
    """``make(task_id, "dm", ...)``."""
    return make(task_id, "dm", **kwargs)


def make_spec(task_id: str, **kwargs: Any) -> EnvSpec:
    """EnvPool's ``make_spec``: the EnvSpec ``make`` would have with these keywords (made from one env that is
    closed at once)."""
    num_envs = int(kwargs.pop("num_envs", 1))
    batch = kwargs.pop("batch_size", None)
    env = make(task_id, "gymnasium", num_envs=1, **kwargs)
    try:
        spec = env.spec
        config = dict(spec.config._asdict())
        config["num_envs"] = num_envs
        config["batch_size"] = int(batch or num_envs)
        spec._config = spec.gen_config(**config)
        return spec
    finally:
        env.close()
