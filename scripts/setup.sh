#!/usr/bin/env bash
# Quick start, step 1: install dependencies, build (release), run the demo
# on the embedded default, the cpu plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
build/release/bin/switchyard demo
