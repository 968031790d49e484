"""docs/adding_a_task.md quotes its worked example from the real file: each fenced block after a
``<!-- quote: PATH region: NAME -->`` line must equal the text between ``/* region: NAME */`` and
``/* endregion: NAME */`` of PATH, and every region of the example is quoted."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "adding_a_task.md"
QUOTE = re.compile(r"<!-- quote: (\S+) region: (.+?) -->\n```c\n(.*?)```\n", re.S)


def regions(path: Path) -> dict[str, str]:
    text = path.read_text()
    return {
        m.group(1): m.group(2) for m in re.finditer(r"/\* region: (.+?) \*/\n(.*?)/\* endregion: \1 \*/\n", text, re.S)
    }


def test_quoted_regions_match_the_files() -> None:
    quotes = QUOTE.findall(DOC.read_text())
    assert len(quotes) >= 5, "the worked example's quotes are missing"
    quoted: dict[str, set[str]] = {}
    for path, name, block in quotes:
        found = regions(ROOT / path)
        assert name in found, f"{path} has no region {name!r}"
        assert block == found[name], f"docs/adding_a_task.md's quote of {path} region {name!r} differs from the file"
        quoted.setdefault(path, set()).add(name)
    for path, names in quoted.items():
        assert names == set(regions(ROOT / path)), f"{path}: regions not quoted: {set(regions(ROOT / path)) - names}"


def test_hopper_excerpt_occurs_in_the_file() -> None:
    """The one unmarked excerpt (Hopper's mk_def) is in hopper.c as written."""
    doc = DOC.read_text()
    block = doc[doc.index("static const mk_def hopper_def") :]
    block = block[: block.index("```")]
    assert block in (ROOT / "libmdvec" / "src" / "tasks" / "hopper.c").read_text()
