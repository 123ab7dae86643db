#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: training an MLP classifier on synthetic
# MNIST-like data with a jitted train step (forward, autodiff, AdamW) on one CPU device.
# Sharded training over a device mesh replaces it as the sharding issues land.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" mlp_train
build="${LOOM_BUILD_DIR:-$root/build}"
exec "$build/bin/mlp_train" "$@"
