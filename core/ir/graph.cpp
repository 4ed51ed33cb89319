#include "core/ir/graph.h"

#include <algorithm>
#include <set>

namespace tapas {

int64_t Tensor::storedElements() const
{
    if (kind != TensorKind::Weight && kind != TensorKind::Constant) return 0;
    return shape.numElementsOr(1);
}

bool Tensor::isParameter() const
{
    return (kind == TensorKind::Weight || kind == TensorKind::Constant) && dtypeIsFloating(dtype);
}

const Attribute* Node::attr(std::string_view n) const
{
    for (const Attribute& a : attrs)
        if (a.name == n) return &a;
    return nullptr;
}

int64_t Node::attrInt(std::string_view n, int64_t def) const
{
    const Attribute* a = attr(n);
    return a && a->kind == Attribute::Kind::Int ? a->i : def;
}

double Node::attrFloat(std::string_view n, double def) const
{
    const Attribute* a = attr(n);
    if (!a) return def;
    if (a->kind == Attribute::Kind::Float) return a->f;
    if (a->kind == Attribute::Kind::Int) return double(a->i);
    return def;
}

std::string Node::attrString(std::string_view n, std::string_view def) const
{
    const Attribute* a = attr(n);
    return a && a->kind == Attribute::Kind::String ? a->s : std::string(def);
}

std::vector<int64_t> Node::attrInts(std::string_view n) const
{
    const Attribute* a = attr(n);
    if (!a) return {};
    if (a->kind == Attribute::Kind::Ints) return a->ints;
    if (a->kind == Attribute::Kind::Int) return {a->i};
    return {};
}

std::string scopeFromNodeName(std::string_view nodeName)
{
    // Exporters name nodes "/scope/sub/OpType_3"; the scope is everything before the last '/'.
    const size_t slash = nodeName.rfind('/');
    if (slash == std::string_view::npos || slash == 0) return {};
    return std::string(nodeName.substr(0, slash));
}

TensorId Graph::findTensor(std::string_view tensorName) const
{
    auto it = index_.find(std::string(tensorName));
    return it == index_.end() ? kNoTensor : it->second;
}

TensorId Graph::addTensor(Tensor t)
{
    const TensorId id = TensorId(tensors.size());
    index_.emplace(t.name, id);
    tensors.push_back(std::move(t));
    return id;
}

TensorId Graph::tensorFor(const std::string& tensorName)
{
    TensorId id = findTensor(tensorName);
    if (id != kNoTensor) return id;
    Tensor t;
    t.name = tensorName;
    return addTensor(std::move(t));
}

NodeId Graph::addNode(Node n)
{
    const NodeId id = NodeId(nodes.size());
    for (TensorId t : n.inputs)
        if (t != kNoTensor) tensors[size_t(t)].consumers.push_back(id);
    for (TensorId t : n.outputs)
        if (t != kNoTensor) tensors[size_t(t)].producer = id;
    nodes.push_back(std::move(n));
    return id;
}

void Graph::rebuildLinks()
{
    index_.clear();
    for (size_t i = 0; i < tensors.size(); ++i) {
        index_.emplace(tensors[i].name, TensorId(i));
        tensors[i].consumers.clear();
        if (tensors[i].kind == TensorKind::Activation || tensors[i].kind == TensorKind::Constant)
            tensors[i].producer = kNoNode;
    }
    for (size_t n = 0; n < nodes.size(); ++n) {
        for (TensorId t : nodes[n].inputs)
            if (t != kNoTensor) tensors[size_t(t)].consumers.push_back(NodeId(n));
        for (TensorId t : nodes[n].outputs)
            if (t != kNoTensor) tensors[size_t(t)].producer = NodeId(n);
    }
}

int64_t Graph::opsetVersion(std::string_view domain) const
{
    for (const auto& [d, v] : opsets)
        if (d == domain || (domain.empty() && d == "ai.onnx")) return v;
    return 0;
}

int64_t Graph::parameterCount() const
{
    int64_t n = 0;
    for (const Tensor& t : tensors)
        if (t.isParameter()) n += t.storedElements();
    return n;
}

int64_t Graph::parameterBytes() const
{
    int64_t n = 0;
    for (const Tensor& t : tensors)
        if (t.isParameter()) n += t.storedElements() * dtypeBytes(t.dtype);
    return n;
}

std::vector<std::string> Graph::symbolicDims() const
{
    std::set<std::string> names;
    for (const Tensor& t : tensors)
        for (const Dim& d : t.shape.dims)
            if (d.isSymbolic()) names.insert(d.symbol);
    return {names.begin(), names.end()};
}

std::string nodeLabel(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    return "node '" + (node.name.empty() ? "#" + std::to_string(n) : node.name) + "' (" + node.opType + ")";
}

} // namespace tapas
