#!/bin/bash
# Collectives on a machine with 2 (or 4) GPUs, from build outputs made
# elsewhere (issue 21; docs/distributed.md#benchmarks): the NCCL tests, then
# bench_collectives beside torch.distributed (bench_collectives_torch.py)
# on 2 GPUs — and on 4 when the machine has them — and the markdown table of
# docs/performance.md with the targets checked (compare.py). NVLink
# multicast stays off (NCCL_NVLS_ENABLE=0). Both sides use the same NCCL:
# PyTorch's (its nvidia-nccl wheel) when there is one, named to Switchyard
# through SWITCHYARD_NCCL_LIBRARY.
#
# Run it from a tree packed by tools/bench/cuda/pack_for_device.sh with
#   BINS="bench_collectives distributed_test" \
#     tools/bench/cuda/pack_for_device.sh build/release DEST
# (build/release: the binaries, libswitchyard and the plugin folder;
# syslibs/: the host libraries the GPU machine lacks; tools/bench/collectives),
# then on the GPU machine: tar -xJf DEST/tree.tar.xz; cd tree;
#   BUILT_AT=<the repository root it was built at> tools/bench/collectives/device_run.sh
# Logs and tables go to $OUT (default ./device_out). ~3 min on 2 H100s.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
BUILT_AT=${BUILT_AT:-/work/main}
if [ "$ROOT" != "$BUILT_AT" ] && [ ! -e "$BUILT_AT" ]; then
  mkdir -p "$(dirname "$BUILT_AT")" && ln -s "$ROOT" "$BUILT_AT"
fi
(cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
# NVLink multicast off everywhere (the machine's rule; docs/distributed.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
HERE=tools/bench/collectives
BIN=build/release/bin
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
LIBS="$ROOT/syslibs:$ROOT/build/release/lib:$CUBLAS"
NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
if [ -n "$NCCL" ] && [ -e "$NCCL" ]; then export SWITCHYARD_NCCL_LIBRARY=$NCCL; fi
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  nvidia-smi topo -m 2>/dev/null | head -8
  echo "GPUs: $GPUS; NCCL for Switchyard: ${SWITCHYARD_NCCL_LIBRARY:-libnccl.so.2 from the library path}"
} 2>&1 | tee "$OUT/summary.txt"
run() { env LD_LIBRARY_PATH="$LIBS" "$@"; }

# Tests: one rank on cuda:0, two on cuda:0 and cuda:1 (each asserts its
# results against float64 references).
run timeout 120 $BIN/distributed_test --gtest_filter='CudaCollectives.*' \
  > "$OUT/tests.log" 2>&1
{ echo "== tests"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |OK \]|FAILED|rank [0-9]:" "$OUT/tests.log" | head -20; } \
  | tee -a "$OUT/summary.txt"

bench() {  # bench N: both sides on N GPUs, then the table
  local n=$1 port=$((29500 + $1))
  MASTER_PORT=$port run timeout 240 $HERE/launch.sh "$n" $BIN/bench_collectives \
    --device=cuda --benchmark_out="$OUT/ours_$n.json" --benchmark_out_format=json \
    > "$OUT/ours_$n.log" 2>&1
  MASTER_PORT=$((port + 10)) PYTHONUNBUFFERED=1 timeout 240 $HERE/launch.sh "$n" \
    python3 $HERE/bench_collectives_torch.py --out="$OUT/torch_$n.json" \
    > "$OUT/torch_$n.log" 2>&1
  python3 $HERE/compare.py "$OUT/ours_$n.json" "$OUT/torch_$n.json" "$GPU" \
    > "$OUT/table_$n.md" 2>&1
  { echo "== $n GPUs"; cat "$OUT/table_$n.md"; tail -3 "$OUT/ours_$n.log"; } | tee -a "$OUT/summary.txt"
}
t0=$(date +%s)
[ "$GPUS" -ge 2 ] && bench 2
[ "$GPUS" -ge 4 ] && bench 4
echo "== bench took $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
