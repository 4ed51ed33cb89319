// Normalisations and Softmax. All keep the input's shape; what differs is the statistics outputs
// and the per-element FLOPs, fixed here (forward pass):
//   BatchNormalization (inference, fixed statistics): 4 — subtract mean, multiply by the
//     inverse std, scale, shift.
//   LayerNormalization / InstanceNormalization / GroupNormalization / MeanVarianceNormalization:
//     8 — mean (1), centre (1), square and sum for the variance (2), normalise (2), scale and
//     shift (2).
//   Softmax / LogSoftmax: 5 — running max, subtract, exp, sum, divide (or log-subtract).
//   Hardmax / LpNormalization: 2 — one pass to reduce, one to write.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"

namespace tapas {
namespace {
using namespace ops;

std::function<OpCost(const Graph&, const Node&)> perElement(double flops)
{
    return [flops](const Graph& g, const Node& n) { return costWithFlops(g, n, flops * inElems(g, n, 0)); };
}

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

} // namespace

void registerNormalizationOps(OpRegistry& r)
{
    r.add({"BatchNormalization", batchNormRule, perElement(4)});
    r.add({"LayerNormalization", layerNormRule, perElement(8)});
    addAll(r, {"InstanceNormalization", "GroupNormalization", "MeanVarianceNormalization"}, sameAsInput0, perElement(8));
    addAll(r, {"Softmax", "LogSoftmax"}, sameAsInput0, perElement(5));
    addAll(r, {"Hardmax", "LpNormalization"}, sameAsInput0, perElement(2));
}

} // namespace tapas
