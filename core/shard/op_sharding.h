#pragma once
// Per-op sharding rules over the tensor-parallel axis: the strategies an op can run with (the
// layout each input must have, the layouts of its outputs, the share of the FLOPs each device
// does). Rules live per op family (matmul_sharding.cpp, conv_sharding.cpp, ...) and register in
// one table (shard_registry.cpp), like the op families in core/ops.
#include "core/ir/graph.h"
#include "core/shard/sharding_spec.h"

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
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

// Registers the rules of one family; called from shard_registry.cpp.
class ShardRegistry {
public:
    static const ShardRegistry& instance();
    void add(const std::string& opType, ShardRule rule);
    const ShardRule* find(std::string_view opType) const;

private:
    std::vector<std::pair<std::string, ShardRule>> rules_;
};

// The valid strategies of node n at tp degree `tp` (always at least "replicate"). An op with no
// rule is replicated and `warning` (when given) names the node.
std::vector<OpStrategy> nodeStrategies(const Graph& g, NodeId n, int tp, std::string* warning = nullptr, int dp = 1);

// Helpers the family files share.
OpStrategy replicateStrategy(const Node& n);
// A strategy that divides the op's work tp ways: input i takes inputs[i] (an input the node
// omits stays replicated), output 0 takes `output`, the other outputs stay replicated.
OpStrategy splitStrategy(const ShardContext& c, std::string name, std::initializer_list<TensorLayout> inputs,
                         const TensorLayout& output);
// Output layout L with every input following it by broadcasting (right-aligned dims).
OpStrategy broadcastStrategy(const ShardContext& c, const TensorLayout& out, std::string name);
// Candidate output layouts R and S(d) for each output dimension d of output 0 in `dims`
// (all dims when empty), each propagated to the inputs by broadcasting.
std::vector<OpStrategy> elementwiseStrategies(const ShardContext& c, std::vector<int> excludeDims = {});

} // namespace tapas
