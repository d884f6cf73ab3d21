#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and
# runs each on its seed corpus for a bounded time; fails on any crash, leak,
# UB report, timeout or broken invariant (docs/reliability.md, "Fuzzing").
#   scripts/fuzz.sh                 CI: 20 s per target
#   FUZZ_SECONDS=600 scripts/fuzz.sh   a longer run
# Only the fuzzers and what they link are built, never the test suites.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
jobs=${JOBS:-$(nproc)}
start=$SECONDS
cmake --preset fuzz -DSWITCHYARD_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build --preset fuzz -j "$jobs"
echo "=== fuzz: built in $((SECONDS - start)) s"
# One target at a time: each fuzzer uses a core, and the time is its own.
ctest --preset fuzz --timeout $((seconds + 300))
echo "=== fuzz: done in $((SECONDS - start)) s"
