"""Shared fixtures: the real robot's files (skipped without ../shared) and a zero-action helper."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "python") not in sys.path:  # run from a checkout without PYTHONPATH too
    sys.path.insert(0, str(ROOT / "python"))

REAL_DUCK = Path(os.environ.get("MDVEC_REAL_DUCK", ROOT.parent / "shared" / "models" / "open_duck_mini_v2"))


@pytest.fixture
def real_duck() -> Path:
    """Return the real Open Duck Mini v2 folder, or skip when ../shared is not there."""
    if not (REAL_DUCK / "scene_flat_terrain.xml").is_file():
        pytest.skip(f"real Open Duck Mini v2 not found at {REAL_DUCK}")
    return REAL_DUCK
