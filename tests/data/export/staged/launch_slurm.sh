#!/usr/bin/env bash
#SBATCH --job-name=tapas
#SBATCH --nodes=2
#SBATCH --ntasks=16
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --time=01:00:00
#SBATCH --output=tapas-%j.out
#SBATCH --nodelist=gpu-a.example,gpu-b.example
# Exported by Tapas Studio (tapas export --format slurm).
# Model 'gpt' (157 nodes, hash 0dc51d387505177c), cluster 'h100x16'.
# Plan by searcher 'megatron' (tapas test): mesh 1x2x8 (dp 1 x pp 2 x tp 8), 5 collectives, predicted step 1.984 ms, 0.01 GB per device.
#
# Submit with: sbatch launch_slurm.sh. Rank mapping (devices node-major, tp fastest, then dp, then the pipeline rank:
# rank = (pp * 1 + dp) * 8 + tp; node names as SLURM assigns them):
#  gpu-a.example: ranks 0-7 (pp 0, dp 0, tp 0-7)
#  gpu-b.example: ranks 8-15 (pp 1, dp 0, tp 0-7)
# Pipeline stages (blocks of the folded chain; 1F1B over 4 micro-batch(es) of 2):
#  stage 0: blocks 0-1 on pp 0, ranks 0-7
#  stage 1: blocks 2-3 on pp 1, ranks 8-15
# Environment overrides: TAPAS_WORKER (the worker binary), TAPAS_RUN_DIR.
set -euo pipefail

worker=${TAPAS_WORKER:-'/opt/tapas/bin/tapas-worker'}
model='/shared/models/gpt 2 layers/it'\''s "tiny".onnx'
plan='/shared/plans/gpt2.tapas.json'
run_dir=${TAPAS_RUN_DIR:-'runs/tapas'}
export NCCL_DEBUG="${NCCL_DEBUG:-WARN}"

# --distribution=block puts consecutive ranks on one node: the plan's device order.
srun --ntasks=16 --ntasks-per-node=8 --distribution=block:block --cpu-bind=none --export=ALL \
    "$worker" train-plan --model "$model" --plan "$plan" --run-dir "$run_dir" --steps 50
