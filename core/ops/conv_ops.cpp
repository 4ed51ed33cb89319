// Conv, ConvTranspose and pooling: output sizes with pads/strides/dilations/auto_pad/ceil_mode,
// FLOPs (a multiply-add counts 2; pooling counts one op per kernel tap) and sharding.
// Convolutions split the batch, the output channels (weight dim 0), or the input channels
// (weight dim 1, output partial); pooling follows a batch or channel split.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <algorithm>

namespace tapas {
namespace {
using namespace ops;

// The window geometry of a conv or pool node over `spatial` dims.
struct Window {
    std::vector<int64_t> kernel, strides, dilations, pads, outputPadding;
    std::string autoPad;
    bool ceilMode = false;
};

std::optional<Window> windowOf(const Node& n, size_t spatial, const Shape* weight)
{
    Window w;
    w.kernel = n.attrInts("kernel_shape");
    if (w.kernel.empty() && weight && weight->rank() == int(spatial) + 2) {
        for (size_t i = 0; i < spatial; ++i) {
            if (!weight->dims[i + 2].isKnown()) return std::nullopt;
            w.kernel.push_back(weight->dims[i + 2].value);
        }
    }
    if (w.kernel.size() != spatial) return std::nullopt;
    w.strides = n.attrInts("strides");
    w.dilations = n.attrInts("dilations");
    w.pads = n.attrInts("pads");
    w.outputPadding = n.attrInts("output_padding");
    if (w.strides.empty()) w.strides.assign(spatial, 1);
    if (w.dilations.empty()) w.dilations.assign(spatial, 1);
    if (w.pads.empty()) w.pads.assign(2 * spatial, 0);
    if (w.outputPadding.empty()) w.outputPadding.assign(spatial, 0);
    if (w.strides.size() != spatial || w.dilations.size() != spatial || w.pads.size() != 2 * spatial
        || w.outputPadding.size() != spatial)
        return std::nullopt;
    // Hostile files: every window parameter positive (pads non-negative) and below 2^31, so the
    // size arithmetic below cannot overflow.
    constexpr int64_t kMax = int64_t(1) << 31;
    auto inRange = [&](const std::vector<int64_t>& v, int64_t lo) {
        return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x >= lo && x < kMax; });
    };
    if (!inRange(w.kernel, 1) || !inRange(w.strides, 1) || !inRange(w.dilations, 1) || !inRange(w.pads, 0)
        || !inRange(w.outputPadding, 0))
        return std::nullopt;
    w.autoPad = n.attrString("auto_pad", "NOTSET");
    w.ceilMode = n.attrInt("ceil_mode", 0) != 0;
    return w;
}

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -ceilDiv(-a, b); }

Dim windowOut(const Dim& in, const Window& w, size_t i)
{
    const int64_t s = w.strides[i];
    const int64_t eff = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t padB = w.pads[i], padE = w.pads[i + w.kernel.size()];
    const bool same = w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER";
    const bool valid = w.autoPad == "VALID";
    if (!in.isKnown()) {
        // A symbolic size survives only where the window maps it onto itself.
        if (s == 1 && (same || (!valid && padB + padE == eff - 1) || (valid && eff == 1))) return in;
        return Dim::unknown();
    }
    if (in.value >= (int64_t(1) << 60)) return Dim::unknown();
    const int64_t x = in.value;
    if (same) return Dim::known(ceilDiv(x, s));
    if (valid) return Dim::known(std::max<int64_t>(0, floorDiv(x - eff, s) + 1));
    const int64_t span = x + padB + padE - eff;
    int64_t out = (w.ceilMode ? ceilDiv(span, s) : floorDiv(span, s)) + 1;
    // As PyTorch and the runtimes do: the last window must start inside the input or left pad.
    if (w.ceilMode && (out - 1) * s >= x + padB) --out;
    return Dim::known(std::max<int64_t>(0, out));
}

void convRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    const Shape& wt = c.inShape(1);
    if (x.rank() < 3) return;
    const size_t spatial = x.dims.size() - 2;
    auto w = windowOf(c.node(), spatial, &wt);
    Shape out = Shape::ofDims({x.dims[0], wt.rank() == int(spatial) + 2 ? wt.dims[0] : Dim::unknown()});
    for (size_t i = 0; i < spatial; ++i) out.dims.push_back(w ? windowOut(x.dims[i + 2], *w, i) : Dim::unknown());
    c.setOutShape(0, out);
}

double prodKernel(const Node& n, const Shape& weight)
{
    double k = 1;
    for (size_t i = 2; i < weight.dims.size(); ++i) k *= weight.dims[i].isKnown() ? double(weight.dims[i].value) : 1.0;
    if (weight.rank() < 3)
        for (int64_t v : n.attrInts("kernel_shape")) k *= double(v);
    return k;
}

// 2·N·Cout·Hout·Wout·(Cin/group)·Kh·Kw, plus one add per output for the bias.
OpCost convCost(const Graph& g, const Node& n)
{
    const Shape& wt = shapeOf(g, n.input(1));
    const double cinPerGroup = wt.rank() >= 2 && wt.dims[1].isKnown() ? double(wt.dims[1].value) : 1.0;
    const double outs = outElems(g, n);
    const double bias = n.input(2) != kNoTensor ? outs : 0.0;
    return costWithFlops(g, n, 2.0 * outs * cinPerGroup * prodKernel(n, wt) + bias);
}

void convTransposeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    const Shape& wt = c.inShape(1);
    if (x.rank() < 3) return;
    const size_t spatial = x.dims.size() - 2;
    const int64_t group = c.node().attrInt("group", 1);
    const Dim cout = wt.rank() == int(spatial) + 2 ? mulDim(wt.dims[1], dimOf(group)) : Dim::unknown();
    Shape out = Shape::ofDims({x.dims[0], cout});
    std::vector<int64_t> explicitOut = c.node().attrInts("output_shape");
    if (explicitOut.size() == spatial + 2) explicitOut.erase(explicitOut.begin(), explicitOut.begin() + 2);
    auto w = windowOf(c.node(), spatial, &wt);
    for (size_t i = 0; i < spatial; ++i) {
        const Dim& in = x.dims[i + 2];
        if (explicitOut.size() == spatial) {
            out.dims.push_back(dimOf(explicitOut[i]));
        } else if (!w || !in.isKnown() || in.value >= (int64_t(1) << 31)) {
            out.dims.push_back(Dim::unknown());
        } else if (w->autoPad == "SAME_UPPER" || w->autoPad == "SAME_LOWER") {
            out.dims.push_back(Dim::known(in.value * w->strides[i]));
        } else {
            const int64_t eff = (w->kernel[i] - 1) * w->dilations[i] + 1;
            const int64_t pads = w->autoPad == "VALID" ? 0 : w->pads[i] + w->pads[i + spatial];
            const int64_t size = w->strides[i] * (in.value - 1) + w->outputPadding[i] + eff - pads;
            out.dims.push_back(size >= 0 ? Dim::known(size) : Dim::unknown());
        }
    }
    c.setOutShape(0, out);
}

// Every input element is scattered through the kernel into Cout/group channels:
// 2·N·Cin·Hin·Win·(Cout/group)·Kh·Kw, plus the bias per output.
OpCost convTransposeCost(const Graph& g, const Node& n)
{
    const Shape& wt = shapeOf(g, n.input(1));
    const double coutPerGroup = wt.rank() >= 2 && wt.dims[1].isKnown() ? double(wt.dims[1].value) : 1.0;
    const double bias = n.input(2) != kNoTensor ? outElems(g, n) : 0.0;
    return costWithFlops(g, n, 2.0 * inElems(g, n, 0) * coutPerGroup * prodKernel(n, wt) + bias);
}

void poolRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    c.setOutType(1, DType::Int64); // MaxPool's optional Indices
    const Shape& x = c.inShape(0);
    if (x.rank() < 3) return;
    const size_t spatial = x.dims.size() - 2;
    auto w = windowOf(c.node(), spatial, nullptr);
    Shape out = Shape::ofDims({x.dims[0], x.dims[1]});
    for (size_t i = 0; i < spatial; ++i) out.dims.push_back(w ? windowOut(x.dims[i + 2], *w, i) : Dim::unknown());
    c.setOutShape(0, out);
    c.setOutShape(1, out);
}

OpCost poolCost(const Graph& g, const Node& n)
{
    double k = 1;
    for (int64_t v : n.attrInts("kernel_shape")) k *= double(v);
    return costWithFlops(g, n, outElems(g, n) * k);
}

void globalPoolRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (x.rank() < 2) return;
    Shape out = Shape::ofDims({x.dims[0], x.dims[1]});
    for (size_t i = 2; i < x.dims.size(); ++i) out.dims.push_back(Dim::known(1));
    c.setOutShape(0, out);
}

// One op per input element (the reduction over the whole window).
OpCost globalPoolCost(const Graph& g, const Node& n) { return costWithFlops(g, n, inElems(g, n, 0)); }

using L = TensorLayout;

std::vector<OpStrategy> convStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    if (c.inShape(0).rank() < 3) return out;
    const bool hasBias = c.node.input(2) != kNoTensor;
    // ConvTranspose stores its weight as [in, out/group, k...].
    const bool transposed = c.node.opType == "ConvTranspose";
    const int wOut = transposed ? 1 : 0, wIn = transposed ? 0 : 1;
    auto make = [&](const char* name, L x, L w, L b, L o) { out.push_back(splitStrategy(c, name, {x, w, b}, o)); };
    make("batch", L::split(0), L::replicated(), L::replicated(), L::split(0));
    if (c.node.attrInt("group", 1) == 1) {
        make("out-channels", L::replicated(), L::split(wOut), L::split(0), L::split(1));
        // Partial sums over the input channels; a bias joins the sum once (partial layout).
        make("in-channels", L::split(1), L::split(wIn), hasBias ? L::partial() : L::replicated(), L::partial());
    } else {
        // Depthwise/grouped: channels split together with their groups.
        if (!transposed) make("channels", L::split(1), L::split(0), L::split(0), L::split(1));
    }
    return out;
}

} // namespace

void registerConvOps(OpRegistry& r)
{
    r.add({"Conv", convRule, convCost, convStrategies});
    r.add({"ConvTranspose", convTransposeRule, convTransposeCost, convStrategies});
    addAll(r, {"MaxPool", "AveragePool"}, poolRule, poolCost, channelwiseStrategies);
    const Sharding lpUnsharded = Sharding::replicated("Lp pooling has no batch/channel rule yet");
    r.add({"LpPool", poolRule, poolCost, lpUnsharded});
    addAll(r, {"GlobalAveragePool", "GlobalMaxPool"}, globalPoolRule, globalPoolCost, channelwiseStrategies);
    r.add({"GlobalLpPool", globalPoolRule, globalPoolCost, lpUnsharded});
}

} // namespace tapas
