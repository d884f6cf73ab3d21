#!/bin/bash
# Runs the cuda plugin's tests and benchmarks on a GPU machine from build
# outputs made elsewhere (docs/cuda.md#running-on-a-gpu). Run it from a
# tree that holds build/release (the test and bench binaries,
# libswitchyard and the plugin folder), tools/bench/cuda (the PyTorch
# scripts) and syslibs/ (the host libraries the binaries link that the GPU
# machine lacks: Abseil, Boost.Filesystem, OpenSSL, GoogleTest). Logs go
# to $OUT (default ./device_out). cuDNN comes from PyTorch's nvidia-cudnn
# wheel when the machine has one, else from wherever the loader finds
# libcudnn.so.9.
#
#   BUILT_AT=/work/wt/cudav2 tools/bench/cuda/device_run.sh [tests] [bench]
#
# BUILT_AT: the absolute path the tree was built at (the binaries name
# their plugin folder by it; default /work/main); it is linked to this
# tree when it does not exist.
#   tests: cuda_plugin_test, cuda_cudnn_absent_test, the op harness on
#          cuda:0 and compute-sanitizer memcheck on the plugin's own new
#          kernels, in parallel (they only need correctness);
#   bench: then, alone on the GPU: attention, conv2d and the transformer
#          block, each beside PyTorch.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
BUILT_AT=${BUILT_AT:-/work/main}
if [ "$ROOT" != "$BUILT_AT" ] && [ ! -e "$BUILT_AT" ]; then
  mkdir -p "$(dirname "$BUILT_AT")" && ln -s "$ROOT" "$BUILT_AT"
fi
(cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
CUDNN=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
LIBS="$ROOT/syslibs:$ROOT/build/release/lib:$CUBLAS${CUDNN:+:$CUDNN}"
BIN=build/release/bin
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
run() { env LD_LIBRARY_PATH="$LIBS" "$@"; }
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  echo "cublasLt from: $CUBLAS; cuDNN from: ${CUDNN:-the default library path}"
  ls "${CUDNN:-/nonexistent}" 2>/dev/null | grep -m1 'libcudnn.so.9'
} 2>&1 | tee "$OUT/summary.txt"
for step in "$@"; do
  case $step in
    tests)
      t0=$(date +%s)
      # The plugin's own kernels under memcheck: flash attention (not the
      # cuDNN variant: cuDNN's kernels are not ours and slow under the
      # tool), integer div/pow, the integer GEMM, the direct f64 conv,
      # norms with f32 weights, unary ops on integers, embedding, the
      # implicit-GEMM convolution.
      SAN_TESTS='*CudaAttentionTest.*:DeviceChecks.*:*ImplicitGemmTileEdges/f16:*ImplicitGemmTileEdges/bf16:-*FlashAndCudnnVariants*'
      SAN_HARNESS='Cuda/Binary.div_Tensor/i*:Cuda/Binary.pow_Tensor/i*:Cuda/Binary.pow_Tensor/u8:Cuda/Linalg.matmul/i8:Cuda/Linalg.matmul/u8:Cuda/Linalg.matmul/i64:Cuda/Linalg.conv2d/f64:Cuda/Normalize.rms_norm/*:Cuda/Normalize.layer_norm/*:Cuda/Unary.exp/i32:Cuda/Unary.gelu/u8:Cuda/Gather.embedding/*:Cuda/Errors.div*:Cuda/Attention.*'
      timeout 80 env LD_LIBRARY_PATH="$LIBS" $BIN/cuda_plugin_test > "$OUT/plugin_test.log" 2>&1 &
      timeout 40 env LD_LIBRARY_PATH="$LIBS" $BIN/cuda_cudnn_absent_test > "$OUT/absent.log" 2>&1 &
      timeout 80 env LD_LIBRARY_PATH="$LIBS" $BIN/cuda_op_harness_test --gtest_brief=1 > "$OUT/harness.log" 2>&1 &
      # The device checks made at each call (Note [Deferred device checks]).
      ( timeout 40 env SWITCHYARD_GPU_SYNC_CHECKS=1 LD_LIBRARY_PATH="$LIBS" $BIN/cuda_plugin_test \
          --gtest_brief=1 --gtest_filter='DeviceChecks.*'
        timeout 40 env SWITCHYARD_GPU_SYNC_CHECKS=1 LD_LIBRARY_PATH="$LIBS" $BIN/cuda_op_harness_test \
          --gtest_brief=1 --gtest_filter='*Errors*' ) > "$OUT/sync_checks.log" 2>&1 &
      ( timeout 75 env LD_LIBRARY_PATH="$LIBS" "$SANITIZER" --tool memcheck --print-limit 20 \
          $BIN/cuda_plugin_test --gtest_brief=1 --gtest_filter="$SAN_TESTS"
        timeout 40 env LD_LIBRARY_PATH="$LIBS" "$SANITIZER" --tool memcheck --print-limit 20 \
          $BIN/cuda_op_harness_test --gtest_brief=1 --gtest_filter="$SAN_HARNESS" ) > "$OUT/sanitizer.log" 2>&1 &
      wait
      # cuDNN's own account of the attention graph (warnings and errors).
      CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG=stderr timeout 30 env LD_LIBRARY_PATH="$LIBS" \
        $BIN/cuda_plugin_test --gtest_filter='*FlashAndCudnnVariants/bf16' 2>&1 \
        | grep -v "^\[" | head -c 6000 > "$OUT/cudnn_attention.log"
      {
        echo "== tests took $(( $(date +%s) - t0 )) s"
        echo "== cuda_plugin_test"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|tests? ran|NOTE|Failure|error" "$OUT/plugin_test.log" | tail -40
        echo "== cuda_cudnn_absent_test"; tail -4 "$OUT/absent.log"
        echo "== SWITCHYARD_GPU_SYNC_CHECKS=1"; grep -E "PASSED|FAILED|Failure" "$OUT/sync_checks.log" | head -20
        echo "== harness"; grep -vE "^\[  SKIPPED \]" "$OUT/harness.log" | tail -40
        echo "skipped: $(grep -c 'SKIPPED \]' "$OUT/harness.log")"
        grep 'SKIPPED \]' "$OUT/harness.log" | head -30
        echo "== sanitizer"; grep -E "ERROR SUMMARY|PASSED|FAILED|Invalid|out of bounds" "$OUT/sanitizer.log" | head -20
      } 2>&1 | tee -a "$OUT/summary.txt" ;;
    bench)
      # Ten timings a row (medians), to fit a short lease.
      t0=$(date +%s)
      run timeout 40 $BIN/bench_cuda --repeats=10 --only=attention > "$OUT/bench_ours.txt" 2>&1
      run timeout 60 $BIN/bench_cuda --repeats=10 --only=conv2d >> "$OUT/bench_ours.txt" 2>&1
      run timeout 30 $BIN/bench_block >> "$OUT/bench_ours.txt" 2>&1
      PYTHONUNBUFFERED=1 timeout 100 python3 tools/bench/cuda/bench_cuda_torch.py \
        --repeats=10 --only=attention,conv2d,block > "$OUT/bench_torch.txt" 2>&1
      echo "== bench took $(( $(date +%s) - t0 )) s" >> "$OUT/summary.txt"
      cat "$OUT/bench_ours.txt" "$OUT/bench_torch.txt" ;;
  esac
done
