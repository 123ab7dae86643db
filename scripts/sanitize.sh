#!/usr/bin/env bash
# Builds Loom with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/ and runs
# the whole suite (lit + GoogleTest) on it; any report fails the test that caused it.
# Usage: scripts/sanitize.sh [ctest arguments...]   (about 15 minutes to build on 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
build="${LOOM_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLOOM_SANITIZE=address,undefined
fi
cmake --build "$build" -j "${LOOM_BUILD_JOBS:-$(nproc)}"
# allow_user_poisoning=0: LLVM's headers poison BumpPtrAllocator memory in instrumented code,
# but the system's libMLIR is not instrumented, which would report use-after-poison where there
# is none. Leaks are not checked: MLIR contexts and LLVM's static options live until exit.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Compiled programs of this build go to a cache of their own.
export LOOM_CACHE_DIR="$build/compile-cache"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
