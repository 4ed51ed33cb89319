// `tapas search model.onnx --cluster PRESET|file.json [--mesh 2x4] [--dim seq=2048]
//   [--searchers tapas,megatron,dp,unfolded] [--json] [-o plan.tapas.json]` (the best plan, the
//   comparison table and the runner-up plans) and
// `tapas plan check plan.tapas.json model.onnx`: wiring only; the searchers live in core/search.
#include "app/cli/cli_commands.h"
#include "app/cli/cli_common.h"

#include "core/plan/plan_file.h"
#include "core/plan/plan_runnable.h"
#include "core/search/fit_advice.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"

#include <QCoreApplication>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iomanip>
#include <sstream>

namespace tapas::cli {

namespace {

std::string gb(double bytes)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.2f GB", bytes / 1e9);
    return b;
}

// The stages of a pipelined plan, one line each: blocks, rank, recomputation, time per
// micro-batch and memory, against the device memory.
std::string describeStages(const ShardingPlan& plan, double limit)
{
    const PipelineSchedule& p = plan.pipeline;
    if (!p.staged() && p.microBatches <= 1) return {};
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line,
                  "pipeline: %d stage(s) on pp %d, %d micro-batch(es) of %d, %d virtual stage(s) per rank, bubble %.1f%%, "
                  "distributed optimizer %s\n",
                  int(p.stages.size()), plan.mesh.pp, p.microBatches, p.microBatchSize, p.virtualStages, p.bubbleFraction * 100,
                  p.distributedOptimizer ? "yes" : "no");
    out << line;
    std::vector<double> rankMemory(size_t(std::max(1, plan.mesh.pp)), 0);
    for (const PipelineStage& s : p.stages)
        if (s.device >= 0 && s.device < int(rankMemory.size())) rankMemory[size_t(s.device)] += s.weightMemory + s.activationMemory;
    std::snprintf(line, sizeof line, "%-6s %-5s %-12s %-10s %14s %12s %12s %12s\n", "stage", "rank", "blocks", "recompute",
                  "ms/micro-batch", "weights", "activations", "rank total");
    out << line;
    for (size_t i = 0; i < p.stages.size(); ++i) {
        const PipelineStage& s = p.stages[i];
        const double rank = s.device >= 0 && s.device < int(rankMemory.size()) ? rankMemory[size_t(s.device)] : 0;
        const std::string blocks = std::to_string(s.firstBlock) + "-" + std::to_string(s.endBlock - 1);
        std::snprintf(line, sizeof line, "%-6zu %-5d %-12s %-10s %14.2f %12s %12s %12s%s\n", i, s.device, blocks.c_str(),
                      recomputeName(s.recompute), s.timePerMicroBatch * 1e3, gb(s.weightMemory).c_str(),
                      gb(s.activationMemory).c_str(), gb(rank).c_str(), rank > limit ? " OVER" : "");
        out << line;
    }
    return out.str();
}

nlohmann::json pipelineJson(const ShardingPlan& plan)
{
    const PipelineSchedule& p = plan.pipeline;
    nlohmann::json stages = nlohmann::json::array();
    for (const PipelineStage& s : p.stages)
        stages.push_back({{"first_block", s.firstBlock}, {"end_block", s.endBlock}, {"device", s.device},
                          {"recompute", recomputeName(s.recompute)}, {"time_per_micro_batch_s", s.timePerMicroBatch},
                          {"weight_memory_bytes", s.weightMemory}, {"activation_memory_bytes", s.activationMemory}});
    return {{"pp", plan.mesh.pp}, {"micro_batches", p.microBatches}, {"micro_batch_size", p.microBatchSize},
            {"virtual_stages", p.virtualStages}, {"distributed_optimizer", p.distributedOptimizer},
            {"bubble_fraction", p.bubbleFraction}, {"stages", stages}};
}

// --pipeline, --micro-batch, --recompute, --virtual-stages, --no-distributed-optimizer and a DPxPPxTP
// --mesh as the sweep's options.
Result<PipelineOptions> pipelineOptions(const QCommandLineParser& parser, const QCommandLineOption& micro,
                                        const QCommandLineOption& recompute, const QCommandLineOption& virtualStages,
                                        const QCommandLineOption& noZero, const std::optional<DeviceMesh>& mesh)
{
    PipelineOptions o;
    if (parser.isSet(noZero)) o.distributedOptimizer = false;
    auto positive = [](const QString& v, const char* what) -> Result<int> {
        bool ok = false;
        const int n = v.toInt(&ok);
        if (!ok || n <= 0) return Result<int>::failure(std::string("--") + what + " '" + v.toStdString() + "': expected a positive integer");
        return n;
    };
    if (parser.isSet(micro)) {
        Result<int> b = positive(parser.value(micro), "micro-batch");
        if (!b) return Result<PipelineOptions>::failure(b.error());
        o.microBatchSizes = {*b};
    }
    if (parser.isSet(virtualStages)) {
        Result<int> v = positive(parser.value(virtualStages), "virtual-stages");
        if (!v) return Result<PipelineOptions>::failure(v.error());
        o.virtualStages = {*v};
    }
    if (parser.isSet(recompute)) {
        Recompute r;
        if (!parseRecompute(parser.value(recompute).toStdString(), &r))
            return Result<PipelineOptions>::failure("--recompute '" + parser.value(recompute).toStdString() +
                                                    "': expected none, selective or full");
        o.recompute = r;
    }
    if (mesh) {
        o.tp = {mesh->tp};
        o.pp = {mesh->pp};
        o.tpAcrossNodes = true;
    }
    return o;
}

} // namespace

int runSearch(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Search a sharding plan for a model on a cluster with TAPAS and compare it with the "
        "baselines (Megatron-LM, data parallel, unfolded search) on the same cost model."));
    parser.addHelpOption();
    parser.addOption(jsonOption());
    parser.addOption(dimOption());
    parser.addOption(batchOption());
    parser.addOption(assumeBranchOption());
    const QCommandLineOption clusterOpt(QStringLiteral("cluster"), QStringLiteral("Preset name or cluster JSON file."), QStringLiteral("cluster"));
    const QCommandLineOption meshOpt(QStringLiteral("mesh"), QStringLiteral("Device mesh DPxTP, e.g. 2x4 (default: try all)."), QStringLiteral("mesh"));
    const QCommandLineOption searchersOpt(QStringLiteral("searchers"), QStringLiteral("Comma-separated searchers."),
                                          QStringLiteral("list"), QStringLiteral("tapas,megatron,dp,unfolded"));
    const QCommandLineOption outOpt(QStringList{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Write the TAPAS plan here."), QStringLiteral("file"));
    const QCommandLineOption memOpt(QStringLiteral("memory-limit"), QStringLiteral("Bytes per device (default: the cluster's)."), QStringLiteral("bytes"));
    const QCommandLineOption ilpOpt(QStringLiteral("ilp-time-limit"), QStringLiteral("Seconds for the ILP (default 60)."),
                                    QStringLiteral("seconds"), QStringLiteral("60"));
    const QCommandLineOption pipelineOpt(QStringLiteral("pipeline"),
                                         QStringLiteral("Plan pipeline stages too: sweep dp x pp x tp, micro-batch size, interleaving "
                                                        "and recomputation (also chosen when no plan fits without stages)."));
    const QCommandLineOption microOpt(QStringLiteral("micro-batch"), QStringLiteral("Pipeline: samples per micro-batch (default: try them)."),
                                      QStringLiteral("n"));
    const QCommandLineOption recomputeOpt(QStringLiteral("recompute"),
                                          QStringLiteral("Pipeline: none|selective|full for every stage (default: per rank, the least that fits)."),
                                          QStringLiteral("mode"));
    const QCommandLineOption virtualOpt(QStringLiteral("virtual-stages"),
                                        QStringLiteral("Pipeline: stages per rank, interleaved 1F1B when > 1 (default: try 1, 2, 4)."),
                                        QStringLiteral("v"));
    const QCommandLineOption noZeroOpt(QStringLiteral("no-distributed-optimizer"),
                                       QStringLiteral("Pipeline: keep the whole optimizer state on every data-parallel replica "
                                                      "(default: shard it over dp, ZeRO-1, whenever dp > 1)."));
    parser.addOptions({clusterOpt, meshOpt, searchersOpt, outOpt, memOpt, ilpOpt, pipelineOpt, microOpt, recomputeOpt, virtualOpt, noZeroOpt});
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("The ONNX file."));
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;
    // With --json stdout is always one JSON document, a failure included, so a script reading it
    // gets the reason instead of an empty stream.
    const bool json = parser.isSet(jsonOption());
    auto fail = [json](int code, const std::string& why) {
        printErr("tapas search: " + why);
        if (json) printJson({{"error", why}, {"exit_code", code}});
        return code;
    };
    if (parser.positionalArguments().size() != 1 || !parser.isSet(clusterOpt)) {
        return fail(kExitBadInput, "expected a model and --cluster, e.g. tapas search model.onnx --cluster a100x8");
    }
    const Result<DimBindings> dims = parseDimBindings(parser.values(dimOption()));
    if (!dims) {
        return fail(kExitBadInput, dims.error());
    }
    Result<ClusterSpec> cluster = loadClusterSpec(parser.value(clusterOpt).toStdString());
    if (!cluster) {
        return fail(kExitBadInput, cluster.error());
    }
    // Tensor parallelism may span nodes: it is costed on the inter-node link there.
    std::vector<DeviceMesh> meshes = enumerateMeshes(*cluster, true);
    std::optional<DeviceMesh> meshGiven;
    if (parser.isSet(meshOpt)) {
        Result<DeviceMesh> m = parseMesh(parser.value(meshOpt).toStdString());
        if (!m) {
            return fail(kExitBadInput, m.error());
        }
        if (Status s = validateMesh(*cluster, *m, true); !s) {
            return fail(kExitBadInput, s.error);
        }
        meshes = {*m};
        meshGiven = *m;
    }
    const Result<PipelineOptions> pipeline = pipelineOptions(parser, microOpt, recomputeOpt, virtualOpt, noZeroOpt, meshGiven);
    if (!pipeline) return fail(kExitBadInput, pipeline.error());
    const bool pipelined = parser.isSet(pipelineOpt) || (meshGiven && meshGiven->pp > 1) || parser.isSet(microOpt) ||
                           parser.isSet(recomputeOpt) || parser.isSet(virtualOpt) || parser.isSet(noZeroOpt);
    std::vector<const Searcher*> chosen;
    for (const QString& name : parser.value(searchersOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const Searcher* s = findSearcher(name.trimmed().toStdString());
        if (!s) {
            std::string known;
            for (const auto& k : searchers()) known += (known.empty() ? "" : ", ") + k->name();
            return fail(kExitBadInput, "unknown searcher '" + name.toStdString() + "' (available: " + known + ")");
        }
        chosen.push_back(s);
    }
    const Result<int64_t> batch = parseBatchOption(parser);
    if (!batch) {
        return fail(kExitBadInput, batch.error());
    }
    Result<Graph> graph = loadGraph(parser.positionalArguments()[0], *dims, *batch, true);
    if (!graph) return fail(kExitBadInput, graph.error());
    if (Status s = applyAssumedBranches(parser, *graph); !s) return fail(kExitBadInput, s.error);

    SearchRequest request;
    request.graph = &*graph;
    request.cluster = *cluster;
    request.memoryLimit = parser.value(memOpt).toDouble();
    request.ilpTimeLimit = parser.value(ilpOpt).toDouble() > 0 ? parser.value(ilpOpt).toDouble() : 60;
    if (pipelined) request.pipeline = *pipeline;
    // The first searcher's plan is the answer; a baseline that cannot run here (e.g. data
    // parallel with more replicas than samples) is listed with its reason instead of failing all.
    std::vector<SearchResult> results;
    std::vector<std::pair<std::string, std::string>> notRun; // searcher, why
    std::string pipelineNote;
    for (const Searcher* s : chosen) {
        double unstaged = 0;
        Result<SearchResult> r = searchWithStages(*s, request, meshes, *pipeline, !meshGiven, &unstaged);
        if (r && unstaged > 0 && results.empty())
            pipelineNote = "no plan without pipeline stages fits (the fastest needs " + gb(unstaged) + " per device); planned with stages";
        if (!r) {
            if (results.empty()) {
                return fail(kExitFailed, s->name() + ": " + r.error());
            }
            notRun.emplace_back(s->name(), r.error());
            continue;
        }
        results.push_back(std::move(r).value());
    }
    const double limit = request.memoryLimit > 0 ? request.memoryLimit : cluster->memoryBytes;
    if (parser.isSet(outOpt)) {
        const SearchResult& main = results.front();
        Result<FoldedGraph> folded = foldGraph(*graph);
        const std::string text = savePlanJson(*graph, folded ? &*folded : nullptr, main.best.plan, *cluster, main.best.report,
                                              {main.searcher, QCoreApplication::applicationVersion().toStdString(), main.searchSeconds});
        if (Status s = savePlanFile(parser.value(outOpt).toStdString(), text); !s) {
            return fail(kExitFailed, s.error);
        }
    }
    std::optional<FitAdvice> advice;
    if (!results.front().feasible && !results.front().best.report.pipelined) {
        SearchRequest r = request;
        r.mesh = results.front().best.plan.mesh;
        Result<FitAdvice> a = adviseFit(*chosen.front(), r);
        if (a) advice = *a;
    }
    if (json) {
        nlohmann::json plans = nlohmann::json::array();
        for (const SearchResult& r : results) {
            const CostTerms& t = r.best.report.total;
            plans.push_back({{"searcher", r.searcher}, {"mesh", r.best.plan.mesh.toString()}, {"step_time_s", t.time()},
                             {"compute_s", t.compute}, {"tp_comm_s", t.tpComm}, {"dp_comm_s", t.dpComm},
                             {"memory_bytes_per_device", t.memory()}, {"comm_bytes_per_step", t.commBytes},
                             {"search_time_s", r.searchSeconds}, {"optimal", r.optimal}, {"time_limit_hit", r.timeLimitHit},
                             {"feasible", r.feasible}, {"effective_devices", r.best.report.effectiveDevices},
                             {"pp_comm_s", t.ppComm}, {"bubble_s", t.bubble}, {"pipeline", pipelineJson(r.best.plan)},
                             {"warnings", r.warnings}, {"pricing_notes", r.best.report.notes}});
        }
        for (const auto& [name, why] : notRun) plans.push_back({{"searcher", name}, {"error", why}, {"feasible", false}});
        nlohmann::json runnerUps = nlohmann::json::array();
        for (const PlanCandidate& c : results.front().runnerUps)
            runnerUps.push_back({{"mesh", c.plan.mesh.toString()}, {"step_time_s", c.report.total.time()},
                                 {"memory_bytes_per_device", c.report.total.memory()},
                                 {"comm_bytes_per_step", c.report.total.commBytes},
                                 {"feasible", c.report.total.memory() <= limit}});
        nlohmann::json doc = {{"cluster", cluster->name}, {"plans", plans}, {"runner_ups", runnerUps}};
        if (!pipelineNote.empty()) doc["note"] = pipelineNote;
        if (advice)
            doc["does_not_fit"] = {{"memory_bytes_per_device_needed", advice->bytesPerDevice},
                                   {"smallest_device_count", advice->devices},
                                   {"mesh", advice->devices ? advice->mesh.toString() : ""}};
        printJson(doc);
        return kExitOk;
    }
    std::ostringstream out;
    const SearchResult& main = results.front();
    out << "cluster " << cluster->name << " (" << cluster->nodes << " x " << cluster->devicesPerNode << "), plan by "
        << main.searcher << " on mesh " << main.best.plan.mesh.toString()
        << (main.best.plan.mesh.pp > 1 ? " (dp x pp x tp)\n" : " (dp x tp)\n");
    if (!pipelineNote.empty()) out << pipelineNote << "\n";
    char effective[32];
    std::snprintf(effective, sizeof effective, "%.3g", main.best.report.effectiveDevices);
    out << "collectives per step: " << main.best.plan.reshards.size() << ", warnings: " << main.warnings.size()
        << ", effective devices: " << effective << " of " << main.best.plan.mesh.size() << "\n";
    for (const std::string& note : main.best.report.notes) out << "pricing: " << note << "\n";
    if (!main.best.plan.padding.empty()) out << "padding: " << describeTablePadding(*graph, main.best.plan.padding) << "\n";
    out << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-9s %-9s %12s %12s %12s %14s %10s %s\n", "searcher", "mesh", "step (ms)", "memory/dev",
                  "comm/step", "search (ms)", "feasible", "");
    out << line;
    for (const SearchResult& r : results) {
        const CostTerms& t = r.best.report.total;
        std::snprintf(line, sizeof line, "%-9s %-9s %12.3f %12s %12s %14.1f %10s\n", r.searcher.c_str(),
                      r.best.plan.mesh.toString().c_str(), t.time() * 1e3, gb(t.memory()).c_str(), gb(t.commBytes).c_str(),
                      r.searchSeconds * 1e3, r.feasible ? "yes" : "NO");
        out << line;
    }
    for (const auto& [name, why] : notRun) out << std::left << std::setw(10) << name << "not run: " << why << "\n";
    if (const std::string stages = describeStages(main.best.plan, limit); !stages.empty()) out << "\n" << stages;
    if (!main.runnerUps.empty()) {
        out << "\nrunner-up plans (" << main.searcher << "):\n";
        std::snprintf(line, sizeof line, "%-4s %-9s %12s %12s %12s %6s\n", "rank", "mesh", "step (ms)", "memory/dev",
                      "comm/step", "fits");
        out << line;
        int rank = 2;
        for (const PlanCandidate& c : main.runnerUps) {
            const CostTerms& t = c.report.total;
            std::snprintf(line, sizeof line, "%-4d %-9s %12.3f %12s %12s %6s\n", rank++, c.plan.mesh.toString().c_str(),
                          t.time() * 1e3, gb(t.memory()).c_str(), gb(t.commBytes).c_str(), t.memory() <= limit ? "yes" : "NO");
            out << line;
        }
    }
    if (advice) {
        out << "\ndoes not fit: the leanest plan needs " << gb(advice->bytesPerDevice) << " per device (device has "
            << gb(cluster->memoryBytes) << ")";
        if (advice->devices) out << "; it fits on " << advice->devices << " devices (mesh " << advice->mesh.toString() << ")\n";
        else out << "; no device count up to 256 nodes fits\n";
    }
    for (const std::string& w : main.warnings) out << "warning: " << w << "\n";
    printOut(out.str());
    return kExitOk;
}

int runPlanCommand(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("tapas plan check plan.tapas.json model.onnx [--dim name=value]: "
                                                    "verify a plan file against its model."));
    parser.addHelpOption();
    parser.addOption(dimOption());
    parser.addOption(batchOption());
    parser.addOption(assumeBranchOption());
    parser.addPositionalArgument(QStringLiteral("check"), QStringLiteral("The action."));
    int exitCode = kExitOk;
    if (!parseOrExplain(parser, args, &exitCode)) return exitCode;
    const QStringList pos = parser.positionalArguments();
    if (pos.size() != 3 || pos[0] != QLatin1String("check")) {
        printErr("usage: tapas plan check plan.tapas.json model.onnx [--dim name=value]");
        return kExitBadInput;
    }
    const Result<DimBindings> dims = parseDimBindings(parser.values(dimOption()));
    if (!dims) {
        printErr("tapas plan: " + dims.error());
        return kExitBadInput;
    }
    const Result<int64_t> batch = parseBatchOption(parser);
    if (!batch) {
        printErr("tapas plan: " + batch.error());
        return kExitBadInput;
    }
    std::optional<Graph> graph = loadGraphOrReport(pos[2], *dims, *batch, true);
    if (!graph) return kExitBadInput;
    if (Status s = applyAssumedBranches(parser, *graph); !s) {
        printErr("tapas plan check: " + s.error);
        return kExitBadInput;
    }
    Result<PlanDocument> d = loadPlanFile(pos[1].toStdString(), *graph);
    if (!d) {
        printErr("tapas plan check: " + d.error());
        return kExitBadInput;
    }
    // What the worker would refuse, refused here with its reason (one rule for both: the batch
    // split, samplewise nodes, a symbolic batch for data parallelism).
    Status runnable = checkRunnable(*graph, d->plan.mesh, pos[2].toStdString());
    if (runnable) runnable = checkScheduleRunnable(d->plan.pipeline);
    if (Status s = runnable; !s) {
        printErr("tapas plan check: " + pos[1].toStdString() + ": " + s.error);
        return kExitBadInput;
    }
    // Stages name ranges of the folded chain: they must cover this model's chain exactly.
    if (d->plan.pipeline.staged()) {
        Result<FoldedGraph> folded = foldGraph(*graph);
        if (!folded) {
            printErr("tapas plan check: " + folded.error());
            return kExitFailed;
        }
        const int chain = int(folded->chain.size());
        if (d->plan.pipeline.stages.front().firstBlock != 0 || d->plan.pipeline.stages.back().endBlock != chain) {
            printErr("tapas plan check: " + pos[1].toStdString() + ": field 'pipeline.stages' covers blocks " +
                     std::to_string(d->plan.pipeline.stages.front().firstBlock) + " to " +
                     std::to_string(d->plan.pipeline.stages.back().endBlock - 1) + " but the model's chain has " +
                     std::to_string(chain) + " blocks (0 to " + std::to_string(chain - 1) + ")");
            return kExitBadInput;
        }
    }
    printOut("plan ok: mesh " + d->plan.mesh.toString() + ", " + std::to_string(d->plan.reshards.size()) +
             " collectives, searcher " + d->provenance.searcher);
    if (!d->plan.padding.empty()) printOut("padding: " + describeTablePadding(*graph, d->plan.padding));
    if (const std::string stages = describeStages(d->plan, d->cluster.memoryBytes); !stages.empty()) printOut(stages);
    return kExitOk;
}

} // namespace tapas::cli
