#pragma once
// Compute time from the per-family rates a calibrated cluster carries (ClusterSpec::opFamilies):
// on a CPU rank a step is not FLOPs at one rate. Element-wise ops are bound by memory, small
// ops by dispatch and autograd, the weight update by Adam's passes over the weights; one
// rate per family, measured by `tapas cluster calibrate` through libtorch, prices each.
#include "core/cluster/cluster_spec.h"
#include "core/cost/torch_conv_kernel.h"
#include "core/ir/graph.h"
#include "core/ops/node_chains.h"
#include "core/ops/op_registry.h"

#include <optional>
#include <string>
#include <vector>

namespace tapas {

// Seconds for the forward and backward of one node of op family `family` doing `flops` and
// moving `bytes` (its share on this device), or nothing when the cluster has no rate for it.
// `unitFlops`: the FLOPs of one matrix product when the node runs several (a batched MatMul),
// which picks the family's rate by size (OpFamilyRate::flopRateAt); 0: `flops` is one product.
std::optional<double> familyComputeSeconds(const ClusterSpec& c, const std::string& family, double flops, double bytes,
                                           double unitFlops = 0);

// The FLOPs of one of the matrix products a MatMul, Gemm or fused addmm node runs on this
// device when it does `share` of `flops`: a MatMul whose operands both carry batch dimensions
// runs one product per batch entry (torch's bmm), any other one product (torch folds a
// [..., m, k] x [k, n] into one GEMM). A split is assumed to take the batch entries first.
double matmulUnitFlops(const Graph& g, const Node& n, double flops, double share);

// Seconds per collective call inside a training step beyond the link's alpha-beta time (the
// "collective" entry of the cluster's op families: what `tapas cluster calibrate` measured an
// all-reduce taking between torch ops, the peer's lateness included); 0 without one.
double collectiveOverheadSeconds(const ClusterSpec& c);

// A MatMul of two batched operands (rank >= 3) at least one of which a Transpose writes: the
// worker's torch::matmul gets a strided view (attention's Q, K^T, V as exporters lay them out),
// copies it and runs its backward's products on views too.
bool stridedBatchedMatMul(const Graph& g, const Node& n);

// The family node n of g is priced by on cluster c: its op's registry family, or a finer one the
// calibration measures apart because one rate does not fit the whole family, when c carries a
// rate for it (each falls back to the coarser one otherwise):
// - convolutions by what torch runs: "conv_depthwise" (a group per input channel; strided:
//   "conv_depthwise_strided", whose backward runs several times the unstrided one's time per
//   FLOP) and "conv_grouped" (other group > 1), "conv1d" (rank-3 input; "conv1d.onednn" where
//   torch runs it on oneDNN, torchConvRunsOneDnn), "conv_pointwise" (1x1 kernels: a GEMM without
//   unfold), "conv" for the rest ("conv.native" where torch runs its own kernel, not oneDNN's).
//   Which kernel torch runs depends on this device's share of the input (`localInput`, as
//   localConvInput gives it; empty: the whole input);
// - "max_pool", "global_pool" (GlobalAverage/GlobalMaxPool), "pool" (bound by bytes, not by
//   the convolutions' FLOPs);
// - "layer_norm" (torch's layer_norm with its affine gradients), "batchnorm" (the worker's
//   inference form: four broadcast ops and their backward, reducing the affine gradients);
// - "elementwise.<op>" for an element-wise op timed on its own (Clip, Max, HardSigmoid, ...); a
//   Max or Min of a tensor against a one-element constant runs as hardtanh (that family), one of
//   two or more tensors as torch's maximum / minimum: "elementwise.maximum" / "elementwise.minimum"
//   (the plain "elementwise" family without one: the hardtanh rate is several times too low).
// - "matmul_strided" for a stridedBatchedMatMul (per product several times the contiguous batched
//   cases of "matmul"; a file without that family prices these as "matmul").
// - "gather" for a Gather whose table takes a gradient (gatherFillsTable).
std::string pricingFamily(const ClusterSpec& c, const Graph& g, const Node& n, const std::vector<int64_t>& localInput = {});

// A Conv node's input as one device holds it: the batch (dim 0) over `batchShards` replicas and
// the dim the plan splits input 0 along (`split`, -1 for none) over `tp`. Empty when a dim is
// unknown or n is no Conv.
std::vector<int64_t> localConvInput(const Graph& g, const Node& n, int split, int tp, int batchShards);

// n's kernel geometry for torchConvRunsOneDnn, on input `input` (this device's share).
ConvShape convShapeOf(const Graph& g, const Node& n, std::vector<int64_t> input);

// A Gather from float data autograd takes a gradient of (an embedding table, or an activation):
// torch's index_select backward zero-fills a gradient the table's size and adds the rows in, so
// the table's bytes bound it, not the rows it reads.
bool gatherFillsTable(const Graph& g, const Node& n);

// A Max or Min of a float tensor against a one-element constant (tf2onnx's ReLU is Max(x, 0)): the
// worker runs it as one clamp (runtime/exec/kernels/elementwise_kernels, constantScalarBound)
// rather than torch's maximum / minimum over two tensors. The constant is a one-element value no
// gradient reaches (a folded value or a Constant/initializer that is not a trained weight).
bool boundAgainstConstant(const Graph& g, const Node& n);


// The node chains the worker runs as one torch function (core/ops/node_chains): a decomposed
// LayerNorm's nine nodes cost one layer_norm's dispatch and pass over memory, not nine. Found
// once per graph, on its structure alone (the plan is assumed to keep each chain whole).
struct PricedChains {
    std::vector<NodeChain> chains;
    std::vector<int> chainOf; // per node: its chain's index, -1 for none
};
PricedChains pricedChains(const Graph& g);

// Node n's forward and backward on a calibrated cluster, doing `share` of the work its cost rule
// counts (`cost`): familyComputeSeconds of its pricingFamily; 0 for a node the worker never runs
// (every output an integer value the importer folded); LSTM/GRU/RNN as the worker composes them,
// per time step and direction; If/Loop/Scan by the nodes of their body. Nothing when the cluster
// has no rate for it (the caller falls back to peak x efficiency). With `chains`, a node of a
// chain costs nothing but the chain's carrier, which prices the fused function: the last node
// for layer_norm at the "layer_norm" rate (normalization without one) and gelu at the "gelu"
// rate (elementwise without one), the MatMul for addmm at the matmul rate. `outputPartial`: the
// plan leaves n's output partial (a row-parallel MatMul); the worker then reduces it before
// the bias Add and fuses nothing, so an addmm's MatMul carries the MatMul and the Add unfused.
// `dataShare`: the fraction of its first input this device holds (a Gather's table, whose
// whole local gradient the backward fills, split or not by the batch); < 0: `share`.
// `localInput`: a Conv's input on this device (localConvInput), which decides torch's kernel.
// Every node the worker runs (a chain once, an If's or Loop's body node by node) also pays what
// running it inside a step adds beyond its kernels timed alone ("node_in_step", inStepSeconds).
std::optional<double> nodeFamilySeconds(const ClusterSpec& c, const Graph& g, const Node& n, const OpCost& cost, double share,
                                        const PricedChains* chains = nullptr, bool outputPartial = false, double dataShare = -1,
                                        const std::vector<int64_t>& localInput = {});

// Seconds the worker's step spends on graph tensor t beside the nodes, when this device draws
// `elements` of it: a float graph input is drawn from its seeded stream each step
// ("synthetic_input"), a float graph output gets a seeded target of its size and the MSE loss
// against it, forward and backward ("loss"; runtime/exec/plan_trainer). 0 for other tensors and
// on a cluster without those families (what a real data loader costs is not the model's).
double drawnTensorSeconds(const ClusterSpec& c, const Graph& g, TensorId t, double elements);

// What the calibration measured one more node ("node_in_step") or one more trained weight
// ("weight_in_step") costing inside a step beyond the families' prices (runtime/calibrate,
// chains of tiny nodes through the worker's interpreter): the interpreter's bookkeeping and
// autograd's pass over the whole graph per node; AccumulateGrad's add into the held gradient
// per weight. 0 on a cluster without that entry (GPU presets, older files).
double inStepSeconds(const ClusterSpec& c, const std::string& family);

// Seconds of the optimizer's update of one weight tensor of `paramBytes` (fp32 bytes held by this
// device); 0 when the cluster has no "optimizer" rate (GPU presets fold it into efficiency).
double optimizerSeconds(const ClusterSpec& c, double paramBytes);

} // namespace tapas
