// tapas-worker train-plan under a real mpirun: sharded plans (TAPAS, Megatron, data parallel) of
// a reduced-width zoo GPT and of ../shared/models/bert_mini_4l.onnx (on 2 and 4 ranks) compute the same loss and
// gradients as the unsharded model, train, report their steps to the run directory and the
// metrics socket, checkpoint and resume exactly, refuse a mesh that does not match the ranks,
// and a deliberately broken collective (TAPAS_TEST_CORRUPT_COLLECTIVE=1) is caught by the
// numerics check with the tensor named. Plans with pipeline stages (dp x pp x tp, 1F1B over
// micro-batches) pass the same check; a broken gradient send between stages
// (TAPAS_TEST_CORRUPT_PIPELINE=1) is caught, and interleaved stages (two per rank) train as the
// plain schedule does. A plan
// with the optimizer state sharded over dp (ZeRO-1) takes the same steps in less memory, and so
// do stages with full or selective recomputation (selective on a model without attention keeps
// everything and says so).
#include "core/cluster/cluster_spec.h"
#include "core/fold/folded_graph.h"
#include "core/onnx/onnx_importer.h"
#include "core/plan/plan_file.h"
#include "core/search/pipeline_sweep.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "runtime/protocol/run_directory.h"
#include "tests/common/shared_models.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>

using namespace tapas;
using protocol::EventType;
using protocol::MetricsEvent;

namespace {

struct WorkerRun {
    int exitCode = -1;
    QString output;
    std::string runDir;
    std::vector<MetricsEvent> events;

    std::vector<const MetricsEvent*> of(EventType t) const
    {
        std::vector<const MetricsEvent*> out;
        for (const MetricsEvent& e : events)
            if (e.type == t) out.push_back(&e);
        return out;
    }
    const MetricsEvent* status(const std::string& state) const
    {
        for (const MetricsEvent& e : events)
            if (e.type == EventType::Status && e.state == state) return &e;
        return nullptr;
    }
    std::string states() const
    {
        std::string s;
        for (const MetricsEvent& e : events)
            if (e.type == EventType::Status) s += e.state + "(" + e.text + ") ";
        return s;
    }
    QString rankLog(int r) const
    {
        QFile f(QString::fromStdString(protocol::rankLogPath(runDir, r)));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
};

QProcess* startWorker(int np, const QStringList& args, const QProcessEnvironment& extra)
{
    auto* p = new QProcess;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMP_NUM_THREADS", "1");
    for (const QString& k : extra.keys()) env.insert(k, extra.value(k));
    p->setProcessEnvironment(env);
    p->setProcessChannelMode(QProcess::MergedChannels);
    QStringList all{"-np", QString::number(np), "--oversubscribe", "-x", "OMP_NUM_THREADS"};
    for (const QString& k : extra.keys()) all << "-x" << k;
    all << QString(TAPAS_BIN_DIR "/tapas-worker") << "train-plan" << args;
    p->start(TAPAS_MPIEXEC, all);
    return p;
}

WorkerRun finish(QProcess* p, const std::string& runDir, int timeoutMs = 150000)
{
    WorkerRun r;
    r.runDir = runDir;
    if (!p->waitForFinished(timeoutMs)) {
        p->kill();
        p->waitForFinished(5000);
    }
    r.exitCode = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1;
    r.output = QString::fromUtf8(p->readAll());
    delete p;
    Result<protocol::MetricsChunk> m = protocol::readMetrics(runDir);
    if (m.ok()) r.events = m->events;
    return r;
}

WorkerRun runWorker(int np, const std::string& model, const std::string& plan, const std::string& runDir,
                    QStringList extraArgs = {}, const QProcessEnvironment& env = {})
{
    QStringList args{"--model", QString::fromStdString(model), "--plan", QString::fromStdString(plan), "--run-dir",
                     QString::fromStdString(runDir)};
    args << extraArgs;
    return finish(startWorker(np, args, env), runDir);
}

// A CPU cluster with exactly as many devices as the mesh (the presets have a fixed count).
ClusterSpec cpuCluster(const DeviceMesh& mesh)
{
    ClusterSpec c = *loadClusterSpec("cpu-mpi");
    c.nodes = 1;
    c.devicesPerNode = mesh.size();
    return c;
}

std::string savePlan(const Graph& g, const std::string& searcher, const DeviceMesh& mesh, const std::string& path,
                     const std::function<void(ShardingPlan&)>& edit = {})
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = cpuCluster(mesh);
    r.mesh = mesh;
    const Searcher* s = findSearcher(searcher);
    if (!s) qFatal("no searcher %s", searcher.c_str());
    Result<SearchResult> res = s->search(r);
    if (!res.ok()) qFatal("search %s %s: %s", searcher.c_str(), mesh.toString().c_str(), res.error().c_str());
    if (edit) edit(res->best.plan);
    Result<FoldedGraph> folded = foldGraph(g);
    const std::string json = savePlanJson(g, folded.ok() ? &*folded : nullptr, res->best.plan, r.cluster, res->best.report,
                                          {searcher, "test", res->searchSeconds});
    if (!savePlanFile(path, json).ok()) qFatal("cannot write %s", path.c_str());
    return path;
}

// A plan with stages from the pipeline sweep, its choices pinned: tp, pp, the micro-batch size
// the interleaving and the recomputation; dp is what the ranks leave.
// `dtype`: the compute dtype the plan's bytes are counted in (the worker computes in fp32).
std::string savePipelinePlan(const Graph& g, const std::string& searcher, const DeviceMesh& mesh, int microBatchSize,
                             int virtualStages, const std::string& path, Recompute recompute = Recompute::None,
                             const std::string& dtype = CostOptions{}.dtype)
{
    SearchRequest r;
    r.graph = &g;
    r.cluster = cpuCluster(mesh);
    r.cost.dtype = dtype;
    PipelineOptions o;
    o.tp = {mesh.tp};
    o.pp = {mesh.pp};
    o.microBatchSizes = {microBatchSize};
    o.virtualStages = {virtualStages};
    o.recompute = recompute;
    o.tpAcrossNodes = true;
    r.pipeline = o;
    Result<SearchResult> res = searchPipelined(*findSearcher(searcher), r);
    if (!res.ok()) qFatal("pipeline sweep %s %s: %s", searcher.c_str(), mesh.toString().c_str(), res.error().c_str());
    if (!(res->best.plan.mesh == mesh))
        qFatal("pipeline sweep gave mesh %s, not %s", res->best.plan.mesh.toString().c_str(), mesh.toString().c_str());
    Result<FoldedGraph> folded = foldGraph(g);
    const std::string json = savePlanJson(g, folded.ok() ? &*folded : nullptr, res->best.plan, r.cluster, res->best.report,
                                          {searcher, "test", res->searchSeconds});
    if (!savePlanFile(path, json).ok()) qFatal("cannot write %s", path.c_str());
    return path;
}

// Selective recomputation's measured drop of the first stage's live tensor peak against the
// plan's predicted drop (its activation figure keeping everything less its figure with
// selective): the band the test holds it to. The plan counts every output of the attention core
// as kept for each micro-batch in flight (the product of Q and K, the scaled and the masked
// scores, the probabilities: four batch x heads x seq^2 tensors) and the rerun's four as the
// transient, while libtorch's autograd keeps only the probabilities of a finished forward (the
// interpreter holds all four only during the micro-batch's own forward). So the worker drops
// less than the plan says: 0.63 of it on the 2-layer GPT below (seq 128, 2 micro-batches in
// flight); the band allows 0.5 to 1.
constexpr double kTolLow = 0.5, kTolHigh = 1.0;

} // namespace

class TstTrainPlan : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    std::string gptPath_;
    Graph gpt_;

    std::string dir(const QString& name) const { return (tmp_.path() + "/" + name).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        QVERIFY2(QFileInfo(TAPAS_BIN_DIR "/tapas-worker").isExecutable(), "tapas-worker is not built");
        ZooOptions o;
        o.layers = 2;
        o.hidden = 64;
        o.heads = 4;
        o.vocab = 128;
        o.seq = 16;
        gptPath_ = dir("gpt.onnx");
        const Status w = writeZooModel("gpt", o, gptPath_);
        QVERIFY2(w.ok(), w.error.c_str());
        ImportOptions io;
        io.dims = {{"batch", 4}};
        Result<Graph> g = importOnnxFile(gptPath_, io);
        QVERIFY2(g.ok(), g.error().c_str());
        gpt_ = std::move(*g);
    }

    void sharded_gpt_matches_reference_and_trains_data()
    {
        QTest::addColumn<QString>("searcher");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("tp");
        QTest::newRow("tapas 1x2") << QString("tapas") << 1 << 2;
        QTest::newRow("megatron 1x2") << QString("megatron") << 1 << 2;
        QTest::newRow("dp 2x1") << QString("dp") << 2 << 1;
        QTest::newRow("tapas 2x2") << QString("tapas") << 2 << 2;
        QTest::newRow("megatron 1x4") << QString("megatron") << 1 << 4;
    }
    void sharded_gpt_matches_reference_and_trains()
    {
        QFETCH(QString, searcher);
        QFETCH(int, dp);
        QFETCH(int, tp);
        const QString tag = searcher + QString("-%1x%2").arg(dp).arg(tp);
        const std::string plan = savePlan(gpt_, searcher.toStdString(), {dp, tp}, dir(tag + ".tapas.json"));
        const WorkerRun r = runWorker(dp * tp, gptPath_, plan, dir("run-" + tag), {"--steps", "3"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.output + r.rankLog(0) + QString::fromStdString(r.states())));
        const MetricsEvent* ok = r.status("numerics_ok");
        QVERIFY2(ok, r.states().c_str());
        QVERIFY(ok->fields.count("max_rel_error") && std::stod(ok->fields.at("max_rel_error")) <= 1e-3);
        QVERIFY(r.status("finished"));
        const auto steps = r.of(EventType::Step);
        QCOMPARE(int(steps.size()), 3);
        for (const MetricsEvent* s : steps) {
            QVERIFY(std::isfinite(s->values.at("loss")) && s->values.at("loss") > 0);
            QVERIFY(s->values.at("step_time") > 0);
            QVERIFY(s->values.at("predicted_step_time") > 0);
            QVERIFY(s->values.count("comm_time") && s->values.count("compute_time") && s->values.count("samples_per_s"));
        }
        const auto stats = r.of(EventType::RankStats);
        QCOMPARE(int(stats.size()), 3);
        QCOMPARE(int(stats.back()->ranks.size()), dp * tp);
        for (const auto& rs : stats.back()->ranks) {
            QVERIFY(rs.values.at("memory_bytes") > 0);
            QVERIFY(rs.values.at("shard_bytes") > 0);
            // Live tensor storage, counted at torch's CPU allocator: at least the rank's weight
            // shards with their gradients and Adam's two moments, and less than the whole
            // process holds resident (libtorch's code, MPI's buffers).
            const double tensors = rs.values.at("tensor_peak_bytes");
            QVERIFY2(tensors >= 4 * rs.values.at("shard_bytes"),
                     qPrintable(QString("tensor peak %1 vs shards %2").arg(tensors).arg(rs.values.at("shard_bytes"))));
            QVERIFY2(tensors < rs.values.at("peak_memory_bytes"),
                     qPrintable(QString("tensor peak %1 vs resident peak %2").arg(tensors).arg(rs.values.at("peak_memory_bytes"))));
        }
        QVERIFY(steps.back()->values.at("tensor_peak_bytes") > 0);
        if (tp > 1) QVERIFY2(steps.back()->values.at("comm_time") > 0, "a tensor-parallel step communicates");
        qInfo("%s: step_time %.4f s (compute %.4f, comm %.4f), predicted %.6f s, loss %.4f -> %.4f", qPrintable(tag),
              steps.back()->values.at("step_time"), steps.back()->values.at("compute_time"),
              steps.back()->values.at("comm_time"), steps.back()->values.at("predicted_step_time"),
              steps.front()->values.at("loss"), steps.back()->values.at("loss"));
    }

    // A vocabulary tp does not divide (127 words): the plan pads the word table to the next
    // multiple of tp and splits it over its rows (the lookup vocabulary-parallel). The worker
    // runs the padded model, and its loss and every gradient shard still match the unpadded
    // model's: the padded rows are zero, no id reads them, their logits are masked out of the
    // loss, so their gradients are zero and they stay zero through Adam.
    void padded_vocabulary_matches_reference_and_stays_zero_data()
    {
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("tp");
        QTest::newRow("1x4") << 1 << 4;
        QTest::newRow("2x2") << 2 << 2;
    }
    void padded_vocabulary_matches_reference_and_stays_zero()
    {
        QFETCH(int, dp);
        QFETCH(int, tp);
        // initTestCase's GPT with 127 words.
        const std::string model = dir(QString("gpt127-%1x%2.onnx").arg(dp).arg(tp));
        const Status w = writeZooModel("gpt", {.layers = 2, .hidden = 64, .heads = 4, .vocab = 127, .seq = 16}, model);
        QVERIFY2(w.ok(), w.error.c_str());
        ImportOptions io;
        io.dims = {{"batch", 4}};
        Result<Graph> g = importOnnxFile(model, io);
        QVERIFY2(g.ok(), g.error().c_str());
        const TensorId wte = g->findTensor("transformer.wte.weight");
        QVERIFY(wte != kNoTensor);
        const std::vector<TablePadding> padding = tpTablePadding(*g, tp);
        QVERIFY(padding == (std::vector<TablePadding>{{wte, 127, 128}}));
        // The plan TAPAS searches on the padded model, with the lookup pinned vocabulary-parallel.
        const Graph padded = paddedGraph(*g, padding);
        const NodeId lookup = g->tensor(wte).consumers.front();
        SearchRequest r;
        r.graph = &padded;
        r.mesh = {dp, tp};
        r.cluster = cpuCluster(r.mesh);
        r.fixed = {{lookup, "vocab"}};
        Result<SearchResult> res = findSearcher("tapas")->search(r);
        QVERIFY2(res.ok(), res.error().c_str());
        ShardingPlan plan = res->best.plan;
        QVERIFY(plan.nodes[size_t(lookup)].inputs[0] == TensorLayout::split(0));
        plan.padding = padding;
        const Status checked = checkPlan(*g, plan);
        QVERIFY2(checked.ok(), checked.error.c_str());
        const std::string path = dir(QString("gpt127-%1x%2.tapas.json").arg(dp).arg(tp));
        Result<FoldedGraph> folded = foldGraph(*g);
        QVERIFY(savePlanFile(path, savePlanJson(*g, folded.ok() ? &*folded : nullptr, plan, r.cluster, res->best.report,
                                                {"tapas", "test", 0}))
                    .ok());
        const WorkerRun run = runWorker(dp * tp, model, path, dir(QString("run-gpt127-%1x%2").arg(dp).arg(tp)), {"--steps", "3"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output + run.rankLog(0) + QString::fromStdString(run.states())));
        const MetricsEvent* ok = run.status("numerics_ok");
        QVERIFY2(ok, run.states().c_str());
        QVERIFY(std::stod(ok->fields.at("max_rel_error")) <= 1e-3);
        QCOMPARE(int(run.of(EventType::Step).size()), 3);
        bool said = false, zero = false;
        for (const MetricsEvent* e : run.of(EventType::Log)) {
            said = said || e->text.find("'transformer.wte.weight' padded from 127 to 128 rows") != std::string::npos;
            zero = zero || e->text == "padding: the padded rows are still zero after step 3";
        }
        QVERIFY2(said && zero, run.states().c_str());
    }

    // A real exported model (torch.nn.TransformerEncoder, 4 heads) with the TAPAS plan and the
    // Megatron baseline on 2 ranks, and on 4 ranks (TAPAS over a 2x2 mesh: data parallel over
    // the symbolic batch times tensor parallel; Megatron over 1x4: one head per rank).
    void bert_mini_plans_match_reference_data()
    {
        QTest::addColumn<QString>("searcher");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("tp");
        QTest::newRow("tapas 1x2") << QString("tapas") << 1 << 2;
        QTest::newRow("megatron 1x2") << QString("megatron") << 1 << 2;
        QTest::newRow("tapas 2x2") << QString("tapas") << 2 << 2;
        QTest::newRow("megatron 1x4") << QString("megatron") << 1 << 4;
    }
    void bert_mini_plans_match_reference()
    {
        QFETCH(QString, searcher);
        QFETCH(int, dp);
        QFETCH(int, tp);
        TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
        const std::string model = tapas::testing::sharedModelPath("bert_mini_4l.onnx");
        ImportOptions io;
        io.dims = {{"batch", 2}, {"seq", 8}};
        Result<Graph> g = importOnnxFile(model, io);
        QVERIFY2(g.ok(), g.error().c_str());
        const QString tag = searcher + QString("-%1x%2").arg(dp).arg(tp);
        const std::string plan = savePlan(*g, searcher.toStdString(), {dp, tp}, dir("bert-" + tag + ".tapas.json"));
        // A plan that kept every weight whole would match the reference trivially.
        int shardedWeights = 0;
        QFile planFile(QString::fromStdString(plan));
        QVERIFY(planFile.open(QIODevice::ReadOnly));
        for (const QJsonValue w : QJsonDocument::fromJson(planFile.readAll()).object().value("weights").toArray())
            shardedWeights += w.toObject().value("layout").toString().startsWith("S(");
        QVERIFY2(shardedWeights > 0, qPrintable(tag + ": no weight is sharded"));
        QElapsedTimer t;
        t.start();
        const WorkerRun r = runWorker(dp * tp, model, plan, dir("run-bert-" + tag), {"--steps", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.output + r.rankLog(0) + QString::fromStdString(r.states())));
        const MetricsEvent* ok = r.status("numerics_ok");
        QVERIFY2(ok, r.states().c_str());
        QVERIFY(ok->fields.count("max_rel_error") && std::stod(ok->fields.at("max_rel_error")) <= 1e-3);
        QVERIFY(r.status("finished"));
        const auto steps = r.of(EventType::Step);
        QCOMPARE(int(steps.size()), 2);
        for (const MetricsEvent* s : steps) QVERIFY(std::isfinite(s->values.at("loss")) && s->values.at("loss") > 0);
        QCOMPARE(int(r.of(EventType::RankStats).back()->ranks.size()), dp * tp);
        if (tp > 1) QVERIFY2(steps.back()->values.at("comm_time") > 0, "a tensor-parallel step communicates");
        qInfo("bert_mini %s: %d sharded weights, max relative error %s, step_time %.4f s, run %.1f s", qPrintable(tag),
              shardedWeights, ok->fields.at("max_rel_error").c_str(), steps.back()->values.at("step_time"), t.elapsed() / 1000.0);
    }

    void plan_for_another_mesh_is_refused()
    {
        const std::string plan = savePlan(gpt_, "megatron", {1, 2}, dir("mesh12.tapas.json"));
        const WorkerRun r = runWorker(4, gptPath_, plan, dir("run-mesh"), {"--steps", "1"});
        QVERIFY(r.exitCode != 0);
        const MetricsEvent* failed = r.status("failed");
        QVERIFY2(failed, r.states().c_str());
        QVERIFY2(failed->text.find("1x2") != std::string::npos && failed->text.find("4 ranks") != std::string::npos,
                 failed->text.c_str());
        QVERIFY(r.of(EventType::Step).empty());
    }

    // --profile-nodes: after the steps each rank times every node it runs (or fused chain) alone
    // and writes node_profile.<rank>.json; every step also carries the larger rank's CPU time.
    void profile_nodes_times_what_each_rank_runs()
    {
        const std::string plan = savePlan(gpt_, "megatron", {1, 2}, dir("profile.tapas.json"));
        const std::string rd = dir("run-profile");
        const WorkerRun r = runWorker(2, gptPath_, plan, rd, {"--steps", "1", "--skip-numerics", "--profile-nodes"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.output + r.rankLog(0) + QString::fromStdString(r.states())));
        const auto steps = r.of(EventType::Step);
        QVERIFY(!steps.empty());
        QVERIFY(steps.back()->values.count("step_cpu_time") && steps.back()->values.at("step_cpu_time") > 0);
        int matmuls = 0;
        for (const Node& n : gpt_.nodes) matmuls += n.opType == "MatMul" ? 1 : 0;
        for (int rank = 0; rank < 2; ++rank) {
            QFile f(QString::fromStdString(rd) + QStringLiteral("/node_profile.%1.json").arg(rank));
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
            const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
            QCOMPARE(doc.value("rank").toInt(-1), rank);
            const QJsonArray entries = doc.value("nodes").toArray();
            QVERIFY(!entries.isEmpty());
            double total = 0;
            int matmulsTimed = 0;
            bool sawFused = false;
            for (const QJsonValue& e : entries) {
                const QJsonObject o = e.toObject();
                const double t = o.value("isolated_forward_backward_cpu_s").toDouble(-1);
                QVERIFY2(t >= 0, qPrintable(QJsonDocument(o).toJson()));
                total += t;
                sawFused = sawFused || !o.value("fused").toString().isEmpty();
                for (const QJsonValue& op : o.value("ops").toArray()) matmulsTimed += op.toString() == "MatMul" ? 1 : 0;
            }
            QVERIFY(total > 0);
            QVERIFY2(sawFused, "no fused chain (the GPT's LayerNorms fuse) was timed");
            // Every MatMul of the model runs on every rank (as a column or row shard), alone or
            // inside a fused MatMul + bias chain.
            QCOMPARE(matmulsTimed, matmuls);
        }
    }

    // Plans with stages: 2 stages x 2 tp on 4 ranks (4 micro-batches of 1, so the first stage
    // runs one forward ahead), 2 stages x 2 dp, and 2 stages alone on 2 ranks; each rank runs
    // only its stage's blocks and weights (the tied embedding is read by both end stages).
    void pipelined_gpt_matches_reference_and_trains_data()
    {
        QTest::addColumn<QString>("searcher");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("microBatchSize");
        QTest::newRow("tapas 1x2x2 b1") << QString("tapas") << 1 << 2 << 2 << 1;
        QTest::newRow("megatron 1x2x2 b2") << QString("megatron") << 1 << 2 << 2 << 2;
        QTest::newRow("tapas 2x2x1 b1") << QString("tapas") << 2 << 2 << 1 << 1;
        QTest::newRow("tapas 1x2x1 b2") << QString("tapas") << 1 << 2 << 1 << 2;
    }
    void pipelined_gpt_matches_reference_and_trains()
    {
        QFETCH(QString, searcher);
        QFETCH(int, dp);
        QFETCH(int, pp);
        QFETCH(int, tp);
        QFETCH(int, microBatchSize);
        const DeviceMesh mesh{dp, tp, pp};
        const QString tag = searcher + "-" + QString::fromStdString(mesh.toString()) + QString("-b%1").arg(microBatchSize);
        const std::string plan = savePipelinePlan(gpt_, searcher.toStdString(), mesh, microBatchSize, 1, dir(tag + ".tapas.json"));
        const int microBatches = 4 / (dp * microBatchSize);
        const WorkerRun r = runWorker(mesh.size(), gptPath_, plan, dir("run-" + tag), {"--steps", "3"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.output + r.rankLog(0) + r.rankLog(mesh.size() - 1) + QString::fromStdString(r.states())));
        const MetricsEvent* ok = r.status("numerics_ok");
        QVERIFY2(ok, r.states().c_str());
        QVERIFY(ok->fields.count("max_rel_error") && std::stod(ok->fields.at("max_rel_error")) <= 1e-3);
        QVERIFY(r.status("finished"));
        const MetricsEvent* running = r.status("running");
        QVERIFY(running && running->text.find("2 stages (1F1B)") != std::string::npos);
        // The sweep shards the optimizer state whenever dp > 1: across stages that share a weight too.
        QCOMPARE(running->text.find("Adam state sharded over dp 2 (ZeRO-1)") != std::string::npos, dp == 2);
        const auto steps = r.of(EventType::Step);
        QCOMPARE(int(steps.size()), 3);
        for (const MetricsEvent* s : steps) {
            QVERIFY(std::isfinite(s->values.at("loss")) && s->values.at("loss") > 0);
            QCOMPARE(s->values.at("pipeline_stages"), double(pp));
            QCOMPARE(s->values.at("micro_batches"), double(microBatches));
            // (p-1)/(m+p-1) for equal stages; the plan's own figure for its unequal ones
            QVERIFY(s->values.at("predicted_bubble_fraction") > 0 && s->values.at("predicted_bubble_fraction") < 1);
            QVERIFY(s->values.at("pipeline_wait_fraction") > 0 && s->values.at("pipeline_wait_fraction") <= 1);
        }
        QVERIFY2(steps.back()->values.at("loss") < steps.front()->values.at("loss"), "three Adam steps lower the loss");
        const auto stats = r.of(EventType::RankStats);
        QCOMPARE(int(stats.back()->ranks.size()), mesh.size());
        double blocks = 0;
        for (const auto& rs : stats.back()->ranks) {
            // Megatron-LM's order: tp fastest, then dp, then the stage.
            QCOMPARE(rs.values.at("stage"), double(rs.rank / (dp * tp)));
            QVERIFY(rs.values.at("stage_blocks") >= 1);
            QVERIFY(rs.values.at("shard_bytes") > 0);
            if (rs.rank % (dp * tp) == 0) blocks += rs.values.at("stage_blocks");
        }
        const Result<FoldedGraph> folded = foldGraph(gpt_);
        QVERIFY(folded.ok());
        QCOMPARE(blocks, double(folded->chain.size()));
        qInfo("%s: %d micro-batches, step_time %.4f s (comm %.4f), pipeline wait %.0f%% of the step (planned bubble %.0f%%), "
              "loss %.4f -> %.4f, max relative error %s",
              qPrintable(tag), microBatches, steps.back()->values.at("step_time"), steps.back()->values.at("comm_time"),
              100 * steps.back()->values.at("pipeline_wait_fraction"), 100 * steps.back()->values.at("predicted_bubble_fraction"),
              steps.front()->values.at("loss"), steps.back()->values.at("loss"), ok->fields.at("max_rel_error").c_str());
    }

    // Full recomputation: each stage keeps only what it receives for a micro-batch in flight and
    // runs its forward again right before that micro-batch's backward. The numerics check and the
    // losses are those of the same stages keeping every activation (the same floats: the rerun
    // forward is the first one again), and the first stage, which holds two micro-batches in
    // flight, peaks lower.
    void full_recomputation_keeps_less_with_the_same_steps()
    {
        const std::string kept = savePipelinePlan(gpt_, "tapas", {1, 1, 2}, 1, 1, dir("recompute-none.tapas.json"));
        const std::string rerun =
            savePipelinePlan(gpt_, "tapas", {1, 1, 2}, 1, 1, dir("recompute-full.tapas.json"), Recompute::Full);
        Result<PlanDocument> doc = loadPlanFile(rerun, gpt_);
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().c_str());
        QCOMPARE(int(doc->plan.pipeline.stages.size()), 2);
        for (const PipelineStage& st : doc->plan.pipeline.stages) QCOMPARE(st.recompute, Recompute::Full);
        const WorkerRun a = runWorker(2, gptPath_, kept, dir("run-recompute-none"), {"--steps", "3"});
        const WorkerRun b = runWorker(2, gptPath_, rerun, dir("run-recompute-full"), {"--steps", "3"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.output + a.rankLog(0) + QString::fromStdString(a.states())));
        QVERIFY2(b.exitCode == 0, qPrintable(b.output + b.rankLog(0) + QString::fromStdString(b.states())));
        QVERIFY2(b.status("numerics_ok"), b.states().c_str());
        QVERIFY(b.status("running")->text.find("full recomputation on stages 0, 1") != std::string::npos);
        QVERIFY(a.status("running")->text.find("recomputation") == std::string::npos);
        const auto stepsA = a.of(EventType::Step), stepsB = b.of(EventType::Step);
        QCOMPARE(int(stepsA.size()), 3);
        QCOMPARE(int(stepsB.size()), 3);
        for (size_t i = 0; i < 3; ++i)
            QVERIFY2(stepsA[i]->values.at("loss") == stepsB[i]->values.at("loss"),
                     qPrintable(QString("step %1: %2 keeping activations, %3 recomputing")
                                    .arg(i + 1)
                                    .arg(stepsA[i]->values.at("loss"), 0, 'g', 17)
                                    .arg(stepsB[i]->values.at("loss"), 0, 'g', 17)));
        const double peakKept = a.of(EventType::RankStats).back()->ranks[0].values.at("tensor_peak_bytes");
        const double peakRerun = b.of(EventType::RankStats).back()->ranks[0].values.at("tensor_peak_bytes");
        QVERIFY2(peakRerun < peakKept, qPrintable(QString("first stage's tensor peak: %1 B keeping activations, %2 B "
                                                          "recomputing")
                                                      .arg(peakKept, 0, 'f', 0)
                                                      .arg(peakRerun, 0, 'f', 0)));
        qInfo("full recomputation, 2 stages x 4 micro-batches: first stage's tensor peak %.0f -> %.0f B, step %.4f -> %.4f s",
              peakKept, peakRerun, stepsA.back()->values.at("step_time"), stepsB.back()->values.at("step_time"));
    }

    // Selective recomputation (Korthikanti et al. 2022, Megatron-LM's checkpointed core
    // attention): each stage frees its attention cores (the product of Q and K through the mask
    // and softmax to the product with V) after the forward and reruns them, block by block, right
    // before the backward. On a GPT whose sequence (128) makes the cores a visible share of the
    // activations, the losses are the same floats as keeping everything and as recomputing the
    // whole stage; the first stage's live tensor peak lies between the two, and its drop from
    // keeping everything is the plan's predicted drop within the tolerance stated below. A plan
    // file with selective on the first stage and none on the second reaches the worker as such:
    // the first stage peaks as under selective, the second as keeping everything.
    void selective_recomputation_drops_the_attention_core_with_the_same_steps()
    {
        ZooOptions o;
        o.layers = 2;
        o.hidden = 64;
        o.heads = 4;
        o.vocab = 128;
        o.seq = 128;
        const std::string model = dir("gpt-seq128.onnx");
        const Status w = writeZooModel("gpt", o, model);
        QVERIFY2(w.ok(), w.error.c_str());
        ImportOptions io;
        io.dims = {{"batch", 4}};
        Result<Graph> g = importOnnxFile(model, io);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        const DeviceMesh mesh{1, 1, 2};
        // Costed in fp32, the worker's dtype, so the plan's bytes are the bytes the worker holds.
        const std::string none = savePipelinePlan(*g, "tapas", mesh, 1, 1, dir("seq128-none.tapas.json"), Recompute::None, "fp32");
        const std::string selective =
            savePipelinePlan(*g, "tapas", mesh, 1, 1, dir("seq128-selective.tapas.json"), Recompute::Selective, "fp32");
        const std::string full =
            savePipelinePlan(*g, "tapas", mesh, 1, 1, dir("seq128-full.tapas.json"), Recompute::Full, "fp32");
        Result<PlanDocument> docNone = loadPlanFile(none, *g), docSel = loadPlanFile(selective, *g);
        QVERIFY2(docNone.ok() && docSel.ok(), "plan files do not load");
        const std::vector<PipelineStage>& stNone = docNone->plan.pipeline.stages;
        const std::vector<PipelineStage>& stSel = docSel->plan.pipeline.stages;
        QCOMPARE(int(stNone.size()), 2);
        QCOMPARE(int(stSel.size()), 2);
        for (size_t s = 0; s < 2; ++s) { // the same stages, only the recomputation differs
            QCOMPARE(stSel[s].firstBlock, stNone[s].firstBlock);
            QCOMPARE(stSel[s].endBlock, stNone[s].endBlock);
            QCOMPARE(stSel[s].recompute, Recompute::Selective);
        }

        // Selective on the first stage, none on the second: the plan file's own field, hand-edited.
        QFile f(QString::fromStdString(none));
        QVERIFY(f.open(QIODevice::ReadOnly));
        nlohmann::json j = nlohmann::json::parse(f.readAll().toStdString());
        f.close();
        j["pipeline"]["stages"][0]["recompute"] = "selective";
        const std::string mixed = dir("seq128-selective+none.tapas.json");
        std::ofstream(mixed) << j.dump();
        Result<PlanDocument> docMixed = loadPlanFile(mixed, *g);
        QVERIFY2(docMixed.ok(), docMixed.ok() ? "" : docMixed.error().c_str());
        QCOMPARE(docMixed->plan.pipeline.stages[0].recompute, Recompute::Selective);
        QCOMPARE(docMixed->plan.pipeline.stages[1].recompute, Recompute::None);

        const QStringList args{"--steps", "3"};
        const WorkerRun a = runWorker(2, model, none, dir("run-seq128-none"), args);
        const WorkerRun b = runWorker(2, model, selective, dir("run-seq128-selective"), args);
        const WorkerRun c = runWorker(2, model, full, dir("run-seq128-full"), args);
        const WorkerRun m = runWorker(2, model, mixed, dir("run-seq128-mixed"), args);
        for (const WorkerRun* r : {&a, &b, &c, &m}) {
            QVERIFY2(r->exitCode == 0, qPrintable(r->output + r->rankLog(0) + QString::fromStdString(r->states())));
            QVERIFY2(r->status("numerics_ok"), r->states().c_str());
            QCOMPARE(int(r->of(EventType::Step).size()), 3);
        }
        QVERIFY2(b.status("running")->text.find("selective recomputation on stages 0, 1") != std::string::npos,
                 b.status("running")->text.c_str());
        const std::string mixedRunning = m.status("running")->text;
        QVERIFY2(mixedRunning.find("selective recomputation on stage 0") != std::string::npos &&
                     mixedRunning.find("stages 0, 1") == std::string::npos,
                 mixedRunning.c_str());
        QVERIFY(a.status("running")->text.find("recomputation") == std::string::npos);
        bool rerunLogged = false;
        for (const MetricsEvent* e : b.of(EventType::Log))
            rerunLogged = rerunLogged || e->text.find("attention cores") != std::string::npos;
        QVERIFY2(rerunLogged, "no log line names the attention cores rerun");

        for (const WorkerRun* r : {&b, &c, &m})
            for (size_t i = 0; i < 3; ++i)
                QVERIFY2(a.of(EventType::Step)[i]->values.at("loss") == r->of(EventType::Step)[i]->values.at("loss"),
                         qPrintable(QString("step %1: %2 keeping activations, %3 recomputing")
                                        .arg(i + 1)
                                        .arg(a.of(EventType::Step)[i]->values.at("loss"), 0, 'g', 17)
                                        .arg(r->of(EventType::Step)[i]->values.at("loss"), 0, 'g', 17)));

        auto peak = [](const WorkerRun& r, int rank) {
            return r.of(EventType::RankStats).back()->ranks[size_t(rank)].values.at("tensor_peak_bytes");
        };
        const double kept = peak(a, 0), dropped = peak(b, 0), rerun = peak(c, 0);
        QVERIFY2(rerun < dropped && dropped < kept,
                 qPrintable(QString("first stage's tensor peak: %1 B keeping, %2 B selective, %3 B full")
                                .arg(kept, 0, 'f', 0)
                                .arg(dropped, 0, 'f', 0)
                                .arg(rerun, 0, 'f', 0)));
        const double measured = kept - dropped;
        const double predicted = stNone[0].activationMemory - stSel[0].activationMemory;
        QVERIFY(predicted > 0);
        qInfo("selective recomputation, 2 stages x 4 micro-batches, seq 128: first stage (blocks %d-%d) tensor peak %.0f B "
              "keeping, %.0f B selective (%.0f B less; the plan predicts %.0f B less, ratio %.2f), %.0f B full; second "
              "stage %.0f -> %.0f B (the plan predicts %.0f B less); step %.4f -> %.4f s",
              stNone[0].firstBlock, stNone[0].endBlock - 1, kept, dropped, measured, predicted, measured / predicted, rerun,
              peak(a, 1), peak(b, 1), stNone[1].activationMemory - stSel[1].activationMemory,
              a.of(EventType::Step).back()->values.at("step_time"), b.of(EventType::Step).back()->values.at("step_time"));
        QVERIFY2(measured >= kTolLow * predicted && measured <= kTolHigh * predicted,
                 qPrintable(QString("first stage: %1 B less measured, the plan predicts %2 B less").arg(measured, 0, 'f', 0).arg(predicted, 0, 'f', 0)));
        // Per stage, as the plan file asks: the first stage as under selective, the second as
        // keeping everything.
        QCOMPARE(peak(m, 0), dropped);
        QCOMPARE(peak(m, 1), peak(a, 1));
        QVERIFY(peak(b, 1) < peak(a, 1));
    }

    // Selective recomputation planned for stages whose blocks have no attention core (a small
    // ResNet): there is nothing for it to drop, so the plan's memory figure for each stage is the
    // one of keeping everything, and the worker keeps everything too: a warning names the stages,
    // the status claims no recomputation, and the losses and each stage's tensor peak are those
    // of the plan that keeps every activation.
    void selective_recomputation_without_attention_core_keeps_everything()
    {
        ZooOptions o;
        o.depth = 18;
        o.imageSize = 32;
        o.classes = 10;
        const std::string model = dir("resnet18-small.onnx");
        const Status w = writeZooModel("resnet50", o, model);
        QVERIFY2(w.ok(), w.error.c_str());
        ImportOptions io;
        io.dims = {{"batch", 2}};
        Result<Graph> g = importOnnxFile(model, io);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().c_str());
        // One micro-batch of the whole batch: BatchNorm's statistics are the unsharded model's.
        const DeviceMesh mesh{1, 1, 2};
        const std::string none = savePipelinePlan(*g, "tapas", mesh, 2, 1, dir("resnet-none.tapas.json"));
        const std::string selective =
            savePipelinePlan(*g, "tapas", mesh, 2, 1, dir("resnet-selective.tapas.json"), Recompute::Selective);
        Result<PlanDocument> docNone = loadPlanFile(none, *g), docSel = loadPlanFile(selective, *g);
        QVERIFY2(docNone.ok() && docSel.ok(), "plan files do not load");
        QCOMPARE(int(docSel->plan.pipeline.stages.size()), 2);
        for (size_t s = 0; s < 2; ++s) {
            const PipelineStage& x = docSel->plan.pipeline.stages[s];
            QCOMPARE(x.recompute, Recompute::Selective);
            QCOMPARE(x.firstBlock, docNone->plan.pipeline.stages[s].firstBlock);
            QCOMPARE(x.activationMemory, docNone->plan.pipeline.stages[s].activationMemory);
        }
        const WorkerRun a = runWorker(2, model, none, dir("run-resnet-none"), {"--steps", "2"});
        const WorkerRun b = runWorker(2, model, selective, dir("run-resnet-selective"), {"--steps", "2"});
        for (const WorkerRun* r : {&a, &b}) {
            QVERIFY2(r->exitCode == 0, qPrintable(r->output + r->rankLog(0) + QString::fromStdString(r->states())));
            QVERIFY2(r->status("numerics_ok"), r->states().c_str());
        }
        QVERIFY2(b.status("running")->text.find("recomputation") == std::string::npos, b.status("running")->text.c_str());
        const MetricsEvent* warned = nullptr;
        for (const MetricsEvent* e : b.of(EventType::Log))
            if (e->level == "warn" && e->text.find("selective recomputation is planned on stages 0, 1") != std::string::npos)
                warned = e;
        QVERIFY2(warned, "no warning names the stages without an attention core");
        QVERIFY(warned->text.find("keep every activation") != std::string::npos);
        const auto stepsA = a.of(EventType::Step), stepsB = b.of(EventType::Step);
        QCOMPARE(int(stepsB.size()), 2);
        for (size_t i = 0; i < 2; ++i) QCOMPARE(stepsB[i]->values.at("loss"), stepsA[i]->values.at("loss"));
        for (int r = 0; r < 2; ++r)
            QCOMPARE(b.of(EventType::RankStats).back()->ranks[size_t(r)].values.at("tensor_peak_bytes"),
                     a.of(EventType::RankStats).back()->ranks[size_t(r)].values.at("tensor_peak_bytes"));
    }

    // Stages that send zeros back instead of their input gradients: the first stage's weights
    // get wrong gradients, and the numerics check names one.
    void broken_pipeline_send_is_caught_by_numerics()
    {
        const std::string plan = savePipelinePlan(gpt_, "tapas", {1, 1, 2}, 2, 1, dir("corrupt-pp.tapas.json"));
        QProcessEnvironment env;
        env.insert("TAPAS_TEST_CORRUPT_PIPELINE", "1");
        const WorkerRun r = runWorker(2, gptPath_, plan, dir("run-corrupt-pp"), {"--steps", "2"}, env);
        QCOMPARE(r.exitCode, 3);
        const MetricsEvent* bad = r.status("numerics_mismatch");
        QVERIFY2(bad, r.states().c_str());
        QVERIFY(gpt_.findTensor(bad->fields.at("worst_tensor")) != kNoTensor);
        QVERIFY(std::stod(bad->fields.at("rel_error")) > std::stod(bad->fields.at("tolerance")));
        QVERIFY(r.of(EventType::Step).empty());
    }

    // Interleaved stages (2 per pipeline rank: rank 0 runs stages 0 and 2, rank 1 stages 1 and 3)
    // under Megatron-LM's interleaved 1F1B over 4 micro-batches: the numerics check passes, the
    // losses are those of the plain 2-stage schedule, each rank holds the blocks of both its
    // stages, and the plan's bubble is smaller than the plain schedule's. Hand-edited to one
    // micro-batch (not a multiple of pp), the plan is refused naming the field.
    void interleaved_stages_match_reference_and_train_data()
    {
        QTest::addColumn<QString>("searcher");
        QTest::addColumn<int>("tp");
        QTest::newRow("tapas 1x2x1") << QString("tapas") << 1;
        QTest::newRow("megatron 1x2x2") << QString("megatron") << 2;
    }
    void interleaved_stages_match_reference_and_train()
    {
        QFETCH(QString, searcher);
        QFETCH(int, tp);
        const DeviceMesh mesh{1, tp, 2};
        const std::string tag = searcher.toStdString() + "-" + mesh.toString();
        const std::string plain = savePipelinePlan(gpt_, searcher.toStdString(), mesh, 1, 1, dir(QString::fromStdString(tag + "-plain.json")));
        const std::string interleaved =
            savePipelinePlan(gpt_, searcher.toStdString(), mesh, 1, 2, dir(QString::fromStdString(tag + "-interleaved.json")));
        const Result<FoldedGraph> folded = foldGraph(gpt_);
        QVERIFY(folded.ok());
        Result<PlanDocument> doc = loadPlanFile(interleaved, gpt_);
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().c_str());
        QCOMPARE(int(doc->plan.pipeline.stages.size()), 4);
        QCOMPARE(doc->plan.pipeline.microBatches, 4);
        const WorkerRun a = runWorker(mesh.size(), gptPath_, plain, dir(QString::fromStdString("run-plain-" + tag)), {"--steps", "3"});
        const WorkerRun b =
            runWorker(mesh.size(), gptPath_, interleaved, dir(QString::fromStdString("run-interleaved-" + tag)), {"--steps", "3"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.output + a.rankLog(0) + QString::fromStdString(a.states())));
        QVERIFY2(b.exitCode == 0, qPrintable(b.output + b.rankLog(0) + b.rankLog(1) + QString::fromStdString(b.states())));
        const MetricsEvent* ok = b.status("numerics_ok");
        QVERIFY2(ok, b.states().c_str());
        QVERIFY(std::stod(ok->fields.at("max_rel_error")) <= 1e-3);
        const MetricsEvent* running = b.status("running");
        QVERIFY2(running && running->text.find("4 stages on 2 pipeline ranks (interleaved 1F1B)") != std::string::npos,
                 running ? running->text.c_str() : "no running status");
        const auto stepsA = a.of(EventType::Step), stepsB = b.of(EventType::Step);
        QCOMPARE(int(stepsB.size()), 3);
        for (size_t i = 0; i < 3; ++i)
            QVERIFY2(std::abs(stepsA[i]->values.at("loss") - stepsB[i]->values.at("loss")) <= 1e-5 * stepsA[i]->values.at("loss"),
                     qPrintable(QString("step %1: %2 plain, %3 interleaved")
                                    .arg(i + 1)
                                    .arg(stepsA[i]->values.at("loss"))
                                    .arg(stepsB[i]->values.at("loss"))));
        QVERIFY(stepsB.back()->values.at("predicted_bubble_fraction") < stepsA.back()->values.at("predicted_bubble_fraction"));
        double blocks = 0;
        for (const auto& rs : b.of(EventType::RankStats).back()->ranks) {
            QVERIFY(rs.values.at("stage_blocks") >= 2); // two stages each
            if (rs.rank % tp == 0) blocks += rs.values.at("stage_blocks");
        }
        QCOMPARE(blocks, double(folded->chain.size()));

        // One micro-batch (of the whole batch of 4) cannot cycle in groups of 2.
        QFile f(QString::fromStdString(interleaved));
        QVERIFY(f.open(QIODevice::ReadOnly));
        nlohmann::json j = nlohmann::json::parse(f.readAll().toStdString());
        f.close();
        j["pipeline"]["micro_batches"] = 1;
        j["pipeline"]["micro_batch_size"] = 4;
        const std::string uneven = dir(QString::fromStdString(tag + "-uneven.json"));
        std::ofstream(uneven) << j.dump();
        const WorkerRun c = runWorker(mesh.size(), gptPath_, uneven, dir(QString::fromStdString("run-uneven-" + tag)), {"--steps", "1"});
        QVERIFY(c.exitCode != 0);
        const MetricsEvent* failed = c.status("failed");
        QVERIFY2(failed, c.states().c_str());
        QVERIFY2(failed->text.find("pipeline.micro_batches") != std::string::npos &&
                     failed->text.find("groups of pp (2)") != std::string::npos,
                 failed->text.c_str());
        QVERIFY(c.of(EventType::Step).empty());
        qInfo("%s interleaved, 2 stages per rank: loss %.4f -> %.4f (plain %.4f -> %.4f), planned bubble %.0f%% (plain %.0f%%), step %.4f s",
              tag.c_str(), stepsB.front()->values.at("loss"), stepsB.back()->values.at("loss"), stepsA.front()->values.at("loss"),
              stepsA.back()->values.at("loss"), 100 * stepsB.back()->values.at("predicted_bubble_fraction"),
              100 * stepsA.back()->values.at("predicted_bubble_fraction"), stepsB.back()->values.at("step_time"));
    }

    void broken_collective_is_caught_by_numerics()
    {
        const std::string plan = savePlan(gpt_, "megatron", {1, 2}, dir("corrupt.tapas.json"));
        QProcessEnvironment env;
        env.insert("TAPAS_TEST_CORRUPT_COLLECTIVE", "1");
        const WorkerRun r = runWorker(2, gptPath_, plan, dir("run-corrupt"), {"--steps", "2"}, env);
        QCOMPARE(r.exitCode, 3);
        const MetricsEvent* bad = r.status("numerics_mismatch");
        QVERIFY2(bad, r.states().c_str());
        QVERIFY(!bad->fields.at("worst_tensor").empty());
        QVERIFY(gpt_.findTensor(bad->fields.at("worst_tensor")) != kNoTensor);
        QVERIFY(std::stod(bad->fields.at("rel_error")) > std::stod(bad->fields.at("tolerance")));
        QVERIFY(r.of(EventType::Step).empty());
    }

    void resume_continues_the_same_run_exactly()
    {
        const std::string plan = savePlan(gpt_, "tapas", {1, 2}, dir("resume.tapas.json"));
        const WorkerRun straight = runWorker(2, gptPath_, plan, dir("run-straight"), {"--steps", "4", "--skip-numerics"});
        QVERIFY2(straight.exitCode == 0, qPrintable(straight.rankLog(0)));
        const std::string rd = dir("run-resumed");
        const WorkerRun first = runWorker(2, gptPath_, plan, rd, {"--steps", "2", "--checkpoint-every", "2"});
        QVERIFY2(first.exitCode == 0, qPrintable(first.rankLog(0)));
        QVERIFY(first.status("checkpoint"));
        std::ifstream latest(protocol::checkpointsDir(rd) + "/latest");
        std::string name;
        latest >> name;
        QCOMPARE(name, std::string("step-2"));
        QVERIFY(QFileInfo::exists(QString::fromStdString(protocol::checkpointsDir(rd) + "/step-2/rank-1.pt")));
        const WorkerRun second = runWorker(2, gptPath_, plan, rd, {"--steps", "4", "--resume"});
        QVERIFY2(second.exitCode == 0, qPrintable(second.rankLog(0)));
        const auto a = straight.of(EventType::Step);
        const auto b = second.of(EventType::Step); // the file holds both runs' steps
        QCOMPARE(int(a.size()), 4);
        QCOMPARE(int(b.size()), 4);
        for (int i = 2; i < 4; ++i) {
            QCOMPARE(b[size_t(i)]->step, int64_t(i + 1));
            QVERIFY2(std::abs(a[size_t(i)]->values.at("loss") - b[size_t(i)]->values.at("loss")) < 1e-5,
                     qPrintable(QString("step %1: %2 vs %3").arg(i + 1).arg(a[size_t(i)]->values.at("loss")).arg(b[size_t(i)]->values.at("loss"))));
        }
    }

    // The optimizer state sharded over dp (ZeRO-1, Megatron-LM's distributed optimizer): each dp
    // rank keeps Adam's moments of its own block of the weights, so its live tensor storage drops
    // by half the moments on 2 ranks, while the weights end every step as whole-state Adam leaves
    // them: the losses equal the same plan's with whole state, step for step, also across a
    // checkpoint and --resume. A checkpoint of sharded state does not load into a plan that keeps
    // it whole, and the refusal says why.
    void distributed_optimizer_shards_adam_state_with_the_same_steps()
    {
        const auto zero1 = [](ShardingPlan& p) { p.pipeline.distributedOptimizer = true; };
        const std::string whole = savePlan(gpt_, "dp", {2, 1}, dir("zero-off.tapas.json"));
        const std::string sharded = savePlan(gpt_, "dp", {2, 1}, dir("zero-on.tapas.json"), zero1);
        const WorkerRun a = runWorker(2, gptPath_, whole, dir("run-zero-off"), {"--steps", "4"});
        QVERIFY2(a.exitCode == 0, qPrintable(a.output + a.rankLog(0)));
        const std::string rd = dir("run-zero-on");
        const WorkerRun b = runWorker(2, gptPath_, sharded, rd, {"--steps", "2", "--checkpoint-every", "2"});
        QVERIFY2(b.exitCode == 0, qPrintable(b.output + b.rankLog(0) + QString::fromStdString(b.states())));
        QVERIFY2(b.status("numerics_ok"), b.states().c_str());
        const MetricsEvent* running = b.status("running");
        QVERIFY(running && running->text.find("Adam state sharded over dp 2 (ZeRO-1)") != std::string::npos);
        QVERIFY(a.status("running")->text.find("ZeRO-1") == std::string::npos);
        const WorkerRun c = runWorker(2, gptPath_, sharded, rd, {"--steps", "4", "--resume"});
        QVERIFY2(c.exitCode == 0, qPrintable(c.output + c.rankLog(0) + QString::fromStdString(c.states())));

        const auto stepsA = a.of(EventType::Step);
        const auto stepsC = c.of(EventType::Step); // the run folder holds both sharded runs' steps
        QCOMPARE(int(stepsA.size()), 4);
        QCOMPARE(int(stepsC.size()), 4);
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(stepsC[size_t(i)]->step, int64_t(i + 1));
            // Two ranks sum a gradient element as a + b whether they all-reduce or
            // reduce-scatter, and Adam is element-wise: the same floats, not merely close ones.
            QVERIFY2(stepsA[size_t(i)]->values.at("loss") == stepsC[size_t(i)]->values.at("loss"),
                     qPrintable(QString("step %1: whole state %2, sharded %3")
                                    .arg(i + 1)
                                    .arg(stepsA[size_t(i)]->values.at("loss"), 0, 'g', 17)
                                    .arg(stepsC[size_t(i)]->values.at("loss"), 0, 'g', 17)));
        }
        QVERIFY(stepsA.back()->values.at("loss") < stepsA.front()->values.at("loss"));

        // Memory: the moments of the other rank's block are gone, about one shard's bytes
        // (2 moments x half of them) per rank.
        const auto statsA = a.of(EventType::RankStats);
        const auto statsB = b.of(EventType::RankStats);
        QVERIFY(!statsA.empty() && !statsB.empty());
        for (int r = 0; r < 2; ++r) {
            const auto& ra = statsA[1]->ranks[size_t(r)].values; // step 2 of each
            const auto& rb = statsB.back()->ranks[size_t(r)].values;
            const double shard = ra.at("shard_bytes");
            QCOMPARE(rb.at("shard_bytes"), shard);
            const double saved = ra.at("tensor_peak_bytes") - rb.at("tensor_peak_bytes");
            QVERIFY2(saved >= 0.95 * shard && saved <= 1.05 * shard,
                     qPrintable(QString("rank %1: tensor peak %2 B with whole state, %3 B sharded: %4 B saved; the "
                                        "other block's moments are %5 B")
                                    .arg(r)
                                    .arg(ra.at("tensor_peak_bytes"), 0, 'f', 0)
                                    .arg(rb.at("tensor_peak_bytes"), 0, 'f', 0)
                                    .arg(saved, 0, 'f', 0)
                                    .arg(shard, 0, 'f', 0)));
        }

        // The sharded checkpoint under the whole-state plan: refused, naming the reason.
        const WorkerRun d = runWorker(2, gptPath_, whole, rd, {"--steps", "5", "--resume"});
        QVERIFY(d.exitCode != 0);
        QVERIFY2(d.output.contains("optimizer state sharded over dp") ||
                     QString::fromStdString(d.states()).contains("optimizer state sharded over dp"),
                 qPrintable(d.output + QString::fromStdString(d.states())));
        qInfo("ZeRO-1 on 2 ranks: losses %.6f -> %.6f as with whole state; tensor peak per rank %.0f -> %.0f bytes",
              stepsC.front()->values.at("loss"), stepsC.back()->values.at("loss"), statsA[1]->ranks[0].values.at("tensor_peak_bytes"),
              statsB.back()->ranks[0].values.at("tensor_peak_bytes"));
    }

    void metrics_arrive_on_the_socket_after_the_token()
    {
        const std::string plan = savePlan(gpt_, "tapas", {1, 2}, dir("socket.tapas.json"));
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const QString token = "t0k3n-h4";
        const std::string rd = dir("run-socket");
        QProcessEnvironment secret; // the token travels in the environment (-x), never as an argument
        secret.insert("TAPAS_METRICS_TOKEN", token);
        QProcess* p = startWorker(2, {"--model", QString::fromStdString(gptPath_), "--plan", QString::fromStdString(plan),
                                      "--run-dir", QString::fromStdString(rd), "--steps", "2", "--metrics-port",
                                      QString::number(server.serverPort())},
                                  secret);
        QVERIFY(server.waitForNewConnection(60000));
        QTcpSocket* s = server.nextPendingConnection();
        QByteArray data;
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < 120000 && !data.contains("\"finished\"")) {
            if (s->waitForReadyRead(200)) data += s->readAll();
            if (s->state() != QAbstractSocket::ConnectedState && !s->bytesAvailable()) break;
        }
        data += s->readAll();
        const WorkerRun r = finish(p, rd);
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = data.split('\n');
        QVERIFY(!lines.isEmpty());
        std::string runId, gotToken;
        QVERIFY2(protocol::parseHelloLine(lines.front().toStdString(), runId, gotToken), lines.front().constData());
        QCOMPARE(QString::fromStdString(gotToken), token);
        int steps = 0;
        for (const QByteArray& l : lines) {
            if (l.trimmed().isEmpty() || l == lines.front()) continue;
            Result<MetricsEvent> e = protocol::parseJsonLine(l.toStdString());
            QVERIFY2(e.ok(), l.constData());
            steps += e->type == EventType::Step;
        }
        QCOMPARE(steps, 2);
    }
};

QTEST_GUILESS_MAIN(TstTrainPlan)
#include "tst_train_plan.moc"
