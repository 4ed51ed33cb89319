#pragma once
// Strategy builders: the sharding rules of the op family files (core/ops/*_ops.cpp) are written
// with them, and code that needs a node's all-replicated strategy takes replicateStrategy.
#include "core/shard/op_sharding.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace tapas {

// An ONNX axis counted from the end when negative, unchecked (a rule's candidate dims are
// validated against the tensor afterwards).
inline int shardAxis(int64_t axis, int rank) { return int(axis < 0 ? axis + rank : axis); }

// Every input and output replicated: the strategy every op has.
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
// Batch or channel split passed straight through (pooling, BatchNorm, Resize, LRN); per-channel
// parameters follow the channels.
std::vector<OpStrategy> channelwiseStrategies(const ShardContext& c);

} // namespace tapas
