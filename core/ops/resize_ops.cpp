// Resize/Upsample and DepthToSpace/SpaceToDepth: spatial rescaling ops. Resize follows a batch
// or channel split (it rescales the spatial dims only).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <cmath>

namespace tapas {
namespace {
using namespace ops;

// out = floor(in * scale), exact for symbolic sizes when the scale is a whole number.
Dim scaledDim(const Dim& in, double scale)
{
    if (in.isKnown()) {
        const int64_t out = toInt64(std::floor(double(in.value) * scale));
        return out >= 0 ? Dim::known(out) : Dim::unknown();
    }
    if (scale == std::floor(scale) && scale >= 1 && scale < 1e9) return mulDim(in, Dim::known(int64_t(scale)));
    return Dim::unknown();
}

std::optional<std::vector<double>> floatsOf(const ConstValue* v)
{
    if (!v || v->size() == 0) return std::nullopt;
    std::vector<double> out;
    for (size_t i = 0; i < size_t(v->size()); ++i) out.push_back(v->floatAt(i));
    return out;
}

void resizeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    const int rank = x.rank();
    const bool isResize = c.node().opType == "Resize";
    // Opset 11+: (X, roi, scales, sizes); opset 10 Resize and Upsample 9: (X, scales).
    const size_t scalesInput = isResize && c.numInputs() >= 3 ? 2 : 1;
    std::vector<int> axes;
    for (int64_t a : c.node().attrInts("axes")) {
        auto n = normAxis(a, rank);
        if (!n) return;
        axes.push_back(*n);
    }
    if (axes.empty())
        for (int i = 0; i < rank; ++i) axes.push_back(i);
    Shape out = x;
    if (isResize && c.hasInput(3)) {
        auto sizes = c.inElements(3);
        if (!sizes || sizes->size() != axes.size()) {
            for (int a : axes) out.dims[size_t(a)] = Dim::unknown();
        } else {
            // keep_aspect_ratio_policy (opset 18) rescales sizes; only "stretch" is exact here.
            const bool stretch = c.node().attrString("keep_aspect_ratio_policy", "stretch") == "stretch";
            for (size_t i = 0; i < axes.size(); ++i)
                out.dims[size_t(axes[i])] = stretch ? (*sizes)[i].toDim() : Dim::unknown();
        }
        c.setOutShape(0, out);
        return;
    }
    std::optional<std::vector<double>> scales;
    if (c.hasInput(scalesInput)) scales = floatsOf(c.inValue(scalesInput));
    else if (const Attribute* a = c.node().attr("scales")) scales = a->floats;
    if (!scales || scales->size() != axes.size()) {
        for (int a : axes) out.dims[size_t(a)] = Dim::unknown();
    } else {
        for (size_t i = 0; i < axes.size(); ++i) out.dims[size_t(axes[i])] = scaledDim(x.dims[size_t(axes[i])], (*scales)[i]);
    }
    c.setOutShape(0, out);
}

// Per output element: 1 for nearest, 4 for (bi)linear (a weighted sum of neighbours),
// 16 for cubic (4 taps per dim in 2-D).
OpCost resizeCost(const Graph& g, const Node& n)
{
    const std::string mode = n.attrString("mode", "nearest");
    const double perOut = mode == "linear" || mode == "bilinear" ? 4.0 : mode == "cubic" ? 16.0 : 1.0;
    return costWithFlops(g, n, outElems(g, n) * perOut);
}

void depthToSpaceRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    const int64_t b = c.node().attrInt("blocksize", 0);
    if (x.rank() != 4 || b <= 0 || b >= (int64_t(1) << 31)) return;
    const Dim bb = Dim::known(b);
    if (c.node().opType == "DepthToSpace")
        c.setOutShape(0, Shape::ofDims({x.dims[0], divDim(x.dims[1], Dim::known(b * b)), mulDim(x.dims[2], bb), mulDim(x.dims[3], bb)}));
    else
        c.setOutShape(0, Shape::ofDims({x.dims[0], mulDim(x.dims[1], Dim::known(b * b)), divDim(x.dims[2], bb), divDim(x.dims[3], bb)}));
}

OpCost movementCost(const Graph& g, const Node& n) { return costWithFlops(g, n, 0); }

} // namespace

void registerResizeOps(OpRegistry& r)
{
    addAll(r, {"Resize", "Upsample"}, resizeRule, resizeCost, channelwiseStrategies);
    addAll(r, {"DepthToSpace", "SpaceToDepth"}, depthToSpaceRule, movementCost,
           Sharding::replicated("moves data between the channel and spatial dims; no rule for that yet"));
}

} // namespace tapas
