#pragma once
// A block as foldGraph plans it before block classes are made: slices of the segments' canonical
// node orders, or (a block cut out across segments) its nodes in an explicit order.
#include "core/fold/fold_tree_builder.h"
#include "core/fold/segmenter.h"
#include "core/ir/graph.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tapas {

struct SegSlice {
    int segment = 0, begin = 0, end = 0; // [begin, end) of the segment's canonical order
};

struct BlockPlan {
    std::vector<SegSlice> slices;
    ChainMark mark;
    // Set instead of slices: the nodes in position order, their signature and the block's parts
    // (first position, signature).
    std::vector<NodeId> nodes;
    uint64_t signature = 0;
    std::vector<std::pair<int, uint64_t>> parts;
    bool explicitNodes() const { return !nodes.empty(); }
};

struct BlockLayout {
    std::vector<NodeId> nodes; // in position order: position p of equal blocks corresponds
    uint64_t signature = 0;    // equal <=> structurally identical blocks
    std::vector<std::pair<int, uint64_t>> parts; // its segments (first position, signature); tiny ones merged
};

BlockLayout layoutOf(const Segmentation& seg, const BlockPlan& block);

} // namespace tapas
