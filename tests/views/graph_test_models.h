#pragma once
// Small in-memory models with a hand-made fold, so the graph view's tests know every count
// exactly and do not depend on the folding heuristics (tst_fold covers those).
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string>

namespace graphtest {

struct Model {
    std::shared_ptr<tapas::Graph> graph;
    std::shared_ptr<tapas::FoldedGraph> folded;
};

inline tapas::TensorId weight(tapas::Graph& g, const std::string& name, std::initializer_list<int64_t> dims)
{
    tapas::Tensor t;
    t.name = name;
    t.dtype = tapas::DType::Float32;
    t.shape = tapas::Shape::of(dims);
    t.kind = tapas::TensorKind::Weight;
    return g.addTensor(std::move(t));
}

inline tapas::TensorId activation(tapas::Graph& g, const std::string& name, int64_t width)
{
    tapas::Tensor t;
    t.name = name;
    t.dtype = tapas::DType::Float32;
    t.shape = tapas::Shape::ofDims({tapas::Dim::symbolic("batch"), tapas::Dim::known(width)});
    return g.addTensor(std::move(t));
}

inline tapas::NodeId op(tapas::Graph& g, const std::string& type, const std::string& name,
                        std::vector<tapas::TensorId> in, tapas::TensorId out, const std::string& scope)
{
    tapas::Node n;
    n.opType = type;
    n.name = name;
    n.scope = scope;
    n.inputs = std::move(in);
    n.outputs = {out};
    return g.addNode(std::move(n));
}

// x -> L x [MatMul(W) -> Add(b) -> Relu] -> MatMul(head) -> Softmax -> probs.
// Fold: class 0 = the L layers (3 nodes each), class 1 = the head (a singleton).
// with `foldLayers` false every node is a singleton class: a model with no repeats.
inline Model layeredModel(int layers, bool foldLayers = true, int64_t width = 64)
{
    auto g = std::make_shared<tapas::Graph>();
    g->name = "layered";
    tapas::TensorId x = activation(*g, "x", width);
    g->tensor(x).kind = tapas::TensorKind::Input;
    g->inputs.push_back(x);
    auto folded = std::make_shared<tapas::FoldedGraph>();
    tapas::BlockClass layerClass;
    layerClass.id = 0;
    layerClass.signature = 42;
    layerClass.nodesPerInstance = 3;
    layerClass.paramsPerInstance = width * width + width;
    layerClass.scope = "/layer";
    for (int i = 0; i < layers; ++i) {
        const std::string s = "/layer." + std::to_string(i);
        tapas::BlockInstance inst;
        inst.inputs = {x};
        tapas::TensorId w = weight(*g, s + ".weight", {width, width});
        tapas::TensorId b = weight(*g, s + ".bias", {width});
        tapas::TensorId t1 = activation(*g, s + "/mm_out", width);
        tapas::TensorId t2 = activation(*g, s + "/add_out", width);
        tapas::TensorId t3 = activation(*g, s + "/relu_out", width);
        inst.nodes.push_back(op(*g, "MatMul", s + "/MatMul", {x, w}, t1, s));
        inst.nodes.push_back(op(*g, "Add", s + "/Add", {t1, b}, t2, s));
        inst.nodes.push_back(op(*g, "Relu", s + "/Relu", {t2}, t3, s));
        inst.outputs = {t3};
        layerClass.instances.push_back(inst);
        x = t3;
    }
    tapas::TensorId hw = weight(*g, "head.weight", {width, 10});
    tapas::TensorId logits = activation(*g, "logits", 10);
    tapas::TensorId probs = activation(*g, "probs", 10);
    tapas::BlockClass head;
    head.id = 1;
    head.signature = 7;
    head.nodesPerInstance = 2;
    head.paramsPerInstance = width * 10;
    head.scope = "/head";
    tapas::BlockInstance hi;
    hi.inputs = {x};
    hi.nodes.push_back(op(*g, "MatMul", "/head/MatMul", {x, hw}, logits, "/head"));
    hi.nodes.push_back(op(*g, "Softmax", "/head/Softmax", {logits}, probs, "/head"));
    hi.outputs = {probs};
    head.instances.push_back(hi);
    g->outputs.push_back(probs);

    folded->nodeRef.assign(g->nodes.size(), {});
    if (foldLayers) {
        folded->classes = {layerClass, head};
    } else {
        // Every node its own singleton class.
        for (tapas::NodeId n = 0; n < tapas::NodeId(g->nodes.size()); ++n) {
            tapas::BlockClass c;
            c.id = int(n);
            c.nodesPerInstance = 1;
            c.instances.push_back({{n}, {}, {}});
            folded->classes.push_back(c);
        }
    }
    for (const tapas::BlockClass& c : folded->classes)
        for (size_t i = 0; i < c.instances.size(); ++i)
            for (size_t p = 0; p < c.instances[i].nodes.size(); ++p)
                folded->nodeRef[size_t(c.instances[i].nodes[p])] = {c.id, int(i), int(p)};
    for (const tapas::BlockClass& c : folded->classes)
        for (size_t i = 0; i < c.instances.size(); ++i) folded->chain.push_back({c.id, int(i)});
    folded->coverage = foldLayers ? double(3 * layers) / double(g->nodes.size()) : 0.0;
    return {g, folded};
}

// `n` ops, each adding two earlier results picked at random: a tangle with edges across the
// whole graph, which no engine lays out in an instant (for tests of cancel).
inline std::shared_ptr<tapas::Graph> tangle(int n)
{
    auto g = std::make_shared<tapas::Graph>();
    std::mt19937 rng(3);
    std::vector<tapas::TensorId> values{activation(*g, "x", 8)};
    g->tensor(values[0]).kind = tapas::TensorKind::Input;
    g->inputs.push_back(values[0]);
    for (int i = 0; i < n; ++i) {
        const tapas::TensorId out = activation(*g, "t" + std::to_string(i), 8);
        const tapas::TensorId a = values[rng() % values.size()];
        const tapas::TensorId b = values[values.size() - 1 - rng() % std::min<size_t>(values.size(), 4)];
        op(*g, "Add", "add" + std::to_string(i), {a, b}, out, "");
        values.push_back(out);
    }
    g->outputs.push_back(values.back());
    return g;
}

} // namespace graphtest
