// `tapas bench run`: measured step time of the TAPAS, Megatron and data-parallel plans of a
// reduced-width zoo GPT on 2 MPI ranks (cluster preset cpu-mpi), each run through the real
// launcher (mpirun + tapas-worker train-plan), beside the cost model's prediction for it.
// Measured = median step time after the warm-up steps.
#include "tests/bench/bench.h"
#include "tests/bench/bench_ddp_reference.h"
#include "core/util/human_units.h"

#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/plan/plan_file.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "runtime/launch/run_launcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>

#include <optional>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace tapas::bench {

namespace {

struct RunFigures {
    bool ok = false;
    std::string error;
    std::vector<double> stepTimes;
    double predicted = 0;
    double peakMemory = 0;      // the largest peak resident set over ranks (VmHWM)
    double tensorPeak = 0;      // the largest peak of live tensor storage over ranks (torch's CPU allocator)
    double predictedMemory = 0; // the plan's memory per device
};

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

RunFigures runPlan(const QString& runsRoot, const std::string& model, const std::string& plan, int ranks, int steps,
                   const std::string& worker)
{
    RunFigures fig;
    runtime::LaunchRequest r;
    r.spec.kind = "train-plan";
    r.spec.modelPath = model;
    r.spec.planPath = plan;
    r.spec.ranks = ranks;
    r.spec.steps = steps;
    r.spec.checkpointEvery = 0;
    r.runsRoot = runsRoot;
    r.workerPath = QString::fromStdString(worker);
    r.hungSeconds = 300;
    runtime::RunLauncher launcher;
    QEventLoop loop;
    QObject::connect(&launcher, &runtime::RunLauncher::eventReceived, &loop, [&fig](const protocol::MetricsEvent& e) {
        if (e.type != protocol::EventType::Step) return;
        if (auto it = e.values.find("step_time"); it != e.values.end()) fig.stepTimes.push_back(it->second);
        if (auto it = e.values.find("predicted_step_time"); it != e.values.end()) fig.predicted = it->second;
        if (auto it = e.values.find("peak_memory_bytes"); it != e.values.end()) fig.peakMemory = std::max(fig.peakMemory, it->second);
        if (auto it = e.values.find("tensor_peak_bytes"); it != e.values.end()) fig.tensorPeak = std::max(fig.tensorPeak, it->second);
        if (auto it = e.values.find("predicted_memory_bytes"); it != e.values.end()) fig.predictedMemory = it->second;
    });
    QObject::connect(&launcher, &runtime::RunLauncher::runFinished, &loop, &QEventLoop::quit);
    if (Status s = launcher.start(r); !s) {
        fig.error = s.error;
        return fig;
    }
    loop.exec();
    if (launcher.state() != QLatin1String("finished")) {
        fig.error = "run " + launcher.state().toStdString() + ": " + launcher.detail().toStdString() + " (see " +
                    launcher.runDir().toStdString() + ")";
        return fig;
    }
    fig.ok = true;
    return fig;
}

int run(const std::vector<std::string>& args)
{
    int layers = 2, hidden = 256, heads = 4, seq = 64, batch = 8, vocab = 512, steps = 12, warmup = 2, ranks = 2;
    std::string worker, keep;
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
        else if (args[i] == "--worker" && i + 1 < args.size()) worker = args[++i];
        else if (args[i] == "--keep" && i + 1 < args.size()) keep = args[++i];
        else {
            std::fprintf(stderr, "tapas bench run: unknown option '%s' (options: --layers N --hidden H --heads A --seq S "
                                 "--batch B --vocab V --steps N --warmup N --worker PATH --keep DIR)\n", args[i].c_str());
            return 2;
        }
    }
    if (!QCoreApplication::instance()) {
        std::fprintf(stderr, "tapas bench run: needs the Qt event loop of `tapas`\n");
        return 1;
    }
    if (steps <= warmup) {
        std::fprintf(stderr, "tapas bench run: --steps must exceed --warmup\n");
        return 2;
    }
    QTemporaryDir tmp;
    const QString dir = keep.empty() ? tmp.path() : QString::fromStdString(keep);
    QDir().mkpath(dir);
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
    Result<ClusterSpec> cluster = loadClusterSpec("cpu-mpi");
    if (!g || !cluster) {
        std::fprintf(stderr, "tapas bench run: %s\n", (!g ? g.error() : cluster.error()).c_str());
        return 1;
    }
    Result<FoldedGraph> folded = foldGraph(*g);
    std::vector<DeviceMesh> meshes;
    for (const DeviceMesh& m : enumerateMeshes(*cluster))
        if (m.size() == ranks) meshes.push_back(m);

    std::printf("zoo GPT: %d layers, hidden %d, %d heads, seq %d, batch %d, vocab %d; %d ranks on cluster cpu-mpi; "
                "%d steps, median after %d warm-up steps\n\n",
                layers, hidden, heads, seq, batch, vocab, ranks, steps, warmup);
    std::printf("%-9s %-5s %14s %15s %15s %9s %12s %12s %12s\n", "plan", "mesh", "measured step", "predicted step", "cost model",
                "ratio", "peak memory", "peak tensors", "predicted");
    std::printf("%-9s %-5s %14s %15s %15s %9s %12s %12s %12s\n", "", "", "(median)", "(worker)", "(plan file)", "meas/pred",
                "(rank RSS)", "(torch CPU)", "(per device)");
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
        RunFigures fig = runPlan(dir + QStringLiteral("/runs"), model, plan, ranks, steps, worker);
        if (!fig.ok) {
            std::printf("%-9s %-5s failed: %s\n", name, res->best.plan.mesh.toString().c_str(), fig.error.c_str());
            ++failures;
            continue;
        }
        std::vector<double> measured(fig.stepTimes.begin() + std::min<size_t>(warmup, fig.stepTimes.size()), fig.stepTimes.end());
        const double med = median(measured);
        const double predicted = fig.predicted > 0 ? fig.predicted : costModel;
        std::printf("%-9s %-5s %12.2fms %13.2fms %13.2fms %9.2f %12s %12s %12s\n", name, res->best.plan.mesh.toString().c_str(),
                    med * 1e3, fig.predicted * 1e3, costModel * 1e3, predicted > 0 ? med / predicted : 0.0,
                    humanBytes(fig.peakMemory).c_str(), humanBytes(fig.tensorPeak).c_str(), humanBytes(fig.predictedMemory).c_str());
        std::fflush(stdout);
        if (std::string(name) == "dp") ourDataParallel = med;
    }
    const DdpFigures ddp = runDdpReference(dir, {layers, hidden, heads, seq, batch, vocab}, ranks, steps, warmup);
    if (!ddp.ok) {
        std::printf("%-9s %-5s failed: %s\n", "ddp", (std::to_string(ranks) + "x1").c_str(), ddp.error.c_str());
        ++failures;
    } else {
        std::printf("%-9s %-5s %12.2fms %15s %15s %9s   PyTorch %s DDP (gloo), same model shape and ranks\n", "ddp",
                    (std::to_string(ranks) + "x1").c_str(), ddp.medianStepSeconds * 1e3, "", "", "",
                    ddp.torchVersion.c_str());
        if (ourDataParallel > 0)
            std::printf("\nour data-parallel step / PyTorch DDP step: %.2fx (target at most 1.10x)\n",
                        ourDataParallel / ddp.medianStepSeconds);
    }
    return failures ? 1 : 0;
}

} // namespace

BenchInfo launchRunBenchmark() { return {"run", "measured vs predicted step time of TAPAS, Megatron and DP plans on 2 MPI ranks", run}; }

} // namespace tapas::bench
