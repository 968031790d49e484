"""Check README.md's examples: run every ```python block, and find every ```c block in the C example.

Usage: python ci/readme.py README.md examples/c/hold_pose.c [--all]   (run it with the interpreter that
has mdvec installed, from outside the source tree). Exit status 1 on the first failure.

A block that imports an optional extra (gymnasium, stable_baselines3, torch, ray) runs only where that
extra is installed: the wheel stage (core install) lists such blocks as left to the extras stage, which
runs this again with --all, where every block must run.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path


def blocks(text: str, lang: str) -> list[str]:
    """Return the bodies of the fenced blocks of one language, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def squash(code: str) -> str:
    """Return code with its whitespace runs made single spaces (indentation may differ)."""
    return " ".join(code.split())


OPTIONAL = ("gymnasium", "stable_baselines3", "torch", "ray")
ADAPTERS = {"mdvec.gym": "gymnasium", "mdvec.sb3": "stable_baselines3", "mdvec.rllib": "ray"}


def missing_extras(code: str) -> list[str]:
    """Return the optional modules the block imports (directly or through mdvec's adapters) that are
    not installed."""
    imported = re.findall(r"^\s*(?:import|from)\s+([\w.]+)", code, flags=re.M)
    needed = {name.split(".")[0] for name in imported} & set(OPTIONAL)
    needed |= {module for adapter, module in ADAPTERS.items()
               if any(name == adapter or name.startswith(adapter + ".") for name in imported)}
    return sorted(m for m in needed if importlib.util.find_spec(m) is None)


def main(readme: str, c_example: str, flag: str = "") -> int:
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
    left = []
    for k, code in enumerate(py, 1):
        missing = missing_extras(code)
        if missing:
            if flag == "--all":
                print(f"readme: Python block {k} needs {missing}, not installed (--all: every block must run)")
                return 1
            print(f"readme: Python block {k} needs {missing}: left to the extras stage (ci/extras.sh)")
            left.append(k)
            continue
        print(f"readme: running Python block {k} ({len(code.splitlines())} lines)", flush=True)
        exec(compile(code, f"{readme}:python-block-{k}", "exec"), {"__name__": "__readme__"})
    print(f"readme: {len(py) - len(left)} Python blocks ran, {len(left)} left to the extras stage; "
          f"{len(c)} C blocks OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
