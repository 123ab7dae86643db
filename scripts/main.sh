#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: loom-train on the default config, the tiny
# GPT on English text (Debian's fortunes-min, byte-level tokens) under FSDP on 4 virtual CPU
# devices, with evaluations on held-out text and metrics in runs/gpt-tiny/metrics.jsonl.
# Extra arguments go to loom-train (e.g. --set mesh.strategy=dp --set training.steps=50).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" loom-train
build="${LOOM_BUILD_DIR:-$root/build}"
cd "$root"
exec "$build/bin/loom-train" configs/gpt-tiny.toml "$@"
