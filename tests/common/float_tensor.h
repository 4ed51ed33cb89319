#pragma once
// The one-liners the hand-built test graphs share: a tensor of fixed dims (a float one), a known
// int64 vector (a Slice's starts and ends), and a node, added to a graph.
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tapas::testing {

inline TensorId addTensorOf(Graph& g, const std::string& name, DType dtype, std::vector<int64_t> dims, TensorKind kind)
{
    Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = Shape::of(dims);
    t.kind = kind;
    return g.addTensor(t);
}

inline TensorId addFloatTensor(Graph& g, const std::string& name, std::vector<int64_t> dims, TensorKind kind)
{
    return addTensorOf(g, name, DType::Float32, std::move(dims), kind);
}

inline TensorId addKnownInts(Graph& g, const std::string& name, std::vector<int64_t> values)
{
    Tensor t;
    t.name = name;
    t.dtype = DType::Int64;
    t.shape = Shape::of({int64_t(values.size())});
    t.kind = TensorKind::Constant;
    t.value = ConstValue{DType::Int64, t.shape, std::move(values), {}};
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
