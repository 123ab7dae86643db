#!/bin/bash
# Records every program the e2e suite jits (each op's, attention's, the reductions' and the
# rest, over 400), compiles each for the GPU ahead of time with loom-gpu-bundle (ptxas must
# accept every cubin) and replays them with loom-gpu-replay. On a machine with a GPU every
# output must match the CPU's recording; without one the replay must fail saying why.
#   bundle_replay_test.sh BIN_DIR
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

LOOM_RECORD_PROGRAMS=$dir "$bin/loom-e2e-tests" > "$dir/record.log" 2>&1 ||
  fail "the recorded tests failed: $(tail -5 "$dir/record.log")"
recorded=$(ls "$dir"/*.mlir | wc -l)
[ "$recorded" -ge 400 ] || fail "expected the e2e suite's 400 programs or more, got $recorded"

"$bin/loom-gpu-bundle" "$dir" > "$dir/bundle.log" 2>&1 || fail "$(cat "$dir/bundle.log")"
grep -q "loom-gpu-bundle: $recorded programs compiled for sm_90, 0 left out" "$dir/bundle.log" ||
  fail "not every program compiled: $(tail -3 "$dir/bundle.log")"
for program in "$dir"/*.mlir; do
  stem=${program%.mlir}
  [ -s "$stem.so" ] && [ -s "$stem.json" ] && [ -s "$stem.bin" ] || fail "$stem: no bundle"
  grep -q '"inputs"' "$stem.json" || fail "$stem.json: no layouts"
done
# The matmul's host code calls cuBLAS, the attention's the runtime's attention kernels, the
# others launch kernels.
nm -D --undefined-only "$dir"/*.so > "$dir/symbols.txt"
grep -q loom_rt_gpu_gemm_f32 "$dir/symbols.txt" || fail "no cuBLAS GEMM call"
grep -q loom_rt_gpu_attention_f32 "$dir/symbols.txt" || fail "no attention kernel call"
grep -q mgpuLaunchKernel "$dir/symbols.txt" || fail "no kernel launch"

if "$bin/loom-gpu-replay" "$dir" > "$dir/replay.log" 2>&1; then
  grep -q "loom-gpu-replay: $recorded passed, 0 failed" "$dir/replay.log" ||
    fail "$(cat "$dir/replay.log")"
  echo "replayed on $(head -1 "$dir/replay.log")"
else
  grep -q "no CUDA driver\|no usable GPU\|sees no GPU" "$dir/replay.log" ||
    fail "the replay failed: $(cat "$dir/replay.log")"
  echo "no GPU here: $(cat "$dir/replay.log")"
fi
echo "PASS: $recorded programs recorded, bundled for sm_90 and checked"
