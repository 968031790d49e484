"""RLlib on mdvec (mdvec.rllib): PPO on a two-node Ray cluster started here on loopback, the seed rule,
and RLlib's fault tolerance when an EnvRunner's env raises a MuJoCo error.

Skipped when ray[rllib] is not installed (it pins gymnasium 1.2.2, so it lives in its own venv: CI's
rllib stage, ci/rllib.sh). Every Ray node and connection is on 127.0.0.1 (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
before ray is imported, and node_ip_address="127.0.0.1" for each node); the test checks that every
listening socket of the cluster's processes is a loopback one. Each test is bounded in time (SIGALRM),
and the cluster is shut down in every case.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # before ray is imported: nodes use the loopback address

import numpy as np
import pytest

SKIP = "ray[rllib] is not installed (pip install torch==2.13.0, then pip install '.[rllib]'; CI runs it in ci/rllib.sh)"
pytest.importorskip("gymnasium", reason=SKIP)
ray = pytest.importorskip("ray", reason=SKIP)
pytest.importorskip("ray.rllib", reason=SKIP)
pytest.importorskip("torch", reason=SKIP)

from mdvec import rllib as mrl  # noqa: E402

EPISODE_LEN = 40
OPTS = {"episode_len": EPISODE_LEN, "push_window": (5, 35)}
OBS_DIM, ACT_DIM = 48, 14
# docs/duck_task.md 5.6 (v2): at most 2.0 a step; at least -(0.05 * 14 * 2**2 + 0.01 * 3.35) (rate and effort terms)
REWARD_LO, REWARD_HI = -(0.05 * ACT_DIM * 4 + 0.01 * 3.35), 2.0
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


@contextlib.contextmanager
def time_limit(seconds: int, what: str) -> Iterator[None]:
    """Raise TimeoutError in the main thread when the block runs past ``seconds``."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"{what}: still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def node_args() -> dict[str, Any]:
    """One node: 2 logical CPUs (one EnvRunner of 2 CPUs), one 'mdvec_runner' slot, loopback only."""
    return {
        "num_cpus": 2,
        "resources": {"mdvec_runner": 1},
        "object_store_memory": 80 * 2**20,
        "node_ip_address": "127.0.0.1",
        "include_dashboard": False,
    }


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        out.add(pid)
        todo.extend(children.get(pid, []))
    return out


def _address(hex_addr: str) -> str:
    if len(hex_addr) == 8:
        return ".".join(str(b) for b in bytes.fromhex(hex_addr)[::-1])
    words = [bytes.fromhex(hex_addr[i : i + 8])[::-1] for i in range(0, 32, 8)]
    raw = b"".join(words)
    if raw[:12] == b"\0" * 10 + b"\xff\xff":
        return "::ffff:" + ".".join(str(b) for b in raw[12:])
    import ipaddress

    return str(ipaddress.IPv6Address(raw))


def listening_sockets(pids: set[int]) -> list[tuple[str, int, int]]:
    """(address, port, pid) of each TCP socket in LISTEN state held by one of ``pids`` (from /proc)."""
    inodes: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    inodes[link[8:-1]] = pid
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                parts = line.split()
                if parts[3] == "0A" and parts[9] in inodes:  # 0A: LISTEN
                    addr, port = parts[1].split(":")
                    found.append((_address(addr), int(port, 16), inodes[parts[9]]))
    return found


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Ray cluster of two nodes on this machine (ray.cluster_utils.Cluster), the driver connected."""
    from ray.cluster_utils import Cluster

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the lambdas below run on the EnvRunners
    c = None
    try:
        with time_limit(240, "starting a two-node Ray cluster"):
            c = Cluster(initialize_head=True, head_node_args=node_args())
            c.add_node(**node_args())
            c.wait_for_nodes()
            ray.init(address=c.address, _node_ip_address="127.0.0.1", log_to_driver=True)
        alive = [n for n in ray.nodes() if n["Alive"]]
        assert len(alive) == 2, alive
        assert {n["NodeManagerAddress"] for n in alive} == {"127.0.0.1"}
        yield c
    finally:
        ray.shutdown()
        if c is not None:
            c.shutdown()


def build(seed: int, **kw: Any) -> Any:
    """The test's PPO: 2 EnvRunners (one per node), 4 envs each, tiny batches."""
    config = mrl.ppo_config(
        seed=seed,
        num_env_runners=2,
        num_envs_per_env_runner=4,
        num_cpus_per_env_runner=2,
        custom_resources_per_env_runner={"mdvec_runner": 1},
        train_batch_size=2 * 4 * EPISODE_LEN,
        minibatch_size=160,
        num_epochs=1,
        task_options=dict(OPTS),
        **kw,
    )
    return config


def check_episode(ep: Any) -> None:
    obs, rewards = np.asarray(ep.get_observations()), np.asarray(ep.get_rewards())
    assert obs.shape == (EPISODE_LEN + 1, OBS_DIM) and obs.dtype == np.float32
    assert np.asarray(ep.get_actions()).shape == (EPISODE_LEN, ACT_DIM)
    assert rewards.shape == (EPISODE_LEN,) and np.isfinite(rewards).all()
    assert REWARD_LO <= rewards.min() and rewards.max() <= REWARD_HI, (rewards.min(), rewards.max())
    assert ep.is_truncated and not ep.is_terminated  # the duck never terminates: every episode is episode_len steps


def sample_summary(runner: Any) -> dict[str, Any]:
    episodes = runner.sample(num_episodes=4, explore=True)
    for ep in episodes:
        check_episode(ep)
    return {"episodes": len(episodes), **mrl.process_stats()}


# ---------------------------------------------------------------------- without a cluster
def test_public_name_is_the_adapter_itself() -> None:
    """``mdvec.rllib`` is the module ``mdvec.adapters.rllib`` (never a second copy): Ray pickles its classes
    for the EnvRunners under that one name."""
    import mdvec.adapters.rllib

    assert mrl is mdvec.adapters.rllib and sys.modules["mdvec.rllib"] is mrl
    assert mrl.RLlibVectorEnv.__module__ == "mdvec.adapters.rllib"


def test_seed_rule_is_per_runner_and_env_and_reproducible() -> None:
    s = 11
    a = [mrl.env_seeds(s, w, 8) for w in range(4)]
    flat = [x for row in a for x in row]
    assert len(set(flat)) == len(flat)  # every env of every EnvRunner its own seed
    assert a == [mrl.env_seeds(s, w, 8) for w in range(4)]  # from the run's seed alone
    assert mrl.env_seeds(s, 2, 3) == a[2][:3]  # env j's seed does not depend on num_envs
    assert not set(flat) & set(mrl.env_seeds(s + 1, 1, 8))  # the next run's seed: nothing shared
    assert not set(flat) & set(mrl.env_seeds(s, mrl.EVAL_SEED_OFFSET + 1, 8))  # evaluation EnvRunners
    assert all(0 <= x < 2**64 for x in flat)


@pytest.mark.parametrize("backend", ("c", "reference"))
def test_rllib_vector_env_applies_the_rule(backend: str) -> None:
    env = mrl.RLlibVectorEnv({"num_envs": 3, "backend": backend, "seed": 5, "threads": 2, **OPTS})
    try:
        inner = env.unwrapped
        assert type(inner).__name__ == ("DuckBalance_v0VectorEnv" if backend == "c" else "SyncVectorEnv")
        obs, _ = env.reset(seed=5 + 2)  # what RLlib passes EnvRunner 2
        assert env.last_seeds == mrl.env_seeds(5, 2, 3)
        assert obs.shape == (3, OBS_DIM) and obs.dtype == np.float32
        first = obs.copy()
        env.reset(seed=5 + 2)
        assert np.array_equal(env.reset(seed=5 + 2)[0], first)
        with pytest.raises(ValueError, match="env_config"):
            env.reset(seed=4)  # below the run's seed: env_config['seed'] and config.seed disagree
    finally:
        env.close()


def test_both_backends_start_from_the_same_bits() -> None:
    envs = [mrl.RLlibVectorEnv({"num_envs": 2, "backend": b, "seed": 3, **OPTS}) for b in ("c", "reference")]
    try:
        (c_obs, _), (r_obs, _) = (e.reset(seed=4) for e in envs)
        assert np.array_equal(c_obs, r_obs)
        act = np.full((2, ACT_DIM), 0.1, np.float32)
        c, r = envs[0].step(act), envs[1].step(act)
        assert np.array_equal(c[0], r[0]) and np.array_equal(c[1], r[1])
    finally:
        for e in envs:
            e.close()


# ---------------------------------------------------------------------- on the two-node cluster
def test_ppo_samples_on_both_nodes(cluster: Any) -> None:
    """PPO with 2 EnvRunners, one per node: both sample the C vector env; episodes are the task's."""
    algo = None
    try:
        with time_limit(420, "PPO on two nodes"):
            algo = build(seed=7).build_algo()
            results = [algo.train() for _ in range(3)]
            reports = algo.env_runner_group.foreach_env_runner(mrl.runner_report, local_env_runner=False)
            samples = algo.env_runner_group.foreach_env_runner(sample_summary, local_env_runner=False)
            pids = _descendants(os.getpid())
            sockets = listening_sockets(pids)
    finally:
        if algo is not None:
            algo.stop()
    node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(reports) == 2 and {r["node_id"] for r in reports} == node_ids  # one EnvRunner on each node
    for r in reports:
        assert r["env_class"] == "DuckBalance_v0VectorEnv" and r["num_envs"] == 4  # mdvec's C VectorEnv
        assert r["assigned_cpus"] == 2 and r["threads"] == 2  # threads = the CPUs Ray gave the EnvRunner
        assert r["env_steps"] >= 3 * 4 * EPISODE_LEN, r  # it sampled (3 iterations of 4 envs x 40 steps)
        assert r["seeds"] == mrl.env_seeds(7, r["worker_index"], 4)
    assert sorted(r["worker_index"] for r in reports) == [1, 2]
    assert len({s for r in reports for s in r["seeds"]}) == 8
    assert [s["episodes"] for s in samples] == [4, 4]  # check_episode ran on each node's episodes
    for res in results:
        er = res["env_runners"]
        assert er["episode_len_mean"] == EPISODE_LEN
        assert REWARD_LO * EPISODE_LEN <= er["episode_return_mean"] <= REWARD_HI * EPISODE_LEN
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 3 * 2 * 4 * EPISODE_LEN
    assert sockets, "no listening socket found for the cluster's processes"
    public = [s for s in sockets if s[0] not in LOOPBACK]
    assert not public, f"Ray listens beyond loopback: {public}"


def _train_until(algo: Any, done: Any, limit_s: float) -> list[dict[str, Any]]:
    results, t0 = [], time.monotonic()
    while time.monotonic() - t0 < limit_s:
        results.append(algo.train())
        if done():
            return results
    raise AssertionError(f"not done after {limit_s} s ({len(results)} iterations)")


def test_env_rebuilt_in_place_after_a_mujoco_error(cluster: Any, tmp_path: Path) -> None:
    """restart_failed_sub_environments=True: the EnvRunner whose env raised rebuilds it and samples on."""
    algo = None
    marker = tmp_path / "fault"
    try:
        with time_limit(420, "sub-environment restart"):
            config = build(seed=8, fault={"marker": str(marker)})
            config.fault_tolerance(
                restart_failed_sub_environments=True,
                restart_failed_env_runners=True,
                delay_between_env_runner_restarts_s=1.0,
            )
            algo = config.build_algo()

            def report() -> list[dict[str, Any]]:
                return algo.env_runner_group.foreach_env_runner(mrl.runner_report, local_env_runner=False)

            before = {r["worker_index"]: r["pid"] for r in report()}
            results = _train_until(algo, lambda: any(r["physics_errors"] for r in report()), 240)
            results += [algo.train() for _ in range(2)]
            after = report()
            healthy = algo.env_runner_group.num_healthy_remote_workers()
    finally:
        if algo is not None:
            algo.stop()
    assert marker.exists()
    failed = [r for r in after if r["physics_errors"]]
    assert len(failed) == 1, after  # one EnvRunner hit mj_stackAlloc ...
    assert failed[0]["pid"] == before[failed[0]["worker_index"]]  # ... and was not restarted:
    assert failed[0]["envs_built"] == 2  # its env was rebuilt in place
    assert healthy == 2
    for res in results[-2:]:
        assert res["env_runners"]["episode_len_mean"] == EPISODE_LEN


def test_env_runner_restarted_after_a_mujoco_error(cluster: Any, tmp_path: Path) -> None:
    """Default fault tolerance (restart_failed_env_runners=True): the EnvRunner whose env raised exits,
    Ray restarts the actor, RLlib restores it, and the run goes on: both EnvRunners sample again."""
    algo = None
    marker = tmp_path / "fault"
    try:
        with time_limit(480, "EnvRunner restart"):
            config = build(seed=9, fault={"marker": str(marker)})
            config.fault_tolerance(
                restart_failed_env_runners=True,
                restart_failed_sub_environments=False,
                delay_between_env_runner_restarts_s=1.0,
                env_runner_health_probe_timeout_s=30,
            )
            algo = config.build_algo()
            group = algo.env_runner_group
            before = {
                r["worker_index"]: r["pid"] for r in group.foreach_env_runner(mrl.runner_report, local_env_runner=False)
            }
            seen_down = []

            def restored() -> bool:
                healthy = group.num_healthy_remote_workers()
                if healthy < 2:
                    seen_down.append(healthy)
                    return False
                return bool(seen_down)

            results = _train_until(algo, restored, 360)
            results += [algo.train() for _ in range(2)]
            after = group.foreach_env_runner(mrl.runner_report, local_env_runner=False)
    finally:
        if algo is not None:
            algo.stop()
    assert marker.exists() and seen_down
    restarted = [r for r in after if r["pid"] != before[r["worker_index"]]]
    assert len(restarted) == 1, (before, after)  # the faulty EnvRunner is a new process ...
    r = restarted[0]
    assert r["envs_built"] == 1 and r["physics_errors"] == 0 and r["env_steps"] > 0  # ... sampling the normal task
    assert r["seeds"] == mrl.env_seeds(9, r["worker_index"], 4)  # reseeded by the rule (the same seeds again)
    assert len(after) == 2
    for res in results[-2:]:
        assert res["env_runners"]["episode_len_mean"] == EPISODE_LEN


def test_infos_off_gives_empty_info_dicts() -> None:
    env = mrl.RLlibVectorEnv({"num_envs": 2, "seed": 1, "infos": False, **OPTS})
    try:
        assert env.reset(seed=1)[1] == {}
        obs, reward, _, _, info = env.step(np.zeros((2, ACT_DIM), np.float32))
        assert info == {} and obs.shape == (2, OBS_DIM) and reward.shape == (2,)
    finally:
        env.close()
