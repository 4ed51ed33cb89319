#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// One rank's part of a training step under the 1F1B schedule (Narayanan et al., SC'21): its
// stage runs `stages - stage - 1` micro-batch forwards to fill the pipeline, then alternates one
// forward and one backward, then drains the remaining backwards. With interleaving each rank
// holds v stages (rank r: stages r, r + pp, ...) and runs Megatron-LM's interleaved schedule
// over them (micro-batches in groups of pp). Activations go forward and
// their gradients backward between neighbouring stages as point-to-point messages on the
// pipeline communicator (the ranks of this rank's dp and tp index, one per stage); the tensor-
// parallel collectives inside a stage run on its tp group as in a plan without stages. Sends
// never wait, so no pair of neighbours can block each other; receives wait, and that time is
// the stage's share of the bubble plus the transfer. Gradients accumulate in the weights' .grad
// over the micro-batches; reducing them over dp is the caller's.
#include "runtime/comm/communicator.h"
#include "runtime/exec/graph_interpreter.h"
#include "runtime/exec/stage_partition.h"

#include <functional>

namespace tapas::runtime {

struct LossParts {
    torch::Tensor backward; // what this rank back-propagates
    torch::Tensor report;   // this rank's share of the global loss (sums to it over all ranks)
};

struct PipelineStepInput {
    const GraphInterpreter* interp = nullptr;
    const StagePartition* partition = nullptr;
    int stage = 0;              // this rank's pipeline rank (its stages: stage, stage + pp, ...)
    Communicator* pp = nullptr; // null without stages
    int microBatches = 1;
    const std::unordered_map<TensorId, torch::Tensor>* params = nullptr;
    std::function<std::unordered_map<TensorId, torch::Tensor>(int microBatch)> feeds;
    // On the last stage: the loss of micro-batch j from the graph outputs (finalOutput applied).
    std::function<LossParts(const std::vector<LocalValue>& outputs, int microBatch)> loss;
    // Per stage of the plan (pp x virtual; may be empty: none). Full: a micro-batch's forward
    // keeps only what enters the stage (its received activations; its feeds are drawn again),
    // and runs again, recording for autograd, right before that micro-batch's backward
    // (Megatron-LM's full recomputation with the stage's layers as one checkpointed group).
    // Selective: each attention core of the stage runs checkpointed (GraphInterpreter::run), so
    // the backward reruns it, block by block, from its kept inputs.
    std::vector<Recompute> recompute;
    bool corruptGradients = false; // test hook: stages send zeros instead of their input gradients
};

struct PipelineStepResult {
    torch::Tensor report;      // this rank's share of the loss, summed over micro-batches
    double waitSeconds = 0;    // blocked in receives from the neighbouring stages
};

PipelineStepResult runPipelineStep(const PipelineStepInput& in);

} // namespace tapas::runtime
