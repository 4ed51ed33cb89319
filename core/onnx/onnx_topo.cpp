#include "core/onnx/onnx_topo.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace tapas::onnximport {

namespace {

using NameSet = std::unordered_set<std::string>;

void collectOuterNames(const onnx::GraphProto& g, NameSet& out);

// Names a node reads: its inputs plus what its subgraphs read from the enclosing scope.
void nodeReads(const onnx::NodeProto& node, NameSet& out)
{
    for (const std::string& in : node.input())
        if (!in.empty()) out.insert(in);
    for (const auto& a : node.attribute()) {
        if (a.has_g()) collectOuterNames(a.g(), out);
        for (const auto& sub : a.graphs()) collectOuterNames(sub, out);
    }
}

void collectOuterNames(const onnx::GraphProto& g, NameSet& out)
{
    NameSet defined;
    for (const auto& v : g.input()) defined.insert(v.name());
    for (const auto& t : g.initializer()) defined.insert(t.name());
    for (const auto& s : g.sparse_initializer()) defined.insert(s.values().name());
    for (const auto& n : g.node())
        for (const std::string& o : n.output()) defined.insert(o);
    NameSet reads;
    for (const auto& n : g.node()) nodeReads(n, reads);
    for (const std::string& r : reads)
        if (!defined.count(r)) out.insert(r);
}

} // namespace

std::string nodeLabel(const onnx::NodeProto& node, int index)
{
    const std::string who = node.name().empty() ? "#" + std::to_string(index) : "'" + node.name() + "'";
    return who + " (" + node.op_type() + ")";
}

Result<TopoReport> sortNodesTopologically(onnx::GraphProto& graph, const std::string& fileName)
{
    TopoReport report;
    const int n = graph.node_size();
    // Views into the proto's own strings (nothing edits the graph until the reorder at the end):
    // on a 100k-node graph, copying every name into the maps was most of this function's time.
    std::unordered_set<std::string_view> available;
    for (const auto& v : graph.input()) available.insert(v.name());
    for (const auto& t : graph.initializer()) available.insert(t.name());
    for (const auto& s : graph.sparse_initializer()) available.insert(s.values().name());

    std::unordered_map<std::string_view, int> producer;
    producer.reserve(size_t(n) * 2);
    for (int i = 0; i < n; ++i) {
        for (const std::string& o : graph.node(i).output()) {
            if (o.empty()) continue;
            auto [it, inserted] = producer.emplace(o, i);
            if (!inserted && report.duplicates.size() < 10) {
                report.duplicates.push_back("tensor '" + o + "' is produced by both node " +
                                            nodeLabel(graph.node(it->second), it->second) +
                                            " and node " + nodeLabel(graph.node(i), i));
            }
        }
    }

    std::vector<std::vector<int>> successors(static_cast<size_t>(n));
    std::vector<std::vector<int>> predecessors(static_cast<size_t>(n));
    std::vector<int> indegree(size_t(n), 0);
    std::vector<std::string_view> reads;
    for (int i = 0; i < n; ++i) {
        const onnx::NodeProto& node = graph.node(i);
        reads.clear();
        for (const std::string& in : node.input())
            if (!in.empty()) reads.push_back(in);
        NameSet outer; // what its bodies read from outside them; outlives `reads`' views of it
        for (const auto& a : node.attribute()) {
            if (a.has_g()) collectOuterNames(a.g(), outer);
            for (const auto& sub : a.graphs()) collectOuterNames(sub, outer);
        }
        for (const std::string& name : outer) reads.push_back(name);
        std::sort(reads.begin(), reads.end()); // deterministic messages; a name read twice counts once
        reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
        for (std::string_view r : reads) {
            auto it = producer.find(r);
            if (it != producer.end()) {
                successors[size_t(it->second)].push_back(i);
                predecessors[size_t(i)].push_back(it->second);
                indegree[size_t(i)]++;
            } else if (!available.count(r) && report.dangling.size() < 10) {
                report.dangling.push_back("node " + nodeLabel(node, i) + " reads '" + std::string(r) +
                                          "', which is not a graph input, an initializer or any node's output");
            }
        }
    }

    // Kahn's algorithm, always taking the lowest file index ready, so sorted files keep their order.
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int i = 0; i < n; ++i)
        if (indegree[size_t(i)] == 0) ready.push(i);
    std::vector<int> order;
    order.reserve(size_t(n));
    while (!ready.empty()) {
        const int i = ready.top();
        ready.pop();
        order.push_back(i);
        for (int s : successors[size_t(i)])
            if (--indegree[size_t(s)] == 0) ready.push(s);
    }

    if (int(order.size()) < n) {
        // Every node left has a predecessor that is also left; walking predecessors must repeat.
        int start = 0;
        while (indegree[size_t(start)] == 0) ++start;
        std::vector<int> path;
        std::unordered_map<int, size_t> seenAt;
        int cur = start;
        while (!seenAt.count(cur)) {
            seenAt[cur] = path.size();
            path.push_back(cur);
            int next = -1;
            for (int p : predecessors[size_t(cur)])
                if (indegree[size_t(p)] > 0) { next = p; break; }
            if (next < 0) break; // cannot happen; keeps the loop finite on a logic slip
            cur = next;
        }
        std::vector<int> cycle(path.begin() + std::ptrdiff_t(seenAt.count(cur) ? seenAt[cur] : 0), path.end());
        std::reverse(cycle.begin(), cycle.end()); // producer -> consumer order
        std::string text;
        const size_t shown = std::min<size_t>(cycle.size(), 6);
        for (size_t k = 0; k < shown; ++k) text += (k ? " -> " : "") + nodeLabel(graph.node(cycle[k]), cycle[k]);
        if (cycle.size() > shown) text += " -> ... (" + std::to_string(cycle.size()) + " nodes)";
        text += " -> " + nodeLabel(graph.node(cycle.front()), cycle.front());
        return Result<TopoReport>::failure(fileName + ": the graph has a cycle through node " +
                                           nodeLabel(graph.node(cycle.front()), cycle.front()) + ": " +
                                           text + "; an ONNX graph must be acyclic");
    }

    for (int k = 0; k < n; ++k) {
        if (order[size_t(k)] != k) {
            report.reordered = true;
            break;
        }
    }
    if (report.reordered) {
        std::vector<onnx::NodeProto*> nodes(static_cast<size_t>(n));
        graph.mutable_node()->ExtractSubrange(0, n, nodes.data());
        for (int i : order) graph.mutable_node()->AddAllocated(nodes[size_t(i)]);
    }
    return report;
}

} // namespace tapas::onnximport
