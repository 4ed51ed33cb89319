// The train-plan command's control flow: arguments, model and plan loading, the numerics gate,
// the step loop with its metrics, checkpoints, resume and the graceful stop. The numerics and
// the tensors live in PlanTrainer; this file stays torch-free.
#include "runtime/exec/train_plan.h"

#include "core/cluster/device_limits.h"
#include "core/ir/dim_bindings.h"
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/plan/plan_file.h"
#include "core/plan/plan_runnable.h"
#include "core/util/json_fields.h"
#include "runtime/blas_probe.h"
#include "runtime/comm/communicator.h"
#include "runtime/exec/layout_analysis.h"
#include "runtime/exec/memory_figures.h"
#include "runtime/exec/plan_trainer.h"
#include "runtime/metrics/metrics_sink.h"
#include "runtime/protocol/durable_file.h"
#include "runtime/protocol/metrics_token.h"
#include "runtime/protocol/run_directory.h"
#include "runtime/rank_log.h"
#include "runtime/worker_options.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <limits>
#include <map>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tapas::runtime {

namespace {

namespace fs = std::filesystem;
using protocol::MetricsEvent;

volatile std::sig_atomic_t g_stopRequested = 0;
void onSigterm(int) { g_stopRequested = 1; }

std::string readFile(const std::string& path, bool& ok)
{
    std::ifstream in(path, std::ios::binary);
    ok = bool(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One line for the run record saying where the weights came from: a run of a trained model
// must train that model, and a run of a file without weight data says it trains synthetic ones.
MetricsEvent weightSourceEvent(const Graph& g, const StoredWeights& stored)
{
    int fromFile = 0, synthetic = 0;
    int64_t fileParams = 0;
    std::string firstMissing;
    for (TensorId t = 0; t < TensorId(g.tensors.size()); ++t) {
        if (!isTrainable(g, t)) continue;
        const auto it = stored.tensors.find(g.tensor(t).name);
        if (it != stored.tensors.end() && int64_t(it->second.values.size()) == g.tensor(t).shape.numElementsOr(-1)) {
            ++fromFile;
            fileParams += int64_t(it->second.values.size());
            continue;
        }
        ++synthetic;
        if (firstMissing.empty()) {
            const auto why = stored.missing.find(g.tensor(t).name);
            firstMissing = "'" + g.tensor(t).name + "': " +
                           (why != stored.missing.end() ? why->second : std::string("the file stores no data for it"));
        }
    }
    std::string text;
    if (synthetic == 0)
        text = "weights: all " + std::to_string(fromFile) + " trainable tensors from the model file (" +
               std::to_string(fileParams) + " parameters)";
    else if (fromFile == 0)
        text = "weights: synthetic for all " + std::to_string(synthetic) + " trainable tensors (seeded by name; " +
               firstMissing + ")";
    else
        text = "weights: " + std::to_string(fromFile) + " trainable tensors from the model file, " +
               std::to_string(synthetic) + " synthetic (first: " + firstMissing + ")";
    return MetricsEvent::logEvent(synthetic == 0 || fromFile == 0 ? "info" : "warning", 0, text);
}

std::string hostName()
{
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

std::string fmt(double v)
{
    char b[64];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

// The plan file's mesh and the input shapes it was made for (to bind dims the user left open).
struct PlanHeader {
    int dp = 1, tp = 1, pp = 1;
    std::map<std::string, std::vector<std::string>> inputDims; // input -> dims as text
    std::string meshText() const { return DeviceMesh{dp, tp, pp}.toString(); }
};

Result<PlanHeader> readPlanHeader(const std::string& path)
{
    bool ok = false;
    const std::string text = readFile(path, ok);
    if (!ok) return Result<PlanHeader>::failure("cannot read plan file '" + path + "'");
    PlanHeader h;
    try {
        const auto j = nlohmann::json::parse(text);
        // Exact: a tp of 2^32 + 2 must not be read as 2 (the mesh's rank count is checked below).
        for (auto [key, out] : {std::pair{"dp", &h.dp}, std::pair{"tp", &h.tp}}) {
            Result<int64_t> v = jsonInteger(j.at("mesh").at(key), 1, kMaxDevices);
            if (!v) return Result<PlanHeader>::failure("plan file '" + path + "': field 'mesh." + key + "' " + v.error());
            *out = int(*v);
        }
        if (j.at("mesh").contains("pp")) { // plan files of version 2 (pipeline stages)
            Result<int64_t> v = jsonInteger(j["mesh"]["pp"], 1, kMaxDevices);
            if (!v) return Result<PlanHeader>::failure("plan file '" + path + "': field 'mesh.pp' " + v.error());
            h.pp = int(*v);
        }
        if (j.contains("model") && j["model"].contains("inputs"))
            for (const auto& in : j["model"]["inputs"]) {
                std::string s = in.value("shape", "");
                std::vector<std::string> dims;
                if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
                    std::stringstream ss(s.substr(1, s.size() - 2));
                    std::string d;
                    while (std::getline(ss, d, ',')) dims.push_back(d);
                }
                h.inputDims[in.value("name", "")] = dims;
            }
    } catch (const std::exception& e) {
        return Result<PlanHeader>::failure("plan file '" + path + "': " + e.what());
    }
    if (int64_t(h.dp) * h.tp * h.pp > kMaxDevices)
        return Result<PlanHeader>::failure("plan file '" + path + "': mesh " + h.meshText() + " has more than " +
                                           std::to_string(kMaxDevices) + " devices");
    return h;
}

// Binds the symbolic input dims the user did not bind to the sizes the plan was made for.
DimBindings bindDims(const Graph& unbound, const PlanHeader& h, DimBindings dims)
{
    for (TensorId t : unbound.inputs) {
        const Tensor& x = unbound.tensor(t);
        auto it = h.inputDims.find(x.name);
        if (it == h.inputDims.end() || !x.shape.rankKnown) continue;
        for (size_t i = 0; i < x.shape.dims.size() && i < it->second.size(); ++i) {
            const Dim& d = x.shape.dims[i];
            if (!d.isSymbolic() || dims.count(d.symbol)) continue;
            char* end = nullptr;
            errno = 0;
            const long long v = std::strtoll(it->second[i].c_str(), &end, 10);
            if (end && *end == '\0' && errno == 0 && v > 0) dims[d.symbol] = v; // ERANGE saturates: not a size
        }
    }
    return dims;
}

class Run {
public:
    Run(const MpiContext& mpi, const TrainPlanOptions& o) : mpi_(mpi), o_(o) {}

    int exec();

private:
    void emit(const MetricsEvent& e)
    {
        if (sink_) sink_->record(e);
    }
    // Every rank knows about the failure (it happened on all of them): report once, exit 1.
    int failAll(const std::string& why)
    {
        std::fprintf(stderr, "tapas-worker train-plan (rank %d): %s\n", mpi_.rank(), why.c_str());
        std::fflush(stderr);
        emit(MetricsEvent::statusEvent("failed", why, mpi_.rank()));
        return kExitFailed;
    }
    // Rank 0 could not write the run record (metrics.jsonl): every rank ends, the cause (file and
    // errno text) goes into the record's last line, written into the sink's reserve.
    int failRecord()
    {
        return failAll(sink_ ? "the run record could not be written: " + sink_->writeError()
                             : std::string("rank 0 could not write the run record"));
    }
    // Only this rank failed: the others may be waiting in a collective, so the job is aborted.
    [[noreturn]] void failHere(const std::string& why)
    {
        std::fprintf(stderr, "tapas-worker train-plan (rank %d): %s\n", mpi_.rank(), why.c_str());
        std::fflush(stderr);
        if (sink_) sink_->record(MetricsEvent::statusEvent("failed", why, mpi_.rank()));
        mpi_.abort(kExitFailed);
    }
    Status checkpoint(int64_t step);
    Result<int64_t> resume();

    const MpiContext& mpi_;
    TrainPlanOptions o_;
    std::unique_ptr<MetricsSink> sink_;
    std::unique_ptr<Communicator> world_;
    MeshGroups groups_;
    std::unique_ptr<PlanTrainer> trainer_;
    StoredWeights stored_;
};

namespace {

// ", 2 stages (1F1B)" or ", 4 stages on 2 pipeline ranks (interleaved 1F1B)"; "" without stages.
std::string stagesText(const PipelineSchedule& schedule, int pp)
{
    if (pp <= 1) return {};
    if (schedule.virtualStages <= 1) return ", " + std::to_string(pp) + " stages (1F1B)";
    return ", " + std::to_string(schedule.stages.size()) + " stages on " + std::to_string(pp) +
           " pipeline ranks (interleaved 1F1B)";
}

// Stage indices as a list: "stage 0" / "stages 0, 1".
std::string stageList(const std::vector<int>& stages)
{
    std::string list;
    for (int s : stages) list += (list.empty() ? "" : ", ") + std::to_string(s);
    return std::string(stages.size() == 1 ? "stage " : "stages ") + list;
}

// ", selective recomputation on stage 0, full recomputation on stages 1, 2" for the status line;
// "" when no stage recomputes. A stage planned selective without an attention core (`cores`, per
// stage) recomputes nothing and is left out (the log says why).
std::string recomputationText(const PipelineSchedule& schedule, const std::vector<int>& cores)
{
    std::vector<int> selective, full;
    for (size_t i = 0; i < schedule.stages.size(); ++i) {
        const Recompute r = schedule.stages[i].recompute;
        if (r == Recompute::Full) full.push_back(int(i));
        if (r == Recompute::Selective && i < cores.size() && cores[i] > 0) selective.push_back(int(i));
    }
    std::string text;
    if (!selective.empty()) text += ", selective recomputation on " + stageList(selective);
    if (!full.empty()) text += ", full recomputation on " + stageList(full);
    return text;
}

// Selective recomputation's log lines: how many attention cores each selective stage reruns
// (info), and which selective stages have none (warn: they keep every activation, as the
// plan's memory figure for them assumes, since selective drops only the attention core). Each ""
// when there is nothing to say.
std::pair<std::string, std::string> selectiveLog(const PipelineSchedule& schedule, const std::vector<int>& cores)
{
    std::string rerun;
    std::vector<int> without;
    for (size_t i = 0; i < schedule.stages.size(); ++i) {
        if (schedule.stages[i].recompute != Recompute::Selective) continue;
        const int n = i < cores.size() ? cores[i] : 0;
        if (n == 0) without.push_back(int(i));
        else rerun += (rerun.empty() ? "" : ", ") + ("stage " + std::to_string(i) + ": " + std::to_string(n));
    }
    std::pair<std::string, std::string> text;
    if (!rerun.empty())
        text.first = "selective recomputation: attention cores (the product of Q and K to the product with V) freed "
                     "after the forward and rerun before the backward (" + rerun + ")";
    if (!without.empty())
        text.second = "selective recomputation is planned on " + stageList(without) +
                      ", whose blocks have no attention core (no product of two activations through softmax to a "
                      "second product): " + (without.size() == 1 ? "it keeps" : "they keep") +
                      " every activation, as the plan's memory figure for " + (without.size() == 1 ? "it" : "them") +
                      " assumes";
    return text;
}

} // namespace

// Every rank writes its shard into checkpoints/.tmp-step-N; once all of them are complete, rank
// 0 renames the folder to step-N and only then points `latest` at it. A failure anywhere leaves
// `latest` on the previous checkpoint and removes the partial folder (which also gives back the
// space a full disk needs for the `failed` line).
Status Run::checkpoint(int64_t step)
{
    const fs::path root = protocol::checkpointsDir(o_.runDir);
    const std::string name = "step-" + std::to_string(step);
    const fs::path tmp = root / (".tmp-" + name), dir = root / name;
    std::error_code ec;
    if (mpi_.rank() == 0) fs::remove_all(tmp, ec); // left by a run that died mid-checkpoint
    world_->barrier();
    fs::create_directories(tmp, ec);
    Status s = ec ? Status::failure("checkpoint folder '" + tmp.string() + "': " + ec.message())
                  : trainer_->saveCheckpoint((tmp / ("rank-" + std::to_string(mpi_.rank()) + ".pt")).string(), step);
    double bad = s.ok() ? 0 : 1;
    world_->allReduceMax(&bad, 1); // also the barrier: every shard is on disk after it
    if (bad > 0) {
        if (mpi_.rank() == 0) fs::remove_all(tmp, ec);
        return s.ok() ? Status::failure("another rank could not write its checkpoint shard") : s;
    }
    if (mpi_.rank() == 0) {
        if (s = protocol::renameIntoPlace(tmp.string(), dir.string()); !s) {
            fs::remove_all(tmp, ec);
            return s;
        }
        // Atomic: a reader sees the old or the new name, never a half-written one.
        if (s = protocol::replaceFileDurably((root / "latest").string(), name + "\n"); !s) return s;
        MetricsEvent e = MetricsEvent::statusEvent("checkpoint", std::to_string(step));
        e.fields["path"] = fs::relative(dir, o_.runDir, ec).string();
        emit(e);
    }
    return Status::success();
}

Result<int64_t> Run::resume()
{
    const fs::path latest = fs::path(protocol::checkpointsDir(o_.runDir)) / "latest";
    bool ok = false;
    std::string name = readFile(latest.string(), ok);
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               name.end());
    if (!ok || name.rfind("step-", 0) != 0)
        return Result<int64_t>::failure("--resume: no checkpoint named in '" + latest.string() + "'");
    const fs::path file = fs::path(protocol::checkpointsDir(o_.runDir)) / name / ("rank-" + std::to_string(mpi_.rank()) + ".pt");
    return trainer_->loadCheckpoint(file.string());
}

int Run::exec()
{
    const int rank = mpi_.rank();
    std::error_code ec;
    fs::create_directories(fs::path(o_.runDir) / "logs", ec);
    if (o_.rankLogs) {
        if (rank == 0)
            std::fprintf(stderr, "tapas-worker train-plan: each rank's output goes to %s/logs/rank-N.log\n",
                         o_.runDir.c_str());
        const std::string err = redirectOutputToRankLog(o_.runDir, rank);
        if (!err.empty()) std::fprintf(stderr, "tapas-worker: %s\n", err.c_str());
    }
    if (rank == 0) {
        const std::string id = fs::path(o_.runDir).filename().string();
        sink_ = std::make_unique<MetricsSink>(o_.runDir, id, o_.metricsPort, o_.metricsToken);
        if (!sink_->ok()) std::fprintf(stderr, "tapas-worker: %s\n", sink_->error().c_str());
    }
    emit(MetricsEvent::statusEvent("starting", o_.resume ? "resuming" : "loading model and plan"));
    emit(blasLogEvent(rank));
    // SIGTERM from a direct kill; SIGUSR1 because mpirun forwards it to every rank unchanged,
    // while its own SIGTERM handling kills the ranks shortly after passing the signal on.
    std::signal(SIGTERM, onSigterm);
    std::signal(SIGUSR1, onSigterm);
    std::signal(SIGINT, onSigterm);

    Result<PlanHeader> header = readPlanHeader(o_.plan);
    if (!header.ok()) return failAll(header.error());
    const int meshSize = header->dp * header->tp * header->pp;
    if (meshSize != mpi_.size())
        return failAll("plan '" + o_.plan + "' is for a " + header->meshText() + " mesh of " + std::to_string(meshSize) +
                       " ranks, but the run has " + std::to_string(mpi_.size()) + " ranks (mpirun -np " +
                       std::to_string(mpi_.size()) + ")");
    ImportOptions io;
    io.runChecker = false;
    Result<Graph> unbound = importOnnxFile(o_.model, io);
    if (!unbound.ok()) return failAll(unbound.error());
    io.dims = bindDims(*unbound, *header, o_.dims);
    io.batch = o_.batch;
    Result<Graph> global = importOnnxFile(o_.model, io);
    if (!global.ok()) return failAll(global.error());
    Result<PlanDocument> doc = loadPlanFile(o_.plan, *global);
    if (!doc.ok()) return failAll(doc.error());
    const int dp = doc->plan.mesh.dp, tp = doc->plan.mesh.tp, pp = doc->plan.mesh.pp;
    const PipelineSchedule& schedule = doc->plan.pipeline;
    const int microBatches = std::max(1, schedule.microBatches);
    // The pieces one step's batch is cut into: dp replicas, each of microBatches micro-batches.
    const int shards = dp * microBatches;
    const std::string pieces = microBatches > 1 ? "dp " + std::to_string(dp) + " x " + std::to_string(microBatches) +
                                                      " micro-batches"
                                                : "dp " + std::to_string(dp);
    Graph localGraph;
    const Graph* local = &*global;
    // The rules `tapas plan check` and the search apply, so all three refuse the same plans.
    if (Status s = checkRunnable(*global, doc->plan.mesh, o_.model); !s) return failAll(s.error);
    if (shards > 1) {
        // One micro-batch of a replica: the same model with its batch divided by dp x micro-
        // batches, through the probed axis when the run re-binds the batch (--batch), else
        // through the batch symbol.
        ImportOptions lo = io;
        if (o_.batch > 0) {
            if (o_.batch % shards != 0)
                return failAll("--batch " + std::to_string(o_.batch) + " does not divide over " + pieces);
            lo.batch = o_.batch / shards;
        } else {
            const std::string& batch = global->batchSymbol;
            if (!io.dims.count(batch))
                return failAll("model '" + o_.model + "': a data-parallel or micro-batched plan (" + pieces +
                               ") needs a symbolic batch dimension on the inputs, bound by --dim or the plan");
            if (io.dims[batch] % shards != 0)
                return failAll("batch " + batch + "=" + std::to_string(io.dims[batch]) + " does not divide over " + pieces);
            lo.dims[batch] /= shards;
        }
        Result<Graph> l = importOnnxFile(o_.model, lo);
        if (!l.ok()) return failAll(l.error());
        if (l->nodes.size() != global->nodes.size())
            return failAll("model '" + o_.model + "' imports differently with the batch divided by " + pieces);
        localGraph = std::move(*l);
        local = &localGraph;
    }

    Result<StoredWeights> stored = readStoredWeights(o_.model);
    if (!stored.ok()) return failAll(stored.error());
    stored_ = std::move(*stored);
    emit(weightSourceEvent(*global, stored_));

    // A plan that pads tables is for the model with those tables padded: the shards, layouts and
    // stages are the padded graph's, while the unpadded one stays the numerics reference.
    Graph paddedGlobal, paddedLocal;
    const Graph* planGlobal = &*global;
    if (!doc->plan.padding.empty()) {
        paddedGlobal = paddedGraph(*global, doc->plan.padding);
        planGlobal = &paddedGlobal;
        paddedLocal = paddedGraph(*local, doc->plan.padding);
        local = &paddedLocal;
        emit(MetricsEvent::logEvent("info", 0, "padding: " + describeTablePadding(*global, doc->plan.padding) +
                                                   " (zero rows no id reads and the loss does not see)"));
    }

    // Stages are ranges of the folded chain, as the search folded the same graph.
    FoldedGraph folded;
    if (pp > 1) {
        Result<FoldedGraph> f = foldGraph(*planGlobal);
        if (!f.ok()) return failAll(f.error());
        folded = std::move(*f);
    }

    world_ = makeWorldCommunicator();
    try {
        groups_ = splitMesh(*world_, dp, tp, pp);
    } catch (const std::exception& e) {
        return failAll(e.what());
    }
    TrainerSetup setup;
    setup.global = planGlobal;
    setup.local = local;
    setup.reference = &*global;
    setup.plan = &doc->plan;
    setup.folded = pp > 1 ? &folded : nullptr;
    setup.world = world_.get();
    setup.tpComm = groups_.tp.get();
    setup.dpComm = groups_.dp.get();
    setup.ppComm = groups_.pp.get();
    setup.dp = dp;
    setup.tp = tp;
    setup.pp = pp;
    setup.microBatches = microBatches;
    setup.tpIndex = groups_.tpIndex;
    setup.dpIndex = groups_.dpIndex;
    setup.ppIndex = groups_.ppIndex;
    setup.stored = &stored_;
    setup.seed = o_.seed;
    setup.lr = o_.lr;
    setup.shardOptimizerState = schedule.distributedOptimizer && dp > 1;
    const char* corrupt = std::getenv("TAPAS_TEST_CORRUPT_COLLECTIVE");
    setup.corruptCollective = corrupt && std::strcmp(corrupt, "1") == 0;
    const char* corruptPipeline = std::getenv("TAPAS_TEST_CORRUPT_PIPELINE");
    setup.corruptPipeline = corruptPipeline && std::strcmp(corruptPipeline, "1") == 0;
    countTensorMemory(); // before the shards are made, so they are counted
    Result<std::unique_ptr<PlanTrainer>> trainer = PlanTrainer::create(setup);
    if (!trainer.ok()) return failAll(trainer.error());
    trainer_ = std::move(*trainer);
    if (const std::string fused = trainer_->fusedChains(); !fused.empty())
        emit(MetricsEvent::logEvent("info", 0, "node chains run as one torch function each: " + fused));
    const std::vector<int> cores = trainer_->attentionCoresPerStage();
    const auto [rerun, noCore] = selectiveLog(schedule, cores);
    if (!rerun.empty()) emit(MetricsEvent::logEvent("info", 0, rerun));
    if (!noCore.empty()) emit(MetricsEvent::logEvent("warn", 0, noCore));

    int64_t first = 1;
    if (o_.resume) {
        Result<int64_t> done = resume();
        double bad = done.ok() ? 0 : 1;
        world_->allReduceMax(&bad, 1);
        if (bad > 0) return failAll(done.ok() ? "another rank could not load its checkpoint" : done.error());
        first = *done + 1;
        emit(MetricsEvent::logEvent("info", 0, "resumed from the checkpoint after step " + std::to_string(*done)));
    } else if (!o_.skipNumerics) {
        Result<NumericsReport> n = trainer_->checkNumerics(1, o_.tolerance);
        if (!n.ok()) failHere(n.error());
        if (n->ok) {
            MetricsEvent e = MetricsEvent::statusEvent("numerics_ok", "loss and every gradient shard match the unsharded model (max relative error " + fmt(n->maxRelError) + ")");
            e.fields["max_abs_error"] = fmt(n->maxAbsError);
            e.fields["max_rel_error"] = fmt(n->maxRelError);
            e.fields["loss"] = fmt(n->loss);
            e.fields["reference_loss"] = fmt(n->referenceLoss);
            emit(e);
        } else {
            MetricsEvent e = MetricsEvent::statusEvent("numerics_mismatch", "'" + n->worstTensor + "' differs from the unsharded model by " + fmt(n->worstRel) + " (relative), over the tolerance " + fmt(o_.tolerance));
            e.fields["worst_tensor"] = n->worstTensor;
            e.fields["abs_error"] = fmt(n->worstAbs);
            e.fields["rel_error"] = fmt(n->worstRel);
            e.fields["max_abs_error"] = fmt(n->maxAbsError);
            e.fields["tolerance"] = fmt(o_.tolerance);
            emit(e);
            std::fprintf(stderr, "tapas-worker train-plan (rank %d): numerics mismatch: %s (relative error %s > %s)\n",
                         rank, n->worstTensor.c_str(), fmt(n->worstRel).c_str(), fmt(o_.tolerance).c_str());
            return kExitNumericsMismatch;
        }
    }
    emit(MetricsEvent::statusEvent("running", std::to_string(mpi_.size()) + " ranks, mesh " + doc->plan.mesh.toString() +
                                                  stagesText(schedule, pp) +
                                                  (microBatches > 1 ? ", " + std::to_string(microBatches) + " micro-batches"
                                                                    : std::string()) +
                                                  recomputationText(schedule, cores) +
                                                  (schedule.distributedOptimizer && dp > 1
                                                       ? ", Adam state sharded over dp " + std::to_string(dp) + " (ZeRO-1)"
                                                       : std::string())));
    const double predicted = doc->cost.time();
    const int64_t batch = trainer_->globalBatch();
    const std::string host = hostName();
    const std::vector<std::string> hosts = mpi_.gatherToRoot(host);
    const int size = mpi_.size();
    constexpr int kFigures = 11;
    const double predictedMemory = doc->cost.memory();
    resetTensorBytesPeak();
    for (int64_t step = first; step <= o_.steps; ++step) {
        Result<StepFigures> f = trainer_->step(step);
        if (!f.ok()) failHere(f.error());
        const float mine[kFigures] = {float(f->stepTime),          float(f->computeTime),       float(f->commTime),
                                      float(residentBytes()),      float(trainer_->shardBytes()), float(peakResidentBytes()),
                                      float(groups_.ppIndex),      float(trainer_->stageBlocks()), float(f->pipelineWait),
                                      float(tensorBytesPeak()),    float(f->cpuTime)};
        std::vector<float> all(size_t(size) * kFigures);
        world_->allGather(mine, kFigures, all.data());
        if (rank == 0) {
            double stepTime = 0, compute = 0, comm = 0, peak = 0, waitShare = 0, tensorPeak = 0, cpu = 0;
            MetricsEvent stats;
            stats.type = protocol::EventType::RankStats;
            stats.step = step;
            for (int r = 0; r < size; ++r) {
                const float* v = &all[size_t(r) * kFigures];
                stepTime = std::max(stepTime, double(v[0]));
                compute = std::max(compute, double(v[1]));
                comm = std::max(comm, double(v[2]));
                peak = std::max(peak, double(v[5]));
                tensorPeak = std::max(tensorPeak, double(v[9]));
                cpu = std::max(cpu, double(v[10]));
                if (v[0] > 0) waitShare = std::max(waitShare, double(v[8]) / double(v[0]));
                protocol::RankStat rs;
                rs.rank = r;
                rs.host = size_t(r) < hosts.size() ? hosts[size_t(r)] : std::string();
                rs.values = {{"step_time", v[0]}, {"compute_time", v[1]}, {"comm_time", v[2]}, {"memory_bytes", v[3]}, {"shard_bytes", v[4]},
                             {"peak_memory_bytes", v[5]}, {"tensor_peak_bytes", v[9]}};
                if (pp > 1) {
                    rs.values["stage"] = v[6];
                    rs.values["stage_blocks"] = v[7];
                    rs.values["pipeline_wait_time"] = v[8];
                }
                stats.ranks.push_back(std::move(rs));
            }
            MetricsEvent se = MetricsEvent::stepEvent(step, {{"loss", f->loss}, {"step_time", stepTime}, {"compute_time", compute},
                                                             {"comm_time", comm}, {"step_cpu_time", cpu}, {"predicted_step_time", predicted},
                                                             {"peak_memory_bytes", peak}, {"tensor_peak_bytes", tensorPeak},
                                                             {"predicted_memory_bytes", predictedMemory},
                                                             {"samples_per_s", stepTime > 0 ? double(batch) / stepTime : 0}});
            if (pp > 1) {
                // The schedule's idle share as planned beside the largest share of a step any
                // rank spent waiting for its neighbours (bubble plus transfers).
                se.values["pipeline_stages"] = pp;
                se.values["micro_batches"] = microBatches;
                se.values["predicted_bubble_fraction"] = schedule.bubbleFraction;
                se.values["pipeline_wait_fraction"] = waitShare;
            }
            emit(se);
            emit(stats);
        }
        // Every rank stops after the same step, for a stop request or for a record that rank
        // 0 could not write (the run would go on losing metrics).
        double agreed[2] = {g_stopRequested ? 1.0 : 0.0, sink_ && sink_->writeFailed() ? 1.0 : 0.0};
        world_->allReduceMax(agreed, 2);
        if (agreed[1] > 0) return failRecord();
        const double stop = agreed[0];
        const bool scheduled = o_.checkpointEvery > 0 && step % o_.checkpointEvery == 0;
        if (scheduled) {
            Status s = checkpoint(step);
            if (!s.ok()) return failAll("checkpoint after step " + std::to_string(step) + ": " + s.error);
        }
        if (stop > 0 && step < o_.steps) {
            // A stopped run is one to resume: checkpoint the step just done (unless the
            // schedule did), whatever --checkpoint-every says, or --resume would redo the
            // steps since the last scheduled checkpoint (or find none).
            if (!scheduled) {
                Status s = checkpoint(step);
                if (!s.ok()) return failAll("checkpoint after step " + std::to_string(step) + ": " + s.error);
            }
            emit(MetricsEvent::statusEvent("stopped", "stopped by request after step " + std::to_string(step)));
            return sink_ && sink_->writeFailed() ? failRecord() : 0;
        }
    }
    // The padded rows must still be zero: no id reads them and no loss reached them, so Adam's
    // zero gradients left them as they were.
    if (!doc->plan.padding.empty()) {
        const double padded = trainer_->paddedRowsMaxAbs();
        if (padded != 0)
            return failAll("the padded rows of " + describeTablePadding(*global, doc->plan.padding) + " hold values up to " +
                           fmt(padded) + " after step " + std::to_string(o_.steps) + "; they must stay zero");
        emit(MetricsEvent::logEvent("info", 0, "padding: the padded rows are still zero after step " + std::to_string(o_.steps)));
    }
    if (o_.profileNodes) {
        const std::string path = o_.runDir + "/node_profile." + std::to_string(rank) + ".json";
        if (Status s = trainer_->profileNodes(o_.steps + 1, path, rank); !s) return failAll(s.error);
        emit(MetricsEvent::logEvent("info", 0, "node timings written to " + path));
    }
    emit(MetricsEvent::statusEvent("finished", std::to_string(o_.steps) + " steps"));
    // Only rank 0 knows whether the last lines reached the disk.
    double lost = sink_ && sink_->writeFailed() ? 1 : 0;
    world_->allReduceMax(&lost, 1);
    if (lost > 0) return failRecord();
    return 0;
}

} // namespace

const char* trainPlanUsage()
{
    return "  train-plan --model M.onnx --plan P.tapas.json --run-dir D [--steps N] [--checkpoint-every K]\n"
           "             [--resume] [--dim name=value ...] [--batch N] [--seed S] [--lr X] [--tolerance E]\n"
           "             [--skip-numerics] [--metrics-port P (token in TAPAS_METRICS_TOKEN)] [--no-rank-logs]\n"
           "             [--profile-nodes]  (after the steps, time each node alone: node_profile.<rank>.json)\n"
           "                  train a sharded plan on the ranks (mesh dp x pp x tp = ranks; stages run 1F1B)\n";
}

Result<TrainPlanOptions> parseTrainPlanArgs(int argc, char** argv, int first)
{
    using R = Result<TrainPlanOptions>;
    TrainPlanOptions o;
    constexpr int64_t kMaxCount = int64_t(1) << 53; // steps and intervals as exact as a JSON number
    WorkerOptions opts;
    opts.flag("--resume", &o.resume)
        .flag("--skip-numerics", &o.skipNumerics)
        .flag("--no-rank-logs", &o.rankLogs, false)
        .flag("--profile-nodes", &o.profileNodes)
        .text("--model", &o.model)
        .text("--plan", &o.plan)
        .text("--run-dir", &o.runDir)
        .custom("--metrics-token", [](const std::string&) { return Status::failure(protocol::kTokenNotOnCommandLine); })
        .custom("--dim", [&o](const std::string& v) { return addDimBinding(o.dims, v); })
        .integer<int64_t>("--batch", &o.batch, 1, int64_t(1) << 40)
        .integer<int64_t>("--steps", &o.steps, 0, kMaxCount)
        .integer<int64_t>("--checkpoint-every", &o.checkpointEvery, 0, kMaxCount)
        .integer<uint64_t>("--seed", &o.seed)
        .number("--lr", &o.lr, 0, 1e9)
        .number("--tolerance", &o.tolerance, 0, 1e9)
        .integer("--metrics-port", &o.metricsPort, 0, 65535);
    if (Status s = opts.parse(argc, argv, first); !s) return R::failure(s.error);
    if (o.model.empty() || o.plan.empty() || o.runDir.empty())
        return R::failure("--model, --plan and --run-dir are required");
    if (o.metricsPort > 0) {
        Result<std::string> token = protocol::metricsTokenFromEnvironment();
        if (!token) return R::failure("option --metrics-port: " + token.error());
        o.metricsToken = *token;
    }
    return o;
}

int runTrainPlan(const MpiContext& mpi, const TrainPlanOptions& options)
{
    Run run(mpi, options);
    return run.exec();
}

} // namespace tapas::runtime
