#pragma once
// Checks shared by the fold suites: the fold is a partition into corresponding instances, and
// the graph with its names scrubbed, for the invariance tests.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <QString>
#include <QtGlobal>

#include <random>
#include <string>
#include <vector>

namespace tapas::testing {

// Every node in exactly one block instance, and position p of every instance of a class is a
// node of the same op type with the same number of inputs and the same input and output shapes:
// the search costs a class once, on its first instance, for all of them.
inline bool checkPartition(const Graph& g, const FoldedGraph& fg, QString* why)
{
    std::vector<int> seen(g.nodes.size(), 0);
    for (const BlockClass& c : fg.classes) {
        for (size_t i = 0; i < c.instances.size(); ++i) {
            const BlockInstance& inst = c.instances[i];
            if (int(inst.nodes.size()) != c.nodesPerInstance) {
                *why = QStringLiteral("class %1 instance %2 has %3 nodes, not %4")
                           .arg(c.id).arg(i).arg(inst.nodes.size()).arg(c.nodesPerInstance);
                return false;
            }
            for (size_t p = 0; p < inst.nodes.size(); ++p) {
                const NodeId v = inst.nodes[p];
                ++seen[size_t(v)];
                const NodeBlockRef& r = fg.nodeRef[size_t(v)];
                if (r.classId != c.id || r.instance != int(i) || r.position != int(p)) {
                    *why = QStringLiteral("nodeRef of node %1 does not point back to its block").arg(v);
                    return false;
                }
                const Node& a = g.node(c.instances[0].nodes[p]);
                const Node& b = g.node(v);
                if (a.opType != b.opType || a.inputs.size() != b.inputs.size()) {
                    *why = QStringLiteral("class %1 position %2: %3 vs %4")
                               .arg(c.id).arg(p).arg(QString::fromStdString(a.opType), QString::fromStdString(b.opType));
                    return false;
                }
                auto shapesOf = [&](const std::vector<TensorId>& ts) {
                    std::vector<std::string> out;
                    for (TensorId t : ts) out.push_back(t == kNoTensor ? "-" : g.tensor(t).shape.toString());
                    return out;
                };
                if (shapesOf(a.inputs) != shapesOf(b.inputs) || shapesOf(a.outputs) != shapesOf(b.outputs)) {
                    *why = QStringLiteral("class %1 position %2: instance %3 sees other shapes than instance 0 (%4)")
                               .arg(c.id).arg(p).arg(i).arg(QString::fromStdString(b.opType));
                    return false;
                }
            }
        }
    }
    for (size_t v = 0; v < seen.size(); ++v) {
        if (seen[v] != 1) {
            *why = QStringLiteral("node %1 is in %2 blocks").arg(v).arg(seen[v]);
            return false;
        }
    }
    return true;
}

// Node names, scopes and tensor names replaced by meaningless ones.
inline Graph scrubbed(Graph g)
{
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        g.nodes[i].name.clear();
        g.nodes[i].scope.clear();
    }
    for (size_t i = 0; i < g.tensors.size(); ++i) g.tensors[i].name = "t" + std::to_string(i * 7919 % 100003) + "_" + std::to_string(i);
    g.rebuildLinks();
    return g;
}

// The same graph with its nodes in another topological order (randomised Kahn).
inline Graph shuffled(Graph g, unsigned seed)
{
    const size_t n = g.nodes.size();
    std::vector<int> indegree(n, 0);
    for (size_t i = 0; i < n; ++i)
        for (TensorId t : g.nodes[i].inputs)
            if (t != kNoTensor && g.tensor(t).producer != kNoNode) ++indegree[i];
    std::vector<NodeId> ready, order;
    for (size_t i = 0; i < n; ++i)
        if (!indegree[i]) ready.push_back(NodeId(i));
    std::mt19937 rng(seed);
    while (!ready.empty()) {
        std::uniform_int_distribution<size_t> pick(0, ready.size() - 1);
        const size_t k = pick(rng);
        const NodeId v = ready[k];
        ready[k] = ready.back();
        ready.pop_back();
        order.push_back(v);
        for (TensorId t : g.nodes[size_t(v)].outputs)
            if (t != kNoTensor)
                for (NodeId c : g.tensor(t).consumers)
                    if (--indegree[size_t(c)] == 0) ready.push_back(c);
    }
    if (order.size() != n) qFatal("shuffled: not a DAG");
    std::vector<Node> nodes;
    nodes.reserve(n);
    for (NodeId v : order) nodes.push_back(g.nodes[size_t(v)]);
    g.nodes = std::move(nodes);
    g.rebuildLinks();
    return g;
}

} // namespace tapas::testing
