#!/usr/bin/env bash
# Stage wheel: the README's first command in a fresh venv, `pip install .` (meson-python, build
# isolation, the pinned mujoco), then from another directory: `import mdvec`, the examples and
# commands of README.md and docs/ that need no extra (ci/readme.py), `python -m mdvec demo`, and
# `python -m mdvec bench --quick` (its results land in ./mdvec-bench-results; without a source
# checkout's mdvec_bench it skips the bare C column, saying how to build it). The extras stage
# (ci/extras.sh) goes on in this venv.
source "$(dirname "$0")/lib.sh"
WVENV=$ROOT/.venv-ci-wheel
rm -rf "$WVENV"
"$PYTHON" -m venv "$WVENV"
"$WVENV/bin/python" -m pip install .
elsewhere=$(mktemp -d)
trap 'rm -rf "$elsewhere"' EXIT
cd "$elsewhere"   # nothing of the source tree on sys.path from here
"$WVENV/bin/python" - <<'PY'
import ctypes, pathlib, mujoco, mdvec
from mdvec import _lib
pkg = pathlib.Path(mdvec.__file__).parent
print("mdvec", mdvec.__version__, "from", pkg, "on mujoco", mujoco.__version__)
print("package files:", sorted(p.name for p in pkg.iterdir() if p.name != "__pycache__"))
for sub in ("include", "models"):
    print(f"  {sub}/:", sorted(p.name for p in (pkg / sub).iterdir()))
lib = mdvec.vecenv.lib()
print("library:", lib.path)
assert pathlib.Path(lib.path).resolve().parent == pkg, "libmdvec was not loaded from the installed package"
env = mdvec.VecEnv(2)
print("VecEnv(2).reset().shape:", env.reset().shape)
env.close()
PY
"$WVENV/bin/python" "$ROOT/ci/readme.py"   # README.md and docs/*.md: blocks and commands that need no extra
"$WVENV/bin/python" -m mdvec demo
env -u MDVEC_BENCH "$WVENV/bin/python" -m mdvec bench --quick --no-plot --backends "mdvec,bare C"
"$WVENV/bin/python" - <<'PY'
import json, pathlib
[path] = pathlib.Path("mdvec-bench-results").glob("sidebyside_*.json")
report = json.loads(path.read_text())
print(f"bench: wrote {path} in the current directory; skipped: {report['skipped']}")
assert any("bare C" in s and "MDVEC_BENCH" in s for s in report["skipped"]), "bare C should be skipped with how to build it"
PY
if command -v readelf >/dev/null; then   # the installed library finds only the wheel's own libmujoco
  rpath=$(readelf -d "$WVENV"/lib/python3*/site-packages/mdvec/libmdvec.so* | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  echo "libmdvec RUNPATH: $rpath"
  [[ $rpath == '$ORIGIN/../mujoco' ]] || { echo "wheel: expected RUNPATH \$ORIGIN/../mujoco" >&2; exit 1; }
fi
