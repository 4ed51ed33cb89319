#pragma once
// Per-op sharding rules over the tensor-parallel axis: the strategies an op can run with (the
// layout each input must have, the layouts of its outputs, the share of the FLOPs each device
// does). Each op's rule is registered with its shape rule and cost in its family file in
// core/ops (OpDef::sharding); the helpers those rules share are in core/ops/shard_helpers.h.
#include "core/ir/graph.h"
#include "core/shard/sharding_spec.h"

#include <functional>
#include <string>
#include <vector>

namespace tapas {

struct OpStrategy {
    std::string name;                  // "column", "row", "S(1)", "replicate", ...
    std::vector<TensorLayout> inputs;  // one per node input (R for omitted ones)
    std::vector<TensorLayout> outputs; // one per node output
    double computeFraction = 1;        // share of the node's FLOPs one tp device does
};

struct ShardContext {
    const Graph& graph;
    const Node& node;
    int tp;
    int dp = 1; // a dim that scales with the batch is 1/dp of itself on each replica
    const Shape& inShape(size_t i) const;
    const Shape& outShape(size_t i) const;
    bool isWeight(size_t i) const;  // input i is a stored parameter
    bool isMeta(size_t i) const;    // input i is an integer/bool or known-value tensor (shapes, masks)
    // Dimension d of tensor t is known and divisible by tp (on one data-parallel replica).
    bool splittable(TensorId t, int d) const;
};

// Dimension d of tensor t is known and splits tp ways on one of dp data-parallel replicas (a
// dim that scales with the batch is 1/dp of itself there).
bool splitsEvenly(const Graph& g, TensorId t, int d, int tp, int dp);

using ShardRule = std::function<std::vector<OpStrategy>(const ShardContext&)>;

// The valid strategies of node n at tp degree `tp` (always at least "replicate"). An op with no
// rule is replicated and `warning` (when given) names the node.
std::vector<OpStrategy> nodeStrategies(const Graph& g, NodeId n, int tp, std::string* warning = nullptr, int dp = 1);

} // namespace tapas
