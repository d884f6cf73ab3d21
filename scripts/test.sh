#!/usr/bin/env bash
# Quick start, step 2: build and run every test — the release build, then
# the whole suite again under AddressSanitizer + UBSan.
#   scripts/test.sh            release and asan
#   scripts/test.sh release    one preset only (release, debug, asan, tsan)
# After the release suite: the install, the backend tutorial against it, and
# the .deb (scripts/test-install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
presets=("$@")
if ((${#presets[@]} == 0)); then presets=(release asan); fi
jobs=$(nproc)
for preset in "${presets[@]}"; do
  echo "=== ${preset}: build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "=== ${preset}: test"
  ctest --preset "$preset" -j "$jobs" --timeout 600
  if [[ $preset == release ]]; then scripts/test-install.sh build/release; fi
done
