#!/bin/bash
# Runs the autotuner's GPU benchmark on a machine with an NVIDIA GPU, from
# build outputs made elsewhere (as tools/bench/cuda/device_run.sh does): the
# binaries, libswitchyard and the plugin folder under build/release, and the
# host libraries they link (Abseil, Boost.Filesystem, OpenSSL, SQLite) in
# .devcarry/syslibs. Output goes to $OUT (default ./device_out).
#
#   tools/bench/autotune/device_run.sh [tests] [bench]
#     tests   the autotuner's test suite (cpu and the planted fakedev
#             plugin: the machine's other cores and filesystem)
#     bench   bench_autotune_cuda (32 keys: tuned vs cuBLASLt's first
#             choice) and bench_autotune_torch.py (torch.matmul), same GPU
#
# Needs build/release/bin/{autotune_test,autotune_worker,bench_autotune_cuda},
# build/release/lib (libswitchyard, the plugin folder) and
# build/release/autotune_test_plugins (for tests).
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
# The binaries name their plugin folder by the absolute build path.
if [ "$ROOT" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$ROOT" /work/main
fi
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
LIBS="$ROOT/.devcarry/syslibs:$ROOT/build/release/lib:$CUBLAS"
run() { env LD_LIBRARY_PATH="$LIBS" "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
# The tuner's cache goes to $OUT, so it comes back with the logs.
export SWITCHYARD_CACHE_DIR="$OUT/cache"
for step in "$@"; do
  case $step in
    tests)
      run build/release/bin/autotune_test 2>&1 | tee "$OUT/autotune_test.log" | tail -15 ;;
    bench)
      run build/release/bin/bench_autotune_cuda 2>&1 | tee "$OUT/bench_autotune_cuda.txt"
      PYTHONUNBUFFERED=1 python3 tools/bench/autotune/bench_autotune_torch.py 2>&1 \
        | tee "$OUT/bench_autotune_torch.txt" ;;
  esac
done
