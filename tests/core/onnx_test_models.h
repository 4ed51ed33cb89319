#pragma once
// Small ONNX models built in code with the ONNX library's own protobuf classes, for the importer
// tests and the fuzz seed corpus: each one isolates one situation a real file can be in.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace tapas::testmodels {

// A dim of a value_info: a number or a symbolic name.
struct DimSpec {
    int64_t value = -1;
    std::string param;
    DimSpec(int v) : value(v) {}
    DimSpec(int64_t v) : value(v) {}
    DimSpec(const char* p) : param(p) {}
};

inline onnx::ModelProto makeModel(int64_t opset = 14)
{
    onnx::ModelProto m;
    m.set_ir_version(7);
    m.set_producer_name("tapas-tests");
    auto* op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m.mutable_graph()->set_name("test");
    return m;
}

inline void setType(onnx::ValueInfoProto* vi, int32_t elemType, const std::vector<DimSpec>& dims)
{
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    auto* shape = tt->mutable_shape();
    for (const DimSpec& d : dims) {
        auto* dim = shape->add_dim();
        if (d.param.empty()) dim->set_dim_value(d.value);
        else dim->set_dim_param(d.param);
    }
}

inline void addInput(onnx::GraphProto* g, const std::string& name, const std::vector<DimSpec>& dims,
                     int32_t elemType = onnx::TensorProto::FLOAT)
{
    auto* vi = g->add_input();
    vi->set_name(name);
    setType(vi, elemType, dims);
}

inline void addOutput(onnx::GraphProto* g, const std::string& name, const std::vector<DimSpec>& dims,
                      int32_t elemType = onnx::TensorProto::FLOAT)
{
    auto* vi = g->add_output();
    vi->set_name(name);
    setType(vi, elemType, dims);
}

inline onnx::NodeProto* addNode(onnx::GraphProto* g, const std::string& op,
                                std::initializer_list<std::string> inputs,
                                std::initializer_list<std::string> outputs,
                                const std::string& name, const std::string& domain = "")
{
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    if (!domain.empty()) n->set_domain(domain);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
}

// A float initializer filled with `fill`, stored in raw_data as exporters do.
inline onnx::TensorProto* addInitializer(onnx::GraphProto* g, const std::string& name,
                                         const std::vector<int64_t>& dims, float fill = 0.5f)
{
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
        t->add_dims(d);
        n *= d;
    }
    std::string raw(size_t(n) * sizeof(float), '\0');
    for (int64_t i = 0; i < n; ++i) std::memcpy(raw.data() + i * sizeof(float), &fill, sizeof(float));
    t->set_raw_data(raw);
    return t;
}

inline onnx::TensorProto* addInt64Initializer(onnx::GraphProto* g, const std::string& name,
                                              const std::vector<int64_t>& values)
{
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(int64_t(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return t;
}

// X[batch,3] -> Relu -> MatMul(W[3,4]) -> Add(B[4]) -> Y[batch,4].
inline onnx::ModelProto tinyMlp()
{
    onnx::ModelProto m = makeModel();
    auto* g = m.mutable_graph();
    addInput(g, "X", {"batch", 3});
    addInitializer(g, "W", {3, 4});
    addInitializer(g, "B", {4});
    addNode(g, "Relu", {"X"}, {"R"}, "/layer/Relu");
    addNode(g, "MatMul", {"R", "W"}, {"M"}, "/layer/MatMul");
    addNode(g, "Add", {"M", "B"}, {"Y"}, "/layer/Add");
    addOutput(g, "Y", {"batch", 4});
    return m;
}

// Relu -> If(cond) with a 1-node then-branch and a 2-node else-branch (both reading the Relu's
// output from the enclosing scope) -> Sigmoid. 3 main-graph nodes, 3 subgraph nodes. `elseOp`
// replaces the else-branch's first op (Abs), e.g. with one the worker has no kernel for.
inline onnx::ModelProto ifModel(const std::string& elseOp = "Abs")
{
    onnx::ModelProto m = makeModel();
    auto* g = m.mutable_graph();
    addInput(g, "cond", {}, onnx::TensorProto::BOOL);
    addInput(g, "X", {2, 3});
    addNode(g, "Relu", {"X"}, {"X1"}, "/pre/Relu");
    auto* ifNode = addNode(g, "If", {"cond"}, {"I"}, "/branch/If");
    auto* thenAttr = ifNode->add_attribute();
    thenAttr->set_name("then_branch");
    thenAttr->set_type(onnx::AttributeProto::GRAPH);
    auto* thenG = thenAttr->mutable_g();
    thenG->set_name("then");
    addNode(thenG, "Neg", {"X1"}, {"t_out"}, "/branch/then/Neg");
    addOutput(thenG, "t_out", {2, 3});
    auto* elseAttr = ifNode->add_attribute();
    elseAttr->set_name("else_branch");
    elseAttr->set_type(onnx::AttributeProto::GRAPH);
    auto* elseG = elseAttr->mutable_g();
    elseG->set_name("else");
    addNode(elseG, elseOp, {"X1"}, {"e1"}, "/branch/else/" + elseOp);
    addNode(elseG, "Exp", {"e1"}, {"e_out"}, "/branch/else/Exp");
    addOutput(elseG, "e_out", {2, 3});
    addNode(g, "Sigmoid", {"I"}, {"Y"}, "/post/Sigmoid");
    addOutput(g, "Y", {2, 3});
    return m;
}

// If(cond) whose then-branch does what Silero VAD's LSTM branch does to its weights: slices the
// outer initializer W[64,128] in two (columns 0-31, 32-127), concatenates them back in the
// other order and multiplies in[8,64] by that; the else-branch multiplies by W itself. After
// the If, y = Relu(I) + I.
inline onnx::ModelProto slicedWeightIfModel()
{
    onnx::ModelProto m = makeModel();
    auto* g = m.mutable_graph();
    addInput(g, "cond", {}, onnx::TensorProto::BOOL);
    addInput(g, "in", {8, 64});
    addInitializer(g, "W", {64, 128});
    addInt64Initializer(g, "zero", {0});
    addInt64Initializer(g, "split", {32});
    addInt64Initializer(g, "end", {128});
    addInt64Initializer(g, "axis", {1});
    auto* ifNode = addNode(g, "If", {"cond"}, {"I"}, "/rnn/If");
    auto branch = [&](const char* attr, const char* name) {
        auto* a = ifNode->add_attribute();
        a->set_name(attr);
        a->set_type(onnx::AttributeProto::GRAPH);
        auto* b = a->mutable_g();
        b->set_name(name);
        return b;
    };
    auto* thenG = branch("then_branch", "then");
    addNode(thenG, "Slice", {"W", "zero", "split", "axis"}, {"A"}, "/rnn/then/Slice");
    addNode(thenG, "Slice", {"W", "split", "end", "axis"}, {"B"}, "/rnn/then/Slice_1");
    auto* concat = addNode(thenG, "Concat", {"B", "A"}, {"C"}, "/rnn/then/Concat");
    auto* axis = concat->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(1);
    addNode(thenG, "MatMul", {"in", "C"}, {"t_out"}, "/rnn/then/MatMul");
    addOutput(thenG, "t_out", {8, 128});
    auto* elseG = branch("else_branch", "else");
    addNode(elseG, "MatMul", {"in", "W"}, {"e_out"}, "/rnn/else/MatMul");
    addOutput(elseG, "e_out", {8, 128});
    addNode(g, "Relu", {"I"}, {"r"}, "/post/Relu");
    addNode(g, "Add", {"r", "I"}, {"y"}, "/post/Add");
    addOutput(g, "y", {8, 128});
    return m;
}

// X -> Relu -> com.acme::Foo -> Relu -> Y: an op no one knows, in a domain no one knows.
// Conv(3x3, 8 -> 8 channels) then `pool` (MaxPool or AveragePool, 2x2), on [1,8,16,16]; the
// attribute tests overwrite one attribute of one of them.
inline onnx::ModelProto convPoolModel(const std::string& pool = "MaxPool")
{
    onnx::ModelProto m = makeModel(13);
    auto* g = m.mutable_graph();
    addInput(g, "x", {1, 8, 16, 16});
    addInitializer(g, "W", {8, 8, 3, 3});
    auto* conv = addNode(g, "Conv", {"x", "W"}, {"c"}, "/net/conv/Conv");
    auto setInts = [](onnx::NodeProto* n, const std::string& name, std::initializer_list<int64_t> values) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t v : values) a->add_ints(v);
    };
    setInts(conv, "kernel_shape", {3, 3});
    setInts(conv, "strides", {1, 1});
    setInts(conv, "pads", {1, 1, 1, 1});
    auto* group = conv->add_attribute();
    group->set_name("group");
    group->set_type(onnx::AttributeProto::INT);
    group->set_i(1);
    auto* p = addNode(g, pool, {"c"}, {"y"}, "/net/pool/" + pool);
    setInts(p, "kernel_shape", {2, 2});
    setInts(p, "strides", {2, 2});
    addOutput(g, "y", {1, 8, 8, 8});
    return m;
}

// The attribute `name` of the node at `index`, which must exist.
inline onnx::AttributeProto* attributeOf(onnx::ModelProto& m, int index, const std::string& name)
{
    for (auto& a : *m.mutable_graph()->mutable_node(index)->mutable_attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

inline onnx::ModelProto unknownOpModel()
{
    onnx::ModelProto m = makeModel();
    auto* acme = m.add_opset_import();
    acme->set_domain("com.acme");
    acme->set_version(1);
    auto* g = m.mutable_graph();
    addInput(g, "X", {1, 8});
    addNode(g, "Relu", {"X"}, {"A"}, "/x/Relu_1");
    addNode(g, "Foo", {"A"}, {"F"}, "/x/Foo_3", "com.acme");
    addNode(g, "Relu", {"F"}, {"Y"}, "/x/Relu_4");
    addOutput(g, "Y", {1, 8});
    return m;
}

// X -> com.acme::Foo -> Shape at opset 15: the Shape reads a tensor no one can type. ONNX 1.12's
// data propagation dereferences that missing type (a segfault in libonnx), so the importer must
// not hand it such a graph with data propagation on.
inline onnx::ModelProto unknownOpIntoShapeModel()
{
    onnx::ModelProto m = makeModel(15);
    auto* acme = m.add_opset_import();
    acme->set_domain("com.acme");
    acme->set_version(1);
    auto* g = m.mutable_graph();
    addInput(g, "X", {1, 8});
    addNode(g, "Foo", {"X"}, {"F"}, "/x/Foo", "com.acme");
    addNode(g, "Shape", {"F"}, {"S"}, "/x/Shape");
    addOutput(g, "S", {2}, onnx::TensorProto::INT64);
    return m;
}

// Add reads the output of Relu, which reads the output of Add: a cycle.
inline onnx::ModelProto cycleModel()
{
    onnx::ModelProto m = makeModel();
    auto* g = m.mutable_graph();
    addInput(g, "X", {1, 4});
    addNode(g, "Add", {"X", "loop_b"}, {"loop_a"}, "/block/Add_0");
    addNode(g, "Relu", {"loop_a"}, {"loop_b"}, "/block/Relu_1");
    addNode(g, "Sigmoid", {"loop_a"}, {"Y"}, "/head/Sigmoid");
    addOutput(g, "Y", {1, 4});
    return m;
}

// tinyMlp with its nodes written in reverse order.
inline onnx::ModelProto unsortedModel()
{
    onnx::ModelProto m = tinyMlp();
    auto* nodes = m.mutable_graph()->mutable_node();
    nodes->SwapElements(0, 2);
    return m;
}

// tinyMlp whose W (3x4096 floats) lives in an external file `location` that is not shipped.
inline onnx::ModelProto externalDataModel(const std::string& location)
{
    onnx::ModelProto m = makeModel();
    auto* g = m.mutable_graph();
    addInput(g, "X", {"batch", 3});
    auto* w = g->add_initializer();
    w->set_name("W");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(3);
    w->add_dims(4096);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* loc = w->add_external_data();
    loc->set_key("location");
    loc->set_value(location);
    auto* len = w->add_external_data();
    len->set_key("length");
    len->set_value(std::to_string(3 * 4096 * 4));
    addNode(g, "MatMul", {"X", "W"}, {"Y"}, "/proj/MatMul");
    addOutput(g, "Y", {"batch", 4096});
    return m;
}

inline std::string serialize(const onnx::ModelProto& m)
{
    std::string bytes;
    m.SerializeToString(&bytes);
    return bytes;
}

} // namespace tapas::testmodels
