"""bench/pixels_sidebyside.py without running the benchmark: its summary and table from synthetic cells (medians,
ratios against mdvec, the render share from the state cells) and one real cell of mdvec's state observations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load() -> Any:
    spec = importlib.util.spec_from_file_location("pixels_sidebyside", ROOT / "bench" / "pixels_sidebyside.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["pixels_sidebyside"] = module
    spec.loader.exec_module(module)
    return module


def test_summary_and_table_from_synthetic_cells() -> None:
    ps = load()
    frames = 4 * 10  # envs x steps

    def w(seconds: float, k: int = 0) -> dict[str, Any]:
        return {"wall_s": seconds, "cpu_s": seconds, "round": k}

    report = {
        "args": {"envs": 4, "steps": 10, "warmup": 1, "rounds": 3},
        "machine": {"date": "today", "cpu_model": "cpu", "cores": 2},
        "renderer": "llvmpipe",
        "cells": {
            "mdvec|Hopper-v5|84|1|pixels": [w(4.0), w(5.0, 1), w(6.0, 2)],  # median 5 s: 8 frames/s
            "mdvec|Hopper-v5|0|1|state": [w(0.5), w(0.5, 1), w(0.5, 2)],
            "mdvec|Hopper-v5|84|2|pixels": [w(2.5), w(2.5, 1), {"error": "boom", "round": 2}],
            "gymnasium|Hopper-v5|84|1|pixels": [w(10.0), w(10.0, 1), w(12.0, 2)],
            "gymnasium|Hopper-v5|0|1|state": [w(1.0)],
        },
        "skipped": {"envpool": "no interpreter with envpool"},
    }
    rows = {(r["engine"], r["threads"]): r for r in ps.summarize(report)}
    md = rows[("mdvec", 1)]
    assert md["frames_per_s"] == frames / 5.0 and md["rounds"] == 3
    assert md["render_share"] == pytest.approx(1 - 0.5 / 5.0)
    assert md["physics_ms_per_env_step"] == pytest.approx(1e3 * 0.5 / frames)
    assert rows[("mdvec", 2)]["errors"] == ["boom"] and rows[("mdvec", 2)]["rounds"] == 2
    gym = rows[("gymnasium", 1)]
    assert gym["mdvec_over_this_by_threads"] == {1: pytest.approx(2.0), 2: pytest.approx(4.0)}
    assert gym["mdvec_over_this_paired"] == {1: pytest.approx(2.0), 2: pytest.approx(4.0)}  # rounds 0-2; 0-1
    report["rows"] = list(rows.values())
    table = ps.markdown(report)
    assert "| Hopper-v5 | 84 | gymnasium | 1 (Python) | 4.0 | T1: 2.00, T2: 4.00 | T1: 2.00, T2: 4.00 |" in table
    assert "envpool: no interpreter with envpool" in table


def test_one_state_cell_runs() -> None:
    pytest.importorskip("gymnasium", reason="gymnasium is not installed (the v5 task's model)")
    ps = load()
    out = ps.run_cell(
        sys.executable,
        {
            "engine": "mdvec",
            "task": "Hopper-v5",
            "n": 2,
            "threads": 1,
            "size": 0,
            "pixels": False,
            "steps": 2,
            "warmup": 1,
        },
        120,
    )
    assert "error" not in out, out
    assert out["wall_s"] > 0 and out["obs_shape"] == [2, 11]
