"""Digest a meson testlog.json: one line per test, pytest's closing lines, and 'N passed, N failed'.

Usage: python ci/testlog.py BUILD/meson-logs/testlog.json [--tail N] [--closing]
  default     one line per meson test, the last N (15) lines of pytest's output and of every failed
              test's output, then 'meson: N passed, N failed'
  --closing   only the closing lines: pytest's own (e.g. '65 passed, 2 skipped in 13.93s') and
              'meson: N passed, N failed' (ci/run.sh prints these at the very end of a CI run)
Exit status 1 when the log is missing or holds a failed test or no test at all.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OK = {"OK", "EXPECTEDFAIL", "SKIP"}
# pytest's summary line: "65 passed, 2 skipped in 13.93s" (-q) or "==== 1 failed, 64 passed in 9.1s ====".
PYTEST_CLOSING = re.compile(
    r"^=*\s*(\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)"
    r"|no tests ran)\b.*\bin [\d.]+s"
)


def is_pytest(test: dict) -> bool:
    """Whether a meson test is the pytest suite or one of its shards ('pytest', 'pytest-1of2', ...)."""
    return re.fullmatch(r"pytest(-\d+of\d+)?", test["name"].split(":")[-1].strip()) is not None


def shard_closing(test: dict) -> str | None:
    """Return pytest's closing line in one meson test's output, or None."""
    lines = [line.strip() for line in (test.get("stdout") or "").splitlines()]
    found = [line for line in lines if PYTEST_CLOSING.match(line)]
    return found[-1].strip("= ") if found else None


def pytest_closing(tests: list[dict]) -> str | None:
    """Return pytest's closing line: the one pytest test's own, or for shards their counts summed (the tests
    each shard deselects are the others' and are left out) with each shard's line after it; None when no
    pytest test printed one."""
    lines = [(t["name"].split(":")[-1].strip(), shard_closing(t)) for t in tests if is_pytest(t)]
    if not any(line for _, line in lines):
        return None
    if len(lines) == 1:
        return lines[0][1]
    totals: dict[str, int] = {}
    for _, line in lines:
        for count, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|warnings?)", line or ""):
            key = {"error": "errors", "warning": "warnings"}.get(word, word)
            totals[key] = totals.get(key, 0) + int(count)
    summed = ", ".join(f"{n} {word}" for word, n in totals.items())
    shards = "; ".join(f"{name}: {line or 'no closing line (it did not finish)'}" for name, line in lines)
    return f"{summed} in {len(lines)} shards ({shards})"


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    tail = int(argv[argv.index("--tail") + 1]) if "--tail" in argv else 15
    closing_only = "--closing" in argv
    if not path.is_file():
        print(f"testlog: {path} not found (the build or the test run did not start)")
        return 1
    tests = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    passed = sum(t["result"] in OK for t in tests)
    failed = len(tests) - passed
    if closing_only:
        line = pytest_closing(tests)
        if line:
            print("pytest's closing line:")
            print(line)
        print(f"meson: {passed} passed, {failed} failed")
        return 0 if failed == 0 and passed > 0 else 1
    print(f"--- {len(tests)} meson tests ({path})")
    for t in tests:
        print(f"    {t['result']:8s} {t['duration']:8.1f}s  {t['name']}")
    for t in tests:
        out = (t.get("stdout") or "").rstrip().splitlines()
        if is_pytest(t) or (t["result"] not in OK and out):
            print(f"--- {t['name']}: last {min(tail, len(out))} lines of its output")
            for line in out[-tail:]:
                print(f"    {line}")
    print(f"meson: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
