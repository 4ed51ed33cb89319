// Incremental expand/collapse: dot runs on the expanded part alone; the rest of the picture is
// stretched (never re-laid out), so a user's mental map of the graph survives every click.
#include "core/layout/graph_layout.h"
#include "core/layout/layout_geometry.h"
#include "core/layout/part_layout_cache.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace tapas {

namespace {

constexpr double kEps = 1e-6;
constexpr double kArrowLength = 8;

LayoutRect nodesBounds(const std::vector<PlacedNode>& nodes)
{
    if (nodes.empty()) return {};
    double l = nodes[0].rect().left(), r = nodes[0].rect().right();
    double t = nodes[0].rect().top(), b = nodes[0].rect().bottom();
    for (const PlacedNode& n : nodes) {
        const LayoutRect rc = n.rect();
        l = std::min(l, rc.left());
        r = std::max(r, rc.right());
        t = std::min(t, rc.top());
        b = std::max(b, rc.bottom());
    }
    return {l, t, r - l, b - t};
}

// Adds routed connectors for `boundary`; fails when one names a node `layout` lacks.
Status addBoundaryEdges(GraphLayout& layout, const std::vector<LayoutEdge>& boundary)
{
    for (const LayoutEdge& e : boundary) {
        const PlacedNode* s = layout.find(e.src);
        const PlacedNode* d = layout.find(e.dst);
        if (!s || !d)
            return Status::failure("graph layout: boundary edge " + std::to_string(e.src) + " -> " +
                                   std::to_string(e.dst) + " names a node that is not in the layout");
        layout.edges.push_back(routeConnector(*s, *d, e.label));
    }
    return Status::success();
}

// Moves an edge with the stretch. Its two ends follow their nodes exactly (a node that
// straddles the pivot's edge does not move while a point beside it would); the points in
// between follow the pointwise stretch, which keeps them out of the grown area.
void moveEdge(RoutedEdge& e, const Stretch& stretch, LayoutPoint srcShift, LayoutPoint dstShift)
{
    const size_t n = e.points.size();
    for (size_t i = 0; i < n; ++i) {
        if (i <= 1) e.points[i] = {e.points[i].x + srcShift.x, e.points[i].y + srcShift.y};
        else if (i + 2 >= n) e.points[i] = {e.points[i].x + dstShift.x, e.points[i].y + dstShift.y};
        else e.points[i] = stretch.apply(e.points[i]);
    }
    if (e.hasArrow) e.arrowTip = {e.arrowTip.x + dstShift.x, e.arrowTip.y + dstShift.y};
}

// `layout`'s nodes moved by `stretch` (all but `skip`), and its edges whose ends both remain.
GraphLayout stretched(const GraphLayout& layout, const Stretch& stretch, const std::unordered_set<int>& skip = {})
{
    GraphLayout out;
    std::unordered_map<int, LayoutPoint> shift;
    for (PlacedNode n : layout.nodes) {
        if (skip.count(n.id)) continue;
        const PlacedNode before = n;
        stretch.apply(n);
        shift[n.id] = {n.x - before.x, n.y - before.y};
        out.nodes.push_back(n);
    }
    for (const RoutedEdge& e : layout.edges) {
        auto s = shift.find(e.src), d = shift.find(e.dst);
        if (s == shift.end() || d == shift.end()) continue;
        RoutedEdge moved = e;
        moveEdge(moved, stretch, s->second, d->second);
        out.edges.push_back(std::move(moved));
    }
    return out;
}

// Canonical ids for the nodes of `sub` (the part, then its ports): a member is its position in
// the instance, a port -(1 + its rank among the ports ordered by direction and the positions it
// joins). Empty when two ports cannot be told apart that way.
std::vector<int> canonicalIds(const LayoutGraph& part, const std::vector<int>& positions, const LayoutGraph& sub)
{
    std::unordered_map<int, int> positionOf;
    for (size_t i = 0; i < part.nodes.size(); ++i) positionOf[part.nodes[i].id] = positions[i];
    // A port's key: its direction and the positions of the members its edges reach.
    using Key = std::pair<bool, std::vector<int>>;
    std::vector<Key> keyOfPort;
    std::unordered_map<int, size_t> portIndex;
    for (size_t i = part.nodes.size(); i < sub.nodes.size(); ++i) {
        portIndex[sub.nodes[i].id] = keyOfPort.size();
        keyOfPort.push_back({sub.nodes[i].rank == RankHint::Top, {}});
    }
    for (const LayoutEdge& e : sub.edges) {
        auto s = portIndex.find(e.src), d = portIndex.find(e.dst);
        if (s != portIndex.end()) keyOfPort[s->second].second.push_back(positionOf[e.dst]);
        if (d != portIndex.end()) keyOfPort[d->second].second.push_back(positionOf[e.src]);
    }
    for (Key& k : keyOfPort) std::sort(k.second.begin(), k.second.end());
    std::vector<Key> sorted = keyOfPort;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return {};
    std::vector<int> out(positions);
    for (const Key& k : keyOfPort)
        out.push_back(-1 - int(std::lower_bound(sorted.begin(), sorted.end(), k) - sorted.begin()));
    return out;
}

LayoutRect padded(LayoutRect r, const LayoutOptions& o)
{
    return {r.x - o.partPadding, r.y - o.partPaddingTop, r.width + 2 * o.partPadding,
            r.height + o.partPaddingTop + o.partPadding};
}

} // namespace

LayoutPoint Stretch::apply(LayoutPoint p) const
{
    if (p.y >= pivot.bottom() - kEps) p.y += dy;
    if (p.x >= pivot.right() - kEps) p.x += dxHalf;
    else if (p.x <= pivot.left() + kEps) p.x -= dxHalf;
    return p;
}

void Stretch::apply(PlacedNode& n) const
{
    const LayoutRect r = n.rect();
    if (r.top() >= pivot.bottom() - kEps) n.y += dy;
    if (r.left() >= pivot.right() - kEps) n.x += dxHalf;
    else if (r.right() <= pivot.left() + kEps) n.x -= dxHalf;
}

RoutedEdge routeConnector(const PlacedNode& src, const PlacedNode& dst, const std::string& label)
{
    RoutedEdge r;
    r.src = src.id;
    r.dst = dst.id;
    r.label = label;
    const LayoutRect s = src.rect(), d = dst.rect();
    const bool down = d.top() >= s.bottom() || dst.y >= src.y;
    const LayoutPoint start{src.x, down ? s.bottom() : s.top()};
    const LayoutPoint tip{dst.x, down ? d.top() : d.bottom()};
    const double dir = down ? 1.0 : -1.0;
    const LayoutPoint end{tip.x, tip.y - dir * kArrowLength};
    const double bend = std::max(12.0, std::abs(end.y - start.y) / 2);
    r.points = {start, {start.x, start.y + dir * bend}, {end.x, end.y - dir * bend}, end};
    r.hasArrow = true;
    r.arrowTip = tip;
    return r;
}

LayoutRect computeBounds(const GraphLayout& layout)
{
    bool any = false;
    double l = 0, r = 0, t = 0, b = 0;
    auto add = [&](double x0, double y0, double x1, double y1) {
        if (!any) {
            l = x0, t = y0, r = x1, b = y1;
            any = true;
            return;
        }
        l = std::min(l, x0), t = std::min(t, y0), r = std::max(r, x1), b = std::max(b, y1);
    };
    for (const PlacedNode& n : layout.nodes) add(n.rect().left(), n.rect().top(), n.rect().right(), n.rect().bottom());
    for (const RoutedEdge& e : layout.edges) {
        for (const LayoutPoint& p : e.points) add(p.x, p.y, p.x, p.y);
        if (e.hasArrow) add(e.arrowTip.x, e.arrowTip.y, e.arrowTip.x, e.arrowTip.y);
    }
    return {l, t, r - l, b - t};
}

bool layoutHasOverlap(const GraphLayout& layout)
{
    std::vector<LayoutRect> rects;
    rects.reserve(layout.nodes.size());
    for (const PlacedNode& n : layout.nodes) rects.push_back(n.rect());
    std::sort(rects.begin(), rects.end(), [](const LayoutRect& a, const LayoutRect& b) { return a.x < b.x; });
    for (size_t i = 0; i < rects.size(); ++i)
        for (size_t j = i + 1; j < rects.size() && rects[j].x < rects[i].right() - kEps; ++j)
            if (rects[i].overlaps(rects[j])) return true;
    return false;
}

Result<GraphLayout> layoutExpansion(const GraphLayout& previous, int collapsedId, const LayoutGraph& part,
                                    const std::vector<LayoutEdge>& boundary, const LayoutOptions& options,
                                    const Progress& progress, int cluster, PartLayoutCache* cache, int classKey,
                                    const std::vector<int>& positions)
{
    const PlacedNode* box = previous.find(collapsedId);
    if (!box)
        return Result<GraphLayout>::failure("graph layout: cannot expand node " + std::to_string(collapsedId) +
                                            ": it is not in the layout");
    if (part.nodes.empty())
        return Result<GraphLayout>::failure("graph layout: cannot expand node " + std::to_string(collapsedId) +
                                            " into nothing");
    std::unordered_set<int> members;
    int nextId = collapsedId;
    for (const LayoutNode& n : part.nodes) {
        if (n.id != collapsedId && previous.find(n.id))
            return Result<GraphLayout>::failure("graph layout: expanded node id " + std::to_string(n.id) +
                                                " is already in the layout");
        members.insert(n.id);
        nextId = std::max(nextId, n.id);
    }
    for (const PlacedNode& n : previous.nodes) nextId = std::max(nextId, n.id);
    for (const LayoutEdge& e : boundary) {
        const bool srcIn = members.count(e.src) > 0, dstIn = members.count(e.dst) > 0;
        const int outside = srcIn ? e.dst : e.src;
        if (srcIn == dstIn || outside == collapsedId || !previous.find(outside))
            return Result<GraphLayout>::failure("graph layout: boundary edge " + std::to_string(e.src) + " -> " +
                                                std::to_string(e.dst) + " does not join the part to the layout");
    }

    // Each outside node gets a port on the part's top row (it feeds the part) or bottom row
    // (it is fed), so dot routes boundary edges around the part's boxes like any other edge.
    // The part is laid out alone, so it needs no dot cluster (a cluster would also let dot
    // rank the ports far from it); `cluster` is only recorded on the placed nodes.
    LayoutGraph sub = part;
    std::unordered_map<int, int> partCluster;
    for (LayoutNode& n : sub.nodes) {
        partCluster[n.id] = n.cluster;
        n.cluster = -1;
    }
    std::unordered_map<int, int> inPort, outPort; // outside node -> port id
    std::vector<size_t> subEdgeOf(boundary.size());
    for (size_t i = 0; i < boundary.size(); ++i) {
        const LayoutEdge& e = boundary[i];
        const bool feeds = members.count(e.dst) > 0;
        auto& ports = feeds ? inPort : outPort;
        const int outside = feeds ? e.src : e.dst;
        auto [it, added] = ports.emplace(outside, 0);
        if (added) {
            it->second = ++nextId;
            sub.nodes.push_back({it->second, 2, 2, -1, feeds ? RankHint::Top : RankHint::Bottom});
        }
        subEdgeOf[i] = sub.edges.size();
        sub.edges.push_back(feeds ? LayoutEdge{it->second, e.dst, e.label} : LayoutEdge{e.src, it->second, e.label});
    }
    Result<GraphLayout> inner = cache && positions.size() == part.nodes.size()
                                    ? cache->layout(classKey, sub, canonicalIds(part, positions, sub),
                                                    options, progress)
                                    : layoutGraph(sub, options, progress);
    if (!inner) return inner;

    std::vector<PlacedNode> partNodes;
    for (const PlacedNode& n : inner->nodes)
        if (members.count(n.id)) partNodes.push_back(n);
    const LayoutRect c = box->rect();
    const LayoutRect partBox = padded(nodesBounds(partNodes), options);
    const double grownWidth = std::max(partBox.width, c.width);
    const double grownHeight = std::max(partBox.height, c.height);
    const Stretch stretch{c, (grownWidth - c.width) / 2, grownHeight - c.height};

    GraphLayout out = stretched(previous, stretch, {collapsedId});
    // The part hangs from the box's top edge, centred where the box was.
    const double dx = (box->x - partBox.width / 2) - partBox.x;
    const double dy = c.top() - partBox.y;
    auto shifted = [&](LayoutPoint p) { return LayoutPoint{p.x + dx, p.y + dy}; };
    for (PlacedNode n : partNodes) {
        n.x += dx;
        n.y += dy;
        n.cluster = cluster >= 0 ? cluster : partCluster[n.id];
        out.nodes.push_back(n);
    }
    for (size_t i = 0; i < part.edges.size(); ++i) {
        RoutedEdge e = inner->edges[i];
        for (LayoutPoint& p : e.points) p = shifted(p);
        e.arrowTip = shifted(e.arrowTip);
        out.edges.push_back(std::move(e));
    }
    // A boundary edge: a connector between the outside node and the port, then dot's route.
    for (size_t i = 0; i < boundary.size(); ++i) {
        const LayoutEdge& b = boundary[i];
        RoutedEdge routed = inner->edges[subEdgeOf[i]];
        for (LayoutPoint& p : routed.points) p = shifted(p);
        routed.arrowTip = shifted(routed.arrowTip);
        routed.src = b.src;
        routed.dst = b.dst;
        const bool feeds = members.count(b.dst) > 0;
        const PlacedNode* outside = out.find(feeds ? b.src : b.dst);
        if (routed.points.size() < 4) {
            routed = routeConnector(*outside, *out.find(feeds ? b.dst : b.src), b.label);
            if (!feeds) std::swap(routed.src, routed.dst);
            out.edges.push_back(std::move(routed));
            continue;
        }
        RoutedEdge result;
        result.src = b.src;
        result.dst = b.dst;
        result.label = b.label;
        if (feeds) {
            const LayoutPoint port = routed.points.front();
            const PlacedNode portNode{-1, port.x, port.y + 0.01, 0.02, 0.02, -1};
            RoutedEdge lead = routeConnector(*outside, portNode, b.label);
            lead.points.back() = port; // ends exactly where dot's route starts, with no arrow
            result.points = lead.points;
            result.points.insert(result.points.end(), routed.points.begin() + 1, routed.points.end());
            result.hasArrow = routed.hasArrow;
            result.arrowTip = routed.arrowTip;
        } else {
            const LayoutPoint port = routed.hasArrow ? routed.arrowTip : routed.points.back();
            const PlacedNode portNode{-1, port.x, port.y - 0.01, 0.02, 0.02, -1};
            RoutedEdge tail = routeConnector(portNode, *outside, b.label);
            result.points = routed.points;
            result.points.push_back(port); // a straight cubic over the arrow's old place
            result.points.push_back(port);
            result.points.push_back(port);
            tail.points.front() = port;
            result.points.insert(result.points.end(), tail.points.begin() + 1, tail.points.end());
            result.hasArrow = true;
            result.arrowTip = tail.arrowTip;
        }
        out.edges.push_back(std::move(result));
    }
    out.bounds = computeBounds(out);
    return out;
}

Result<GraphLayout> layoutCollapse(const GraphLayout& current, const std::vector<int>& memberIds,
                                   const PlacedNode& box, const std::vector<LayoutEdge>& boundary,
                                   const LayoutOptions& options)
{
    const std::unordered_set<int> members(memberIds.begin(), memberIds.end());
    std::vector<PlacedNode> inside;
    GraphLayout rest;
    for (const PlacedNode& n : current.nodes) (members.count(n.id) ? inside : rest.nodes).push_back(n);
    if (inside.empty())
        return Result<GraphLayout>::failure("graph layout: cannot collapse into node " + std::to_string(box.id) +
                                            ": none of its members is in the layout");
    if (rest.find(box.id))
        return Result<GraphLayout>::failure("graph layout: collapsed node id " + std::to_string(box.id) +
                                            " is already in the layout");
    const LayoutRect area = padded(nodesBounds(inside), options);
    PlacedNode placed = box;
    placed.x = area.x + area.width / 2;
    placed.y = area.y + box.height / 2;

    // Close the gap the members leave, on both axes if that is safe, else on one, else none.
    const double shrinkX = -std::max(0.0, area.width - box.width) / 2;
    const double shrinkY = -std::max(0.0, area.height - box.height);
    const Stretch candidates[] = {{area, shrinkX, shrinkY}, {area, 0, shrinkY}, {area, shrinkX, 0}, {area, 0, 0}};
    GraphLayout out;
    for (const Stretch& s : candidates) {
        out = stretched(current, s, members);
        // The box itself sits inside the area, which the stretch leaves in place.
        out.nodes.push_back(placed);
        if (!layoutHasOverlap(out)) break;
    }
    if (Status s = addBoundaryEdges(out, boundary); !s) return Result<GraphLayout>::failure(s.error);
    out.bounds = computeBounds(out);
    return out;
}

} // namespace tapas
