#pragma once
// Internal helpers shared by the op family files: axis handling, numpy broadcasting, small
// constant evaluation, symbolic element arithmetic, and the byte side of op costs.
#include "core/ops/dim_expr.h"
#include "core/ops/op_registry.h"

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace tapas::ops {

// ONNX axes may be negative (counted from the end). nullopt when out of [-rank, rank).
std::optional<int> normAxis(int64_t axis, int rank);
// Normalises and sorts a list of axes; nullopt when one is out of range or repeated.
std::optional<std::vector<int>> normAxes(const std::vector<int64_t>& axes, int rank);

// Numpy (multidirectional) broadcasting of two dims / several shapes.
Dim broadcastDim(const Dim& a, const Dim& b);
Shape broadcastShapes(const std::vector<const Shape*>& shapes); // unknown rank if any is
// Merges two dims that must be equal (Concat's other axes, MatMul's K): the more specific one.
Dim unifyDim(const Dim& a, const Dim& b);

// The integer list a rule reads from input `input` when it is present (opset >= 10/13 style),
// else from attribute `attr` (older opsets). nullopt when neither is known.
std::optional<std::vector<int64_t>> intsFromInputOrAttr(const ShapeContext& c, size_t input,
                                                        std::string_view attr);

// Small constants. Values larger than kMaxKeptConstElements are never built.
ConstValue makeInts(std::vector<int64_t> v, Shape shape, DType t = DType::Int64);
ConstValue reshapeValue(const ConstValue& v, const Shape& shape); // same data, new shape
// Elementwise op over broadcast inputs. Integer inputs use intFn (exact; truncating division),
// any floating input uses floatFn. The result is stored as `outType`.
std::optional<ConstValue> evalBroadcast(const std::vector<const ConstValue*>& in, DType outType,
                                        const std::function<int64_t(const std::vector<int64_t>&)>& intFn,
                                        const std::function<double(const std::vector<double>&)>& floatFn);

// Symbolic element arithmetic (exact or unknown).
SymInt symMul(const SymInt& a, const SymInt& b);
SymInt symDiv(const SymInt& a, const SymInt& b); // truncating for numbers, exact for symbols
SymInt symAdd(const SymInt& a, const SymInt& b);
SymInt symSub(const SymInt& a, const SymInt& b);

// A dim from a number a file wrote: negative ones are invalid and become unknown.
inline Dim dimOf(int64_t v) { return v >= 0 ? Dim::known(v) : Dim::unknown(); }

// double -> int64 without undefined behaviour: NaN gives 0, out-of-range values saturate.
int64_t toInt64(double v);

// Element counts that cannot overflow on hostile dims: exact when known and representable
// (else nullopt), or as a double with unknown/symbolic dims counted as 1 (for costs).
std::optional<int64_t> knownElements(const Shape& s);
double elementCount(const Shape& s);

// Cost helpers. Unknown/symbolic dims count as 1 element (see tensorBytes).
const Shape& shapeOf(const Graph& g, TensorId t);
double elementsOf(const Graph& g, TensorId t); // 0 for an absent tensor
double inElems(const Graph& g, const Node& n, size_t i);
double outElems(const Graph& g, const Node& n, size_t i = 0);
// Bytes read (all inputs) and written (all outputs) with the given FLOPs.
OpCost costWithFlops(const Graph& g, const Node& n, double flops);

// Registers `types` with one shared shape rule, cost and sharding.
void addAll(OpRegistry& r, std::initializer_list<const char*> types, const ShapeRule& rule, const CostRule& cost,
            const Sharding& sharding);
// Costs of `flops` per element of output 0 / of input 0 (plus the bytes of all inputs and outputs).
CostRule perOutputFlops(double flops);
CostRule perInputFlops(double flops);

// Output 0 takes input 0's shape and dtype (activations, normalisations, masks...).
void sameAsInput0(ShapeContext& c);

} // namespace tapas::ops
