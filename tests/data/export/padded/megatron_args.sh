#!/usr/bin/env bash
# shellcheck disable=SC2034  # the variables are for the script that sources this file
# Exported by Tapas Studio (tapas export --format megatron).
# Model 'gpt' (87 nodes, hash 234ae8ff76ebc879), cluster 'a100x8'.
# Plan by searcher 'tapas' (tapas test): mesh 1x8 (dp 1 x tp 8), 3 collectives, predicted step 7.811 ms, 0.89 GB per device.
# The plan pads tables so that their rows split over tp: 'transformer.wte.weight' padded from 50257 to 50264 rows (zero rows appended; no id reads them and the loss must not see their logits).
#
# Megatron-LM arguments for this plan (flag names as megatron/training/arguments.py defines them):
# a GPT of 1 layers, hidden 2048, 16 heads, sequence 1024, vocabulary 50257 (the plan pads it, and Megatron-LM with it, to 50264, a multiple of 1 x tp 8);
# world size 8 = tensor parallel 8 x pipeline 1 x data parallel 1 (Megatron-LM derives the data-parallel size from the world size), 8 samples a step = micro-batch 8 x 1 micro-batches x 1 replicas.
# Mock data and the null tokenizer let it run without a dataset; for real data replace them
# (--data-path, --tokenizer-type, ...). --lr is a starting value, not part of the plan.
# Use:
#   source megatron_args.sh
#   torchrun --nproc-per-node <GPUs per node> --nnodes <nodes> pretrain_gpt.py "${MEGATRON_ARGS[@]}"
MEGATRON_WORLD_SIZE=8
MEGATRON_DATA_PARALLEL_SIZE=1
MEGATRON_MODEL_ARGS=(
    --num-layers 1
    --hidden-size 2048
    --num-attention-heads 16
    --ffn-hidden-size 50257
    --seq-length 1024
    --max-position-embeddings 1024
    --tokenizer-type NullTokenizer
    --vocab-size 50257
    --make-vocab-size-divisible-by 1
)
MEGATRON_PARALLEL_ARGS=(
    --tensor-model-parallel-size 8
    --pipeline-model-parallel-size 1
)
MEGATRON_TRAINING_ARGS=(
    --micro-batch-size 8
    --global-batch-size 8
    --train-iters 50
    --lr 1.0e-4
    --fp16
    --mock-data
)
MEGATRON_ARGS=("${MEGATRON_MODEL_ARGS[@]}" "${MEGATRON_PARALLEL_ARGS[@]}" "${MEGATRON_TRAINING_ARGS[@]}")
