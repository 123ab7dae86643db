#!/usr/bin/env bash
# Installs the Debian packages Loom builds against. Idempotent: when every package is already
# installed it only runs `dpkg-query` and returns in well under a second.
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools
  libopenblas-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev
  libopenmpi-dev openmpi-bin
  libgtest-dev libgmock-dev libbenchmark-dev
  fortunes-min
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "loom: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "loom: need root or sudo to install packages" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
