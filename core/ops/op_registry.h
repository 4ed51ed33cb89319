#pragma once
// One table entry per ONNX op type: its shape rule (for what ONNX's own inference leaves empty)
// and its cost (FLOPs and bytes). An op's rules live together in its family's file
// (ops/matmul_ops.cpp, ops/conv_ops.cpp, ...), registered in one place (op_registry.cpp),
// as ONNX keeps an op's schema and inference together. Later the sharding rule joins them.
#include "core/ir/graph.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
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

struct OpDef {
    std::string opType;
    // Fills unknown output shapes/dtypes (and small values for shape arithmetic). May be empty.
    std::function<void(ShapeContext&)> inferShape;
    // Forward FLOPs and bytes. When empty the default (no FLOPs, bytes of inputs+outputs) is used.
    std::function<OpCost(const Graph&, const Node&)> cost;
};

class OpRegistry {
public:
    static const OpRegistry& instance();
    // Default-domain ("" / "ai.onnx") ops and com.microsoft ops of the same name share entries.
    const OpDef* find(std::string_view opType) const;
    void add(OpDef def);
    std::vector<std::string> opTypes() const;

private:
    std::unordered_map<std::string, OpDef> defs_;
};

// The cost of a node (from its OpDef, or the default when the op is unknown).
OpCost nodeCost(const Graph& g, const Node& n);

// Bytes of a tensor with unknown/symbolic dims counted as 1 element each.
double tensorBytes(const Graph& g, TensorId t);

} // namespace tapas
