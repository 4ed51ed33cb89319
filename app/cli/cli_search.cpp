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
    const QCommandLineOption clusterOpt(QStringLiteral("cluster"), QStringLiteral("Preset name or cluster JSON file."), QStringLiteral("cluster"));
    const QCommandLineOption meshOpt(QStringLiteral("mesh"), QStringLiteral("Device mesh DPxTP, e.g. 2x4 (default: try all)."), QStringLiteral("mesh"));
    const QCommandLineOption searchersOpt(QStringLiteral("searchers"), QStringLiteral("Comma-separated searchers."),
                                          QStringLiteral("list"), QStringLiteral("tapas,megatron,dp,unfolded"));
    const QCommandLineOption outOpt(QStringList{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Write the TAPAS plan here."), QStringLiteral("file"));
    const QCommandLineOption memOpt(QStringLiteral("memory-limit"), QStringLiteral("Bytes per device (default: the cluster's)."), QStringLiteral("bytes"));
    const QCommandLineOption ilpOpt(QStringLiteral("ilp-time-limit"), QStringLiteral("Seconds for the ILP (default 60)."),
                                    QStringLiteral("seconds"), QStringLiteral("60"));
    parser.addOptions({clusterOpt, meshOpt, searchersOpt, outOpt, memOpt, ilpOpt});
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
    if (parser.isSet(meshOpt)) {
        Result<DeviceMesh> m = parseMesh(parser.value(meshOpt).toStdString());
        if (!m) {
            return fail(kExitBadInput, m.error());
        }
        if (Status s = validateMesh(*cluster, *m, true); !s) {
            return fail(kExitBadInput, s.error);
        }
        meshes = {*m};
    }
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
    const Result<Graph> graph = loadGraph(parser.positionalArguments()[0], *dims, *batch, true);
    if (!graph) return fail(kExitBadInput, graph.error());

    SearchRequest request;
    request.graph = &*graph;
    request.cluster = *cluster;
    request.memoryLimit = parser.value(memOpt).toDouble();
    request.ilpTimeLimit = parser.value(ilpOpt).toDouble() > 0 ? parser.value(ilpOpt).toDouble() : 60;
    // The first searcher's plan is the answer; a baseline that cannot run here (e.g. data
    // parallel with more replicas than samples) is listed with its reason instead of failing all.
    std::vector<SearchResult> results;
    std::vector<std::pair<std::string, std::string>> notRun; // searcher, why
    for (const Searcher* s : chosen) {
        Result<SearchResult> r = searchBestMesh(*s, request, meshes);
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
    if (!results.front().feasible) {
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
                             {"warnings", r.warnings}});
        }
        for (const auto& [name, why] : notRun) plans.push_back({{"searcher", name}, {"error", why}, {"feasible", false}});
        nlohmann::json runnerUps = nlohmann::json::array();
        for (const PlanCandidate& c : results.front().runnerUps)
            runnerUps.push_back({{"mesh", c.plan.mesh.toString()}, {"step_time_s", c.report.total.time()},
                                 {"memory_bytes_per_device", c.report.total.memory()},
                                 {"comm_bytes_per_step", c.report.total.commBytes},
                                 {"feasible", c.report.total.memory() <= limit}});
        nlohmann::json doc = {{"cluster", cluster->name}, {"plans", plans}, {"runner_ups", runnerUps}};
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
        << main.searcher << " on mesh " << main.best.plan.mesh.toString() << " (dp x tp)\n";
    char effective[32];
    std::snprintf(effective, sizeof effective, "%.3g", main.best.report.effectiveDevices);
    out << "collectives per step: " << main.best.plan.reshards.size() << ", warnings: " << main.warnings.size()
        << ", effective devices: " << effective << " of " << main.best.plan.mesh.size() << "\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-9s %-6s %12s %12s %12s %14s %10s %s\n", "searcher", "mesh", "step (ms)", "memory/dev",
                  "comm/step", "search (ms)", "feasible", "");
    out << line;
    for (const SearchResult& r : results) {
        const CostTerms& t = r.best.report.total;
        std::snprintf(line, sizeof line, "%-9s %-6s %12.3f %12s %12s %14.1f %10s\n", r.searcher.c_str(),
                      r.best.plan.mesh.toString().c_str(), t.time() * 1e3, gb(t.memory()).c_str(), gb(t.commBytes).c_str(),
                      r.searchSeconds * 1e3, r.feasible ? "yes" : "NO");
        out << line;
    }
    for (const auto& [name, why] : notRun) out << std::left << std::setw(10) << name << "not run: " << why << "\n";
    if (!main.runnerUps.empty()) {
        out << "\nrunner-up plans (" << main.searcher << "):\n";
        std::snprintf(line, sizeof line, "%-4s %-6s %12s %12s %12s %6s\n", "rank", "mesh", "step (ms)", "memory/dev",
                      "comm/step", "fits");
        out << line;
        int rank = 2;
        for (const PlanCandidate& c : main.runnerUps) {
            const CostTerms& t = c.report.total;
            std::snprintf(line, sizeof line, "%-4d %-6s %12.3f %12s %12s %6s\n", rank++, c.plan.mesh.toString().c_str(),
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
    const std::optional<Graph> graph = loadGraphOrReport(pos[2], *dims, *batch, true);
    if (!graph) return kExitBadInput;
    Result<PlanDocument> d = loadPlanFile(pos[1].toStdString(), *graph);
    if (!d) {
        printErr("tapas plan check: " + d.error());
        return kExitBadInput;
    }
    // What the worker would refuse, refused here with its reason (one rule for both: the batch
    // split, samplewise nodes, a symbolic batch for data parallelism).
    if (Status s = checkRunnable(*graph, d->plan.mesh, pos[2].toStdString()); !s) {
        printErr("tapas plan check: " + pos[1].toStdString() + ": " + s.error);
        return kExitBadInput;
    }
    printOut("plan ok: mesh " + d->plan.mesh.toString() + ", " + std::to_string(d->plan.reshards.size()) +
             " collectives, searcher " + d->provenance.searcher);
    return kExitOk;
}

} // namespace tapas::cli
