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
# py_script SECONDS OUTPUT_NAME SCRIPT [ARGS…]: runs a Python bench of this
# tree into $OUT/OUTPUT_NAME and notes its exit in summary.txt.
py_script() {
  local seconds=$1 output=$2 script=$3
  shift 3
  timeout "$seconds" python3 "$ROOT/$script" "$@" > "$OUT/$output" 2>&1
  local rc=$?
  echo "$(basename "$script" .py)${*:+ $*}: exit $rc" | tee -a "$OUT/summary.txt"
}
for step in "$@"; do
  case $step in
    tests)
      timeout 300 python3 -m pytest -q -p no:cacheprovider "$ROOT/tests/api/python" \
        > "$OUT/pytest.log" 2>&1
      echo "pytest: exit $?" | tee -a "$OUT/summary.txt" ;;
    bench) py_script 400 bench_python_cuda.txt tools/bench/python/bench_python.py --device cuda:0 ;;
    block)
      # The bf16 block: switchyard eager and @sy.compile beside torch eager
      # and torch.compile (bench_block_bf16.py).
      py_script 240 bench_block_bf16.txt tools/bench/python/bench_block_bf16.py ;;
    torch_ab)
      # Attention and conv2d beside PyTorch's, in one process, timed in
      # alternation (tools/bench/cuda/bench_torch_ab.py; issue 17).
      # shellcheck disable=SC2086  # AB_ARGS is a list of arguments
      py_script 400 bench_torch_ab.txt tools/bench/cuda/bench_torch_ab.py ${AB_ARGS:-} ;;
    verdicts)
      # The pattern pass's measured verdicts on the host's cpus (cpu +
      # onednn plugins; tools/bench/python/pattern_verdicts.py).
      py_script 300 pattern_verdicts.txt tools/bench/python/pattern_verdicts.py ;;
    vocab)
      # softmax / log_softmax over vocabulary rows beside PyTorch's.
      py_script 300 bench_vocab_softmax.txt tools/bench/cuda/bench_vocab_softmax.py ;;
    vocab_captured)
      # The same ops alone in a captured graph: own kernel or fused, measured.
      py_script 400 bench_vocab_captured.txt tools/bench/cuda/bench_vocab_softmax.py --captured ;;
    *) echo "unknown step $step (tests, bench, block, torch_ab, verdicts, vocab, vocab_captured)" >&2; exit 2 ;;
  esac
done
