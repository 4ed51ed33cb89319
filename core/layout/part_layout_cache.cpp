#include "core/layout/part_layout_cache.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace tapas {

Result<GraphLayout> PartLayoutCache::layout(int key, const LayoutGraph& part, const std::vector<int>& canonical,
                                            const LayoutOptions& options, const Progress& progress)
{
    if (canonical.size() != part.nodes.size()) return layoutGraph(part, options, progress);
    std::unordered_map<int, int> canonOf; // part id -> canonical id
    std::unordered_set<int> seen;
    for (size_t i = 0; i < part.nodes.size(); ++i) {
        if (!seen.insert(canonical[i]).second) return layoutGraph(part, options, progress);
        canonOf[part.nodes[i].id] = canonical[i];
    }
    Entry wanted;
    for (const LayoutEdge& e : part.edges) {
        auto s = canonOf.find(e.src), d = canonOf.find(e.dst);
        if (s == canonOf.end() || d == canonOf.end()) return layoutGraph(part, options, progress); // malformed: let it say so
        wanted.edges.push_back({s->second, d->second});
    }
    std::sort(wanted.edges.begin(), wanted.edges.end());
    // Two edges between the same pair could not be told apart when mapping back.
    if (std::adjacent_find(wanted.edges.begin(), wanted.edges.end()) != wanted.edges.end())
        return layoutGraph(part, options, progress);
    for (size_t i = 0; i < part.nodes.size(); ++i)
        wanted.sizes.push_back({canonical[i], {part.nodes[i].width, part.nodes[i].height}});
    std::sort(wanted.sizes.begin(), wanted.sizes.end());

    const GraphLayout* stored = nullptr;
    GraphLayout copy;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(key);
        if (it != entries_.end() && it->second.edges == wanted.edges && it->second.sizes == wanted.sizes) {
            copy = it->second.layout;
            stored = &copy;
            ++hits_;
        } else {
            ++misses_;
        }
    }
    if (!stored) {
        Result<GraphLayout> fresh = layoutGraph(part, options, progress);
        if (!fresh) return fresh;
        GraphLayout canon = *fresh;
        for (PlacedNode& n : canon.nodes) n.id = canonOf[n.id];
        for (RoutedEdge& e : canon.edges) {
            e.src = canonOf[e.src];
            e.dst = canonOf[e.dst];
        }
        wanted.layout = std::move(canon);
        std::lock_guard lock(mutex_);
        entries_[key] = std::move(wanted);
        return fresh;
    }

    // Back to this part's ids, nodes and edges in the part's own order.
    std::unordered_map<int, const PlacedNode*> nodeOf;
    for (const PlacedNode& n : stored->nodes) nodeOf[n.id] = &n;
    std::map<std::pair<int, int>, const RoutedEdge*> edgeOf;
    for (const RoutedEdge& e : stored->edges) edgeOf[{e.src, e.dst}] = &e;
    GraphLayout out;
    out.nodes.reserve(part.nodes.size());
    for (size_t i = 0; i < part.nodes.size(); ++i) {
        PlacedNode n = *nodeOf.at(canonical[i]);
        n.id = part.nodes[i].id;
        n.cluster = part.nodes[i].cluster;
        out.nodes.push_back(n);
    }
    out.edges.reserve(part.edges.size());
    for (const LayoutEdge& e : part.edges) {
        RoutedEdge r = *edgeOf.at({canonOf[e.src], canonOf[e.dst]});
        r.src = e.src;
        r.dst = e.dst;
        r.label = e.label;
        out.edges.push_back(std::move(r));
    }
    out.bounds = stored->bounds;
    return out;
}

void PartLayoutCache::clear()
{
    std::lock_guard lock(mutex_);
    entries_.clear();
    hits_ = misses_ = 0;
}

int PartLayoutCache::hits() const
{
    std::lock_guard lock(mutex_);
    return hits_;
}

int PartLayoutCache::misses() const
{
    std::lock_guard lock(mutex_);
    return misses_;
}

} // namespace tapas
