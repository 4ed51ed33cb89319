#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files and their tests include it.
//
// Chains of ONNX nodes that exporters write for one torch function, run as that function: the
// erf GELU (Div by sqrt 2, Erf, Add 1, Mul by x, Mul by 0.5) as torch::gelu, the decomposed
// LayerNorm (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, then an optional Mul by a
// scale and Add of a shift) as torch::layer_norm, and a MatMul whose only reader adds a bias
// as addmm. Each interpreted node costs a dispatch, an autograd node and a pass over memory in
// the forward and in the backward; the fused function costs one of each.
//
// A chain is fused only when it cannot change what the graph computes on any rank: every
// intermediate is read by the chain alone and is no graph output, no intermediate is a value
// the importer already knows, the constants are the ones the function has (sqrt 2, 1, 0.5,
// exponent 2, a scalar eps, normalisation over the last axis), and the plan hands every
// intermediate on in the layout its reader needs (no collective inside the chain; LayerNorm's
// normalised axis not split, the MatMul's output not partial).
#include "core/ir/graph.h"
#include "runtime/exec/layout_analysis.h"

#include <torch/types.h>

#include <string>
#include <vector>

namespace tapas::runtime {

struct FusedGroup {
    enum class Kind { Gelu, LayerNorm, MatMulBias };
    // Where an input from outside the chain enters it: the member node and its input index,
    // so the interpreter brings it to the layout that node needs, as it would unfused.
    struct Port {
        TensorId tensor = kNoTensor;
        NodeId node = kNoNode;
        size_t input = 0;
    };
    Kind kind = Kind::Gelu;
    std::vector<NodeId> nodes;  // in graph order; the last one writes `output`
    std::vector<Port> inputs;   // Gelu: x; LayerNorm: x[, scale[, shift]]; MatMulBias: x, weight, bias
    TensorId output = kNoTensor;
    double epsilon = 0;         // LayerNorm
};

const char* fusionName(FusedGroup::Kind k); // "gelu", "layer_norm", "addmm"

// The chains of `g` that can run fused under `layouts` (node strategies, interleaves). `known`
// says which tensors the interpreter holds without running a node (its constants).
std::vector<FusedGroup> findFusions(const Graph& g, const ExecLayouts& layouts,
                                    const std::vector<char>& known);

// Runs a group on its prepared inputs (in `group.inputs` order); returns the output.
torch::Tensor runFusedGroup(const FusedGroup& group, const std::vector<torch::Tensor>& in);

} // namespace tapas::runtime
