#pragma once
// A small zoo GPT with its fold and a TAPAS plan, for the plan-review suites (views and app):
// 4 identical transformer layers on an 8-GPU node as a 2x4 (dp x tp) mesh. Wide enough
// (hidden 1024, sequence 512) that TAPAS splits the layers over tp and places collectives; a
// narrower one is cheapest as pure batch splitting, which would leave nothing to review.
#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"

#include <QtTest>

#include <memory>
#include <string>

namespace tapas::testing {

inline ZooOptions smallGptOptions()
{
    ZooOptions o;
    o.layers = 4;
    o.hidden = 1024;
    o.heads = 16;
    o.seq = 512;
    o.batch = 8;
    o.vocab = 1024;
    return o;
}

struct ZooPlan {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const FoldedGraph> folded;
    ClusterSpec cluster;
    DeviceMesh mesh;
    SearchResult result;
};

inline SearchResult searchPlan(const Graph& g, const ClusterSpec& cluster, const DeviceMesh& mesh,
                               const std::string& searcher = "tapas")
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = cluster;
    r.mesh = mesh;
    Result<SearchResult> res = findSearcher(searcher)->search(r);
    if (!res) qFatal("search %s: %s", searcher.c_str(), res.error().c_str());
    return std::move(res).value();
}

inline ZooPlan smallGptPlan()
{
    Result<Graph> g = zooGraph("gpt", smallGptOptions());
    if (!g) qFatal("zoo gpt: %s", g.error().c_str());
    ZooPlan p;
    auto graph = std::make_shared<Graph>(std::move(g).value());
    Result<FoldedGraph> f = foldGraph(*graph);
    if (!f) qFatal("fold: %s", f.error().c_str());
    p.graph = graph;
    p.folded = std::make_shared<FoldedGraph>(std::move(f).value());
    p.cluster = *loadClusterSpec("a100x8");
    p.mesh = *parseMesh("2x4");
    p.result = searchPlan(*p.graph, p.cluster, p.mesh);
    return p;
}

// The first node whose name contains `part` and whose op is `op` (kNoNode if none).
inline NodeId findNode(const Graph& g, const std::string& part, const std::string& op)
{
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (g.node(n).opType == op && g.node(n).name.find(part) != std::string::npos) return n;
    return kNoNode;
}

// The weight input index of node n (-1 if none).
inline int weightInputOf(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    for (size_t i = 0; i < node.inputs.size(); ++i)
        if (node.inputs[i] != kNoTensor && g.tensor(node.inputs[i]).kind == TensorKind::Weight) return int(i);
    return -1;
}

} // namespace tapas::testing
