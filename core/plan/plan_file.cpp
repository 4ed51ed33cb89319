#include "core/plan/plan_file.h"

#include "core/cluster/device_limits.h"
#include "core/util/json_fields.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace tapas {

namespace {

using nlohmann::json;

uint64_t fnv(uint64_t h, std::string_view s)
{
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull;
}

json layoutsJson(const std::vector<TensorLayout>& ls)
{
    json a = json::array();
    for (const TensorLayout& l : ls) a.push_back(l.toString());
    return a;
}

json strategyJson(const OpStrategy& s)
{
    return {{"strategy", s.name}, {"inputs", layoutsJson(s.inputs)}, {"outputs", layoutsJson(s.outputs)},
            {"compute_fraction", s.computeFraction}};
}

bool sameStrategy(const OpStrategy& a, const OpStrategy& b)
{
    return a.name == b.name && a.inputs == b.inputs && a.outputs == b.outputs && a.computeFraction == b.computeFraction;
}

struct Fail {
    std::string message;
};

std::string where(const std::string& origin, const std::string& field, const std::string& what)
{
    return "plan '" + origin + "': field '" + field + "' " + what;
}

const json& need(const json& j, const char* key, const std::string& origin, const std::string& path)
{
    if (!j.is_object() || !j.contains(key)) throw Fail{where(origin, path, "is missing")};
    return j.at(key);
}

// An integer field checked exactly (no wrap through a narrower type) against [min, max].
int64_t readInteger(const json& j, const char* key, const std::string& origin, const std::string& path, int64_t min, int64_t max)
{
    Result<int64_t> v = jsonInteger(need(j, key, origin, path), min, max);
    if (!v) throw Fail{where(origin, path, v.error())};
    return *v;
}

// A finite number field in the interval; `fallback` when the field is absent (optional fields).
double readNumber(const json& j, const char* key, const std::string& origin, const std::string& path, double min, double max,
                  Interval interval = Interval::Closed, double fallback = 0)
{
    if (!j.is_object() || !j.contains(key)) return fallback;
    Result<double> v = jsonNumber(j.at(key), min, max, interval);
    if (!v) throw Fail{where(origin, path, v.error())};
    return *v;
}

std::vector<TensorLayout> readLayouts(const json& j, const std::string& origin, const std::string& path)
{
    if (!j.is_array()) throw Fail{where(origin, path, "must be an array of layouts")};
    std::vector<TensorLayout> out;
    for (const json& e : j) {
        Result<TensorLayout> l = e.is_string() ? parseTensorLayout(e.get<std::string>())
                                               : Result<TensorLayout>::failure("not a string");
        if (!l) throw Fail{where(origin, path, "holds an invalid layout " + e.dump())};
        out.push_back(*l);
    }
    return out;
}

OpStrategy readStrategy(const json& j, const std::string& origin, const std::string& path)
{
    OpStrategy s;
    const json& name = need(j, "strategy", origin, path + ".strategy");
    if (!name.is_string()) throw Fail{where(origin, path + ".strategy", "must be a string")};
    s.name = name.get<std::string>();
    s.inputs = readLayouts(need(j, "inputs", origin, path + ".inputs"), origin, path + ".inputs");
    s.outputs = readLayouts(need(j, "outputs", origin, path + ".outputs"), origin, path + ".outputs");
    need(j, "compute_fraction", origin, path + ".compute_fraction");
    s.computeFraction = readNumber(j, "compute_fraction", origin, path + ".compute_fraction", 0, 1, Interval::OpenMin);
    return s;
}

json pipelineJson(const PipelineSchedule& p)
{
    json stages = json::array();
    for (const PipelineStage& s : p.stages)
        stages.push_back({{"first_block", s.firstBlock}, {"end_block", s.endBlock}, {"device", s.device},
                          {"recompute", recomputeName(s.recompute)}, {"time_per_micro_batch_s", s.timePerMicroBatch},
                          {"weight_memory_bytes", s.weightMemory}, {"activation_memory_bytes", s.activationMemory}});
    return {{"micro_batches", p.microBatches}, {"micro_batch_size", p.microBatchSize}, {"virtual_stages", p.virtualStages},
            {"distributed_optimizer", p.distributedOptimizer}, {"bubble_fraction", p.bubbleFraction}, {"stages", stages}};
}

// The padding section of a version 3 file: tables by name with their rows; whether each padding
// is one the plan may make is checkPlan's (checkTablePadding) to say.
std::vector<TablePadding> readPadding(const json& j, const Graph& g, const std::string& origin)
{
    if (!j.is_array()) throw Fail{where(origin, "padding", "must be an array")};
    std::vector<TablePadding> out;
    constexpr int64_t kMaxRows = int64_t(1) << 40;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = "padding[" + std::to_string(i) + "]";
        const json& e = j[i];
        const json& name = need(e, "tensor", origin, at + ".tensor");
        if (!name.is_string()) throw Fail{where(origin, at + ".tensor", "must be a tensor name")};
        const TensorId t = g.findTensor(name.get<std::string>());
        if (t == kNoTensor) throw Fail{where(origin, at + ".tensor", "names '" + name.get<std::string>() + "', which the model does not have")};
        out.push_back({t, readInteger(e, "rows", origin, at + ".rows", 1, kMaxRows),
                       readInteger(e, "padded_rows", origin, at + ".padded_rows", 1, kMaxRows)});
    }
    return out;
}

// The pipeline section of a version 2 file: stages in chain order, contiguous, pp x virtual
// stages of them, each on a rank of the mesh.
PipelineSchedule readPipeline(const json& j, const DeviceMesh& mesh, const std::string& origin)
{
    PipelineSchedule p;
    p.microBatches = int(readInteger(j, "micro_batches", origin, "pipeline.micro_batches", 1, kMaxDevices));
    p.microBatchSize = int(readInteger(j, "micro_batch_size", origin, "pipeline.micro_batch_size", 0, int64_t(1) << 40));
    p.virtualStages = int(readInteger(j, "virtual_stages", origin, "pipeline.virtual_stages", 1, 1 << 20));
    const json& zero = need(j, "distributed_optimizer", origin, "pipeline.distributed_optimizer");
    if (!zero.is_boolean()) throw Fail{where(origin, "pipeline.distributed_optimizer", "must be true or false")};
    p.distributedOptimizer = zero.get<bool>();
    p.bubbleFraction = readNumber(j, "bubble_fraction", origin, "pipeline.bubble_fraction", 0, 1);
    const json& stages = need(j, "stages", origin, "pipeline.stages");
    if (!stages.is_array()) throw Fail{where(origin, "pipeline.stages", "must be an array")};
    if (!stages.empty() && int64_t(stages.size()) != int64_t(mesh.pp) * p.virtualStages)
        throw Fail{where(origin, "pipeline.stages", "has " + std::to_string(stages.size()) + " stages but mesh pp " +
                                                        std::to_string(mesh.pp) + " x virtual_stages " +
                                                        std::to_string(p.virtualStages) + " needs " +
                                                        std::to_string(int64_t(mesh.pp) * p.virtualStages))};
    if (stages.empty() && mesh.pp > 1) throw Fail{where(origin, "pipeline.stages", "is empty but mesh pp is " + std::to_string(mesh.pp))};
    constexpr double kHuge = 1e300;
    for (size_t i = 0; i < stages.size(); ++i) {
        const std::string at = "pipeline.stages[" + std::to_string(i) + "]";
        PipelineStage s;
        s.firstBlock = int(readInteger(stages[i], "first_block", origin, at + ".first_block", 0, 1 << 30));
        s.endBlock = int(readInteger(stages[i], "end_block", origin, at + ".end_block", s.firstBlock + 1, 1 << 30));
        if (i > 0 && s.firstBlock != p.stages.back().endBlock)
            throw Fail{where(origin, at + ".first_block", "is " + std::to_string(s.firstBlock) + " but the stage before ends at " +
                                                              std::to_string(p.stages.back().endBlock) + ": stages must be contiguous")};
        s.device = int(readInteger(stages[i], "device", origin, at + ".device", 0, mesh.pp - 1));
        const json& r = need(stages[i], "recompute", origin, at + ".recompute");
        if (!r.is_string() || !parseRecompute(r.get<std::string>(), &s.recompute))
            throw Fail{where(origin, at + ".recompute", "is " + r.dump() + ", expected \"none\", \"selective\" or \"full\"")};
        s.timePerMicroBatch = readNumber(stages[i], "time_per_micro_batch_s", origin, at + ".time_per_micro_batch_s", 0, kHuge);
        s.weightMemory = readNumber(stages[i], "weight_memory_bytes", origin, at + ".weight_memory_bytes", 0, kHuge);
        s.activationMemory = readNumber(stages[i], "activation_memory_bytes", origin, at + ".activation_memory_bytes", 0, kHuge);
        p.stages.push_back(s);
    }
    return p;
}

} // namespace

std::string modelHash(const Graph& g)
{
    uint64_t h = 1469598103934665603ull;
    for (const Node& n : g.nodes) {
        h = fnv(h, n.opType);
        for (TensorId t : n.inputs) h = fnv(h, t == kNoTensor ? "-" : std::to_string(t) + g.tensor(t).shape.toString());
        for (TensorId t : n.outputs) h = fnv(h, t == kNoTensor ? "-" : std::to_string(t) + g.tensor(t).shape.toString());
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string savePlanJson(const Graph& g, const FoldedGraph* folded, const ShardingPlan& plan, const ClusterSpec& cluster,
                         const CostReport& report, const PlanProvenance& provenance)
{
    const FoldedGraph single = [&] {
        FoldedGraph f;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            BlockClass c;
            c.id = int(n);
            c.instances.push_back({{n}, {}, {}});
            f.classes.push_back(std::move(c));
        }
        return f;
    }();
    const FoldedGraph& fg = folded ? *folded : single;
    json j;
    j["schema"] = "tapas-plan";
    j["version"] = plan.padding.empty() ? kUnpaddedPlanSchemaVersion : kPlanSchemaVersion;
    j["mesh"] = {{"dp", plan.mesh.dp}, {"tp", plan.mesh.tp}, {"pp", plan.mesh.pp}};
    j["pipeline"] = pipelineJson(plan.pipeline);
    if (!plan.padding.empty()) {
        json padding = json::array();
        for (const TablePadding& p : plan.padding)
            padding.push_back({{"tensor", g.tensor(p.table).name}, {"rows", p.rows}, {"padded_rows", p.paddedRows}});
        j["padding"] = padding;
    }
    j["cluster"] = json::parse(clusterSpecToJson(cluster));
    json inputs = json::array();
    for (TensorId t : g.inputs) inputs.push_back({{"name", g.tensor(t).name}, {"shape", g.tensor(t).shape.toString()}});
    j["model"] = {{"name", g.name}, {"hash", modelHash(g)}, {"nodes", g.nodes.size()}, {"inputs", inputs}};
    j["provenance"] = {{"searcher", provenance.searcher}, {"tapas_version", provenance.tapasVersion},
                       {"search_seconds", provenance.searchSeconds}};
    json classes = json::array();
    for (const BlockClass& c : fg.classes) {
        json jc;
        jc["signature"] = std::to_string(c.signature);
        json instances = json::array();
        for (const BlockInstance& inst : c.instances) instances.push_back(inst.nodes);
        jc["instances"] = instances;
        const BlockInstance& first = c.instances.front();
        json nodes = json::array();
        for (NodeId n : first.nodes) {
            json e = strategyJson(plan.nodes[size_t(n)]);
            e["op"] = g.node(n).opType;
            nodes.push_back(e);
        }
        jc["nodes"] = nodes;
        json overrides = json::array();
        for (size_t i = 1; i < c.instances.size(); ++i)
            for (size_t p = 0; p < first.nodes.size(); ++p) {
                const NodeId n = c.instances[i].nodes[p];
                if (!sameStrategy(plan.nodes[size_t(n)], plan.nodes[size_t(first.nodes[p])])) {
                    json e = strategyJson(plan.nodes[size_t(n)]);
                    e["instance"] = i;
                    e["position"] = p;
                    overrides.push_back(e);
                }
            }
        if (!overrides.empty()) jc["overrides"] = overrides;
        classes.push_back(jc);
    }
    j["classes"] = classes;
    json weights = json::array();
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
        for (size_t i = 0; i < g.node(n).inputs.size(); ++i) {
            const TensorId t = g.node(n).inputs[i];
            if (t != kNoTensor && g.tensor(t).isParameter())
                weights.push_back({{"name", g.tensor(t).name}, {"node", n}, {"layout", plan.nodes[size_t(n)].inputs[i].toString()}});
        }
    j["weights"] = weights;
    json collectives = json::array();
    for (const Reshard& r : plan.reshards)
        collectives.push_back({{"tensor", g.tensor(r.tensor).name}, {"consumer", r.consumer}, {"input", r.inputIndex},
                               {"from", r.from.toString()}, {"to", r.to.toString()},
                               {"forward", collectiveName(r.forward)}, {"backward", collectiveName(r.backward)}});
    j["collectives"] = collectives;
    const CostTerms& t = report.total;
    j["cost"] = {{"step_time_s", t.time()}, {"compute_s", t.compute}, {"tp_comm_s", t.tpComm}, {"dp_comm_s", t.dpComm},
                 {"comm_bytes_per_step", t.commBytes}, {"weight_memory_bytes", t.weightMemory},
                 {"activation_memory_bytes", t.activationMemory}, {"memory_bytes_per_device", t.memory()},
                 {"pp_comm_s", t.ppComm}, {"bubble_s", t.bubble}, {"fits", report.fits}};
    return j.dump(1);
}

Result<PlanDocument> loadPlanJson(const std::string& text, const Graph& g, const std::string& origin)
{
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return Result<PlanDocument>::failure("plan '" + origin + "': not valid JSON (corrupt or truncated)");
    try {
        if (!j.is_object() || j.value("schema", std::string()) != "tapas-plan")
            throw Fail{where(origin, "schema", "must be \"tapas-plan\"")};
        const json& v = need(j, "version", origin, "version");
        if (!v.is_number_integer() || !jsonInteger(v, kOldestPlanSchemaVersion, kPlanSchemaVersion))
            throw Fail{where(origin, "version", "is " + v.dump() + ", this build reads versions " +
                                                    std::to_string(kOldestPlanSchemaVersion) + " to " + std::to_string(kPlanSchemaVersion))};
        const int version = int(v.get<int64_t>());
        PlanDocument d;
        const json& model = need(j, "model", origin, "model");
        const json& hash = need(model, "hash", origin, "model.hash");
        d.modelHash = hash.is_string() ? hash.get<std::string>() : "";
        if (d.modelHash != modelHash(g))
            throw Fail{where(origin, "model.hash", "is " + hash.dump() + " but the model '" + g.sourcePath + "' hashes to \"" +
                                                   modelHash(g) + "\": the plan was made for another model or other input shapes")};
        const json& mesh = need(j, "mesh", origin, "mesh");
        const int64_t dp = readInteger(mesh, "dp", origin, "mesh.dp", 1, kMaxDevices);
        const int64_t tp = readInteger(mesh, "tp", origin, "mesh.tp", 1, kMaxDevices);
        // Absent (version 1, or a mesh without stages): one stage.
        const int64_t pp = version >= 2 && mesh.is_object() && mesh.contains("pp") ? readInteger(mesh, "pp", origin, "mesh.pp", 1, kMaxDevices) : 1;
        if (dp * tp > kMaxDevices / pp)
            throw Fail{where(origin, "mesh", "is " + DeviceMesh{int(dp), int(tp), int(pp)}.toString() + " = " +
                                                 std::to_string(dp * tp * pp) + " devices, more than " +
                                                 std::to_string(kMaxDevices))};
        d.plan.mesh = {int(dp), int(tp), int(pp)};
        if (version >= 2) d.plan.pipeline = readPipeline(need(j, "pipeline", origin, "pipeline"), d.plan.mesh, origin);
        if (version >= 3 && j.contains("padding")) d.plan.padding = readPadding(j["padding"], g, origin);
        Result<ClusterSpec> cluster = parseClusterSpec(need(j, "cluster", origin, "cluster").dump(), origin + "#cluster");
        if (!cluster) throw Fail{cluster.error()};
        d.cluster = *cluster;
        const json& prov = need(j, "provenance", origin, "provenance");
        d.provenance.searcher = prov.value("searcher", std::string());
        d.provenance.tapasVersion = prov.value("tapas_version", std::string());
        d.provenance.searchSeconds = readNumber(prov, "search_seconds", origin, "provenance.search_seconds", 0, 1e12);
        d.plan.nodes.assign(g.nodes.size(), OpStrategy{});
        std::vector<bool> seen(g.nodes.size(), false);
        const json& classes = need(j, "classes", origin, "classes");
        if (!classes.is_array()) throw Fail{where(origin, "classes", "must be an array")};
        for (size_t c = 0; c < classes.size(); ++c) {
            const std::string path = "classes[" + std::to_string(c) + "]";
            const json& instances = need(classes[c], "instances", origin, path + ".instances");
            const json& nodes = need(classes[c], "nodes", origin, path + ".nodes");
            if (!instances.is_array() || instances.empty() || !nodes.is_array())
                throw Fail{where(origin, path, "needs non-empty 'instances' and a 'nodes' array")};
            std::vector<OpStrategy> shared;
            for (size_t p = 0; p < nodes.size(); ++p) shared.push_back(readStrategy(nodes[p], origin, path + ".nodes[" + std::to_string(p) + "]"));
            if (instances.size() > 1) ++d.sharedClasses;
            for (size_t i = 0; i < instances.size(); ++i) {
                const json& ids = instances[i];
                if (!ids.is_array() || ids.size() != shared.size())
                    throw Fail{where(origin, path + ".instances[" + std::to_string(i) + "]", "must list one node per class entry")};
                for (size_t p = 0; p < ids.size(); ++p) {
                    const std::string at = path + ".instances[" + std::to_string(i) + "][" + std::to_string(p) + "]";
                    Result<int64_t> id = jsonInteger(ids[p], 0, int64_t(g.nodes.size()) - 1);
                    if (!id) throw Fail{where(origin, at, id.error() + ": it names a node the model does not have")};
                    const size_t n = size_t(*id);
                    if (seen[n]) throw Fail{where(origin, path, "assigns node " + std::to_string(n) + " twice")};
                    seen[n] = true;
                    d.plan.nodes[n] = shared[p];
                }
            }
            if (classes[c].contains("overrides")) {
                const json& overrides = classes[c].at("overrides");
                if (!overrides.is_array()) throw Fail{where(origin, path + ".overrides", "must be an array")};
                for (size_t k = 0; k < overrides.size(); ++k) {
                    const json& o = overrides[k];
                    const std::string at = path + ".overrides[" + std::to_string(k) + "]";
                    const size_t i = size_t(readInteger(o, "instance", origin, at + ".instance", 0, int64_t(instances.size()) - 1));
                    const size_t p = size_t(readInteger(o, "position", origin, at + ".position", 0, int64_t(shared.size()) - 1));
                    d.plan.nodes[instances[i][p].get<size_t>()] = readStrategy(o, origin, at);
                    ++d.overrides;
                }
            }
        }
        for (size_t n = 0; n < seen.size(); ++n)
            if (!seen[n]) throw Fail{where(origin, "classes", "gives no strategy for node " + std::to_string(n))};
        placeCollectives(g, d.plan);
        if (Status s = checkPlan(g, d.plan); !s) throw Fail{"plan '" + origin + "': " + s.error};
        const json& cost = need(j, "cost", origin, "cost");
        // Figures the plan was saved with; absent ones are 0, present ones must be finite and >= 0.
        constexpr double kHuge = 1e300;
        d.cost.compute = readNumber(cost, "compute_s", origin, "cost.compute_s", 0, kHuge);
        d.cost.tpComm = readNumber(cost, "tp_comm_s", origin, "cost.tp_comm_s", 0, kHuge);
        d.cost.dpComm = readNumber(cost, "dp_comm_s", origin, "cost.dp_comm_s", 0, kHuge);
        d.cost.commBytes = readNumber(cost, "comm_bytes_per_step", origin, "cost.comm_bytes_per_step", 0, kHuge);
        d.cost.weightMemory = readNumber(cost, "weight_memory_bytes", origin, "cost.weight_memory_bytes", 0, kHuge);
        d.cost.activationMemory = readNumber(cost, "activation_memory_bytes", origin, "cost.activation_memory_bytes", 0, kHuge);
        d.cost.ppComm = readNumber(cost, "pp_comm_s", origin, "cost.pp_comm_s", 0, kHuge);
        d.cost.bubble = readNumber(cost, "bubble_s", origin, "cost.bubble_s", 0, kHuge);
        return d;
    } catch (const Fail& f) {
        return Result<PlanDocument>::failure(f.message);
    } catch (const std::exception& e) {
        return Result<PlanDocument>::failure("plan '" + origin + "': malformed (" + e.what() + ")");
    }
}

Status savePlanFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    if (!out) return Status::failure("plan '" + path + "': cannot write the file");
    out << text;
    return out ? Status::success() : Status::failure("plan '" + path + "': write failed");
}

Result<PlanDocument> loadPlanFile(const std::string& path, const Graph& g)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return Result<PlanDocument>::failure("plan '" + path + "': cannot open the file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return loadPlanJson(ss.str(), g, path);
}

} // namespace tapas
