#pragma once
// Chains of ONNX nodes that exporters write for one torch function, which the worker runs as
// that function (runtime/exec/node_fusion) and the cost model prices as it (core/cost/family_time):
// the erf GELU (Div by sqrt 2, Erf, Add 1, Mul by x, Mul by 0.5), the decomposed LayerNorm
// (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, then an optional Mul by a scale and
// Add of a shift) and a MatMul whose only reader adds a bias (addmm).
//
// The structure is checked here: every intermediate is read by the chain alone and is no graph
// output, no intermediate is a value already known, the constants are the ones the function has
// (sqrt 2, 1, 0.5, exponent 2, a scalar eps, normalisation over the last axis). What a plan does
// to the chain's tensors (a collective inside it, the normalised axis split) is asked of a
// ChainLayouts; the default one says nothing stands in the way.
#include "core/ir/graph.h"

#include <optional>
#include <vector>

namespace tapas {

struct NodeChain {
    enum class Kind { Gelu, LayerNorm, MatMulBias };
    // Where an input from outside the chain enters it: the member node and its input index,
    // so the executor brings it to the layout that node needs, as it would unfused.
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

const char* chainName(NodeChain::Kind k); // "gelu", "layer_norm", "addmm"

// The layouts a plan gives the chain's tensors on a rank. Every answer true (and no split
// axis) means the plan keeps the chain whole: what the cost model assumes.
class ChainLayouts {
public:
    virtual ~ChainLayouts() = default;
    // Input `input` of node n is replicated where read (and, `whole`, not interleaved).
    virtual bool replicated(NodeId, size_t /*input*/, bool /*whole*/) const { return true; }
    // Tensor t leaves `from` and enters input `input` of `to` with no collective or permutation between.
    virtual bool handsOn(TensorId, NodeId /*from*/, NodeId /*to*/, size_t /*input*/) const { return true; }
    // Two ports reading the same tensor would be prepared alike.
    virtual bool sameEntry(const NodeChain::Port&, const NodeChain::Port&) const { return true; }
    // Every member's output keeps the layout `entry` comes in with.
    virtual bool keepsLayout(const std::vector<NodeId>& /*members*/, const NodeChain::Port& /*entry*/) const { return true; }
    // Input `input` of node n is split along its dimension `dim`.
    virtual bool splitAlong(NodeId, size_t /*input*/, int /*dim*/) const { return false; }
    // Nodes a and b write their first output in the same layout.
    virtual bool sameOutputLayout(NodeId, NodeId) const { return true; }
};

// The chains of `g`, none sharing a node. `known[t]` says which tensors hold a value without a
// node running (constants); empty: those the importer knows (Tensor::value).
std::vector<NodeChain> findNodeChains(const Graph& g, const std::vector<char>& known, const ChainLayouts& layouts = ChainLayouts());

} // namespace tapas
