"""What every vector environment of the task shares: action checks and info dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

_BOOL_KEYS = ("pushed", "fallen", "truncated", "terminated")


def info_dtypes(keys: tuple[str, ...]) -> dict[str, type]:
    """Return the numpy dtype of each info column: t int64, flags bool, the rest float64."""
    return {k: np.int64 if k == "t" else bool if k in _BOOL_KEYS else np.float64 for k in keys}


def check_actions(actions: Any, num_envs: int, nu: int, check_finite: bool = True) -> np.ndarray:
    """Return actions as a C-contiguous float64 (N, nu) array, or raise naming the problem.

    A float32 or float64 array of shape (N, nu), C- or F-ordered, is accepted; the copy is made
    only when it is not already C-contiguous float64. ``check_finite=False`` leaves the NaN/inf
    check to the caller (libmdvec makes it before stepping any env).
    """
    arr = np.asarray(actions)
    if arr.dtype.kind != "f":
        raise TypeError(f"actions: expected a float32 or float64 array, got dtype {arr.dtype}")
    if arr.shape != (num_envs, nu):
        raise ValueError(f"actions: expected shape ({num_envs}, {nu}), got {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if check_finite and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"actions: non-finite value at env {bad[0]}, actuator {bad[1]}; no env was stepped")
    return arr


def same_count(name: str, value: int | None, alias: str, alias_value: int | None) -> int | None:
    """Return the one worker count given under either name; raise when both disagree."""
    if value is not None and alias_value is not None and value != alias_value:
        raise ValueError(f"{name}={value!r} and {alias}={alias_value!r} disagree; give one of them")
    return value if value is not None else alias_value
