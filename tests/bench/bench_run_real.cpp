#include "tests/bench/bench_run_real.h"

#include "tests/bench/bench_models.h"
#include "tests/bench/bench_plan_run.h"
#include "tests/common/real_model_workloads.h"
#include "core/cluster/calibration_origin.h"
#include "core/cluster/cluster_spec.h"
#include "core/cost/family_time.h"
#include "core/fold/folded_graph.h"
#include "core/ir/dim_bindings.h"
#include "core/onnx/onnx_importer.h"
#include "core/ops/control_bodies.h"
#include "core/ops/op_registry.h"
#include "core/plan/plan_file.h"
#include "core/search/searcher.h"
#include "core/util/human_units.h"
#include "runtime/launch/worker_command.h"

#include <nlohmann/json.hpp>

#include <QString>

#include <algorithm>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace tapas::bench {

namespace {

std::string stem(const char* file) { return std::filesystem::path(file).stem().string(); }

// The workload string of the table ("--dim batch=2 --batch 2") as import options and worker options.
struct Workload {
    ImportOptions import;
    std::map<std::string, std::string> options;
    std::vector<std::string> assumedBranches; // --assume-branch values: pricing only
};

Result<Workload> parseWorkload(const std::string& text)
{
    Workload w;
    w.import.probeBatch = true;
    std::istringstream in(text);
    std::string word, value;
    while (in >> word) {
        if (!(in >> value)) return Result<Workload>::failure("workload '" + text + "': " + word + " needs a value");
        if (word == "--dim") {
            if (Status s = addDimBinding(w.import.dims, value); !s) return Result<Workload>::failure(s.error);
            const size_t eq = value.find('=');
            w.options[runtime::kDimOptionPrefix + value.substr(0, eq)] = value.substr(eq + 1);
        } else if (word == "--assume-branch") {
            w.assumedBranches.push_back(value);
        } else if (word == "--batch") {
            w.import.batch = std::stoll(value);
            w.options["batch"] = value;
        } else {
            return Result<Workload>::failure("workload '" + text + "': unknown option " + word);
        }
    }
    return w;
}

// Where the corpus lives: tests/data/corpus of the checkout the program was built in (a folder
// above the program's), found when the benchmark runs.
std::string findCorpusDir()
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(fs::path(currentExecutable()), ec).parent_path();
    for (; !dir.empty(); dir = dir.parent_path()) {
        if (fs::exists(dir / "tests" / "data" / "corpus" / "manifest.json", ec)) return (dir / "tests" / "data" / "corpus").string();
        if (dir == dir.root_path()) break;
    }
    return "tests/data/corpus";
}

// Per op family: what the profile measured (nodes run alone) against what the cost model prices.
// With `eachNode`, every profiled node (or fused chain) first, with its first node's input shapes:
// what a family's ratio is made of.
void printFamilyProfile(const std::string& profilePath, const Graph& g, const ShardingPlan& plan, const ClusterSpec& cluster,
                        bool eachNode)
{
    std::ifstream f(profilePath);
    const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.contains("nodes")) {
        std::printf("    (no node profile at %s)\n", profilePath.c_str());
        return;
    }
    const PricedChains chains = pricedChains(g);
    std::map<std::string, NodeId> byName;
    for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) byName[g.node(n).name] = n;
    struct Sum {
        int count = 0;
        double measured = 0, predicted = 0;
    };
    std::map<std::string, Sum> sums;
    Sum total;
    for (const auto& e : j["nodes"]) {
        double predicted = 0;
        std::string family;
        for (const auto& name : e["nodes"]) {
            const auto it = byName.find(name.get<std::string>());
            if (it == byName.end()) continue;
            const Node& n = g.node(it->second);
            const OpStrategy& s = plan.nodes[size_t(it->second)];
            const int split = !s.inputs.empty() && s.inputs[0].kind == TensorLayout::S ? s.inputs[0].dim : -1;
            const std::vector<int64_t> local = localConvInput(g, n, split, plan.mesh.tp, plan.batchShards());
            const std::string fam = pricingFamily(cluster, g, n, local);
            if (family.empty()) family = fam;
            const bool partial = !s.outputs.empty() && s.outputs[0].kind == TensorLayout::P;
            const double dataShare = s.inputs.empty() ? -1 : s.inputs[0].kind == TensorLayout::S ? 1.0 / plan.mesh.tp : 1.0;
            predicted += nodeFamilySeconds(cluster, g, n, nodeCost(g, n), s.computeFraction / plan.batchShards(), &chains, partial,
                                           dataShare, local)
                             .value_or(0);
        }
        if (const std::string fused = e.value("fused", ""); !fused.empty()) family = "fused " + fused;
        Sum& s = sums[family];
        const double measured = e.value("isolated_forward_backward_cpu_s", 0.0);
        if (eachNode && !e["nodes"].empty()) {
            std::string shapes;
            if (const auto it = byName.find(e["nodes"][0].get<std::string>()); it != byName.end())
                for (TensorId t : g.node(it->second).inputs)
                    if (t != kNoTensor) shapes += (shapes.empty() ? "" : " ") + g.tensor(t).shape.toString();
            std::printf("      %-44s %-14s %8.1fus %8.1fus %6.2f  %s\n", e["nodes"][0].get<std::string>().c_str(), family.c_str(),
                        measured * 1e6, predicted * 1e6, predicted > 0 ? measured / predicted : 0.0, shapes.c_str());
        }
        s.count += int(e["nodes"].size());
        s.measured += measured;
        s.predicted += predicted;
        total.count += int(e["nodes"].size());
        total.measured += measured;
        total.predicted += predicted;
    }
    std::printf("    %-22s %6s %12s %12s %9s\n", "family (rank 0)", "nodes", "alone f+b", "priced", "ratio");
    auto line = [](const std::string& name, const Sum& s) {
        std::printf("    %-22s %6d %10.2fms %10.2fms %9.2f\n", name.c_str(), s.count, s.measured * 1e3, s.predicted * 1e3,
                    s.predicted > 0 ? s.measured / s.predicted : 0.0);
    };
    for (const auto& [family, s] : sums) line(family, s);
    line("all nodes", total);
}

} // namespace

std::vector<std::string> realModelNames()
{
    std::vector<std::string> names;
    for (const testing::RealModelCase& c : testing::kRealModelCases) names.push_back(stem(c.file));
    return names;
}

int runRealModels(const RealRunOptions& o)
{
    Result<ClusterSpec> cluster = loadClusterSpec(o.cluster);
    if (!cluster) {
        std::fprintf(stderr, "tapas bench run: %s\n", cluster.error().c_str());
        return 1;
    }
    if (const std::string warning = calibrationOriginNote(*cluster, thisMachineCpu()); !warning.empty())
        std::printf("%s\n", warning.c_str());
    const std::string corpus = findCorpusDir();
    const Result<std::string> shared = findModelsDir(o.modelsDir, currentExecutable());
    std::printf("\nreal models (tests/common/real_model_workloads.h), TAPAS plan on mesh 1x%d, cluster %s; %d steps, "
                "median after %d warm-up steps;\nmeasured: the median step of %d launches' steps after the warm-up, pooled (wall clock), CPU time the "
                "same way; spread: slowest launch median / fastest; in collectives: the median time inside MPI calls (waiting for the\n"
                "other rank included) against the cost model's tp/dp communication\n\n",
                o.ranks, cluster->name.c_str(), o.steps, o.warmup, o.repeats);
    std::printf("%-22s %-30s %11s %11s %11s %9s %9s %7s %11s %11s %12s %12s\n", "model", "workload", "measured", "CPU time",
                "predicted", "ratio", "ratio", "spread", "in collect.", "predicted", "peak tensors", "predicted");
    std::printf("%-22s %-30s %11s %11s %11s %9s %9s %7s %11s %11s %12s %12s\n", "", "", "(median)", "(median)", "(plan)",
                "meas/pred", "CPU/pred", "", "(median)", "comm", "(torch CPU)", "(per device)");
    int failures = 0;
    for (const testing::RealModelCase& c : testing::kRealModelCases) {
        const std::string name = stem(c.file);
        if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), name) == o.only.end()) continue;
        std::string path;
        if (c.file[0] == '/') {
            if (!shared) {
                std::printf("%-22s skipped: %s\n", name.c_str(), shared.error().c_str());
                continue;
            }
            path = *shared + c.file;
        } else {
            path = corpus + "/" + c.file;
        }
        if (!std::filesystem::exists(path)) {
            std::printf("%-22s skipped: %s is missing\n", name.c_str(), path.c_str());
            continue;
        }
        auto fail = [&](const std::string& why) {
            std::printf("%-22s failed: %s\n", name.c_str(), why.c_str());
            std::fflush(stdout);
            ++failures;
        };
        Result<Workload> w = parseWorkload(std::string(c.workload) + " " + c.pricing);
        if (!w) {
            fail(w.error());
            continue;
        }
        Result<Graph> g = importOnnxFile(path, w->import);
        if (!g) {
            fail(g.error());
            continue;
        }
        if (Status s = assumeIfBranches(*g, w->assumedBranches); !s) {
            fail(s.error);
            continue;
        }
        const Searcher* tapasSearcher = findSearcher("tapas");
        if (!tapasSearcher) {
            fail("the tapas searcher is missing");
            continue;
        }
        SearchRequest req;
        req.graph = &*g;
        req.cluster = *cluster;
        req.mesh = DeviceMesh{1, o.ranks};
        Result<SearchResult> res = tapasSearcher->search(req);
        if (!res) {
            fail("search: " + res.error());
            continue;
        }
        Result<FoldedGraph> folded = foldGraph(*g);
        const std::string plan = o.dir + "/" + name + ".tapas.json";
        if (Status s = savePlanFile(plan, savePlanJson(*g, folded ? &*folded : nullptr, res->best.plan, *cluster, res->best.report,
                                                       {res->searcher, "bench", res->searchSeconds}));
            !s) {
            fail(s.error);
            continue;
        }
        PlanRun run{path, plan, o.worker, o.ranks, o.steps, w->options, o.liveEvents};
        if (o.profile || o.profileNodes) run.options["profile-nodes"] = "";
        const RepeatedRun rep = runPlanRepeated(QString::fromStdString(o.dir + "/runs"), run, o.repeats, o.warmup);
        const RunFigures& fig = rep.last;
        if (!fig.ok) {
            fail(fig.error);
            continue;
        }
        const double med = rep.wall, cpu = rep.cpu;
        const double predicted = fig.predicted > 0 ? fig.predicted : res->best.report.total.time();
        std::string workload = c.workload[0] ? c.workload : "(as exported)";
        for (const char* drop : {"--dim ", "p2o.DynamicDimension."})
            for (size_t at; (at = workload.find(drop)) != std::string::npos;) workload.erase(at, std::strlen(drop));
        const CostTerms& t = res->best.report.total;
        std::printf("%-22s %-30s %9.2fms %9.2fms %9.2fms %9.2f %9.2f %7.2f %9.2fms %9.2fms %12s %12s\n", name.c_str(), workload.c_str(),
                    med * 1e3, cpu * 1e3, predicted * 1e3, predicted > 0 ? med / predicted : 0.0, predicted > 0 ? cpu / predicted : 0.0,
                    rep.spread, rep.comm * 1e3, (t.tpComm + t.dpComm + t.ppComm) * 1e3,
                    humanBytes(fig.tensorPeak).c_str(), humanBytes(fig.predictedMemory).c_str());
        for (const std::string& note : res->best.report.notes) std::printf("    pricing: %s\n", note.c_str());
        if (o.profile || o.profileNodes) printFamilyProfile(fig.runDir + "/node_profile.0.json", *g, res->best.plan, *cluster, o.profileNodes);
        std::fflush(stdout);
    }
    return failures;
}

} // namespace tapas::bench
