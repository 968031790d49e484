"""The package's layers (issue 25 item 13), read from the source with ``ast``: every import of every module,
at module level or inside a function.

* core: every module of ``mdvec`` but those below (``vecenv``, ``vector``, ``_shared``, ``_calls``, the
  reference, ...): imports only core modules. Before: ``mdvec.vector`` imported ``mdvec.adapters._shared`` and
  ``mdvec.adapters.gym``, while ``adapters.gym`` imported ``mdvec.vector``: a circle between the core and an
  adapter.
* adapters: ``mdvec.adapters.*`` and their public names ``mdvec.gym``, ``mdvec.sb3``, ``mdvec.rllib``: import
  the core and adapters, never the tools; the Gymnasium adapter no other adapter (SB3's and RLlib's build on it).
* tools: ``mdvec.tools.*`` and ``mdvec.__main__``: anything; nothing else imports them.
* the package itself (``mdvec/__init__.py``): the core, and the Gymnasium adapter's public name in one place,
  ``_register_gymnasium_ids`` (``import mdvec`` registers the ids when Gymnasium is installed).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "mdvec"
PUBLIC_ADAPTERS = {"mdvec.gym", "mdvec.sb3", "mdvec.rllib"}  # mdvec/gym.py ... publish mdvec.adapters.*
ROOT_MAY_IMPORT = {("mdvec.gym", "_register_gymnasium_ids")}  # (module, the function importing it)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(name: str) -> str:
    if name == "mdvec":
        return "package"
    if name.startswith(("mdvec.adapters.", "mdvec.adapters")) or name in PUBLIC_ADAPTERS:
        return "adapters"
    if name.startswith("mdvec.tools") or name == "mdvec.__main__":
        return "tools"
    return "core"


def adapter_of(name: str) -> str:
    """The adapter a module belongs to: "gym", "sb3", "rllib" (or "" for the adapters package itself)."""
    first = name.removeprefix("mdvec.adapters").removeprefix("mdvec").strip(".").split(".")[0]
    return "" if first.startswith("_") else first  # a private module of the adapters package: no adapter


def imports(name: str) -> list[tuple[str, str]]:
    """(imported mdvec module, enclosing function or "") for each import in module ``name``; ``from X import Y``
    counts as importing X.Y when that is a module of the package, else X."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Import):
                found.extend((alias.name, function) for alias in child.names if alias.name.split(".")[0] == "mdvec")
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                if source.split(".")[0] != "mdvec":
                    continue
                for alias in child.names:
                    sub = f"{source}.{alias.name}"
                    found.append((sub if sub in MODULES else source, function))
            visit(child, inner)

    visit(ast.parse(path.read_text(), str(path)), "")
    return found


def violations() -> list[str]:
    out = []
    for name in MODULES:
        mine = layer(name)
        for target, function in imports(name):
            theirs = layer(target)
            where = f"{name} imports {target}" + (f" (in {function})" if function else "")
            if theirs == "tools" and mine != "tools":
                out.append(f"{where}: only the tools import the tools")
            elif mine == "core" and theirs != "core":
                out.append(f"{where}: the core imports only the core")
            elif mine == "package" and theirs == "adapters" and (target, function) not in ROOT_MAY_IMPORT:
                out.append(f"{where}: the package imports an adapter only to register the Gymnasium ids")
            elif mine == "adapters" and theirs == "adapters" and adapter_of(name) == "gym":
                if adapter_of(target) not in ("gym", ""):
                    out.append(f"{where}: the Gymnasium adapter builds on no other adapter")
            elif mine == "adapters" and theirs == "package":
                out.append(f"{where}: an adapter imports the core modules it uses, not the package (which imports it)")
    return list(dict.fromkeys(out))


def test_the_module_list_is_the_package() -> None:
    """The checks below see the modules that matter (a wrong root would pass them vacuously)."""
    for name in (
        "mdvec",
        "mdvec.vecenv",
        "mdvec.vector",
        "mdvec._shared",
        "mdvec.adapters.gym.vector",
        "mdvec.tools.cli",
    ):
        assert name in MODULES, name
    assert ("mdvec._shared", "") in imports("mdvec.adapters.gym.env")  # relative imports resolved
    assert layer("mdvec.gym") == "adapters" and layer("mdvec.vector") == "core"


def test_the_core_never_imports_an_adapter_and_adapters_depend_on_the_core() -> None:
    assert violations() == []


def test_mdvec_make_builds_the_gymnasium_class_through_the_registry_the_adapter_fills() -> None:
    """``mdvec.make`` returns the Gymnasium class without the core naming the adapter: importing the Gymnasium
    adapter registers its class of each id with the core (``mdvec.vector.VECTOR_CLASSES``)."""
    import pytest

    pytest.importorskip("gymnasium", reason="gymnasium is not installed")
    import mdvec
    import mdvec.gym
    from mdvec.vector import VECTOR_CLASSES

    assert VECTOR_CLASSES[mdvec.gym.DUCK_ID] is mdvec.gym.DuckBalanceVectorEnv
    env = mdvec.make("duck", num_envs=2)
    assert type(env) is mdvec.gym.DuckBalanceVectorEnv
    env.close()


def test_without_gymnasium_nothing_of_the_adapters_loads(tmp_path: Path) -> None:
    """In a process where Gymnasium cannot be imported, ``import mdvec`` and ``mdvec.make`` load no module of
    the adapters, and make() builds the core's VectorEnv."""
    from test_hardening import run_child

    out = run_child(
        """
        import sys
        sys.modules["gymnasium"] = None  # import gymnasium fails
        import mdvec
        from mdvec.vector import VectorEnv
        envs = mdvec.make("duck", num_envs=2)
        envs.reset(seed=0)
        envs.close()
        print(type(envs) is VectorEnv, sorted(m for m in sys.modules if m.startswith("mdvec.adapters")))
    """,
        tmp_path,
    )
    assert out.returncode == 0 and out.stdout.strip() == "True []", (out.stdout, out.stderr)
