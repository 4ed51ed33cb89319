#pragma once
// Writes an onnx::ModelProto the way torch.onnx.export (torch 1.13) names and structures it:
// nodes "/scope/Op", "/scope/Op_1", outputs "<node>_output_<i>", small int64 tensors as
// Constant nodes, weights as FLOAT initializers whose bytes are declared external and never
// written. Internal to the zoo; the rest of core sees only serialized bytes.
#include "core/ir/shape.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tapas::zoo {

using Ints = std::vector<int64_t>;

// One node attribute.
struct Attr {
    enum Kind { Int, Float, IntList, String };
    std::string name;
    Kind kind = Int;
    int64_t i = 0;
    float f = 0;
    Ints ints;
    std::string s;

    static Attr of(std::string n, int64_t v) { Attr a; a.name = std::move(n); a.kind = Int; a.i = v; return a; }
    static Attr of(std::string n, int v) { return of(std::move(n), int64_t(v)); }
    static Attr of(std::string n, double v) { Attr a; a.name = std::move(n); a.kind = Float; a.f = float(v); return a; }
    static Attr of(std::string n, Ints v) { Attr a; a.name = std::move(n); a.kind = IntList; a.ints = std::move(v); return a; }
    static Attr str(std::string n, std::string v) { Attr a; a.name = std::move(n); a.kind = String; a.s = std::move(v); return a; }
};

class OnnxBuilder {
public:
    // `weightsFile` is the external-data file name the initializers point at (never written).
    OnnxBuilder(std::string graphName, int opset, bool scrubNames, std::string weightsFile);

    int opset() const { return opset_; }

    // Module scopes, as torch records them: push("transformer"), push("h.3") -> "/transformer/h.3".
    // `param` is the part the scope adds to parameter names; torch repeats a Sequential's name in
    // its children's scopes ("/layer1/layer1.0/conv1") but not in parameters ("layer1.0.conv1").
    void push(const std::string& part, const std::string& param);
    void push(const std::string& part) { push(part, part); }
    void pop();
    struct ScopeGuard {
        OnnxBuilder* b;
        ~ScopeGuard() { b->pop(); }
    };
    [[nodiscard]] ScopeGuard scope(const std::string& part) { push(part); return ScopeGuard{this}; }
    [[nodiscard]] ScopeGuard scope(const std::string& part, const std::string& param)
    {
        push(part, param);
        return ScopeGuard{this};
    }
    // Parameter-name prefix of the current scope: "/transformer/h.3/attn" -> "transformer.h.3.attn.".
    std::string paramPrefix() const;

    std::string input(const std::string& name, int32_t elemType, const std::vector<Dim>& dims);
    // Declares `tensor` a graph output under `name` (renames the producing node's output).
    void output(const std::string& tensor, const std::string& name, int32_t elemType,
                const std::vector<Dim>& dims);

    // A parameter or buffer: initializer with dims, bytes external. Name as torch's state_dict.
    std::string weight(const std::string& paramName, const Ints& dims,
                       int32_t elemType = onnx::TensorProto::FLOAT);
    // An int64 initializer with its data written (small buffers such as BERT's position_ids).
    std::string intInitializer(const std::string& name, const Ints& dims, const Ints& values);
    // Constant nodes in the current scope. `dims` empty = scalar.
    std::string constInts(const Ints& values, const Ints& dims);
    std::string constInts(const Ints& values) { return constInts(values, Ints{int64_t(values.size())}); }
    std::string constScalarInt(int64_t v) { return constInts({v}, {}); }
    std::string constFloat(float v) { return constFloats({v}, {}); } // 0-d float tensor
    std::string constFloats(const std::vector<float>& values, const Ints& dims);
    std::string constBool(bool v); // 0-d bool tensor

    // A node in the current scope; returns its outputs. An empty input name omits that input.
    std::vector<std::string> ops(const std::string& opType, const std::vector<std::string>& inputs,
                                 const std::vector<Attr>& attrs = {}, int outputs = 1);
    std::string op(const std::string& opType, const std::vector<std::string>& inputs,
                   const std::vector<Attr>& attrs = {})
    {
        return ops(opType, inputs, attrs, 1)[0];
    }

    // Serialized model. Deterministic: the same calls give the same bytes.
    std::string serialize();
    onnx::ModelProto& model() { return model_; }

private:
    std::string freshNodeName(const std::string& opType);
    std::string tensorName(const std::string& wanted);
    std::string constantNode(onnx::TensorProto value);

    onnx::ModelProto model_;
    onnx::GraphProto* graph_;
    int opset_;
    bool scrub_;
    std::string weightsFile_;
    int64_t externalOffset_ = 0;
    int64_t opaqueCounter_ = 0;
    std::vector<std::string> scopes_, paramScopes_;
    std::map<std::string, int> nameUses_;
    std::map<std::string, std::pair<int, int>> producer_; // tensor -> (node index, output index)
};

// The dims a symbolic-or-concrete size writes into a value_info: concrete when >= 0.
Dim dimOf(int64_t value, const char* symbol);

} // namespace tapas::zoo
