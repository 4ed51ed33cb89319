#pragma once
// Post-dominator tree of a DAG with one virtual sink, for the segmenter: a node v post-dominates
// u when every path from u to the sink passes through v. On a DAG the immediate post-dominator
// of u is the lowest common ancestor (in the tree) of u's successors, so one pass in reverse
// topological order builds the tree; binary lifting keeps each LCA at O(log n).
#include <cstdint>
#include <span>
#include <vector>

namespace tapas {

struct LocalDag {
    int size = 0;                    // nodes 0..size-1; the virtual sink is `size`
    std::vector<uint32_t> succBegin; // successors of u: succList[succBegin[u], succBegin[u + 1])
    std::vector<int> succList;
    std::vector<char> toSink;        // node also has an edge to the virtual sink
    std::vector<int> topo;           // a topological order of 0..size-1

    std::span<const int> succ(int u) const
    {
        return {succList.data() + succBegin[size_t(u)], succList.data() + succBegin[size_t(u) + 1]};
    }
    void setSuccessors(const std::vector<std::vector<int>>& lists);
};

struct PostDomTree {
    std::vector<int> ipdom; // size+1 entries; the sink's is -1
    std::vector<int> depth; // distance from the sink in the tree
};

PostDomTree postDominators(const LocalDag& dag);

} // namespace tapas
