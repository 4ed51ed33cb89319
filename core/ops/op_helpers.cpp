#include "core/ops/op_helpers.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cmath>
#include <set>

namespace tapas::ops {

std::optional<int> normAxis(int64_t axis, int rank)
{
    if (rank < 0) return std::nullopt;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    return int(axis);
}

std::optional<std::vector<int>> normAxes(const std::vector<int64_t>& axes, int rank)
{
    std::vector<int> out;
    for (int64_t a : axes) {
        auto n = normAxis(a, rank);
        if (!n) return std::nullopt;
        out.push_back(*n);
    }
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end()) return std::nullopt;
    return out;
}

Dim broadcastDim(const Dim& a, const Dim& b)
{
    if (a.isKnown() && a.value == 1) return b;
    if (b.isKnown() && b.value == 1) return a;
    if (a.isKnown()) return a; // b is a, or 1, or the model is invalid
    if (b.isKnown()) return b;
    if (!a.isSymbolic()) return b; // unknown is 1 or b: the result is b either way
    if (!b.isSymbolic()) return a;
    if (sameDim(a, b)) return a;
    return Dim::unknown(); // 'x' vs 'y': either may be 1
}

Shape broadcastShapes(const std::vector<const Shape*>& shapes)
{
    Shape out;
    out.rankKnown = true;
    size_t rank = 0;
    for (const Shape* s : shapes) {
        if (!s->rankKnown) return Shape::unknownRank();
        rank = std::max(rank, s->dims.size());
    }
    out.dims.assign(rank, Dim::known(1));
    for (const Shape* s : shapes) {
        const size_t off = rank - s->dims.size();
        for (size_t i = 0; i < s->dims.size(); ++i) out.dims[off + i] = broadcastDim(out.dims[off + i], s->dims[i]);
    }
    return out;
}

Dim unifyDim(const Dim& a, const Dim& b)
{
    if (a.isKnown()) return a;
    if (b.isKnown()) return b;
    if (a.isSymbolic() && !isPlaceholderSymbol(a.symbol)) return a;
    if (b.isSymbolic()) return b;
    return a;
}

std::optional<std::vector<int64_t>> intsFromInputOrAttr(const ShapeContext& c, size_t input,
                                                        std::string_view attr)
{
    if (c.hasInput(input)) return c.inInts(input);
    if (c.node().attr(attr)) return c.node().attrInts(attr);
    return std::nullopt;
}

ConstValue makeInts(std::vector<int64_t> v, Shape shape, DType t)
{
    ConstValue c;
    c.dtype = t;
    c.shape = std::move(shape);
    c.ints = std::move(v);
    return c;
}

ConstValue reshapeValue(const ConstValue& v, const Shape& shape)
{
    ConstValue r = v;
    r.shape = shape;
    return r;
}

std::optional<ConstValue> evalBroadcast(const std::vector<const ConstValue*>& in, DType outType,
                                        const std::function<int64_t(const std::vector<int64_t>&)>& intFn,
                                        const std::function<double(const std::vector<double>&)>& floatFn)
{
    std::vector<const Shape*> shapes;
    bool anyFloat = false;
    for (const ConstValue* v : in) {
        if (!v || !v->shape.isFullyKnown()) return std::nullopt;
        if (knownElements(v->shape) != v->size()) return std::nullopt; // values not kept
        shapes.push_back(&v->shape);
        anyFloat = anyFloat || !v->isInteger();
    }
    const Shape outShape = broadcastShapes(shapes);
    const std::optional<int64_t> count = knownElements(outShape);
    if (!count) return std::nullopt;
    const int64_t n = *count;
    if (n > kMaxKeptConstElements) return std::nullopt;
    if (anyFloat ? !floatFn : !intFn) return std::nullopt;

    const size_t rank = outShape.dims.size();
    // Strides of each input within the output index space (0 along broadcast dims).
    std::vector<std::vector<int64_t>> strides;
    for (const ConstValue* v : in) {
        std::vector<int64_t> st(rank, 0);
        int64_t s = 1;
        const size_t off = rank - v->shape.dims.size();
        for (size_t i = 0; i < v->shape.dims.size(); ++i) {
            const int64_t d = v->shape.dims[i].value;
            if (d != 1 && d != outShape.dims[off + i].value) return std::nullopt; // not broadcastable
        }
        for (size_t i = v->shape.dims.size(); i-- > 0;) {
            if (v->shape.dims[i].value != 1) st[off + i] = s;
            s *= v->shape.dims[i].value;
        }
        strides.push_back(std::move(st));
    }
    ConstValue r;
    r.dtype = outType;
    r.shape = outShape;
    std::vector<int64_t> idx(rank, 0);
    std::vector<int64_t> iargs(in.size());
    std::vector<double> fargs(in.size());
    for (int64_t k = 0; k < n; ++k) {
        for (size_t j = 0; j < in.size(); ++j) {
            int64_t flat = 0;
            for (size_t d = 0; d < rank; ++d) flat += idx[d] * strides[j][d];
            if (anyFloat) fargs[j] = in[j]->floatAt(size_t(flat));
            else iargs[j] = in[j]->ints[size_t(flat)];
        }
        if (anyFloat) {
            const double v = floatFn(fargs);
            if (dtypeIsInteger(outType)) r.ints.push_back(toInt64(v));
            else r.floats.push_back(v);
        } else {
            const int64_t v = intFn(iargs);
            if (dtypeIsInteger(outType)) r.ints.push_back(v);
            else r.floats.push_back(double(v));
        }
        for (size_t d = rank; d-- > 0;) {
            if (++idx[d] < outShape.dims[d].value) break;
            idx[d] = 0;
        }
    }
    return r;
}

namespace {
std::optional<DimExpr> exprOf(const SymInt& s)
{
    if (s.known) return DimExpr::number(s.value);
    if (s.isSymbolic()) return DimExpr::parse(s.symbol);
    return std::nullopt;
}

SymInt symFromExpr(const DimExpr& e)
{
    if (e.isNumber()) return SymInt::of(e.coef);
    if (e.coef <= 0) return SymInt::unknown();
    return SymInt{false, 0, e.toString()};
}
} // namespace

SymInt symMul(const SymInt& a, const SymInt& b)
{
    if ((a.known && a.value == 0) || (b.known && b.value == 0)) return SymInt::of(0);
    auto ea = exprOf(a), eb = exprOf(b);
    if (!ea || !eb) return SymInt::unknown();
    auto r = mulExpr(*ea, *eb);
    return r ? symFromExpr(*r) : SymInt::unknown();
}

SymInt symDiv(const SymInt& a, const SymInt& b)
{
    if (a.known && b.known)
        return b.value && !(b.value == -1 && a.value == INT64_MIN) ? SymInt::of(a.value / b.value) : SymInt::unknown();
    auto ea = exprOf(a), eb = exprOf(b);
    if (!ea || !eb) return SymInt::unknown();
    auto r = divExpr(*ea, *eb);
    return r ? symFromExpr(*r) : SymInt::unknown();
}

SymInt symAdd(const SymInt& a, const SymInt& b)
{
    int64_t r = 0;
    if (a.known && b.known) return __builtin_add_overflow(a.value, b.value, &r) ? SymInt::unknown() : SymInt::of(r);
    if (b.known && b.value == 0) return a;
    if (a.known && a.value == 0) return b;
    return SymInt::unknown();
}

SymInt symSub(const SymInt& a, const SymInt& b)
{
    int64_t r = 0;
    if (a.known && b.known) return __builtin_sub_overflow(a.value, b.value, &r) ? SymInt::unknown() : SymInt::of(r);
    if (b.known && b.value == 0) return a;
    if (a == b && a.isSymbolic()) return SymInt::of(0);
    return SymInt::unknown();
}

int64_t toInt64(double v)
{
    if (std::isnan(v)) return 0;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return int64_t(v);
}

std::optional<int64_t> knownElements(const Shape& s)
{
    if (!s.isFullyKnown()) return std::nullopt;
    int64_t n = 1;
    for (const Dim& d : s.dims)
        if (__builtin_mul_overflow(n, d.value, &n)) return std::nullopt;
    return n;
}

double elementCount(const Shape& s)
{
    if (!s.rankKnown) return 1;
    double n = 1;
    for (const Dim& d : s.dims) n *= d.isKnown() ? double(d.value) : 1.0;
    return n;
}

const Shape& shapeOf(const Graph& g, TensorId t)
{
    static const Shape kUnknown;
    return t == kNoTensor ? kUnknown : g.tensor(t).shape;
}

double elementsOf(const Graph& g, TensorId t)
{
    return t == kNoTensor ? 0.0 : elementCount(g.tensor(t).shape);
}

double inElems(const Graph& g, const Node& n, size_t i) { return elementsOf(g, n.input(i)); }
double outElems(const Graph& g, const Node& n, size_t i) { return elementsOf(g, n.output(i)); }

OpCost costWithFlops(const Graph& g, const Node& n, double flops)
{
    OpCost c;
    c.flops = flops;
    for (TensorId t : n.inputs)
        if (t != kNoTensor) c.bytesRead += tensorBytes(g, t);
    for (TensorId t : n.outputs)
        if (t != kNoTensor) c.bytesWritten += tensorBytes(g, t);
    return c;
}

void addAll(OpRegistry& r, std::initializer_list<const char*> types, const ShapeRule& rule, const CostRule& cost,
            const Sharding& sharding)
{
    for (const char* t : types) r.add(OpDef{t, rule, cost, sharding, {}});
}

CostRule perOutputFlops(double flops)
{
    return [flops](const Graph& g, const Node& n) { return costWithFlops(g, n, flops * outElems(g, n)); };
}

CostRule perInputFlops(double flops)
{
    return [flops](const Graph& g, const Node& n) { return costWithFlops(g, n, flops * inElems(g, n, 0)); };
}

void sameAsInput0(ShapeContext& c)
{
    c.setOutType(0, c.inType(0));
    c.setOutShape(0, c.inShape(0));
}

} // namespace tapas::ops
