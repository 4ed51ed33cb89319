// Reductions, ArgMax/ArgMin and TopK. FLOPs: one op per input element (ReduceL2,
// ReduceSumSquare, ReduceLogSumExp and ReduceLogSum: two, for the square/exp/log beside the sum).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"

namespace tapas {
namespace {
using namespace ops;

std::function<OpCost(const Graph&, const Node&)> perInput(double flops)
{
    return [flops](const Graph& g, const Node& n) { return costWithFlops(g, n, flops * inElems(g, n, 0)); };
}

// Axes come from input 1 (ReduceSum 13+, all reductions 18+) or the attribute. No axes means
// all axes, unless noop_with_empty_axes is set.
void reduceRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    const bool keep = c.node().attrInt("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    if (c.hasInput(1)) {
        auto a = c.inInts(1);
        if (!a) {
            // Unknown axes: with keepdims the rank still stands.
            if (keep) c.setOutShape(0, Shape::ofDims(std::vector<Dim>(x.dims.size(), Dim::unknown())));
            return;
        }
        axes = *a;
    } else {
        axes = c.node().attrInts("axes");
    }
    if (axes.empty() && c.node().attrInt("noop_with_empty_axes", 0) != 0) {
        c.setOutShape(0, x);
        return;
    }
    std::vector<bool> reduced(x.dims.size(), axes.empty());
    for (int64_t a : axes) {
        auto n = normAxis(a, x.rank());
        if (!n) return;
        reduced[size_t(*n)] = true;
    }
    Shape out = Shape::ofDims({});
    for (size_t i = 0; i < x.dims.size(); ++i) {
        if (!reduced[i]) out.dims.push_back(x.dims[i]);
        else if (keep) out.dims.push_back(Dim::known(1));
    }
    c.setOutShape(0, out);
}

void argRule(ShapeContext& c)
{
    c.setOutType(0, DType::Int64);
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    auto axis = normAxis(c.node().attrInt("axis", 0), x.rank());
    if (!axis) return;
    Shape out = x;
    if (c.node().attrInt("keepdims", 1) != 0) out.dims[size_t(*axis)] = Dim::known(1);
    else out.dims.erase(out.dims.begin() + *axis);
    c.setOutShape(0, out);
}

void topKRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    c.setOutType(1, DType::Int64);
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    auto axis = normAxis(c.node().attrInt("axis", -1), x.rank());
    if (!axis) return;
    Dim k = Dim::unknown();
    if (c.hasInput(1)) {
        if (auto e = c.inElements(1); e && e->size() == 1) k = (*e)[0].toDim();
    } else if (c.node().attr("k")) {
        k = dimOf(c.node().attrInt("k", 0));
    }
    Shape out = x;
    out.dims[size_t(*axis)] = k;
    c.setOutShape(0, out);
    c.setOutShape(1, out);
}

} // namespace

void registerReduceOps(OpRegistry& r)
{
    addAll(r, {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1"}, reduceRule, perInput(1));
    addAll(r, {"ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}, reduceRule, perInput(2));
    addAll(r, {"ArgMax", "ArgMin"}, argRule, perInput(1));
    r.add({"TopK", topKRule, perInput(1)});
}

} // namespace tapas
