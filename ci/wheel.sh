#!/usr/bin/env bash
# Stage wheel: the binary wheel and the sdist, installed and used where no C compiler is.
#   1. bash ci/build_wheel.sh build-ci-out/dist: the sdist and the manylinux wheel built from it
#      (auditwheel repair with libmujoco excluded; auditwheel show checked there);
#   2. a fresh venv (.venv-ci-wheel); the wheel installed by pip with --only-binary :all: on a PATH
#      that is that venv's bin/ alone, where `command -v cc gcc` finds nothing; its size and install
#      time printed; pip's refusal of the wheel for another platform (an older glibc, macOS) and of
#      another Python (3.10);
#   3. from another directory: `import mdvec` (libmdvec.so.1 loaded from the package, RUNPATH
#      $ORIGIN/../mujoco), the Python blocks and commands of README.md and docs/ that need no extra (ci/readme.py), `python -m mdvec demo`,
#      `python -m mdvec bench --quick` (results in the current directory; the bare C column skipped
#      with how to build it); `import mdvec.gym` without gymnasium fails naming the extra;
#   4. mdvec-config's answers and refusals (unknown flag, --model without gymnasium: exit 2);
#   5. C against the pip install alone (the compiler back on PATH): examples/c/hold_pose.c built with
#      `cc $(mdvec-config --cflags --libs)` and with examples/c/Makefile through
#      PKG_CONFIG_PATH=$(mdvec-config --pkgconfigdir), run without LD_LIBRARY_PATH, libmujoco resolved
#      to the mujoco package's own;
#   6. "mdvec[gymnasium]" from the wheel file, no compiler either; `python -m mdvec contract --quick`
#      (the duck and Gymnasium's eleven v5 tasks); examples/c/gym_task.c on `mdvec-config --model
#      Hopper-v5`;
#   7. `pip wheel .` (what the README's `pip install .` builds): the same files as the released wheel.
# The extras stage (ci/extras.sh) goes on in this venv.
source "$(dirname "$0")/lib.sh"
DIST=$OUT/dist
bash ci/build_wheel.sh "$DIST"
wheels=("$DIST"/mdvec-*-py3-none-manylinux_*.whl)
whl=${wheels[0]}
[[ -f $whl ]] || { echo "wheel: no manylinux wheel in $DIST" >&2; exit 1; }

WVENV=$ROOT/.venv-ci-wheel
rm -rf "$WVENV"
"$PYTHON" -m venv "$WVENV"
py=$WVENV/bin/python
nocc=$WVENV/bin   # the PATH of the installs: the venv's own programs, no compiler
for c in cc gcc c99 clang; do
  if (PATH=$nocc; command -v "$c"); then echo "wheel: $c is on the no-compiler PATH" >&2; exit 1; fi
done
echo "no-compiler PATH=$nocc: command -v cc gcc c99 clang finds none"
t0=$(date +%s.%N)
/usr/bin/env PATH="$nocc" "$py" -m pip install --only-binary :all: -c "$ROOT/ci/constraints.txt" "$whl"
t1=$(date +%s.%N)
"$py" - "$whl" "$t0" "$t1" <<'PY'
import os, sys
whl, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
print(f"wheel: {os.path.basename(whl)}, {os.path.getsize(whl):,} bytes; pip install (with mujoco, numpy) "
      f"in {t1 - t0:.1f} s with no compiler")
PY

# pip refuses the wheel where it cannot run: another platform, another Python (Requires-Python >=3.11;
# pip 23's dry run names the pinned mujoco's Requires-Python first, with a real 3.10 it names mdvec's).
for target in "--platform manylinux_2_28_x86_64" "--platform macosx_11_0_arm64" "--python-version 3.10"; do
  # shellcheck disable=SC2086  # $target is two words on purpose
  if refusal=$("$py" -m pip install --dry-run --only-binary :all: --target "$OUT/refused" $target "$whl" 2>&1); then
    echo "wheel: pip accepted the wheel for $target" >&2; exit 1
  fi
  echo "pip install $target: refused: $(grep ERROR <<<"$refusal" | head -n1)"
done
"$py" - "$whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
lines = [l for l in meta.splitlines() if l.startswith(("Requires-Python:", "License-Expression:", "Summary:", "Project-URL:"))]
print("metadata:", *lines, sep="\n  ")
assert "Requires-Python: >=3.11" in lines, "the wheel must declare Requires-Python >=3.11"
PY

elsewhere=$(mktemp -d)
trap 'rm -rf "$elsewhere"' EXIT
cd "$elsewhere"   # nothing of the source tree on sys.path from here
"$py" - <<'PY'
import pathlib, mujoco, mdvec
pkg = pathlib.Path(mdvec.__file__).parent
print("mdvec", mdvec.__version__, "from", pkg, "on mujoco", mujoco.__version__)
print("package files:", sorted(p.name for p in pkg.iterdir() if p.name != "__pycache__"))
for sub in ("include", "models", "pkgconfig"):
    print(f"  {sub}/:", sorted(p.name for p in (pkg / sub).iterdir()))
lib = mdvec.vecenv.lib()
print("library:", lib.path)
assert pathlib.Path(lib.path) == pkg / "libmdvec.so.1", "libmdvec was not loaded from the installed package"
env = mdvec.VecEnv(2)
print("VecEnv(2).reset().shape:", env.reset().shape)
env.close()
try:  # before the extra: a clear ImportError that names it
    import mdvec.gym
except ImportError as exc:
    print("without gymnasium, import mdvec.gym ->", exc)
    assert "mdvec[gymnasium]" in str(exc), "the ImportError should say how to install the extra"
else:
    raise SystemExit("wheel: gymnasium is installed in the fresh wheel venv; the core install should not pull it in")
PY
rpath=$(readelf -d "$WVENV"/lib/python3*/site-packages/mdvec/libmdvec.so.1 | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
echo "libmdvec.so.1 RUNPATH: $rpath"
[[ $rpath == '$ORIGIN/../mujoco' ]] || { echo "wheel: expected RUNPATH \$ORIGIN/../mujoco" >&2; exit 1; }
"$py" "$ROOT/ci/readme.py"   # README.md, CONTRIBUTING.md and docs/*.md: blocks and commands that need no extra
"$py" -m mdvec demo
env -u MDVEC_BENCH "$py" -m mdvec bench --quick --no-plot --backends "mdvec,bare C"
"$py" - <<'PY'
import json, pathlib
[path] = pathlib.Path("mdvec-bench-results").glob("sidebyside_*.json")
report = json.loads(path.read_text())
print(f"bench: wrote {path} in the current directory; skipped: {report['skipped']}")
assert any("bare C" in s and "MDVEC_BENCH" in s for s in report["skipped"]), "bare C should be skipped with how to build it"
PY

# mdvec-config: the console script and python -m mdvec config, the same answers; refusals exit 2.
cfg=$WVENV/bin/mdvec-config
echo "mdvec-config --cflags --libs --pkgconfigdir:"; "$cfg" --cflags --libs --pkgconfigdir | sed 's/^/  /'
[[ $("$py" -m mdvec config --cflags --libs) == $("$cfg" --cflags --libs) ]] || { echo "wheel: python -m mdvec config differs" >&2; exit 1; }
expect_2() {  # expect_2 ARGS...: mdvec-config ARGS exits 2 with a message
  local rc=0 msg
  msg=$("$cfg" "$@" 2>&1 >/dev/null) || rc=$?
  [[ $rc -eq 2 && -n $msg ]] || { echo "wheel: mdvec-config $* exited $rc (expected 2 and a message)" >&2; exit 1; }
  echo "mdvec-config $*: exit 2: $(tail -n1 <<<"$msg" | cut -c1-160)"
}
expect_2 --no-such-flag
expect_2 --model Hopper-v5   # gymnasium is not installed yet

# C against the pip install alone: a copy of the examples away from the source tree, no meson install.
work=$(mktemp -d)
trap 'rm -rf "$elsewhere" "$work"' EXIT
cp "$ROOT"/examples/c/{hold_pose.c,gym_task.c,Makefile} "$work/"
cd "$work"
cc -O2 -Wall -Wextra -Werror -o hold_pose hold_pose.c $("$cfg" --cflags --libs)
echo "ldd hold_pose:"; ldd hold_pose | grep -E 'mdvec|mujoco' | sed 's/^/  /'
"$py" - <<'PY'   # the program's libmujoco is the mujoco package's own file, not a copy
import os, subprocess, mujoco
loaded = [l.split("=>")[1].split("(")[0].strip() for l in subprocess.run(
    ["ldd", "hold_pose"], capture_output=True, text=True, check=True).stdout.splitlines() if "libmujoco" in l]
package = os.path.dirname(os.path.realpath(mujoco.__file__))
assert len(loaded) == 1 and os.path.dirname(os.path.realpath(loaded[0])) == package, (loaded, package)
PY
env -u LD_LIBRARY_PATH ./hold_pose
rm hold_pose
PKG_CONFIG=pkg-config
command -v pkg-config >/dev/null || { "$py" -m pip install pkgconf; PKG_CONFIG=$WVENV/bin/pkgconf; }
PKG_CONFIG_PATH=$("$cfg" --pkgconfigdir) make PKG_CONFIG="$PKG_CONFIG"
env -u LD_LIBRARY_PATH ./hold_pose

# The gymnasium extra from the wheel file, again with no compiler; the quick contract; a v5 task from C.
cd "$elsewhere"
/usr/bin/env PATH="$nocc" "$py" -m pip install --only-binary :all: -c "$ROOT/ci/constraints.txt" "$whl[gymnasium]"
"$py" -m mdvec contract --quick
model=$("$cfg" --model Hopper-v5)
echo "mdvec-config --model Hopper-v5: $model"
cc -O2 -Wall -Wextra -Werror -o "$work/gym_task" "$work/gym_task.c" $("$cfg" --cflags --libs)
env -u LD_LIBRARY_PATH "$work/gym_task" Hopper-v5 "$model"

# The README's `pip install .` builds through the same backend straight from the source tree: its wheel
# must hold the very files of the released one (tags and build paths aside).
"$py" -m pip wheel --quiet --no-deps --wheel-dir "$work/pip-dot" "$ROOT"
"$py" - "$whl" "$work"/pip-dot/mdvec-*.whl <<'PY'
import sys, zipfile
released, from_tree = ({n for n in zipfile.ZipFile(p).namelist() if ".dist-info/" not in n and not n.endswith("/")}
                       for p in sys.argv[1:3])  # auditwheel's zip lists folders too
assert released == from_tree, f"pip install . would install other files: {sorted(released ^ from_tree)}"
print(f"pip wheel . (what pip install . installs): the same {len(released)} files as the released wheel")
PY
