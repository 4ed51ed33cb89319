// Elementwise ops: unary, binary and variadic with numpy broadcasting, Where, Cast, Dropout.
// Small integer values are folded through them (shape arithmetic such as hidden/heads), and
// symbolic elements through Add/Sub/Mul/Div/Cast/Identity (batch*heads, seq*batch).
//
// FLOPs per output element: 1 for arithmetic, comparisons, selections and activations built
// from them (Relu, Clip, HardSigmoid...); kTranscendental for functions evaluated by a short
// polynomial/series (Exp, Log, Erf, Tanh, Sigmoid, Sqrt, Pow, Gelu...), as FLOP profilers
// (fvcore, DeepSpeed) count them as a few ops; 0 for pure data movement (Identity, Cast, Dropout
// at inference).
//
// Sharding: an elementwise op propagates any layout by broadcasting (R, or S(d) for each output
// dim d, the inputs following along their right-aligned dims).
#include "core/ops/op_families.h"
#include "core/ops/op_helpers.h"
#include "core/ops/shard_helpers.h"

#include <climits>
#include <cmath>
#include <cstdint>

namespace tapas {
namespace {
using namespace ops;

constexpr double kTranscendental = 4.0;

using IntFn = std::function<int64_t(const std::vector<int64_t>&)>;
using FloatFn = std::function<double(const std::vector<double>&)>;

std::vector<OpStrategy> plainElementwise(const ShardContext& c) { return elementwiseStrategies(c); }

// Identity of a weight is how exporters alias one weight read by several layers (equal
// initializers merged): the alias stays whole like the weight, and each use takes its own layout
// from it. Split here, it would be laid out once by the first layer and resharded at every use
// in later blocks, and the stitch, which carries every such alias across the blocks, loses the
// plan that keeps them whole.
std::vector<OpStrategy> identityStrategies(const ShardContext& c)
{
    if (c.isWeight(0)) return {};
    return elementwiseStrategies(c);
}

// Ops the elementwise rule would fit but that were never given it; kept replicated so that
// plans stay what they were until the rule is checked on them.
Sharding noRuleYet() { return Sharding::replicated("no rule yet (the elementwise rule would fit)"); }
// Comparisons and bit operations whose outputs are masks or integers.
Sharding maskOrInteger()
{
    return Sharding::replicated("boolean or integer output: masks and index arithmetic stay replicated");
}

DType firstType(const ShapeContext& c, size_t from = 0)
{
    for (size_t i = from; i < c.numInputs(); ++i)
        if (c.inType(i) != DType::Undefined) return c.inType(i);
    return DType::Undefined;
}

// Broadcast shape of the given inputs (all inputs when `inputs` is empty).
void broadcastRule(ShapeContext& c, DType outType)
{
    c.setOutType(0, outType);
    std::vector<const Shape*> shapes;
    for (size_t i = 0; i < c.numInputs(); ++i)
        if (c.hasInput(i)) shapes.push_back(&c.inShape(i));
    if (!shapes.empty()) c.setOutShape(0, broadcastShapes(shapes));
}

// Folds known values of the first `arity` inputs (all inputs when 0); failing that, elementwise
// symbolic arithmetic on 0-D/1-D inputs.
void foldValues(ShapeContext& c, size_t arity, DType outType, const IntFn& intFn, const FloatFn& floatFn,
                const std::function<SymInt(const std::vector<SymInt>&)>& symFn)
{
    if (arity == 0) arity = c.numInputs();
    if (arity == 0 || c.numInputs() < arity) return; // malformed node: nothing to fold
    std::vector<const ConstValue*> vals;
    for (size_t i = 0; i < arity; ++i) vals.push_back(c.inValue(i));
    if (auto v = evalBroadcast(vals, outType, intFn, floatFn)) {
        c.setOutValue(0, std::move(*v));
        return;
    }
    if (!symFn) return;
    std::vector<std::vector<SymInt>> elems;
    size_t len = 1;
    bool scalar = true;
    for (size_t i = 0; i < arity; ++i) {
        auto e = c.inElements(i);
        const int rank = c.inShape(i).rank();
        if (!e || rank < 0 || rank > 1 || e->empty()) return;
        scalar = scalar && rank == 0;
        if (e->size() != 1 && len != 1 && e->size() != len) return;
        if (e->size() != 1) len = e->size();
        elems.push_back(std::move(*e));
    }
    std::vector<SymInt> out;
    for (size_t k = 0; k < len; ++k) {
        std::vector<SymInt> args;
        for (const auto& e : elems) args.push_back(e.size() == 1 ? e[0] : e[k]);
        out.push_back(symFn(args));
    }
    c.setOutElements(0, std::move(out), scalar, outType);
}

void addBinary(OpRegistry& r, const char* type, IntFn intFn, FloatFn floatFn,
               std::function<SymInt(const std::vector<SymInt>&)> symFn, bool boolOut, double flops,
               const Sharding& sharding = plainElementwise)
{
    r.add({type,
           [=](ShapeContext& c) {
               const DType t = boolOut ? DType::Bool : firstType(c);
               broadcastRule(c, t);
               foldValues(c, 2, t, intFn, floatFn, symFn);
           },
           perOutputFlops(flops), sharding});
}

int64_t floorMod(int64_t a, int64_t b)
{
    if (b == 0 || b == -1) return 0;
    const int64_t m = a % b;
    return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

void registerBinary(OpRegistry& r)
{
    using I = std::vector<int64_t>;
    using F = std::vector<double>;
    using S = std::vector<SymInt>;
    addBinary(r, "Add", [](const I& v) { return int64_t(uint64_t(v[0]) + uint64_t(v[1])); }, [](const F& v) { return v[0] + v[1]; },
              [](const S& v) { return symAdd(v[0], v[1]); }, false, 1);
    addBinary(r, "Sub", [](const I& v) { return int64_t(uint64_t(v[0]) - uint64_t(v[1])); }, [](const F& v) { return v[0] - v[1]; },
              [](const S& v) { return symSub(v[0], v[1]); }, false, 1);
    addBinary(r, "Mul", [](const I& v) { return int64_t(uint64_t(v[0]) * uint64_t(v[1])); }, [](const F& v) { return v[0] * v[1]; },
              [](const S& v) { return symMul(v[0], v[1]); }, false, 1);
    addBinary(r, "Div", [](const I& v) { return v[1] && !(v[1] == -1 && v[0] == INT64_MIN) ? v[0] / v[1] : 0; }, [](const F& v) { return v[0] / v[1]; },
              [](const S& v) { return symDiv(v[0], v[1]); }, false, 1);
    addBinary(r, "Mod", [](const I& v) { return floorMod(v[0], v[1]); }, [](const F& v) { return std::fmod(v[0], v[1]); },
              nullptr, false, 1, noRuleYet());
    addBinary(r, "Pow", [](const I& v) { return toInt64(std::pow(double(v[0]), double(v[1]))); },
              [](const F& v) { return std::pow(v[0], v[1]); }, nullptr, false, kTranscendental);
    addBinary(r, "Equal", [](const I& v) { return int64_t(v[0] == v[1]); }, [](const F& v) { return double(v[0] == v[1]); },
              [](const S& v) {
                  if (v[0].known && v[1].known) return SymInt::of(v[0].value == v[1].value);
                  return v[0].isSymbolic() && v[0] == v[1] ? SymInt::of(1) : SymInt::unknown();
              }, true, 1);
    addBinary(r, "Less", [](const I& v) { return int64_t(v[0] < v[1]); }, [](const F& v) { return double(v[0] < v[1]); }, nullptr, true, 1);
    addBinary(r, "LessOrEqual", [](const I& v) { return int64_t(v[0] <= v[1]); }, [](const F& v) { return double(v[0] <= v[1]); }, nullptr, true, 1, maskOrInteger());
    addBinary(r, "Greater", [](const I& v) { return int64_t(v[0] > v[1]); }, [](const F& v) { return double(v[0] > v[1]); }, nullptr, true, 1);
    addBinary(r, "GreaterOrEqual", [](const I& v) { return int64_t(v[0] >= v[1]); }, [](const F& v) { return double(v[0] >= v[1]); }, nullptr, true, 1, maskOrInteger());
    addBinary(r, "And", [](const I& v) { return int64_t(v[0] && v[1]); }, nullptr, nullptr, true, 1);
    addBinary(r, "Or", [](const I& v) { return int64_t(v[0] || v[1]); }, nullptr, nullptr, true, 1);
    addBinary(r, "Xor", [](const I& v) { return int64_t(bool(v[0]) != bool(v[1])); }, nullptr, nullptr, true, 1, maskOrInteger());
    addBinary(r, "PRelu", nullptr, nullptr, nullptr, false, 1);
    for (const char* t : {"BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor"})
        addBinary(r, t, nullptr, nullptr, nullptr, false, 1, maskOrInteger());
    // com.microsoft BiasGelu: Gelu(x + bias), the bias broadcast over the last dim.
    r.add({"BiasGelu", [](ShapeContext& c) { broadcastRule(c, firstType(c)); }, perOutputFlops(kTranscendental + 1),
           plainElementwise});
    // Variadic: n-1 ops per output element.
    auto variadic = [](const Graph& g, const Node& n) {
        const double k = n.inputs.size() > 1 ? double(n.inputs.size() - 1) : 1.0;
        return costWithFlops(g, n, k * outElems(g, n));
    };
    auto fold = [](ShapeContext& c, IntFn i, FloatFn f) {
        broadcastRule(c, firstType(c));
        foldValues(c, 0, firstType(c), i, f, nullptr);
    };
    r.add({"Max", [=](ShapeContext& c) {
               fold(c, [](const I& v) { return *std::max_element(v.begin(), v.end()); },
                    [](const F& v) { return *std::max_element(v.begin(), v.end()); });
           }, variadic, plainElementwise});
    r.add({"Min", [=](ShapeContext& c) {
               fold(c, [](const I& v) { return *std::min_element(v.begin(), v.end()); },
                    [](const F& v) { return *std::min_element(v.begin(), v.end()); });
           }, variadic, plainElementwise});
    addAll(r, {"Sum", "Mean"}, [](ShapeContext& c) { broadcastRule(c, firstType(c)); }, variadic, plainElementwise);
    r.add({"Where",
           [](ShapeContext& c) {
               const DType t = firstType(c, 1);
               broadcastRule(c, t);
               foldValues(c, 3, t, [](const I& v) { return v[0] ? v[1] : v[2]; },
                          [](const F& v) { return v[0] != 0 ? v[1] : v[2]; },
                          [](const S& v) {
                              if (!v[0].known) return SymInt::unknown();
                              return v[0].value ? v[1] : v[2];
                          });
           },
           perOutputFlops(1), plainElementwise});
}

void addUnary(OpRegistry& r, std::initializer_list<const char*> types, double flops, const Sharding& sharding,
              DType fixedOut = DType::Undefined)
{
    addAll(r, types,
           [fixedOut](ShapeContext& c) {
               c.setOutType(0, fixedOut != DType::Undefined ? fixedOut : c.inType(0));
               c.setOutShape(0, c.inShape(0));
           },
           perOutputFlops(flops), sharding);
}

// Unary ops whose values matter for shape arithmetic, folded when known.
void addFoldingUnary(OpRegistry& r, const char* type, IntFn i, FloatFn f, bool symbolicPassThrough)
{
    r.add({type,
           [=](ShapeContext& c) {
               c.setOutType(0, c.inType(0));
               c.setOutShape(0, c.inShape(0));
               foldValues(c, 1, c.inType(0), i, f,
                          symbolicPassThrough ? std::function<SymInt(const std::vector<SymInt>&)>(
                                                    [](const std::vector<SymInt>& v) { return v[0]; })
                                              : nullptr);
           },
           perOutputFlops(1), plainElementwise});
}

void registerUnary(OpRegistry& r)
{
    using I = std::vector<int64_t>;
    using F = std::vector<double>;
    addUnary(r, {"Relu", "LeakyRelu", "Sign", "Round", "Clip", "HardSigmoid", "HardSwish", "Reciprocal"}, 1,
             plainElementwise);
    addUnary(r, {"ThresholdedRelu", "Shrink"}, 1, noRuleYet());
    addUnary(r, {"BitwiseNot"}, 1, maskOrInteger());
    addUnary(r, {"Sqrt", "Erf", "Tanh", "Sigmoid", "Exp", "Log", "Softplus", "Elu", "Selu", "Gelu", "FastGelu"},
             kTranscendental, plainElementwise);
    addUnary(r, {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softsign",
                 "Celu", "QuickGelu", "Mish"}, kTranscendental, noRuleYet());
    addUnary(r, {"IsNaN"}, 1, plainElementwise, DType::Bool);
    addUnary(r, {"IsInf"}, 1, maskOrInteger(), DType::Bool);
    addFoldingUnary(r, "Neg", [](const I& v) { return int64_t(0 - uint64_t(v[0])); }, [](const F& v) { return -v[0]; }, false);
    addFoldingUnary(r, "Abs", [](const I& v) { return v[0] < 0 ? int64_t(0 - uint64_t(v[0])) : v[0]; }, [](const F& v) { return std::fabs(v[0]); }, false);
    addFoldingUnary(r, "Floor", [](const I& v) { return v[0]; }, [](const F& v) { return std::floor(v[0]); }, true);
    addFoldingUnary(r, "Ceil", [](const I& v) { return v[0]; }, [](const F& v) { return std::ceil(v[0]); }, true);
    r.add({"Not",
           [](ShapeContext& c) {
               c.setOutType(0, DType::Bool);
               c.setOutShape(0, c.inShape(0));
               foldValues(c, 1, DType::Bool, [](const I& v) { return int64_t(!v[0]); }, nullptr, nullptr);
           },
           perOutputFlops(1), plainElementwise});

    // Data movement: no FLOPs. Values (and symbolic elements) pass through.
    auto passThrough = [](ShapeContext& c, DType t) {
        c.setOutType(0, t);
        c.setOutShape(0, c.inShape(0));
        foldValues(c, 1, t, [](const I& v) { return v[0]; }, [](const F& v) { return v[0]; },
                   [](const std::vector<SymInt>& v) { return v[0]; });
    };
    r.add({"Identity", [=](ShapeContext& c) { passThrough(c, c.inType(0)); }, perOutputFlops(0), identityStrategies});
    r.add({"Cast", [=](ShapeContext& c) {
               passThrough(c, dtypeFromOnnx(int32_t(c.node().attrInt("to", 0))));
           }, perOutputFlops(0), plainElementwise});
    r.add({"CastLike", [=](ShapeContext& c) { passThrough(c, c.inType(1)); }, perOutputFlops(0), noRuleYet()});
    r.add({"Dropout",
           [=](ShapeContext& c) {
               passThrough(c, c.inType(0));
               c.setOutType(1, DType::Bool);
               c.setOutShape(1, c.inShape(0));
           },
           perOutputFlops(0), plainElementwise});
}

} // namespace

void registerElementwiseOps(OpRegistry& r)
{
    registerBinary(r);
    registerUnary(r);
}

} // namespace tapas
