#include "core/ops/op_registry.h"

#include "core/ops/dim_expr.h"
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"

#include <algorithm>

namespace tapas {

SymInt SymInt::ofDim(const Dim& d)
{
    if (d.isKnown()) return of(d.value);
    if (d.isSymbolic()) return SymInt{false, 0, d.symbol};
    return unknown();
}

Dim SymInt::toDim() const
{
    if (known) return value >= 0 ? Dim::known(value) : Dim::unknown();
    if (!symbol.empty()) return Dim::symbolic(symbol);
    return Dim::unknown();
}

namespace {
const Shape kUnknownShape;

// Merges what a rule derived into what is already known, dim by dim: a concrete dim is never
// contradicted, a named symbol beats ONNX's "unk__N" placeholders and plain unknowns.
bool mergeShape(Shape& have, const Shape& derived)
{
    if (!derived.rankKnown) return false;
    if (!have.rankKnown) {
        have = derived;
        return true;
    }
    if (have.dims.size() != derived.dims.size()) return false;
    bool changed = false;
    for (size_t i = 0; i < have.dims.size(); ++i) {
        Dim& h = have.dims[i];
        const Dim& d = derived.dims[i];
        if (h.isKnown() || h == d) continue;
        const bool weak = !h.isSymbolic() || isPlaceholderSymbol(h.symbol);
        if (d.isKnown() || (weak && d.isSymbolic() && !isPlaceholderSymbol(d.symbol))
            || (!h.isSymbolic() && d.isSymbolic())) {
            h = d;
            changed = true;
        }
    }
    return changed;
}
} // namespace

const Shape& ShapeContext::inShape(size_t i) const
{
    const TensorId t = node().input(i);
    return t == kNoTensor ? kUnknownShape : g_.tensor(t).shape;
}

DType ShapeContext::inType(size_t i) const
{
    const TensorId t = node().input(i);
    return t == kNoTensor ? DType::Undefined : g_.tensor(t).dtype;
}

const ConstValue* ShapeContext::inValue(size_t i) const
{
    const TensorId t = node().input(i);
    if (t == kNoTensor || !g_.tensor(t).value) return nullptr;
    const ConstValue& v = *g_.tensor(t).value;
    // A value whose elements were not kept (too large) is no value for shape arithmetic.
    if (ops::knownElements(v.shape) != v.size()) return nullptr;
    return &v;
}

const Shape& ShapeContext::outShape(size_t i) const
{
    const TensorId t = node().output(i);
    return t == kNoTensor ? kUnknownShape : g_.tensor(t).shape;
}

void ShapeContext::setOutShape(size_t i, Shape s)
{
    const TensorId t = node().output(i);
    if (t == kNoTensor) return;
    if (mergeShape(g_.tensor(t).shape, s)) changed_ = true;
}

void ShapeContext::setOutType(size_t i, DType dt)
{
    const TensorId t = node().output(i);
    if (t == kNoTensor || dt == DType::Undefined) return;
    Tensor& ten = g_.tensor(t);
    if (ten.dtype == DType::Undefined) {
        ten.dtype = dt;
        changed_ = true;
    }
}

void ShapeContext::setOutValue(size_t i, ConstValue v)
{
    const TensorId t = node().output(i);
    if (t == kNoTensor) return;
    setOutType(i, v.dtype);
    setOutShape(i, v.shape);
    Tensor& ten = g_.tensor(t);
    if (!ten.value && v.size() <= kMaxKeptConstElements) {
        ten.value = std::move(v);
        changed_ = true;
    }
    if (sym_) sym_->erase(t);
}

std::optional<std::vector<SymInt>> ShapeContext::inElements(size_t i) const
{
    const TensorId t = node().input(i);
    if (t == kNoTensor) return std::nullopt;
    if (const ConstValue* v = inValue(i); v && v->isInteger() && v->shape.rank() <= 1) {
        std::vector<SymInt> out;
        for (int64_t x : v->ints) out.push_back(SymInt::of(x));
        return out;
    }
    if (sym_) {
        auto it = sym_->find(t);
        if (it != sym_->end()) return it->second;
    }
    return std::nullopt;
}

std::optional<std::vector<int64_t>> ShapeContext::inInts(size_t i) const
{
    if (const ConstValue* v = inValue(i); v && v->isInteger()) return v->ints;
    auto e = inElements(i);
    if (!e) return std::nullopt;
    std::vector<int64_t> out;
    for (const SymInt& s : *e) {
        if (!s.known) return std::nullopt;
        out.push_back(s.value);
    }
    return out;
}

void ShapeContext::setOutElements(size_t i, std::vector<SymInt> elems, bool scalar, DType dt)
{
    const TensorId t = node().output(i);
    if (t == kNoTensor || (scalar && elems.size() != 1)) return;
    const Shape shape = scalar ? Shape::of({}) : Shape::of({int64_t(elems.size())});
    const bool allKnown = std::all_of(elems.begin(), elems.end(), [](const SymInt& s) { return s.known; });
    if (allKnown && (dtypeIsInteger(dt) || dtypeIsFloating(dt))) {
        ConstValue v;
        v.dtype = dt;
        v.shape = shape;
        for (const SymInt& s : elems) {
            if (dtypeIsInteger(dt)) v.ints.push_back(s.value);
            else v.floats.push_back(double(s.value));
        }
        setOutValue(i, std::move(v));
        return;
    }
    setOutType(i, dt);
    setOutShape(i, shape);
    const bool anyInfo = std::any_of(elems.begin(), elems.end(), [](const SymInt& s) { return s.known || s.isSymbolic(); });
    if (sym_ && anyInfo && !g_.tensor(t).value) (*sym_)[t] = std::move(elems);
}

const OpRegistry& OpRegistry::instance()
{
    static const OpRegistry registry = [] {
        OpRegistry r;
        // Every op family, in one place; the names are the families' file names.
        const std::pair<const char*, void (*)(OpRegistry&)> families[] = {
            {"matmul", registerMatMulOps},         {"conv", registerConvOps},
            {"resize", registerResizeOps},         {"elementwise", registerElementwiseOps},
            {"normalization", registerNormalizationOps}, {"reduce", registerReduceOps},
            {"shape", registerShapeOps},           {"indexing", registerIndexingOps},
            {"generator", registerGeneratorOps},   {"control", registerControlOps},
            {"recurrent", registerRecurrentOps},
        };
        for (const auto& [name, registerFamily] : families) {
            r.beginFamily(name);
            registerFamily(r);
        }
        r.beginFamily({});
        return r;
    }();
    return registry;
}

const OpDef* OpRegistry::find(std::string_view opType) const
{
    auto it = defs_.find(std::string(opType));
    return it == defs_.end() ? nullptr : &it->second;
}

void OpRegistry::add(OpDef def)
{
    if (!family_.empty() && std::find(families_.begin(), families_.end(), family_) == families_.end())
        families_.push_back(family_);
    def.family = family_;
    std::string key = def.opType;
    if (defs_.count(key)) {
        duplicates_.push_back(key + " (again in family '" + family_ + "')");
        return;
    }
    defs_.emplace(std::move(key), std::move(def));
}

std::vector<std::string> OpRegistry::opTypes() const
{
    std::vector<std::string> out;
    out.reserve(defs_.size());
    for (const auto& [k, v] : defs_) out.push_back(k);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> checkOpRegistry(const OpRegistry& r)
{
    std::vector<std::string> gaps;
    for (const std::string& op : r.opTypes()) {
        const OpDef& d = *r.find(op);
        const std::string who = "op " + op + (d.family.empty() ? std::string(" (no family)") : " (family " + d.family + ")");
        if (d.family.empty()) gaps.push_back(who + ": registered outside a family file");
        if (!d.inferShape) gaps.push_back(who + ": no shape rule");
        if (!d.cost) gaps.push_back(who + ": no cost");
        if (!d.sharding.rule && d.sharding.replicatedBecause.empty())
            gaps.push_back(who + ": no sharding rule and no reason why it has none");
        if (d.sharding.rule && !d.sharding.replicatedBecause.empty())
            gaps.push_back(who + ": both a sharding rule and a reason for having none");
    }
    for (const std::string& dup : r.duplicates()) gaps.push_back("op " + dup + ": registered twice");
    return gaps;
}

double tensorBytes(const Graph& g, TensorId t)
{
    if (t == kNoTensor) return 0;
    const Tensor& ten = g.tensor(t);
    // An untyped tensor is costed as float32, the common case, rather than as free.
    const int bytes = ten.dtype == DType::Undefined ? 4 : dtypeBytes(ten.dtype);
    return double(bytes) * ops::elementCount(ten.shape);
}

OpCost nodeCost(const Graph& g, const Node& n)
{
    const OpDef* def = OpRegistry::instance().find(n.opType);
    if (def && def->cost) return def->cost(g, n);
    OpCost c;
    for (TensorId t : n.inputs) c.bytesRead += tensorBytes(g, t);
    for (TensorId t : n.outputs) c.bytesWritten += tensorBytes(g, t);
    return c;
}

bool isBufferInput(const Node& n, size_t i)
{
    const OpDef* def = OpRegistry::instance().find(n.opType);
    if (!def) return false;
    for (int b : def->bufferInputs)
        if (size_t(b) == i) return true;
    return false;
}

} // namespace tapas
