"""Where the built-in duck models and the servo fits table live.

An installed package carries them in ``mdvec/models``; a source checkout keeps the one copy in
``libmdvec/models`` (the same files are embedded into libmdvec at build time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

VARIANTS: dict[str, str] = {
    "default": "duck.xml",
    "backlash": "duck_backlash.xml",
    "backlash_lower": "duck_backlash_lower.xml",
}
SERVO_FITS_FILE = "servo_fits.csv"


def models_dir() -> Path:
    """Return the folder holding the built-in models (installed package first, then the checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "models", here.parents[1] / "libmdvec" / "models"):
        if (candidate / SERVO_FITS_FILE).is_file():
            return candidate
    raise FileNotFoundError(
        f"mdvec: built-in models not found in {here / 'models'} or the source tree; reinstall mdvec"
    )


def variant_path(variant: str) -> Path:
    """Return the MJCF file of a built-in variant; raise ValueError naming the variant otherwise."""
    if variant not in VARIANTS:
        raise ValueError(f"variant: unknown variant {variant!r}; choose one of {sorted(VARIANTS)}")
    return models_dir() / VARIANTS[variant]


def servo_fits() -> np.ndarray:
    """Return the servo fits table, shape (rows, 5): kp, damping, armature, frictionloss, forcerange."""
    rows = []
    for line in (models_dir() / SERVO_FITS_FILE).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line[0].isalpha():
            continue
        rows.append([float(x) for x in line.split(",")])
    table = np.array(rows, dtype=np.float64)
    if table.ndim != 2 or table.shape[1] != 5 or len(table) == 0:
        raise ValueError(f"{SERVO_FITS_FILE}: expected rows of 5 values, got shape {table.shape}")
    return table
