#include "core/report/model_summary.h"

#include "core/ops/op_registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace tapas {

namespace {

TensorSummary describe(const Graph& g, TensorId id)
{
    const Tensor& t = g.tensor(id);
    return {t.name, std::string(dtypeName(t.dtype)), t.shape.toString()};
}

std::string opKey(const Node& n)
{
    // Ops of other domains keep their domain so "com.acme::Foo" never merges with an ONNX "Foo".
    if (n.domain.empty() || n.domain == "ai.onnx") return n.opType;
    return n.domain + "::" + n.opType;
}

std::string withThousands(int64_t v)
{
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string padRight(std::string s, size_t width)
{
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// The dim names inside symbolic dims, which may be expressions the shape pass built
// ("4*batch", "batch*seq"): those are what --dim binds.
std::vector<std::string> baseDimNames(const std::vector<std::string>& symbols)
{
    std::set<std::string> names;
    for (const std::string& sym : symbols) {
        std::string token;
        auto flush = [&] {
            const bool number = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
            if (!token.empty() && !number) names.insert(token);
            token.clear();
        };
        for (char c : sym) {
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
                static_cast<unsigned char>(c) >= 0x80)
                token += c;
            else
                flush();
        }
        flush();
    }
    return {names.begin(), names.end()};
}

std::string joined(const std::vector<std::string>& v, const char* sep)
{
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

} // namespace

ModelSummary summarizeModel(const Graph& g)
{
    ModelSummary s;
    s.file = g.sourcePath;
    s.producer = g.producerName;
    if (!g.producerVersion.empty()) s.producer += (s.producer.empty() ? "" : " ") + g.producerVersion;
    s.opset = g.opsetVersion("");
    s.nodes = int64_t(g.nodes.size());
    s.params = g.parameterCount();
    s.paramBytes = g.parameterBytes();
    for (const Node& n : g.nodes) {
        s.flops += nodeCost(g, n).flops;
        s.ops[opKey(n)]++;
    }
    for (size_t i = 0; i < g.tensors.size(); ++i)
        if (g.tensors[i].kind == TensorKind::Activation) s.activationBytes += tensorBytes(g, TensorId(i));
    for (TensorId t : g.inputs) s.inputs.push_back(describe(g, t));
    for (TensorId t : g.outputs) s.outputs.push_back(describe(g, t));
    s.symbolicDims = baseDimNames(g.symbolicDims());
    s.warnings = g.warnings;
    s.workerGaps = workerGaps(g);
    if (!s.symbolicDims.empty()) {
        std::string example;
        for (const std::string& d : s.symbolicDims) example += " --dim " + d + "=N";
        s.warnings.push_back("dims left symbolic (" + joined(s.symbolicDims, ", ") +
                             ") count as 1 in flops and activation_bytes; bind them, e.g." + example);
    }
    return s;
}

nlohmann::json summaryToJson(const ModelSummary& s)
{
    auto tensors = [](const std::vector<TensorSummary>& v) {
        nlohmann::json a = nlohmann::json::array();
        for (const TensorSummary& t : v) a.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
        return a;
    };
    nlohmann::json j;
    j["file"] = s.file;
    j["producer"] = s.producer;
    j["opset"] = s.opset;
    j["nodes"] = s.nodes;
    j["params"] = s.params;
    j["param_bytes"] = s.paramBytes;
    j["flops"] = s.flops;
    j["activation_bytes"] = s.activationBytes;
    j["ops"] = nlohmann::json::object();
    for (const auto& [op, count] : s.ops) j["ops"][op] = count;
    j["inputs"] = tensors(s.inputs);
    j["outputs"] = tensors(s.outputs);
    j["symbolic_dims"] = s.symbolicDims;
    j["warnings"] = s.warnings;
    j["runnable_by_worker"] = s.workerGaps.empty();
    j["worker_gaps"] = nlohmann::json::array();
    for (const WorkerGap& gap : s.workerGaps)
        j["worker_gaps"].push_back({{"op", gap.opType}, {"nodes", gap.nodes}, {"first_node", gap.firstNode}, {"why", gap.why}});
    return j;
}

std::string summaryToText(const ModelSummary& s)
{
    std::string out;
    auto line = [&](const std::string& label, const std::string& value) {
        out += padRight(label, 13) + value + "\n";
    };
    line("Model", s.file.empty() ? "(in memory)" : s.file);
    if (!s.producer.empty()) line("Producer", s.producer);
    line("Opset", std::to_string(s.opset));
    line("Nodes", withThousands(s.nodes));
    line("Parameters", humanCount(double(s.params)) + " (" + withThousands(s.params) + "), " +
                           humanBytes(double(s.paramBytes)));
    line("FLOPs", humanCount(s.flops) + " per forward pass");
    line("Activations", humanBytes(s.activationBytes));
    line("Runnable", "by tapas-worker: " + describeWorkerSupport(s.workerGaps));

    auto tensorTable = [&](const char* title, const std::vector<TensorSummary>& v) {
        out += std::string("\n") + title + "\n";
        size_t nameWidth = 4, typeWidth = 5;
        for (const TensorSummary& t : v) {
            nameWidth = std::max(nameWidth, t.name.size());
            typeWidth = std::max(typeWidth, t.dtype.size());
        }
        for (const TensorSummary& t : v)
            out += "  " + padRight(t.name, nameWidth + 2) + padRight(t.dtype, typeWidth + 2) + t.shape + "\n";
        if (v.empty()) out += "  (none)\n";
    };
    tensorTable("Inputs", s.inputs);
    tensorTable("Outputs", s.outputs);
    if (!s.symbolicDims.empty()) out += "\nSymbolic dims: " + joined(s.symbolicDims, ", ") + "\n";

    std::vector<std::pair<std::string, int64_t>> ops(s.ops.begin(), s.ops.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    size_t opWidth = 2;
    for (const auto& [op, count] : ops) opWidth = std::max(opWidth, op.size());
    out += "\nOps (" + std::to_string(ops.size()) + " types)\n";
    for (const auto& [op, count] : ops) {
        std::string c = withThousands(count);
        out += "  " + padRight(op, opWidth + 2) + std::string(c.size() < 6 ? 6 - c.size() : 0, ' ') + c + "\n";
    }
    if (!s.warnings.empty()) {
        out += "\nWarnings (" + std::to_string(s.warnings.size()) + ")\n";
        for (const std::string& w : s.warnings) out += "  - " + w + "\n";
    }
    return out;
}

} // namespace tapas
