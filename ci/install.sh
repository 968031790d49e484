#!/usr/bin/env bash
# Stage install: `meson install` into a scratch prefix, then examples/c/Makefile builds hold_pose.c
# against that install through pkg-config, outside the source tree, and runs it.
source "$(dirname "$0")/lib.sh"
use_venv
BUILD=build-install
PREFIX=$ROOT/build-install-prefix
rm -rf "$PREFIX"
fresh_setup "$BUILD" --prefix="$PREFIX" -Dpython_tests=false
meson install -C "$BUILD" --quiet
echo "installed:"; (cd "$PREFIX" && find . -type f -o -type l | sort | sed 's/^/    /')

# pkg-config: the system's, else pkgconf's from PyPI (a machine may have neither).
if command -v pkg-config >/dev/null; then
  PKG_CONFIG=pkg-config
else
  python -m pip install pkgconf
  PKG_CONFIG=pkgconf
fi
pc=$(find "$PREFIX" -name mdvec.pc | head -n1)
[[ -n $pc ]] || { echo "install: no mdvec.pc under $PREFIX" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
echo "pkg-config --cflags --libs mdvec: $($PKG_CONFIG --cflags --libs mdvec)"

# Build where a user would: a copy of the example, away from the source tree and its build dirs.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/c/hold_pose.c examples/c/Makefile "$work/"
make -C "$work" PKG_CONFIG="$PKG_CONFIG"
echo "ldd hold_pose:"; ldd "$work/hold_pose" | grep -E 'mdvec|mujoco' | sed 's/^/  /'
# No LD_LIBRARY_PATH: the program's rpath finds libmdvec, libmdvec's rpath finds libmujoco.
env -u LD_LIBRARY_PATH "$work/hold_pose"
