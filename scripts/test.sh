#!/usr/bin/env bash
# Quick start, step 2: build and run every test.
#   scripts/test.sh              release, asan, tsan, fuzz (what CI runs)
#   scripts/test.sh release      one pass only (release, debug, asan, tsan, fuzz)
#
#   release  every target and every test; then the install, the backend
#            tutorial against it and the .deb (scripts/test-install.sh)
#   asan     every target (but the cuda and rocm plugins: nvcc's and
#            hipcc's device code is not instrumented, hipcc's clang
#            runtimes do not mix with GCC's, and CI has no GPU; and the
#            vulkan plugin, whose kernels run in the driver's JIT code,
#            which is not instrumented either, and whose lavapipe suites
#            would add another 1.5 min) and every test under
#            AddressSanitizer + UBSan (+ LeakSanitizer)
#   tsan     the suites labelled "threads" under ThreadSanitizer: the
#            dispatcher's (registration concurrent with calls; the loader),
#            the hostile corpus (plugins that leave threads at unload,
#            files checked by descriptor), the stress test (8 threads
#            calling while plugins load), the C API's suite (shared
#            handles, destroy while calling), Python threads (the op
#            namespace rebuilt while plugins load and unload, with the TSan
#            runtime preloaded into python3) and the cpu plugin's threaded
#            tests (its pool; matmul and conv2d split over it); the
#            single-threaded numerics suites are left to release and asan
#            (under TSan the cpu suite alone takes 9 min)
#   fuzz     the libFuzzer targets for a bounded time (scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Compiler cache (docs/dependencies.md): a rebuild of an unchanged file is
# a lookup, so CI on a machine that ran it before rebuilds only what
# changed (about 26 instead of 53–66 minutes on 2 cores). Paths are taken
# relative to the tree, and the build directory is left out of the key
# (CCACHE_NOHASHDIR; it is in debug info otherwise), so clones in other
# directories share entries: their debug info may then name the first
# clone's build directory, which changes no test. SWITCHYARD_CCACHE=0, or
# a launcher already set, leaves it out.
if [[ ${SWITCHYARD_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
  for lang in C CXX CUDA; do
    var=CMAKE_${lang}_COMPILER_LAUNCHER
    if [[ -z ${!var:-} ]]; then export "$var"=ccache; fi
  done
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
  export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
fi
passes=("$@")
if ((${#passes[@]} == 0)); then passes=(release asan tsan fuzz); fi
jobs=$(nproc)
for pass in "${passes[@]}"; do
  start=$SECONDS
  case $pass in
    fuzz)
      scripts/fuzz.sh
      ;;
    tsan)
      echo "=== tsan: build (the \"threads\" suites)"
      cmake --preset tsan >/dev/null
      cmake --build --preset tsan -j "$jobs" --target \
        dispatcher_test stress_test cpu_plugin_test c_api_test cpu \
        switchyard_test_plugins hostile_plugins_test switchyard switchyard_python
      echo "=== tsan: test"
      ctest --preset tsan -j "$jobs" --timeout 900 -L threads
      ;;
    *)
      echo "=== ${pass}: build"
      cmake --preset "$pass" >/dev/null
      cmake --build --preset "$pass" -j "$jobs"
      echo "=== ${pass}: test"
      ctest --preset "$pass" -j "$jobs" --timeout 600
      if [[ $pass == release ]]; then scripts/test-install.sh build/release; fi
      ;;
  esac
  echo "=== ${pass}: done in $((SECONDS - start)) s"
done
