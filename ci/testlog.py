"""Digest a meson testlog.json: one line per test, pytest's closing lines, and 'N passed, N failed'.

Usage: python ci/testlog.py BUILD/meson-logs/testlog.json [--tail N]
Exit status 1 when the log is missing or holds a failed test or no test at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OK = {"OK", "EXPECTEDFAIL", "SKIP"}


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    tail = int(argv[argv.index("--tail") + 1]) if "--tail" in argv else 15
    if not path.is_file():
        print(f"testlog: {path} not found (the build or the test run did not start)")
        return 1
    tests = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    passed = failed = 0
    print(f"--- {len(tests)} meson tests ({path})")
    for t in tests:
        ok = t["result"] in OK
        passed += ok
        failed += not ok
        print(f"    {t['result']:8s} {t['duration']:8.1f}s  {t['name']}")
    for t in tests:
        out = (t.get("stdout") or "").rstrip().splitlines()
        if t["name"].split(":")[-1] == "pytest" or (t["result"] not in OK and out):
            print(f"--- {t['name']}: last {min(tail, len(out))} lines of its output")
            for line in out[-tail:]:
                print(f"    {line}")
    print(f"meson: {passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
