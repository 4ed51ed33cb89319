#pragma once
// One more copy of an unrolled loop that the tandem repeats miss because some of its inputs are
// constants. RAFT's first flow update reads the initial coordinates, a constant grid: its
// coordinate arithmetic and flow branch are computed from constants only (meta nodes to the fold)
// and it reads a constant where the later iterations read the previous one's output, so it is not
// the same subgraph as iterations 2-12, which fold as a run of 11.
//
// What still makes it the same block to a person: it applies the same weights. So for a run whose
// copies read the same weight tensors (every copy, one set of weights: a loop), the applications of
// those weights outside the run are matched to the first copy, position by position: a reader of a
// tied weight (at the same input slot, of the same op) seeds the match, which grows along the
// wiring in both directions. It is kept only when every position matches: the same operation
// (op type, domain, attributes), the same output shapes, the same wiring inside the copy, the same
// weights and integer constants, and outside inputs of the same dtype and shape (a constant where
// the copy reads an activation is allowed: that is the point). The matched nodes become a block of
// their own, next to the run, ordered as the copy's positions; the run's copies and it are marked
// as one tied class (ChainMark::tied), so the fold tree counts them together while each block class
// keeps one structure for the search. Nothing here reads names or the file's node order.
#include "core/fold/block_plan.h"
#include "core/fold/compact_graph.h"
#include "core/fold/segmenter.h"
#include "core/fold/structural_hash.h"
#include "core/ir/graph.h"

#include <vector>

namespace tapas {

// `blocks` in chain order; copies of a run are the blocks with one ChainMark::run, one block per
// copy. Inserts each matched copy next to its run and removes its nodes from the blocks they were in.
void addTiedRunCopies(const CompactGraph& cg, const NodeHashes& hashes, const Segmentation& seg, std::vector<BlockPlan>& blocks);

} // namespace tapas
