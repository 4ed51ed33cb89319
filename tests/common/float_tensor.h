#pragma once
// The one-liners the hand-built test graphs share: a float tensor of fixed dims, and a node,
// added to a graph.
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tapas::testing {

inline TensorId addFloatTensor(Graph& g, const std::string& name, std::vector<int64_t> dims, TensorKind kind)
{
    Tensor t;
    t.name = name;
    t.dtype = DType::Float32;
    t.shape = Shape::of(dims);
    t.kind = kind;
    return g.addTensor(t);
}

inline NodeId addNode(Graph& g, const std::string& name, const std::string& opType, std::vector<TensorId> inputs,
                      std::vector<TensorId> outputs)
{
    Node n;
    n.name = name;
    n.opType = opType;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return g.addNode(n);
}

} // namespace tapas::testing
