#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// One ONNX node on this rank's local shards through torch ops (autograd records them).
// Ops whose output shape comes from data or attributes (Reshape, Expand, ConstantOfShape,
// Range, Squeeze/Unsqueeze, Split, Flatten, ...) take the shape from `outShapes`: the graph IR's
// shape localised to the rank (batch / dp, split dim / tp), because a constant such as "12
// heads" does not know that it is split.
#include "core/ir/graph.h"
#include "core/shard/op_sharding.h"

#include <torch/types.h>

#include <optional>
#include <vector>

namespace tapas::runtime {

struct KernelCall {
    const Graph& graph;
    const Node& node;
    const OpStrategy& strategy;
    std::vector<torch::Tensor> in;                          // undefined for omitted inputs
    std::vector<std::optional<std::vector<int64_t>>> outShapes; // local, when the IR knows them
    int tp = 1;
    int tpIndex = 0;
};

// Throws std::runtime_error naming the node for an op it cannot run.
std::vector<torch::Tensor> runKernel(const KernelCall& c);

// ONNX element type -> torch (float16/bfloat16/float64 computed as float32 on CPU).
torch::ScalarType torchType(DType t);
// A ConstValue as a tensor of its dtype.
torch::Tensor constTensor(const ConstValue& v);

} // namespace tapas::runtime
