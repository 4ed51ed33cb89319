#pragma once
// The canonical form of one segment: its nodes in an order fixed by the graph's structure
// alone (a walk backwards from the segment's sink along input slots), and a signature that
// hashes that walk with the wiring between the nodes. Two segments with the same signature
// are the same subgraph, node for node: position p in one corresponds to position p in the
// other, which is what lets a block class share one sharding search among its instances.
// Names and the file's node order never enter.
#include "core/fold/compact_graph.h"
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"
#include "core/ir/graph.h"

#include <vector>

namespace tapas {

// Scratch arrays reused across segments so that canonicalising all of them stays linear.
struct CanonicalScratch {
    std::vector<int> position; // per node, -1 when not placed
    std::vector<int> external; // per tensor, -1 when not numbered
    explicit CanonicalScratch(const CompactGraph& cg) : position(cg.nodeCount, -1), external(cg.tensorCount, -1) {}
};

// Orders `segment.nodes` canonically and sets `segment.hash`. `nodeSegment` maps every node to
// its segment; `segmentIndex` is this segment's index there.
void canonicaliseSegment(const CompactGraph& cg, const std::vector<int>& nodeSegment, int segmentIndex,
                         const NodeHashes& hashes, FoldSegment& segment, CanonicalScratch& scratch);

// The signature of nodes kept in a given order (a block cut across segments), hashed as a
// segment's: each node's local hash and, per input slot, the position it reads from in the list
// or the k-th distinct tensor from outside.
uint64_t orderedSignature(const CompactGraph& cg, const std::vector<NodeId>& order, const NodeHashes& hashes,
                          CanonicalScratch& scratch);

} // namespace tapas
