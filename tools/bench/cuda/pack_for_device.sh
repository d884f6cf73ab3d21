#!/bin/bash
# Packs what tools/bench/cuda/device_run.sh needs on a GPU machine into one
# folder: the test and bench binaries, the plugin folder and libswitchyard
# (stripped), the PyTorch scripts, the device script, and the host
# libraries the binaries link that a GPU image may lack (everything ldd
# finds outside glibc, libstdc++/libgcc and the CUDA toolkit, which the
# GPU machine brings). The tree is also written as tree.tar.xz (GPU code
# compresses ~15x), so that it fits a size-limited transfer.
#
#   [BINS="…"] tools/bench/cuda/pack_for_device.sh BUILD_DIR DEST
#
# BINS: the binaries to pack (default: the cuda plugin's tests and benches;
# tools/bench/fusion/device_run.sh names its own).
#
# On the GPU machine: tar -xJf DEST/tree.tar.xz; cd tree;
#   BUILT_AT=<BUILD_DIR's repository root> tools/bench/cuda/device_run.sh tests bench
set -eu
BUILD=$(cd "$1" && pwd)
DEST=$2
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$DEST/tree" "$DEST/tree.tar.xz"
T=$DEST/tree
mkdir -p "$T/build/release/bin" "$T/build/release/lib/switchyard/plugins" \
         "$T/tools/bench/cuda" "$T/tools/bench/fusion" "$T/tools/bench/collectives" \
         "$T/syslibs"
BINS=${BINS:-"cuda_plugin_test cuda_cudnn_absent_test cuda_op_harness_test bench_cuda bench_block"}
for b in $BINS; do strip -o "$T/build/release/bin/$b" "$BUILD/bin/$b"; done
for f in "$BUILD"/lib/switchyard/plugins/*; do
  case $f in
    *.so) strip -o "$T/build/release/lib/switchyard/plugins/$(basename "$f")" "$f" ;;
    *) cp "$f" "$T/build/release/lib/switchyard/plugins/" ;;
  esac
done
if [ -e "$BUILD/lib/libswitchyard.so.0.1.0" ]; then
  strip -o "$T/build/release/lib/libswitchyard.so.0.1.0" "$BUILD/lib/libswitchyard.so.0.1.0"
fi
cp "$SRC"/tools/bench/cuda/*.py "$SRC"/tools/bench/cuda/device_run.sh "$T/tools/bench/cuda/"
cp "$SRC"/tools/bench/fusion/device_run.sh "$SRC"/tools/bench/fusion/*.py "$T/tools/bench/fusion/"
cp "$SRC"/tools/bench/collectives/*.sh "$SRC"/tools/bench/collectives/*.py \
   "$T/tools/bench/collectives/"
# The Python package where the build has one (tools/bench/python/
# device_run.sh): its files (the build's links resolved), the Python
# benches and tests, and what rebuilds switchyard._C for the GPU machine's
# python3 when that is another version — the binding's sources, the public
# headers and DLPack's header, which the machine may lack.
if [ -d "$BUILD/python/switchyard" ]; then
  mkdir -p "$T/build/release/python" "$T/tools/bench/python" "$T/tests/api" \
           "$T/api/python" "$T/api/src" "$T/sdk" "$T/ext/include"
  cp -rL "$BUILD/python/switchyard" "$T/build/release/python/"
  cp "$SRC"/tools/bench/python/* "$T/tools/bench/python/"
  cp -r "$SRC/tests/api/python" "$T/tests/api/"
  cp -r "$SRC/api/python/src" "$T/api/python/"
  cp -r "$SRC/api/include" "$T/api/"
  cp "$SRC/api/src/dlpack_v1.h" "$T/api/src/"
  cp -r "$SRC/sdk/include" "$T/sdk/"
  dlpack=$(find /usr/include -path '*/dlpack/dlpack.h' | head -1)
  if [ -n "$dlpack" ]; then
    cp -r "$(dirname "$dlpack")" "$T/ext/include/"
  else
    echo "pack_for_device.sh: no dlpack/dlpack.h under /usr/include (apt-get install" \
      "libdlpack-dev): switchyard._C cannot be rebuilt on the GPU machine from this pack" >&2
  fi
fi
# Host libraries: what the binaries and plugins link, minus the base system
# and the CUDA toolkit's (found on the GPU machine itself), and
# libswitchyard, packed above: a copy in syslibs/ would be found first and
# look for its plugins beside itself, where there are none.
for f in "$T"/build/release/bin/* "$T"/build/release/lib/switchyard/plugins/*.so; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux[^/]*|libpthread|libdl|librt)\.so' \
  | grep -v '/usr/local/cuda' | grep -v '/libswitchyard\.so' | while read -r lib; do
  cp -L "$lib" "$T/syslibs/"
done
(cd "$DEST" && tar -cJf tree.tar.xz tree)
du -sh "$T" "$DEST/tree.tar.xz"
