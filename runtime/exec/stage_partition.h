#pragma once
// Which pipeline stage runs each node of a plan with stages, and what crosses between stages
// (plain C++, no torch). A stage is a contiguous range of the folded block chain
// (PipelineSchedule::stages); every node belongs to one block, so to one stage. With interleaving
// there are pp x virtual stages, stage s on pipeline rank s mod pp. Activations
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
    int stages = 1;                              // pp x virtual stages
    int ranks = 1;                               // pipeline ranks (pp): stage s runs on rank s % ranks
    std::vector<int> nodeStage;                 // per NodeId
    std::vector<std::vector<TensorId>> crossing; // crossing[k]: sent from stage k to k + 1, in tensor id order
    std::vector<std::vector<int>> weightStages;  // per TensorId: the stages reading that weight (ascending)
    std::vector<int> stageBlocks;                // blocks per stage (for the record)

    int rankOf(int stage) const { return stage % ranks; }
    // Whether pipeline rank `rank` runs a stage that reads tensor t.
    bool rankReads(TensorId t, int rank) const;
    // Whether stages on more than one pipeline rank read tensor t (its gradient sums over them).
    bool readOnSeveralRanks(TensorId t) const;
    int blocksOnRank(int rank) const;
};

// `everywhere(t)`: tensors every rank has without a send (graph inputs, constants, values the
// importer computed, weights). Fails naming the field when the stages do not cover `folded`'s
// chain or do not lie on their ranks in turn, and naming both nodes when a node reads a tensor a
// later stage makes.
Result<StagePartition> partitionStages(const Graph& g, const FoldedGraph& folded, const PipelineSchedule& schedule,
                                       int pp, const std::function<bool(TensorId)>& everywhere);

} // namespace tapas::runtime
