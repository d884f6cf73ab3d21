#!/bin/bash
# Runs the CUDA side of fusion (docs/fusion.md, "CUDA") on a GPU machine
# from build outputs made elsewhere: the fused-kernel tests on cuda:0 and
# bench_fusion's cuda rows. Run it from a tree packed by
# tools/bench/cuda/pack_for_device.sh with the fusion binaries:
#
#   BINS="fusion_test cuda_fusion_test cuda_codegen_test bench_fusion" \
#     tools/bench/cuda/pack_for_device.sh build/release DEST
#   # on the GPU machine, in DEST/tree:
#   BUILT_AT=/work/wt/fusion tools/bench/fusion/device_run.sh tests bench torch
#
# BUILT_AT: the absolute path the tree was built at (the binaries name
# their plugin folder by it); linked to this tree when it does not exist.
# Logs go to $OUT (default ./device_out); summary.txt sums them up.
#   tests: fusion_test's cuda instances (every fused graph of the cpu tests,
#          fused against unfused on cuda:0), cuda_fusion_test (the chain and
#          row reductions against float64, row lengths 1 … 262144, the
#          kernel cache, the matmul epilogue pattern), the same without
#          NVRTC (groups run unfused and say why), cuda_codegen_test, the
#          softmax rows under other shapes (block=256; shared=1: every row
#          kept in shared memory; shared=1,block=256,cluster=16: the long
#          rows over clusters of 16; block=300: refused), and
#          compute-sanitizer memcheck on the generated kernels;
#   bench: bench_fusion's cuda/ rows (fused vs eager, the row-length sweep
#          with its fraction of copy bandwidth, the block, cold and
#          warm-disk compiles), alone on the GPU, then — where python3 has
#          torch, and FUSION_TORCH is not 0 — the `torch` step; at most
#          240 + 300 s.
#   torch: bench_fusion_torch.py (PyTorch eager and torch.compile on the
#          same graphs and sweep, compile times; needs python3 with torch
#          and Triton, no Switchyard binary), then compare.txt: ours beside
#          PyTorch's (compare_torch.py) when bench_fusion.json is there.
#   rows_sanitizer: compute-sanitizer memcheck and racecheck on the row
#          kernels at every row length (thread-block clusters included).
#   rowshapes: bench_fusion's cuda/rowlen rows under the default shapes
#          (codegen 5: per kept dtype) and again under others
#          (SWITCHYARD_CUDA_FUSED_ROWS=block=512,cluster=8 — codegen 4's
#          defaults for every dtype —, cluster=1, block=256, kept=64,
#          kept=256; ROW_SHAPES overrides the list, `default` meaning
#          unset), to check and pick the defaults.
#   autotune_rows: the same row-length sweep three times in one run, with
#          the autotune cache in $OUT/autotune_cache (fresh): SWITCHYARD_
#          AUTOTUNE=off (every row kernel in launch configuration 0, the
#          default shape), =on (each row kernel's configurations — Note [Row
#          kernel shapes], RowConfigs — compiled, timed on the GPU and the
#          fastest kept; the measuring happens in the graph's compile, before
#          the timed runs) and =cached (the choices read back: nothing is
#          measured, the same configurations). Prints the rows' time and
#          frac_copy per mode and the configuration each row ran; then
#          cuda_fusion_test's CudaLaunchTuning test (every configuration of
#          softmax/rms_norm rows of 4096 … 262144, f32 and bf16, checked
#          against the default; the winner against the unfused graph; the
#          verdicts printed). ~90 s.
#   capture: what a replay costs against the same ops called one by one
#          (docs/fusion.md, "Replay"): fusion_test's cuda instances of the
#          native-kernel test, then bench_fusion's cuda/block rows — ops (the
#          block op by op, no graph), eager (the graph unfused) and fused —
#          5 repetitions, with the fused plan printed (BENCH_FUSION_DESCRIBE):
#          no copy step after attention, the first rms_norm on the plugin's
#          own kernel; and the rule behind that at the block's shape: the
#          rms_norm op's kernel (cuda/rms_norm_op/…/4096x1024) against the
#          fused kernel of the same computation (cuda/rms_norm/…/4096x1024/fused).
#   fixes: just the three tests that failed on the H100 before the register
#          cache and pattern-pass fixes (bf16 rows, the matmul epilogue
#          pattern, reduce-then-broadcast on cuda).
#   demo:  `switchyard demo` (needs BINS to include switchyard): the block
#          op by op and as a compiled graph on every device, cuda:0 included.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
BUILT_AT=${BUILT_AT:-/work/main}
if [ "$ROOT" != "$BUILT_AT" ] && [ ! -e "$BUILT_AT" ]; then
  mkdir -p "$(dirname "$BUILT_AT")" && ln -s "$ROOT" "$BUILT_AT"
fi
if [ -e build/release/lib/libswitchyard.so.0.1.0 ]; then
  (cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
fi
find_lib() {  # the directory of the first file named $1 under the toolkit or a wheel
  local wheels
  wheels=$(python3 -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null)
  dirname "$(find /usr/local/cuda* /usr/lib /opt $wheels -name "$1" 2>/dev/null | head -1)" 2>/dev/null
}
CUBLAS=$(find_lib 'libcublasLt.so.13*')
NVRTC=$(find_lib 'libnvrtc.so.13*')
LIBS="$ROOT/syslibs:$ROOT/build/release/lib:$CUBLAS${NVRTC:+:$NVRTC}"
BIN=build/release/bin
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
# The plugin dlopens libnvrtc.so.13; name it outright so that a wheel's
# copy is found too.
NVRTC_FILE=$(ls "${NVRTC:-/nonexistent}"/libnvrtc.so.13* 2>/dev/null | head -1)
run() { env LD_LIBRARY_PATH="$LIBS" ${NVRTC_FILE:+SWITCHYARD_NVRTC_LIBRARY=$NVRTC_FILE} "$@"; }
export SWITCHYARD_CACHE_DIR="$OUT/cache"  # the disk cache starts empty
rm -rf "$SWITCHYARD_CACHE_DIR"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  echo "cublasLt from: ${CUBLAS:-?}; NVRTC: ${NVRTC_FILE:-not found (fused groups will run unfused)}"
} 2>&1 | tee "$OUT/summary.txt"
# PyTorch eager and torch.compile on the same rows, then ours beside them
# once both JSON files are there.
torch_rows() {
  local t0 rc
  t0=$(date +%s)
  timeout 300 python3 tools/bench/fusion/bench_fusion_torch.py --repeats=30 \
    --json="$OUT/torch.json" > "$OUT/bench_fusion_torch.txt" 2>&1
  rc=$?
  echo "== torch exit $rc took $(( $(date +%s) - t0 )) s" >> "$OUT/summary.txt"
  cat "$OUT/bench_fusion_torch.txt"
  if [ -s "$OUT/bench_fusion.json" ] && [ -s "$OUT/torch.json" ]; then
    python3 tools/bench/fusion/compare_torch.py "$OUT/bench_fusion.json" "$OUT/torch.json" \
      2>&1 | tee "$OUT/compare.txt" | tee -a "$OUT/summary.txt"
  fi
}
for step in "$@"; do
  case $step in
    tests)
      t0=$(date +%s)
      run timeout 150 $BIN/fusion_test --gtest_filter='*/cuda' > "$OUT/fusion_test.log" 2>&1 &
      run timeout 150 $BIN/cuda_fusion_test > "$OUT/cuda_fusion_test.log" 2>&1 &
      env LD_LIBRARY_PATH="$LIBS" SWITCHYARD_NVRTC_LIBRARY=/nonexistent/libnvrtc.so.13 \
        SWITCHYARD_TEST_NVRTC_CASE=missing timeout 60 $BIN/cuda_fusion_test \
        --gtest_filter='CudaFusion.WithoutNvrtc*' > "$OUT/without_nvrtc.log" 2>&1 &
      run timeout 120 $BIN/cuda_codegen_test --gtest_brief=1 > "$OUT/codegen_test.log" 2>&1 &
      wait
      # Row kernels of other shapes (SWITCHYARD_CUDA_FUSED_ROWS), and a bad value.
      run env SWITCHYARD_CUDA_FUSED_ROWS=block=256 timeout 100 $BIN/cuda_fusion_test \
        --gtest_filter='CudaFusion.RowShapesFromTheEnvironment:CudaFusionHooks.*' \
        > "$OUT/row_shapes.log" 2>&1
      run env SWITCHYARD_CUDA_FUSED_ROWS=shared=1 timeout 100 $BIN/cuda_fusion_test \
        --gtest_filter='CudaFusion.RowShapesFromTheEnvironment' >> "$OUT/row_shapes.log" 2>&1
      run env SWITCHYARD_CUDA_FUSED_ROWS=shared=1,block=256,cluster=16 timeout 100 \
        $BIN/cuda_fusion_test --gtest_filter='CudaFusion.RowShapesFromTheEnvironment' \
        >> "$OUT/row_shapes.log" 2>&1
      run env SWITCHYARD_CUDA_FUSED_ROWS=block=300 timeout 100 $BIN/cuda_fusion_test \
        --gtest_filter='CudaFusion.RowShapesFromTheEnvironment' >> "$OUT/row_shapes.log" 2>&1
      # The generated kernels under memcheck: vector and scalar entries,
      # warp and block row kernels (the smaller row lengths of the sweep).
      run timeout 150 "$SANITIZER" --tool memcheck --print-limit 20 \
        $BIN/cuda_fusion_test --gtest_brief=1 \
        --gtest_filter='CudaFusion.ChainMatches*:CudaFusion.Unaligned*' > "$OUT/sanitizer.log" 2>&1
      run timeout 150 "$SANITIZER" --tool racecheck --print-limit 20 \
        $BIN/cuda_fusion_test --gtest_brief=1 \
        --gtest_filter='CudaFusion.Unaligned*' >> "$OUT/sanitizer.log" 2>&1
      {
        echo "== tests took $(( $(date +%s) - t0 )) s"
        for log in fusion_test cuda_fusion_test without_nvrtc codegen_test row_shapes; do
          echo "== $log"
          grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran|Failure|error:" "$OUT/$log.log" | head -40
        done
        echo "== sanitizer"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Invalid|out of bounds|hazard" "$OUT/sanitizer.log" | head -20
      } 2>&1 | tee -a "$OUT/summary.txt" ;;
    fixes)
      run timeout 200 $BIN/cuda_fusion_test \
        --gtest_filter='CudaFusion.RowReductionsAtEveryRowLength:CudaFusion.MatmulBiasGeluRunsAsTheEpilogueKernel' \
        > "$OUT/fixes_cuda_fusion_test.log" 2>&1
      run timeout 200 $BIN/fusion_test \
        --gtest_filter='Devices/FusedOps.ReduceThenBroadcastPatternsFuseIntoOneKernel/cuda' \
        > "$OUT/fixes_fusion_test.log" 2>&1
      { echo "== fixes"; grep -hE "^\[  (PASSED|FAILED|SKIPPED) |Failure|tests? ran" \
          "$OUT"/fixes_*.log | head -40; } 2>&1 | tee -a "$OUT/summary.txt" ;;
    demo)
      run timeout 120 $BIN/switchyard demo > "$OUT/demo.txt" 2>&1
      echo "== demo exit $?" >> "$OUT/summary.txt"
      cat "$OUT/demo.txt" ;;
    bench)
      t0=$(date +%s)
      run timeout 240 $BIN/bench_fusion --benchmark_filter='^cuda/' --benchmark_min_time=0.1 \
        --benchmark_counters_tabular=true --benchmark_out="$OUT/bench_fusion.json" \
        --benchmark_out_format=json > "$OUT/bench_fusion.txt" 2>&1
      echo "== bench took $(( $(date +%s) - t0 )) s" >> "$OUT/summary.txt"
      cat "$OUT/bench_fusion.txt"
      if [ "${FUSION_TORCH:-1}" != 0 ] && python3 -c 'import torch' 2>/dev/null; then
        torch_rows
      fi ;;
    torch) torch_rows ;;
    rowshapes)
      # The row-length sweep again with other row-kernel shapes
      # (SWITCHYARD_CUDA_FUSED_ROWS; Note [Row kernel shapes]), to choose
      # the default from measurements. ~30 s each.
      for shape in ${ROW_SHAPES:-default block=512,cluster=8 cluster=1 block=256 kept=64 kept=256}; do
        rows=$shape; [ "$shape" = default ] && rows=
        run env SWITCHYARD_CUDA_FUSED_ROWS=$rows timeout 100 $BIN/bench_fusion \
          --benchmark_filter='^cuda/rowlen/' --benchmark_min_time=0.1 \
          --benchmark_counters_tabular=true > "$OUT/rowshapes_$shape.txt" 2>&1
        { echo "== rowshapes $shape (exit $?)"
          grep -E "^cuda/rowlen" "$OUT/rowshapes_$shape.txt" | awk '{print $1, $2, $3, $NF}'; } \
          | tee -a "$OUT/summary.txt"
      done ;;
    autotune_rows)
      # Launch configurations through the autotuner (Note [Launch
      # configurations], plugin/fusion.h): off, on (measures), cached.
      rm -rf "$OUT/autotune_cache"
      for mode in off on cached; do
        run env SWITCHYARD_CACHE_DIR="$OUT/autotune_cache" SWITCHYARD_AUTOTUNE=$mode \
          BENCH_FUSION_DESCRIBE=1 timeout 200 $BIN/bench_fusion \
          --benchmark_filter='^cuda/rowlen/' --benchmark_min_time=0.1 \
          --benchmark_counters_tabular=true > "$OUT/autotune_rows_$mode.txt" 2>&1
        { echo "== autotune_rows $mode (exit $?)"
          grep -E '^cuda/rowlen/[^ ]+/fused(/manual_time)? +[0-9]' "$OUT/autotune_rows_$mode.txt" \
            | awk '{print $1, $2, $3, $NF}'
          echo "-- launch configuration per row (no line: configuration 0, the plugin not asked)"
          awk '/^cuda\/rowlen\/[^ ]+$/ {key = $1}
               /launch configuration:/ {sub(/^ *launch configuration: */, ""); print key ": " $0}' \
            "$OUT/autotune_rows_$mode.txt"; } 2>&1 | tee -a "$OUT/summary.txt"
      done
      run timeout 200 $BIN/cuda_fusion_test --gtest_filter='CudaLaunchTuning.*' \
        > "$OUT/autotune_rows_test.log" 2>&1
      { echo "== autotune_rows test (exit $?)"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|^verdict " "$OUT/autotune_rows_test.log" \
          | head -60; } 2>&1 | tee -a "$OUT/summary.txt" ;;
    capture)
      run timeout 150 $BIN/fusion_test \
        --gtest_filter='*NativeKernelsForCompositesThatFuseWithNothing/cuda:*ReduceThenBroadcast*/cuda' \
        > "$OUT/capture_tests.log" 2>&1
      run env BENCH_FUSION_DESCRIBE=1 timeout 200 $BIN/bench_fusion \
        --benchmark_filter='^cuda/(block/|rms_norm_op/|rms_norm/.*/4096x1024)' \
        --benchmark_min_time=0.2 --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true > "$OUT/capture_block.txt" 2>&1
      { echo "== capture (exit $?)"
        grep -hE "^\[  (PASSED|FAILED) |Failure" "$OUT/capture_tests.log" | head -20
        grep -E "_median|_stddev" "$OUT/capture_block.txt"
        echo "-- fused plan: copy steps (want none), rms_norm steps:"
        grep -cE "op %[0-9]+ (copy|contiguous) " "$OUT/capture_block.txt"
        grep -E "rms_norm" "$OUT/capture_block.txt" | head -4; } 2>&1 | tee -a "$OUT/summary.txt" ;;
    rows_sanitizer)
      for tool in memcheck racecheck; do
        run timeout 280 "$SANITIZER" --tool $tool --print-limit 20 \
          $BIN/cuda_fusion_test --gtest_brief=1 \
          --gtest_filter='CudaFusion.RowReductionsAtEveryRowLength' > "$OUT/rows_$tool.log" 2>&1
        echo "== rows_sanitizer $tool exit $?" >> "$OUT/summary.txt"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|Invalid|out of bounds|hazard" \
          "$OUT/rows_$tool.log" | head -20 | tee -a "$OUT/summary.txt"
      done ;;
  esac
done
