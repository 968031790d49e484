"""The C-backed environments: ``VecEnv`` (drop-in for ProcVecEnv) and ``Env`` (drop-in for DuckEnv)."""

from __future__ import annotations

import ctypes
import numbers
from pathlib import Path
from typing import Any

import numpy as np

from . import _lib
from .reference.config import TaskConfig
from .reference.model import resolve_path
from .reference.params import EpisodeParams
from .reference.vec_common import check_actions, info_dtypes, same_count

_LIB: ctypes.CDLL | None = None
_PYTHON_TYPE = {np.int64: int, bool: bool, np.float64: float}  # info values as DuckEnv gives them


def lib() -> ctypes.CDLL:
    """Return the loaded libmdvec (loaded on first use)."""
    global _LIB
    if _LIB is None:
        _LIB = _lib.load()
    return _LIB


def _is_int(value: Any) -> bool:
    """True for Python and numpy integers, False for bools and everything else."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


class MdvecError(RuntimeError):
    """An error reported by libmdvec; ``code`` is its result code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Handle:
    """One libmdvec handle and its buffers, mapped once into numpy (zero-copy).

    The arrays stay valid until ``close()``; every reset and step overwrites their contents.
    """

    def __init__(self, num_envs: int, seed: int, threads: int | None, allow_overcommit: bool,
                 autoreset: bool, variant: str, model: str | Path | None, cfg: dict[str, Any]) -> None:
        if not _is_int(num_envs) or num_envs <= 0:
            raise ValueError(f"num_envs: must be a positive integer, got {num_envs!r}")
        if threads is not None and (not _is_int(threads) or threads <= 0):
            raise ValueError(f"threads: must be a positive integer or None, got {threads!r}")
        if not _is_int(seed) or not 0 <= int(seed) < 2**64 - int(num_envs):
            raise ValueError(f"seed: must be an integer in [0, 2**64 - num_envs), got {seed!r}")
        self.task = TaskConfig.from_kwargs(**cfg)
        path = resolve_path(variant, model) if model is not None else None
        c = _lib.Config()
        L = lib()
        L.mdvec_config_init(ctypes.byref(c), ctypes.sizeof(c))
        c.num_envs, c.threads, c.allow_overcommit, c.autoreset = int(num_envs), int(threads or 0), int(allow_overcommit), int(autoreset)
        c.seed = int(seed)
        c.variant = variant.encode()
        c.model_path = str(path).encode() if path is not None else None
        t = self.task
        c.substeps, c.episode_len, c.action_scale = t.substeps, t.episode_len, t.action_scale
        c.n_pushes, c.init_noise, c.latency = t.n_pushes, t.init_noise, t.latency
        c.push_window[0], c.push_window[1] = t.push_window
        c.push_speed[0], c.push_speed[1] = t.push_speed
        c.sensor_noise, c.dr, c.reward = int(t.sensor_noise), int(t.dr), 1 if t.reward == "v1" else 2
        err = ctypes.create_string_buffer(1024)
        handle = ctypes.c_void_p()
        code = L.mdvec_create(ctypes.byref(handle), ctypes.byref(c), err, len(err))
        if code != _lib.OK:
            message = err.value.decode()
            raise (ValueError(message) if code in (-1, -2, -3) else MdvecError(code, message))
        self.ptr: ctypes.c_void_p | None = handle
        dims = _lib.Dims(struct_size=ctypes.sizeof(_lib.Dims))
        L.mdvec_dims(handle, ctypes.byref(dims))
        self.dims = dims
        n, d = dims.num_envs, dims.obs_dim
        self.info_keys = tuple(L.mdvec_info_name(handle, k).decode() for k in range(dims.n_info))
        self.obs = np.ctypeslib.as_array(L.mdvec_obs(handle), (n, d))
        self.terminal_obs = np.ctypeslib.as_array(L.mdvec_terminal_obs(handle), (n, d))
        self.reward = np.ctypeslib.as_array(L.mdvec_reward(handle), (n,))
        self.done = np.ctypeslib.as_array(L.mdvec_done(handle), (n,)).view(bool)
        self.info = np.ctypeslib.as_array(L.mdvec_info(handle), (dims.n_info, n))
        for arr in (self.obs, self.terminal_obs, self.reward, self.done, self.info):
            arr.flags.writeable = False

    def check(self, code: int) -> None:
        """Raise the handle's message when code is an error."""
        if code != _lib.OK:
            message = lib().mdvec_errmsg(self.ptr).decode()
            raise ValueError(message) if code in (-1, -7, -9) else MdvecError(code, message)

    def live(self) -> ctypes.c_void_p:
        """Return the handle, or raise when it was closed."""
        if self.ptr is None:
            raise RuntimeError("mdvec: the environment is closed")
        return self.ptr

    def step(self, actions: np.ndarray) -> None:
        """Step every env with checked C-contiguous float64 actions."""
        self.check(lib().mdvec_step(self.live(), actions.ctypes.data))

    def reset_with_params(self, i: int, params: EpisodeParams) -> np.ndarray:
        """Reset env i with the given episode parameters; return a copy of its first observation."""
        ptr = self.live()
        nu, nbody = self.dims.nu, self.dims.nbody
        keep = [np.ascontiguousarray(params.qpos, np.float64), np.ascontiguousarray(params.qvel, np.float64),
                np.ascontiguousarray(params.push_steps, np.int64), np.ascontiguousarray(params.push_vel, np.float64)]
        for name, arr in (("qpos", keep[0]), ("qvel", keep[1])):
            if arr.size != nu:
                raise ValueError(f"params.{name}: expected shape ({nu},), got {arr.shape}")
        if keep[3].size != 2 * keep[2].size:
            raise ValueError(f"params.push_vel: expected shape ({keep[2].size}, 2), got {keep[3].shape}")
        dbl = ctypes.POINTER(ctypes.c_double)
        p = _lib.Params(struct_size=ctypes.sizeof(_lib.Params), init_noise=float(params.init_noise),
                        qpos=keep[0].ctypes.data_as(dbl), qvel=keep[1].ctypes.data_as(dbl),
                        n_pushes=keep[2].size, push_steps=keep[2].ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                        push_vel=keep[3].ctypes.data_as(dbl), latency=int(params.latency),
                        noise_scale=float(params.noise_scale), has_dr=params.dr is not None)
        if params.dr is not None:
            servo = np.asarray(params.dr.servo, np.float64)
            mass = np.ascontiguousarray(params.dr.mass_scale, np.float64)
            if servo.shape != (5,) or mass.shape != (nbody - 1,):
                raise ValueError(f"params.dr: expected servo (5,) and mass_scale ({nbody - 1},), "
                                 f"got {servo.shape} and {mass.shape}")
            p.servo[:] = servo.tolist()
            p.mass_scale = mass.ctypes.data_as(dbl)
            p.floor_friction = float(params.dr.floor_friction)
            keep.append(mass)  # the arrays must outlive the call
        self.check(lib().mdvec_reset_with_params(ptr, int(i), ctypes.byref(p)))
        return self.obs[i].copy()

    def close(self) -> None:
        """Free the handle; the mapped arrays must not be used afterwards."""
        if self.ptr is not None:
            lib().mdvec_destroy(self.ptr)
            self.ptr = None


class _HandleOwner:
    """Closing and context-manager use for the classes that own a ``_Handle`` as ``self._h``."""

    _h: _Handle

    def close(self) -> None:
        """Free the envs and threads; later calls raise RuntimeError."""
        self._h.close()

    def __enter__(self):  # noqa: ANN204 - returns the subclass
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if hasattr(self, "_h"):
            self._h.close()


class VecEnv(_HandleOwner):
    """N duck envs in C on T threads; the same signature and results as ``reference.ProcVecEnv``.

    ``reset()`` returns obs (N, obs_dim) float32. ``step(actions)`` takes (N, nu) float32/float64
    actions and returns ``obs, reward (N,) float64, done (N,) bool, info`` where info holds one (N,)
    array per field plus ``terminal_obs``. Finished envs reset themselves (autoreset). Returned
    arrays are fresh copies; ``buffers()`` gives the library's own zero-copy views instead.
    ``workers`` (ProcVecEnv's name) is accepted for ``threads``, so either class runs the other's code.
    """

    def __init__(self, num_envs: int, seed: int = 0, threads: int | None = None,
                 allow_overcommit: bool = False, variant: str = "default",
                 model: str | Path | None = None, *, workers: int | None = None, **cfg: Any) -> None:
        threads = same_count("threads", threads, "workers", workers)  # ProcVecEnv's name for it
        self._h = _Handle(num_envs, seed, threads, allow_overcommit, True, variant, model, cfg)
        dims = self._h.dims
        self.num_envs, self.nu, self.obs_dim, self.threads = dims.num_envs, dims.nu, dims.obs_dim, dims.threads
        self.info_keys = self._h.info_keys
        self._dtypes = info_dtypes(self.info_keys)

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._h.ptr is None

    def reset(self) -> np.ndarray:
        """Reset every env from its own generator; return obs (N, obs_dim) float32."""
        self._h.check(lib().mdvec_reset(self._h.live()))
        return self._h.obs.copy()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Step every env; a rejected call (bad shape, dtype or a non-finite value) changes nothing."""
        self._h.live()
        self._h.step(check_actions(actions, self.num_envs, self.nu, check_finite=False))
        h = self._h
        columns = h.info.copy()  # one copy; float fields are views of it, the rest converted
        info = {k: columns[j] if self._dtypes[k] is np.float64 else columns[j].astype(self._dtypes[k])
                for j, k in enumerate(self.info_keys)}
        info["terminal_obs"] = h.terminal_obs.copy()
        return h.obs.copy(), h.reward.copy(), h.done.copy(), info

    def reset_with_params(self, i: int, params: EpisodeParams) -> np.ndarray:
        """Reset env i alone with the given episode parameters; return its first observation (obs_dim,)."""
        if not _is_int(i) or not 0 <= i < self.num_envs:
            raise ValueError(f"i: env index must be in [0, {self.num_envs}), got {i!r}")
        return self._h.reset_with_params(i, params)

    def buffers(self) -> dict[str, np.ndarray]:
        """Return the library's read-only buffers (obs, terminal_obs, reward, done, info (n_info, N)).

        Zero-copy views: valid until close(), overwritten by every reset and step.
        """
        h = self._h
        return {"obs": h.obs, "terminal_obs": h.terminal_obs, "reward": h.reward, "done": h.done, "info": h.info}

    def step_into_buffers(self, actions: Any) -> None:
        """Step without copying results out; read them through ``buffers()``."""
        self._h.live()
        self._h.step(check_actions(actions, self.num_envs, self.nu, check_finite=False))


class Env(_HandleOwner):
    """One duck env in C; the same interface and results as ``reference.DuckEnv`` (no autoreset)."""

    def __init__(self, seed: int = 0, variant: str = "default", model: str | Path | None = None,
                 **cfg: Any) -> None:
        self._h = _Handle(1, seed, 1, False, False, variant, model, cfg)
        dims = self._h.dims
        self.nu, self.obs_dim, self.nbody = dims.nu, dims.obs_dim, dims.nbody
        self.cfg = self._h.task
        self.info_keys = self._h.info_keys
        self._dtypes = info_dtypes(self.info_keys)
        self._action = np.zeros((1, self.nu))

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new episode from the env's generator (reseeded when seed is given)."""
        ptr = self._h.live()
        if seed is not None:
            if not _is_int(seed) or not 0 <= int(seed) < 2**64:
                raise ValueError(f"seed: must be an integer in [0, 2**64), got {seed!r}")
            self._h.check(lib().mdvec_seed(ptr, int(seed)))
        self._h.check(lib().mdvec_reset(ptr))
        return self._h.obs[0].copy()

    def reset_with_params(self, params: EpisodeParams) -> np.ndarray:
        """Start an episode with the given parameters (e.g. a reference env's ``params``)."""
        return self._h.reset_with_params(0, params)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, dict[str, Any]]:
        """Apply one action (nu values; clipped to [-1, 1]); return obs, reward, done, info."""
        a = np.asarray(action)
        if a.shape != (self.nu,):
            raise ValueError(f"action: expected shape ({self.nu},), got {a.shape}")
        self._h.live()
        self._h.step(check_actions(a.reshape(1, self.nu), 1, self.nu, check_finite=False))
        h = self._h
        info = {k: _PYTHON_TYPE[self._dtypes[k]](h.info[j, 0]) for j, k in enumerate(self.info_keys)}
        return h.obs[0].copy(), float(h.reward[0]), bool(h.done[0]), info


def episode_params(reference_env: Any) -> EpisodeParams:
    """Return what the reference env's last reset drew, ready for ``Env.reset_with_params``."""
    if reference_env.params is None:
        raise RuntimeError("episode_params: the reference env has not been reset")
    return reference_env.params
