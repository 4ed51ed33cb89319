#pragma once
// The graph a training step's memory is walked on: each If replaced by the nodes of the branch
// the cost model prices (its taken branch when the condition is known, the assumed one, else the
// one with more FLOPs), nested Ifs too. The worker runs an If's branch node by node
// (runtime/exec/subgraph_runner) and autograd records those nodes as if they were in the graph,
// so what they keep for the backward and the gradients their backward makes are the step's:
// Silero VAD's LSTM branch concatenates slices of its two 256 kB weight matrices into the W and
// R the LSTM reads, keeps W for the backward and, in the backward, makes a weight-sized
// gradient per slice. Seen as one opaque node, the If kept none of that.
//
// Loop and Scan stay one node (their bodies run a number of times the memory walk does not
// unroll; saved_activations keeps everything they read and write).
#include "core/ir/graph.h"

#include <vector>

namespace tapas {

struct InlinedBranches {
    // The outer graph's tensors keep their ids (0 .. outer tensors - 1); a branch's values follow.
    // An If's outputs are written by the branch node that makes them (or by an Identity of the
    // value the branch hands on).
    Graph graph;
    std::vector<NodeId> owner; // per node of `graph`: the node of the outer graph it runs for
    std::vector<char> inBranch; // per node of `graph`: part of an If's branch
    bool any = false;           // some If was replaced
};

InlinedBranches inlineIfBranches(const Graph& g);

} // namespace tapas
