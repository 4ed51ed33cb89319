#include "core/onnx/onnx_infer.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_set>

namespace tapas::onnximport {

namespace {

using NameSet = std::unordered_set<std::string>;
using Opsets = std::multimap<std::string, int64_t>; // a hostile file may import a domain twice

std::string oneLine(std::string s)
{
    std::string out;
    for (char c : s) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void addTyped(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos, NameSet& typed)
{
    for (const auto& vi : infos)
        if (vi.has_type() && vi.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) typed.insert(vi.name());
}

bool graphSafe(const onnx::GraphProto& g, NameSet typed, const Opsets& opsets)
{
    addTyped(g.input(), typed);
    addTyped(g.value_info(), typed);
    for (const auto& t : g.initializer()) typed.insert(t.name());
    for (const auto& s : g.sparse_initializer()) typed.insert(s.values().name());
    for (const auto& node : g.node()) {
        const std::string domain = node.domain() == "ai.onnx" ? std::string() : node.domain();
        // Whichever version ONNX picks, a data-propagation function there makes typed inputs a must.
        auto hasDataPropagation = [](const onnx::OpSchema* schema) {
            return schema && schema->has_data_propagation_function();
        };
        bool propagates = hasDataPropagation(onnx::OpSchemaRegistry::Schema(node.op_type(), domain));
        auto [from, to] = opsets.equal_range(domain);
        for (auto v = from; v != to && !propagates; ++v) {
            const int version = int(std::clamp<int64_t>(v->second, 1, INT_MAX));
            propagates = hasDataPropagation(onnx::OpSchemaRegistry::Schema(node.op_type(), version, domain));
        }
        if (propagates) {
            for (const std::string& in : node.input())
                if (!in.empty() && !typed.count(in)) return false;
        }
        for (const auto& a : node.attribute()) {
            if (a.has_g() && !graphSafe(a.g(), typed, opsets)) return false;
            for (const auto& sub : a.graphs())
                if (!graphSafe(sub, typed, opsets)) return false;
        }
    }
    return true;
}

bool infer(onnx::ModelProto& model, bool dataPropagation, std::vector<std::string>& warnings)
{
    try {
        onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0, dataPropagation};
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
        return true;
    } catch (const std::exception& e) {
        warnings.push_back("ONNX shape inference stopped early: " + oneLine(e.what()) +
                           "; the remaining shapes come from Tapas's own shape pass");
    } catch (...) {
        warnings.push_back("ONNX shape inference stopped early; the remaining shapes come from Tapas's own shape pass");
    }
    return false;
}

} // namespace

std::vector<std::string> runShapeInference(onnx::ModelProto& model)
{
    std::vector<std::string> warnings;
    if (!infer(model, false, warnings)) return warnings;
    Opsets opsets;
    for (const auto& op : model.opset_import())
        opsets.emplace(op.domain() == "ai.onnx" ? std::string() : op.domain(), op.version());
    if (graphSafe(model.graph(), {}, opsets)) infer(model, true, warnings);
    return warnings;
}

} // namespace tapas::onnximport
