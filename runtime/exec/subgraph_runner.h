#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// Runs the body of a control-flow node (If's branch, Loop's body) on this rank. The plan shards
// the main graph only, so a body always runs whole: every node replicated, tp 1, each op through
// the same kernel table as the main graph (a nested If recurses here). Autograd records the ops,
// so gradients flow through the branch taken and every iteration of a loop.
#include "core/ir/graph.h"

#include <torch/types.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace tapas::runtime {

// `formal` feeds body.inputs in order (Loop: iteration number, condition, carried values);
// `outer` the values the body reads from enclosing scopes, by name. Returns body.outputs.
// Errors name the body's node and the node that owns the body (`owner`).
std::vector<torch::Tensor> runSubgraph(const Graph& body, const std::vector<torch::Tensor>& formal,
                                       const std::unordered_map<std::string, torch::Tensor>& outer,
                                       const std::string& owner);

// The values node n's body reads from the enclosing scope: its implicit inputs by name.
std::unordered_map<std::string, torch::Tensor> outerValues(const Graph& g, const Node& n,
                                                           const std::vector<torch::Tensor>& in);

} // namespace tapas::runtime
