#pragma once
// The bodies a control-flow node (If, Loop, Scan) runs, as the enclosing graph lets us know them
// (shapes and values it passes in), and how many times: what pricing needs to cost the node by
// its body's own ops (core/cost/family_time) instead of by FLOPs alone.
#include "core/ir/graph.h"

#include <memory>
#include <vector>

namespace tapas {

struct ControlBodies {
    // If: the branch it takes when its condition is known before it runs (branchKnown), else
    // its two branches (either may run; the dearer is priced). Loop and Scan: the body. Empty
    // for an op that is not control flow, or a body the node does not carry.
    std::vector<std::shared_ptr<const Graph>> alternatives;
    double runs = 1; // Loop: its constant trip count (1 when unknown); Scan: its scan length
    bool branchKnown = false;
};

ControlBodies controlBodies(const Graph& g, const Node& n);

// The attribute ("then_branch" / "else_branch") of the branch If node n takes when its condition
// is a value the importer knows (a constant, or shape arithmetic the shape pass folded, which
// the worker computes alike); null when only the run can tell (a condition on data).
const char* ifTakenBranch(const Graph& g, const Node& n);

} // namespace tapas
