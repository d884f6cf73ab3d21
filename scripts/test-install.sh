#!/usr/bin/env bash
# The installed Switchyard, used as its users use it (run by scripts/test.sh
# after the release build's tests):
#   1. `cmake --install` into a fresh prefix;
#   2. the README's C++ example, built against the install;
#      the backend tutorial (docs/writing-a-backend.md): every ```sh block,
#      in order, against that prefix — the out-of-tree template plugin built
#      from the installed SDK alone, loaded, and run through conformance;
#   3. the Python package from the prefix, and the wheel
#      (scripts/build-wheel.sh) pip-installed into a venv;
#   4. `cpack -G DEB`, then the .debs (the main one, and the plugins with
#      heavy dependencies in packages of their own) installed (as root;
#      else unpacked) and `switchyard info` finding their plugins.
#   scripts/test-install.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
build=$(realpath "${1:-build/release}")
work=$(mktemp -d /tmp/switchyard-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
# What the user's shell would have: no overrides from the build tree.
unset SWITCHYARD_PLUGIN_PATH SWITCHYARD_PLUGINS SWITCHYARD_LIBRARY

echo "=== install: cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
export SWITCHYARD_PREFIX=$work/prefix
# Output to a file, then grep: `grep -q` in a pipe would end the pipe early
# and, under pipefail, fail the script with SIGPIPE.
"$SWITCHYARD_PREFIX/bin/switchyard" info >"$work/prefix-info.txt"
grep -q "plugin 'cpu' .*: loaded" "$work/prefix-info.txt"

echo "=== install: the README's C++ example against the install"
# The ```cpp block of README.md, compiled against the installed headers and
# library only (find_package(Switchyard), as an application does), then run.
mkdir -p "$work/readme"
awk '/^```cpp$/ {on=1; next} /^```$/ {on=0} on' README.md >"$work/readme/main.cc"
cat >"$work/readme/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(readme_example CXX)
find_package(Switchyard CONFIG REQUIRED)
add_executable(readme_example main.cc)
target_compile_features(readme_example PRIVATE cxx_std_20)
target_link_libraries(readme_example PRIVATE Switchyard::api)
CMAKE
cmake -S "$work/readme" -B "$work/readme/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$SWITCHYARD_PREFIX" >"$work/readme.log"
cmake --build "$work/readme/build" >>"$work/readme.log"
"$work/readme/build/readme_example"

echo "=== install: the tutorial's steps (docs/writing-a-backend.md)"
# Each ```sh block becomes part of one script, run with -e from an empty
# folder: the tutorial's commands exactly as written.
awk '/^```sh$/ {on=1; next} /^```$/ {on=0} on' docs/writing-a-backend.md \
  >"$work/tutorial.sh"
(cd "$work" && bash -euxo pipefail tutorial.sh)

echo "=== install: Python from the prefix"
# Under a prefix other than /usr the package is in lib/python3.X/dist-packages
# (the .deb's /usr/lib/python3/dist-packages is checked below, without
# PYTHONPATH). The check itself is the same script both times.
cat >"$work/check.py" <<'PY'
import math, os, sys
import numpy as np
import switchyard as sy
x = np.random.default_rng(7).standard_normal((4, 5)).astype(np.float32)
y = sy.ops.gelu(sy.tensor(x)).numpy()
ref = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))(x.astype(np.float64))
assert np.allclose(y, ref, atol=1e-5), (y, ref)
root = sys.argv[1]
for module in (sy, sy._C):
    assert module.__file__.startswith(root), (module.__file__, root)
assert sy.library_path.startswith(root), (sy.library_path, root)
typed = os.path.join(os.path.dirname(sy.__file__), "py.typed")
assert os.path.exists(typed), typed
print("python:", sy._C.__file__, "on", sy.library_path, ": gelu matches the float64 reference")
PY
site=$(ls -d "$SWITCHYARD_PREFIX"/lib/python3*/dist-packages)
PYTHONPATH="$site" /usr/bin/python3 "$work/check.py" "$SWITCHYARD_PREFIX"

echo "=== install: the wheel, pip-installed into a venv"
scripts/build-wheel.sh "$build" "$work/wheel" >/dev/null
/usr/bin/python3 -m venv --system-site-packages "$work/venv"  # NumPy from Debian
"$work/venv/bin/pip" install --no-index --no-deps -q "$work"/wheel/switchyard-*.whl
(cd "$work" && env -u PYTHONPATH "$work/venv/bin/python" "$work/check.py" "$work/venv/")

echo "=== install: the .debs"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log")
deb=$(ls "$work"/deb/switchyard_*.deb)
ls "$work"/deb/*.deb
dpkg-deb --info "$deb" >"$work/deb-info.txt"
grep -E "Package|Version|Depends" "$work/deb-info.txt"
# Plugins with heavy dependencies are packages of their own. (The listing
# goes to a file first: `grep -q` on a pipe would stop reading early and
# fail dpkg-deb with SIGPIPE under pipefail.)
dpkg-deb --contents "$deb" >"$work/deb-contents.txt"
if grep -E "plugins/(libswitchyard_)?(cuda|onednn)" "$work/deb-contents.txt"; then
  echo "the main package must not carry the cuda or onednn plugin" >&2
  exit 1
fi
grep -q "usr/share/doc/switchyard/copyright" "$work/deb-contents.txt"
onednn_deb=$(ls "$work"/deb/switchyard-plugin-onednn_*.deb 2>/dev/null || true)
if [[ -n $onednn_deb ]]; then
  dpkg-deb --info "$onednn_deb" | grep -E "Package|Depends"
fi
if [[ $(id -u) -eq 0 ]] && command -v dpkg >/dev/null; then
  dpkg -i "$deb" >/dev/null
  trap 'dpkg -P switchyard-plugin-onednn switchyard >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  env -u SWITCHYARD_PREFIX switchyard info >"$work/info.txt" 2>"$work/info-stderr.txt"
  sed -n '1,6p' "$work/info.txt"
  grep -q "plugin 'cpu' (/usr/lib/switchyard/plugins/cpu.json): loaded" "$work/info.txt"
  # Debian's python3 imports the package without PYTHONPATH.
  (cd "$work" && env -u PYTHONPATH /usr/bin/python3 "$work/check.py" /usr/)
  # No cuda plugin installed, so no word about CUDA on a machine without it.
  if grep -qi "cuda" "$work/info-stderr.txt"; then
    echo "switchyard info warned about CUDA without the cuda plugin:" >&2
    cat "$work/info-stderr.txt" >&2
    exit 1
  fi
  if [[ -n $onednn_deb ]]; then
    dpkg -i "$onednn_deb" >/dev/null
    env -u SWITCHYARD_PREFIX switchyard info >"$work/info.txt"
    grep -q "plugin 'onednn' (/usr/lib/switchyard/plugins/onednn.json): loaded" "$work/info.txt"
  fi
else
  echo "(not root: unpacking instead of installing)"
  dpkg-deb -x "$deb" "$work/root"
  "$work/root/usr/bin/switchyard" info >"$work/info.txt"
  sed -n '1,6p' "$work/info.txt"
  grep -q "plugin 'cpu' .*: loaded" "$work/info.txt"
  PYTHONPATH="$work/root/usr/lib/python3/dist-packages" /usr/bin/python3 \
    "$work/check.py" "$work/root/usr/"
fi
echo "=== install: ok"
