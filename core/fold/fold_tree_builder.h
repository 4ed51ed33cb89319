#pragma once
// Builds the fold tree (fold_tree.h) over the block chain that foldGraph found.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <cstdint>
#include <vector>

namespace tapas {

// What foldGraph knows about each block of the chain besides its class.
struct ChainMark {
    int region = 0; // segmentation region (the shared constants, side regions, the main stream)
    int run = -1;   // the tandem repeat it belongs to, or -1
    int copy = -1;  // which copy of that repeat's period
    int piece = -1; // a unique stretch cut into pieces: the stretch's id, or -1
    uint64_t tied = 0; // one weight-tied application (tied_applications.h): its group's signature
};

FoldTree buildFoldTree(const Graph& g, const FoldedGraph& fg, const std::vector<ChainMark>& marks);

} // namespace tapas
