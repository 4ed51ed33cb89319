#pragma once
// A small detector-like graph for the weight-tied fold: one head (MatMul W1, Add B1, Relu,
// MatMul W2; one set of weights) applied to three pyramid levels of 64, 16 and 4 tokens, each level
// first made by its own projection (weights of its own). A person reads one head applied three
// times; each application sees other shapes.
#include "core/ir/graph.h"
#include "tests/common/float_tensor.h"

#include <string>
#include <vector>

namespace tapas::testing {

inline Graph tiedHeadOnThreeLevels()
{
    Graph g;
    g.name = "tied_head";
    auto tensor = [&](const std::string& name, std::vector<int64_t> dims, TensorKind kind) {
        return addFloatTensor(g, name, std::move(dims), kind);
    };
    auto node = [&](const std::string& name, const std::string& op, std::vector<TensorId> in, TensorId out) {
        Node n;
        n.name = name;
        n.scope = name.substr(0, name.rfind('/'));
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = {out};
        g.addNode(n);
    };
    const TensorId w1 = tensor("head.w1", {256, 512}, TensorKind::Weight);
    const TensorId b1 = tensor("head.b1", {512}, TensorKind::Weight);
    const TensorId w2 = tensor("head.w2", {512, 64}, TensorKind::Weight);
    int level = 0;
    for (int64_t tokens : {64, 16, 4}) {
        const std::string l = std::to_string(level++);
        const TensorId x = tensor("x" + l, {8, tokens, 128}, TensorKind::Input);
        g.inputs.push_back(x);
        const TensorId f = tensor("feat" + l, {8, tokens, 256}, TensorKind::Activation);
        node("/neck/level" + l + "/MatMul", "MatMul", {x, tensor("neck.w" + l, {128, 256}, TensorKind::Weight)}, f);
        const TensorId a = tensor("head" + l + ".a", {8, tokens, 512}, TensorKind::Activation);
        node("/head" + l + "/MatMul", "MatMul", {f, w1}, a);
        const TensorId b = tensor("head" + l + ".b", {8, tokens, 512}, TensorKind::Activation);
        node("/head" + l + "/Add", "Add", {a, b1}, b);
        const TensorId c = tensor("head" + l + ".c", {8, tokens, 512}, TensorKind::Activation);
        node("/head" + l + "/Relu", "Relu", {b}, c);
        const TensorId d = tensor("out" + l, {8, tokens, 64}, TensorKind::Activation);
        node("/head" + l + "/MatMul_1", "MatMul", {c, w2}, d);
        g.outputs.push_back(d);
        g.batch.inputs.emplace_back(x, 0); // built by hand: the batch axis is declared, not probed
    }
    g.batch.probed = true;
    g.batch.size = 8;
    return g;
}

} // namespace tapas::testing
