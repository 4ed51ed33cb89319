#pragma once
// A plain chain of n Relu nodes on a float tensor of `dims` (default [1, 16]): the simplest graph
// that is long, for the scaling benchmarks and tests of fold and search (one block class with n
// instances).
#include "core/ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas::testing {

inline Graph reluChain(int64_t n, const std::vector<int64_t>& dims = {1, 16})
{
    Graph g;
    g.name = "relu_chain_" + std::to_string(n);
    auto tensor = [&](const std::string& name, TensorKind kind) {
        Tensor t;
        t.name = name;
        t.dtype = DType::Float32;
        t.shape = Shape::of(dims);
        t.kind = kind;
        return g.addTensor(std::move(t));
    };
    TensorId x = tensor("x", TensorKind::Input);
    g.inputs = {x};
    for (int64_t i = 0; i < n; ++i) {
        Node node;
        node.opType = "Relu";
        node.inputs = {x};
        x = tensor("r" + std::to_string(i), TensorKind::Activation);
        node.outputs = {x};
        g.addNode(std::move(node));
    }
    g.outputs = {x};
    return g;
}

} // namespace tapas::testing
