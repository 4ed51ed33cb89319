#include "core/plan/export_common.h"

#include <algorithm>
#include <cstdio>

namespace tapas {

namespace {

bool hasControl(const std::string& s)
{
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return true;
    return false;
}

Status checkText(const std::string& what, const std::string& value)
{
    if (hasControl(value))
        return Status::failure(what + " '" + commentSafe(value) + "' contains a control character (newline, tab, ...)");
    return Status::success();
}

std::string range(int a, int b) { return a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b); }

} // namespace

bool isPlainHostName(const std::string& host)
{
    if (host.empty() || host.size() > 253 || host.front() == '-') return false;
    for (unsigned char c : host)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    return true;
}

std::string shellQuote(const std::string& s)
{
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string pythonString(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

std::string commentSafe(const std::string& s)
{
    std::string out = s;
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return out;
}

Status checkExportInput(const ExportInput& in)
{
    if (!in.graph || !in.plan || !in.cluster) return Status::failure("no model, plan or cluster given");
    if (in.plan->nodes.size() != in.graph->nodes.size())
        return Status::failure("the plan has " + std::to_string(in.plan->nodes.size()) + " node strategies for a model of " +
                               std::to_string(in.graph->nodes.size()) + " nodes");
    return Status::success();
}

Result<LaunchLayout> resolveLaunchLayout(const ExportInput& in, const ExportOptions& o)
{
    if (Status s = checkExportInput(in); !s) return Result<LaunchLayout>::failure(s.error);
    LaunchLayout l;
    l.mesh = in.plan->mesh;
    l.ranks = l.mesh.size();
    l.gpusPerNode = o.gpusPerNode > 0 ? o.gpusPerNode : in.cluster->devicesPerNode;
    if (l.gpusPerNode < 1) return Result<LaunchLayout>::failure("GPUs per node must be at least 1");
    if (l.ranks < 1) return Result<LaunchLayout>::failure("the plan's mesh has no devices");
    const int nodes = (l.ranks + l.gpusPerNode - 1) / l.gpusPerNode;
    for (size_t i = 0; i < o.hosts.size(); ++i)
        if (!isPlainHostName(o.hosts[i]))
            return Result<LaunchLayout>::failure("host '" + commentSafe(o.hosts[i]) + "' (position " + std::to_string(i + 1) +
                                                 " in the host list) is not a plain host name: only letters, digits, '.', '_' "
                                                 "and '-' are allowed, and it may not start with '-'");
    l.hostsGiven = !o.hosts.empty();
    if (l.hostsGiven && int(o.hosts.size()) < nodes)
        return Result<LaunchLayout>::failure("the plan's mesh " + l.mesh.toString() + " needs " + std::to_string(l.ranks) +
                                             " ranks, that is " + std::to_string(nodes) + " nodes of " + std::to_string(l.gpusPerNode) +
                                             " GPUs, but " + std::to_string(o.hosts.size()) + " host(s) were given");
    for (int n = 0; n < nodes; ++n) {
        if (l.hostsGiven) {
            l.hosts.push_back(o.hosts[size_t(n)]);
        } else {
            char name[32];
            std::snprintf(name, sizeof name, "node%02d", n + 1);
            l.hosts.push_back(name);
        }
        l.slots.push_back(std::min(l.gpusPerNode, l.ranks - n * l.gpusPerNode));
    }
    l.unusedHosts = l.hostsGiven ? int(o.hosts.size()) - nodes : 0;
    l.pipeline = in.plan->pipeline;
    l.worker = o.workerPath.empty() ? "tapas-worker" : o.workerPath;
    l.model = !o.modelPath.empty() ? o.modelPath : !in.graph->sourcePath.empty() ? in.graph->sourcePath : "model.onnx";
    l.plan = o.planPath.empty() ? "plan.tapas.json" : o.planPath;
    l.runDir = o.runDir.empty() ? "runs/" + o.jobName : o.runDir;
    for (const auto& [what, value] : {std::pair<std::string, std::string>{"worker path", l.worker}, {"model path", l.model},
                                      {"plan path", l.plan}, {"run directory", l.runDir}})
        if (Status s = checkText("" + what, value); !s) return Result<LaunchLayout>::failure(s.error);
    if (o.jobName.empty() || !isPlainHostName(o.jobName))
        return Result<LaunchLayout>::failure("job name '" + commentSafe(o.jobName) +
                                             "' may only hold letters, digits, '.', '_' and '-'");
    if (o.timeLimit.empty() || o.timeLimit.find_first_not_of("0123456789:-") != std::string::npos)
        return Result<LaunchLayout>::failure("time limit '" + commentSafe(o.timeLimit) +
                                             "' must look like HH:MM:SS or D-HH:MM:SS");
    if (o.steps < 1) return Result<LaunchLayout>::failure("steps must be at least 1");
    return l;
}

CostReport exportReport(const ExportInput& in)
{
    if (in.report) return *in.report;
    const PlanGraph planGraph(*in.graph, *in.plan); // the plan's cost is its padded tables'
    const CostModel model(planGraph.graph(), *in.cluster, in.plan->mesh);
    return evaluatePlan(*in.plan, model, in.folded);
}

std::string exportHeader(const ExportInput& in, const std::string& format, const std::string& comment)
{
    const CostReport r = exportReport(in);
    const DeviceMesh& m = in.plan->mesh;
    char cost[160];
    std::snprintf(cost, sizeof cost, "predicted step %.3f ms, %.2f GB per device%s", r.total.time() * 1e3, r.total.memory() / 1e9,
                  r.fits ? "" : " (does NOT fit the device memory)");
    std::string h;
    h += comment + "Exported by Tapas Studio (tapas export --format " + format + ").\n";
    h += comment + "Model '" + commentSafe(in.graph->name) + "' (" + std::to_string(in.graph->nodes.size()) + " nodes, hash " +
         modelHash(*in.graph) + "), cluster '" + commentSafe(in.cluster->name) + "'.\n";
    h += comment + "Plan by searcher '" + commentSafe(in.provenance.searcher.empty() ? "unknown" : in.provenance.searcher) + "'" +
         (in.provenance.tapasVersion.empty() ? "" : " (tapas " + commentSafe(in.provenance.tapasVersion) + ")") + ": mesh " +
         m.toString() + " (dp " + std::to_string(m.dp) + (m.pp > 1 ? " x pp " + std::to_string(m.pp) : std::string()) +
         " x tp " + std::to_string(m.tp) + "), " +
         std::to_string(in.plan->reshards.size()) + " collectives, " + cost + ".\n";
    if (!in.plan->padding.empty())
        h += comment + "The plan pads tables so that their rows split over tp: " +
             commentSafe(describeTablePadding(*in.graph, in.plan->padding)) +
             " (zero rows appended; no id reads them and the loss must not see their logits).\n";
    return h;
}

std::string rankFormula(const DeviceMesh& m)
{
    if (m.pp <= 1) return "rank = dp * " + std::to_string(m.tp) + " + tp";
    return "rank = (pp * " + std::to_string(m.dp) + " + dp) * " + std::to_string(m.tp) + " + tp";
}

std::string rankMappingLines(const LaunchLayout& l, const std::string& comment)
{
    const DeviceMesh& m = l.mesh;
    const int perStage = m.dp * m.tp; // ranks of one pipeline rank: tp fastest, then dp
    std::string out;
    int first = 0;
    for (size_t h = 0; h < l.hosts.size(); ++h) {
        const int last = first + l.slots[h] - 1;
        int ppLo = m.pp, ppHi = -1, dpLo = m.dp, dpHi = -1, tpLo = m.tp, tpHi = -1;
        for (int r = first; r <= last; ++r) {
            ppLo = std::min(ppLo, r / perStage);
            ppHi = std::max(ppHi, r / perStage);
            dpLo = std::min(dpLo, r / m.tp % m.dp);
            dpHi = std::max(dpHi, r / m.tp % m.dp);
            tpLo = std::min(tpLo, r % m.tp);
            tpHi = std::max(tpHi, r % m.tp);
        }
        out += comment + "  " + l.hosts[h] + ": ranks " + range(first, last) + " (" +
               (m.pp > 1 ? "pp " + range(ppLo, ppHi) + ", " : std::string()) + "dp " + range(dpLo, dpHi) + ", tp " +
               range(tpLo, tpHi) + ")\n";
        first = last + 1;
    }
    if (m.pp <= 1 || !l.pipeline.staged()) return out;
    const PipelineSchedule& p = l.pipeline;
    out += comment + " Pipeline stages (blocks of the folded chain; 1F1B over " + std::to_string(p.microBatches) +
           " micro-batch(es)" + (p.microBatchSize > 0 ? " of " + std::to_string(p.microBatchSize) : std::string()) +
           (p.virtualStages > 1 ? ", " + std::to_string(p.virtualStages) + " interleaved stages per pipeline rank" : std::string()) +
           "):\n";
    for (size_t i = 0; i < p.stages.size(); ++i) {
        const PipelineStage& st = p.stages[i];
        out += comment + "  stage " + std::to_string(i) + ": blocks " + range(st.firstBlock, st.endBlock - 1) + " on pp " +
               std::to_string(st.device) + ", ranks " + range(st.device * perStage, (st.device + 1) * perStage - 1) +
               (st.recompute != Recompute::None ? std::string(", recompute ") + recomputeName(st.recompute) : std::string()) +
               "\n";
    }
    return out;
}

std::string launchVariables(const LaunchLayout& l, const std::string& baseVar)
{
    // A relative model or plan path names a file next to the script, wherever it is run from.
    auto file = [&](const std::string& p) {
        return baseVar.empty() || (!p.empty() && p.front() == '/') ? shellQuote(p) : "\"$" + baseVar + "\"/" + shellQuote(p);
    };
    return "worker=${TAPAS_WORKER:-" + shellQuote(l.worker) + "}\n" + "model=" + file(l.model) + "\n" + "plan=" + file(l.plan) +
           "\n" + "run_dir=${TAPAS_RUN_DIR:-" + shellQuote(l.runDir) + "}\n";
}

std::string workerCommand(const ExportOptions& o)
{
    return "\"$worker\" train-plan --model \"$model\" --plan \"$plan\" --run-dir \"$run_dir\" --steps " + std::to_string(o.steps);
}

std::string modulePathOfScope(const std::string& scope)
{
    std::string out;
    for (char c : scope) {
        if (c == '/') {
            if (!out.empty() && out.back() != '.') out += '.';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == '.') out.pop_back();
    return out;
}

} // namespace tapas

namespace tapas {

bool isNormReduction(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    const TensorId x = node.input(0);
    if (x == kNoTensor || g.tensor(x).shape.rank() < 3) return false;
    if (node.opType == "LayerNormalization") return true;
    if (node.opType != "ReduceMean") return false;
    const std::vector<int64_t> axes = node.attrInts("axes");
    const int64_t rank = g.tensor(x).shape.rank();
    return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

bool normSeqSplit(const Graph& g, const ShardingPlan& p, NodeId n)
{
    const TensorLayout& in = p.nodes[size_t(n)].inputs.at(0);
    return in.kind == TensorLayout::S && in.dim == g.tensor(g.node(n).inputs[0]).shape.rank() - 2;
}

TensorId linearWeight(const Graph& g, NodeId n)
{
    const Node& node = g.node(n);
    const size_t slot = node.opType == "Gather" ? 0 : 1;
    if (node.opType != "MatMul" && node.opType != "Gemm" && node.opType != "Gather") return kNoTensor;
    // Through a Transpose (a tied LM head) and through Identity: torch writes the layers that
    // share equal initializers as Identity(the first layer's weight).
    TensorId t = node.input(slot);
    for (int hops = 0; t != kNoTensor && hops < 4; ++hops) {
        if (g.tensor(t).isParameter()) return t;
        const NodeId p = g.tensor(t).producer;
        if (p == kNoNode || (g.node(p).opType != "Transpose" && g.node(p).opType != "Identity")) return kNoTensor;
        t = g.node(p).input(0);
    }
    return kNoTensor;
}

} // namespace tapas
