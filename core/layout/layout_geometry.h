#pragma once
// Geometry shared by the dot layout and the incremental expand/collapse (internal to core/layout).
#include "core/layout/graph_layout.h"

#include "core/util/result.h"

#include <string>
#include <unordered_map>

namespace tapas {

// Moves whatever lies wholly right of / left of / below `pivot` outwards: right by `dxHalf`,
// left by `dxHalf`, down by `dy` (negative values move inwards). A monotone map on each axis,
// so two boxes that did not overlap before still do not after an outward move.
struct Stretch {
    LayoutRect pivot;
    double dxHalf = 0;
    double dy = 0;

    LayoutPoint apply(LayoutPoint p) const;
    void apply(PlacedNode& n) const;
};

// A smooth connector from the bottom of `src` to the top of `dst` (or the reverse when `dst`
// lies above), with an arrow at `dst`, for edges dot did not route.
RoutedEdge routeConnector(const PlacedNode& src, const PlacedNode& dst, const std::string& label);

// Fails with a sentence on a duplicate id, a box without size or an edge naming an unknown
// node; fills `index` (id -> position in graph.nodes).
Status validateLayoutGraph(const LayoutGraph& graph, std::unordered_map<int, size_t>& index);

// Union of every node box, edge control point and arrow tip.
LayoutRect computeBounds(const GraphLayout& layout);

} // namespace tapas
