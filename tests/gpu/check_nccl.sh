#!/usr/bin/env bash
# The one prepared check for a GPU machine (docs/train-plan.md, "CUDA / NCCL"): builds tapas-worker
# with TAPAS_WITH_CUDA=ON, shows the GPUs, then runs `tapas-worker comm-check` with the NCCL
# backend on 1 rank (and on one rank per GPU when there are several) and with the MPI backend for
# comparison. Exits non-zero when a step fails; comm-check names the collective and the first
# wrong element. Meant to finish in ~8 minutes on a 16-core machine (only the worker is built).
#
#   tests/gpu/check_nccl.sh [BUILD_DIR]        (default: <repo>/build-gpu)
#
# Environment: JOBS (build parallelism, default min(nproc, 16)), CUDACXX (default
# /usr/local/cuda/bin/nvcc), NCCL_DEBUG (default WARN), CHECK_TIMEOUT (seconds per run, default 240).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:-$src/build-gpu}
cores=$(nproc)
jobs=${JOBS:-$((cores < 16 ? cores : 16))}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
limit=${CHECK_TIMEOUT:-240}
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

step() { printf '\n==== %s  (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
fail() {
    printf 'check_nccl.sh: FAILED: %s\n' "$*" >&2
    exit 1
}

step "prerequisites"
for tool in cmake mpirun nvidia-smi timeout; do
    command -v "$tool" >/dev/null || fail "'$tool' is not on PATH"
done
[ -x "$nvcc" ] || fail "no nvcc at $nvcc (set CUDACXX)"
"$nvcc" --version | tail -n 2

step "nvidia-smi"
nvidia-smi || fail "nvidia-smi cannot talk to a GPU (driver missing or no device)"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
[ "$gpus" -ge 1 ] || fail "nvidia-smi lists no GPU"
echo "GPUs: $gpus"

step "configure $build (TAPAS_WITH_CUDA=ON)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake "${generator[@]}" -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTAPAS_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DTAPAS_BUILD_TESTS=OFF -DTAPAS_BUILD_FUZZ=OFF "${launcher[@]}" ||
    fail "configure (see the CMake messages above)"

step "build tapas-worker (-j$jobs)"
cmake --build "$build" -j "$jobs" --target tapas-worker || fail "build of tapas-worker"
worker=$build/bin/tapas-worker

mpi=(mpirun)
[ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
# `timeout` guards against a collective that never completes (a hung NCCL init costs no more
# than CHECK_TIMEOUT seconds).
run_check() {
    local ranks=$1
    shift
    step "comm-check $* on $ranks rank(s)"
    timeout "$limit" "${mpi[@]}" --oversubscribe -np "$ranks" "$worker" comm-check "$@" ||
        fail "comm-check $* on $ranks rank(s) (exit $?)"
}

run_check 1 --backend nccl
if [ "$gpus" -gt 1 ]; then
    run_check "$gpus" --backend nccl
fi
run_check 2 --backend mpi --max-count 4194304

step "all checks passed"
