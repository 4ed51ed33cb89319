// dot through cgraph/gvc. Graphviz keeps global state (its string pool, plugin tables, error
// handler), so every call into it holds one process-wide mutex, and one GVC_t is shared for the
// life of the process (creating one loads the plugin configuration each time).
#include "core/layout/graph_layout.h"
#include "core/layout/layered_layout.h"
#include "core/layout/layout_geometry.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tapas {

namespace {

std::mutex& graphvizMutex()
{
    static std::mutex m;
    return m;
}

GVC_t* sharedContext()
{
    static GVC_t* gvc = gvContext(); // first use happens under graphvizMutex()
    return gvc;
}

// cgraph's API predates const; it copies every string it is given.
char* cstr(const char* s) { return const_cast<char*>(s); }

std::string inches(double points)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", points / 72.0);
    return buf;
}

// Owns one cgraph graph and frees its layout and itself on every path out.
class DotGraph {
public:
    DotGraph(GVC_t* gvc) : gvc_(gvc), g_(agopen(cstr("tapas"), Agdirected, nullptr)) {}
    ~DotGraph()
    {
        if (laidOut_) gvFreeLayout(gvc_, g_);
        if (g_) agclose(g_);
    }
    DotGraph(const DotGraph&) = delete;
    DotGraph& operator=(const DotGraph&) = delete;

    Agraph_t* get() const { return g_; }
    int layout()
    {
        const int rc = gvLayout(gvc_, g_, "dot");
        laidOut_ = rc == 0;
        return rc;
    }

private:
    GVC_t* gvc_;
    Agraph_t* g_;
    bool laidOut_ = false;
};

} // namespace

Status validateLayoutGraph(const LayoutGraph& graph, std::unordered_map<int, size_t>& index)
{
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const LayoutNode& n = graph.nodes[i];
        if (!index.emplace(n.id, i).second)
            return Status::failure("graph layout: node id " + std::to_string(n.id) + " appears twice");
        if (!(n.width > 0) || !(n.height > 0))
            return Status::failure("graph layout: node " + std::to_string(n.id) + " has no size");
    }
    for (const LayoutEdge& e : graph.edges) {
        if (!index.count(e.src) || !index.count(e.dst))
            return Status::failure("graph layout: edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) +
                                   " names a node that is not in the graph");
    }
    return Status::success();
}

namespace {

Result<GraphLayout> layoutDot(const LayoutGraph& graph, const LayoutOptions& options, const Progress& progress)
{
    std::unordered_map<int, size_t> index;
    if (Status s = validateLayoutGraph(graph, index); !s) return Result<GraphLayout>::failure(s.error);
    GraphLayout out;
    if (graph.nodes.empty()) return out;
    if (progress.cancelled()) return Result<GraphLayout>::failure("graph layout cancelled");
    progress(0.0, "waiting for the layout engine");

    std::lock_guard lock(graphvizMutex());
    if (progress.cancelled()) return Result<GraphLayout>::failure("graph layout cancelled");
    progress(0.05, "building the layout graph");
    DotGraph dot(sharedContext());
    Agraph_t* g = dot.get();
    if (!g) return Result<GraphLayout>::failure("graph layout: Graphviz could not create a graph");

    agattr(g, AGRAPH, cstr("rankdir"), cstr("TB"));
    agattr(g, AGRAPH, cstr("nodesep"), cstr(inches(options.nodeSep).c_str()));
    agattr(g, AGRAPH, cstr("ranksep"), cstr(inches(options.rankSep).c_str()));
    agattr(g, AGRAPH, cstr("splines"), cstr("spline"));
    // Bounded work: network simplex (ranking, then x placement) stops after this many times the
    // node count in iterations, crossing minimisation after a fraction of its default passes.
    agattr(g, AGRAPH, cstr("nslimit"), cstr("2"));
    agattr(g, AGRAPH, cstr("nslimit1"), cstr("2"));
    agattr(g, AGRAPH, cstr("mclimit"), cstr("0.3"));
    agattr(g, AGRAPH, cstr("searchsize"), cstr("20"));
    // The view draws the labels itself; empty labels keep dot from measuring text with fonts.
    agattr(g, AGNODE, cstr("label"), cstr(""));
    agattr(g, AGNODE, cstr("shape"), cstr("box"));
    agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    agattr(g, AGNODE, cstr("margin"), cstr("0"));
    Agsym_t* widthSym = agattr(g, AGNODE, cstr("width"), cstr("1"));
    Agsym_t* heightSym = agattr(g, AGNODE, cstr("height"), cstr("0.5"));

    std::unordered_map<int, Agraph_t*> clusters;
    Agraph_t* topRank = nullptr;
    Agraph_t* bottomRank = nullptr;
    std::vector<Agnode_t*> nodes(graph.nodes.size(), nullptr);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const LayoutNode& n = graph.nodes[i];
        Agnode_t* an = agnode(g, cstr(std::to_string(n.id).c_str()), 1);
        agxset(an, widthSym, cstr(inches(n.width).c_str()));
        agxset(an, heightSym, cstr(inches(n.height).c_str()));
        if (n.cluster >= 0) {
            Agraph_t*& sub = clusters[n.cluster];
            if (!sub) {
                sub = agsubg(g, cstr(("cluster_" + std::to_string(n.cluster)).c_str()), 1);
                const double margin = std::max({8.0, options.partPadding, options.partPaddingTop});
                agsafeset(sub, cstr("margin"), cstr(std::to_string(int(margin)).c_str()), cstr("8"));
            }
            agsubnode(sub, an, 1);
        }
        if (n.rank != RankHint::Free) {
            Agraph_t*& sub = n.rank == RankHint::Top ? topRank : bottomRank;
            if (!sub) {
                sub = agsubg(g, cstr(n.rank == RankHint::Top ? "tapas_top" : "tapas_bottom"), 1);
                agsafeset(sub, cstr("rank"), cstr(n.rank == RankHint::Top ? "source" : "sink"), cstr(""));
            }
            agsubnode(sub, an, 1);
        }
        nodes[i] = an;
    }
    std::vector<Agedge_t*> edges(graph.edges.size(), nullptr);
    for (size_t i = 0; i < graph.edges.size(); ++i) {
        const LayoutEdge& e = graph.edges[i];
        edges[i] = agedge(g, nodes[index[e.src]], nodes[index[e.dst]], nullptr, 1);
    }

    if (progress.cancelled()) return Result<GraphLayout>::failure("graph layout cancelled");
    progress(0.1, "running dot");
    if (dot.layout() != 0)
        return Result<GraphLayout>::failure("graph layout: Graphviz dot failed on a graph of " +
                                            std::to_string(graph.nodes.size()) + " nodes");
    if (progress.cancelled()) return Result<GraphLayout>::failure("graph layout cancelled");
    progress(0.9, "reading coordinates");

    // Graphviz's y grows upwards from the bounding box's lower edge; flip to screen order.
    const boxf bb = GD_bb(g);
    const double top = bb.UR.y;
    auto flip = [&](pointf p) { return LayoutPoint{p.x - bb.LL.x, top - p.y}; };

    out.nodes.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const LayoutNode& n = graph.nodes[i];
        const LayoutPoint c = flip(ND_coord(nodes[i]));
        out.nodes.push_back({n.id, c.x, c.y, ND_width(nodes[i]) * 72.0, ND_height(nodes[i]) * 72.0, n.cluster});
    }
    out.edges.reserve(graph.edges.size());
    for (size_t i = 0; i < graph.edges.size(); ++i) {
        const LayoutEdge& e = graph.edges[i];
        RoutedEdge r{e.src, e.dst, e.label, {}, false, {}};
        const splines* spl = edges[i] ? ED_spl(edges[i]) : nullptr;
        if (spl && spl->size > 0 && spl->list[0].size >= 4) {
            const bezier& bz = spl->list[0];
            r.points.reserve(size_t(bz.size));
            for (int k = 0; k < bz.size; ++k) r.points.push_back(flip(bz.list[k]));
            if (bz.eflag) {
                r.hasArrow = true;
                r.arrowTip = flip(bz.ep);
            }
        } else {
            // dot routes every edge it is given; a missing spline would be a Graphviz quirk,
            // and a straight connector is still better than a missing edge.
            const PlacedNode& s = out.nodes[index[e.src]];
            const PlacedNode& d = out.nodes[index[e.dst]];
            r = routeConnector(s, d, e.label);
        }
        out.edges.push_back(std::move(r));
    }
    out.bounds = computeBounds(out);
    progress(1.0, "layout done");
    return out;
}

} // namespace

Result<GraphLayout> layoutGraph(const LayoutGraph& graph, const LayoutOptions& options, const Progress& progress)
{
    const bool dot = options.engine == LayoutEngine::Dot ||
                     (options.engine == LayoutEngine::Auto && int(graph.nodes.size()) <= options.dotNodeLimit);
    return dot ? layoutDot(graph, options, progress) : layoutLayered(graph, options, progress);
}

const PlacedNode* GraphLayout::find(int id) const
{
    auto it = std::find_if(nodes.begin(), nodes.end(), [id](const PlacedNode& n) { return n.id == id; });
    return it == nodes.end() ? nullptr : &*it;
}

PlacedNode* GraphLayout::find(int id)
{
    return const_cast<PlacedNode*>(std::as_const(*this).find(id));
}

Result<std::string> renderDot(const std::string& dotText, const std::string& format)
{
    std::lock_guard lock(graphvizMutex());
    GVC_t* gvc = sharedContext();
    Agraph_t* g = agmemread(dotText.c_str());
    if (!g) return Result<std::string>::failure("graph render: Graphviz could not parse the DOT text");
    std::string out;
    std::string error;
    if (gvLayout(gvc, g, "dot") != 0) {
        error = "graph render: Graphviz dot layout failed";
    } else {
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(gvc, g, format.c_str(), &data, &length) != 0 || !data)
            error = "graph render: Graphviz has no renderer for format '" + format + "'";
        else
            out.assign(data, length);
        if (data) gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    if (!error.empty()) return Result<std::string>::failure(error);
    return out;
}

} // namespace tapas
