"""The version, from its one source: the MDVEC_VERSION_* macros of mdvec.h (meson.build checks its project
version against them at configure time; pyproject.toml takes meson's). The header sits inside an installed
package (mdvec/include/mdvec.h) or in the source tree (libmdvec/include/mdvec.h)."""

from __future__ import annotations

import re
from pathlib import Path


def header_version(header: Path) -> str:
    """Return "MAJOR.MINOR.PATCH" from a mdvec.h; raise ValueError when the macros are missing."""
    text = header.read_text()
    parts = [re.search(rf"#define MDVEC_VERSION_{k}\s+(\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise ValueError(f"{header}: no MDVEC_VERSION_MAJOR/MINOR/PATCH macros")
    return ".".join(m.group(1) for m in parts if m)


def _version() -> str:
    here = Path(__file__).resolve().parent
    for header in (here / "include" / "mdvec.h", here.parents[1] / "libmdvec" / "include" / "mdvec.h"):
        if header.is_file():
            return header_version(header)
    from importlib.metadata import version

    return version("mdvec")


__version__ = _version()
