#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are for the script that sources this file
# Exported by Tapas Studio (tapas export --format megatron).
# Model 'gpt' (157 nodes, hash 0dc51d387505177c), cluster 'h100x16'.
# Plan by searcher 'megatron' (tapas test): mesh 2x8 (dp 2 x tp 8), 6 collectives, predicted step 0.809 ms, 0.01 GB per device.
#
# Megatron-LM parallelism for this plan: world size 16 = tensor parallel 8 x data parallel 2 (Megatron-LM derives the data-parallel size from the world size).
# Use: source megatron_args.sh, then pass "${MEGATRON_PARALLEL_ARGS[@]}" to pretrain_gpt.py under
# torchrun --nproc-per-node ... with WORLD_SIZE=16.
MEGATRON_WORLD_SIZE=16
MEGATRON_DATA_PARALLEL_SIZE=2
MEGATRON_PARALLEL_ARGS=(
    --tensor-model-parallel-size 8
    --pipeline-model-parallel-size 1
)
