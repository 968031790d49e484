"""examples/ppo_envpool.py: the CleanRL-style PPO written against EnvPool's API, on mdvec.envpool (issue 29).

Same seeds give the same parameters, bit for bit, run after run in each mode (sync: step every env; async:
send/recv with batch_size < num_envs), also when the second run uses another thread count. The per-env GAE of
the async bookkeeping is checked against a plain per-env loop written here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (pip install torch): the example trains with it")
pytest.importorskip("gymnasium", reason="Hopper-v5 reads Gymnasium's model file (pip install 'mdvec[gymnasium]')")

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["--total-steps", "256", "--num-envs", "4", "--num-steps", "32", "--update-epochs", "2"]
SHORT += ["--num-minibatches", "4", "--seed", "3"]


def example() -> ModuleType:
    """examples/ppo_envpool.py as a module."""
    if "ppo_envpool" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ppo_envpool", ROOT / "examples" / "ppo_envpool.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["ppo_envpool"] = module
        spec.loader.exec_module(module)
    return sys.modules["ppo_envpool"]


def test_same_seed_same_parameters_each_mode() -> None:
    ppo = example()
    hashes = {}
    for mode, extra in (("sync", []), ("async", ["--batch-size", "2"])):
        runs = [ppo.main([*SHORT, "--mode", mode, "--num-threads", str(t), *extra]) for t in (1, 2)]
        assert runs[0]["global_step"] == runs[1]["global_step"] == 256
        assert runs[0]["episodes"] > 0  # Hopper falls within 256 steps: the autoreset path ran
        assert runs[0]["params_sha256"] == runs[1]["params_sha256"], mode
        assert [u["trained_samples"] for u in runs[0]["updates"]] == [u["trained_samples"] for u in runs[1]["updates"]]
        hashes[mode] = runs[0]["params_sha256"]
    assert hashes["sync"] != hashes["async"]  # async really ran groups of 2 (other data, other parameters)


def reference_gae(data: dict[str, np.ndarray], num_envs: int, gamma: float, lam: float) -> dict[int, float]:
    """GAE per env by a plain backward loop over each env's own entries (entry index -> advantage), for the
    entries that are trained: those with a successor whose own observation did not end an episode."""
    out: dict[int, float] = {}
    for env in range(num_envs):
        idx = [i for i in range(len(data["env_id"])) if data["env_id"][i] == env]
        last_adv = 0.0
        for k in range(len(idx) - 2, -1, -1):
            j, s = idx[k], idx[k + 1]
            term, ended = bool(data["terminated"][s]), bool(data["terminated"][s] or data["truncated"][s])
            next_value = 0.0 if term else float(data["value"][s])
            delta = float(data["reward"][s]) + gamma * next_value - float(data["value"][j])
            last_adv = delta + gamma * lam * (0.0 if ended else 1.0) * (0.0 if k == len(idx) - 2 else last_adv)
            if not (data["terminated"][j] or data["truncated"][j]):
                out[j] = last_adv
    return out


def test_per_env_gae_matches_a_plain_loop() -> None:
    ppo = example()
    rng = np.random.default_rng(5)
    n, b, blocks = 6, 2, 40
    rollout = ppo.Rollout()
    for k in range(blocks):
        ids = rng.permutation(n)[:b] if k % 3 else np.arange(k % n, k % n + b) % n  # any order, ids unique per block
        flags = rng.random((2, b)) < 0.15
        rollout.add(
            obs=np.zeros((b, 1), np.float32),
            action=np.zeros((b, 1), np.float32),
            logprob=np.zeros(b, np.float32),
            value=rng.normal(size=b).astype(np.float32),
            env_id=ids.astype(np.int64),
            reward=rng.normal(size=b),
            terminated=flags[0],
            truncated=flags[1] & ~flags[0],
        )
    data, slices = rollout.flat()
    adv, trained, last = ppo.advantages(data, slices, n, 0.99, 0.95)
    expected = reference_gae(data, n, 0.99, 0.95)
    assert sorted(np.flatnonzero(trained).tolist()) == sorted(expected)
    assert all(adv[j] == a for j, a in expected.items())  # same float64 operations in the same order
    carried = {int(np.flatnonzero(data["env_id"] == env)[-1]) for env in np.unique(data["env_id"])}
    assert set(last.tolist()) == carried  # each env's last entry is carried over to the next rollout
