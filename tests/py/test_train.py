"""The PPO trainer (python -m mdvec train), evaluate and render.

The parity tests train the same small PPO on ``--backend mdvec`` and ``--backend processes`` (SB3's
SubprocVecEnv over the Python reference env of the duck, or over Gymnasium's own ``Hopper-v5``) and
ask for bit-identical rollout buffers after every update and bit-identical policy parameters at the
end. They need torch and stable-baselines3 (the ``sb3`` extra) and libmdvec (Hopper also
gymnasium[mujoco]); they are skipped, saying which is missing, otherwise.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from mdvec.tools.train import TrainConfig, build_parser, config_from_args, parse_task_options, resolve_env

# small: 3 envs x 100 steps per update, 3 updates, episodes of 80 steps so that truncations (and
# the value bootstrap on terminal_observation) happen inside every rollout; DR and sensor noise on so
# that every random draw of the env matters
SMALL = dict(
    envs=3,
    n_steps=100,
    batch_size=60,
    n_epochs=2,
    steps=900,
    seed=7,
    net=(32, 32),
    task={"episode_len": 80, "push_window": (5, 75), "dr": True, "sensor_noise": True},
)


def _need_sb3() -> None:
    pytest.importorskip("torch", reason="torch not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 not installed (pip install 'mdvec[sb3]')")
    pytest.importorskip("gymnasium", reason="gymnasium not installed")


# Hopper-v5: 2 envs x 64 steps per update, 3 updates, episodes of at most 25 steps: with seed 11 the
# rollouts hold both terminations (the hopper falls: no bootstrap) and truncations (bootstrap on
# terminal_observation)
HOPPER = dict(
    env="Hopper-v5",
    envs=2,
    n_steps=64,
    batch_size=64,
    n_epochs=2,
    steps=384,
    seed=11,
    net=(32, 32),
    task={"max_episode_steps": 25},
)


def _need_mdvec_sb3() -> None:
    _need_sb3()
    try:
        from mdvec.sb3 import make_vec_env

        make_vec_env(1, seed=0).close()
    except Exception as exc:  # noqa: BLE001 - any failure: the C backend is not usable here
        pytest.skip(f"mdvec.sb3 backend not usable here: {type(exc).__name__}: {exc}")


# ------------------------------------------------------------------ options (no torch needed)
def test_task_options_parse_by_the_defaults_types() -> None:
    got = parse_task_options(
        [
            "episode_len=80",
            "push_window=5,75",
            "push_speed=0.2,0.5",
            "dr=true",
            "sensor-noise=0",
            "reward=v1",
            "action_scale=0.25",
        ]
    )
    assert got == {
        "episode_len": 80,
        "push_window": (5, 75),
        "push_speed": (0.2, 0.5),
        "dr": True,
        "sensor_noise": False,
        "reward": "v1",
        "action_scale": 0.25,
    }


@pytest.mark.parametrize(
    "item, words",
    [
        ("nope=1", "unknown"),
        ("episode_len", "NAME=VALUE"),
        ("episode_len=1.5", "episode_len"),
        ("dr=maybe", "dr"),
        ("push_window=5", "push_window"),
        ("reward=v9", "reward"),
    ],
)
def test_task_options_refuse_with_the_name(item: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_task_options([item])


def test_config_round_trips_through_json() -> None:
    cfg = TrainConfig(**SMALL)
    assert TrainConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg
    cfg = TrainConfig(env="Hopper-v5", task={"max_episode_steps": 25, "healthy_z_range": (0.5, 9.0)})
    assert TrainConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg
    old = TrainConfig(**SMALL).to_json()
    del old["env"]  # a run.json written before --env: the duck
    assert TrainConfig.from_json(old).env == "duck"


def test_env_names() -> None:
    assert resolve_env("duck") == resolve_env("mdvec/DuckBalance-v0") == "duck"
    assert resolve_env("Hopper-v5") == resolve_env("mdvec/Hopper-v5") == "Hopper-v5"
    with pytest.raises(ValueError, match="Hopper-v5"):
        resolve_env("Hopper-v4")


def test_gymnasium_task_options_parse_by_their_types() -> None:
    pytest.importorskip("gymnasium", reason="gymnasium not installed (its model files are the task's)")
    got = parse_task_options(
        [
            "max_episode_steps=25",
            "healthy_z_range=0.5,9",
            "terminate_when_unhealthy=false",
            "healthy_reward=2",
            "frame_skip=2",
        ],
        "Hopper-v5",
    )
    assert got == {
        "max_episode_steps": 25,
        "healthy_z_range": (0.5, 9.0),
        "terminate_when_unhealthy": False,
        "healthy_reward": 2.0,
        "frame_skip": 2,
    }
    with pytest.raises(ValueError, match="unknown for Hopper-v5"):
        parse_task_options(["episode_len=80"], "Hopper-v5")  # a duck option
    with pytest.raises(ValueError, match="max_episode_steps"):
        parse_task_options(["max_episode_steps=0"], "Hopper-v5")
    args = build_parser().parse_args(["--env", "mdvec/Hopper-v5", "-o", "max_episode_steps=25"])
    cfg, given = config_from_args(args)
    assert given == {"env": "Hopper-v5", "task": {"max_episode_steps": 25}}
    with pytest.raises(ValueError, match="only the duck"):
        from mdvec.tools.train import _check

        _check(dataclasses.replace(cfg, variant="light"))


def test_command_line_fills_only_what_was_given() -> None:
    args = build_parser().parse_args(["--envs", "4", "--net", "64,64", "-o", "dr=true", "--out", "x"])
    cfg, given = config_from_args(args)
    assert given == {"envs": 4, "net": (64, 64), "task": {"dr": True}, "out": "x"}
    assert cfg.n_steps == TrainConfig().n_steps and cfg.envs == 4


# ------------------------------------------------------------------ parity
def _train_recording(backend: str, tmp_path: Path) -> tuple[list[dict[str, np.ndarray]], str, list[dict]]:
    from mdvec.tools.train import train

    buffers: list[dict[str, np.ndarray]] = []

    def record(buf: object) -> None:
        buffers.append(
            {
                name: np.array(getattr(buf, name))
                for name in (
                    "observations",
                    "actions",
                    "rewards",
                    "episode_starts",
                    "values",
                    "log_probs",
                    "advantages",
                    "returns",
                )
            }
        )

    cfg = TrainConfig(backend=backend, out=str(tmp_path / backend), **SMALL)
    result = train(cfg, quiet=True, files=False, on_rollout=record)
    return buffers, result.params_sha256, result.rows


def test_training_is_bit_identical_on_both_backends(tmp_path: Path) -> None:
    _need_mdvec_sb3()
    c_bufs, c_params, c_rows = _train_recording("mdvec", tmp_path)
    p_bufs, p_params, p_rows = _train_recording("processes", tmp_path)
    assert len(c_bufs) == len(p_bufs) == 3
    assert all(row["episodes"] > 0 for row in c_rows), "every rollout should hold truncated episodes"
    for update, (c, p) in enumerate(zip(c_bufs, p_bufs), start=1):
        for name in c:
            assert c[name].dtype == p[name].dtype
            assert np.array_equal(c[name], p[name]), f"update {update}: rollout buffer {name} differs"
    assert [r["rollout_sha256"] for r in c_rows] == [r["rollout_sha256"] for r in p_rows]
    assert [r["ep_return_mean"] for r in c_rows] == [r["ep_return_mean"] for r in p_rows]
    assert c_params == p_params


def _need_hopper() -> None:
    _need_mdvec_sb3()
    pytest.importorskip("mujoco", reason="mujoco not installed (pip install 'gymnasium[mujoco]')")
    import gymnasium

    import mdvec

    if "Hopper-v5" not in mdvec.task_names():
        pytest.skip("the Hopper-v5 task is not in this libmdvec")
    try:
        gymnasium.make("Hopper-v5").close()
    except Exception as exc:  # noqa: BLE001 - Gymnasium's own env is the reference
        pytest.skip(f"gymnasium's Hopper-v5 not usable here: {type(exc).__name__}: {exc}")


def _train_hopper(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: dict | None = None
) -> tuple[list, str, list, dict]:
    """Train ``config`` (HOPPER) on one backend; count the episodes that terminated and were truncated."""
    from mdvec.tools import train as train_mod

    counts = {"terminated": 0, "truncated": 0}
    timed = getattr(train_mod._timed_vec_env, "unpatched", train_mod._timed_vec_env)

    def counting(venv, timers):  # type: ignore[no-untyped-def]
        wrapped = timed(venv, timers)
        step_wait = wrapped.step_wait

        def counted():  # type: ignore[no-untyped-def]
            obs, rewards, dones, infos = step_wait()
            for done, info in zip(dones, infos):
                if done:
                    counts["truncated" if info["TimeLimit.truncated"] else "terminated"] += 1
            return obs, rewards, dones, infos

        wrapped.step_wait = counted
        return wrapped

    counting.unpatched = timed  # type: ignore[attr-defined]
    monkeypatch.setattr(train_mod, "_timed_vec_env", counting)
    buffers: list[dict[str, np.ndarray]] = []

    def record(buf: object) -> None:
        buffers.append({name: np.array(getattr(buf, name)) for name in train_mod.ROLLOUT_FIELDS})

    cfg = TrainConfig(backend=backend, out=str(tmp_path / backend), **(config or HOPPER))
    result = train_mod.train(cfg, quiet=True, files=False, on_rollout=record)
    return buffers, result.params_sha256, result.rows, counts


def test_hopper_training_is_bit_identical_to_gymnasiums_own_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PPO on mdvec's C Hopper-v5 and on SubprocVecEnv over gymnasium.make("Hopper-v5"): the same bits.

    The reference side has no mdvec code: SB3 seeds Gymnasium's envs (reset(seed=seed + i) after PPO's
    env.seed(seed)). Its rewards reach PPO as float64 (np.stack of np.float64), mdvec's as float32;
    the buffer stores float32 and the truncation bootstrap ``rewards[i] += gamma * value`` is a float32
    torch op either way, so the buffers agree bit for bit.
    """
    _need_hopper()
    c_bufs, c_params, c_rows, c_counts = _train_hopper("mdvec", tmp_path, monkeypatch)
    g_bufs, g_params, g_rows, g_counts = _train_hopper("processes", tmp_path, monkeypatch)
    assert len(c_bufs) == len(g_bufs) == 3
    assert c_counts == g_counts
    assert c_counts["terminated"] > 0 and c_counts["truncated"] > 0, c_counts
    assert all(row["episodes"] > 0 for row in c_rows), "every rollout should hold finished episodes"
    for update, (c, g) in enumerate(zip(c_bufs, g_bufs), start=1):
        for name in c:
            assert c[name].dtype == g[name].dtype
            assert np.array_equal(c[name], g[name]), f"update {update}: rollout buffer {name} differs"
    assert [r["rollout_sha256"] for r in c_rows] == [r["rollout_sha256"] for r in g_rows]
    assert [r["ep_return_mean"] for r in c_rows] == [r["ep_return_mean"] for r in g_rows]
    assert c_params == g_params


def test_train_command_on_hopper_and_evaluate_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _need_hopper()
    from mdvec.tools import evaluate, render
    from mdvec.tools import train as train_mod

    out = tmp_path / "hopper"
    argv = [
        "--env",
        "mdvec/Hopper-v5",
        "--backend",
        "mdvec",
        "--envs",
        "2",
        "--n-steps",
        "32",
        "--batch-size",
        "32",
        "--n-epochs",
        "1",
        "--net",
        "16,16",
        "--steps",
        "64",
        "--seed",
        "3",
        "-o",
        "max_episode_steps=20",
        "--out",
        str(out),
    ]
    assert train_mod.main(argv) == 0
    printed = capsys.readouterr().out
    assert "Hopper-v5 envs" in printed and "ep len" in printed and "params sha256" in printed
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["env"] == "Hopper-v5" and run["task"] == {"max_episode_steps": 20}
    rows = json.loads((out / "curve.json").read_text())["rows"]
    assert rows[0]["survival"] is None and rows[0]["episodes"] > 0
    assert (out / "curve.png").is_file()
    assert train_mod.main(["--resume", "--steps", "128", "--out", str(out), "--quiet"]) == 0
    assert [r["timesteps"] for r in json.loads((out / "curve.json").read_text())["rows"]] == [64, 128]
    assert train_mod.main(["--resume", "--steps", "192", "--out", str(out), "--env", "duck"]) == 2
    assert "env" in capsys.readouterr().err
    capsys.readouterr()
    assert (
        evaluate.main(
            [
                "--policy",
                str(out / "policy.zip"),
                "--seeds",
                "1,2",
                "--episodes",
                "2",
                "--out",
                str(tmp_path / "eval.json"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "Hopper-v5 (C envs" in printed and "zero actions" in printed and "episode length" in printed
    result = json.loads((tmp_path / "eval.json").read_text())
    assert result["env"] == "Hopper-v5" and result["trained"]["episodes"] == result["zero_actions"]["episodes"] == 4
    assert 0 < result["trained"]["episode_len_mean"] <= 20 and "return_ratio" in result  # max_episode_steps=20
    assert evaluate.main(["--policy", str(out / "policy.zip"), "--env", "duck"]) == 2
    assert "trained on Hopper-v5, not duck" in capsys.readouterr().err
    gif = tmp_path / "h.gif"
    code = render.main(
        ["--policy", str(out / "policy.zip"), "--out", str(gif), "--width", "64", "--height", "48", "--fps", "25"]
    )
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    printed = capsys.readouterr().out
    assert code == 0 and "episode 1: return" in printed and "drawn from the C env's state" in printed, printed
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (64, 48) and im.n_frames >= 2


# ------------------------------------------------------------------ a task of the task kit: cartpole_swingup
# 2 envs x 64 steps per update, 3 updates; a 0.1 m rail and episodes of at most 25 steps: with seed 11 the
# rollouts hold both terminations (the cart leaves the rail) and truncations
CARTPOLE = dict(
    env="cartpole_swingup",
    envs=2,
    n_steps=64,
    batch_size=64,
    n_epochs=2,
    steps=384,
    seed=11,
    net=(32, 32),
    task={"max_episode_steps": 25, "cart_limit": 0.1},
)


def _need_cartpole() -> None:
    _need_mdvec_sb3()
    import mdvec

    if "cartpole_swingup" not in mdvec.task_names():
        pytest.skip("the cartpole_swingup task is not in this libmdvec")


def test_cartpole_names_and_options() -> None:
    """Every catalogue task is an --env, by name or declared id; its options are the library's."""
    _need_cartpole()
    import mdvec

    assert resolve_env("cartpole_swingup") == resolve_env("mdvec/cartpole_swingup") == "cartpole_swingup"
    assert [resolve_env(task) for task in mdvec.task_names()] == list(mdvec.task_names())
    with pytest.raises(ValueError, match="cartpole_swingup"):
        resolve_env("CartPole-v1")
    got = parse_task_options(["cart_limit=1.5", "max-episode-steps=30", "ctrl_cost_weight=0"], "cartpole_swingup")
    assert got == {"cart_limit": 1.5, "max_episode_steps": 30, "ctrl_cost_weight": 0.0}
    assert isinstance(got["ctrl_cost_weight"], float)
    with pytest.raises(ValueError, match="unknown for cartpole_swingup"):
        parse_task_options(["healthy_reward=1"], "cartpole_swingup")  # a Hopper option
    with pytest.raises(ValueError, match="cart_limit"):
        parse_task_options(["cart_limit=-1"], "cartpole_swingup")  # refused by the library's range
    with pytest.raises(ValueError, match="only the duck"):
        from mdvec.tools.train import _check

        _check(TrainConfig(env="cartpole_swingup", variant="backlash"))


def test_cartpole_training_is_bit_identical_on_both_backends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PPO on the C cartpole_swingup and on SubprocVecEnv over its Python reference
    (gymnasium.make("mdvec/cartpole_swingup", backend="reference")): the same rollouts and parameters."""
    _need_cartpole()
    c_bufs, c_params, c_rows, c_counts = _train_hopper("mdvec", tmp_path, monkeypatch, CARTPOLE)
    r_bufs, r_params, r_rows, r_counts = _train_hopper("processes", tmp_path, monkeypatch, CARTPOLE)
    assert len(c_bufs) == len(r_bufs) == 3
    assert c_counts == r_counts
    assert c_counts["terminated"] > 0 and c_counts["truncated"] > 0, c_counts
    for update, (c, r) in enumerate(zip(c_bufs, r_bufs), start=1):
        for name in c:
            assert c[name].dtype == r[name].dtype
            assert np.array_equal(c[name], r[name]), f"update {update}: rollout buffer {name} differs"
    assert [row["rollout_sha256"] for row in c_rows] == [row["rollout_sha256"] for row in r_rows]
    assert c_params == r_params


@pytest.mark.parametrize(("env", "option"), [("cartpole_swingup", "max_episode_steps"), ("duck", "episode_len")])
def test_progress_line_says_what_it_measured(
    env: str, option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The progress line's episode statistics are over one window, the episodes it names, and never a bare
    nan: before any episode ends it says so (episodes of 100 steps, 64 steps per env per update: none ends in
    update 1, one per env in update 2)."""
    import re

    if env == "duck":
        _need_mdvec_sb3()
    else:
        _need_cartpole()
    from mdvec.tools import train as train_mod

    out = tmp_path / "run"
    argv = ["--env", env, "--envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net", "8"]
    argv += ["--steps", "256", "-o", f"{option}=100", "--print-every", "0", "--out", str(out)]
    argv += ["-o", "push_window=10,90"] if env == "duck" else []
    assert train_mod.main(argv) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("update ")]
    assert len(lines) == 2 and not any("nan" in line.lower() for line in lines), lines
    assert "| no episode ended yet |" in lines[0], lines[0]
    rows = json.loads((out / "curve.json").read_text())["rows"]
    tail = r"survival ([-\d.]+)" if env == "duck" else r"ep len +([-\d.]+)"
    got = re.search(r"\| last (\d+) episodes?: ep return +([-\d.]+), " + tail + r" \|", lines[1])
    assert got, lines[1]
    assert int(got[1]) == 2 and float(got[2]) == round(rows[1]["ep_return_avg100"], 1)
    if env == "duck":
        assert 0 <= float(got[3]) <= 1
    else:
        assert float(got[3]) == 100.0


def test_train_evaluate_and_render_cartpole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The three commands on cartpole_swingup: train a tiny policy on the C envs, evaluate it against all-zero
    actions, render a few frames of it drawn from the C env's state (its model: the reference's MJCF)."""
    _need_cartpole()
    from mdvec.tools import evaluate, render
    from mdvec.tools import train as train_mod

    out = tmp_path / "cartpole"
    argv = [
        "--env",
        "cartpole_swingup",
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
        "--steps",
        "256",
        "--seed",
        "3",
        "-o",
        "max_episode_steps=40",
        "--out",
        str(out),
    ]
    assert train_mod.main(argv) == 0
    printed = capsys.readouterr().out
    assert "cartpole_swingup envs" in printed and "ep len" in printed and "params sha256" in printed
    run = json.loads((out / "run.json").read_text())["config"]
    assert run["env"] == "cartpole_swingup" and run["task"] == {"max_episode_steps": 40}
    rows = json.loads((out / "curve.json").read_text())["rows"]
    assert [r["timesteps"] for r in rows] == [128, 256] and rows[-1]["episodes"] > 0
    assert all(0 < r["ep_len_mean"] <= 40 for r in rows if r["episodes"])  # max_episode_steps=40
    assert (
        evaluate.main(
            [
                "--policy",
                str(out / "policy.zip"),
                "--seeds",
                "1,2",
                "--episodes",
                "2",
                "--out",
                str(tmp_path / "eval.json"),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "cartpole_swingup (C envs" in printed and "zero actions" in printed and "episode length" in printed
    result = json.loads((tmp_path / "eval.json").read_text())
    assert result["env"] == "cartpole_swingup" and result["task"] == {"max_episode_steps": 40}
    assert result["trained"]["episodes"] == result["zero_actions"]["episodes"] == 4
    zero = result["zero_actions"]
    assert zero["episode_len_mean"] == 40 and zero["terminated_share"] == 0.0  # no push: the cart stays put
    assert -40 < zero["return_mean"] < -39  # the pole hangs (cos theta about -1) and zero actions cost nothing
    assert result["return_ratio"] == result["trained"]["return_mean"] / zero["return_mean"]
    gif = tmp_path / "c.gif"
    code = render.main(
        [
            "--policy",
            str(out / "policy.zip"),
            "--out",
            str(gif),
            "--width",
            "96",
            "--height",
            "72",
            "--fps",
            "25",
            "-o",
            "max_episode_steps=12",
        ]
    )
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    printed = capsys.readouterr().out
    assert code == 0 and "episode 1: return" in printed and "12 steps, truncated" in printed, printed
    assert "drawn from the C env's state" in printed
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (96, 72) and im.n_frames == 6  # every 2nd of 12 steps of 0.02 s at 25 fps
        below_caption = []
        for k in range(im.n_frames):
            im.seek(k)
            below_caption.append(np.asarray(im.convert("RGB"))[20:])
    assert all(f.max() > 0 for f in below_caption), "the cart-pole should be drawn"


# ------------------------------------------------------------------ files, resume, evaluate, render
def _backend() -> str:
    try:
        _need_mdvec_sb3()
    except pytest.skip.Exception:
        return "processes"
    return "mdvec"


def test_train_writes_its_files_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _need_sb3()
    from mdvec.tools import train as train_mod

    out = tmp_path / "run"
    common = ["--out", str(out), "--print-every", "0"]
    argv = [
        "--backend",
        _backend(),
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
        "--steps",
        "256",
        "--seed",
        "3",
        "--checkpoint-every",
        "1",
        "-o",
        "episode_len=50",
        "-o",
        "push_window=5,45",
    ] + common
    assert train_mod.main(argv) == 0
    printed = capsys.readouterr().out
    assert "env-steps/s" in printed and "ETA" in printed and "params sha256" in printed
    for name in ("run.json", "policy.zip", "curve.json", "curve.csv", "curve.png", "summary.json"):
        assert (out / name).is_file(), name
    rows = json.loads((out / "curve.json").read_text())["rows"]
    assert [r["timesteps"] for r in rows] == [128, 256]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "step_000000000128.state",  # the envs' snapshot and the generators (exact --resume)
        "step_000000000128.zip",
        "step_000000000256.state",
        "step_000000000256.zip",
    ]
    assert train_mod.main(argv) == 2  # the same --out without --resume
    assert "already holds a run" in capsys.readouterr().err
    assert train_mod.main(["--resume", "--steps", "512", "--n-steps", "32"] + common) == 2  # clash named
    assert "n_steps" in capsys.readouterr().err
    assert train_mod.main(["--resume", "--steps", "512"] + common) == 0
    rows = json.loads((out / "curve.json").read_text())["rows"]
    assert [r["timesteps"] for r in rows] == [128, 256, 384, 512]
    assert [r["update"] for r in rows] == [1, 2, 3, 4]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["timesteps"] == 512 and len(summary["params_sha256"]) == 64

    from stable_baselines3 import PPO

    model = PPO.load(out / "policy.zip", device="cpu")
    assert model.num_timesteps == 512 and model.n_steps == 64


def test_evaluate_compares_with_hold_pose(tmp_path: Path) -> None:
    _need_sb3()
    from mdvec.tools.evaluate import evaluate, format_table, hold_pose, run_episodes

    task = {"episode_len": 40, "push_window": (5, 35)}
    hp = run_episodes(hold_pose, [1, 2], 2, task=task)
    assert hp["episodes"] == 4 and hp["steps"] == 160
    assert 0.0 <= hp["survival"] <= 1.0 and 0.0 <= hp["upright_share"] <= 1.0
    # the same seeds give the same episodes
    assert run_episodes(hold_pose, [1, 2], 2, task=task) == hp
    m = hp["alive_step_means"]  # what a step earns while up: reward v2 and its terms (ENV_SPEC)
    assert set(m) == {"r_up", "r_height", "r_pose", "r_still", "r_rate", "r_effort", "reward"}
    assert m["reward"] == pytest.approx(
        0.5 * (m["r_up"] + m["r_height"] + m["r_pose"] + m["r_still"]) - 0.05 * m["r_rate"] - 0.01 * m["r_effort"],
        rel=1e-12,
    )
    assert m["r_rate"] == 0.0, "hold-pose never changes its action"
    result = evaluate(None, [1, 2], 2, task=task)
    assert result["hold_pose"] == hp and "trained" not in result
    assert "survival" in format_table(result)


RESUME_ARGV = [
    "--envs",
    "2",
    "--n-steps",
    "32",
    "--batch-size",
    "32",
    "--n-epochs",
    "1",
    "--net",
    "8,8",
    "--seed",
    "5",
    "--checkpoint-every",
    "1",
    "-o",
    "episode_len=40",
    "-o",
    "push_window=5,35",
    "-o",
    "dr=true",
    "--quiet",
]


def _rows(out: Path) -> list[dict]:
    return json.loads((out / "curve.json").read_text())["rows"]


def _straight_and_resumed(tmp_path: Path, argv: list[str], twice: bool = True) -> tuple[list, list, list, list]:
    """A straight run of 4 updates, and a run stopped after 2 and resumed (twice from the same checkpoint, in two
    copies, with ``twice``): their rollout digests (one per update), final parameter hashes, and the straight and
    first resumed curves."""
    import shutil

    from mdvec.tools import train as train_mod

    straight, first, second = tmp_path / "straight", tmp_path / "first", tmp_path / "second"
    assert train_mod.main(argv + ["--steps", "256", "--out", str(straight)]) == 0  # 4 updates of 64 env steps
    assert train_mod.main(argv + ["--steps", "128", "--out", str(first)]) == 0
    runs = [straight, first, second] if twice else [straight, first]
    if twice:
        shutil.copytree(first, second)
    for out in runs[1:]:
        assert train_mod.main(["--resume", "--steps", "256", "--out", str(out), "--quiet"]) == 0
    rows = [_rows(out) for out in runs]
    assert [r["timesteps"] for r in rows[0]] == [r["timesteps"] for r in rows[1]] == [64, 128, 192, 256]
    digest = [[r["rollout_sha256"] for r in run_rows] for run_rows in rows]
    params = [json.loads((out / "summary.json").read_text())["params_sha256"] for out in runs]
    return digest, params, rows[0], rows[1]


@pytest.mark.parametrize("env", ["duck", "Hopper-v5"])
def test_resume_on_mdvec_is_the_run_that_was_not_stopped(tmp_path: Path, env: str) -> None:
    """What train --resume's help says for the mdvec backend: a run stopped after 2 updates and resumed ends with
    the parameters of the run that was not stopped, bit for bit: the same rollouts after the resume (episodes in
    progress go on), the same curve (episode sums carried), the same final hash."""
    _need_sb3()
    _need_mdvec_sb3()
    if env == "duck":
        argv = RESUME_ARGV + ["--backend", "mdvec"]
    else:
        if importlib.util.find_spec("gymnasium") is None:
            pytest.skip("Hopper-v5's model comes with Gymnasium (pip install gymnasium)")
        argv = RESUME_ARGV[: RESUME_ARGV.index("-o")] + ["--env", env, "--backend", "mdvec", "--quiet"]
    digest, params, straight, resumed = _straight_and_resumed(tmp_path, argv)
    assert digest[0] == digest[1] == digest[2], "the resumed rollouts are the straight run's"
    assert params[0] == params[1] == params[2]
    for key in ("episodes", "ep_return_mean", "ep_return_avg100", "ep_len_mean"):
        a, b = [r[key] for r in straight], [r[key] for r in resumed]
        assert all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b)), (key, a, b)
    assert (tmp_path / "first" / "checkpoints" / "step_000000000128.state").is_file()


def test_resume_on_processes_is_reproducible_but_not_bit_for_bit(tmp_path: Path) -> None:
    """The processes backend (SB3's SubprocVecEnv over the reference) cannot hand over its envs' states: its
    checkpoints have no .state; two resumes of one checkpoint end with the same parameters, but a resumed run's
    rollouts are new episodes and its parameters not the straight run's."""
    _need_sb3()
    digest, params, _, _ = _straight_and_resumed(tmp_path, RESUME_ARGV + ["--backend", "processes"])
    assert digest[0][:2] == digest[1][:2], "the same seed: the same first two updates"
    assert digest[1] == digest[2], "one checkpoint resumes the same way twice"
    assert digest[0][2] != digest[1][2] and digest[0][3] != digest[1][3], "the resumed rollouts are new episodes"
    assert params[1] == params[2] != params[0]
    assert not list((tmp_path / "first" / "checkpoints").glob("*.state"))


def test_tensorboard_without_the_package_is_one_line_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _need_sb3()
    import sys

    from mdvec.tools import train as train_mod

    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)  # the import SB3's logger makes fails
    out = tmp_path / "run"
    code = train_mod.main(RESUME_ARGV + ["--steps", "64", "--out", str(out), "--tensorboard", str(tmp_path / "tb")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "--tensorboard" in err and "pip install 'mdvec[tensorboard]'" in err
    assert not out.exists() and not (tmp_path / "tb").exists(), "nothing made before the check"


def test_tensorboard_logs_each_update(tmp_path: Path) -> None:
    _need_sb3()
    pytest.importorskip("tensorboard", reason="tensorboard not installed (pip install 'mdvec[tensorboard]')")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from mdvec.tools import train as train_mod

    tb = tmp_path / "tb"
    argv = RESUME_ARGV + ["--backend", _backend(), "--out", str(tmp_path / "duck7"), "--tensorboard", str(tb)]
    assert train_mod.main(argv + ["--steps", "192"]) == 0
    assert train_mod.main(["--resume", "--steps", "256", "--out", str(tmp_path / "duck7"), "--quiet"]) == 0
    assert [p.name for p in tb.iterdir()] == ["duck7_1"], "the run's name; a resume goes on in the same folder"
    events = EventAccumulator(str(tb / "duck7_1"))
    events.Reload()
    tags = events.Tags()["scalars"]
    for tag in ("rollout/ep_return_avg100", "rollout/survival", "train/value_loss", "time/fps"):
        assert tag in tags, (tag, tags)
    steps = [e.step for e in events.Scalars("rollout/rollout_steps_per_s")]
    assert steps == [64, 128, 192, 256], steps  # once per update, at its env steps, across the resume
    rows = _rows(tmp_path / "duck7")
    logged = [e.value for e in events.Scalars("rollout/ep_return_avg100")]
    assert np.allclose(logged, [r["ep_return_avg100"] for r in rows if r["ep_return_avg100"] is not None])


def test_evaluate_writes_into_the_run_folder_or_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """evaluate's JSON: into the policy's train run folder (the one holding run.json; a checkpoint's too),
    else into the current folder, never beside a policy that lies outside a run (a shipped one)."""
    _need_sb3()
    import shutil

    from mdvec.tools import evaluate
    from mdvec.tools import train as train_mod

    run = tmp_path / "run"
    assert train_mod.main(RESUME_ARGV + ["--backend", _backend(), "--steps", "64", "--out", str(run)]) == 0
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    shutil.copy(run / "policy.zip", shipped / "duck.zip")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    small = ["--seeds", "1", "--episodes", "1", "--no-baseline", "-o", "episode_len=10", "-o", "push_window=2,8"]
    assert evaluate.main(["--policy", str(shipped / "duck.zip")] + small) == 0
    assert evaluate.main(["--policy", str(run / "policy.zip")] + small) == 0
    assert evaluate.main(["--policy", str(run / "checkpoints" / "step_000000000064.zip")] + small) == 0
    capsys.readouterr()
    assert sorted(p.name for p in shipped.iterdir()) == ["duck.zip"]
    assert sorted(p.name for p in cwd.iterdir()) == ["eval_duck.json"]
    assert {"eval_policy.json", "eval_step_000000000064.json"} <= {p.name for p in run.iterdir()}


def test_evaluate_command_on_a_trained_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _need_sb3()
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from mdvec.tools import evaluate as ev
    from mdvec.tools.train import _reference_env_fn, _write_run_json, build_model

    cfg = TrainConfig(
        backend="processes",
        envs=1,
        n_steps=32,
        batch_size=32,
        net=(8,),
        out=str(tmp_path),
        task={"episode_len": 30, "push_window": (5, 25)},
    )
    env = DummyVecEnv([lambda: _reference_env_fn(0, cfg.task)])
    model = build_model(cfg, env)
    model.save(tmp_path / "policy.zip")
    _write_run_json(cfg, tmp_path)
    assert isinstance(PPO.load(tmp_path / "policy.zip"), PPO)
    assert ev.main(["--policy", str(tmp_path / "policy.zip"), "--seeds", "4,5", "--episodes", "1"]) == 0
    printed = capsys.readouterr().out
    assert "episode_len': 30" in printed, "the training task options are used"
    result = json.loads((tmp_path / "eval_policy.json").read_text())
    assert result["trained"]["steps"] == result["hold_pose"]["steps"] == 60
    assert "return_ratio" in result and "met" in result["goal"]


@pytest.mark.parametrize("source", ["mdvec", "reference"])
def test_render_writes_a_gif_with_the_shoves(source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mdvec.tools import render

    pytest.importorskip("PIL", reason="GIFs are written with Pillow (the sb3 extra's matplotlib brings it)")
    if source == "mdvec" and not render.c_env_available():
        pytest.skip("libmdvec not loadable: no C env to draw")
    out = tmp_path / "hold.gif"
    code = render.main(
        [
            "--policy",
            "hold-pose",
            "--out",
            str(out),
            "--seed",
            "1",
            "--width",
            "96",
            "--height",
            "72",
            "--fps",
            "10",
            "-o",
            "episode_len=40",
            "-o",
            "push_window=5,35",
            "--source",
            source,
        ]
    )
    if code == 3:
        pytest.skip("no OpenGL context for rendering here: " + capsys.readouterr().err)
    assert code == 0
    printed = capsys.readouterr().out
    assert "shoves: step" in printed
    if source == "mdvec":
        assert "41/41 observations and rewards bit-identical" in printed and "NOT EQUAL" not in printed
    from PIL import Image

    with Image.open(out) as im:
        assert im.size == (96, 72) and im.n_frames == 9  # t = 0, 5, ..., 40 (every 5th 50 Hz step)


def test_render_refuses_unknown_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mdvec.tools import render

    assert render.main(["--policy", "hold-pose", "--out", str(tmp_path / "x.avi")]) == 2
    assert ".gif or an .mp4" in capsys.readouterr().err


def test_an_index_or_name_option_keeps_a_quoted_name() -> None:
    """Ant-v5's main_body from the command line: digits are an index, other or quoted text a name (a body
    named "3" is reachable as '3'; before, digits were always an index)."""
    pytest.importorskip("gymnasium", reason="gymnasium not installed (its model files are the task's)")
    assert parse_task_options(["main_body=1"], "Ant-v5") == {"main_body": 1}
    assert parse_task_options(["main_body=torso"], "Ant-v5") == {"main_body": "torso"}
    assert parse_task_options(['main_body="torso"'], "Ant-v5") == {"main_body": "torso"}
    assert parse_task_options(["main_body='3'"], "Ant-v5") == {"main_body": "3"}  # the name, a str
