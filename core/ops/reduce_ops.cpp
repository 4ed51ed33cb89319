// Reductions, ArgMax/ArgMin and TopK. FLOPs: one op per input element (ReduceL2,
// ReduceSumSquare, ReduceLogSumExp and ReduceLogSum: two, for the square/exp/log beside the sum).
// Sharding: a split of a kept dim maps to the output; a reduced dim cannot be split.
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <algorithm>

namespace tapas {
namespace {
using namespace ops;

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

// Reduce*: a split of a kept dim maps to the output; a split of a reduced dim is refused here
// (its consumer would see partial values), so the search must gather first.
std::vector<OpStrategy> reduceStrategies(const ShardContext& c)
{
    const int r = c.inShape(0).rank();
    std::vector<int64_t> axes = c.node.attrInts("axes");
    if (axes.empty() && c.node.input(1) != kNoTensor) {
        const Tensor& a = c.graph.tensor(c.node.input(1));
        if (!a.value) return {replicateStrategy(c.node)};
        axes = a.value->ints;
    }
    std::vector<bool> reduced(size_t(std::max(r, 0)), axes.empty());
    for (int64_t a : axes)
        if (shardAxis(a, r) >= 0 && shardAxis(a, r) < r) reduced[size_t(shardAxis(a, r))] = true;
    const bool keep = c.node.attrInt("keepdims", 1) != 0;
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < r; ++d) {
        if (reduced[size_t(d)]) continue;
        int od = d;
        if (!keep)
            for (int e = 0; e < d; ++e) od -= reduced[size_t(e)] ? 1 : 0;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = TensorLayout::split(d);
        s.outputs[0] = TensorLayout::split(od);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace

void registerReduceOps(OpRegistry& r)
{
    const Sharding noRuleYet = Sharding::replicated("no rule yet (the kept-dims rule of the other reductions would fit)");
    addAll(r, {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"}, reduceRule, perInputFlops(1),
           reduceStrategies);
    r.add({"ReduceL1", reduceRule, perInputFlops(1), noRuleYet});
    addAll(r, {"ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"}, reduceRule, perInputFlops(2), reduceStrategies);
    r.add({"ReduceLogSum", reduceRule, perInputFlops(2), noRuleYet});
    addAll(r, {"ArgMax", "ArgMin"}, argRule, perInputFlops(1),
           Sharding::replicated("integer output (indices): replicated like all shape and index arithmetic"));
    r.add({"TopK", topKRule, perInputFlops(1), Sharding::replicated("no rule for the selected axis yet")});
}

} // namespace tapas
