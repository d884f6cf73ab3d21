#!/bin/bash
# The Python package on a GPU machine (issue 18): the PyTorch interop tests
# on CUDA (zero-copy both ways, the producer's stream respected) and
# bench_python.py on cuda:0 beside PyTorch. Run from a tree packed by
# tools/bench/cuda/pack_for_device.sh from a build with the Python package
# (build/release/python, tools/bench/python, tests/api/python, syslibs/).
# switchyard._C is built here first when the tree's is for another python3
# (the extension's file name says which; the device images have had 3.12
# where Debian 12 builds 3.11), from the binding's sources the pack
# carries. Logs go to $OUT (default ./device_out).
#
#   BUILT_AT=/work/wt/python tools/bench/python/device_run.sh [tests] [bench] [block] [torch_ab] [verdicts] [vocab] [vocab_captured]
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
if [ -e build/release/lib/libswitchyard.so.0.1.0 ]; then
  (cd build/release/lib && ln -sf libswitchyard.so.0.1.0 libswitchyard.so.0)
fi
# switchyard._C for this python3, unless the tree has it: the same sources
# and flags as api/python/CMakeLists.txt, against libswitchyard's C API.
PKG=build/release/python/switchyard
SUFFIX=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [ ! -e "$PKG/_C$SUFFIX" ] && [ -d api/python/src ]; then
  PYINC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  EXT_OBJ=$(mktemp -d)
  for f in api/python/src/*.cc; do
    g++ -O2 -fPIC -fvisibility=hidden -std=c++20 -I. -Iapi/include -Isdk/include -Iext/include \
      -isystem "$PYINC" -c "$f" -o "$EXT_OBJ/$(basename "$f" .cc).o" &
  done
  wait
  if g++ -shared "$EXT_OBJ"/*.o -Lbuild/release/lib -l:libswitchyard.so.0 -ldl \
       -o "$PKG/_C$SUFFIX"; then
    echo "built $PKG/_C$SUFFIX for $(python3 --version)" | tee "$OUT/ext.txt"
  else
    echo "device_run.sh: could not build $PKG/_C$SUFFIX for $(python3 --version): it needs" \
      "g++ and python3's headers ($PYINC/Python.h) — the compiler's errors are above;" \
      "the Python steps will not import switchyard" | tee "$OUT/ext.txt" >&2
  fi
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
    verdicts)
      # The pattern pass's measured verdicts on the host's cpus (cpu +
      # onednn plugins; tools/bench/python/pattern_verdicts.py).
      timeout 300 python3 "$ROOT/tools/bench/python/pattern_verdicts.py" \
        > "$OUT/pattern_verdicts.txt" 2>&1
      echo "pattern_verdicts: exit $?" | tee -a "$OUT/summary.txt" ;;
    vocab)
      # softmax / log_softmax over vocabulary rows beside PyTorch's.
      timeout 300 python3 "$ROOT/tools/bench/cuda/bench_vocab_softmax.py" \
        > "$OUT/bench_vocab_softmax.txt" 2>&1
      echo "bench_vocab_softmax: exit $?" | tee -a "$OUT/summary.txt" ;;
    vocab_captured)
      # The same ops alone in a captured graph: own kernel or fused, measured.
      timeout 400 python3 "$ROOT/tools/bench/cuda/bench_vocab_softmax.py" --captured \
        > "$OUT/bench_vocab_captured.txt" 2>&1
      echo "bench_vocab_softmax --captured: exit $?" | tee -a "$OUT/summary.txt" ;;
    *) echo "unknown step $step (tests, bench, block, torch_ab, verdicts, vocab, vocab_captured)" >&2; exit 2 ;;
  esac
done
