#include "core/fold/post_dominators.h"

#include <cstddef>
#include <utility>

namespace tapas {

void LocalDag::setSuccessors(const std::vector<std::vector<int>>& lists)
{
    succBegin.assign(lists.size() + 1, 0);
    succList.clear();
    for (std::size_t u = 0; u < lists.size(); ++u) {
        succBegin[u] = uint32_t(succList.size());
        succList.insert(succList.end(), lists[u].begin(), lists[u].end());
    }
    succBegin[lists.size()] = uint32_t(succList.size());
}

PostDomTree postDominators(const LocalDag& dag)
{
    const int n = dag.size;
    const int sink = n;
    int levels = 1;
    while ((1 << levels) <= n + 1) ++levels;
    // Ancestors 2^k up, node-major: one node's ladder shares a cache line or two, where level-major
    // rows sent every step of an LCA to another far-away row.
    const std::size_t L = std::size_t(levels);
    std::vector<int> up(std::size_t(n + 1) * L, sink);
    auto at = [&](int u, int k) -> int& { return up[std::size_t(u) * L + std::size_t(k)]; };
    PostDomTree t;
    t.ipdom.assign(std::size_t(n + 1), sink);
    t.depth.assign(std::size_t(n + 1), 0);
    t.ipdom[std::size_t(sink)] = -1;

    auto lca = [&](int a, int b) {
        if (t.depth[std::size_t(a)] < t.depth[std::size_t(b)]) std::swap(a, b);
        int diff = t.depth[std::size_t(a)] - t.depth[std::size_t(b)];
        for (int k = 0; diff; ++k, diff >>= 1)
            if (diff & 1) a = at(a, k);
        if (a == b) return a;
        for (int k = levels - 1; k >= 0; --k) {
            if (at(a, k) != at(b, k)) {
                a = at(a, k);
                b = at(b, k);
            }
        }
        return at(a, 0);
    };

    // Successors come later in topological order, so walking it backwards finds every
    // successor's place in the tree before the node itself is placed.
    for (auto it = dag.topo.rbegin(); it != dag.topo.rend(); ++it) {
        const int u = *it;
        int p = -1;
        const std::span<const int> succ = dag.succ(u);
        if (dag.toSink[std::size_t(u)] || succ.empty()) p = sink;
        for (int s : succ) p = p < 0 ? s : lca(p, s);
        t.ipdom[std::size_t(u)] = p;
        t.depth[std::size_t(u)] = t.depth[std::size_t(p)] + 1;
        at(u, 0) = p;
        for (int k = 1; k < levels; ++k) at(u, k) = at(at(u, k - 1), k - 1);
    }
    return t;
}

} // namespace tapas
