// Ops that create tensors: Constant, ConstantOfShape, Range, EyeLike and the random generators.
// Constant values are what the shape arithmetic starts from; ConstantOfShape and Range take
// their sizes from (possibly symbolic) shape values. No FLOPs, except Range (one add each).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"

#include <cmath>

namespace tapas {
namespace {
using namespace ops;

OpCost noCost(const Graph&, const Node&) { return {}; }
OpCost writeCost(const Graph& g, const Node& n)
{
    OpCost c;
    for (TensorId t : n.outputs) c.bytesWritten += tensorBytes(g, t);
    return c;
}

void constantRule(ShapeContext& c)
{
    const Node& n = c.node();
    if (const Attribute* a = n.attr("value"); a && a->kind == Attribute::Kind::Tensor) {
        c.setOutType(0, a->tensor.dtype);
        c.setOutShape(0, a->tensor.shape);
        // Only values whose elements were all kept.
        if (a->tensor.size() == a->tensorElements && a->tensor.shape.isFullyKnown()) c.setOutValue(0, a->tensor);
        return;
    }
    ConstValue v;
    if (const Attribute* a = n.attr("value_int")) {
        v = makeInts({a->i}, Shape::of({}));
    } else if (const Attribute* a = n.attr("value_ints")) {
        v = makeInts(a->ints, Shape::of({int64_t(a->ints.size())}));
    } else if (const Attribute* a = n.attr("value_float")) {
        v.dtype = DType::Float32;
        v.shape = Shape::of({});
        v.floats = {a->f};
    } else if (const Attribute* a = n.attr("value_floats")) {
        v.dtype = DType::Float32;
        v.shape = Shape::of({int64_t(a->floats.size())});
        v.floats = a->floats;
    } else if (n.attr("value_string")) {
        c.setOutType(0, DType::String);
        c.setOutShape(0, Shape::of({}));
        return;
    } else if (const Attribute* a = n.attr("value_strings")) {
        c.setOutType(0, DType::String);
        c.setOutShape(0, Shape::of({int64_t(a->strings.size())}));
        return;
    } else {
        return; // sparse_value: shape unknown to us
    }
    c.setOutValue(0, std::move(v));
}

void constantOfShapeRule(ShapeContext& c)
{
    const Attribute* a = c.node().attr("value");
    const bool hasValue = a && a->kind == Attribute::Kind::Tensor && a->tensor.size() == 1;
    const DType t = hasValue ? a->tensor.dtype : DType::Float32;
    c.setOutType(0, t);
    auto elems = c.inElements(0);
    if (!elems) {
        const Shape& s = c.inShape(0);
        if (s.rank() == 1 && s.dims[0].isKnown() && s.dims[0].value <= kMaxKeptConstElements)
            c.setOutShape(0, Shape::ofDims(std::vector<Dim>(size_t(s.dims[0].value), Dim::unknown())));
        return;
    }
    std::vector<Dim> dims;
    for (const SymInt& e : *elems) dims.push_back(e.toDim());
    const Shape out = Shape::ofDims(dims);
    c.setOutShape(0, out);
    const std::optional<int64_t> count = knownElements(out);
    if (!count || *count > kMaxKeptConstElements) return;
    ConstValue v;
    v.dtype = t;
    v.shape = out;
    const size_t n = size_t(*count);
    if (dtypeIsInteger(t)) v.ints.assign(n, hasValue ? a->tensor.intAt(0) : 0);
    else v.floats.assign(n, hasValue ? a->tensor.floatAt(0) : 0.0);
    c.setOutValue(0, std::move(v));
}

void rangeRule(ShapeContext& c)
{
    const DType t = c.inType(0);
    c.setOutType(0, t);
    const ConstValue* start = c.inValue(0);
    const ConstValue* limit = c.inValue(1);
    const ConstValue* delta = c.inValue(2);
    if (start && limit && delta && start->size() == 1 && limit->size() == 1 && delta->size() == 1) {
        const double s = start->floatAt(0), l = limit->floatAt(0), d = delta->floatAt(0);
        if (d == 0) return;
        const int64_t n = std::max<int64_t>(0, toInt64(std::ceil((l - s) / d)));
        c.setOutShape(0, Shape::of({n}));
        const bool ints = dtypeIsInteger(t) && start->isInteger() && delta->isInteger();
        if (n > kMaxKeptConstElements || (dtypeIsInteger(t) && !ints)) return;
        ConstValue v;
        v.dtype = t;
        v.shape = Shape::of({n});
        for (int64_t i = 0; i < n; ++i) {
            if (ints) v.ints.push_back(int64_t(uint64_t(start->intAt(0)) + uint64_t(i) * uint64_t(delta->intAt(0))));
            else v.floats.push_back(s + double(i) * d);
        }
        c.setOutValue(0, std::move(v));
        return;
    }
    // Range(0, seq, 1): position ids of a symbolic length.
    auto ls = c.inElements(1);
    const bool zeroStart = start && start->size() == 1 && start->floatAt(0) == 0;
    const bool unitStep = delta && delta->size() == 1 && delta->floatAt(0) == 1;
    if (zeroStart && unitStep && ls && ls->size() == 1) c.setOutShape(0, Shape::ofDims({(*ls)[0].toDim()}));
    else c.setOutShape(0, Shape::ofDims({Dim::unknown()}));
}

DType attrDType(const Node& n, DType fallback)
{
    const Attribute* a = n.attr("dtype");
    return a ? dtypeFromOnnx(int32_t(a->i)) : fallback;
}

void randomRule(ShapeContext& c)
{
    c.setOutType(0, attrDType(c.node(), DType::Float32));
    if (!c.node().attr("shape")) return;
    Shape s = Shape::ofDims({});
    for (int64_t d : c.node().attrInts("shape")) s.dims.push_back(dimOf(d));
    c.setOutShape(0, s);
}

void likeRule(ShapeContext& c)
{
    c.setOutType(0, attrDType(c.node(), c.inType(0)));
    c.setOutShape(0, c.inShape(0));
}

} // namespace

void registerGeneratorOps(OpRegistry& r)
{
    // A generator reads no activation to follow: every rank creates the whole tensor.
    const Sharding created = Sharding::replicated("creates its tensor from attributes or shapes on every rank");
    r.add({"Constant", constantRule, noCost, created});
    r.add({"ConstantOfShape", constantOfShapeRule, writeCost, created});
    r.add({"Range", rangeRule, perOutputFlops(1), created});
    addAll(r, {"RandomNormal", "RandomUniform"}, randomRule, writeCost, created);
    addAll(r, {"RandomNormalLike", "RandomUniformLike", "EyeLike"}, likeRule, writeCost, created);
}

} // namespace tapas
