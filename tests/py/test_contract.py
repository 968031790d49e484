"""python -m mdvec contract: the --task filter, the unknown-task error, a quick run of v5 tasks
(0 mismatches, non-zero counts), a perturbed C env caught (exit status 1) and explained (hex, ulps), the
tasks that use numpy's dot reported NOT PROVEN when that dot is unknown, and the v5 rows listed as
skipped, not passed, when gymnasium is unavailable."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import mdvec
from mdvec.gym_tasks import GYM_TASKS
from mdvec.tools import cli, contract


def test_tasks_are_the_whole_catalogue() -> None:
    """The duck, every v5 task and mdvec's own tasks with a Python reference: every catalogue task."""
    assert contract.TASKS == ("duck", *GYM_TASKS, *contract.OWN_TASKS)
    assert len(GYM_TASKS) == 11
    assert "cartpole_swingup" in contract.OWN_TASKS
    assert sorted(contract.TASKS) == sorted(mdvec.task_names())


def test_task_filter_repeatable_and_comma_list() -> None:
    assert contract.select_tasks(None) == list(contract.TASKS)
    assert contract.select_tasks(["Hopper-v5"]) == ["Hopper-v5"]
    # report order, duplicates once, spaces ignored
    assert contract.select_tasks(["Pusher-v5, duck", "Hopper-v5", "duck"]) == ["duck", "Hopper-v5", "Pusher-v5"]
    duck = contract.default_cases(quick=True, tasks=["duck"])
    assert duck and {c.task for c in duck} == {"duck"}
    assert [c.name for c in duck] == [
        c.name for c in contract.default_cases(quick=True) if c.task == "duck"
    ]  # the duck cases are unchanged by the filter
    hop = contract.default_cases(quick=True, tasks=["Hopper-v5,Ant-v5"])
    assert [(c.task, c.autoreset, c.kind) for c in hop] == [
        ("Hopper-v5", "next_step", "v5"),
        ("Hopper-v5", "same_step", "v5"),
        ("Ant-v5", "next_step", "v5"),
        ("Ant-v5", "same_step", "v5"),
    ]
    assert all(c.cfg["max_episode_steps"] == contract.V5_MAX_STEPS for c in hop)


@pytest.mark.parametrize("names", [["Foo"], ["duck,hopper-v5"], ["Hopper-v5", "Bar-v5"]])
def test_unknown_task_refused_listing_valid_ones(names: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="unknown task") as err:
        contract.select_tasks(names)
    for valid in contract.TASKS:
        assert valid in str(err.value)
    argv = ["contract", "--quick"] + [a for n in names for a in ("--task", n)]
    assert cli.main(argv) == 2
    msg = capsys.readouterr().err
    assert "unknown task" in msg and "valid tasks: duck, Hopper-v5" in msg and "Pusher-v5" in msg


def test_count_values() -> None:
    a = np.array([1.0, -0.0, np.nan])
    assert contract.count_values(a, a.copy()) == (3, 3)
    assert contract.count_values(a, np.array([1.0, 0.0, np.nan])) == (3, 2)  # -0.0 vs 0.0: other bits
    assert contract.count_values(a, a.astype(np.float32)) == (3, 0)  # dtype differs
    ref = {"x": np.array([True, False]), "_x": np.array([True, True]), "o": np.array([None, a], dtype=object)}
    got = {"x": np.array([True, False]), "_x": np.array([True, True]), "o": np.array([None, a], dtype=object)}
    assert contract.count_values(ref, got) == (8, 8)  # 2 + 2 + None + 3
    assert contract.count_values(ref, {**got, "extra": 1}) == (9, 8)
    assert contract.count_values(1.0, np.float64(1.0)) == (1, 0)  # Python float vs numpy: other type


pytest.importorskip("gymnasium", reason="gymnasium is not installed")


def _v5_ready() -> None:
    reason = contract.v5_unavailable()
    if reason:
        pytest.skip(reason)


def test_quick_run_of_two_v5_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _v5_ready()
    out = tmp_path / "contract.json"
    assert (
        cli.main(["contract", "--quick", "--task", "InvertedPendulum-v5", "--task", "Hopper-v5", "--json", str(out)])
        == 0
    )
    text = capsys.readouterr().out
    assert "EQUAL" in text and "NOT EQUAL" not in text
    table = json.loads(out.read_text())
    assert set(table) >= {"cases", "tasks", "total"}
    assert list(table["tasks"]) == ["Hopper-v5", "InvertedPendulum-v5"]
    assert len(table["cases"]) == 4
    for row in table["cases"]:
        assert row["identical"] and row["passed"] and not row["skipped"]
        assert row["episodes"] > 0 and row["steps"] > 0 and row["info_values"] > 0
        assert row["values"] > 0 and row["values_identical"] == row["values"]
        assert row["obs_identical"] == row["observations"] > 0
        assert row["rewards_identical"] == row["steps"]
        assert row["flag_mismatches"] == 0 and row["info_mismatches"] == 0
    for name, row in table["tasks"].items():
        assert row["passed"] and row["mismatches"] == 0, name
        assert row["episodes"] > 0 and row["values"] == row["values_identical"] > 0
        assert name in text
    t = table["total"]
    assert t["identical"] and t["passed"] == t["cases"] == 4 and t["skipped"] == 0
    assert t["not_proven"] == []  # neither task computes numpy's dot
    for key in (
        "episodes",
        "steps",
        "observations",
        "obs_identical",
        "rewards_identical",
        "flag_mismatches",
        "info_mismatches",
        "identical",
    ):
        assert key in t
    assert not any("within_tol" in k or "rel_diff" in k for k in t)  # equal or a mismatch: no tolerance
    assert table["numpy_dot"]["proven"] and "exact by construction" in table["numpy_dot"]["describe"]


def test_mujoco_warnings_noted_not_written_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gymnasium's half_cheetah.xml makes MuJoCo warn (deprecated settotalmass) when the reference loads
    it; the contract notes the warning in the case instead of MuJoCo appending it to ./MUJOCO_LOG.TXT,
    and puts the process-wide handler back afterwards."""
    _v5_ready()
    import mujoco

    monkeypatch.chdir(tmp_path)
    before = mujoco.get_mju_user_warning()
    result = contract.run_case(contract.v5_cases("HalfCheetah-v5", quick=True)[0])
    assert result.identical and not result.skipped
    assert any("settotalmass" in note for note in result.notes), result.notes
    assert list(tmp_path.iterdir()) == [], "nothing written into the working directory"
    assert mujoco.get_mju_user_warning() is before


def test_perturbed_c_env_is_caught(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """One observation value off by one ulp on the mdvec side: counted, reported, exit status 1."""
    _v5_ready()
    from mdvec.gym.vector import MdvecVectorEnv

    real_step = MdvecVectorEnv.step

    def step(self, actions):  # type: ignore[no-untyped-def]
        obs, *rest = real_step(self, actions)
        obs = obs.copy()
        obs[0, 0] = np.nextafter(obs[0, 0], np.inf)
        return (obs, *rest)

    monkeypatch.setattr(MdvecVectorEnv, "step", step)
    result = contract.run_case(contract.v5_cases("InvertedPendulum-v5", quick=True)[0])
    assert not result.identical and result.values_identical < result.values
    assert result.obs_identical < result.observations and "obs at" in result.first_mismatch
    assert "1 ulp apart" in result.first_mismatch and "0x1." in result.first_mismatch, result.first_mismatch
    assert cli.main(["contract", "--quick", "--task", "InvertedPendulum-v5"]) == 1
    out = capsys.readouterr().out
    assert "NOT EQUAL" in out


def test_v5_rows_skipped_without_gymnasium(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reason = "gymnasium is not installed (pip install 'gymnasium[mujoco]')"
    monkeypatch.setattr(contract, "_V5_UNAVAILABLE", reason)
    out = tmp_path / "c.json"
    assert cli.main(["contract", "--quick", "--task", "Reacher-v5,Swimmer-v5", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("skipped: " + reason) >= 2 + 2  # two case rows per task and the task rows
    assert "NOTHING COMPARED (4 of 4 cases skipped, not passed)" in text
    table = json.loads(out.read_text())
    assert all(r["skipped"] == reason and not r["passed"] and r["values"] == 0 for r in table["cases"])
    assert all(not row["passed"] and row["skipped"] == reason for row in table["tasks"].values())
    assert table["total"]["passed"] == 0 and table["total"]["skipped"] == 4


def test_explain_names_the_first_difference_in_hex_and_ulps() -> None:
    a = np.array([[0.5, 2.0], [3.0, -1.0]])
    b = a.copy()
    b[1, 1] = np.nextafter(-1.0, 0.0)
    b[0, 1] = np.nextafter(np.nextafter(2.0, 3.0), 3.0)
    text = contract.explain(a, b)
    assert text.startswith("[0, 1] reference 0x1.0000000000000p+1 (2.0) vs mdvec 0x1.0000000000002p+1")
    assert "2 ulps apart (float64); 2 of 4 elements differ" in text
    assert contract.explain(a, a.copy()) == ""
    assert "0 ulps apart (signed zeros)" in contract.explain(np.array([0.0]), np.array([-0.0]))
    assert "float32" in contract.explain(np.float32(1.0), np.float64(1.0))  # a dtype difference, by name
    assert contract.explain(np.zeros(3), np.zeros(4)) == "reference float64[3] vs mdvec float64[4]"
    assert "a NaN against a number" in contract.explain(np.array([np.nan]), np.array([1.0]))
    assert "1 ulp apart (float32)" in contract.explain(np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(2)))


def test_unknown_numpy_dot_is_not_proven(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the binding could not prove numpy's dot (another BLAS, say), the tasks that use it are NOT
    PROVEN, even with every value equal, and the run exits 1; the other tasks still pass."""
    _v5_ready()
    import dataclasses

    from mdvec import npdot

    unknown = dataclasses.replace(npdot.numpy_dot(), proven=False, source="no cblas ddot symbol (test)")
    monkeypatch.setattr(contract, "numpy_dot", lambda: unknown)
    out = tmp_path / "c.json"
    assert cli.main(["contract", "--quick", "--task", "Reacher-v5,Hopper-v5", "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "NOT PROVEN (Reacher-v5: no cblas ddot symbol (test))" in text
    table = json.loads(out.read_text())
    assert table["tasks"]["Reacher-v5"]["mismatches"] == 0 and not table["tasks"]["Reacher-v5"]["proven"]
    assert not table["tasks"]["Reacher-v5"]["passed"] and table["tasks"]["Hopper-v5"]["passed"]
    assert table["total"]["not_proven"] == ["Reacher-v5"] and not table["numpy_dot"]["proven"]


def test_the_real_duck_is_looked_up_beside_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without MDVEC_REAL_DUCK the real duck's cases read ../shared/models/open_duck_mini_v2 beside this
    checkout (the tools moved into mdvec/tools/ once and looked one folder too low, dropping those cases)."""
    import importlib

    monkeypatch.delenv("MDVEC_REAL_DUCK", raising=False)
    checkout = Path(__file__).resolve().parents[2]
    assert (checkout / "libmdvec" / "include" / "mdvec.h").is_file()
    fresh = importlib.reload(contract)
    try:
        assert fresh.REAL_DUCK == checkout.parent / "shared" / "models" / "open_duck_mini_v2"
    finally:
        monkeypatch.undo()
        importlib.reload(contract)
