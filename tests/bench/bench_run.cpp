// `tapas bench run`: measured step time of the TAPAS, Megatron and data-parallel plans of a
// reduced-width zoo GPT on 2 MPI ranks (cluster preset cpu-mpi), each run through the real
// launcher (mpirun + tapas-worker train-plan), beside the cost model's prediction for it; then
// every runnable real model of the corpus under its TAPAS plan (bench_run_real.h).
// Measured = the median step over every launch's steps after the warm-up steps (--repeats launches).
#include "tests/bench/bench.h"
#include "tests/bench/bench_ddp_reference.h"
#include "tests/bench/bench_plan_run.h"
#include "tests/bench/bench_run_real.h"
#include "core/util/human_units.h"

#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/plan/plan_file.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"

#include <QCoreApplication>
#include <QDir>
#include <QTemporaryDir>

#include <optional>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

struct ZooRun {
    int layers = 2, hidden = 256, heads = 4, seq = 64, batch = 8, vocab = 512, steps = 12, warmup = 2, ranks = 2, repeats = 3;
    std::string worker;
    std::string cluster = "cpu-mpi";
    bool liveEvents = false; // --live-events (PlanRun::liveEvents)
};

// The zoo GPT's four plans and PyTorch DDP's step on the same shape; returns the failures.
int runZooGpt(const ZooRun& z, const QString& dir)
{
    const int layers = z.layers, hidden = z.hidden, heads = z.heads, seq = z.seq, batch = z.batch, vocab = z.vocab;
    const int steps = z.steps, warmup = z.warmup, ranks = z.ranks, repeats = z.repeats;
    const std::string& worker = z.worker;
    ZooOptions o;
    o.layers = layers;
    o.hidden = hidden;
    o.heads = heads;
    o.vocab = vocab;
    o.seq = seq;
    o.batch = -1; // symbolic, so the worker can divide it over the dp ranks of the DP plan
    const std::string model = (dir + QStringLiteral("/gpt.onnx")).toStdString();
    if (Status s = writeZooModel("gpt", o, model); !s) {
        std::fprintf(stderr, "tapas bench run: %s\n", s.error.c_str());
        return 1;
    }
    // Plan the very graph the worker will import: the written file with the batch bound.
    ImportOptions io;
    io.dims["batch"] = batch;
    Result<Graph> g = importOnnxFile(model, io);
    Result<ClusterSpec> cluster = loadClusterSpec(z.cluster);
    if (!g || !cluster) {
        std::fprintf(stderr, "tapas bench run: %s\n", (!g ? g.error() : cluster.error()).c_str());
        return 1;
    }
    Result<FoldedGraph> folded = foldGraph(*g);
    std::vector<DeviceMesh> meshes;
    for (const DeviceMesh& m : enumerateMeshes(*cluster))
        if (m.size() == ranks) meshes.push_back(m);

    std::printf("zoo GPT: %d layers, hidden %d, %d heads, seq %d, batch %d, vocab %d; %d ranks on cluster %s; "
                "%d steps, median after %d warm-up steps;\nmeasured: the median step of %d launches' steps after the warm-up, pooled (wall clock), "
                "CPU time: pooled the same way (the larger rank's process CPU time); spread: slowest launch median / fastest\n\n",
                layers, hidden, heads, seq, batch, vocab, ranks, cluster->name.c_str(), steps, warmup, repeats);
    std::printf("%-9s %-5s %14s %11s %15s %15s %9s %9s %7s %12s %12s %12s\n", "plan", "mesh", "measured step", "CPU time",
                "predicted step", "cost model", "ratio", "ratio", "spread", "peak memory", "peak tensors", "predicted");
    std::printf("%-9s %-5s %14s %11s %15s %15s %9s %9s %7s %12s %12s %12s\n", "", "", "(median)", "(median)", "(worker)",
                "(plan file)", "meas/pred", "CPU/pred", "", "(rank RSS)", "(torch CPU)", "(per device)");
    int failures = 0;
    // TAPAS on the mesh it finds cheapest, then each plan on its own mesh: tensor parallel for
    // TAPAS and Megatron, data parallel for DP, so the measurements also test the cost model's ranking.
    struct Row {
        const char* name;
        std::optional<DeviceMesh> mesh; // none: the searcher's best over all meshes of `ranks`
    };
    const std::vector<Row> rows{{"tapas", std::nullopt},
                                {"tapas", DeviceMesh{1, ranks}},
                                {"megatron", DeviceMesh{1, ranks}},
                                {"dp", DeviceMesh{ranks, 1}}};
    double ourDataParallel = 0; // median step of the DP plan, set by its row
    for (const Row& row : rows) {
        const char* name = row.name;
        const Searcher* searcher = findSearcher(name);
        if (!searcher) {
            std::printf("%-9s (searcher missing)\n", name);
            ++failures;
            continue;
        }
        SearchRequest req;
        req.graph = &*g;
        req.cluster = *cluster;
        if (row.mesh) req.mesh = *row.mesh;
        Result<SearchResult> res = row.mesh ? searcher->search(req) : searchBestMesh(*searcher, req, meshes);
        if (!res) {
            std::printf("%-9s search failed: %s\n", name, res.error().c_str());
            ++failures;
            continue;
        }
        const std::string plan =
            (dir + QStringLiteral("/%1-%2.tapas.json").arg(QLatin1String(name), QString::fromStdString(res->best.plan.mesh.toString())))
                .toStdString();
        const std::string text = savePlanJson(*g, folded ? &*folded : nullptr, res->best.plan, *cluster, res->best.report,
                                              {res->searcher, "bench", res->searchSeconds});
        if (Status s = savePlanFile(plan, text); !s) {
            std::printf("%-9s %s\n", name, s.error.c_str());
            ++failures;
            continue;
        }
        const double costModel = res->best.report.total.time();
        const RepeatedRun rep = runPlanRepeated(dir + QStringLiteral("/runs"), PlanRun{model, plan, worker, ranks, steps, {}, z.liveEvents}, repeats, warmup);
        const RunFigures& fig = rep.last;
        if (!fig.ok) {
            std::printf("%-9s %-5s failed: %s\n", name, res->best.plan.mesh.toString().c_str(), fig.error.c_str());
            ++failures;
            continue;
        }
        const double med = rep.wall, cpu = rep.cpu;
        const double predicted = fig.predicted > 0 ? fig.predicted : costModel;
        std::printf("%-9s %-5s %12.2fms %9.2fms %13.2fms %13.2fms %9.2f %9.2f %7.2f %12s %12s %12s\n", name,
                    res->best.plan.mesh.toString().c_str(), med * 1e3, cpu * 1e3, fig.predicted * 1e3, costModel * 1e3,
                    predicted > 0 ? med / predicted : 0.0, predicted > 0 ? cpu / predicted : 0.0, rep.spread,
                    humanBytes(fig.peakMemory).c_str(), humanBytes(fig.tensorPeak).c_str(), humanBytes(fig.predictedMemory).c_str());
        std::fflush(stdout);
        if (std::string(name) == "dp") ourDataParallel = med;
    }
    const DdpFigures ddp = runDdpReference(dir, {layers, hidden, heads, seq, batch, vocab}, ranks, steps, warmup);
    if (!ddp.ok) {
        std::printf("%-9s %-5s failed: %s\n", "ddp", (std::to_string(ranks) + "x1").c_str(), ddp.error.c_str());
        ++failures;
    } else {
        std::printf("%-9s %-5s %12.2fms %11s %15s %15s %9s %9s %7s   PyTorch %s DDP (gloo), same model shape and ranks, one "
                    "launch's median\n", "ddp",
                    (std::to_string(ranks) + "x1").c_str(), ddp.medianStepSeconds * 1e3, "", "", "", "", "", "",
                    ddp.torchVersion.c_str());
        if (ourDataParallel > 0)
            std::printf("\nour data-parallel step / PyTorch DDP step: %.2fx (target at most 1.10x)\n",
                        ourDataParallel / ddp.medianStepSeconds);
    }
    return failures;
}

int run(const std::vector<std::string>& args)
{
    int layers = 2, hidden = 256, heads = 4, seq = 64, batch = 8, vocab = 512, steps = 12, warmup = 2, ranks = 2, repeats = 3;
    std::string worker, keep, clusterSpec = "cpu-mpi";
    bool zoo = true, real = true;
    RealRunOptions realOptions;
    for (size_t i = 0; i < args.size(); ++i) {
        auto next = [&](int& v) { v = std::stoi(args[++i]); };
        if (args[i] == "--layers" && i + 1 < args.size()) next(layers);
        else if (args[i] == "--hidden" && i + 1 < args.size()) next(hidden);
        else if (args[i] == "--heads" && i + 1 < args.size()) next(heads);
        else if (args[i] == "--seq" && i + 1 < args.size()) next(seq);
        else if (args[i] == "--batch" && i + 1 < args.size()) next(batch);
        else if (args[i] == "--vocab" && i + 1 < args.size()) next(vocab);
        else if (args[i] == "--steps" && i + 1 < args.size()) next(steps);
        else if (args[i] == "--warmup" && i + 1 < args.size()) next(warmup);
        else if (args[i] == "--repeats" && i + 1 < args.size()) next(repeats);
        else if (args[i] == "--worker" && i + 1 < args.size()) worker = args[++i];
        else if (args[i] == "--keep" && i + 1 < args.size()) keep = args[++i];
        else if (args[i] == "--cluster" && i + 1 < args.size()) clusterSpec = args[++i];
        else if (args[i] == "--zoo-only") real = false;
        else if (args[i] == "--real-only") zoo = false;
        else if (args[i] == "--only" && i + 1 < args.size()) {
            zoo = false;
            for (const QString& m : QString::fromStdString(args[++i]).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                const std::string name = m.trimmed().toStdString();
                const std::vector<std::string> known = realModelNames();
                if (name == "gpt") zoo = true;
                else if (std::find(known.begin(), known.end(), name) != known.end()) realOptions.only.push_back(name);
                else {
                    std::string list = "gpt";
                    for (const std::string& k : known) list += ", " + k;
                    std::fprintf(stderr, "tapas bench run: --only: no model '%s' (models: %s)\n", name.c_str(), list.c_str());
                    return 2;
                }
            }
            real = !realOptions.only.empty();
        }
        else if (args[i] == "--real-steps" && i + 1 < args.size()) next(realOptions.steps);
        else if (args[i] == "--real-warmup" && i + 1 < args.size()) next(realOptions.warmup);
        else if (args[i] == "--models" && i + 1 < args.size()) realOptions.modelsDir = args[++i];
        else if (args[i] == "--profile") realOptions.profile = true;
        else if (args[i] == "--profile-nodes") realOptions.profileNodes = true;
        else if (args[i] == "--live-events") realOptions.liveEvents = true;
        else {
            std::fprintf(stderr, "tapas bench run: unknown option '%s' (options: --layers N --hidden H --heads A --seq S "
                                 "--batch B --vocab V --steps N --warmup N --repeats N --worker PATH --keep DIR --cluster PRESET|FILE --zoo-only --real-only "
                                 "--only gpt,MODEL,... --real-steps N --real-warmup N --models DIR --profile --profile-nodes --live-events)\n", args[i].c_str());
            return 2;
        }
    }
    if (!QCoreApplication::instance()) {
        std::fprintf(stderr, "tapas bench run: needs the Qt event loop of `tapas`\n");
        return 1;
    }
    // Refused before minutes of runs, naming the option.
    if (Result<ClusterSpec> c = loadClusterSpec(clusterSpec); !c) {
        std::fprintf(stderr, "tapas bench run: --cluster: %s\n", c.error().c_str());
        return 2;
    }
    if (repeats < 1) {
        std::fprintf(stderr, "tapas bench run: --repeats must be at least 1\n");
        return 2;
    }
    if (steps <= warmup || realOptions.steps <= realOptions.warmup) {
        std::fprintf(stderr, "tapas bench run: --steps must exceed --warmup (and --real-steps --real-warmup)\n");
        return 2;
    }
    QTemporaryDir tmp;
    const QString dir = keep.empty() ? tmp.path() : QString::fromStdString(keep);
    QDir().mkpath(dir);
    int failures = 0;
    if (zoo) failures += runZooGpt({layers, hidden, heads, seq, batch, vocab, steps, warmup, ranks, repeats, worker, clusterSpec, realOptions.liveEvents}, dir);
    if (real) {
        realOptions.cluster = clusterSpec;
        realOptions.worker = worker;
        realOptions.ranks = ranks;
        realOptions.repeats = repeats;
        realOptions.dir = dir.toStdString();
        failures += runRealModels(realOptions);
    }
    return failures ? 1 : 0;
}

} // namespace

BenchInfo launchRunBenchmark()
{
    return {"run", "measured vs predicted step time of TAPAS, Megatron and DP plans and of the real models on 2 MPI ranks", run};
}

} // namespace tapas::bench
