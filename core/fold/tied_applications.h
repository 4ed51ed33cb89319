#pragma once
// One module, one set of weights, applied several times: a detector's RPN head run on every FPN
// level, a weight-shared tower. A person reads that as one repeated block even when the
// applications see inputs of other spatial sizes, while the segment signatures (which hash
// shapes) tell them apart, and parallel applications sit side by side inside one segment where
// no tandem repeat can see them.
//
// How they are found: a parameter tensor read at the same input slot by several nodes of one op
// type seeds a group, one copy per reader. The copies grow in lockstep along their outputs: a
// consumer joins when, in every copy, it is the only one of its kind (shape-free node hash, the
// slots it reads) among the copy's consumers, it reads every activation from inside its own copy
// at the same position, and it reads the same parameter tensors as its twins. Growth stops where
// the copies meet (a Concat of all levels) or diverge (each level's own reshape). Nothing here
// reads names or the file's node order.
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"
#include "core/ir/graph.h"

#include <cstdint>
#include <vector>

namespace tapas {

struct TiedGroup {
    // Position p of every copy is the same op reading the same weights; copies in topological
    // order of their first node.
    std::vector<std::vector<NodeId>> copies;
    uint64_t signature = 0;    // shape-free: ops, attributes, wiring, weight shapes
    bool shapesDiffer = false; // some position's structural (shape-aware) hash differs between copies
};

// `data`: the nodes the segmenter cuts (neither meta nor dead ends); `topo`: every node in a
// topological order. Groups hold at least two copies of at least two nodes, and no node is
// in two groups.
std::vector<TiedGroup> findTiedApplications(const CompactGraph& cg, const NodeHashes& hashes, const std::vector<char>& data,
                                            const std::vector<NodeId>& topo);

// Makes every copy of a tied group a segment of its own (FoldSegment::tied set), in its region's
// chain where the copy's first node was: the rest of that segment is split into what does not
// depend on the copies placed there (before them) and what does (after them). Groups whose copies
// have equal shapes and lie in separate segments are left alone: the tandem repeats see them.
void separateTiedApplications(const CompactGraph& cg, const NodeHashes& hashes, const std::vector<char>& data,
                              const std::vector<NodeId>& topo, Segmentation& seg);

} // namespace tapas
