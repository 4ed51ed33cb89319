#include "core/report/fold_report.h"

#include <cstdio>
#include <sstream>

namespace tapas {

namespace {

std::string hex(uint64_t v)
{
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string firstNodeLabel(const Graph& g, const BlockClass& c)
{
    if (c.instances.empty() || c.instances[0].nodes.empty()) return {};
    const Node& n = g.node(c.instances[0].nodes[0]);
    return n.name.empty() ? n.opType : n.name;
}

} // namespace

nlohmann::json foldToJson(const Graph& g, const FoldedGraph& fg)
{
    nlohmann::json classes = nlohmann::json::array();
    for (const BlockClass& c : fg.classes) {
        classes.push_back({
            {"id", c.id},
            {"instances", c.instances.size()},
            {"nodes_per_instance", c.nodesPerInstance},
            {"params_per_instance", c.paramsPerInstance},
            {"scope", c.scope},
            {"signature", hex(c.signature)},
            {"repeated", c.repeated()},
            {"first_node", firstNodeLabel(g, c)},
        });
    }
    return {
        {"graph", g.sourcePath.empty() ? g.name : g.sourcePath},
        {"nodes", g.nodes.size()},
        {"segments", fg.segments},
        {"blocks", fg.chain.size()},
        {"repeated_classes", fg.repeatedClassCount()},
        {"coverage", fg.coverage},
        {"classes", std::move(classes)},
    };
}

std::string foldToText(const Graph& g, const FoldedGraph& fg)
{
    std::ostringstream out;
    out << (g.sourcePath.empty() ? g.name : g.sourcePath) << ": " << g.nodes.size() << " nodes, "
        << fg.segments << " segments, " << fg.chain.size() << " blocks in " << fg.classes.size()
        << " classes (" << fg.repeatedClassCount() << " repeated)\n";
    char line[512];
    std::snprintf(line, sizeof line, "%5s %9s %7s %14s  %s\n", "class", "instances", "nodes", "params", "scope");
    out << line;
    for (const BlockClass& c : fg.classes) {
        std::string scope = c.scope.empty() ? "(" + firstNodeLabel(g, c) + ")" : c.scope;
        std::snprintf(line, sizeof line, "%5d %8zux %7d %14lld  %s\n", c.id, c.instances.size(),
                      c.nodesPerInstance, static_cast<long long>(c.paramsPerInstance), scope.c_str());
        out << line;
    }
    std::snprintf(line, sizeof line, "coverage: %.1f%% of the nodes are in repeated blocks\n", fg.coverage * 100.0);
    out << line;
    return out.str();
}

} // namespace tapas
