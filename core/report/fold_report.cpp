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

// The first node of a tree class's first instance.
std::string firstNodeLabel(const Graph& g, const FoldedGraph& fg, const FoldTreeClass& c)
{
    if (c.instances.empty()) return {};
    const FoldTreeNode& n = fg.tree.nodes[size_t(c.instances.front())];
    if (n.chainBegin >= n.chainEnd) return {};
    const BlockRef& ref = fg.chain[size_t(n.chainBegin)];
    const BlockInstance& inst = fg.classes[size_t(ref.classId)].instances[size_t(ref.instance)];
    const size_t at = c.level == FoldLevel::SubBlock ? size_t(n.positionBegin) : 0;
    if (at >= inst.nodes.size()) return {};
    const Node& node = g.node(inst.nodes[at]);
    return node.name.empty() ? node.opType : node.name;
}

void treeLines(const Graph& g, const FoldedGraph& fg, int cls, const std::string& indent, bool last, bool root,
               std::ostringstream& out)
{
    const FoldTreeClass& c = fg.tree.classes[size_t(cls)];
    const std::string label = c.scope.empty() ? "(" + firstNodeLabel(g, fg, c) + ")" : c.scope;
    std::string note;
    if (c.tied) {
        // Several block classes: applications that see other shapes, or read constants where
        // their twins read activations (the first iteration of an unrolled loop).
        const size_t forms = fg.blockClassesOf(c.id).size();
        note = forms > 1 ? "  [one set of weights, " + std::to_string(forms) + " block classes]" : "  [one set of weights]";
    }
    char line[512];
    std::snprintf(line, sizeof line, "%s %4zux %7d nodes %14lld params %6.1f%%  %s%s\n", foldLevelName(c.level),
                  c.instances.size(), c.nodesPerInstance, static_cast<long long>(c.paramsPerInstance),
                  c.coverage * 100.0, root ? (g.sourcePath.empty() ? g.name : g.sourcePath).c_str() : label.c_str(),
                  note.c_str());
    out << (root ? "" : indent + (last ? "└─ " : "├─ ")) << line;
    const std::string childIndent = root ? "" : indent + (last ? "   " : "│  ");
    for (size_t i = 0; i < c.children.size(); ++i)
        treeLines(g, fg, c.children[i], childIndent, i + 1 == c.children.size(), false, out);
}

} // namespace

nlohmann::json foldToJson(const Graph& g, const FoldedGraph& fg)
{
    nlohmann::json classes = nlohmann::json::array();
    for (const FoldTreeClass& c : fg.tree.classes) {
        nlohmann::json j = {
            {"id", c.id},
            {"level", foldLevelName(c.level)},
            {"parent", c.parent >= 0 ? nlohmann::json(c.parent) : nlohmann::json(nullptr)},
            {"children", c.children},
            {"instances", c.instances.size()},
            {"nodes_per_instance", c.nodesPerInstance},
            {"params_per_instance", c.paramsPerInstance},
            {"coverage", c.coverage},
            {"scope", c.scope},
            {"signature", hex(c.signature)},
            {"repeated", c.repeated()},
            {"first_node", firstNodeLabel(g, fg, c)},
        };
        if (c.blockClass >= 0) {
            j["block_class"] = c.blockClass;
            // Tied instances of other shapes are one block class per shape: the search costs each.
            j["block_classes"] = fg.blockClassesOf(c.id);
        }
        if (c.tied) j["tied"] = true;
        if (c.shapesDiffer) j["shapes_differ"] = true;
        classes.push_back(std::move(j));
    }
    return {
        {"graph", g.sourcePath.empty() ? g.name : g.sourcePath},
        {"nodes", g.nodes.size()},
        {"segments", fg.segments},
        {"blocks", fg.chain.size()},
        {"repeated_classes", fg.repeatedClassCount()},
        {"coverage", fg.coverage},
        {"depth", fg.tree.depth()},
        {"classes", std::move(classes)},
    };
}

std::string foldTreeToText(const Graph& g, const FoldedGraph& fg)
{
    std::ostringstream out;
    if (fg.tree.empty()) return out.str();
    treeLines(g, fg, 0, "", true, true, out);
    char line[160];
    std::snprintf(line, sizeof line, "coverage: %.1f%% of the nodes are in repeated blocks\n", fg.coverage * 100.0);
    out << line;
    return out.str();
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
