#!/bin/bash
# Records the random programs ctest runs on one device (values in f32, f64 and bf16, and
# gradients: programs 0-47 of each) and compiles each for the GPU ahead of time with
# loom-gpu-bundle: every one must compile, ptxas accepting its cubin. (Replaying them needs a
# GPU; the e2e suite's bundle test replays its programs where there is one.) Then the sharded
# ones on a 2x2 mesh (values in f64 and bf16, and gradients: programs 0-23 of each), which the
# recorder does not take: their traced IR (LOOM_TEST_DUMP), partitioned by loom-spmd and
# compiled by the GPU pipeline.
#   random_programs_bundle_test.sh BIN_DIR
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

LOOM_RECORD_PROGRAMS=$dir "$bin/loom-random-program-tests" --programs=48 \
  --gtest_filter='*F32OnOneDevice*:*F64OnOneDevice*:*Bf16OnOneDevice*:RandomProgramGradients.OnOneDevice*' \
  > "$dir/record.log" 2>&1 || fail "the recorded programs failed: $(tail -5 "$dir/record.log")"
recorded=$(ls "$dir"/*.mlir | wc -l)
[ "$recorded" -ge 150 ] || fail "expected about 190 recorded programs, got $recorded"

"$bin/loom-gpu-bundle" "$dir" > "$dir/bundle.log" 2>&1 || fail "$(tail -20 "$dir/bundle.log")"
grep -q "loom-gpu-bundle: $recorded programs compiled for sm_90, 0 left out" "$dir/bundle.log" ||
  fail "not every program compiled: $(grep -A3 'not for the GPU' "$dir/bundle.log" | head -40)"

LOOM_TEST_DUMP=$dir/sharded "$bin/loom-random-program-tests" --programs=24 \
  --gtest_filter='*Sharded*' > "$dir/sharded.log" 2>&1 ||
  fail "the sharded programs failed: $(tail -5 "$dir/sharded.log")"
sharded=0
while read -r program; do
  "$bin/loom-opt" "$program" --loom-spmd --loom-gpu-pipeline -o /dev/null > "$dir/opt.log" 2>&1 ||
    fail "${program#"$dir/sharded/"} does not compile for the GPU: $(head -5 "$dir/opt.log")"
  sharded=$((sharded + 1))
done < <(find "$dir/sharded" -name traced.mlir)
[ "$sharded" -ge 60 ] || fail "expected 72 traced sharded programs, got $sharded"
echo "PASS: $recorded random programs bundled for sm_90, $sharded sharded ones compiled for it"
