"""Argument types shared by the ``python -m mdvec`` commands: every value is checked while the command line
is parsed, before any work starts, and a bad one ends the command with one line and exit status 2.

Each helper returns a function for argparse's ``type=``; it raises ``argparse.ArgumentTypeError`` with a
message that says what is wanted and what was given, so argparse prints
``python -m mdvec CMD: argument --NAME: MESSAGE``. :class:`Parser` is the commands' ``ArgumentParser``:
its errors are that one line (no usage block), exit status 2 (``main(argv)`` of a command returns 2).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

SEED_MAX = 2**64 - 1  # the library's seeds are 64-bit
NUMPY_SEED_MAX = 2**32 - 1  # numpy's legacy seeding (SB3's set_random_seed) takes no more


class ArgumentRefused(SystemExit):
    """What :meth:`Parser.error` raises once its one line is printed: a ``SystemExit(2)``, so the command line
    exits with status 2, and a command's ``main(argv)`` catches it to return 2 like its other refusals."""


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line on stderr (naming the option), exit status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE (PROG -h lists the options)`` and raise :class:`ArgumentRefused` (status 2)."""
        self._print_message(f"{self.prog}: {message} ({self.prog} -h lists the options)\n", sys.stderr)
        raise ArgumentRefused(2)


def _int(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _bound(n: int) -> str:
    """n as a reader writes it: 2**64 - 1 rather than its twenty digits."""
    for bits in (32, 63, 64):
        if n == 2**bits - 1:
            return f"2**{bits} - 1"
    return str(n)


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """Return an argparse type: an integer in [low, high] (no upper bound when high is None)."""

    def parse(text: str) -> int:
        value = _int(text)
        if value < low or (high is not None and value > high):
            wanted = f"an integer >= {low}" if high is None else f"an integer in [{low}, {_bound(high)}]"
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value

    parse.__name__ = "int"
    return parse


def positive_int(text: str) -> int:
    """An integer >= 1 (a count of envs, threads, steps, episodes, pixels)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def seed_int(high: int = SEED_MAX) -> Callable[[str], int]:
    """Return an argparse type: a seed, an integer in [0, high]."""
    return int_in(0, high)


def int_list(low: int = 1, high: int | None = None) -> Callable[[str], tuple[int, ...]]:
    """Return an argparse type: a comma list of integers (at least one), each in [low, high]."""
    one = int_in(low, high)

    def parse(text: str) -> tuple[int, ...]:
        parts = [p for p in text.split(",") if p.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma list of integers like 1,2,4, got {text!r}")
        try:
            return tuple(one(p) for p in parts)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"{exc} (in {text!r})" if len(parts) > 1 else str(exc)) from None

    parse.__name__ = "int list"
    return parse


def finite_float(
    low: float | None = None, high: float | None = None, *, low_open: bool = False, high_open: bool = False
) -> Callable[[str], float]:
    """Return an argparse type: a finite float within the bounds (``low_open``: low itself excluded)."""
    lo = "" if low is None else ("(" if low_open else "[") + f"{low:g}"
    hi = "" if high is None else f"{high:g}" + (")" if high_open else "]")
    if low is not None and high is not None:
        wanted = f"a number in {lo}, {hi}"
    elif low is not None:
        wanted = f"a number {'>' if low_open else '>='} {low:g}"
    elif high is not None:
        wanted = f"a number {'<' if high_open else '<='} {high:g}"
    else:
        wanted = "a finite number"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        bad = not math.isfinite(value)
        if low is not None:
            bad = bad or value < low or (low_open and value == low)
        if high is not None:
            bad = bad or value > high or (high_open and value == high)
        if bad:
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value

    parse.__name__ = "float"
    return parse


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds)."""
    return finite_float(0.0, low_open=True)(text)


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _write_probe(folder: Path) -> str | None:
    """Why no file can be made in an existing folder, or None: a file is made there and removed at once (the
    permission bits alone do not tell: root passes them, a read-only mount or /proc still refuses)."""
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".mdvec-write-check-")
    except OSError as exc:
        return f"{folder} is not writable ({exc.strerror or exc})"
    os.close(fd)
    os.unlink(name)
    return None


def _can_make_folder(path: Path) -> str | None:
    """Why a folder cannot be at path (made there if missing, parents too), or None; leaves nothing behind."""
    if path.exists():
        if not path.is_dir():
            return f"{path} is a file, not a folder"
        return _write_probe(path)
    base = _nearest_existing(path)
    if not base.is_dir():
        return f"{base} is a file, so {path} cannot be made"
    why = _write_probe(base)
    return f"{why}, so {path} cannot be made" if why else None


def writable_folder(text: str) -> Path:
    """A folder that exists and is writable, or can be made (its parents too); nothing is made here."""
    path = Path(text)
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got ''")
    why = _can_make_folder(path)
    if why:
        raise argparse.ArgumentTypeError(why)
    return path


def writable_file(text: str) -> Path:
    """A file path that can be written: not a folder, writable if it exists, its folder writable or
    makeable (the command makes it when it writes); nothing is made here."""
    path = Path(text)
    if not text.strip() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"expected a file name, got {text!r}")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder; give a file name")
    if path.exists():
        try:
            with path.open("ab"):  # opened for appending, not written: the file is unchanged
                pass
        except OSError as exc:
            raise argparse.ArgumentTypeError(f"{path} is not writable ({exc.strerror or exc})") from None
    why = _can_make_folder(path.parent)
    if why:
        raise argparse.ArgumentTypeError(why)
    return path


def existing_file(text: str) -> Path:
    """A file that exists (a folder is refused by name)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a file")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file {path}")
    return path


def policy_path(text: str) -> str:
    """``hold-pose`` or an existing file (an SB3 policy zip: a train run folder names its policy.zip)."""
    if text == "hold-pose":
        return text
    path = Path(text)
    if path.is_dir():
        hint = f"; its policy is {path / 'policy.zip'}" if (path / "policy.zip").is_file() else ""
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a policy zip{hint}")
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file {path} (give a policy zip or hold-pose)")
    return text


def task(text: str) -> str:
    """A task of the catalogue by its name or declared Gymnasium id (``mdvec.vector.task_name``); returns the
    task's name."""
    from ..vector import task_name

    try:
        return task_name(text)
    except (ValueError, TypeError, OSError) as exc:
        message = str(exc)
        raise argparse.ArgumentTypeError(message.removeprefix("task: ")) from None


def add_task_option(parser: Any, help: str, metavar: str | None = None) -> None:
    """Add the tools' task option to parser (an ArgumentParser or a group): --env, alias --task, read by
    task() into args.env, None when not given."""
    parser.add_argument("--env", "--task", dest="env", type=task, default=None, metavar=metavar, help=help)
