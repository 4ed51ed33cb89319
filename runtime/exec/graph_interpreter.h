#pragma once
// INTERNAL to runtime/exec (includes torch): only the exec .cpp files include this header.
//
// Runs the graph IR forward on this rank's shards: each node's inputs are first brought to the
// layout its strategy needs (tp_collectives), a replicated float input of a node whose work is
// split passes Megatron's "f", then the op runs on torch (op_kernels). The reference run is the
// same interpreter with every node replicated and tp = 1.
#include "core/onnx/onnx_stored_data.h"
#include "runtime/exec/layout_analysis.h"
#include "runtime/exec/node_fusion.h"
#include "runtime/exec/node_profile.h"

#include <torch/torch.h>

#include <unordered_map>
#include <vector>

namespace tapas::runtime {

struct LocalValue {
    torch::Tensor t;
    TensorLayout layout;
    int k = 1; // interleave of a split layout
};

class GraphInterpreter {
public:
    // `g` must stay alive; its shapes are this rank's (batch already divided by dp).
    // `stored`: the values the model file holds (may be null): untrained weights (BatchNorm
    // statistics) and Constant nodes whose values the IR did not keep take them.
    // `fuse`: run the node chains findFusions() accepts as one torch function each (off: every
    // node on its own, as the tests compare).
    GraphInterpreter(const Graph& g, ExecLayouts layouts, int tpIndex, const StoredWeights* stored = nullptr,
                     bool fuse = true);

    const ExecLayouts& layouts() const { return L_; }
    const Graph& graph() const { return g_; }
    // The local shape of tensor t in `layout` (split dim / tp), empty when the IR does not know it.
    std::optional<std::vector<int64_t>> localShape(TensorId t, const TensorLayout& layout) const;

    // `params`: trainable weights by tensor id, in their storage layout. `feeds`: graph inputs.
    // Returns the graph outputs, partial ones reduced, split ones contiguous (interleave 1).
    // Throws std::runtime_error naming the node on failure.
    std::vector<LocalValue> forward(const std::unordered_map<TensorId, torch::Tensor>& params,
                                    const std::unordered_map<TensorId, torch::Tensor>& feeds) const;

    // One pipeline stage's part: runs the nodes with `runs[n]` set (all when empty) on `params`,
    // the graph inputs `feeds` and the tensors `received` from the stage before (in the layout
    // their producer made them), and returns the values of `wanted` as this rank holds them.
    // `recomputeCores` (selective recomputation): each attention core this call runs whole runs
    // checkpointed (region_checkpoint.h), so autograd keeps its inputs only and the backward
    // reruns it; the values are the same floats either way.
    std::vector<LocalValue> run(const std::unordered_map<TensorId, torch::Tensor>& params,
                                const std::unordered_map<TensorId, torch::Tensor>& feeds,
                                const std::unordered_map<TensorId, LocalValue>& received, const std::vector<char>& runs,
                                const std::vector<TensorId>& wanted, bool recomputeCores = false) const;
    // A graph output as the loss reads it: partial sums reduced over tp, interleaved splits made
    // contiguous (a tp collective).
    LocalValue finalOutput(LocalValue v) const;
    // Known on every rank without running a node: constants, values the importer computed,
    // untrained stored tensors.
    bool known(TensorId t) const { return constants_.count(t) != 0; }
    // The node chains this interpreter runs fused.
    const std::vector<FusedGroup>& fusions() const { return fusions_; }
    // The attention cores selective recomputation reruns (attentionCoreNodes, core/cost/pipeline_cost.h):
    // each a chain from the product of Q and K to the product with V.
    struct CoreRegion {
        std::vector<NodeId> nodes;     // in graph order; the region runs at its last node
        std::vector<char> runs;        // per node of the graph: in this region
        std::vector<TensorId> inputs;  // values it reads from outside (known constants excepted)
        std::vector<TensorId> outputs; // values read outside it (the context the product with V makes)
    };
    const std::vector<CoreRegion>& coreRegions() const { return cores_; }
    // How many of the regions lie wholly among the nodes with `runs[n]` set (all when empty).
    int coreRegionsIn(const std::vector<char>& runs) const;
    // Set: every run() also times each node it runs (node_profile.h) into `timings`; null: off.
    void setProfile(std::vector<NodeTiming>* timings) { profile_ = timings; }

private:
    torch::Tensor splitLikeOutput(NodeId n, const torch::Tensor& in) const;
    // Input i of node n brought to the layout the node's strategy needs (collectives, Megatron's f).
    torch::Tensor prepareInput(NodeId n, size_t i, const LocalValue& v) const;
    void findCoreRegions();
    const Graph& g_;
    ExecLayouts L_;
    int tpIndex_ = 0;
    std::unordered_map<TensorId, torch::Tensor> constants_; // known values, untrained weights
    std::vector<FusedGroup> fusions_;
    std::vector<int> fusedIn_; // per node: its group in fusions_, -1 when it runs alone
    std::vector<CoreRegion> cores_;
    std::vector<int> coreOf_; // per node: its region in cores_, -1 outside every one
    std::vector<NodeTiming>* profile_ = nullptr;
};

// The value an untrained stored tensor takes: BatchNorm running variance 1, masks of square
// last dims lower-triangular (causal buffers), other bools true, the rest 0.
torch::Tensor untrainedWeight(const Graph& g, TensorId t);

// Tensor t's value as the model file stores it, shaped as the IR has it (fp32); undefined when
// the file holds no data for it or its element count differs from the IR's shape.
torch::Tensor storedValue(const Graph& g, TensorId t, const StoredWeights* stored);

} // namespace tapas::runtime
