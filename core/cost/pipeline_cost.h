#pragma once
// Pipeline parallelism on the cost model (DESIGN.md, "Mesh dp x pp x tp"): a plan's per-block
// costs of one micro-batch, cut into stages that are contiguous ranges of the folded block chain,
// run under the 1F1B schedule (interleaved when a rank holds several stages), with activation
// recomputation per stage and optimizer state optionally sharded over the data-parallel group.
//
// References: the schedule and its bubble, (p-1)/(v*m+p-1) of the step for p equal stages, m
// micro-batches and v stages per rank, and the point-to-point sends with the scatter/gather
// split over the tensor-parallel group: Narayanan et al., SC'21. The micro-batches a rank keeps in
// flight: Megatron-LM's schedules (p - rank for 1F1B; 2(p - rank - 1) + (v - 1)p + 1 stage
// forwards interleaved). What each recomputation keeps: Korthikanti et al., 2022 (selective drops
// the attention core's scores, masks and probabilities; full keeps each block's input only).
#include "core/cost/cost_model.h"
#include "core/fold/folded_graph.h"

#include <optional>
#include <utility>
#include <vector>

namespace tapas {

// One chain block, one micro-batch, one device of its stage.
struct BlockProfile {
    int classId = -1;
    CostTerms terms;             // compute (forward + backward), tp collectives, weights, kept activations
    double forwardTime = 0;      // the forward alone (compute and its tp collectives): what full recomputation reruns
    double coreActivation = 0;   // bytes of the attention core's outputs: what selective recomputation drops
    double coreForwardTime = 0;  // the attention core's forward: what selective recomputation reruns
    double inputBytes = 0;       // activations entering the block: what full recomputation keeps
    double sendBytes = 0;        // activations crossing from this block and earlier ones to later ones
    // The most one micro-batch's forward or backward of the block holds beyond the kept storages
    // alive then: values nobody keeps, activation gradients, fresh weight gradients (the step's
    // working set, step_working_set.h, at the block's nodes).
    double workingExtra = 0;
};

// Nodes of the attention core: from a product of two activations (Q K^T) through the ops that
// scale, mask, normalise or drop its scores, to the product that applies them (to V), inclusive.
std::vector<char> attentionCoreNodes(const Graph& g);

// Per chain block of `folded`, from the plan's report of one micro-batch (report.perBlock filled).
std::vector<BlockProfile> blockProfiles(const ShardingPlan& plan, const CostReport& report, const CostModel& model,
                                        const FoldedGraph& folded);

// Cuts the chain into `parts` contiguous, non-empty stages minimising the slowest, block `b`
// costing `cost[b]`. Consecutive blocks of one class and equal cost are taken as a run, so the
// work grows with the number of runs, not with depth, and a repeated class splits into equal
// stages. Returns [first, end) per stage; empty when there are fewer blocks than parts.
std::vector<std::pair<int, int>> partitionChain(const std::vector<double>& cost, const std::vector<int>& classIds, int parts);

struct PipelineConfig {
    int pp = 1, dp = 1, tp = 1;
    int microBatches = 1;
    int microBatchSize = 0;
    int virtualStages = 1;
    std::optional<Recompute> recompute; // every stage; nullopt: per rank, the least that fits
    bool distributedOptimizer = false;
    // A plan's own stages, costed as they stand (an edited or reopened plan): [first, end) per
    // stage in chain order, pp x virtualStages of them, and the recomputation of each pipeline
    // rank. Empty: the chain is cut to balance the stages, and recompute above decides.
    std::vector<std::pair<int, int>> stages;
    std::vector<Recompute> rankRecompute;
};

struct PipelineEvaluation {
    PipelineSchedule schedule;
    CostTerms total;     // the step of the busiest rank; the memory of the fullest
    bool fits = false;
};

// Evaluates one configuration (nullopt when the chain has fewer blocks than stages, or the
// given stages do not cut it into pp x virtualStages contiguous ranges). `model` is the
// micro-batch cost model (its options give the backward factor and bytes per parameter);
// `cluster` links the stages and dp groups.
std::optional<PipelineEvaluation> evaluatePipeline(const std::vector<BlockProfile>& blocks, const PipelineConfig& config,
                                                   const CostModel& model, const ClusterSpec& cluster, double memoryLimit);

// What the pipeline sweep may choose (SearchRequest::pipeline). Empty lists: every candidate.
struct PipelineOptions {
    std::vector<int> tp, pp, microBatchSizes, virtualStages;
    std::optional<Recompute> recompute;       // every stage; nullopt: per rank, the least that fits
    std::optional<bool> distributedOptimizer; // nullopt: on whenever dp > 1 (it costs no time here)
    int maxMicroBatchSize = 16;               // micro-batch sizes tried when none are given
    bool tpAcrossNodes = false;               // tensor parallelism may leave a node
};

// The schedule's idle share for p equal stages: (p-1) / (v*m + p - 1).
double bubbleFraction(int pp, int microBatches, int virtualStages);

// Megatron-LM's count of model FLOPs per step of a GPT with full recomputation (Narayanan et al.,
// SC'21, eq. 3): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)). Their TFLOP/s per GPU divide it by the
// step time and the GPU count.
double megatronGptFlops(double batch, double seq, double layers, double hidden, double vocab);

} // namespace tapas
