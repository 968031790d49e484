"""``mdvec-config`` (also ``python -m mdvec config``): what a C or C++ build needs to use the libmdvec of
this pip-installed mdvec.

The installed package holds ``libmdvec.so.1`` (the file is named by its soname), ``include/mdvec.h``
and ``pkgconfig/mdvec.pc``, a pkg-config file whose paths are relative to itself. The flags printed
here are that file's, read with ``${pcfiledir}`` set to where it lies, so ``mdvec-config`` and
pkg-config never disagree::

    cc prog.c $(mdvec-config --cflags --libs)
    PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir) pkg-config --cflags --libs mdvec

``--libs`` names the library file (there is no ``libmdvec.so`` for ``-lmdvec``), an rpath to it (the
program runs without LD_LIBRARY_PATH) and an rpath-link to the mujoco package (the linker resolves
libmdvec's libmujoco; at run time libmdvec's own RUNPATH, ``$ORIGIN/../mujoco``, loads the mujoco
wheel's library). Gymnasium's v5 tasks take their model as the option ``xml_file``, a path:
``--gym-assets`` prints Gymnasium's assets folder, ``--model TASK`` a task's default model file.

Output: ``--cflags``/``--libs`` on one line, then each path asked for on a line of its own. In the
``--cflags``/``--libs`` line every character of a path that a shell would take apart (a space, a quote,
``$``...) is escaped with a backslash, as pkg-config escapes its ``${pcfiledir}``: the line is shell
words, read as such by a Makefile's recipe or by ``eval``, never split inside a path. A path with no
such character (the usual case) prints as it is, so ``$(mdvec-config --cflags --libs)``, which splits
at spaces and leaves backslashes alone, works; where the path has a space, use
``eval "cc prog.c $(mdvec-config --cflags --libs)"``. The paths on their own lines print as they are
(``PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir)`` is not split). Exit
status 0; 2 with a message on stderr for an unknown flag, no flag, an unknown task, no gymnasium, or
an mdvec that is not a pip install (a source checkout: meson install writes the .pc file there).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

PC_FILE = Path("pkgconfig") / "mdvec.pc"  # in the package folder (libmdvec/meson.build installs it)
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.]+)\}")
_SHELL_SPECIAL = re.compile(r"[^A-Za-z0-9_@%+=:,./-]")  # what a POSIX shell could take apart in a word


class ConfigError(Exception):
    """What mdvec-config cannot answer here; the message says why and what to do."""


def package_dir() -> Path:
    """Return the folder of the installed mdvec package."""
    return Path(__file__).resolve().parents[1]


def shell_escape(text: str) -> str:
    """Return text with a backslash before every character a POSIX shell would split or expand (a space,
    quotes, ``$``, ``*``...), as pkg-config escapes spaces in paths: ``sh`` reads it back as one word.
    A newline, which a backslash cannot escape (it would join lines), is put in single quotes."""
    return _SHELL_SPECIAL.sub(lambda m: "'\n'" if m.group(0) == "\n" else "\\" + m.group(0), text)


def read_pc(path: Path, escape: bool = False) -> dict[str, str]:
    """Return the fields of a pkg-config file (``Cflags``, ``Libs``, ...), its ``${variables}``
    expanded, ``${pcfiledir}`` being the file's folder and every absolute path variable normalised.
    With escape, a variable's value is shell-escaped (:func:`shell_escape`) where a field uses it."""
    variables = {"pcfiledir": str(path.parent)}
    fields: dict[str, str] = {}

    def expand(text: str, line_no: int, field: bool = False) -> str:
        def one(match: re.Match[str]) -> str:
            if match.group(1) not in variables:
                raise ConfigError(f"{path}:{line_no}: undefined variable ${{{match.group(1)}}}")
            value = variables[match.group(1)]
            return shell_escape(value) if field and escape else value

        return _VARIABLE.sub(one, text)

    for line_no, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.match(r"([A-Za-z0-9_.]+)\s*([=:])\s*(.*)$", line)
        if match is None:
            raise ConfigError(f"{path}:{line_no}: not a pkg-config line: {line!r}")
        name, kind = match.group(1), match.group(2)
        value = expand(match.group(3), line_no, field=kind == ":")
        if kind == "=":
            variables[name] = os.path.normpath(value) if value.startswith("/") else value
        else:
            fields[name] = value
    return fields


def pc_path() -> Path:
    """Return the package's mdvec.pc; raise ConfigError when this mdvec is not a pip install."""
    path = package_dir() / PC_FILE
    if not path.is_file():
        raise ConfigError(
            f"no {path}: this mdvec ({package_dir()}) is not a pip install of the wheel. "
            "Install it (bash ci/build_wheel.sh dist && pip install dist/mdvec-*.whl), or in "
            "a source checkout use the mdvec.pc that meson install writes (docs/install.md)"
        )
    return path


def model_file(task: str) -> str:
    """Return the absolute path of a Gymnasium task's default model file (its ``xml_file``)."""
    from ..gym_tasks import GYM_TASKS

    if task not in GYM_TASKS:
        raise ConfigError(
            f"--model: unknown task {task!r}; the Gymnasium tasks are {', '.join(GYM_TASKS)} "
            "(the duck's models are built into libmdvec)"
        )
    path = os.path.join(gym_assets(), GYM_TASKS[task].xml_file)
    if not os.path.isfile(path):
        raise ConfigError(
            f"--model {task}: the installed gymnasium has no {path}; "
            "pip install 'mdvec[gymnasium]' installs a Gymnasium that has it"
        )
    return path


def gym_assets() -> str:
    """Return gymnasium/envs/mujoco/assets of the installed gymnasium."""
    from ..gym_tasks import assets_dir

    try:
        return assets_dir()
    except ImportError as exc:
        raise ConfigError(str(exc)) from None


def parser(prog: str = "mdvec-config") -> argparse.ArgumentParser:
    """Return the command line's parser (exit status 2 and usage on stderr for an unknown flag)."""
    p = argparse.ArgumentParser(
        prog=prog,
        description="Print what a C/C++ build needs to use the pip-installed libmdvec: "
        "cc prog.c $(mdvec-config --cflags --libs). Same as python -m mdvec config.",
    )
    p.add_argument("--cflags", action="store_true", help="compiler flags: -I to the package's include/ (mdvec.h)")
    p.add_argument(
        "--libs",
        action="store_true",
        help="linker flags: the package's libmdvec.so.1, an rpath to it, an rpath-link to mujoco's",
    )
    p.add_argument(
        "--pkgconfigdir",
        action="store_true",
        help="the folder of mdvec.pc, for PKG_CONFIG_PATH (relocatable: paths relative to it)",
    )
    p.add_argument(
        "--gym-assets",
        action="store_true",
        help="Gymnasium's MuJoCo model folder (gymnasium/envs/mujoco/assets); needs gymnasium",
    )
    p.add_argument(
        "--model",
        metavar="TASK",
        help="the default model file of a Gymnasium task (e.g. Hopper-v5), for its xml_file option",
    )
    return p


def answer(args: argparse.Namespace) -> list[str]:
    """Return the lines to print for parsed arguments; raise ConfigError for what cannot be answered."""
    lines = []
    if args.cflags or args.libs:
        fields = read_pc(pc_path(), escape=True)
        wanted = [name for name, asked in (("Cflags", args.cflags), ("Libs", args.libs)) if asked]
        lines.append(" ".join(fields[name] for name in wanted if fields.get(name)))
    if args.pkgconfigdir:
        lines.append(str(pc_path().parent))
    if args.gym_assets:
        lines.append(gym_assets())
    if args.model is not None:
        lines.append(model_file(args.model))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run mdvec-config; return the exit status."""
    p = parser()
    args = p.parse_args(argv)
    if not (args.cflags or args.libs or args.pkgconfigdir or args.gym_assets or args.model is not None):
        p.print_usage(sys.stderr)
        print(f"{p.prog}: error: give at least one flag (-h lists them)", file=sys.stderr)
        return 2
    try:
        lines = answer(args)
    except ConfigError as exc:
        print(f"{p.prog}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
