"""``python -m mdvec CMD``: every command checks its arguments before any work and refuses a bad one in one
line with exit status 2 (no traceback, no progress output); the task names every command takes go through
mdvec.make's one resolver; the demo says what it measured instead of a bare nan.

Each case runs the command in a subprocess, as a user does. A check that came after the work (the issue's
``demo --envs 0`` after the 20-30 s equality part, ``calibrate --json`` to an unwritable place after the whole
calibration) shows as progress output on stdout, which these tests refuse.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import mdvec

PYTHON_DIR = Path(mdvec.__file__).resolve().parents[1]  # the mdvec under test, for the subprocesses too


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PYTHON_DIR), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _run(args: list[str], cwd: Path, code: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "mdvec", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=_env())


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A plain file: a path below it cannot be made."""
    f = tmp_path / "plain"
    f.write_text("x")
    return f


# (command line, what the one line must name); {file}: a plain file, {tmp}: a writable folder
BAD = [
    # demo: the cases validated only after the equality part (or "succeeded" with 0 env-steps/s)
    ("demo --envs 0", "--envs"),
    ("demo --envs x", "--envs"),
    ("demo --threads -2", "--threads"),
    ("demo --threads 0", "--threads"),
    ("demo --seconds nan", "--seconds"),
    ("demo --seconds -1", "--seconds"),
    ("demo --seconds 0", "--seconds"),
    ("demo --seconds inf", "--seconds"),
    ("demo --envs 64 --threads 64", "threads"),  # over the library's thread budget: refused before the work
    # contract
    ("contract --json {file}/table.json", "--json"),
    ("contract --json {tmp}", "--json"),
    ("contract --task HOPPER-V5", "HOPPER-V5"),
    ("contract --task ,", "task"),
    # bench
    ("bench --workers 0", "--workers"),
    ("bench --workers 1,x", "--workers"),
    ("bench --workers ,", "--workers"),
    ("bench --envs-per-worker -1", "--envs-per-worker"),
    ("bench --window-seconds nan", "--window-seconds"),
    ("bench --window-seconds 0", "--window-seconds"),
    ("bench --rounds 0", "--rounds"),
    ("bench --seed -1", "--seed"),
    ("bench --backends nope", "--backends"),
    ("bench --c-bench {tmp}/no-such-binary", "--c-bench"),
    ("bench --c-bench {tmp}", "--c-bench"),
    ("bench --out {file}", "--out"),
    ("bench --out {file}/results", "--out"),
    # calibrate
    ("calibrate --episodes 0", "--episodes"),
    ("calibrate --seeds 0", "--seeds"),
    ("calibrate --push-speed nan 1", "--push-speed"),
    ("calibrate --push-speed -0.5 1", "--push-speed"),
    ("calibrate --push-speed 0.9 0.3", "--push-speed"),
    ("calibrate --backend nope", "--backend"),
    ("calibrate --json {file}/rows.json", "--json"),
    ("calibrate --json {tmp}", "--json"),
    # train: every option with a range
    ("train --learning-rate nan", "--learning-rate"),
    ("train --learning-rate 0", "--learning-rate"),
    ("train --gamma 1.5", "--gamma"),
    ("train --gae-lambda -0.1", "--gae-lambda"),
    ("train --clip-range 0", "--clip-range"),
    ("train --ent-coef inf", "--ent-coef"),
    ("train --vf-coef -1", "--vf-coef"),
    ("train --max-grad-norm 0", "--max-grad-norm"),
    ("train --log-std-init nan", "--log-std-init"),
    ("train --envs 0", "--envs"),
    ("train --threads 0", "--threads"),
    ("train --steps -5", "--steps"),
    ("train --seed -1", "--seed"),
    ("train --seed 4294967296", "--seed"),  # numpy's legacy seeding (SB3's set_random_seed) refuses it
    ("train --n-steps 0", "--n-steps"),
    ("train --batch-size 0", "--batch-size"),
    ("train --n-epochs 0", "--n-epochs"),
    ("train --net 64,0", "--net"),
    ("train --net x", "--net"),
    ("train --checkpoint-every 0", "--checkpoint-every"),
    ("train --torch-threads 0", "--torch-threads"),
    ("train --print-every nan", "--print-every"),
    ("train --backend nope", "--backend"),
    ("train --variant nope", "--variant"),
    ("train --env HOPPER-V5", "--env"),
    ("train --env DuckBalance-v0", "--env"),  # mdvec.make refuses it too: one resolver
    ("train --out {file}", "--out"),
    ("train --out {file}/run", "--out"),
    ("train --tensorboard {file}/tb", "--tensorboard"),
    ("train -o nope=1", "nope"),
    ("train --resume --out {tmp}/no-run-here", "--resume"),
    # evaluate
    ("evaluate --policy {tmp}", "--policy"),
    ("evaluate --policy {tmp}/missing.zip", "--policy"),
    ("evaluate --policy hold-pose --episodes 0", "--episodes"),
    ("evaluate --policy hold-pose --seeds -1", "--seeds"),
    ("evaluate --policy hold-pose --seeds x", "--seeds"),
    ("evaluate --policy hold-pose --env nope", "--env"),
    ("evaluate --policy hold-pose --variant nope", "--variant"),
    ("evaluate --policy hold-pose --out {tmp}", "--out"),
    ("evaluate --policy hold-pose --out {file}/eval.json", "--out"),
    ("evaluate --policy hold-pose -o nope=1", "nope"),
    ("evaluate", "--policy"),
    # render
    ("render --policy hold-pose --out {tmp}/v.avi", "--out"),
    ("render --policy hold-pose --out {file}/v.gif", "--out"),
    ("render --policy hold-pose --out {tmp}/v.gif --episodes 0", "--episodes"),
    ("render --policy hold-pose --out {tmp}/v.gif --width 0", "--width"),
    ("render --policy hold-pose --out {tmp}/v.gif --height -1", "--height"),
    ("render --policy hold-pose --out {tmp}/v.gif --fps 0", "--fps"),
    ("render --policy hold-pose --out {tmp}/v.gif --seed -1", "--seed"),
    ("render --policy hold-pose --out {tmp}/v.gif --env nope", "--env"),
    ("render --policy hold-pose --out {tmp}/v.gif --source nope", "--source"),
    ("render --policy {tmp} --out {tmp}/v.gif", "--policy"),
    # the command itself
    ("nope", "nope"),
    ("demo --nope", "--nope"),
]


@pytest.mark.parametrize(("line", "names"), BAD, ids=[b[0] for b in BAD])
def test_bad_argument_is_one_line_exit_2_before_any_work(line: str, names: str, tmp_path: Path, a_file: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    args = line.format(file=a_file, tmp=work).split()
    r = _run(args, cwd=work)
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert names in lines[0], lines[0]
    assert r.stdout == "", f"the job started before the check: {r.stdout[:500]}"
    assert sorted(p.name for p in work.iterdir()) == [], "a refused command left files behind"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc (a folder no one can write in)")
@pytest.mark.parametrize(
    "line",
    [
        "contract --quick --task duck --json /proc/mdvec-test/table.json",
        "bench --quick --out /proc/mdvec-test",
        "calibrate --seeds 1 --episodes 1 --json /proc/mdvec-test.json",
        "evaluate --policy hold-pose --out /proc/mdvec-test.json",
        "render --policy hold-pose --out /proc/mdvec-test.gif",
        "train --out /proc/mdvec-test",
    ],
)
def test_unwritable_destination_refused_first(line: str, tmp_path: Path) -> None:
    """Permission bits are not the test (root passes them): /proc refuses a new file even to root."""
    r = _run(line.split(), cwd=tmp_path)
    assert r.returncode == 2, (r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "/proc" in r.stderr and r.stdout == ""


CHECK_TORCH = """
import sys
from mdvec.tools.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(code, "torch" in sys.modules)
"""


@pytest.mark.parametrize(
    "line",
    [
        "train --learning-rate nan",
        "train --env DuckBalance-v0",
        "train -o nope=1",
        "train --resume --out {tmp}/no-run-here",
        "evaluate --policy {tmp}",
        "evaluate --policy hold-pose --seeds -1",
        "render --policy {tmp}/missing.zip --out {tmp}/v.gif",
    ],
)
def test_torch_commands_check_before_importing_torch(line: str, tmp_path: Path) -> None:
    r = _run(line.format(tmp=tmp_path).split(), cwd=tmp_path, code=CHECK_TORCH)
    assert r.stdout.split() == ["2", "False"], (r.stdout, r.stderr)


def test_path_checks_leave_nothing_behind(tmp_path: Path) -> None:
    """The destination checks make no folder and leave no file: a refused command leaves the disk as it was,
    an accepted one makes its folders only when it writes."""
    from mdvec.tools._args import writable_file, writable_folder

    deep = tmp_path / "new" / "deeper"
    assert writable_file(str(deep / "table.json")) == deep / "table.json"
    assert writable_folder(str(deep)) == deep
    assert writable_folder(str(tmp_path)) == tmp_path  # probed with a file made and removed at once
    existing = tmp_path / "kept.json"
    existing.write_text("{}")
    assert writable_file(str(existing)) == existing and existing.read_text() == "{}"  # not truncated
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json"]


# ------------------------------------------------------------------ one resolver of task names
def test_unknown_task_message_is_sentences() -> None:
    with pytest.raises(ValueError) as err:
        mdvec.make("nothing-like-a-task")
    assert "unknown task 'nothing-like-a-task'. The tasks are duck, " in str(err.value)


@pytest.mark.parametrize("name", ["HOPPER-V5", "hopper-v5", "MDVEC/HOPPER-V5"])
def test_case_insensitive_suggestion(name: str) -> None:
    with pytest.raises(ValueError, match=r"did you mean 'Hopper-v5' or 'mdvec/Hopper-v5'\? The tasks are"):
        mdvec.make(name)


def test_every_command_takes_the_names_make_takes() -> None:
    """train/evaluate/render (resolve_env, --env) and contract (--task) accept exactly what mdvec.make accepts."""
    from mdvec.tools.contract import TASKS, select_tasks
    from mdvec.tools.train import resolve_env
    from mdvec.vecenv import task_meta
    from mdvec.vector import resolve_task

    names = [*mdvec.task_names(), "DuckBalance-v0", "Hopper-V5", "hopper-v5", " Hopper-v5", "cartpole-swingup"]
    names += [i for t in mdvec.task_names() if (i := task_meta(t, "id")) is not None]
    for name in names:
        try:
            expected: str | None = resolve_task(name)[0]
        except ValueError:
            expected = None
        try:
            got: str | None = resolve_env(name)
        except ValueError:
            got = None
        assert got == expected, name
        if expected in TASKS and "," not in name:
            assert select_tasks([name]) == [expected], name
    assert resolve_env("mdvec/DuckBalance-v0") == "duck"
    with pytest.raises(ValueError, match="did you mean 'mdvec/DuckBalance-v0'"):
        resolve_env("DuckBalance-v0")
    with pytest.raises(ValueError, match=r"'HOPPER-V5' \(did you mean 'Hopper-v5' or 'mdvec/Hopper-v5'\?\)"):
        select_tasks(["HOPPER-V5"])


# ------------------------------------------------------------------ what the demo measured
def test_demo_without_a_finished_episode_says_so(tmp_path: Path) -> None:
    """A window too short for any episode to end (a slow machine's 0.5 s) names the window, not 'nan'."""
    r = _run(["demo", "--envs", "1", "--threads", "1", "--seconds", "0.001"], cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert "nan" not in last.lower(), last
    assert "no episode ended in the" in last and "s window" in last, last
