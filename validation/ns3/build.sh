#!/usr/bin/env bash
# Build the ns-3 twin(s) against Debian's ns-3 3.37 (apt-get install ns3 libns3-dev).
#
#   validation/ns3/build.sh            -> validation/ns3/build/dumbbell-mid, build/aqm, build/tcp
#   validation/ns3/build.sh aqm        -> only build/aqm
#   BUILD_DIR=/tmp/x validation/ns3/build.sh
#   CXX=clang++ CXXFLAGS="-O3" validation/ns3/build.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${BUILD_DIR:-$here/build}"
cxx="${CXX:-g++}"
read -r -a cxxflags <<< "${CXXFLAGS:--O2}"

if [ ! -e /usr/include/ns3/core-module.h ]; then
    echo "error: ns-3 headers not found (/usr/include/ns3): apt-get install ns3 libns3-dev" >&2
    exit 1
fi

mods=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)
libs=()
if command -v pkg-config >/dev/null && pkg-config --exists "${mods[@]}"; then
    # Debian's .pc files are usable for --libs only: their Cflags carry a stray "-I/usr;" (the
    # headers are in /usr/include/ns3, on the default path anyway), and their Libs name
    # libgsl.so / libgslcblas.so by absolute path, files that only libgsl-dev ships.
    # libns3-core.so already links those libraries, so paths that are missing are left out.
    seen=" "
    for w in $(pkg-config --libs "${mods[@]}"); do
        case "$w" in
            /*) [ -e "$w" ] || continue ;;
        esac
        case "$seen" in *" $w "*) continue ;; esac
        seen="$seen$w "
        libs+=("$w")
    done
else
    libs=(-lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-applications
          -lns3-traffic-control -lns3-bridge -lns3-stats)
fi

mkdir -p "$out"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(dumbbell-mid aqm tcp)
fi
for t in "${targets[@]}"; do
    if [ ! -e "$here/$t.cc" ]; then
        echo "error: no twin $t ($here/$t.cc)" >&2
        exit 2
    fi
    (set -x; "$cxx" -std=c++17 "${cxxflags[@]}" -Wall -o "$out/$t" "$here/$t.cc" "${libs[@]}")
done
