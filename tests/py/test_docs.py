"""Documents that quote data, checked against it.

docs/adding_a_task.md quotes its worked example from the real file: each fenced block after a
``<!-- quote: PATH region: NAME -->`` line must equal the text between ``/* region: NAME */`` and
``/* endregion: NAME */`` of PATH, and every region of the example is quoted.

README.md's speed table shows one benchmark run: its rates are the run's medians (bench/results/RUN.json),
its ratios the quotients of the rates shown, and the prose around it holds for those numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


README = ROOT / "README.md"
SPEED_HEADER = (
    "| task | mdvec, 1 thread | EnvPool, 1 thread | mdvec / EnvPool | mdvec, 2 threads | EnvPool, 2 threads "
    "| mdvec / EnvPool | Gymnasium `SyncVectorEnv` | bare physics, 1 thread |"
)
# Each column of the speed table: the run's JSON row key and thread count, or "ratio" (the two columns before).
SPEED_COLUMNS = (("mdvec", 1), ("envpool", 1), "ratio", ("mdvec", 2), ("envpool", 2), "ratio", ("sync", 1), ("bare", 1))


def speed_table() -> tuple[str, list[str], list[list[str]]]:
    """The README's v5 speed table: the paragraph above it, its header line, its rows (cells)."""
    text = README.read_text()
    start = text.index("**Speed on the v5 tasks**")
    lines = text[start:].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = lines[first : next(i for i in range(first, len(lines)) if not lines[i].startswith("|"))]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table[2:]]
    return "\n".join(lines[:first]), table[0], rows


def test_readme_speed_table_is_one_runs_data() -> None:
    """The README's speed table shows one run (the one its paragraph names): each rate is that run's median
    as its JSON holds it, each mdvec / EnvPool the quotient of the two rates before it (within rounding), and
    the paragraph's machine, date and versions are the run's."""
    import json

    intro, header, rows = speed_table()
    runs = set(re.findall(r"v5_\w+?_\d{8}-\d{6}", intro))
    assert len(runs) == 1, f"README: the speed table's paragraph must name one run, names {sorted(runs)}"
    path = ROOT / "bench" / "results" / f"{runs.pop()}.json"
    if not path.parent.is_dir():
        pytest.skip("no bench/results/ here (an sdist leaves the recorded runs out)")
    run = json.loads(path.read_text())
    n = int(re.search(r"(\d+) envs", intro).group(1))  # type: ignore[union-attr]
    versions, machine = run["versions"], run["machine"]
    for fact in (
        f"mdvec {versions['mdvec']}",
        f"mujoco {versions['mujoco']}",
        f"EnvPool {versions['envpool']} with its MuJoCo {versions['envpool_mujoco']}",
        f"Gymnasium {versions['gymnasium']}",
        machine["date"][:10],
        f"{machine['cores']} vCPUs of an {machine['cpu_model']}",
        f"{run['settings']['rounds']} rounds of {run['settings']['window_seconds']} s windows",
    ):
        assert fact in " ".join(intro.split()), f"README: the speed table's paragraph does not say {fact!r} (the run's)"
    assert header == SPEED_HEADER, "README: the speed table's columns changed: update SPEED_COLUMNS with them"
    medians = {(r["task"], r["threads"]): r for r in run["rows"] if r["num_envs"] == n}
    assert sorted(row[0] + "-v5" for row in rows) == sorted(run["settings"]["tasks"])
    for task, *cells in rows:
        shown: list[float] = []
        for column, cell in zip(SPEED_COLUMNS, cells):
            if column == "ratio":
                quotient = shown[-2] / shown[-1]
                assert abs(float(cell) - quotient) <= 0.005 + 1e-9, (
                    f"README {task}: ratio {cell}, the rates give {quotient:.3f}"
                )
                shown.append(float(cell))
                continue
            key, threads = column
            want = f"{round(medians[(task + '-v5', threads)][key]):,}"
            assert cell == want, f"README {task}: {key} at {threads} thread(s) is {cell}, the run's median {want}"
            shown.append(float(cell.replace(",", "")))


def test_readme_speed_claims_hold_for_the_table() -> None:
    """The README's prose about the table holds for the numbers it shows: ahead of EnvPool on all eleven
    tasks at 1 thread and on most at 2, each task behind at 2 threads named with its ratio, and the
    range of mdvec / bare physics at 1 thread."""
    _, _, rows = speed_table()
    text = " ".join(README.read_text().split())
    after = text[text.index("mdvec is the raw binding") : text.index("## Documentation")]
    one, two = [float(r[3]) for r in rows], [float(r[6]) for r in rows]
    assert "faster than EnvPool (on all eleven at 1 thread, on most at 2)" in text
    assert len(rows) == 11 and min(one) > 1, f"1 thread: {one}"
    assert sum(r > 1 for r in two) > len(two) / 2, f"2 threads: {two}"
    for row in rows:
        if float(row[6]) < 1:
            assert f"{row[0]} ({row[6]})" in after, (
                f"README: {row[0]} is behind EnvPool at 2 threads ({row[6]}): say so"
            )
    to_bare = [float(r[1].replace(",", "")) / float(r[8].replace(",", "")) for r in rows]
    stated = f"mdvec's rate is {min(to_bare):.2f}-{max(to_bare):.2f} times bare's at 1 thread"
    assert stated in after, f"README: the table gives {stated!r}"
