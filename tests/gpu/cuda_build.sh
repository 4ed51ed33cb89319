#!/usr/bin/env bash
# ctest `cuda_build`: on a machine with the CUDA toolkit and NCCL but maybe no GPU, configures a
# separate build with TAPAS_WITH_CUDA=ON, compiles the NCCL communicator's library and checks the
# CUDA path of comm-check, and links the library into a shared object with --no-undefined, so a wrong
# NCCL/CUDA call or a missing symbol fails here rather than on the GPU machine. Exit 77 = skipped.
#
#   tests/gpu/cuda_build.sh SOURCE_DIR BUILD_DIR [NVCC]
set -euo pipefail

src=$1
build=$2
nvcc=${3:-/usr/local/cuda/bin/nvcc}
if [ ! -x "$nvcc" ]; then
    echo "cuda_build: no nvcc at $nvcc, skipped"
    exit 77
fi

# Objects compiled for the main CUDA builds come back from ccache whatever the build dir.
export CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=1
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)

start=$(date +%s)
cmake "${generator[@]}" -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTAPAS_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DTAPAS_BUILD_TESTS=OFF -DTAPAS_BUILD_FUZZ=OFF "${launcher[@]}" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; echo "cuda_build: configure failed"; exit 1; }
configured=$(date +%s)

cmake --build "$build" -j 2 --target tapas_runtime_cuda
# comm-check's CUDA branch lives in tapas_runtime, whose build would pull in the core library and
# the torch TUs (minutes): its own compile line, syntax only, is enough to catch a wrong call.
compile=$(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith("/runtime/comm/comm_check.cpp"):
        print(e["command"])
' "$build/compile_commands.json")
[ -n "$compile" ] || { echo "cuda_build: comm_check.cpp is not in compile_commands.json"; exit 1; }
(cd "$build" && eval "$compile -fsyntax-only")

lib=$(find "$build/runtime" -maxdepth 1 -name 'libtapas_runtime_cuda.a' | head -n 1)
[ -n "$lib" ] || { echo "cuda_build: libtapas_runtime_cuda.a was not built"; exit 1; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1; }
nccl=$(cache_value NCCL_LIBRARY)
cudart=$(cache_value CUDA_cudart_LIBRARY)
if [ -z "$nccl" ] || [ -z "$cudart" ]; then
    echo "cuda_build: NCCL_LIBRARY or CUDA_cudart_LIBRARY missing from $build/CMakeCache.txt"
    exit 1
fi
c++ -shared -o "$build/nccl_link_check.so" -Wl,--whole-archive "$lib" -Wl,--no-whole-archive \
    "$nccl" "$cudart" -Wl,--no-undefined
echo "cuda_build: ok (configure $((configured - start)) s, build + link $(($(date +%s) - configured)) s)"
