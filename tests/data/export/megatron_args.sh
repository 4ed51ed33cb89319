#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are for the script that sources this file
# Exported by Tapas Studio (tapas export --format megatron).
# Model 'gpt' (157 nodes, hash 0dc51d387505177c), cluster 'h100x16'.
# Plan by searcher 'megatron' (tapas test): mesh 2x8 (dp 2 x tp 8), 5 collectives, predicted step 0.746 ms, 0.01 GB per device.
#
# Megatron-LM arguments for this plan (flag names as megatron/training/arguments.py defines them):
# a GPT of 2 layers, hidden 256, 8 heads, sequence 64, vocabulary 1024 (Megatron-LM pads it to 1024, a multiple of 128 x tp 8);
# world size 16 = tensor parallel 8 x pipeline 1 x data parallel 2 (Megatron-LM derives the data-parallel size from the world size), 8 samples a step = micro-batch 4 x 1 micro-batches x 2 replicas.
# Mock data and the null tokenizer let it run without a dataset; for real data replace them
# (--data-path, --tokenizer-type, ...). --lr is a starting value, not part of the plan.
# Use:
#   source megatron_args.sh
#   torchrun --nproc-per-node <GPUs per node> --nnodes <nodes> pretrain_gpt.py "${MEGATRON_ARGS[@]}"
MEGATRON_WORLD_SIZE=16
MEGATRON_DATA_PARALLEL_SIZE=2
MEGATRON_MODEL_ARGS=(
    --num-layers 2
    --hidden-size 256
    --num-attention-heads 8
    --ffn-hidden-size 1024
    --seq-length 64
    --max-position-embeddings 1024
    --tokenizer-type NullTokenizer
    --vocab-size 1024
    --make-vocab-size-divisible-by 128
)
MEGATRON_PARALLEL_ARGS=(
    --tensor-model-parallel-size 8
    --pipeline-model-parallel-size 1
)
MEGATRON_TRAINING_ARGS=(
    --micro-batch-size 4
    --global-batch-size 8
    --train-iters 50
    --lr 1.0e-4
    --fp16
    --mock-data
)
MEGATRON_ARGS=("${MEGATRON_MODEL_ARGS[@]}" "${MEGATRON_PARALLEL_ARGS[@]}" "${MEGATRON_TRAINING_ARGS[@]}")
