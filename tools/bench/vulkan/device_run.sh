#!/bin/bash
# Runs the vulkan plugin's tests, the conformance kit and its benchmark on
# the GPU machine (the H100), beside bench_cuda, from build outputs made
# elsewhere (docs/vulkan.md#running-on-a-gpu). Modelled on
# tools/bench/cuda/device_run.sh. Logs go to $OUT (default ./device_out).
#
# Here, once, before the device run (downloads the Vulkan loader and the
# GL vendor-neutral libraries as .debs into .gl/, which git ignores; the
# GPU machine has NVIDIA's Vulkan driver but neither: on the H200 machine
# of 2026-11-28 the loader alone found no device, and with these it did,
# as the device tool's README lists them):
#   tools/bench/vulkan/device_run.sh prepare
# There (carry .gl, build/release and .devcarry):
#   tools/bench/vulkan/device_run.sh tests math harness conformance fusion bench
#
# Needs build/release/bin/{vulkan_plugin_test,vulkan_absent_test,
# vulkan_spirv_denorm_test,vulkan_op_harness_test,switchyard-conformance,
# bench_vulkan} (`tests` runs the conformance kit too; `fusion`:
# vulkan_fusion_test and fusion_test, the fused kernels on the GPU's
# Vulkan driver against the unfused graphs and float64) (and
# bench_cuda for the cuda rows), build/release/lib/libswitchyard.so.0.1.0,
# the plugin folder build/release/lib/switchyard/plugins, and the host
# libraries the binaries link (Abseil, Boost.Filesystem, OpenSSL, Google
# Benchmark) in .devcarry/syslibs.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}

if [ "${1:-}" = prepare ]; then
  # The device tool's README: the loader travels as a .deb, unpacked there.
  exclude=$(git rev-parse --git-path info/exclude)
  grep -qx '/.gl/' "$exclude" 2>/dev/null || echo /.gl/ >> "$exclude"
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update -qq && (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 \
    libopengl0 libgl1 libglx0 libgles2)
  ls -l .gl
  exit 0
fi

mkdir -p "$OUT"
# The loader and the GL libraries, unpacked from the carried .debs (also
# where the machine has a loader: the driver may still lack the rest).
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
# NVIDIA's driver manifest, where the device machines keep it.
ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$ICD" ]; then export VK_DRIVER_FILES=$ICD; fi
# The binaries name their plugin folder by the absolute build path.
if [ "$ROOT" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$ROOT" /work/main
fi
(cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
LIBS="$ROOT/.devcarry/syslibs:$ROOT/build/release/lib:$CUBLAS"
run() { env LD_LIBRARY_PATH="$LIBS" "$@"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
echo "loader: $(ldconfig -p | grep 'libvulkan.so.1 ' | head -1); VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
BIN=build/release/bin
for step in "$@"; do
  case $step in
    tests)
      run $BIN/vulkan_plugin_test 2>&1 | tee "$OUT/vulkan_plugin_test.log" | tail -25
      # Denormals (docs/vulkan.md, "Denormals"): the device line of the
      # load record, the values on vulkan:0 (skipped only where the driver
      # does not report shaderDenormPreserveFloat32), the patch through
      # SPIRV-Tools' validator, and the conformance kit, whose 26 failures
      # on NVIDIA (2026-11-27) were denormal edge values.
      run $BIN/vulkan_plugin_test --gtest_filter='VulkanDenormals.*:VulkanLoad.*' 2>&1 \
        | tee "$OUT/vulkan_denormal_test.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|Failure|does not report'
      run $BIN/vulkan_spirv_denorm_test 2>&1 | tee "$OUT/vulkan_spirv_denorm_test.log" | tail -3
      # matmul against float64 (docs/vulkan.md, "Cooperative matrices"):
      # the f16 shapes must run matmul_coopmat_f16 where the load record
      # says "f16 matmul on cooperative matrices" (the test asserts it from
      # the plugin's debug line, and prints the line of every f16 call),
      # and the declined shapes the tiled kernel.
      run $BIN/vulkan_plugin_test --gtest_filter='VulkanMatmul.*' 2>&1 \
        | tee "$OUT/vulkan_matmul_test.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|Failure|got|matmul on'
      # The same with 128×128 tiles only (matmul_coopmat_f16 everywhere).
      run env SWITCHYARD_VULKAN_COOPMAT_BN=128 $BIN/vulkan_plugin_test --gtest_filter='VulkanMatmul.*' \
        2>&1 | tee "$OUT/vulkan_matmul_test_bn128.log" | grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|Failure|got|matmul on'
      run $BIN/switchyard-conformance build/release/lib/switchyard/plugins/vulkan.json \
        2>&1 | tee "$OUT/vulkan_conformance.log" | grep -E "FAIL|Summary" | tail -40
      run env SWITCHYARD_VULKAN_LOADER=/nonexistent/libvulkan.so.1 \
        SY_TEST_EXPECT="/nonexistent/libvulkan.so.1 could not be opened" \
        $BIN/vulkan_absent_test 2>&1 | tee "$OUT/vulkan_absent.log" | tail -5
      run env VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json \
        SY_TEST_EXPECT="check VK_DRIVER_FILES" \
        $BIN/vulkan_absent_test 2>&1 | tee -a "$OUT/vulkan_absent.log" | tail -5 ;;
    math)
      # The f32 transcendentals (docs/vulkan.md, Note [f32 math]) on the
      # GPU's driver: the dense sweep against float64 with each op's worst
      # ulp, libm's random ranges, and softmax/norm rows on both sides of
      # the register cache (the online-softmax path beyond it).
      run $BIN/vulkan_plugin_test --gtest_filter='Sweep/*:Transcendentals/*:VulkanNormRows.*' \
        2>&1 | tee "$OUT/vulkan_math.log" | grep -E "ulp|^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure|want" | tail -40
      # The norm rows again with the shared-memory reductions instead of
      # the default subgroup shuffles, and the conformance kit's
      # normalizations with them (with subgroupAdd/subgroupMax, softmax
      # rows of 4 and 7 came out NaN on this driver, 2026-11-27;
      # ShortRowsWithMaskedEntries has those rows).
      run env SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 $BIN/vulkan_plugin_test \
        --gtest_filter='VulkanNormRows.*' 2>&1 | tee -a "$OUT/vulkan_math.log" \
        | grep -E '^\[ +(OK|FAILED) +\]|element|rows of' | head -30
      run env SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 $BIN/switchyard-conformance \
        build/release/lib/switchyard/plugins/vulkan.json --filter 'softmax,log_softmax,*norm*' \
        2>&1 | tee "$OUT/vulkan_conformance_subgroup.log" | grep -E -A4 "FAIL" | head -40
      tail -1 "$OUT/vulkan_conformance_subgroup.log" ;;
    fusion)
      # The fused kernels (plugins/vulkan/fused) on the GPU's Vulkan driver:
      # every fusion_test graph fused vs unfused on vulkan:0, the cache,
      # softmax vs float64, and a refused dtype reported.
      run $BIN/fusion_test --gtest_filter='Devices/FusedOps.*/vulkan' 2>&1 \
        | tee "$OUT/vulkan_fusion_graphs.log" | grep -E "FAILED|PASSED|SKIPPED|Failure" | tail -30
      run $BIN/vulkan_fusion_test 2>&1 | tee "$OUT/vulkan_fusion_test.log" | tail -8
      run env SWITCHYARD_VULKAN_FUSION_DTYPES=f32 $BIN/vulkan_fusion_test \
        2>&1 | tee -a "$OUT/vulkan_fusion_test.log" | tail -5 ;;
    harness)
      run $BIN/vulkan_op_harness_test --gtest_brief=1 2>&1 \
        | tee "$OUT/vulkan_harness.log" | grep -v "^\[  SKIPPED \]" | tail -60
      grep -c "SKIPPED \]" "$OUT/vulkan_harness.log" ;;
    conformance)
      run $BIN/switchyard-conformance build/release/lib/switchyard/plugins/vulkan.json \
        2>&1 | tee "$OUT/vulkan_conformance.log" | grep -E "FAIL|Summary" | tail -40 ;;
    bench)
      # Vulkan and cuda in one run, on the same GPU: bench_vulkan's rows on
      # vulkan:0 and on cuda:0 (the same binary, SY_BENCH_DEVICE), and
      # bench_cuda's own table.
      run $BIN/bench_vulkan 2>&1 | tee "$OUT/bench_vulkan.txt"
      # Which kernel the f16 4096³ matmul ran (the plugin's debug line, one
      # per call): expect only "matmul_coopmat_bn256_f16 for 1×4096×4096×4096".
      echo "matmul kernels of BM_Matmul/f16 (count, line):"
      run env SWITCHYARD_LOG=debug $BIN/bench_vulkan --benchmark_filter='BM_Matmul/f16' 2>&1 \
        | tee "$OUT/bench_vulkan_matmul_kernel.txt" | grep -o 'vulkan plugin: matmul on .*' \
        | sort | uniq -c
      grep -E 'BM_Matmul/f16' "$OUT/bench_vulkan_matmul_kernel.txt"
      # The 128×128×64 variant, then the tiled kernel, on the same problem.
      run env SWITCHYARD_VULKAN_COOPMAT_BN=128 SWITCHYARD_LOG=debug $BIN/bench_vulkan \
        --benchmark_filter='BM_Matmul/f16' 2>&1 | tee "$OUT/bench_vulkan_matmul_bn128.txt" \
        | grep -o 'vulkan plugin: matmul on .*' | sort | uniq -c
      grep -E 'BM_Matmul/f16' "$OUT/bench_vulkan_matmul_bn128.txt"
      run env SWITCHYARD_VULKAN_COOPMAT=0 $BIN/bench_vulkan --benchmark_filter='BM_Matmul/f16' \
        2>&1 | tee "$OUT/bench_vulkan_matmul_tiled.txt" | grep -E 'BM_Matmul/f16'
      # The norm rows with the shared-memory reductions instead of the
      # subgroup shuffles (docs/vulkan.md, "Ten barriers per reduction"),
      # to compare; and the registers each pipeline took.
      run env SWITCHYARD_VULKAN_PIPELINE_STATS=1 SWITCHYARD_LOG=info $BIN/bench_vulkan \
        --benchmark_filter='Copy|gelu|softmax|rms_norm' 2>&1 | grep 'pipeline' \
        | tee "$OUT/vulkan_pipeline_stats.txt"
      run env SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 $BIN/bench_vulkan \
        --benchmark_filter='Copy|softmax|rms_norm' 2>&1 | tee "$OUT/bench_vulkan_shared_reduce.txt"
      # softmax on 256-wide rows (norm_f32) instead of 512-wide
      # (norm_w512_f32, the default for rows longer than 4096), to compare.
      run env SWITCHYARD_VULKAN_WIDE_ROWS=0 $BIN/bench_vulkan \
        --benchmark_filter='Copy|softmax' 2>&1 | tee "$OUT/bench_vulkan_rows256.txt"
      if [ -x $BIN/bench_cuda ]; then
        run env SY_BENCH_DEVICE=cuda:0 $BIN/bench_vulkan 2>&1 | tee "$OUT/bench_vulkan_rows_on_cuda.txt"
        run $BIN/bench_cuda 2>&1 | tee "$OUT/bench_cuda.txt"
      fi ;;
  esac
done
