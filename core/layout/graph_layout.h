#pragma once
// Graph layout for the graph view, through Graphviz `dot` (cgraph + gvc). Plain data in, plain
// data out: the view turns a model into boxes and edges (LayoutGraph), core places them.
//
// Coordinates are points (1/72 inch) with y growing DOWN (screen convention), origin at the
// layout's top-left; Graphviz's own y-up coordinates never leave this module.
//
// Expanding one collapsed box re-runs dot on the expanded part only (layoutExpansion) and
// stretches the rest of the picture around it, so everything the user has already looked at
// keeps its place; the big viewers re-lay out the whole graph here and stall.
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tapas {

// Pins a node to the first or last rank of its layout (dot's rank=source / rank=sink).
enum class RankHint : int8_t { Free, Top, Bottom };

struct LayoutNode {
    int id = 0;          // caller's id, unique within one LayoutGraph
    double width = 72;   // points
    double height = 36;  // points
    int cluster = -1;    // >= 0: kept together (dot cluster) with the nodes of the same value
    RankHint rank = RankHint::Free;
};

struct LayoutEdge {
    int src = 0;
    int dst = 0;
    std::string label;   // carried through to the result; not drawn or sized by dot
};

struct LayoutGraph {
    std::vector<LayoutNode> nodes;
    std::vector<LayoutEdge> edges;
};

// Which engine lays a graph out. Auto: dot, with its work bounded, up to dotNodeLimit boxes (its
// pictures are tidier); our linear-time layered layout above (dot's time grows far faster than
// the graph: 20 s on 1,481 boxes), and for any graph that must honour a cancel at once.
enum class LayoutEngine : int8_t { Auto, Dot, Layered };

struct LayoutOptions {
    LayoutEngine engine = LayoutEngine::Auto;
    int dotNodeLimit = 150;
    double nodeSep = 18;  // points between boxes of one rank
    double rankSep = 30;  // points between ranks
    // Room kept around a cluster or an expanded part, for the frame the view draws around it
    // and the frame's caption above it.
    double partPadding = 0;
    double partPaddingTop = 0;
};

struct LayoutPoint {
    double x = 0, y = 0;
};

struct LayoutRect {
    double x = 0, y = 0, width = 0, height = 0;
    double left() const { return x; }
    double right() const { return x + width; }
    double top() const { return y; }
    double bottom() const { return y + height; }
    bool overlaps(const LayoutRect& o, double eps = 1e-6) const
    {
        return x < o.right() - eps && o.x < right() - eps && y < o.bottom() - eps && o.y < bottom() - eps;
    }
};

struct PlacedNode {
    int id = 0;
    double x = 0, y = 0;          // centre
    double width = 0, height = 0;
    int cluster = -1;
    LayoutRect rect() const { return {x - width / 2, y - height / 2, width, height}; }
};

struct RoutedEdge {
    int src = 0;
    int dst = 0;
    std::string label;
    // Piecewise cubic Bezier: p0, then (c1, c2, p) per segment, so 3k+1 points (k >= 1).
    std::vector<LayoutPoint> points;
    bool hasArrow = false;        // the head arrow runs from points.back() to arrowTip
    LayoutPoint arrowTip;
};

struct GraphLayout {
    std::vector<PlacedNode> nodes;
    std::vector<RoutedEdge> edges;
    LayoutRect bounds;            // covers every node and edge point

    const PlacedNode* find(int id) const;
    PlacedNode* find(int id);
};

// Lays out the whole graph top to bottom with the engine the options choose. Fails with a
// sentence when the graph is malformed (an edge naming an unknown node, a duplicate id), when
// Graphviz fails, or when `progress` is cancelled. dot itself cannot be interrupted (cancel is
// checked around it), so its network simplex and crossing minimisation run with bounded
// iterations (nslimit, nslimit1, mclimit, searchsize) and only on small graphs; the layered
// layout checks cancel throughout. Graphviz runs are serialised process-wide: it is not safe
// to run twice at once.
Result<GraphLayout> layoutGraph(const LayoutGraph& graph, const LayoutOptions& options = {},
                                const Progress& progress = {});

// Replaces the box `collapsedId` of `previous` with the nodes of `part`, laid out on their own
// by dot and placed (grown by the options' part padding) with their top edge where the box's
// top was, centred on it. Everything
// right of / left of / below the box moves outwards by exactly the extra width / height the
// part needs, so no two boxes overlap and every other node keeps its order with its
// neighbours. Edges between the part and the rest (`boundary`, in either direction) are routed
// by dot inside the part (from a port on its top or bottom row, so they go around the part's
// boxes, never through them) and joined to the outside node; `previous` edges touching
// `collapsedId` are dropped; the rest are stretched with their nodes. `part` nodes all get cluster = `cluster` when it is >= 0.
// With a `cache`, the part's inside (with its ports) is laid out once per `classKey` and reused
// by every later part of that key with the same wiring; `positions[i]` is `part.nodes[i]`'s
// position in its block instance (the same for corresponding nodes of every instance).
class PartLayoutCache;
Result<GraphLayout> layoutExpansion(const GraphLayout& previous, int collapsedId,
                                    const LayoutGraph& part, const std::vector<LayoutEdge>& boundary,
                                    const LayoutOptions& options = {}, const Progress& progress = {},
                                    int cluster = -1, PartLayoutCache* cache = nullptr, int classKey = -1,
                                    const std::vector<int>& positions = {});

// The inverse: the nodes `memberIds` of `current` become one box `box` (its x/y are ignored:
// it goes at the top centre of the members' bounding box grown by the options' part padding),
// and the rest closes the gap where that cannot create an overlap (when it could, the gap
// stays: correctness over compactness). `boundary` are the box's edges to the rest, routed anew.
Result<GraphLayout> layoutCollapse(const GraphLayout& current, const std::vector<int>& memberIds,
                                   const PlacedNode& box, const std::vector<LayoutEdge>& boundary,
                                   const LayoutOptions& options = {});

// True when some two nodes of `layout` overlap (tests, and the collapse's own check).
bool layoutHasOverlap(const GraphLayout& layout);

// Lays out and renders a DOT document with Graphviz under the same process-wide lock
// (`format`: "svg", "png", ... any -T format the installed plugins offer). Fails with a sentence
// when the text does not parse or the format has no renderer.
Result<std::string> renderDot(const std::string& dotText, const std::string& format);

} // namespace tapas
