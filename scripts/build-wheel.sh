#!/usr/bin/env bash
# A wheel of the Python package from a build (docs/python.md#wheel): the
# installed switchyard/ (the .py files, _C, the stubs) with libswitchyard and
# the in-tree plugins bundled under switchyard/lib/, packed by Debian's pip
# offline (no index, no build isolation: setuptools and wheel come from
# python3-setuptools and python3-wheel). _C finds the bundled library
# through its run path ($ORIGIN/lib), and the library its plugins next to
# itself (lib/switchyard/plugins).
#
#   scripts/build-wheel.sh [BUILD_DIR] [DEST]   (default build/release, BUILD_DIR/wheel)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=$(realpath "${1:-build/release}")
dest=$(realpath -m "${2:-$build/wheel}")
stage=$(mktemp -d /tmp/switchyard-wheel.XXXXXX)
trap 'rm -rf "$stage"' EXIT

cp "$repo/api/python/wheel/setup.py" "$stage/"
# The package as installed (its _C has the install run path, not the
# build tree's), from api/python's install rules alone.
cmake -DCMAKE_INSTALL_PREFIX="$stage/prefix" \
  -P "$build/api/python/cmake_install.cmake" >"$stage/install.log"
mv "$stage"/prefix/lib/python3*/dist-packages/switchyard "$stage/switchyard"
rm -rf "$stage/prefix"
mkdir -p "$stage/switchyard/lib/switchyard"
cp -L "$build/lib/libswitchyard.so.0" "$stage/switchyard/lib/"
cp -rL "$build/lib/switchyard/plugins" "$stage/switchyard/lib/switchyard/"
find "$stage/switchyard/lib" -name '*.so*' -exec strip --strip-unneeded {} +
strip --strip-unneeded "$stage"/switchyard/_C*.so

version=$(sed -n "s/^project(Switchyard VERSION \([0-9.]*\).*/\1/p" "$repo/CMakeLists.txt")
mkdir -p "$dest"
SWITCHYARD_VERSION=${version:-0.0.0} /usr/bin/python3 -m pip wheel --no-deps --no-index \
  --no-build-isolation --disable-pip-version-check -q -w "$dest" "$stage"
ls "$dest"/switchyard-*.whl
