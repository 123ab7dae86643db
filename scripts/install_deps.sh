#!/usr/bin/env bash
# Installs the Debian packages Loom builds against, and the data sets its configs train on:
# the 1,797 8x8 handwritten digits that Debian's python3-sklearn package ships, taken out of the
# package (apt-get download + dpkg -x; Python is not needed) into /usr/local/share/loom.
# Idempotent: when everything is in place it only runs `dpkg-query` and returns in well under a
# second. With --with-pytorch it also installs python3-torch, the baseline the benchmarks
# measure against in the same run (their PyTorch columns read n/a without it).
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ git
  llvm-22-dev libmlir-22-dev mlir-22-tools
  libopenblas-dev libopenblas0-openmp libfmt-dev nlohmann-json3-dev libtomlplusplus-dev
  libopenmpi-dev openmpi-bin openssh-client python3-yaml
  libgtest-dev libgmock-dev libbenchmark-dev
  fortunes-min zlib1g-dev
)
if [ "${1:-}" = "--with-pytorch" ]; then
  PACKAGES+=(python3-torch)
elif [ $# -gt 0 ]; then
  echo "usage: scripts/install_deps.sh [--with-pytorch]" >&2
  exit 2
fi
DIGITS=/usr/local/share/loom/datasets/digits.csv.gz

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && [ -f "$DIGITS" ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "loom: need root or sudo to install packages" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "loom: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -f "$DIGITS" ]; then
  echo "loom: taking the digits data set out of python3-sklearn"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get download -qq python3-sklearn && dpkg -x python3-sklearn_*.deb pkg)
  found=$(find "$work/pkg" -path '*sklearn/datasets/data/digits.csv.gz' | head -n 1)
  [ -n "$found" ] || { echo "loom: python3-sklearn has no digits.csv.gz" >&2; exit 1; }
  $SUDO install -D -m 0644 "$found" "$DIGITS"
fi
