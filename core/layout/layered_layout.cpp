#include "core/layout/layered_layout.h"

#include "core/layout/layout_geometry.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace tapas {

namespace {

constexpr int kOrderSweeps = 8;      // barycentre sweeps, alternating down and up
constexpr int kPlacementRounds = 6;  // isotonic x rounds, alternating down and up
constexpr double kArrowLength = 8;
constexpr size_t kCancelStride = 4096;

struct Cancelled {};

// The working graph: real nodes first, then one dummy per rank a long edge crosses.
struct Layered {
    int realCount = 0;
    std::vector<int> rank;
    std::vector<double> width, height;
    std::vector<std::vector<int>> up, down;   // neighbours one rank above / below
    std::vector<std::vector<int>> layers;     // node indices, left to right
    std::vector<int> pos;                     // index within its layer
    std::vector<double> x;

    int addNode(int r, double w, double h)
    {
        rank.push_back(r);
        width.push_back(w);
        height.push_back(h);
        up.emplace_back();
        down.emplace_back();
        return int(rank.size()) - 1;
    }
    bool dummy(int v) const { return v >= realCount; }
};

struct DagEdge {
    int upper = 0, lower = 0;  // real node indices, rank[upper] < rank[lower] when routed
    bool reversed = false;     // the original edge runs lower -> upper
    std::vector<int> dummies;  // top to bottom
};

void checkCancel(const Progress& progress)
{
    if (progress.cancelled()) throw Cancelled{};
}

// Reverses the back edges of one iterative depth-first search, so the rest is acyclic.
std::vector<bool> backEdges(int n, const std::vector<std::pair<int, int>>& edges, const Progress& progress)
{
    std::vector<std::vector<int>> out(static_cast<size_t>(n));
    for (size_t i = 0; i < edges.size(); ++i) out[size_t(edges[i].first)].push_back(int(i));
    std::vector<uint8_t> state(size_t(n), 0); // 0 new, 1 on the stack, 2 done
    std::vector<bool> back(edges.size(), false);
    std::vector<std::pair<int, size_t>> stack;
    for (int root = 0; root < n; ++root) {
        if (state[size_t(root)]) continue;
        if (root % int(kCancelStride) == 0) checkCancel(progress);
        stack.push_back({root, 0});
        state[size_t(root)] = 1;
        while (!stack.empty()) {
            auto& [v, next] = stack.back();
            if (next < out[size_t(v)].size()) {
                const int e = out[size_t(v)][next++];
                const int w = edges[size_t(e)].second;
                if (state[size_t(w)] == 1) back[size_t(e)] = true;
                else if (state[size_t(w)] == 0) {
                    state[size_t(w)] = 1;
                    stack.push_back({w, 0});
                }
            } else {
                state[size_t(v)] = 2;
                stack.pop_back();
            }
        }
    }
    return back;
}

// Longest path from the sources; sources then sit one rank above their nearest reader.
std::vector<int> longestPathRanks(const LayoutGraph& graph, const std::vector<DagEdge>& dag, const Progress& progress)
{
    const size_t n = graph.nodes.size();
    std::vector<std::vector<int>> succ(n, std::vector<int>());
    std::vector<int> indegree(n, 0);
    for (const DagEdge& e : dag) {
        if (e.upper == e.lower) continue;
        succ[size_t(e.upper)].push_back(e.lower);
        ++indegree[size_t(e.lower)];
    }
    std::vector<int> rank(n, 0), order;
    order.reserve(n);
    for (size_t v = 0; v < n; ++v)
        if (indegree[v] == 0) order.push_back(int(v));
    for (size_t head = 0; head < order.size(); ++head) {
        if (head % kCancelStride == 0) checkCancel(progress);
        const int v = order[head];
        for (int w : succ[size_t(v)]) {
            rank[size_t(w)] = std::max(rank[size_t(w)], rank[size_t(v)] + 1);
            if (--indegree[size_t(w)] == 0) order.push_back(w);
        }
    }
    std::vector<bool> hasPred(n, false);
    for (const DagEdge& e : dag)
        if (e.upper != e.lower) hasPred[size_t(e.lower)] = true;
    int maxRank = 0;
    for (size_t v = 0; v < n; ++v) {
        if (!hasPred[v] && !succ[v].empty() && graph.nodes[v].rank == RankHint::Free) {
            int nearest = rank[size_t(succ[v].front())];
            for (int w : succ[v]) nearest = std::min(nearest, rank[size_t(w)]);
            rank[v] = std::max(0, nearest - 1);
        }
        if (graph.nodes[v].rank != RankHint::Bottom) maxRank = std::max(maxRank, rank[v]);
    }
    // Hinted nodes go to the first / last rank; Top shifts everything else down by one.
    const bool anyTop = std::any_of(graph.nodes.begin(), graph.nodes.end(),
                                    [](const LayoutNode& nd) { return nd.rank == RankHint::Top; });
    for (size_t v = 0; v < n; ++v) {
        if (graph.nodes[v].rank == RankHint::Top) rank[v] = 0;
        else if (graph.nodes[v].rank == RankHint::Bottom) rank[v] = maxRank + 1 + (anyTop ? 1 : 0);
        else if (anyTop) rank[v] += 1;
    }
    return rank;
}

// Places one layer's nodes as near `desired` as their order and spacing allow (least squares,
// weighted): pool-adjacent-violators on desired minus the cumulative minimum offsets.
void placeLayer(Layered& L, const std::vector<int>& layer, const std::vector<double>& desired,
                const std::vector<double>& weight, double nodeSep)
{
    const size_t m = layer.size();
    if (m == 0) return;
    std::vector<double> offset(m, 0);
    for (size_t i = 1; i < m; ++i) {
        const int a = layer[i - 1], b = layer[i];
        const double sep = (L.dummy(a) || L.dummy(b)) ? nodeSep / 2 : nodeSep;
        offset[i] = offset[i - 1] + (L.width[size_t(a)] + L.width[size_t(b)]) / 2 + sep;
    }
    struct Pool {
        double sum, weight;
        size_t count;
    };
    std::vector<Pool> pools;
    pools.reserve(m);
    for (size_t i = 0; i < m; ++i) {
        pools.push_back({weight[i] * (desired[i] - offset[i]), weight[i], 1});
        while (pools.size() >= 2) {
            Pool& last = pools.back();
            Pool& prev = pools[pools.size() - 2];
            if (prev.sum / prev.weight <= last.sum / last.weight) break;
            prev.sum += last.sum;
            prev.weight += last.weight;
            prev.count += last.count;
            pools.pop_back();
        }
    }
    size_t i = 0;
    for (const Pool& p : pools) {
        const double value = p.sum / p.weight;
        for (size_t k = 0; k < p.count; ++k, ++i) L.x[size_t(layer[i])] = value + offset[i];
    }
}

void orderLayers(Layered& L, const Progress& progress)
{
    std::vector<double> key(L.rank.size());
    for (int sweep = 0; sweep < kOrderSweeps; ++sweep) {
        checkCancel(progress);
        const bool downward = sweep % 2 == 0;
        const int count = int(L.layers.size());
        for (int k = 1; k < count; ++k) {
            std::vector<int>& layer = L.layers[size_t(downward ? k : count - 1 - k)];
            for (int v : layer) {
                const std::vector<int>& nb = downward ? L.up[size_t(v)] : L.down[size_t(v)];
                if (nb.empty()) {
                    key[size_t(v)] = L.pos[size_t(v)];
                    continue;
                }
                double sum = 0;
                for (int u : nb) sum += L.pos[size_t(u)];
                key[size_t(v)] = sum / double(nb.size());
            }
            std::stable_sort(layer.begin(), layer.end(), [&](int a, int b) { return key[size_t(a)] < key[size_t(b)]; });
            for (size_t i = 0; i < layer.size(); ++i) L.pos[size_t(layer[i])] = int(i);
        }
    }
}

void placeX(Layered& L, double nodeSep, const Progress& progress)
{
    L.x.assign(L.rank.size(), 0);
    for (const std::vector<int>& layer : L.layers) {
        double at = 0;
        for (size_t i = 0; i < layer.size(); ++i) {
            const int v = layer[i];
            if (i > 0) at += L.width[size_t(layer[i - 1])] / 2 + nodeSep;
            at += i > 0 ? L.width[size_t(v)] / 2 : 0;
            L.x[size_t(v)] = at;
        }
    }
    std::vector<double> desired, weight;
    for (int round = 0; round < kPlacementRounds; ++round) {
        checkCancel(progress);
        const bool downward = round % 2 == 0;
        const int count = int(L.layers.size());
        for (int k = 0; k < count; ++k) {
            const std::vector<int>& layer = L.layers[size_t(downward ? k : count - 1 - k)];
            desired.assign(layer.size(), 0);
            weight.assign(layer.size(), 1);
            for (size_t i = 0; i < layer.size(); ++i) {
                const int v = layer[i];
                const std::vector<int>& nb = downward ? L.up[size_t(v)] : L.down[size_t(v)];
                if (nb.empty()) {
                    desired[i] = L.x[size_t(v)];
                    weight[i] = 0.25; // free to move aside for its neighbours
                    continue;
                }
                double sum = 0;
                for (int u : nb) sum += L.x[size_t(u)];
                desired[i] = sum / double(nb.size());
                // Long edges stay straight: their points pull harder than boxes.
                weight[i] = L.dummy(v) ? 4.0 : double(nb.size());
            }
            placeLayer(L, layer, desired, weight, nodeSep);
        }
    }
}

// A cubic path from `start` through `via` to `end` with vertical tangents, then the arrow.
RoutedEdge routeThrough(LayoutPoint start, const std::vector<LayoutPoint>& via, LayoutPoint tip, bool downward)
{
    RoutedEdge r;
    const LayoutPoint end{tip.x, tip.y - (downward ? kArrowLength : -kArrowLength)};
    r.points.push_back(start);
    auto segment = [&](LayoutPoint a, LayoutPoint b) {
        const double half = (b.y - a.y) / 2;
        r.points.push_back({a.x, a.y + half});
        r.points.push_back({b.x, b.y - half});
        r.points.push_back(b);
    };
    LayoutPoint at = start;
    for (const LayoutPoint& p : via) {
        segment(at, p);
        at = p;
    }
    segment(at, end);
    r.hasArrow = true;
    r.arrowTip = tip;
    return r;
}

} // namespace

Result<GraphLayout> layoutLayered(const LayoutGraph& graph, const LayoutOptions& options, const Progress& progress)
{
    std::unordered_map<int, size_t> index;
    if (Status s = validateLayoutGraph(graph, index); !s) return Result<GraphLayout>::failure(s.error);
    GraphLayout out;
    if (graph.nodes.empty()) return out;
    try {
        checkCancel(progress);
        progress(0.05, "ranking");
        const int n = int(graph.nodes.size());
        std::vector<std::pair<int, int>> edges;
        edges.reserve(graph.edges.size());
        for (const LayoutEdge& e : graph.edges) edges.push_back({int(index[e.src]), int(index[e.dst])});
        const std::vector<bool> back = backEdges(n, edges, progress);
        std::vector<DagEdge> dag(edges.size());
        for (size_t i = 0; i < edges.size(); ++i) {
            const auto [s, d] = edges[i];
            dag[i] = back[i] ? DagEdge{d, s, true, {}} : DagEdge{s, d, false, {}};
        }
        Layered L;
        L.realCount = n;
        const std::vector<int> ranks = longestPathRanks(graph, dag, progress);
        for (int v = 0; v < n; ++v) L.addNode(ranks[size_t(v)], graph.nodes[size_t(v)].width, graph.nodes[size_t(v)].height);

        progress(0.2, "routing long edges");
        // A dummy per crossed rank, up to a budget; past it an edge is drawn straight.
        const size_t dummyBudget = std::max<size_t>(20000, size_t(n) * 2);
        size_t dummies = 0;
        for (size_t i = 0; i < dag.size(); ++i) {
            if (i % kCancelStride == 0) checkCancel(progress);
            DagEdge& e = dag[i];
            const int ru = L.rank[size_t(e.upper)], rl = L.rank[size_t(e.lower)];
            if (e.upper == e.lower || rl <= ru) continue;
            const size_t span = size_t(rl - ru - 1);
            if (dummies + span > dummyBudget) continue;
            dummies += span;
            int prev = e.upper;
            for (int r = ru + 1; r < rl; ++r) {
                const int d = L.addNode(r, 2, 0);
                e.dummies.push_back(d);
                L.down[size_t(prev)].push_back(d);
                L.up[size_t(d)].push_back(prev);
                prev = d;
            }
            L.down[size_t(prev)].push_back(e.lower);
            L.up[size_t(e.lower)].push_back(prev);
        }

        // First order: a depth-first walk down from the sources keeps chains together.
        const size_t total = L.rank.size();
        const int rankCount = *std::max_element(L.rank.begin(), L.rank.end()) + 1;
        L.layers.assign(size_t(rankCount), {});
        std::vector<bool> seen(total, false);
        std::vector<int> stack;
        auto visitFrom = [&](int root) {
            if (seen[size_t(root)]) return;
            stack.push_back(root);
            while (!stack.empty()) {
                const int v = stack.back();
                stack.pop_back();
                if (seen[size_t(v)]) continue;
                seen[size_t(v)] = true;
                L.layers[size_t(L.rank[size_t(v)])].push_back(v);
                const std::vector<int>& d = L.down[size_t(v)];
                for (auto it = d.rbegin(); it != d.rend(); ++it)
                    if (!seen[size_t(*it)]) stack.push_back(*it);
            }
        };
        for (int v = 0; v < n; ++v)
            if (L.up[size_t(v)].empty()) visitFrom(v);
        for (int v = 0; v < int(total); ++v) visitFrom(v);
        L.pos.assign(total, 0);
        for (const std::vector<int>& layer : L.layers)
            for (size_t i = 0; i < layer.size(); ++i) L.pos[size_t(layer[i])] = int(i);

        progress(0.35, "ordering");
        orderLayers(L, progress);
        progress(0.65, "placing");
        placeX(L, options.nodeSep, progress);

        // y: each rank as tall as its tallest box.
        std::vector<double> rankTop(size_t(rankCount), 0), rankHeight(size_t(rankCount), 0);
        for (size_t v = 0; v < total; ++v)
            rankHeight[size_t(L.rank[v])] = std::max(rankHeight[size_t(L.rank[v])], L.height[v]);
        for (int r = 1; r < rankCount; ++r)
            rankTop[size_t(r)] = rankTop[size_t(r - 1)] + rankHeight[size_t(r - 1)] + options.rankSep;
        double minLeft = 0;
        bool first = true;
        for (size_t v = 0; v < total; ++v) {
            const double left = L.x[v] - L.width[v] / 2;
            minLeft = first ? left : std::min(minLeft, left);
            first = false;
        }
        auto centreY = [&](int v) { return rankTop[size_t(L.rank[size_t(v)])] + rankHeight[size_t(L.rank[size_t(v)])] / 2; };

        checkCancel(progress);
        progress(0.85, "routing edges");
        out.nodes.reserve(size_t(n));
        for (int v = 0; v < n; ++v) {
            const LayoutNode& nd = graph.nodes[size_t(v)];
            out.nodes.push_back({nd.id, L.x[size_t(v)] - minLeft, centreY(v), nd.width, nd.height, nd.cluster});
        }
        out.edges.reserve(graph.edges.size());
        for (size_t i = 0; i < dag.size(); ++i) {
            const LayoutEdge& le = graph.edges[i];
            const DagEdge& e = dag[i];
            const PlacedNode& s = out.nodes[index[le.src]];
            const PlacedNode& d = out.nodes[index[le.dst]];
            const int ru = L.rank[size_t(e.upper)], rl = L.rank[size_t(e.lower)];
            if (e.upper == e.lower || rl <= ru || (rl - ru > 1 && e.dummies.empty())) {
                out.edges.push_back(routeConnector(s, d, le.label));
                continue;
            }
            std::vector<LayoutPoint> via;
            via.reserve(e.dummies.size());
            for (int dm : e.dummies) via.push_back({L.x[size_t(dm)] - minLeft, centreY(dm)});
            RoutedEdge r;
            if (!e.reversed) {
                r = routeThrough({s.x, s.rect().bottom()}, via, {d.x, d.rect().top()}, true);
            } else {
                std::reverse(via.begin(), via.end());
                r = routeThrough({s.x, s.rect().top()}, via, {d.x, d.rect().bottom()}, false);
            }
            r.src = le.src;
            r.dst = le.dst;
            r.label = le.label;
            out.edges.push_back(std::move(r));
        }
        out.bounds = computeBounds(out);
    } catch (const Cancelled&) {
        return Result<GraphLayout>::failure("graph layout cancelled");
    }
    progress(1.0, "layout done");
    return out;
}

} // namespace tapas
