#!/usr/bin/env bash
# Installs every system package the project needs, idempotently (Debian bookworm, as root or via sudo).
# Safe to run again: packages already present are skipped without touching apt.
set -euo pipefail

PACKAGES=(
  # ns-3.37 from Debian: libns3-dev alone is not enough, its CMake targets reference files
  # shipped by `ns3` (raw-sock-creator) and `libgsl-dev` (libgsl.so).
  ns3 libns3-dev libgsl-dev
  cmake ninja-build g++ ccache pkg-config
  libboost-dev libbenchmark-dev googletest libgtest-dev
  nlohmann-json3-dev
  clang-format-14
  libtcmalloc-minimal4  # the executables' allocator (METAROCE_ALLOCATOR, doc/performance.md)
  libgoogle-perftools-dev  # its heap on huge pages (support/huge-page-heap.cc, METAROCE_HUGE_PAGES)
  # scripts/fuzz.sh: clang with libFuzzer (-fsanitize=fuzzer is in libclang-rt-14-dev)
  clang-14 libclang-rt-14-dev
  # the in-tree ns-3 build's MPI module (distributed runs: test/in-tree, doc/performance.md)
  libopenmpi-dev openmpi-bin
  tshark  # capture decoding tests, the Wireshark dissector (contrib/metaroce/tools/wireshark)
  python3 python3-venv python3-pip
  bzip2 xz-utils rsync
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark (for the capture tests and the dissector) pulls in wireshark-common, whose debconf
# question (may non-root users capture?) would stop an interactive install: answer no.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
  $SUDO debconf-set-selections
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
