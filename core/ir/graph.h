#pragma once
// The model IR every other part of Tapas works on: nodes, tensors, graph inputs and outputs.
// Built by the ONNX importer (core/onnx) and by the zoo through it; never holds weight bytes.
#include "core/ir/attribute.h"
#include "core/ir/dtype.h"
#include "core/ir/shape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tapas {

using TensorId = int32_t;
using NodeId = int32_t;
inline constexpr TensorId kNoTensor = -1;
inline constexpr NodeId kNoNode = -1;

enum class TensorKind : uint8_t {
    Activation, // produced by a node
    Input,      // graph input fed at run time
    Weight,     // stored in the file as an initializer (may live in external data)
    Constant    // output of a Constant node (some exporters keep every weight this way)
};

struct Tensor {
    std::string name;
    DType dtype = DType::Undefined;
    Shape shape;
    TensorKind kind = TensorKind::Activation;
    NodeId producer = kNoNode;
    std::vector<NodeId> consumers;
    std::optional<ConstValue> value; // known small value (ints for shapes, axes, ...)
    std::string externalLocation;    // Weight whose bytes are in an external file
    bool externalPresent = true;     // false when that file is absent
    // Bit d: dim d scales with the batch (the importer binds the batch twice and compares), so
    // a data-parallel replica holds 1/dp of it. Empty when the batch was not a bound symbol.
    uint32_t batchScaledDims = 0;

    // Elements the file stores for this tensor (initializers and Constant outputs), else 0.
    int64_t storedElements() const;
    // A trainable-parameter-like tensor: stored floating data (initializer or Constant).
    bool isParameter() const;
};

struct Node {
    std::string name;
    std::string opType;
    std::string domain;  // "" for the default ONNX domain
    std::vector<Attribute> attrs;
    std::vector<TensorId> inputs;  // kNoTensor for an omitted optional input
    std::vector<TensorId> outputs; // kNoTensor for an omitted optional output
    std::string scope;   // name scope ("/encoder/layer.3/attention"), "" when none
    int subgraphs = 0;   // control-flow subgraphs kept opaque (If/Loop/Scan)
    int64_t subgraphNodes = 0;

    const Attribute* attr(std::string_view n) const;
    int64_t attrInt(std::string_view n, int64_t def) const;
    double attrFloat(std::string_view n, double def) const;
    std::string attrString(std::string_view n, std::string_view def) const;
    std::vector<int64_t> attrInts(std::string_view n) const; // empty when absent
    // Input i's tensor id, or kNoTensor when it is absent or omitted.
    TensorId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoTensor; }
    TensorId output(size_t i) const { return i < outputs.size() ? outputs[i] : kNoTensor; }
};

// Derives a node's name scope from its name: "/encoder/layer.3/attn/MatMul" -> "/encoder/layer.3/attn".
std::string scopeFromNodeName(std::string_view nodeName);

// Which axis of the run-time inputs is the batch, as the importer's probe found it (each
// candidate axis is doubled and the model imported again: the batch is the one axis that grows
// every graph output, no weight and no tensor along more than one axis). Data parallelism
// splits exactly these axes; without one it cannot run, and `why` says what the probe saw.
struct BatchAxis {
    std::vector<std::pair<TensorId, int>> inputs; // run-time input and the axis that is its batch
    std::string symbol;   // the symbolic dim the axis carries in the file, "" when fixed there
    int64_t size = 0;     // the batch the graph is bound to, 0 while symbolic
    bool probed = false;  // the probe ran (import with ImportOptions::probeBatch, --batch or a bound dim)
    bool rebatched = false; // bound to ImportOptions::batch (a fixed export re-batched through its inputs)
    std::string why;      // when `inputs` is empty: why no axis qualified
    bool found() const { return !inputs.empty(); }
};

class Graph {
public:
    std::string name;
    std::string sourcePath;     // file it was imported from, "" if built in memory
    int64_t irVersion = 0;
    std::string producerName;
    std::string producerVersion;
    std::vector<std::pair<std::string, int64_t>> opsets; // domain -> version

    std::vector<Node> nodes;      // in topological order
    std::vector<Tensor> tensors;
    std::vector<TensorId> inputs;  // run-time inputs (initializers excluded)
    std::vector<TensorId> outputs;
    std::vector<std::string> warnings;
    // The file's batch symbol (BatchAxis::symbol), "" when the batch is fixed or not found.
    std::string batchSymbol;
    BatchAxis batch;

    TensorId findTensor(std::string_view tensorName) const; // kNoTensor if absent
    TensorId addTensor(Tensor t);                            // name must be unique
    // Returns the id of an existing tensor with that name, or adds an Activation one.
    TensorId tensorFor(const std::string& tensorName);
    NodeId addNode(Node n); // wires producer/consumers of its tensors
    // Recomputes producer/consumer lists and the name index after bulk edits.
    void rebuildLinks();

    const Tensor& tensor(TensorId id) const { return tensors[size_t(id)]; }
    Tensor& tensor(TensorId id) { return tensors[size_t(id)]; }
    const Node& node(NodeId id) const { return nodes[size_t(id)]; }

    int64_t opsetVersion(std::string_view domain = "") const; // 0 when not imported
    int64_t parameterCount() const;  // sum of storedElements() over parameter tensors
    int64_t parameterBytes() const;
    // Symbolic dims still present anywhere in the graph, sorted.
    std::vector<std::string> symbolicDims() const;

private:
    std::unordered_map<std::string, TensorId> index_;
};

// How messages name a node: "node 'name' (OpType)", or "node '#7' (OpType)" when it has no name.
std::string nodeLabel(const Graph& g, NodeId n);

} // namespace tapas
