#include "core/cost/gpu_roofline.h"

#include "core/ir/dtype.h"

#include <algorithm>
#include <cmath>

namespace tapas {

namespace {

// cuBLAS's tensor-core tile shapes on Ampere (m x n of the output a CTA computes), as NVIDIA's
// "Matrix Multiplication Background User's Guide" (sec. 2.3, "Typical Tile Dimensions In cuBLAS
// And Performance") lists them; it picks among them per GEMM, as gemmSeconds does.
struct Tile {
    double m, n;
};
constexpr Tile kTiles[] = {{256, 128}, {128, 256}, {128, 128}, {256, 64}, {64, 256}, {128, 64}, {64, 128}, {64, 64}};

// Elements of t, when its shape is known.
std::optional<double> elementsIfKnown(const Graph& g, TensorId t)
{
    if (t == kNoTensor || !g.tensor(t).shape.isFullyKnown()) return std::nullopt;
    return double(g.tensor(t).shape.numElementsOr(0));
}

std::optional<double> knownDim(const Shape& s, int fromEnd)
{
    if (!s.rankKnown || int(s.dims.size()) < fromEnd) return std::nullopt;
    const Dim& d = s.dims[s.dims.size() - size_t(fromEnd)];
    return d.isKnown() ? std::optional<double>(double(d.value)) : std::nullopt;
}

// The GEMM a MatMul or Gemm node runs: numpy's matmul broadcasting, a rank-2 operand folding
// the other's leading dims into m (a Linear layer is one [batch*seq x k] x [k x n] GEMM).
std::optional<RooflineOp> gemmOp(const Graph& g, const Node& n)
{
    if (n.inputs.size() < 2 || n.outputs.empty() || n.input(0) == kNoTensor || n.input(1) == kNoTensor) return std::nullopt;
    const Shape& a = g.tensor(n.input(0)).shape;
    const Shape& b = g.tensor(n.input(1)).shape;
    const Shape& out = g.tensor(n.outputs[0]).shape;
    if (!a.isFullyKnown() || !b.isFullyKnown() || !out.isFullyKnown() || a.rank() < 1 || b.rank() < 1) return std::nullopt;
    RooflineOp op;
    op.kind = RooflineOp::Kind::Gemm;
    op.outRank = int(out.rank());
    if (n.opType == "Gemm") {
        if (a.rank() != 2 || out.rank() != 2) return std::nullopt;
        op.dims = {1, double(out.dims[0].value), double(out.dims[1].value), double(a.dims[n.attrInt("transA", 0) ? 0 : 1].value)};
        op.batchInM = true;
        return op;
    }
    const double k = *knownDim(a, 1);
    const double cols = b.rank() >= 2 ? *knownDim(out, 1) : 1;       // n (1: matrix x vector)
    const double rows = a.rank() >= 2 ? *knownDim(a, 2) : 1;          // m (1: vector x matrix)
    double batch = double(out.numElementsOr(1)) / std::max(1.0, rows * cols);
    op.dims = {batch, rows, cols, k};
    if (b.rank() <= 2) { // a weight-like matrix: the leading dims of a are rows of one GEMM
        op.dims = {1, rows * batch, cols, k};
        op.batchInM = true;
    }
    return op;
}

bool foldedAway(const Graph& g, const Node& n)
{
    if (n.outputs.empty()) return false;
    for (TensorId t : n.outputs)
        if (t != kNoTensor && (!g.tensor(t).value || !g.tensor(t).value->isInteger())) return false;
    return true;
}

// A Transpose read only by GEMMs is no kernel: cuBLAS reads either operand transposed (its transa
// and transb) and a batch of them at a stride, which is how Megatron-LM runs the attention's
// products on views of its [s, b*heads, d] tensors (baddbmm/bmm on transposed views) and its
// tied LM head (F.linear on word_embeddings.weight, the table as stored).
bool readOnlyByGemms(const Graph& g, const Node& n)
{
    if (n.opType != "Transpose" || n.outputs.empty() || n.outputs[0] == kNoTensor) return false;
    const std::vector<NodeId>& readers = g.tensor(n.outputs[0]).consumers;
    if (readers.empty()) return false;
    for (NodeId r : readers)
        if (g.node(r).opType != "MatMul" && g.node(r).opType != "Gemm") return false;
    return true;
}

// The single reader of t, or kNoNode.
NodeId onlyReader(const Graph& g, TensorId t)
{
    if (t == kNoTensor || g.tensor(t).consumers.size() != 1) return kNoNode;
    return g.tensor(t).consumers.front();
}

bool isScalarConstant(const Graph& g, TensorId t)
{
    return t != kNoTensor && g.tensor(t).value && g.tensor(t).shape.isFullyKnown() && g.tensor(t).shape.numElementsOr(0) == 1;
}

// Megatron-LM's attention core runs as two GEMMs around one fused kernel (megatron/model/
// transformer.py, fused_softmax.py; --masked-softmax-fusion on by default):
// - the scores' scale is the score GEMM's alpha (torch.baddbmm(..., alpha=1/norm_factor)): a Div
//   or Mul by a scalar constant whose input a MatMul alone produced is no pass of its own;
// - the mask is applied inside the softmax kernel (ScaledUpperTriangMaskedSoftmax for a causal
//   mask, ScaledMaskedSoftmax reading a padding mask): a Where or Add read only by a Softmax is no
//   pass of its own, and the Softmax's pass over the scores is the fused kernel's.
bool scaleInGemm(const Graph& g, const Node& n)
{
    if ((n.opType != "Div" && n.opType != "Mul") || n.inputs.size() != 2 || n.outputs.empty()) return false;
    if (!isScalarConstant(g, n.input(1))) return false;
    const NodeId p = n.input(0) == kNoTensor ? kNoNode : g.tensor(n.input(0)).producer;
    return p != kNoNode && g.node(p).opType == "MatMul" && onlyReader(g, n.input(0)) != kNoNode;
}

bool maskInSoftmax(const Graph& g, const Node& n)
{
    if ((n.opType != "Where" && n.opType != "Add") || n.outputs.empty()) return false;
    const NodeId r = onlyReader(g, n.outputs[0]);
    return r != kNoNode && g.node(r).opType == "Softmax";
}

// A Split whose every part only Reshapes read: Megatron-LM splits its packed QKV into views
// (split_tensor_along_last_dim) that the attention's GEMMs read at a stride, no copy.
bool splitIntoViews(const Graph& g, const Node& n)
{
    if (n.opType != "Split" || n.outputs.empty()) return false;
    for (TensorId t : n.outputs) {
        if (t == kNoTensor || g.tensor(t).consumers.empty()) return false;
        for (NodeId r : g.tensor(t).consumers)
            if (g.node(r).opType != "Reshape") return false;
    }
    return true;
}

// A training-mode Dropout (ONNX: training_mode a constant true); without it Dropout is the identity.
bool trainingDropout(const Graph& g, const Node& n)
{
    if (n.opType != "Dropout" || n.inputs.size() < 3 || n.input(2) == kNoTensor) return false;
    const Tensor& mode = g.tensor(n.input(2));
    return mode.value && mode.value->size() == 1 && mode.value->intAt(0) != 0;
}

// The cost rules count bytes in the graph's dtype (an fp32 export); a step runs in the compute
// dtype. Scaled by the node's first floating tensor (the bulk of what it moves).
double bytesScale(const Graph& g, const Node& n, double elemBytes)
{
    for (const std::vector<TensorId>* list : {&n.outputs, &n.inputs})
        for (TensorId t : *list)
            if (t != kNoTensor && dtypeIsFloating(g.tensor(t).dtype)) return elemBytes / dtypeBytes(g.tensor(t).dtype);
    return 1;
}

} // namespace

std::optional<GpuRoofline> gpuRoofline(const ClusterSpec& c, const std::string& dtype)
{
    if (!c.roofline.enabled() || !c.opFamilies.empty()) return std::nullopt;
    GpuRoofline r;
    r.peakFlops = c.peakFlops(dtype);
    r.efficiency = c.efficiency;
    r.memoryBandwidth = c.roofline.memoryBandwidth;
    r.l2Bandwidth = c.roofline.l2Bandwidth;
    r.multiprocessors = c.roofline.multiprocessors;
    r.elemBytes = dtype == "fp32" ? 4 : 2;
    if (r.peakFlops <= 0) return std::nullopt;
    return r;
}

double gemmSeconds(const GpuRoofline& r, const GemmDims& d)
{
    const double flops = 2 * d.batch * d.m * d.n * d.k;
    if (flops <= 0) return 0;
    const double sustained = r.peakFlops * r.efficiency;
    double math = 1e300;
    for (const Tile& t : kTiles) {
        // Per K step a tile loads (tm + tn) elements for 2 tm tn FLOPs; every SM's tiles load
        // through the L2 at once.
        const double intensity = 2 * t.m * t.n / ((t.m + t.n) * r.elemBytes);
        const double rate = r.l2Bandwidth > 0 ? std::min(sustained, intensity * r.l2Bandwidth) : sustained;
        const double tiles = std::ceil(d.m / t.m) * std::ceil(d.n / t.n) * std::ceil(d.batch);
        const double slots = r.multiprocessors > 0 ? std::ceil(tiles / r.multiprocessors) * r.multiprocessors : tiles;
        math = std::min(math, slots * 2 * t.m * t.n * d.k / rate);
    }
    const double bytes = d.batch * (d.m * d.k + d.k * d.n + d.m * d.n) * r.elemBytes;
    return std::max(math, bytes / r.memoryBandwidth);
}

double gemmPeakFraction(const GpuRoofline& r, const GemmDims& d)
{
    const double s = gemmSeconds(r, d);
    return s > 0 ? 2 * d.batch * d.m * d.n * d.k / s / r.peakFlops : 0;
}

double streamSeconds(const GpuRoofline& r, double flops, double bytes)
{
    return std::max(flops / (r.peakFlops * r.efficiency), bytes / r.memoryBandwidth);
}

double optimizerStepSeconds(const GpuRoofline& r, double params)
{
    return r.memoryBandwidth > 0 ? params * kMixedPrecisionAdamBytesPerParam / r.memoryBandwidth : 0;
}

double crossEntropySeconds(const GpuRoofline& r, double logits)
{
    return r.memoryBandwidth > 0 ? logits * kFp32CrossEntropyBytesPerLogit / r.memoryBandwidth : 0;
}

std::vector<RooflineOp> rooflineOps(const Graph& g, const PricedChains& chains, double elemBytes)
{
    std::vector<RooflineOp> ops(g.nodes.size());
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const Node& n = g.node(id);
        RooflineOp& op = ops[size_t(id)];
        const int chain = size_t(id) < chains.chainOf.size() ? chains.chainOf[size_t(id)] : -1;
        if (foldedAway(g, n) || readOnlyByGemms(g, n) || scaleInGemm(g, n) || maskInSoftmax(g, n) || splitIntoViews(g, n) ||
            (n.opType == "Dropout" && !trainingDropout(g, n))) {
            op.kind = RooflineOp::Kind::Free;
        } else if (n.opType == "Dropout") {
            // torch's fused dropout reads x and writes its output and a one-byte keep mask (the
            // backward reads the mask and the gradient, writes the gradient). Before a residual Add
            // (Megatron-LM's bias_dropout_add, --bias-dropout-fusion on by default) it is one
            // kernel with the Add: only the mask is its own.
            const double elems = elementsIfKnown(g, n.input(0)).value_or(0);
            const NodeId r = n.outputs.empty() ? kNoNode : onlyReader(g, n.outputs[0]);
            const bool intoAdd = r != kNoNode && g.node(r).opType == "Add";
            op.kind = RooflineOp::Kind::Fused;
            op.bytes = elems * (intoAdd ? 1 : 2 * elemBytes + 1);
        } else if (chain >= 0 && chains.chains[size_t(chain)].kind != NodeChain::Kind::MatMulBias) {
            const NodeChain& c = chains.chains[size_t(chain)];
            op.kind = RooflineOp::Kind::Free;
            if (c.nodes.back() == id) { // the fused kernel: one pass over its input and output
                op.kind = RooflineOp::Kind::Fused;
                op.bytes = (elementsIfKnown(g, c.inputs.front().tensor).value_or(0) + elementsIfKnown(g, c.output).value_or(0)) * elemBytes;
            }
        } else if (chain >= 0 && chains.chains[size_t(chain)].nodes.front() != id) {
            op.kind = RooflineOp::Kind::Free; // the bias add: the GEMM's epilogue
        } else if (n.opType == "MatMul" || n.opType == "Gemm") {
            if (std::optional<RooflineOp> gemm = gemmOp(g, n)) op = *gemm;
            else op.bytes = bytesScale(g, n, elemBytes);
        } else {
            op.bytes = bytesScale(g, n, elemBytes);
        }
    }
    return ops;
}

double rooflineForwardSeconds(const GpuRoofline& r, const RooflineOp& op, const OpCost& cost, const OpStrategy& s,
                              double batchShards)
{
    const double share = s.computeFraction / batchShards;
    switch (op.kind) {
    case RooflineOp::Kind::Free: return 0;
    case RooflineOp::Kind::Fused: return streamSeconds(r, 0, op.bytes * share);
    case RooflineOp::Kind::Stream: return streamSeconds(r, cost.flops * share, (cost.bytesRead + cost.bytesWritten) * op.bytes * share);
    case RooflineOp::Kind::Gemm: break;
    }
    GemmDims d = op.dims;
    (op.batchInM ? d.m : d.batch) /= batchShards;
    if (s.computeFraction < 1 && s.computeFraction > 0) {
        const double ways = 1 / s.computeFraction;
        const TensorLayout out = s.outputs.empty() ? TensorLayout{} : s.outputs.front();
        if (out.kind == TensorLayout::S) {
            const int dim = out.dim < 0 ? out.dim + op.outRank : out.dim;
            if (dim == op.outRank - 1) d.n /= ways;
            else if (dim == op.outRank - 2 || op.batchInM) d.m /= ways;
            else d.batch /= ways;
        } else {
            d.k /= ways; // each device sums a slice of k: a partial output
        }
    }
    return gemmSeconds(r, d);
}

} // namespace tapas
