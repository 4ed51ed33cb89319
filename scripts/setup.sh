#!/usr/bin/env bash
# Builds Tapas Studio on Debian 12, installing the Debian packages that are missing first.
# Idempotent: when everything is present it only runs an incremental (ccache'd) build.
#
#   bash scripts/setup.sh                # install what is missing, configure, build
#   bash scripts/setup.sh --run-sample   # ... then describe the bundled sample model, and open
#                                        #     it in the GUI when a display is available
# Environment: BUILD_DIR (default: build), BUILD_TYPE (default: the one CMakeLists.txt sets),
# JOBS (default: nproc).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$here/build}"
build_type_arg=()
[ -z "${BUILD_TYPE:-}" ] || build_type_arg=(-DCMAKE_BUILD_TYPE="$BUILD_TYPE")
jobs="${JOBS:-$(nproc)}"
run_sample=0
for arg in "$@"; do
  case "$arg" in
    --run-sample) run_sample=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# The stack (../shared/TOOLCHAIN.md), plus what the tests use: Xvfb, ImageMagick, shellcheck, clang,
# python3 (the layering check).
packages=(
  cmake ninja-build ccache g++ pkg-config git python3
  qt6-base-dev qt6-charts-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools libgl-dev libxkbcommon-dev
  libgraphviz-dev graphviz libonnx-dev libprotobuf-dev protobuf-compiler
  libopenmpi-dev openmpi-bin libtorch-dev libgloo-dev coinor-libcbc-dev nlohmann-json3-dev
  xvfb xauth imagemagick shellcheck clang libclang-rt-14-dev
  # libtorch calls the system BLAS: with only the reference one its fp32 GEMM runs ~18x slower.
  libopenblas0-pthread
  # ParaGAN's real image set (--data fashion-mnist), read through zlib from its gzip'd IDX files.
  zlib1g-dev dataset-fashion-mnist
  # PyTorch under /usr/bin/python3: the DTensor export checked against a real module tree
  # (tst_plan_export), the DDP reference row of `tapas bench run`, and the corpus's export scripts.
  python3-torch python3-torchvision python3-onnx
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q -o DPkg::Lock::Timeout=600 "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

# Relative paths in ccache's hash: a fresh clone elsewhere reuses the objects of an earlier build.
export CCACHE_BASEDIR="$here" CCACHE_NOHASHDIR=1
cmake -G Ninja -S "$here" -B "$build_dir" "${build_type_arg[@]}" \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build "$build_dir" -j "$jobs"
echo "setup: built into $build_dir (programs in $build_dir/bin)"

if ((run_sample)); then
  sample="$here/resources/models/sample_gpt.onnx"
  "$build_dir/bin/tapas" inspect "$sample"
  "$build_dir/bin/tapas" fold "$sample"
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "setup: opening the GUI on $sample"
    exec "$build_dir/bin/tapas-studio" "$sample"
  else
    echo "setup: no display; run '$build_dir/bin/tapas-studio $sample' on a desktop to see the GUI"
  fi
fi
