#!/bin/bash
# The Python package on a GPU machine (issue 18): the PyTorch interop tests
# on CUDA (zero-copy both ways, the producer's stream respected) and
# bench_python.py on cuda:0 beside PyTorch. Run from a tree that holds
# build/release (lib/, lib/switchyard/plugins with the cuda plugin, and
# python/ with switchyard._C, built for the machine's python3 — the
# extension's file name says which), tools/bench/python and tests/api/python,
# packed as tools/bench/cuda/pack_for_device.sh packs the rest (syslibs/).
# Logs go to $OUT (default ./device_out).
#
#   BUILT_AT=/work/wt/python tools/bench/python/device_run.sh [tests] [bench] [block] [torch_ab]
#
# Needs python3 with numpy, pytest and a CUDA build of torch.
set -u
ROOT=$PWD
OUT=${OUT:-$ROOT/device_out}
mkdir -p "$OUT"
BUILT_AT=${BUILT_AT:-/work/main}
if [ "$ROOT" != "$BUILT_AT" ] && [ ! -e "$BUILT_AT" ]; then
  mkdir -p "$(dirname "$BUILT_AT")" && ln -s "$ROOT" "$BUILT_AT"
fi
CUBLAS=$(dirname "$(find /usr/local/cuda* /usr/lib /opt -name 'libcublasLt.so.13*' 2>/dev/null | head -1)")
export LD_LIBRARY_PATH="$ROOT/syslibs:$ROOT/build/release/lib:$CUBLAS"
export PYTHONPATH="$ROOT/build/release/python"
export PYTHONDONTWRITEBYTECODE=1
python3 -c 'import sys, torch, numpy, switchyard as sy;
print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available(),
      "numpy", numpy.__version__, "switchyard", sy.__version__, [d.label for d in sy.devices()])' \
  2>&1 | tee "$OUT/summary.txt"
for step in "$@"; do
  case $step in
    tests)
      timeout 300 python3 -m pytest -q -p no:cacheprovider "$ROOT/tests/api/python" \
        > "$OUT/pytest.log" 2>&1
      echo "pytest: exit $?" | tee -a "$OUT/summary.txt" ;;
    bench)
      timeout 400 python3 "$ROOT/tools/bench/python/bench_python.py" --device cuda:0 \
        > "$OUT/bench_python_cuda.txt" 2>&1
      echo "bench_python --device cuda:0: exit $?" | tee -a "$OUT/summary.txt" ;;
    block)
      # The bf16 block: switchyard eager and @sy.compile beside torch eager
      # and torch.compile (bench_block_bf16.py).
      timeout 240 python3 "$ROOT/tools/bench/python/bench_block_bf16.py" \
        > "$OUT/bench_block_bf16.txt" 2>&1
      echo "bench_block_bf16: exit $?" | tee -a "$OUT/summary.txt" ;;
    torch_ab)
      # Attention and conv2d beside PyTorch's, in one process, timed in
      # alternation (tools/bench/cuda/bench_torch_ab.py; issue 17).
      timeout 400 python3 "$ROOT/tools/bench/cuda/bench_torch_ab.py" ${AB_ARGS:-} \
        > "$OUT/bench_torch_ab.txt" 2>&1
      echo "bench_torch_ab: exit $?" | tee -a "$OUT/summary.txt" ;;
    *) echo "unknown step $step (tests, bench, block, torch_ab)" >&2; exit 2 ;;
  esac
done
