"""Output paths of the command-line tools, checked before the work starts: a run that would end in a
traceback after minutes of work (an unwritable --out) says so at once instead, in one line."""

from __future__ import annotations

import os
from pathlib import Path


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def writable_dir(path: Path, what: str) -> Path:
    """Check that path is a folder that exists or can be made, and that it can be written; make it.
    Raise ValueError naming ``what`` (e.g. "--out") otherwise."""
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what}: {path} is a file, not a folder")
    base = _nearest_existing(path)
    if not base.is_dir():
        raise ValueError(f"{what}: {base} is a file, so {path} cannot be a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValueError(f"{what}: {base} is not writable")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{what}: cannot make {path}: {exc.strerror or exc}") from None
    return path


def writable_file(path: Path, what: str) -> Path:
    """Check that a file can be written at path (its folder made if missing; an existing file must be a
    writable regular file). Raise ValueError naming ``what`` otherwise."""
    if path.is_dir():
        raise ValueError(f"{what}: {path} is a folder; give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{what}: {path} is not writable")
    writable_dir(path.parent if str(path.parent) else Path("."), what)
    return path
