// Formats "dot", "svg", "png": the model graph annotated with the plan. Every op is a box
// filled by its strategy (one colour per strategy, listed in a legend), the instances of a
// repeated block are framed as clusters, and every edge whose tensor changes layout carries
// its collective (forward / backward) as a red label. DOT is written here; SVG and PNG are
// rendered from it by Graphviz (core/layout renderDot).
#include "core/layout/graph_layout.h"
#include "core/plan/export_common.h"

#include <map>
#include <set>

namespace tapas {

namespace {

// Escapes text for a double-quoted DOT string; control characters become spaces.
std::string dotText(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    }
    return out;
}

std::string strategyColour(const std::string& strategy)
{
    static const std::map<std::string, std::string> fixed = {
        {"replicate", "#eeeeee"}, {"column", "#8ecae6"}, {"row", "#ffb703"}, {"vocab", "#cdb4db"},
        {"hidden", "#a8dadc"},    {"batch", "#b7e4c7"},  {"rows", "#95d5b2"}, {"m", "#95d5b2"}};
    if (auto it = fixed.find(strategy); it != fixed.end()) return it->second;
    static const char* palette[] = {"#f4a261", "#e9c46a", "#90be6d", "#f28482", "#84a59d", "#bde0fe", "#ffc8dd", "#d4a373"};
    uint32_t h = 2166136261u;
    for (unsigned char c : strategy) h = (h ^ c) * 16777619u;
    return palette[h % (sizeof palette / sizeof *palette)];
}

std::string planDot(const ExportInput& in)
{
    const Graph& g = *in.graph;
    const ShardingPlan& p = *in.plan;
    std::string d = "digraph tapas_plan {\n";
    d += exportHeader(in, "dot", "// ");
    const std::string padding = p.padding.empty() ? "" : "; " + describeTablePadding(g, p.padding);
    d += "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"" + dotText("plan " + p.mesh.toString() + " (dp x tp) for " + g.name + padding) +
         "\", labelloc=t];\n";
    d += "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n";
    d += "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#777777\"];\n";
    auto nodeLine = [&](NodeId n, const std::string& indent) {
        const Node& node = g.node(n);
        const std::string& s = p.nodes[size_t(n)].name;
        std::string padded; // a lookup of a padded table says so in its box
        for (const TablePadding& t : p.padding)
            if (node.input(0) == t.table && node.opType == "Gather")
                padded = " (table padded " + std::to_string(t.rows) + " -> " + std::to_string(t.paddedRows) + " rows)";
        return indent + "n" + std::to_string(n) + " [label=\"" +
               dotText(node.name.empty() ? "#" + std::to_string(n) : node.name) + "\\n" + dotText(node.opType + ": " + s + padded) +
               "\", fillcolor=\"" + strategyColour(s) + "\"];\n";
    };
    std::vector<bool> placed(g.nodes.size(), false);
    if (in.folded) {
        for (size_t b = 0; b < in.folded->chain.size(); ++b) {
            const BlockRef& ref = in.folded->chain[b];
            const BlockClass& c = in.folded->classes[size_t(ref.classId)];
            if (!c.repeated()) continue;
            d += "  subgraph cluster_" + std::to_string(b) + " {\n";
            d += "    label=\"" + dotText("class " + std::to_string(c.id) + " #" + std::to_string(ref.instance) +
                                         (c.scope.empty() ? "" : " " + c.scope)) + "\"; style=dashed; color=\"#999999\";\n";
            for (NodeId n : c.instances[size_t(ref.instance)].nodes) {
                d += nodeLine(n, "    ");
                placed[size_t(n)] = true;
            }
            d += "  }\n";
        }
    }
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        if (!placed[size_t(n)]) d += nodeLine(n, "  ");
    std::map<std::pair<TensorId, NodeId>, const Reshard*> reshardOf;
    for (const Reshard& r : p.reshards) reshardOf[{r.tensor, r.consumer}] = &r;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
        for (TensorId t : g.node(n).inputs) {
            if (t == kNoTensor || g.tensor(t).producer == kNoNode) continue;
            const NodeId from = g.tensor(t).producer;
            d += "  n" + std::to_string(from) + " -> n" + std::to_string(n);
            if (auto it = reshardOf.find({t, n}); it != reshardOf.end()) {
                const Reshard& r = *it->second;
                std::string label(collectiveName(r.forward));
                if (r.backward != CollectiveKind::None) label += " / bwd " + std::string(collectiveName(r.backward));
                d += " [label=\"" + dotText(label) + "\\n" + dotText(r.from.toString() + " -> " + r.to.toString()) +
                     "\", color=\"#d62828\", fontcolor=\"#d62828\", penwidth=2]";
            }
            d += ";\n";
        }
    }
    // Graph outputs left partial are all-reduced at the end.
    int out = 0;
    for (const Reshard& r : p.reshards) {
        if (r.consumer != kNoNode) continue;
        const std::string id = "out" + std::to_string(out++);
        d += "  " + id + " [label=\"" + dotText(g.tensor(r.tensor).name) + "\", shape=ellipse, fillcolor=\"#ffffff\"];\n";
        d += "  n" + std::to_string(g.tensor(r.tensor).producer) + " -> " + id + " [label=\"" +
             dotText(std::string(collectiveName(r.forward))) + "\", color=\"#d62828\", fontcolor=\"#d62828\", penwidth=2];\n";
    }
    // Legend: the strategies this plan uses, each in its colour.
    std::set<std::string> used;
    for (const OpStrategy& s : p.nodes) used.insert(s.name);
    d += "  subgraph cluster_legend {\n    label=\"strategies\"; style=solid; color=\"#999999\";\n";
    int i = 0;
    for (const std::string& s : used)
        d += "    legend" + std::to_string(i++) + " [label=\"" + dotText(s) + "\", fillcolor=\"" + strategyColour(s) + "\"];\n";
    d += "  }\n}\n";
    return d;
}

class GraphExporter : public PlanExporter {
public:
    explicit GraphExporter(std::string format) : format_(std::move(format)) {}
    std::string name() const override { return format_; }
    std::string description() const override
    {
        return format_ == "dot" ? "annotated graph (Graphviz DOT)" : format_ == "svg" ? "annotated graph (SVG)" : "annotated graph (PNG)";
    }
    Result<ExportFiles> write(const ExportInput& in, const ExportOptions&) const override
    {
        if (Status s = checkExportInput(in); !s) return Result<ExportFiles>::failure(s.error);
        const std::string dot = planDot(in);
        if (format_ == "dot") return ExportFiles{{"plan_graph.dot", dot}};
        Result<std::string> rendered = renderDot(dot, format_);
        if (!rendered) return Result<ExportFiles>::failure(format_ + ": " + rendered.error());
        return ExportFiles{{"plan_graph." + format_, std::move(rendered).value()}};
    }

private:
    std::string format_;
};

} // namespace

std::unique_ptr<PlanExporter> makeGraphExporter(const std::string& format) { return std::make_unique<GraphExporter>(format); }

} // namespace tapas
