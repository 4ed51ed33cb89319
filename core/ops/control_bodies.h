#pragma once
// The bodies a control-flow node (If, Loop, Scan) runs, as the enclosing graph lets us know them
// (shapes and values it passes in), and how many times: what pricing needs to cost the node by
// its body's own ops (core/cost/family_time) instead of by FLOPs alone.
#include "core/ir/graph.h"
#include "core/util/result.h"

#include <memory>
#include <string>
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

// The attribute assumeIfBranches sets on an If node: the branch pricing assumes ("then_branch" /
// "else_branch"). Pricing reads it; the executor still runs whichever branch the data picks.
inline constexpr const char* kAssumedBranchAttr = "tapas.assumed_branch";

// For pricing: the branch an If takes when its condition is known (ifTakenBranch), else the one
// the workload assumes (kAssumedBranchAttr); null when neither says (then both are
// alternatives and the dearer is priced). `assumed` tells which of the two answered.
const char* ifPricedBranch(const Graph& g, const Node& n, bool* assumed = nullptr);

// Records "NAME=then" / "NAME=else" (the `--assume-branch` option, repeatable) as the branch each
// named If is priced by: the workload's statement of which branch its data takes, for an If
// whose condition reads data. Refuses, naming it, an unknown node, a node that is not an If,
// an If whose condition is already known, and any other value.
Status assumeIfBranches(Graph& g, const std::vector<std::string>& specs);

} // namespace tapas
