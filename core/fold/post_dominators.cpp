#include "core/fold/post_dominators.h"

#include <cstddef>
#include <utility>

namespace tapas {

PostDomTree postDominators(const LocalDag& dag)
{
    const int n = dag.size;
    const int sink = n;
    int levels = 1;
    while ((1 << levels) <= n + 1) ++levels;
    std::vector<std::vector<int>> up(std::size_t(levels), std::vector<int>(std::size_t(n + 1), sink));
    PostDomTree t;
    t.ipdom.assign(std::size_t(n + 1), sink);
    t.depth.assign(std::size_t(n + 1), 0);
    t.ipdom[std::size_t(sink)] = -1;

    auto lca = [&](int a, int b) {
        if (t.depth[std::size_t(a)] < t.depth[std::size_t(b)]) std::swap(a, b);
        int diff = t.depth[std::size_t(a)] - t.depth[std::size_t(b)];
        for (int k = 0; diff; ++k, diff >>= 1)
            if (diff & 1) a = up[std::size_t(k)][std::size_t(a)];
        if (a == b) return a;
        for (int k = levels - 1; k >= 0; --k) {
            if (up[std::size_t(k)][std::size_t(a)] != up[std::size_t(k)][std::size_t(b)]) {
                a = up[std::size_t(k)][std::size_t(a)];
                b = up[std::size_t(k)][std::size_t(b)];
            }
        }
        return up[0][std::size_t(a)];
    };

    // Successors come later in topological order, so walking it backwards finds every
    // successor's place in the tree before the node itself is placed.
    for (auto it = dag.topo.rbegin(); it != dag.topo.rend(); ++it) {
        const int u = *it;
        int p = -1;
        if (dag.toSink[std::size_t(u)] || dag.succ[std::size_t(u)].empty()) p = sink;
        for (int s : dag.succ[std::size_t(u)]) p = p < 0 ? s : lca(p, s);
        t.ipdom[std::size_t(u)] = p;
        t.depth[std::size_t(u)] = t.depth[std::size_t(p)] + 1;
        up[0][std::size_t(u)] = p;
        for (int k = 1; k < levels; ++k) up[std::size_t(k)][std::size_t(u)] = up[std::size_t(k - 1)][std::size_t(up[std::size_t(k - 1)][std::size_t(u)])];
    }
    return t;
}

} // namespace tapas
