#pragma once
// Which pipeline stage runs each node of a plan with stages, and what crosses between stages
// (plain C++, no torch). A stage is a contiguous range of the folded block chain
// (PipelineSchedule::stages); every node belongs to one block, so to one stage. Activations
// move only between neighbouring stages: a tensor made in stage i and read in stage j > i + 1
// (or a graph output made before the last stage, where the loss is taken) is passed on by each
// stage in between, so every stage talks to its two neighbours only.
#include "core/fold/folded_graph.h"
#include "core/shard/pipeline_schedule.h"
#include "core/util/result.h"

#include <functional>
#include <vector>

namespace tapas::runtime {

struct StagePartition {
    int stages = 1;
    std::vector<int> nodeStage;                 // per NodeId
    std::vector<std::vector<TensorId>> crossing; // crossing[k]: sent from stage k to k + 1, in tensor id order
    std::vector<std::vector<int>> weightStages;  // per TensorId: the stages reading that weight (ascending)
    std::vector<int> stageBlocks;                // blocks per stage (for the record)
};

// `everywhere(t)`: tensors every rank has without a send (graph inputs, constants, values the
// importer computed, weights). Fails naming the field when the stages do not cover `folded`'s
// chain, for interleaved (virtual) stages, and naming both nodes when a node reads a tensor a
// later stage makes.
Result<StagePartition> partitionStages(const Graph& g, const FoldedGraph& folded, const PipelineSchedule& schedule,
                                       int pp, const std::function<bool(TensorId)>& everywhere);

} // namespace tapas::runtime
