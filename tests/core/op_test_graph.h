#pragma once
// A tiny builder for in-memory test graphs: tensors and nodes through the IR API, as the
// importer would leave them (activations without shapes, constants with values).
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tapas::testing {

inline Dim sym(const char* s) { return Dim::symbolic(s); }
inline Dim num(int64_t v) { return Dim::known(v); }

inline Attribute intAttr(const std::string& name, int64_t v)
{
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return a;
}

inline Attribute intsAttr(const std::string& name, std::vector<int64_t> v)
{
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return a;
}

inline Attribute floatsAttr(const std::string& name, std::vector<double> v)
{
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Floats;
    a.floats = std::move(v);
    return a;
}

inline Attribute strAttr(const std::string& name, std::string v)
{
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::String;
    a.s = std::move(v);
    return a;
}

inline Attribute tensorAttr(const std::string& name, ConstValue v)
{
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Tensor;
    a.tensorElements = v.shape.numElementsOr(1);
    a.tensor = std::move(v);
    return a;
}

class TestGraph {
public:
    Graph g;

    TensorId input(const std::string& name, Shape s, DType t = DType::Float32)
    {
        Tensor ten;
        ten.name = name;
        ten.dtype = t;
        ten.shape = std::move(s);
        ten.kind = TensorKind::Input;
        const TensorId id = g.addTensor(std::move(ten));
        g.inputs.push_back(id);
        return id;
    }
    TensorId input(const std::string& name, std::vector<Dim> dims, DType t = DType::Float32)
    {
        return input(name, Shape::ofDims(std::move(dims)), t);
    }
    TensorId weight(const std::string& name, Shape s, DType t = DType::Float32)
    {
        Tensor ten;
        ten.name = name;
        ten.dtype = t;
        ten.shape = std::move(s);
        ten.kind = TensorKind::Weight;
        return g.addTensor(std::move(ten));
    }
    // A small int64 initializer with its value (axes, Reshape targets, Slice bounds).
    TensorId ints(const std::string& name, std::vector<int64_t> v, bool scalar = false)
    {
        Tensor ten;
        ten.name = name;
        ten.dtype = DType::Int64;
        ten.shape = scalar ? Shape::of({}) : Shape::of({int64_t(v.size())});
        ten.kind = TensorKind::Weight;
        ConstValue c;
        c.dtype = DType::Int64;
        c.shape = ten.shape;
        c.ints = std::move(v);
        ten.value = std::move(c);
        return g.addTensor(std::move(ten));
    }
    // Adds a node whose outputs are new activation tensors without shape or dtype.
    std::vector<TensorId> node(const std::string& op, std::vector<TensorId> inputs, size_t numOutputs = 1,
                               std::vector<Attribute> attrs = {}, const std::string& domain = "")
    {
        Node n;
        n.name = op + "_" + std::to_string(g.nodes.size());
        n.opType = op;
        n.domain = domain;
        n.inputs = std::move(inputs);
        n.attrs = std::move(attrs);
        for (size_t i = 0; i < numOutputs; ++i) {
            Tensor t;
            t.name = n.name + "_out" + std::to_string(i);
            n.outputs.push_back(g.addTensor(std::move(t)));
        }
        std::vector<TensorId> outs = n.outputs;
        g.addNode(std::move(n));
        return outs;
    }
    TensorId op(const std::string& op, std::vector<TensorId> inputs, std::vector<Attribute> attrs = {})
    {
        return node(op, std::move(inputs), 1, std::move(attrs))[0];
    }
    const Shape& shape(TensorId t) const { return g.tensor(t).shape; }
    std::string str(TensorId t) const { return g.tensor(t).shape.toString(); }
};

} // namespace tapas::testing
