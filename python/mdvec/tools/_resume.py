"""Exact resume for ``train``: what a checkpoint holds besides SB3's zip, so that a resumed run continues bit for
bit the run that was not stopped.

At an update boundary (the rollout about to start: the policy just updated, no env stepped since) a run is
its SB3 model (the zip: networks, Adam's state, step and update counts, ``_last_obs``, ``_last_episode_starts``)
plus what the zip does not hold: every env's state (the vector env's ``snapshot()``: physics, generators,
step counters, pending autoresets), the process-wide generators PPO draws from (torch: action sampling;
numpy: minibatch order; random) and the curve's episode accumulators. :func:`capture` takes the latter at a
boundary; :func:`write` stores it as ``step_<T>.state`` beside ``step_<T>.zip``; :func:`read` loads it back.

Only a backend whose vector env can snapshot its envs resumes exactly (``mdvec``); SB3's ``SubprocVecEnv``
over Gymnasium's envs cannot hand their states over, so ``processes`` resumes as before (reproducibly, with
fresh episodes).
"""

from __future__ import annotations

import copy
import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 1  # the .state file's layout; another one is refused
# SB3 model attributes that change while a rollout is collected (the rest change only in an update): put back
# to the boundary's values before a Ctrl-C checkpoint, so that it is the boundary's
ROLLOUT_ATTRS = (
    "num_timesteps",
    "_last_obs",
    "_last_episode_starts",
    "_last_original_obs",
    "ep_info_buffer",
    "ep_success_buffer",
    "_episode_num",
)


@dataclass
class Boundary:
    """A run at an update boundary, besides its SB3 model."""

    timesteps: int  # env steps so far (the model's num_timesteps)
    envs: bytes  # the vector env's snapshot()
    rng: tuple[Any, Any, Any]  # random.getstate(), np.random.get_state(), torch.get_rng_state()
    progress: dict[str, Any]  # the curve's episode accumulators (train's Progress callback)
    model_attrs: dict[str, Any]  # ROLLOUT_ATTRS as they were (in memory only: the zip holds them)


def can_snapshot(venv: Any) -> bool:
    """Whether the innermost vector env of ``venv`` (SB3 wrappers unwrapped) can snapshot its envs."""
    return callable(getattr(_inner(venv), "snapshot", None))


def _inner(venv: Any) -> Any:
    while hasattr(venv, "venv"):
        venv = venv.venv
    return venv


def capture(model: Any, venv: Any, rng: tuple[Any, Any, Any], progress: dict[str, Any]) -> Boundary:
    """Take the run's state at an update boundary: the envs' snapshot, ``rng`` (the live process-wide
    generators' states) and copies of ``progress`` and of the model's rollout attributes."""
    attrs = {name: copy.deepcopy(getattr(model, name)) for name in ROLLOUT_ATTRS if hasattr(model, name)}
    return Boundary(
        timesteps=int(model.num_timesteps),
        envs=_inner(venv).snapshot(),
        rng=rng,
        progress=copy.deepcopy(progress),
        model_attrs=attrs,
    )


def rewind_model(model: Any, boundary: Boundary) -> None:
    """Put the model's rollout attributes back to the boundary's (a rollout cut short leaves no trace)."""
    for name, value in boundary.model_attrs.items():
        setattr(model, name, copy.deepcopy(value))


def state_path(checkpoint: Path) -> Path:
    """The .state file beside a checkpoint zip."""
    return checkpoint.with_suffix(".state")


def write(checkpoint: Path, boundary: Boundary) -> None:
    """Write ``boundary`` beside ``checkpoint`` (atomically: a hidden partial file, then renamed)."""
    import torch

    py_state, np_state, torch_state = boundary.rng
    doc = {
        "format": FORMAT,
        "timesteps": boundary.timesteps,
        "random": [py_state[0], list(py_state[1]), py_state[2]],
        "numpy": [np_state[0], np_state[1].tolist(), int(np_state[2]), int(np_state[3]), float(np_state[4])],
        "progress": _jsonable(boundary.progress),
    }
    path = state_path(checkpoint)
    tmp = path.with_name(f".{path.name}.partial")
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("state.json", json.dumps(doc))
            z.writestr("envs.bin", boundary.envs)
            buf = io.BytesIO()
            torch.save(torch_state, buf)
            z.writestr("torch_rng.pt", buf.getvalue())
        with tmp.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read(checkpoint: Path, timesteps: int) -> Boundary | None:
    """The boundary stored beside ``checkpoint``, or None when there is none; ValueError when it is damaged,
    of another format, or of another step count than the zip's (``timesteps``)."""
    import torch

    path = state_path(checkpoint)
    if not path.is_file():
        return None
    try:
        with zipfile.ZipFile(path) as z:
            doc = json.loads(z.read("state.json"))
            envs = z.read("envs.bin")
            torch_state = torch.load(io.BytesIO(z.read("torch_rng.pt")), weights_only=True)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, RuntimeError) as exc:
        raise ValueError(f"{path.name}: damaged ({type(exc).__name__}: {exc})") from None
    if doc.get("format") != FORMAT:
        raise ValueError(f"{path.name}: format {doc.get('format')!r}; this mdvec reads format {FORMAT}")
    if doc.get("timesteps") != timesteps:
        raise ValueError(f"{path.name}: taken at {doc.get('timesteps')} env steps, its zip at {timesteps}")
    r = doc["random"]
    n = doc["numpy"]
    rng = (
        (r[0], tuple(r[1]), r[2]),
        (n[0], np.asarray(n[1], dtype=np.uint32), n[2], n[3], n[4]),
        torch_state,
    )
    return Boundary(timesteps=timesteps, envs=envs, rng=rng, progress=_from_json(doc["progress"]), model_attrs={})


def _jsonable(progress: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in progress.items():
        if isinstance(value, np.ndarray):
            out[key] = {"ndarray": value.tolist(), "dtype": str(value.dtype)}
        else:
            out[key] = value
    return out


def _from_json(doc: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict) and "ndarray" in value:
            out[key] = np.asarray(value["ndarray"], dtype=value["dtype"])
        else:
            out[key] = value
    return out


__all__ = ["Boundary", "can_snapshot", "capture", "read", "rewind_model", "state_path", "write"]
