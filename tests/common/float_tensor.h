#pragma once
// The one-liner the hand-built test graphs share: a float tensor of fixed dims added to a graph.
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

} // namespace tapas::testing
