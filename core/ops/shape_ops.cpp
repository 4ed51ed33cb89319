// Shape arithmetic and layout ops: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Expand, Tile. No FLOPs. Reshape-like ops are views (no bytes move); Transpose,
// Expand and Tile write their output.
// Sharding: a split moves to wherever its dimension lands (Reshape: a split of the leading dim
// of a merged/split group, so S on hidden becomes S on heads when heads divide evenly).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace tapas {
namespace {
using namespace ops;

OpCost viewCost(const Graph&, const Node&) { return {}; }
OpCost copyCost(const Graph& g, const Node& n) { return costWithFlops(g, n, 0); }
// Shape/Size read metadata only.
OpCost metadataCost(const Graph& g, const Node& n)
{
    OpCost c;
    for (TensorId t : n.outputs) c.bytesWritten += tensorBytes(g, t);
    return c;
}

void shapeRule(ShapeContext& c)
{
    c.setOutType(0, DType::Int64);
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    const int64_t rank = x.rank();
    // Opset 15 start/end: negative counts from the end, both clamped to [0, rank].
    int64_t start = c.node().attrInt("start", 0), end = c.node().attrInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    std::vector<SymInt> elems;
    for (int64_t i = start; i < end; ++i) elems.push_back(SymInt::ofDim(x.dims[size_t(i)]));
    c.setOutElements(0, std::move(elems), false);
}

void sizeRule(ShapeContext& c)
{
    c.setOutType(0, DType::Int64);
    c.setOutShape(0, Shape::of({}));
    const Shape& x = c.inShape(0);
    if (x.rankKnown) c.setOutElements(0, {SymInt::ofDim(productOf(x.dims))}, true);
}

// Passes a value (or its symbolic elements) through a reshaping op once the output shape is known.
void passValue(ShapeContext& c)
{
    const Shape& out = c.outShape(0);
    if (const ConstValue* v = c.inValue(0); v && knownElements(out) == v->size()) {
        c.setOutValue(0, reshapeValue(*v, out));
        return;
    }
    if (out.rank() < 0 || out.rank() > 1) return;
    auto e = c.inElements(0);
    if (!e) return;
    const bool fits = out.rank() == 0 ? e->size() == 1 : (!out.dims[0].isKnown() || out.dims[0].value == int64_t(e->size()));
    if (fits) c.setOutElements(0, std::move(*e), out.rank() == 0, c.inType(0));
}

void reshapeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    auto target = c.inElements(1);
    if (!target) {
        // Target unknown but its length known: the rank stands.
        const Shape& ts = c.inShape(1);
        if (ts.rank() == 1 && ts.dims[0].isKnown() && ts.dims[0].value <= kMaxKeptConstElements)
            c.setOutShape(0, Shape::ofDims(std::vector<Dim>(size_t(ts.dims[0].value), Dim::unknown())));
        return;
    }
    const bool allowZero = c.node().attrInt("allowzero", 0) != 0;
    Shape out = Shape::ofDims({});
    int inferAt = -1;
    for (size_t i = 0; i < target->size(); ++i) {
        const SymInt& t = (*target)[i];
        if (t.known && t.value == 0 && !allowZero) {
            out.dims.push_back(x.rankKnown && i < x.dims.size() ? x.dims[i] : Dim::unknown());
        } else if (t.known && t.value == -1) {
            if (inferAt >= 0) return; // invalid: two -1
            inferAt = int(i);
            out.dims.push_back(Dim::unknown());
        } else {
            out.dims.push_back(t.toDim());
        }
    }
    if (inferAt >= 0 && x.rankKnown) {
        std::vector<Dim> others = out.dims;
        others.erase(others.begin() + inferAt);
        out.dims[size_t(inferAt)] = divDim(productOf(x.dims), productOf(others));
    }
    c.setOutShape(0, out);
    passValue(c);
}

void flattenRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    int64_t axis = c.node().attrInt("axis", 1);
    if (axis < 0) axis += x.rank();
    if (axis < 0 || axis > x.rank()) return;
    c.setOutShape(0, Shape::ofDims({productOf({x.dims.begin(), x.dims.begin() + axis}),
                                    productOf({x.dims.begin() + axis, x.dims.end()})}));
    passValue(c);
}

void squeezeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    auto axesList = intsFromInputOrAttr(c, 1, "axes");
    if (c.hasInput(1) && !axesList) return;
    std::vector<bool> drop(x.dims.size(), false);
    if (!axesList || axesList->empty()) {
        // All size-1 dims: only decidable when every dim is known.
        if (!x.isFullyKnown()) return;
        for (size_t i = 0; i < x.dims.size(); ++i) drop[i] = x.dims[i].value == 1;
    } else {
        auto axes = normAxes(*axesList, x.rank());
        if (!axes) return;
        for (int a : *axes) drop[size_t(a)] = true;
    }
    Shape out = Shape::ofDims({});
    for (size_t i = 0; i < x.dims.size(); ++i)
        if (!drop[i]) out.dims.push_back(x.dims[i]);
    c.setOutShape(0, out);
    passValue(c);
}

void unsqueezeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    auto axesList = intsFromInputOrAttr(c, 1, "axes");
    if (!x.rankKnown || !axesList) return;
    const int outRank = x.rank() + int(axesList->size());
    auto axes = normAxes(*axesList, outRank);
    if (!axes) return;
    Shape out = Shape::ofDims({});
    size_t src = 0, k = 0;
    for (int i = 0; i < outRank; ++i) {
        if (k < axes->size() && (*axes)[k] == i) {
            out.dims.push_back(Dim::known(1));
            ++k;
        } else {
            out.dims.push_back(x.dims[src++]);
        }
    }
    c.setOutShape(0, out);
    passValue(c);
}

void transposeRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    if (!x.rankKnown) return;
    std::vector<int64_t> perm = c.node().attrInts("perm");
    if (perm.empty())
        for (int i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
    if (perm.size() != x.dims.size()) return;
    Shape out = Shape::ofDims({});
    for (int64_t p : perm) {
        auto a = normAxis(p, x.rank());
        if (!a) return;
        out.dims.push_back(x.dims[size_t(*a)]);
    }
    c.setOutShape(0, out);
    // A small integer value keeps its (permuted) elements: pad tables built from shapes.
    const ConstValue* v = c.inValue(0);
    if (!v || !v->isInteger() || !x.isFullyKnown() || !out.isFullyKnown()) return;
    const std::vector<int64_t> in = x.knownDims(), od = out.knownDims();
    std::vector<int64_t> stride(in.size(), 1), values, it(od.size(), 0);
    for (size_t k = in.size(); k-- > 1;) stride[k - 1] = stride[k] * in[k];
    for (int64_t e = 0; e < v->size(); ++e) {
        int64_t flat = 0;
        for (size_t k = 0; k < od.size(); ++k) flat += it[k] * stride[size_t(*normAxis(perm[k], x.rank()))];
        values.push_back(v->ints[size_t(flat)]);
        for (size_t k = od.size(); k-- > 0;) {
            if (++it[k] < od[k]) break;
            it[k] = 0;
        }
    }
    c.setOutValue(0, makeInts(std::move(values), out, v->dtype));
}

void expandRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    auto target = c.inElements(1);
    if (!target) return;
    std::vector<Dim> dims;
    for (const SymInt& s : *target) dims.push_back(s.toDim());
    const Shape t = Shape::ofDims(dims);
    const Shape out = broadcastShapes({&c.inShape(0), &t});
    c.setOutShape(0, out);
    // Fold small known values (masks, position ids) through the broadcast.
    const std::optional<int64_t> count = knownElements(out);
    if (const ConstValue* v = c.inValue(0); v && count && *count <= kMaxKeptConstElements) {
        ConstValue zeros = makeInts(std::vector<int64_t>(size_t(*count), 0), out);
        if (auto r = evalBroadcast({v, &zeros}, v->dtype, [](const std::vector<int64_t>& a) { return a[0]; },
                                   [](const std::vector<double>& a) { return a[0]; }))
            c.setOutValue(0, std::move(*r));
    }
}

void tileRule(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    const Shape& x = c.inShape(0);
    auto reps = c.inElements(1);
    if (!x.rankKnown) return;
    if (!reps || reps->size() != x.dims.size()) {
        c.setOutShape(0, Shape::ofDims(std::vector<Dim>(x.dims.size(), Dim::unknown())));
        return;
    }
    Shape out = x;
    for (size_t i = 0; i < x.dims.size(); ++i) out.dims[i] = mulDim(x.dims[i], (*reps)[i].toDim());
    c.setOutShape(0, out);
}

using L = TensorLayout;

double dimValue(const Dim& d)
{
    if (d.isKnown()) return double(d.value);
    // A symbolic dim stands for an unknown factor; distinct names get distinct large values.
    return 1e6 + double(std::hash<std::string>{}(d.symbol) % 9973);
}

// The output dim a split of input dim d lands on, or -1: d must lead a group of input dims
// whose product equals that of a group of output dims, and the split goes to that group's lead.
int reshapeTarget(const Shape& in, const Shape& out, int d)
{
    if (!in.rankKnown || !out.rankKnown) return -1;
    size_t i = 0, j = 0;
    while (i < in.dims.size() && j < out.dims.size()) {
        const size_t i0 = i, j0 = j;
        double pi = dimValue(in.dims[i++]), pj = dimValue(out.dims[j++]);
        while (std::abs(pi - pj) > 1e-9 * std::max(pi, pj)) {
            if (pi < pj) {
                if (i >= in.dims.size()) return -1;
                pi *= dimValue(in.dims[i++]);
            } else {
                if (j >= out.dims.size()) return -1;
                pj *= dimValue(out.dims[j++]);
            }
        }
        if (int(i0) == d) return int(j0);
        if (d > int(i0) && d < int(i)) return -1; // inside a group, not its lead
    }
    return -1;
}

std::vector<OpStrategy> reshapeStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    for (int d = 0; d < c.inShape(0).rank(); ++d) {
        const int od = reshapeTarget(c.inShape(0), c.outShape(0), d);
        if (od < 0) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")->S(" + std::to_string(od) + ")";
        s.inputs[0] = L::split(d);
        s.outputs[0] = L::split(od);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> transposeStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    const int r = c.inShape(0).rank();
    std::vector<int64_t> perm = c.node.attrInts("perm");
    if (perm.empty())
        for (int i = r - 1; i >= 0; --i) perm.push_back(i);
    for (int o = 0; o < int(perm.size()); ++o) {
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(perm[size_t(o)]) + ")->S(" + std::to_string(o) + ")";
        s.inputs[0] = L::split(int(perm[size_t(o)]));
        s.outputs[0] = L::split(o);
        s.computeFraction = 1.0 / c.tp;
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<OpStrategy> expandStrategies(const ShardContext& c) { return elementwiseStrategies(c); }

// Shape reads metadata: the global shape is known whatever the layout of its input, so a split
// or partial input is read where it lies (Megatron-LM never gathers an activation to size it);
// the runtime scales the split dim back. The output is shape arithmetic, replicated.
std::vector<OpStrategy> shapeStrategies(const ShardContext& c)
{
    std::vector<OpStrategy> out{replicateStrategy(c.node)};
    OpStrategy partial = replicateStrategy(c.node);
    partial.name = "P";
    partial.inputs[0] = L::partial();
    out.push_back(std::move(partial));
    for (int d = 0; d < c.inShape(0).rank(); ++d) {
        if (!c.splittable(c.node.inputs[0], d)) continue;
        OpStrategy s = replicateStrategy(c.node);
        s.name = "S(" + std::to_string(d) + ")";
        s.inputs[0] = L::split(d);
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace

void registerShapeOps(OpRegistry& r)
{
    const Sharding shapeArithmetic = Sharding::replicated("its output is shape arithmetic, which stays replicated");
    r.add({"Shape", shapeRule, metadataCost, shapeStrategies});
    r.add({"Size", sizeRule, metadataCost, shapeArithmetic});
    r.add({"Reshape", reshapeRule, viewCost, reshapeStrategies});
    r.add({"Flatten", flattenRule, viewCost, reshapeStrategies});
    r.add({"Squeeze", squeezeRule, viewCost, reshapeStrategies});
    r.add({"Unsqueeze", unsqueezeRule, viewCost, reshapeStrategies});
    r.add({"Transpose", transposeRule, copyCost, transposeStrategies});
    r.add({"Expand", expandRule, copyCost, expandStrategies}); // broadcasting, as an elementwise op
    r.add({"Tile", tileRule, copyCost, Sharding::replicated("no rule for repeated dims yet")});
}

} // namespace tapas
