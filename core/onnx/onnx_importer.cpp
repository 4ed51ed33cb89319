// The import pipeline: parse -> drop weight bytes -> sort -> bind dims -> convert and our own
// shape pass (ONNX's shape inference first only where ours leaves a type incomplete, see
// onnx_shape_stage.h) -> checker. Every problem that still leaves a usable graph is
// a warning; only what makes the graph unusable (unreadable, not ONNX, cyclic) is an error.
//
// Memory: the file is parsed straight from disk, and right after parsing every tensor over
// kMaxKeptConstElements elements loses its bytes (see onnx_tensors.h). Small tensors keep them,
// because ONNX's shape inference and our shape pass read Reshape targets, Slice bounds, axes
// and Resize scales from them. So the peak is one parsed proto; afterwards it is shapes only.
#include "core/onnx/onnx_importer.h"

#include "core/onnx/onnx_attribute_check.h"
#include "core/onnx/onnx_batch_dims.h"
#include "core/onnx/onnx_convert.h"
#include "core/onnx/onnx_shape_stage.h"
#include "core/onnx/onnx_load.h"
#include "core/onnx/onnx_tensors.h"
#include "core/onnx/onnx_topo.h"
#include "core/ops/op_registry.h"
#include "core/ops/shape_fill.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>

#include <google/protobuf/arena.h>

#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <set>

namespace tapas {

namespace {

using namespace tapas::onnximport;

constexpr size_t kMaxListed = 10; // names listed in one warning before "and N more"

// One line, no trailing whitespace: ONNX's messages carry newlines and "==> Context:" tails.
std::string oneLine(std::string s)
{
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    std::string out;
    for (char c : s)
        if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::string listNames(const std::vector<std::string>& names)
{
    std::string s;
    for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) s += (i ? ", '" : "'") + names[i] + "'";
    if (names.size() > kMaxListed) s += " and " + std::to_string(names.size() - kMaxListed) + " more";
    return s;
}

void warnMissingExternalData(const DropReport& drops, const std::string& name, std::vector<std::string>& warnings)
{
    std::map<std::string, std::vector<std::string>> missing; // file -> tensors
    for (const auto& [tensor, ref] : drops.external)
        if (!ref.present) missing[ref.location].push_back(tensor);
    for (const auto& [file, tensors] : missing) {
        warnings.push_back("external data file '" + file + "' (weights of " + listNames(tensors) +
                           ") is missing next to " + name +
                           ": shapes are known, values are not; fine for inspect, fold and plan");
    }
}

// An op neither ONNX nor our registry knows is kept as an opaque node: never dropped.
void warnUnknownOps(const onnx::ModelProto& model, const Graph& g, std::vector<std::string>& warnings)
{
    std::set<std::pair<std::string, std::string>> functions;
    for (const auto& f : model.functions()) functions.emplace(f.domain(), f.name());
    std::vector<std::string> found;
    for (const Node& n : g.nodes) {
        if (functions.count({n.domain, n.opType})) continue;
        const bool onnxDomain = n.domain.empty() || n.domain == onnx::AI_ONNX_ML_DOMAIN;
        if (onnxDomain && onnx::OpSchemaRegistry::Schema(n.opType, n.domain)) continue;
        if ((n.domain.empty() || n.domain == "com.microsoft") && OpRegistry::instance().find(n.opType)) continue;
        bool anyShape = false;
        for (TensorId t : n.outputs)
            if (t != kNoTensor && g.tensor(t).shape.rankKnown) anyShape = true;
        found.push_back("node '" + n.name + "': unknown op '" + n.opType + "' in domain '" +
                        (n.domain.empty() ? std::string("ai.onnx") : n.domain) +
                        "': kept as an opaque node; " +
                        (anyShape ? "its output shapes come from the file" : "its outputs have no shape"));
    }
    for (size_t i = 0; i < found.size() && i < kMaxListed; ++i) warnings.push_back(found[i]);
    if (found.size() > kMaxListed)
        warnings.push_back(std::to_string(found.size() - kMaxListed) + " more nodes with unknown ops are kept as opaque nodes");
}

// An opset this ONNX build does not know reads every op with the newest schemas it has: say so,
// since shapes and the checker may then disagree with the producer.
void warnOpsets(const onnx::ModelProto& model, std::vector<std::string>& warnings)
{
    const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    for (const auto& op : model.opset_import()) {
        const std::string domain = op.domain() == "ai.onnx" ? std::string() : op.domain();
        const auto range = known.find(domain);
        if (range == known.end()) continue; // a custom domain: its ops get the unknown-op warning
        const std::string label = domain.empty() ? std::string("ai.onnx") : domain;
        if (op.version() > range->second.second)
            warnings.push_back("opset " + std::to_string(op.version()) + " of domain '" + label +
                               "' is newer than this build of ONNX knows (up to " + std::to_string(range->second.second) +
                               "): ops are read with the newest schemas it has");
        else if (op.version() < 1)
            warnings.push_back("opset " + std::to_string(op.version()) + " of domain '" + label +
                               "' is not a valid version: ops are read with the newest schemas");
    }
}

// A graph output that no node, graph input or initializer produces.
void warnDanglingOutputs(const onnx::GraphProto& g, std::vector<std::string>& warnings)
{
    std::set<std::string> produced;
    for (const auto& in : g.input()) produced.insert(in.name());
    for (const auto& t : g.initializer()) produced.insert(t.name());
    for (const auto& n : g.node())
        for (const std::string& o : n.output()) produced.insert(o);
    for (const auto& out : g.output())
        if (!produced.count(out.name()))
            warnings.push_back("graph output '" + out.name() + "' is produced by no node, input or initializer");
}

void warnShapeFill(const ShapeFillReport& fill, std::vector<std::string>& warnings)
{
    warnings.insert(warnings.end(), fill.ruleFailures.begin(), fill.ruleFailures.end());
    if (fill.unknown.empty()) return;
    if (fill.unknown.size() == 1) {
        warnings.push_back("the shape of tensor '" + fill.unknown[0] +
                           "' is unknown: it depends on data known only at run time or on an unknown op");
        return;
    }
    warnings.push_back(std::to_string(fill.unknown.size()) + " tensors have unknown shapes (they depend on "
                       "data known only at run time or on unknown ops): " + listNames(fill.unknown));
}

// A --dim that names no symbolic dim of the file is a mistake (a typo, another model's dim):
// refused, listing the dims the file has, so a workload is never silently ignored.
Status checkDimNames(const DimBindings& dims, const std::set<std::string>& fileSymbols, const std::string& name)
{
    std::vector<std::string> unknown;
    for (const auto& [dim, value] : dims)
        if (!fileSymbols.count(dim)) unknown.push_back(dim + "=" + std::to_string(value));
    if (unknown.empty()) return Status::success();
    std::string list, known;
    for (const std::string& u : unknown) list += (list.empty() ? "--dim " : ", --dim ") + u;
    for (const std::string& s : fileSymbols) known += (known.empty() ? "" : ", ") + s;
    return Status::failure(name + ": " + list + (unknown.size() == 1 ? " matches" : " match") + " no symbolic dim of the model" +
                           (known.empty() ? " (it has none; --batch re-batches a fixed-batch export)" : " (its symbolic dims: " + known + ")"));
}

// Whether `dims` binds a dim of a run-time input: the workload is being set, so the batch axis
// is probed (one import per symbolic input dim) to know which dims a data-parallel replica splits.
bool bindsInputDim(const onnx::GraphProto& graph, const DimBindings& dims)
{
    for (const auto& vi : graph.input()) {
        if (!vi.type().has_tensor_type()) continue;
        for (const auto& d : vi.type().tensor_type().shape().dim())
            if (d.has_dim_param() && dims.count(d.dim_param())) return true;
    }
    return false;
}

bool leavesInputDimOpen(const onnx::GraphProto& graph, const DimBindings& dims)
{
    for (const auto& vi : graph.input()) {
        if (!vi.type().has_tensor_type()) continue;
        for (const auto& d : vi.type().tensor_type().shape().dim())
            if (d.has_dim_param() && !dims.count(d.dim_param())) return true;
    }
    return false;
}

// The parsed model lives in a protobuf arena: a 100k-node graph is millions of small messages and
// strings, and allocating them one by one and freeing them again was a sixth of the import. The
// weight bytes dropped after parsing stay in the arena until the import ends, so the peak is the
// parsed file plus the Graph (which holds no weight bytes).
class ModelArena {
public:
    onnx::ModelProto& model() { return *model_; }

private:
    google::protobuf::Arena arena_;
    onnx::ModelProto* model_ = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena_);
};

// ONNX's checker, its complaints as warnings: a model it rejects may still be planned.
std::vector<std::string> checkModel(const onnx::ModelProto& model)
{
    try {
        onnx::checker::check_model(model);
    } catch (const std::exception& e) {
        return {"ONNX checker: " + oneLine(e.what())};
    } catch (...) {
        return {"ONNX checker: the model failed validation"};
    }
    return {};
}

Result<Graph> importParsed(onnx::ModelProto& model, const std::string& name, const std::string& baseDir,
                           const ImportOptions& options)
{
    const Progress& progress = options.progress;
    auto cancelled = [&] { return progress.cancelled(); };
    std::vector<std::string> warnings;

    if (Status s = checkStoredTensorDims(model.graph()); !s)
        return Result<Graph>::failure(name + ": " + s.error + "; the file is corrupt");
    if (Status s = checkAttributeValues(model.graph()); !s) return Result<Graph>::failure(name + ": " + s.error);

    warnOpsets(model, warnings);
    warnDanglingOutputs(model.graph(), warnings);

    progress(0.3, "dropping weight data");
    const DropReport drops = dropLargeTensorData(model, baseDir);
    warnMissingExternalData(drops, name, warnings);
    if (cancelled()) return Result<Graph>::failure("cancelled");

    progress(0.35, "checking node order");
    Result<TopoReport> topo = sortNodesTopologically(*model.mutable_graph(), name);
    if (!topo.ok()) return Result<Graph>::failure(topo.error());
    if (topo->reordered)
        warnings.push_back("the nodes of " + name + " are not in topological order; they were sorted");
    for (const std::string& d : topo->duplicates) warnings.push_back(d);
    for (const std::string& d : topo->dangling) warnings.push_back(d);

    const std::set<std::string> fileSymbols = collectFileSymbols(model);
    if (Status s = checkDimNames(options.dims, fileSymbols, name); !s) return Result<Graph>::failure(s.error);
    DimBindings dims = options.dims;
    std::optional<BatchProbe> probe;
    // Probing costs an import per candidate axis; with input dims still open no plan can be made
    // (the search asks for them first), so a plain probeBatch waits until they are bound.
    if (options.batch > 0 || bindsInputDim(model.graph(), dims) || (options.probeBatch && !leavesInputDimOpen(model.graph(), dims))) {
        progress(0.37, "probing the batch axis");
        probe = probeBatchAxis(model, dims, options.probeBatch || options.batch > 0, drops, fileSymbols, options.onnxInference);
        if (cancelled()) return Result<Graph>::failure("cancelled");
    }
    if (options.batch > 0) {
        if (!probe->found())
            return Result<Graph>::failure(name + ": cannot re-batch to " + std::to_string(options.batch) + ": " + probe->why);
        if (!probe->symbol.empty()) {
            const auto bound = dims.find(probe->symbol);
            if (bound != dims.end() && bound->second != options.batch)
                return Result<Graph>::failure(name + ": --batch " + std::to_string(options.batch) + " and --dim " + probe->symbol +
                                              "=" + std::to_string(bound->second) + " bind the batch twice, to different values");
            dims[probe->symbol] = options.batch;
        } else {
            setFixedBatch(model, *probe, options.batch);
        }
    }
    bindProtoDims(model, dims);
    const std::vector<ClearedOutputDim> clearedOutputDims = clearOutputOnlySymbols(model);
    if (cancelled()) return Result<Graph>::failure("cancelled");

    // The checker only reads the model, so it runs on a second core beside the conversion and
    // our shape pass; ONNX's inference (which writes value_info) waits for it to finish.
    std::future<std::vector<std::string>> checking;
    if (options.runChecker) checking = std::async(std::launch::async, [&model] { return checkModel(model); });
    std::vector<std::string> checkerWarnings;
    auto checkerDone = [&] {
        if (checking.valid()) checkerWarnings = checking.get();
    };
    TypedGraph typed = convertWithShapes(model, drops, fileSymbols, dims, options.onnxInference, progress, checkerDone);
    if (options.runChecker) progress(0.8, "checking the model");
    checkerDone();
    for (std::string& w : typed.warnings) warnings.push_back(std::move(w));
    for (std::string& w : checkerWarnings) warnings.push_back(std::move(w));
    if (cancelled()) return Result<Graph>::failure("cancelled");

    Graph g = std::move(typed.graph);
    const ShapeFillReport& fill = typed.fill;
    restoreOutputSymbols(g, clearedOutputDims);
    if (probe) applyBatchProbe(g, *probe, dims);
    g.batch.rebatched = options.batch > 0;
    warnUnknownOps(model, g, warnings);
    model.Clear();
    warnShapeFill(fill, warnings);
    for (std::string& w : g.warnings) warnings.push_back(std::move(w)); // e.g. from the shape pass
    g.warnings = std::move(warnings);
    progress(1.0, "done");
    return g;
}

} // namespace

Result<Graph> importOnnxFile(const std::string& path, const ImportOptions& options)
{
    options.progress(0.0, "reading");
    if (options.progress.cancelled()) return Result<Graph>::failure("cancelled");
    ModelArena arena;
    onnx::ModelProto& model = arena.model();
    options.progress(0.05, "parsing");
    if (Status s = parseModelFile(path, model); !s.ok()) return Result<Graph>::failure(s.error);
    if (options.progress.cancelled()) return Result<Graph>::failure("cancelled");
    const std::string baseDir = std::filesystem::path(path).parent_path().string();
    Result<Graph> g = importParsed(model, path, baseDir, options);
    if (g.ok()) g->sourcePath = path;
    return g;
}

Result<Graph> importOnnxBytes(std::string_view bytes, const std::string& displayName,
                              const std::string& baseDir, const ImportOptions& options)
{
    options.progress(0.05, "parsing");
    if (options.progress.cancelled()) return Result<Graph>::failure("cancelled");
    ModelArena arena;
    onnx::ModelProto& model = arena.model();
    if (Status s = parseModelBytes(bytes, displayName, model); !s.ok()) return Result<Graph>::failure(s.error);
    return importParsed(model, displayName, baseDir, options);
}

} // namespace tapas
