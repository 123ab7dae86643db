#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: loom-train on the default config, the tiny
# GPT on English text (Debian's fortunes-min, byte-level tokens) under FSDP on 4 virtual CPU
# devices, with evaluations on held-out text and metrics in runs/gpt-tiny/metrics.jsonl; then
# a sample of text from the model it trained (loom-train --generate, from its checkpoint).
# Extra arguments go to loom-train (e.g. --set mesh.strategy=dp --set training.steps=50).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" loom-train
build="${LOOM_BUILD_DIR:-$root/build}"
cd "$root"
# The demo's run replaces the one before it (--overwrite), unless asked to continue it.
fresh=(--overwrite)
for arg in "$@"; do
  case "$arg" in
    --resume|--resume-or-start|--overwrite|--generate|--print-config|--help|-h) fresh=() ;;
  esac
done
"$build/bin/loom-train" configs/gpt-tiny.toml ${fresh[@]+"${fresh[@]}"} "$@"

# The sample takes the run's --set overrides (its out_dir, its model), nothing else.
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --set) sets+=("$1" "${2:-}"); shift $(( $# > 1 ? 2 : 1 )) ;;
    --set=*) sets+=("$1"); shift ;;
    --help|-h|--print-config) exit 0 ;; # nothing was trained
    *) shift ;;
  esac
done
echo
echo "A sample from the trained model (loom-train configs/gpt-tiny.toml --generate):"
if ! "$build/bin/loom-train" configs/gpt-tiny.toml ${sets[@]+"${sets[@]}"} \
    --generate "The " --tokens 200 --top-k 20; then
  echo "main.sh: no sample (above: why)"
fi
