"""Check README.md's examples: run every ```python block, and find every ```c block in the C example.

Usage: python ci/readme.py README.md examples/c/hold_pose.c   (run it with the interpreter that has
mdvec installed, from outside the source tree). Exit status 1 on the first failure.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def blocks(text: str, lang: str) -> list[str]:
    """Return the bodies of the fenced blocks of one language, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def squash(code: str) -> str:
    """Return code with its whitespace runs made single spaces (indentation may differ)."""
    return " ".join(code.split())


def main(readme: str, c_example: str) -> int:
    text = Path(readme).read_text()
    py, c = blocks(text, "python"), blocks(text, "c")
    if not py or not c:
        print(f"readme: expected python and c blocks in {readme}, found {len(py)} and {len(c)}")
        return 1
    source = squash(Path(c_example).read_text())
    for k, code in enumerate(c, 1):
        if squash(code) not in source:
            print(f"readme: C block {k} is not in {c_example} (keep the README's excerpt in step with it)")
            return 1
        print(f"readme: C block {k} matches {c_example}")
    for k, code in enumerate(py, 1):
        print(f"readme: running Python block {k} ({len(code.splitlines())} lines)", flush=True)
        exec(compile(code, f"{readme}:python-block-{k}", "exec"), {"__name__": "__readme__"})
    print(f"readme: {len(py)} Python and {len(c)} C blocks OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
