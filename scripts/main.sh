#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job. Until training lands this is the most
# complete demo: an MLP forward pass written in the C++ DSL, traced, compiled and run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" mlp_forward
build="${LOOM_BUILD_DIR:-$root/build}"
exec "$build/bin/mlp_forward"
