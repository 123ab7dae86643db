#!/usr/bin/env bash
# Sets everything up, builds, and runs every test (lit + GoogleTest) through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build="${LOOM_BUILD_DIR:-$root/build}"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
