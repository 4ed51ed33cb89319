#pragma once
// Control-flow bodies (If's then_branch/else_branch, Loop's and Scan's body) as graphs of their
// own. The planner sees a control-flow node as one node; the executor runs its bodies.
//
// How the importer keeps them on the node (core/onnx/onnx_convert): a Kind::Graph attribute's
// `strings` hold its bodies, each a serialized ModelProto with the body as its graph and the
// file's opsets (shape inference already run, weight bytes dropped as elsewhere), and its `i`
// is the count of the node's own ONNX inputs. The node's inputs after those are its implicit
// inputs: one per value its bodies read from the enclosing scope, by name, so the main graph's
// producers, consumers, plan and trainable weights see what the bodies use.
#include "core/ir/graph.h"

#include <memory>
#include <string_view>
#include <vector>

namespace tapas {

// The node's own inputs (before its implicit ones); all of them for a node without bodies.
size_t formalInputs(const Node& n);

// The body in attribute `attr` (the first when it holds several), converted once and shared
// (the same bytes give the same graph). Null when absent or unreadable. In the body, a tensor
// read from the enclosing scope is one without a producer and not among its inputs.
std::shared_ptr<const Graph> subgraphOf(const Node& n, std::string_view attr);

// Every body of n, in attribute order.
std::vector<std::shared_ptr<const Graph>> subgraphsOf(const Node& n);

} // namespace tapas
