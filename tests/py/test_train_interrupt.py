"""Training runs that survive Ctrl-C (issue 19): checkpoints written atomically, a damaged newest one
skipped by --resume with a warning, and a first Ctrl-C that stops after the env step in progress and
saves the model, so nothing since the last periodic checkpoint is lost. Needs torch and
stable-baselines3 (the sb3 extra)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = [
    "--backend",
    "mdvec",
    "--envs",
    "2",
    "--n-steps",
    "64",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--net",
    "16,16",
    "--seed",
    "3",
    "-o",
    "episode_len=50",
    "-o",
    "push_window=5,45",
    "--print-every",
    "0",
]


@pytest.fixture(autouse=True)
def _need_sb3() -> None:
    pytest.importorskip("torch", reason="torch not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("gymnasium", reason="gymnasium not installed")


def test_an_interrupted_save_leaves_no_damaged_file(tmp_path: Path) -> None:
    from mdvec.tools.train import checkpoint_damage, save_model

    class Cut:
        def save(self, fh: object) -> None:
            fh.write(b"PK\x03\x04 half a zip")  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    target = tmp_path / "step_000000000128.zip"
    with pytest.raises(KeyboardInterrupt):
        save_model(Cut(), target)
    assert list(tmp_path.iterdir()) == []  # neither the target nor the partial file
    (tmp_path / "bad.zip").write_bytes(b"")
    assert "not a zip" in checkpoint_damage(tmp_path / "bad.zip")


def test_resume_skips_a_damaged_newest_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mdvec.tools import train as train_mod

    out = tmp_path / "run"
    assert train_mod.main(SMALL + ["--steps", "256", "--checkpoint-every", "1", "--out", str(out)]) == 0
    (out / "checkpoints" / "step_000000000384.zip").write_bytes(b"")  # what a cut write left before
    capsys.readouterr()
    assert train_mod.main(["--resume", "--steps", "384", "--out", str(out), "--print-every", "0"]) == 0
    captured = capsys.readouterr()
    assert "skipping damaged checkpoint step_000000000384.zip" in captured.err
    assert "resuming" in captured.out and "step_000000000256.zip" in captured.out


def test_first_ctrl_c_saves_the_current_state(tmp_path: Path) -> None:
    """A run of many updates, SIGINT once it is under way: exit 130, a checkpoint at the interrupted step
    (beyond the last periodic one), loadable; --resume continues from it."""
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), PYTHONUNBUFFERED="1")
    cmd = [
        sys.executable,
        "-m",
        "mdvec",
        "train",
        *SMALL,
        "--steps",
        "100000",
        "--checkpoint-every",
        "1000",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not (out / "curve.json").exists():  # written after the first update
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    time.sleep(1.0)  # a few more updates: none of them checkpointed (every 1000)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, (stdout, stderr)
    assert "saved checkpoint step_" in stderr and "Resume with the same command" in stderr, stderr
    ckpts = sorted((out / "checkpoints").glob("step_*.zip"))
    assert len(ckpts) == 1 and int(ckpts[0].stem.split("_")[1]) > 128, ckpts

    from stable_baselines3 import PPO

    from mdvec.tools.train import checkpoint_damage

    assert checkpoint_damage(ckpts[0]) == ""
    steps = PPO.load(ckpts[0], device="cpu").num_timesteps
    resumed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mdvec",
            "train",
            "--resume",
            "--steps",
            str(steps + 128),
            "--out",
            str(out),
            "--print-every",
            "0",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0 and f"at {steps:,} env steps" in resumed.stdout, resumed.stdout + resumed.stderr


def _one_line_exit_2(capsys: pytest.CaptureFixture[str], code: int, *words: str) -> None:
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err and "Traceback" not in err, (code, err)
    for w in words:
        assert w in err, err


def test_cli_user_errors_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A truncated policy zip, evaluate --out where it cannot be written (checked before the evaluation,
    which took minutes and was then lost), train --out naming a file: one line each, exit status 2."""
    from mdvec.tools import evaluate, render
    from mdvec.tools import train as train_mod

    bad = tmp_path / "policy.zip"
    bad.write_bytes(b"PK\x03\x04truncated")
    _one_line_exit_2(capsys, evaluate.main(["--policy", str(bad)]), "--policy", "not a loadable")
    _one_line_exit_2(capsys, render.main(["--policy", str(bad), "--out", str(tmp_path / "x.gif")]), "not a loadable")

    monkeypatch.setattr(evaluate, "evaluate", lambda *a, **k: (_ for _ in ()).throw(AssertionError("evaluated")))
    (tmp_path / "afile").write_text("x")
    _one_line_exit_2(
        capsys, evaluate.main(["--policy", "hold-pose", "--out", str(tmp_path / "afile" / "e.json")]), "--out"
    )
    _one_line_exit_2(capsys, evaluate.main(["--policy", "hold-pose", "--out", str(tmp_path)]), "--out", "folder")

    _one_line_exit_2(capsys, train_mod.main(SMALL + ["--out", str(tmp_path / "afile")]), "--out", "is a file")
    _one_line_exit_2(capsys, train_mod.main(SMALL + ["--out", str(tmp_path / "afile" / "run")]), "--out")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text("{not json")
    _one_line_exit_2(capsys, train_mod.main(SMALL + ["--resume", "--out", str(tmp_path / "run")]), "run.json")
