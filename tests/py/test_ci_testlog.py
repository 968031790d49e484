"""ci/testlog.py (the digest CI prints of meson's test log): pytest's closing line from one pytest test or
summed over the shards tests/meson.build splits the suite into, and the exit status from meson's results.
Also the shard selection of tests/py/conftest.py: the shards together run every test once."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def testlog() -> ModuleType:
    """ci/testlog.py, imported by its path (ci/ is not a package)."""
    spec = importlib.util.spec_from_file_location("ci_testlog", ROOT / "ci" / "testlog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _test(name: str, result: str, stdout: str) -> dict:
    return {"name": name, "result": result, "duration": 1.0, "stdout": stdout}


def test_one_pytest_test_gives_its_own_line(testlog: ModuleType) -> None:
    tests = [
        _test("c - mdvec:api", "OK", ""),
        _test("python - mdvec:pytest", "OK", ".. \n65 passed, 2 skipped in 13.93s\n"),
    ]
    assert testlog.pytest_closing(tests) == "65 passed, 2 skipped in 13.93s"


def test_shards_are_summed_without_the_deselected(testlog: ModuleType) -> None:
    tests = [
        _test("python - mdvec:pytest-1of2", "OK", "500 passed, 6 skipped, 4 warnings, 508 deselected in 290.10s"),
        _test("python - mdvec:pytest-2of2", "FAIL", "1 failed, 501 passed, 6 skipped, 512 deselected in 301.00s"),
    ]
    line = testlog.pytest_closing(tests)
    assert line.startswith("1001 passed, 12 skipped, 4 warnings, 1 failed in 2 shards (")
    assert "pytest-2of2: 1 failed, 501 passed" in line and "deselected" not in line.split(" in 2 shards")[0]


def test_a_shard_without_a_closing_line_is_named(testlog: ModuleType) -> None:
    tests = [
        _test("python - mdvec:pytest-1of2", "OK", "3 passed in 1.00s"),
        _test("python - mdvec:pytest-2of2", "TIMEOUT", "...."),
    ]
    assert "pytest-2of2: no closing line (it did not finish)" in testlog.pytest_closing(tests)


def test_exit_status_follows_meson(testlog: ModuleType, tmp_path: Path) -> None:
    log = tmp_path / "testlog.json"
    ok = [_test("c - mdvec:api", "OK", ""), _test("python - mdvec:pytest-1of2", "OK", "3 passed in 1.00s")]
    log.write_text("".join(json.dumps(t) + "\n" for t in ok))
    assert testlog.main([str(log), "--closing"]) == 0
    log.write_text("".join(json.dumps(t) + "\n" for t in [*ok, _test("python - mdvec:pytest-2of2", "FAIL", "")]))
    assert testlog.main([str(log), "--closing"]) == 1
    log.write_text("")
    assert testlog.main([str(log), "--closing"]) == 1


def test_shards_together_run_every_test_once(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "py" / "conftest.py").read_text())
    (tmp_path / "test_some.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('k', range(7))\ndef test_k(k):\n    pass\n"
    )
    seen = []
    # The caller's PYTEST_ADDOPTS (ci/outoftree.sh passes a -k) must not select among these tests.
    base = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    for shard in ("1/3", "2/3", "3/3"):
        env = {**base, "MDVEC_PYTEST_SHARD": shard}
        out = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co", str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        ).stdout
        seen += [line for line in out.splitlines() if "::test_k[" in line]
    assert sorted(seen) == sorted(f"test_some.py::test_k[{k}]" for k in range(7))
    env = {**base, "MDVEC_PYTEST_SHARD": "4/3"}
    bad = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert bad.returncode != 0 and "want i/n" in bad.stdout + bad.stderr
