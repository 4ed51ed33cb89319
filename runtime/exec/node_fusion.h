#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files and their tests include it.
//
// The chains core/ops/node_chains finds, run as one torch function each (torch::gelu,
// torch::layer_norm, addmm). Each interpreted node costs a dispatch, an autograd node and a pass
// over memory in the forward and in the backward; the fused function costs one of each.
//
// A chain is fused only when it cannot change what the graph computes on any rank: besides its
// structure, the plan hands every intermediate on in the layout its reader needs (no collective
// inside the chain; LayerNorm's normalised axis not split, the MatMul's output not partial).
#include "core/ir/graph.h"
#include "core/ops/node_chains.h"
#include "runtime/exec/layout_analysis.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace tapas::runtime {

// The chain's structure lives in core (core/ops/node_chains), where the cost model prices it.
using FusedGroup = NodeChain;

const char* fusionName(FusedGroup::Kind k); // "gelu", "layer_norm", "addmm"

// The chains of `g` that can run fused under `layouts` (node strategies, interleaves). `known`
// says which tensors the interpreter holds without running a node (its constants).
std::vector<FusedGroup> findFusions(const Graph& g, const ExecLayouts& layouts,
                                    const std::vector<char>& known);

// Runs a group on its prepared inputs (in `group.inputs` order); returns the output.
torch::Tensor runFusedGroup(const FusedGroup& group, const std::vector<torch::Tensor>& in);

} // namespace tapas::runtime
