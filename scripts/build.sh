#!/usr/bin/env bash
# Installs dependencies, configures and builds Loom into build/ (Release, Ninja, ccache).
# Usage: scripts/build.sh [extra ninja targets...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"

build="${LOOM_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
jobs="${LOOM_BUILD_JOBS:-$(nproc)}"
cmake --build "$build" -j "$jobs" -- "$@"
