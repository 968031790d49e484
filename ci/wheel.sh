#!/usr/bin/env bash
# Stage wheel: the README's first command in a fresh venv, `pip install .` (meson-python, build
# isolation, the pinned mujoco), then from another directory: `import mdvec`, the README's examples
# (ci/readme.py) and `python -m mdvec demo`.
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
"$WVENV/bin/python" "$ROOT/ci/readme.py" "$ROOT/README.md" "$ROOT/examples/c/hold_pose.c"
"$WVENV/bin/python" -m mdvec demo
if command -v readelf >/dev/null; then   # the installed library finds only the wheel's own libmujoco
  rpath=$(readelf -d "$WVENV"/lib/python3*/site-packages/mdvec/libmdvec.so* | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  echo "libmdvec RUNPATH: $rpath"
  [[ $rpath == '$ORIGIN/../mujoco' ]] || { echo "wheel: expected RUNPATH \$ORIGIN/../mujoco" >&2; exit 1; }
fi
