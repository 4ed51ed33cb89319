#include "core/onnx/onnx_infer.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>
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

// ONNX 1.12's ConvTranspose inference reads dim 1 of the weight without checking its rank
// (SIGSEGV on a rank-1 weight; found by fuzz_onnx_structure). Only a weight whose rank is known
// before inference (initializer, Constant, graph input, value_info) can be proven safe; otherwise
// the whole inference is skipped and Tapas's own shape pass fills the shapes. Returns the node
// that stops it, or "".
std::string inferenceHazard(const onnx::GraphProto& g)
{
    std::unordered_map<std::string, int> rank;
    for (const auto& t : g.initializer()) rank[t.name()] = t.dims_size();
    auto addInfos = [&](const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos) {
        for (const auto& vi : infos)
            if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
                rank.emplace(vi.name(), vi.type().tensor_type().shape().dim_size());
    };
    addInfos(g.input());
    addInfos(g.value_info());
    for (const auto& n : g.node())
        if (n.op_type() == "Constant" && n.output_size())
            for (const auto& a : n.attribute())
                if (a.has_t()) rank[n.output(0)] = a.t().dims_size();
    for (const auto& n : g.node()) {
        if (n.op_type() == "ConvTranspose" && (n.domain().empty() || n.domain() == "ai.onnx")) {
            const auto r = n.input_size() > 1 ? rank.find(n.input(1)) : rank.end();
            if (r == rank.end() || r->second < 2)
                return "node '" + n.name() + "' (ConvTranspose) has a weight of " +
                       (r == rank.end() ? std::string("unknown rank") : "rank " + std::to_string(r->second));
        }
        for (const auto& a : n.attribute()) {
            if (a.has_g())
                if (std::string h = inferenceHazard(a.g()); !h.empty()) return h;
            for (const auto& sub : a.graphs())
                if (std::string h = inferenceHazard(sub); !h.empty()) return h;
        }
    }
    return {};
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
    if (std::string hazard = inferenceHazard(model.graph()); !hazard.empty()) {
        warnings.push_back("ONNX shape inference was not run: " + hazard +
                           ", on which it crashes; the shapes come from Tapas's own shape pass");
        return warnings;
    }
    if (!infer(model, false, warnings)) return warnings;
    Opsets opsets;
    for (const auto& op : model.opset_import())
        opsets.emplace(op.domain() == "ai.onnx" ? std::string() : op.domain(), op.version());
    if (graphSafe(model.graph(), {}, opsets)) infer(model, true, warnings);
    return warnings;
}

} // namespace tapas::onnximport
