"""Shared fixtures: the real robot's files (skipped without ../shared) and a zero-action helper."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "python") not in sys.path:  # run from a checkout without PYTHONPATH too
    sys.path.insert(0, str(ROOT / "python"))

# One GL backend for the whole run, chosen before any test module imports mujoco or dm_control: EGL, as mdvec's
# own renderer picks without a display (mdvec._gl.select_gl), unless the caller named one. A module must not set
# MUJOCO_GL itself: the value is process-wide, and collection imports every module before any test runs.
os.environ.setdefault("MUJOCO_GL", "egl")

REAL_DUCK = Path(os.environ.get("MDVEC_REAL_DUCK", ROOT.parent / "shared" / "models" / "open_duck_mini_v2"))


@pytest.fixture
def real_duck() -> Path:
    """Return the real Open Duck Mini v2 folder, or skip when ../shared is not there."""
    if not (REAL_DUCK / "scene_flat_terrain.xml").is_file():
        pytest.skip(f"real Open Duck Mini v2 not found at {REAL_DUCK}")
    return REAL_DUCK


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep only this shard's tests when MDVEC_PYTEST_SHARD is "i/n" (tests/meson.build sets it): every n-th
    collected test from the i-th, so n shards run side by side and together run each test exactly once."""
    shard = os.environ.get("MDVEC_PYTEST_SHARD", "")
    if not shard:
        return
    i, n = (int(x) for x in shard.split("/"))
    if not 1 <= i <= n:
        raise pytest.UsageError(f"MDVEC_PYTEST_SHARD={shard!r}: want i/n with 1 <= i <= n")
    keep = [item for k, item in enumerate(items) if k % n == i - 1]
    dropped = [item for k, item in enumerate(items) if k % n != i - 1]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


@pytest.fixture
def gym_mujoco() -> None:
    """Skip, saying why, where Gymnasium's own MuJoCo envs (the references of the v5 tasks) cannot be imported:
    no Gymnasium, or Gymnasium without its [mujoco] extra (no imageio)."""
    try:
        import gymnasium.envs.mujoco.mujoco_rendering  # noqa: F401  (imports imageio, which [mujoco] brings)
    except Exception as exc:  # noqa: BLE001 - any import failure means no reference here
        pytest.skip(f"Gymnasium's MuJoCo envs cannot be imported ({exc}): pip install 'gymnasium[mujoco]'")


@pytest.fixture
def gym_frames(gym_mujoco: None) -> None:
    """Frame comparisons with Gymnasium's renderer: they need Gymnasium's MuJoCo envs (``gym_mujoco``), under
    Gymnasium 1.4 (which grows the offscreen buffer to the frame) and 1.2 (which sets it to the frame's size)
    alike: mdvec draws on the buffer the installed Gymnasium would (``mdvec._gl.gymnasium_offscreen_grows``)."""
