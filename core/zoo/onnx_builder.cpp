#include "core/zoo/onnx_builder.h"

#include <utility>

namespace tapas::zoo {

namespace {

int elemBytes(int32_t elemType)
{
    switch (elemType) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8: return 1;
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::DOUBLE: return 8;
    default: return 4;
    }
}

void setDims(onnx::TensorShapeProto* shape, const std::vector<Dim>& dims)
{
    for (const Dim& d : dims) {
        auto* dim = shape->add_dim();
        if (d.isKnown()) dim->set_dim_value(d.value);
        else if (d.isSymbolic()) dim->set_dim_param(d.symbol);
    }
}

void addValueInfo(onnx::ValueInfoProto* vi, const std::string& name, int32_t elemType,
                  const std::vector<Dim>& dims)
{
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    setDims(tt->mutable_shape(), dims);
}

} // namespace

Dim dimOf(int64_t value, const char* symbol)
{
    return value >= 0 ? Dim::known(value) : Dim::symbolic(symbol);
}

OnnxBuilder::OnnxBuilder(std::string graphName, int opset, bool scrubNames, std::string weightsFile)
    : opset_(opset), scrub_(scrubNames), weightsFile_(std::move(weightsFile))
{
    // What torch 1.13 writes: IR 7 for opset 14; opset 17 needs IR 8.
    model_.set_ir_version(opset >= 17 ? 8 : 7);
    model_.set_producer_name("tapas-zoo");
    model_.set_producer_version("1.13");
    auto* imp = model_.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    graph_ = model_.mutable_graph();
    graph_->set_name(std::move(graphName));
}

void OnnxBuilder::push(const std::string& part, const std::string& param)
{
    scopes_.push_back(part);
    paramScopes_.push_back(param);
}

void OnnxBuilder::pop()
{
    scopes_.pop_back();
    paramScopes_.pop_back();
}

std::string OnnxBuilder::paramPrefix() const
{
    std::string p;
    for (const std::string& s : paramScopes_)
        if (!s.empty()) p += s + ".";
    return p;
}

std::string OnnxBuilder::freshNodeName(const std::string& opType)
{
    std::string base;
    for (const std::string& s : scopes_) base += "/" + s;
    base += "/" + opType;
    int& uses = nameUses_[base];
    std::string name = uses == 0 ? base : base + "_" + std::to_string(uses);
    ++uses;
    return name;
}

std::string OnnxBuilder::tensorName(const std::string& wanted)
{
    return scrub_ ? "t" + std::to_string(opaqueCounter_++) : wanted;
}

std::string OnnxBuilder::input(const std::string& name, int32_t elemType, const std::vector<Dim>& dims)
{
    addValueInfo(graph_->add_input(), name, elemType, dims);
    return name;
}

void OnnxBuilder::output(const std::string& tensor, const std::string& name, int32_t elemType,
                         const std::vector<Dim>& dims)
{
    auto it = producer_.find(tensor);
    if (it != producer_.end()) {
        graph_->mutable_node(it->second.first)->set_output(it->second.second, name);
        producer_[name] = it->second;
        producer_.erase(it);
        // Consumers added after this point use `name`; none exist for a final output.
        for (auto& n : *graph_->mutable_node())
            for (auto& in : *n.mutable_input())
                if (in == tensor) in = name;
    }
    addValueInfo(graph_->add_output(), name, elemType, dims);
}

std::string OnnxBuilder::weight(const std::string& paramName, const Ints& dims, int32_t elemType)
{
    auto* t = graph_->add_initializer();
    const std::string name = tensorName(paramName);
    t->set_name(name);
    t->set_data_type(elemType);
    int64_t n = 1;
    for (int64_t d : dims) {
        t->add_dims(d);
        n *= d;
    }
    const int64_t length = n * elemBytes(elemType);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [t](const char* k, const std::string& v) {
        auto* e = t->add_external_data();
        e->set_key(k);
        e->set_value(v);
    };
    add("location", weightsFile_);
    add("offset", std::to_string(externalOffset_));
    add("length", std::to_string(length));
    externalOffset_ += length;
    return name;
}

std::string OnnxBuilder::intInitializer(const std::string& name, const Ints& dims, const Ints& values)
{
    auto* t = graph_->add_initializer();
    const std::string n = tensorName(name);
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return n;
}

std::string OnnxBuilder::constInts(const Ints& values, const Ints& dims)
{
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t.add_dims(d);
    for (int64_t v : values) t.add_int64_data(v);
    return constantNode(std::move(t));
}

std::string OnnxBuilder::constFloats(const std::vector<float>& values, const Ints& dims)
{
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t.add_dims(d);
    for (float v : values) t.add_float_data(v);
    return constantNode(std::move(t));
}

std::string OnnxBuilder::constBool(bool v)
{
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::BOOL);
    t.add_int32_data(v ? 1 : 0);
    return constantNode(std::move(t));
}

std::string OnnxBuilder::constantNode(onnx::TensorProto value)
{
    const std::string nodeName = freshNodeName("Constant");
    auto* node = graph_->add_node();
    const std::string out = tensorName(nodeName + "_output_0");
    if (!scrub_) node->set_name(nodeName);
    node->set_op_type("Constant");
    node->add_output(out);
    auto* a = node->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = std::move(value);
    producer_[out] = {graph_->node_size() - 1, 0};
    return out;
}

std::vector<std::string> OnnxBuilder::ops(const std::string& opType, const std::vector<std::string>& inputs,
                                          const std::vector<Attr>& attrs, int outputs)
{
    const std::string nodeName = freshNodeName(opType);
    auto* node = graph_->add_node();
    if (!scrub_) node->set_name(nodeName);
    node->set_op_type(opType);
    for (const std::string& in : inputs) node->add_input(in);
    std::vector<std::string> outs;
    for (int i = 0; i < outputs; ++i) {
        outs.push_back(tensorName(nodeName + "_output_" + std::to_string(i)));
        node->add_output(outs.back());
        producer_[outs.back()] = {graph_->node_size() - 1, i};
    }
    for (const Attr& at : attrs) {
        auto* a = node->add_attribute();
        a->set_name(at.name);
        switch (at.kind) {
        case Attr::Int:
            a->set_type(onnx::AttributeProto::INT);
            a->set_i(at.i);
            break;
        case Attr::Float:
            a->set_type(onnx::AttributeProto::FLOAT);
            a->set_f(at.f);
            break;
        case Attr::IntList:
            a->set_type(onnx::AttributeProto::INTS);
            for (int64_t v : at.ints) a->add_ints(v);
            break;
        case Attr::String:
            a->set_type(onnx::AttributeProto::STRING);
            a->set_s(at.s);
            break;
        }
    }
    return outs;
}

std::string OnnxBuilder::serialize()
{
    std::string bytes;
    model_.SerializeToString(&bytes);
    return bytes;
}

} // namespace tapas::zoo
