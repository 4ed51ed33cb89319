#pragma once
// Cuts a graph into segments at the nodes every path must cross: the residual stream between
// (and inside) layers. The fold then looks for repeats in the sequence of segment signatures.
//
// How the cuts are found (and why this way):
// 1. Shape arithmetic and constants are *meta* nodes (metaNodes in structural_hash.h): Shape,
//    Size and everything computed only from weights, constants and shapes (Constant, Range,
//    the causal-mask Slice, position ids).
//    They say nothing about data flow, and a mask or sequence length computed once and read by
//    every layer would otherwise connect every layer to every other. Meta nodes join the
//    segment of their consumers afterwards, or a shared segment when several segments read them
//    (and so does Identity(initializer), the exporter's alias for merged equal weights).
// 2. Over the remaining data nodes, a post-dominator tree with a virtual sink (graph outputs and
//    ends). The *spine* is the post-dominator chain of one entry node: every node on it is a cut
//    of everything before it. A spine node closes a segment; a node joins the segment of the
//    first spine node that post-dominates it.
// 3. A node that reaches an earlier spine node than the one that post-dominates it feeds several
//    segments: a *broadcast* (the attention mask in BERT, the encoder output that every T5
//    decoder layer reads). Broadcast nodes form a side region, segmented the same way,
//    recursively, and placed in the chain before the region that reads them. This is what
//    splits an encoder–decoder model into an encoder stretch and a decoder stretch.
// 4. Which entry node's chain is the spine: each entry candidate (the deepest nodes without
//    data predecessors) is tried, and the one giving the finest segmentation wins (least sum of
//    squared segment sizes over all regions): the decoder's stream, not the encoder output.
// 5. A segment of more than 64 nodes that a long skip or a multi-tensor state leaves uncut is
//    cut further (segment_refiner.h): long edges cut, or slabs of repeating levels.
// Nothing here reads node names or relies on the file's node order.
#include "core/fold/compact_graph.h"
#include "core/fold/structural_hash.h"
#include "core/ir/graph.h"
#include "core/util/progress.h"
#include "core/util/result.h"

#include <cstdint>
#include <vector>

namespace tapas {

struct FoldSegment {
    int region = 0;
    std::vector<NodeId> nodes; // canonical order (see segment_signature.h)
    std::vector<NodeId> sinks; // where the canonical walk starts: the spine node, or the ends
    uint64_t hash = 0;         // structural signature of the segment
    // A weight-tied application (tied_applications.h): its group's shape-free signature, else 0.
    uint64_t tied = 0;
};

struct FoldRegion {
    std::vector<int> segments; // indices into Segmentation::segments, along the spine
    int depth = 0;             // 0: the main stream; side regions are deeper
};

struct Segmentation {
    std::vector<FoldSegment> segments;
    std::vector<FoldRegion> regions; // chain order: side regions before the region reading them
    std::vector<int> nodeSegment;    // segment of each node
    int sharedSegment = -1;          // meta nodes read by several segments, or -1
};

// The sinks of a piece cut out of a segment: its nodes that feed a graph output, are read by a data
// node of another piece (`pieceOf`, per node), or are read by no data node; ordered by the graph
// outputs they feed, then by structure (`wl`).
std::vector<NodeId> pieceSinks(const CompactGraph& cg, const std::vector<char>& useful, const std::vector<uint64_t>& wl,
                               const std::vector<int>& pieceOf, int piece, const std::vector<NodeId>& nodes);

// `topo`: every node, producers first. Fails only when cancelled.
Result<Segmentation> segmentGraph(const CompactGraph& cg, const std::vector<NodeId>& topo, const NodeHashes& hashes,
                                  const Progress& progress = {});

} // namespace tapas
