#pragma once
// A small unrolled recurrent loop for the fold, RAFT's update loop in miniature: a hidden state h
// computed from the input, and coordinates c that start as a stored constant grid c0. Each of
// `iterations` updates computes flow = c - c0, f = Relu(MatMul(flow, Wf)), h = Tanh(MatMul(h, W)
// + f), c = c + MatMul(h, Wd), with one set of weights for all of them, as an exporter unrolls a
// loop. The first update's flow branch (c0 - c0 and what follows) is computed from constants
// alone, where every later update reads the one before it. Every update's flow c - c0 is an
// output, as RAFT returns each iteration's flow.
#include "core/ir/graph.h"
#include "tests/common/float_tensor.h"

#include <string>
#include <vector>

namespace tapas::testing {

inline Graph unrolledLoopWithConstantStart(int iterations)
{
    Graph g;
    g.name = "unrolled_loop";
    auto tensor = [&](const std::string& name, std::vector<int64_t> dims, TensorKind kind) {
        return addFloatTensor(g, name, std::move(dims), kind);
    };
    auto node = [&](const std::string& name, const std::string& op, std::vector<TensorId> in, std::vector<int64_t> dims) {
        const TensorId out = tensor(name + "_output", std::move(dims), TensorKind::Activation);
        Node n;
        n.name = name;
        n.scope = scopeFromNodeName(name);
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = {out};
        g.addNode(n);
        return out;
    };
    const TensorId x = tensor("x", {8, 32}, TensorKind::Input);
    g.inputs.push_back(x);
    const TensorId c0 = tensor("coords0", {8, 16}, TensorKind::Weight);
    const TensorId w = tensor("update.w", {64, 64}, TensorKind::Weight);
    const TensorId wf = tensor("update.wf", {16, 64}, TensorKind::Weight);
    const TensorId wd = tensor("update.wd", {64, 16}, TensorKind::Weight);
    TensorId h = node("/context/Tanh", "Tanh", {node("/context/MatMul", "MatMul", {x, tensor("context.w", {32, 64}, TensorKind::Weight)}, {8, 64})}, {8, 64});
    TensorId c = c0;
    for (int i = 0; i < iterations; ++i) {
        const std::string p = "/update_" + std::to_string(i) + "/";
        const TensorId flow = node(p + "Sub", "Sub", {c, c0}, {8, 16});
        const TensorId f = node(p + "flow/Relu", "Relu", {node(p + "flow/MatMul", "MatMul", {flow, wf}, {8, 64})}, {8, 64});
        const TensorId s = node(p + "Add", "Add", {node(p + "MatMul", "MatMul", {h, w}, {8, 64}), f}, {8, 64});
        h = node(p + "Tanh", "Tanh", {s}, {8, 64});
        c = node(p + "Add_1", "Add", {c, node(p + "delta/MatMul", "MatMul", {h, wd}, {8, 16})}, {8, 16});
        g.outputs.push_back(node(p + "out/Relu", "Relu", {node(p + "out/Sub", "Sub", {c, c0}, {8, 16})}, {8, 16}));
    }
    return g;
}

} // namespace tapas::testing
