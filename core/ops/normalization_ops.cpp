// Normalisations and Softmax. All keep the input's shape; what differs is the statistics outputs
// and the per-element FLOPs, fixed here (forward pass):
//   BatchNormalization (inference, fixed statistics): 4 — subtract mean, multiply by the
//     inverse std, scale, shift.
//   LayerNormalization / InstanceNormalization / GroupNormalization / MeanVarianceNormalization:
//     8 — mean (1), centre (1), square and sum for the variance (2), normalise (2), scale and
//     shift (2).
//   Softmax / LogSoftmax: 5 — running max, subtract, exp, sum, divide (or log-subtract).
//   Hardmax / LpNormalization: 2 — one pass to reduce, one to write.
//   LRN: 1 (as an activation).
//   SkipLayerNormalization (com.microsoft): 10 — the skip and bias adds, then a LayerNorm.
//   SimplifiedLayerNormalization (com.microsoft, RMSNorm): 6 — square and sum (2), normalise
//     (2), scale (1), one more for the root.
// Sharding: a split of any dim that is not normalised over passes through; a normalised dim
// cannot be split (its statistics would be partial), so the search gathers it first.
// BatchNorm/InstanceNorm/LRN follow a batch or channel split, with per-channel parameters.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

namespace tapas {
namespace {
using namespace ops;

void batchNormRule(ShapeContext& c)
{
    sameAsInput0(c);
    // Training mode (opset 14+) adds running mean/var; older opsets also saved mean/var. All [C].
    const Shape& x = c.inShape(0);
    for (size_t i = 1; i < c.numOutputs(); ++i) {
        c.setOutType(i, c.inType(0));
        if (x.rank() >= 2) c.setOutShape(i, Shape::ofDims({x.dims[1]}));
    }
}

void layerNormRule(ShapeContext& c)
{
    sameAsInput0(c);
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    auto axis = normAxis(c.node().attrInt("axis", -1), x.rank());
    if (!axis) return;
    // Mean and InvStdDev keep the leading dims and reduce the normalised ones to 1.
    Shape stats = x;
    for (size_t i = size_t(*axis); i < stats.dims.size(); ++i) stats.dims[i] = Dim::known(1);
    const DType stash = dtypeFromOnnx(int32_t(c.node().attrInt("stash_type", 1)));
    for (size_t i = 1; i < c.numOutputs() && i < 3; ++i) {
        c.setOutType(i, stash);
        c.setOutShape(i, stats);
    }
}

std::vector<OpStrategy> softmaxStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    return elementwiseStrategies(c, {shardAxis(c.node.attrInt("axis", -1), r)});
}

// LayerNormalization normalises dims [axis, rank): those cannot be split; its scale and bias
// cover exactly those dims, so they stay replicated.
std::vector<OpStrategy> layerNormStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int> excluded;
    for (int d = shardAxis(c.node.attrInt("axis", -1), r); d < r; ++d) excluded.push_back(d);
    std::vector<OpStrategy> out = elementwiseStrategies(c, excluded);
    for (OpStrategy& s : out) {
        for (size_t i = 1; i < s.inputs.size(); ++i) s.inputs[i] = TensorLayout::replicated();
        for (size_t o = 1; o < s.outputs.size(); ++o) s.outputs[o] = s.outputs[0]; // mean/invstd keep the split
    }
    return out;
}

// SkipLayerNormalization (com.microsoft): input + skip (+ bias), normalised over the last dim;
// outputs Y, then optional mean and inverse std dev ([..., 1], float) and the sum before the norm.
void skipLayerNormRule(ShapeContext& c)
{
    sameAsInput0(c);
    const Shape& x = c.inShape(0);
    if (c.numOutputs() > 3) {
        c.setOutType(3, c.inType(0));
        c.setOutShape(3, x);
    }
    if (!x.rankKnown || x.dims.empty()) return;
    Shape stats = x;
    stats.dims.back() = Dim::known(1);
    for (size_t i = 1; i < c.numOutputs() && i < 3; ++i) {
        c.setOutType(i, DType::Float32);
        c.setOutShape(i, stats);
    }
}

} // namespace

void registerNormalizationOps(OpRegistry& r)
{
    OpDef batchNorm{"BatchNormalization", batchNormRule, perInputFlops(4), channelwiseStrategies};
    batchNorm.bufferInputs = {3, 4}; // running mean and variance
    r.add(std::move(batchNorm));
    r.add({"InstanceNormalization", sameAsInput0, perInputFlops(8), channelwiseStrategies});
    r.add({"LRN", sameAsInput0, perOutputFlops(1), channelwiseStrategies});
    r.add({"LayerNormalization", layerNormRule, perInputFlops(8), layerNormStrategies});
    r.add({"SimplifiedLayerNormalization", layerNormRule, perInputFlops(6), layerNormStrategies});
    r.add({"SkipLayerNormalization", skipLayerNormRule, perInputFlops(10), layerNormStrategies});
    addAll(r, {"GroupNormalization", "MeanVarianceNormalization"}, sameAsInput0, perInputFlops(8),
           Sharding::replicated("normalises over channel groups or chosen axes; no rule for which dims may split yet"));
    addAll(r, {"Softmax", "LogSoftmax"}, sameAsInput0, perInputFlops(5), softmaxStrategies);
    addAll(r, {"Hardmax", "LpNormalization"}, sameAsInput0, perInputFlops(2),
           Sharding::replicated("no rule for the reduced axis yet"));
}

} // namespace tapas
