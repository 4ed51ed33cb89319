#pragma once
// What the executor needs to know about a plan beyond the plan file itself, derived once before
// execution (plain C++, no torch): the layout each source weight is stored in on a rank, which
// tensors are trainable, and the "interleave" of split tensors.
//
// Interleave: a Split along a dimension that is itself split over tp (GPT's packed QKV) hands
// every rank the k-th part of its own shard, so rank r's shard of the packed tensor must hold
// [Q_r, K_r, V_r], not a contiguous slice of [Q, K, V] (Megatron stores its QKV weight this
// way). A tensor with interleave k > 1 along its split dim d holds, on rank r, the r-th tp-slice
// of each of the k equal parts of d. The need is propagated from such Splits back through the
// ops that keep the split (element-wise, column-parallel MatMul) to the weights, whose shards
// are then cut interleaved; a reshard into an interleaved layout permutes first.
#include "core/ir/trained_weights.h"
#include "core/ir/graph.h"
#include "core/shard/sharding_plan.h"
#include "core/util/result.h"

#include <vector>

namespace tapas::runtime {

struct ExecLayouts {
    int tp = 1;
    std::vector<OpStrategy> nodes;        // per node; all "replicate" for the reference run
    std::vector<TensorLayout> storage;    // per tensor: how a trainable source weight is stored
    std::vector<int> producedK;           // per tensor: interleave as produced (or stored)
    std::vector<std::vector<int>> needK;  // per node, per input: interleave the node needs
};

// A float weight the run trains (core/ir/trained_weights, the rule the cost model charges by):
// an initializer, or a Constant node's value that is read as data (paddle2onnx stores weights
// so). Scalars, BatchNormalization's running statistics and constants read as sizes, scales or
// bounds (Resize scales, Clip limits) are not trained.
inline bool isTrainable(const Graph& g, TensorId t) { return isTrainedWeight(g, t); }
// The node's work is divided over tp (some output split or partial): a replicated float input
// then needs Megatron's "f" (identity forward, all-reduce backward) so its gradient is complete.
bool splitsWork(const OpStrategy& s);

// `plan` null: every node replicated (the single-rank reference). Errors name the node.
Result<ExecLayouts> analyseLayouts(const Graph& g, const ShardingPlan* plan, int tp);

} // namespace tapas::runtime
