"""Smoke tests of the benchmarks: the side-by-side driver and the C benchmark binary, tiny settings."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mdvec.tools import bench

C_BENCH = bench.find_c_bench()  # as bench.main finds it: $MDVEC_BENCH, else a build folder; None: not built


def _library_or_skip() -> None:
    """Skip (with the reason) when libmdvec cannot be loaded: not built (ImportError) or unloadable (OSError)."""
    try:
        from mdvec.vecenv import lib

        lib()
    except (ImportError, OSError) as exc:
        pytest.skip(f"libmdvec not loadable: {type(exc).__name__}: {exc}")


def _allowed_skip(backend: str) -> bool:
    """Whether a backend may be skipped here: only for a missing optional dependency."""
    return (backend == "gymnasium" and bench.gymnasium is None) or (
        backend == "bare C" and (C_BENCH is None or not C_BENCH.is_file())
    )


def test_quick_side_by_side_has_every_backend(tmp_path: Path) -> None:
    _library_or_skip()
    code = bench.main(["--quick", "--window-seconds", "0.05", "--out", str(tmp_path), "--no-plot"])
    assert code == 0
    [path] = tmp_path.glob("sidebyside_*.json")
    report = json.loads(path.read_text())
    cells = {c["backend"]: c for c in report["results"]}
    assert set(cells) == set(bench.BACKENDS)
    for name, cell in cells.items():
        if cell["skipped"]:
            assert _allowed_skip(name), f"{name}: {cell['skipped']}"
            continue
        assert len(cell["rates"]) == report["settings"]["rounds"], name
        assert all(r > 0 for r in cell["rates"]), name
        assert cell["median"] > 0, name
    assert report["ratios"][0]["mdvec_over"]["processes"] > 0
    assert {"cores", "loadavg", "cpu_model", "date"} <= set(report["machine"])


def test_default_output_is_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Results go under ./mdvec-bench-results, never into the package or site-packages."""
    monkeypatch.chdir(tmp_path)
    args = bench.parse_args(["--quick"])
    assert not args.out.is_absolute() and args.out.resolve() == tmp_path / "mdvec-bench-results"


def test_c_bench_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$MDVEC_BENCH wins; outside a source checkout nothing is found, and the skip says how to build it."""
    monkeypatch.setenv("MDVEC_BENCH", str(tmp_path / "mdvec_bench"))
    assert bench.find_c_bench() == tmp_path / "mdvec_bench"
    assert bench.parse_args(["--quick"]).c_bench == tmp_path / "mdvec_bench"
    monkeypatch.delenv("MDVEC_BENCH")
    monkeypatch.setattr(bench, "ROOT", tmp_path)  # as from site-packages: no meson.build, no bench/
    assert bench.find_c_bench() is None
    s = bench.Settings((1,), (1,), 0.1, 1, 0, ("bare C",), False, None)
    with pytest.raises(RuntimeError, match="MDVEC_BENCH"):
        bench.make_backend("bare C", 1, 1, s)


def test_summaries_and_plot_from_synthetic_cells(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    s = bench.Settings((1, 2), (1, 8), 1.0, 2, 0, ("mdvec", "processes"), False, Path("none"))
    cells = []
    for w in s.workers:
        for e in s.envs_per_worker:
            for b, base in (("mdvec", 1000.0), ("processes", 250.0)):
                cell = bench.Cell(b, w, e, w * e)
                cell.windows = [bench.Window(10, 1.0, base * w), bench.Window(10, 1.0, base * w * 0.9)]
                cells.append(cell)
    ratios = bench.ratios(cells, s)
    assert ratios[0]["mdvec_over"]["processes"] == pytest.approx(4.0)
    eff = {(r["backend"], r["workers"], r["envs_per_worker"]): r["efficiency"] for r in bench.efficiencies(cells, s)}
    assert eff["mdvec", 2, 8] == pytest.approx(1.0)
    assert bench.plot(cells, s, ratios, tmp_path / "p.png").startswith("wrote")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_c_bench_sweep_writes_json(tmp_path: Path) -> None:
    binary = C_BENCH
    if binary is None or not binary.is_file():
        pytest.skip(f"mdvec_bench not built ({binary or 'none found'}): {bench.C_BENCH_HELP}")
    out = tmp_path / "c.json"
    proc = subprocess.run(
        [
            str(binary),
            "--mode",
            "sweep",
            "--threads",
            "1,2",
            "--envs",
            "2",
            "--window-steps",
            "2",
            "--windows",
            "2",
            "--warmup-steps",
            "1",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert [r["threads"] for r in report["rows"]] == [1, 2]
    assert len(report["reference"]["windows"]) == 3  # before the sweep and after each row
    assert all(w["rate"] > 0 for r in report["rows"] for w in r["windows"])
    assert isinstance(report["unstable"], bool) and isinstance(report["trending"], bool)
    assert isinstance(report["warnings"], list)


def test_root_is_the_source_checkout() -> None:
    """bench.ROOT finds the checkout's bench/ and build*/ (for the bare C column without MDVEC_BENCH)."""
    assert (bench.ROOT / "bench" / "bench_c.c").is_file()
    assert bench.ROOT == Path(__file__).resolve().parents[2]
