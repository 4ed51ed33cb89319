#!/usr/bin/env bash
# Exported by Tapas Studio (tapas export --format mpirun).
# Model 'gpt' (157 nodes, hash 0dc51d387505177c), cluster 'h100x16'.
# Plan by searcher 'megatron' (tapas test): mesh 2x8 (dp 2 x tp 8), 5 collectives, predicted step 0.746 ms, 0.01 GB per device.
#
# Starts tapas-worker train-plan on 16 ranks: 2 node(s) x 8 GPUs, hosts from the hostfile next to this script.
# Rank mapping (devices node-major, tp fastest: rank = dp * 8 + tp):
#  gpu-a.example: ranks 0-7 (dp 0, tp 0-7)
#  gpu-b.example: ranks 8-15 (dp 1, tp 0-7)
#
# Environment overrides: TAPAS_WORKER (the worker binary), TAPAS_RUN_DIR, MPIRUN.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mpirun_bin=${MPIRUN:-mpirun}
worker=${TAPAS_WORKER:-'/opt/tapas/bin/tapas-worker'}
model='/shared/models/gpt 2 layers/it'\''s "tiny".onnx'
plan='/shared/plans/gpt2.tapas.json'
run_dir=${TAPAS_RUN_DIR:-'runs/tapas'}

# NCCL settings and library paths every rank needs; any other NCCL_* variable set in
# the calling shell is passed on too.
export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
env_args=(-x PATH -x LD_LIBRARY_PATH)
while IFS= read -r name; do
    env_args+=(-x "$name")
done < <(compgen -e | grep '^NCCL_' || true)

# Open MPI refuses to run as root without this flag.
root_args=()
if [ "$(id -u)" -eq 0 ]; then
    root_args=(--allow-run-as-root)
fi

exec "$mpirun_bin" -np 16 --hostfile "$here/hostfile" --map-by ppr:8:node --rank-by slot --bind-to none \
    "${root_args[@]}" "${env_args[@]}" \
    "$worker" train-plan --model "$model" --plan "$plan" --run-dir "$run_dir" --steps 50
