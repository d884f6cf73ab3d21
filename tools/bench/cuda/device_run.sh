#!/bin/bash
# Runs the cuda plugin's tests and benchmarks on a GPU machine from build
# outputs made elsewhere (docs/cuda.md#running-on-a-gpu): the test and bench
# binaries, libswitchyard and the plugin folder under build/release, and
# the host libraries they link (Abseil, Boost.Filesystem, OpenSSL) in
# .devcarry/syslibs. Logs go to $OUT (default ./device_out). cuDNN (for
# conv2d) is taken from PyTorch's nvidia-cudnn wheel when the machine has
# one, else from wherever the loader finds libcudnn.so.9.
#
#   tools/bench/cuda/device_run.sh [tests] [bench] [sanitize] [conv2d]
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
# The binaries name their plugin folder by the absolute build path.
if [ "$ROOT" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$ROOT" /work/main
fi
(cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
CUDNN=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
LIBS="$ROOT/.devcarry/syslibs:$ROOT/build/release/lib:$CUBLAS${CUDNN:+:$CUDNN}"
run() { env LD_LIBRARY_PATH="$LIBS" "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
echo "cublasLt from: $CUBLAS; cuDNN from: ${CUDNN:-the default library path}"
for step in "$@"; do
  case $step in
    tests)
      run build/release/bin/cuda_plugin_test 2>&1 | tee "$OUT/plugin_test.log" | tail -25
      run build/release/bin/cuda_op_harness_test --gtest_brief=1 2>&1 \
        | tee "$OUT/harness.log" | grep -v "^\[  SKIPPED \]" | tail -60
      grep -c "SKIPPED \]" "$OUT/harness.log" ;;
    bench)
      run build/release/bin/bench_cuda 2>&1 | tee "$OUT/bench_cuda.txt"
      PYTHONUNBUFFERED=1 python3 tools/bench/cuda/bench_cuda_torch.py 2>&1 \
        | tee "$OUT/bench_torch.txt" ;;
    conv2d)
      run build/release/bin/cuda_plugin_test --gtest_filter='*Conv2d*:CudaLoad.*' 2>&1 \
        | tee "$OUT/conv2d_test.log" | tail -25
      run build/release/bin/cuda_cudnn_absent_test 2>&1 | tee "$OUT/cudnn_absent.log" | tail -8
      run build/release/bin/cuda_op_harness_test --gtest_filter='*conv2d*' 2>&1 \
        | tee "$OUT/harness_conv2d.log" | grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) " | tail -40
      run build/release/bin/bench_cuda --only=conv2d 2>&1 | tee "$OUT/bench_conv2d.txt"
      PYTHONUNBUFFERED=1 python3 tools/bench/cuda/bench_cuda_torch.py --only=conv2d 2>&1 \
        | tee "$OUT/bench_conv2d_torch.txt" ;;
    sanitize)
      timeout 240 env LD_LIBRARY_PATH="$LIBS" compute-sanitizer --tool memcheck \
        --print-limit 20 build/release/bin/cuda_op_harness_test --gtest_brief=1 \
        --gtest_filter='Cuda/Binary.add_Tensor/*:Cuda/Unary.gelu/*:Cuda/Normalize.*:Cuda/Reduce.*:Cuda/Linalg.matmul/*:Cuda/Creation.cast/*:Cuda/Gather.*:Cuda/Layout.concat/*' \
        2>&1 | tee "$OUT/sanitizer.log" | tail -30 ;;
  esac
done
