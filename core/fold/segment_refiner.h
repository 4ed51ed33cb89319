#pragma once
// Cuts the large segments the post-dominator spine leaves behind: the stretches that a long
// skip spans. An FPN, LR-ASPP's low-level branch or a U-Net reads the backbone far ahead, so no
// node between the tap and the merge post-dominates the backbone, and the whole backbone lands
// in one segment. RAFT's unrolled iterations each feed a graph output, so nothing in one
// iteration post-dominates the one before it.
//
// Inside such a segment (more than kRefineNodes data nodes):
// 1. Long edges are cut: an edge whose consumer lies more than max(16, depth / 4) levels (longest
//    path from the segment's entry) after its producer, so the skip no longer hides the spine.
//    Levels come from the wiring alone, so equal blocks see the same edges cut.
// 2. Only the segment's last node leads to the sink. A branch that ends at a graph output (each
//    RAFT iteration's upsampled flow), or a node whose edges were all cut, dangles: it
//    constrains no post-dominator.
// 3. The segment is cut along the post-dominator chain of that DAG, as the segmenter does.
//    Nodes off the chain that do not lead into the next cut (branches to a graph output, taps of
//    a cut skip) go with the piece of their latest producer, so each iteration keeps its own.
// 4. A segment without any such cut (RAFT's state travels in two tensors, hidden state and
//    coordinates, so no single node separates two iterations) is cut into slabs of levels
//    where its levels repeat: a tandem repeat over the per-level multisets of node hashes.
// 5. Pieces still larger than kRefineNodes are refined again, a few levels deep.
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"
#include "core/ir/graph.h"

#include <vector>

namespace tapas {

constexpr int kRefineNodes = 64;

// `nodes`: one segment's data nodes in topological order; `useful` marks the data nodes that reach
// a graph output. Returns the pieces in chain order (one piece when nothing is cut), each in
// topological order.
std::vector<std::vector<NodeId>> refineSegment(const CompactGraph& cg, const std::vector<char>& useful,
                                               const NodeHashes& hashes, const std::vector<NodeId>& nodes);

} // namespace tapas
