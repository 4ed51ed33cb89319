#pragma once
// One table entry per ONNX op type: its shape rule (for what ONNX's own inference leaves empty),
// its cost (FLOPs and bytes) and its tensor-parallel sharding strategies. An op's rules live
// together in its family's file (ops/matmul_ops.cpp, ops/conv_ops.cpp, ...; the families are
// listed in op_families.h), as ONNX keeps an op's schema and its inference together. The
// runtime's torch kernels are keyed by the same family names (runtime/exec/kernels/).
// docs/adding-an-op.md walks through adding one.
#include "core/ir/graph.h"
#include "core/shard/op_sharding.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace tapas {

// Forward-pass cost of one node. FLOPs count a multiply-add as 2.
struct OpCost {
    double flops = 0;
    double bytesRead = 0;    // inputs incl. weights
    double bytesWritten = 0; // outputs
};

// One element of a small integer tensor (a shape vector, a scalar dim) as the shape pass knows
// it: a number (possibly negative, e.g. Reshape's -1), a symbolic dim expression ("batch",
// "4*batch", "batch*seq"), or unknown. ConstValue holds numbers only; symbolic elements let
// Reshape targets built by Shape->Gather->Concat chains keep 'batch' when it is unbound.
struct SymInt {
    bool known = false;
    int64_t value = 0;
    std::string symbol; // non-empty when symbolic; empty and !known means unknown

    static SymInt of(int64_t v) { return SymInt{true, v, {}}; }
    static SymInt ofDim(const Dim& d);
    static SymInt unknown() { return {}; }
    bool isSymbolic() const { return !known && !symbol.empty(); }
    Dim toDim() const; // negative numbers become unknown dims
    bool operator==(const SymInt& o) const { return known == o.known && value == o.value && symbol == o.symbol; }
};

// Side table of the shape pass (never stored in the IR): tensor -> its elements, for small
// integer tensors whose value is only partly known.
using SymbolicValues = std::unordered_map<TensorId, std::vector<SymInt>>;

// What a shape rule sees and writes: the node, its inputs' shapes/dtypes/known values, and its
// outputs. A rule fills only outputs whose shape (or value) is still unknown.
class ShapeContext {
public:
    ShapeContext(Graph& g, NodeId n, SymbolicValues* symbolic = nullptr)
        : g_(g), n_(n), sym_(symbolic) {}
    const Graph& graph() const { return g_; }
    const Node& node() const { return g_.nodes[size_t(n_)]; }
    size_t numInputs() const { return node().inputs.size(); }
    size_t numOutputs() const { return node().outputs.size(); }
    bool hasInput(size_t i) const { return node().input(i) != kNoTensor; }
    const Shape& inShape(size_t i) const;       // unknown-rank shape when absent
    DType inType(size_t i) const;
    const ConstValue* inValue(size_t i) const;  // nullptr when not known
    const Shape& outShape(size_t i) const;
    // Setters keep what is already known (ONNX's inference wins where it produced a shape).
    void setOutShape(size_t i, Shape s);
    void setOutType(size_t i, DType t);
    void setOutValue(size_t i, ConstValue v);   // also sets shape and dtype
    bool changed() const { return changed_; }

    // Opset of the default domain (0 for graphs built in memory: rules then go by which inputs
    // and attributes are present, which is what distinguishes the opset variants anyway).
    int64_t opset() const { return g_.opsetVersion(""); }
    // Elements of input i when it is a small 0-D/1-D tensor with a known or symbolic value.
    std::optional<std::vector<SymInt>> inElements(size_t i) const;
    // Integer elements of input i when every one is a known number.
    std::optional<std::vector<int64_t>> inInts(size_t i) const;
    // Sets a 0-D (scalar) or 1-D output value from elements; a fully known one becomes a ConstValue.
    void setOutElements(size_t i, std::vector<SymInt> elems, bool scalar, DType t = DType::Int64);

private:
    Graph& g_;
    NodeId n_;
    SymbolicValues* sym_ = nullptr;
    bool changed_ = false;
};

using ShapeRule = std::function<void(ShapeContext&)>;
using CostRule = std::function<OpCost(const Graph&, const Node&)>;

// An op's tensor-parallel sharding: the rule that lists its strategies, or the reason it has
// none and always runs replicated. Every registration states one of the two, so a forgotten
// rule is a gap the registry check reports (checkOpRegistry) instead of a silent replication.
struct Sharding {
    ShardRule rule;
    std::string replicatedBecause;

    Sharding() = default;
    template <class F, class = std::enable_if_t<std::is_invocable_r_v<std::vector<OpStrategy>, F, const ShardContext&>>>
    Sharding(F f) : rule(std::move(f)) {}
    static Sharding replicated(std::string why)
    {
        Sharding s;
        s.replicatedBecause = std::move(why);
        return s;
    }
};

struct OpDef {
    std::string opType;
    // Fills unknown output shapes/dtypes (and small values for shape arithmetic).
    ShapeRule inferShape;
    // Forward FLOPs and bytes (costWithFlops(g, n, 0) for pure data movement).
    CostRule cost;
    Sharding sharding;
    std::string family = {}; // the family file that registered it (set by the registry)
    // Inputs that are buffers, not parameters (BatchNorm's running statistics): stored with the
    // model but never trained, so they have no gradient to all-reduce and no optimizer state.
    std::vector<int> bufferInputs = {};
};

// Whether input `i` of `n` is a buffer of its op (OpDef::bufferInputs).
bool isBufferInput(const Node& n, size_t i);

class OpRegistry {
public:
    static const OpRegistry& instance();
    // Default-domain ("" / "ai.onnx") ops and com.microsoft ops of the same name share entries.
    const OpDef* find(std::string_view opType) const;
    // Adds `def` to the family being registered; a second registration of an op type is kept
    // aside as a duplicate for checkOpRegistry to report (the first one stays in force).
    void add(OpDef def);
    // Every later add() belongs to `family` (the registry calls it before each family's function).
    void beginFamily(std::string family) { family_ = std::move(family); }
    std::vector<std::string> opTypes() const;
    std::vector<std::string> families() const { return families_; }
    const std::vector<std::string>& duplicates() const { return duplicates_; }

private:
    std::unordered_map<std::string, OpDef> defs_;
    std::vector<std::string> families_;
    std::vector<std::string> duplicates_;
    std::string family_;
};

// What a registration lacks: an op without a shape rule or cost, with neither a sharding rule
// nor a stated reason for having none (or with both), outside a family, or registered twice.
// One sentence per gap, naming the op and its family; empty when the registry is complete.
std::vector<std::string> checkOpRegistry(const OpRegistry& r);

// The cost of a node (from its OpDef, or the default when the op is unknown).
OpCost nodeCost(const Graph& g, const Node& n);

// Bytes of a tensor with unknown/symbolic dims counted as 1 element each.
double tensorBytes(const Graph& g, TensorId t);

} // namespace tapas
