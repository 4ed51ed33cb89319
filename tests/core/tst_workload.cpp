// The workload a plan is for is explicit: --dim names must exist, dims the cost depends on must
// be bound, and the batch axis is what the importer's probe finds (never dim 0 of some input),
// through which a fixed-batch export can be re-batched.
#include "core/cost/cost_model.h"
#include "core/onnx/onnx_importer.h"
#include "core/ops/op_registry.h"
#include "core/ops/shape_fill.h"
#include "core/plan/plan_runnable.h"
#include "core/search/mesh_sweep.h"
#include "core/search/searcher.h"
#include "core/zoo/zoo.h"
#include "onnx_test_models.h"
#include "op_test_graph.h"
#include "tests/common/corpus.h"
#include "tests/common/shared_models.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace tapas;
namespace models = tapas::testmodels;

namespace {

std::string corpusFile(const char* file) { return tapas::testing::corpusDir() + "/" + file; }

Result<Graph> importWith(const std::string& path, DimBindings dims, int64_t batch = 0, bool probe = true)
{
    ImportOptions o;
    o.dims = std::move(dims);
    o.batch = batch;
    o.probeBatch = probe;
    return importOnnxFile(path, o);
}

bool has(const std::string& text, std::initializer_list<const char*> parts)
{
    for (const char* p : parts)
        if (text.find(p) == std::string::npos) return false;
    return true;
}

SearchRequest requestFor(const Graph& g, const char* cluster, DeviceMesh mesh)
{
    SearchRequest r;
    r.graph = &g;
    Result<ClusterSpec> c = loadClusterSpec(cluster);
    if (!c) qFatal("%s", c.error().c_str());
    r.cluster = *c;
    r.mesh = mesh;
    return r;
}

} // namespace

class TstWorkload : public QObject {
    Q_OBJECT
private slots:
    // One max over the whole tensor, batch axis included: data-parallel replicas would each take
    // the max of their own samples (the runtime's numerics check fails). The search, `tapas plan
    // check` and the worker refuse it through one rule, naming the node; a max over features is
    // samplewise and runs.
    void data_parallelism_is_refused_where_a_node_reduces_over_the_batch()
    {
        for (const bool overBatch : {true, false}) {
            testing::TestGraph t;
            const TensorId x = t.input("x", {testing::num(8), testing::num(64)});
            const TensorId w = t.weight("w", Shape::of({64, 64}));
            const TensorId h = t.op("MatMul", {x, w});
            std::vector<Attribute> attrs{testing::intAttr("keepdims", 1)};
            if (!overBatch) attrs.push_back(testing::intsAttr("axes", {1}));
            const TensorId m = t.op("ReduceMax", {h}, attrs);
            t.g.outputs = {t.op("Div", {h, m})};
            (void)fillMissingShapes(t.g);
            Graph& g = t.g;
            g.batch.probed = true;
            g.batch.inputs = {{x, 0}};
            g.batch.size = 8;
            g.batchSymbol = "batch";
            for (Tensor& ten : g.tensors)
                if (ten.kind != TensorKind::Weight && ten.shape.rank() == 2) ten.batchScaledDims = 1u;
            const Status dp = checkSamplewise(g, {2, 1});
            QCOMPARE(dp.ok(), !overBatch);
            QVERIFY(checkSamplewise(g, {1, 2}).ok());
            if (overBatch) {
                QVERIFY2(dp.error.find("ReduceMax") != std::string::npos && dp.error.find("over axis 0, which holds the batch") !=
                                                                                    std::string::npos, dp.error.c_str());
                SearchRequest r;
                r.graph = &g;
                r.cluster = *loadClusterSpec("a100x8");
                r.mesh = {8, 1};
                const Result<SearchResult> s = findSearcher("dp")->search(r);
                QVERIFY(!s.ok());
                QCOMPARE(s.error(), "data parallel: " + checkRunnable(g, {8, 1}, "m.onnx").error);
                r.mesh = {2, 4}; // TAPAS on a mesh with data parallelism, by the same rule
                const Result<SearchResult> tapas = findSearcher("tapas")->search(r);
                QVERIFY(!tapas.ok());
                QCOMPARE(tapas.error(), checkSamplewise(g, {2, 4}).error);
            } else {
                QVERIFY(checkRunnable(g, {2, 1}, "m.onnx").ok());
                g.batchSymbol.clear(); // a fixed-batch export: the worker cannot divide it by dp
                const Status fixed = checkRunnable(g, {2, 1}, "m.onnx");
                QVERIFY(!fixed.ok());
                QVERIFY2(fixed.error.find("needs a symbolic batch dimension") != std::string::npos, fixed.error.c_str());
                g.batch.rebatched = true; // ... unless re-bound with --batch, which the worker re-binds per replica
                QVERIFY(checkRunnable(g, {2, 1}, "m.onnx").ok());
            }
        }
    }

    void unknown_dim_name_is_an_error_listing_the_models_dims()
    {
        const std::string path = corpusFile("encoder_4l_small.onnx");
        const Result<Graph> g = importWith(path, {{"foo", 3}, {"batch", 2}});
        QVERIFY(!g.ok());
        QVERIFY2(has(g.error(), {"encoder_4l_small.onnx", "--dim foo=3", "no symbolic dim", "batch, seq"}), g.error().c_str());
        // A fixed-batch export has none, and says how to set its batch instead.
        const Result<Graph> fixed = importWith(corpusFile("r3d_18.onnx"), {{"batch", 8}});
        QVERIFY(!fixed.ok());
        QVERIFY2(has(fixed.error(), {"--dim batch=8", "it has none", "--batch"}), fixed.error().c_str());
    }

    // src is [seq, batch, 64]: dim 0 is the sequence. The probe doubles each symbol: seq grows the
    // attention scores along two axes, batch along one, so batch is the batch, on axis 1.
    void probe_finds_the_batch_of_a_sequence_first_encoder()
    {
        const Result<Graph> g = importWith(corpusFile("encoder_4l_small.onnx"), {{"seq", 16}, {"batch", 4}});
        QVERIFY2(g.ok(), g.error().c_str());
        QVERIFY(g->batch.found());
        QCOMPARE(QString::fromStdString(g->batch.symbol), QStringLiteral("batch"));
        QCOMPARE(g->batch.inputs.size(), size_t(1));
        QCOMPARE(g->batch.inputs[0].second, 1);
        QCOMPARE(g->batch.size, int64_t(4));
        QCOMPARE(g->tensor(g->batch.inputs[0].first).batchScaledDims, 1u << 1);
        for (const Tensor& t : g->tensors)
            if (t.isParameter()) QVERIFY2(t.batchScaledDims == 0, t.name.c_str());
        // Data parallelism splits that axis: 4 samples over 2 replicas, not 16 positions.
        QVERIFY(checkBatchSplit(*g, {2, 4}).ok());
        const Status bad = checkBatchSplit(*g, {8, 1});
        QVERIFY(!bad.ok());
        QVERIFY2(has(bad.error, {"does not divide the batch 4", "axis 1 of input 'src'"}), bad.error.c_str());
    }

    // silero's state is [2, batch, 128]: the batch is axis 1 there and axis 0 of the audio.
    void probe_finds_the_batch_inside_a_state_tensor()
    {
        const Result<Graph> g = importWith(corpusFile("silero_vad_16k_op15.onnx"), {{"batch", 3}, {"sequence", 512}});
        QVERIFY2(g.ok(), g.error().c_str());
        QVERIFY2(g->batch.found(), g->batch.why.c_str());
        QCOMPARE(QString::fromStdString(g->batch.symbol), QStringLiteral("batch"));
        std::map<std::string, int> axes;
        for (const auto& [t, axis] : g->batch.inputs) axes[g->tensor(t).name] = axis;
        QCOMPARE(axes.size(), size_t(2));
        QCOMPARE(axes.at("input"), 0);
        QCOMPARE(axes.at("state"), 1);
    }

    // A text-detection map grows with the image's height and width too; from an odd size its
    // stride-2 stages stop doubling exactly, which leaves the batch alone.
    void spatial_axes_of_a_segmentation_map_are_not_the_batch()
    {
        const Result<Graph> g = importWith(corpusFile("ppocr_v4_det.onnx"),
                                           {{"p2o.DynamicDimension.0", 2}, {"p2o.DynamicDimension.1", 64}, {"p2o.DynamicDimension.2", 64}});
        QVERIFY2(g.ok(), g.error().c_str());
        QVERIFY2(g->batch.found(), g->batch.why.c_str());
        QCOMPARE(QString::fromStdString(g->batch.symbol), QStringLiteral("p2o.DynamicDimension.0"));
        QCOMPARE(g->batch.inputs[0].second, 0);
    }

    // r3d_18 was exported with batch 1 baked into its input: --batch 8 re-batches it.
    void batch_rebatches_a_fixed_batch_export()
    {
        const Result<Graph> one = importWith(corpusFile("r3d_18.onnx"), {}, 0, false);
        QVERIFY2(one.ok(), one.error().c_str());
        QVERIFY(!one->batch.probed);
        const Result<Graph> g = importWith(corpusFile("r3d_18.onnx"), {}, 8);
        QVERIFY2(g.ok(), g.error().c_str());
        QVERIFY2(g->batch.found(), g->batch.why.c_str());
        QVERIFY(g->batch.symbol.empty());
        QCOMPARE(g->batch.size, int64_t(8));
        QCOMPARE(g->batch.inputs[0].second, 0);
        QCOMPARE(QString::fromStdString(g->tensor(g->inputs[0]).shape.toString()), QStringLiteral("[8,3,8,112,112]"));
        QCOMPARE(QString::fromStdString(g->tensor(g->outputs[0]).shape.toString()), QStringLiteral("[8,400]"));
        QCOMPARE(g->tensor(g->outputs[0]).batchScaledDims, 1u);
        QVERIFY(checkBatchSplit(*g, {8, 1}).ok());
        // Eight times the samples, eight times the work, same weights.
        double flopsOne = 0, flopsEight = 0;
        for (const Node& n : one->nodes) flopsOne += nodeCost(*one, n).flops;
        for (const Node& n : g->nodes) flopsEight += nodeCost(*g, n).flops;
        QVERIFY(flopsOne > 0);
        QVERIFY2(std::abs(flopsEight / flopsOne - 8) < 1e-9, qPrintable(QString::number(flopsEight / flopsOne)));
        QCOMPARE(g->parameterCount(), one->parameterCount());
    }

    // A Reshape whose target bakes the batch of 1 in cannot be re-batched through the inputs:
    // the probe sees the shape break at that node and the import says so.
    void batch_baked_into_a_reshape_is_refused_naming_the_node()
    {
        onnx::ModelProto m = models::makeModel();
        auto* gp = m.mutable_graph();
        models::addInput(gp, "X", {1, 4, 8});
        models::addInt64Initializer(gp, "target", {1, 32});
        models::addInitializer(gp, "W", {32, 16});
        models::addNode(gp, "Reshape", {"X", "target"}, {"F"}, "/flatten/Reshape");
        models::addNode(gp, "MatMul", {"F", "W"}, {"Y"}, "/head/MatMul");
        models::addOutput(gp, "Y", {1, 16});
        ImportOptions o;
        o.batch = 4;
        const Result<Graph> g = importOnnxBytes(models::serialize(m), "baked.onnx", "", o);
        QVERIFY(!g.ok());
        QVERIFY2(has(g.error(), {"baked.onnx", "cannot re-batch to 4", "axis 0 of 'X'", "/flatten/Reshape"}), g.error().c_str());
    }

    void search_stops_on_unbound_dims_naming_them()
    {
        ZooOptions o;
        o.layers = 2;
        o.hidden = 256;
        o.heads = 4;
        const Result<Graph> g = zooGraph("gpt", o); // batch and seq left symbolic
        QVERIFY2(g.ok(), g.error().c_str());
        for (const char* searcher : {"tapas", "megatron", "dp", "unfolded"}) {
            const Result<SearchResult> r = findSearcher(searcher)->search(requestFor(*g, "a100x8", {1, 8}));
            QVERIFY2(!r.ok(), searcher);
            QVERIFY2(has(r.error(), {"not bound", "'batch'", "'seq'", "--dim batch=N", "--dim seq=N"}), r.error().c_str());
        }
        // Bound, it plans.
        o.batch = 8;
        o.seq = 64;
        const Result<Graph> bound = zooGraph("gpt", o);
        QVERIFY2(bound.ok(), bound.error().c_str());
        const Result<SearchResult> r = findSearcher("tapas")->search(requestFor(*bound, "a100x8", {2, 4}));
        QVERIFY2(r.ok(), r.error().c_str());
    }

    // An export without a batch axis (a detector taking one [3, 320, 320] image) gets tensor
    // parallelism; data parallelism is refused with what the probe saw.
    void model_without_a_batch_axis_refuses_data_parallelism_saying_why()
    {
        const Result<Graph> g = importWith(corpusFile("fasterrcnn_mobilenet_v3_large_320_fpn.onnx"), {});
        QVERIFY2(g.ok(), g.error().c_str());
        QVERIFY(g->batch.probed);
        QVERIFY(!g->batch.found());
        const Status s = checkBatchSplit(*g, {8, 1});
        QVERIFY(!s.ok());
        QVERIFY2(has(s.error, {"needs the model's batch axis", "no input axis scales like a batch", "axis 0 of 'image'"}),
                 s.error.c_str());
    }

    // Two layers, one sample a step: every tensor-parallel split costs more than it saves, so the plan keeps
    // the model whole on each device of a 1x8 group. Said, with why data parallelism cannot use
    // those devices; re-batched to 2,048 samples, the sweep's plan does use them.
    void replicated_plan_reports_its_effective_devices_and_why_dp_does_not_help()
    {
        onnx::ModelProto m = models::makeModel();
        auto* gp = m.mutable_graph();
        models::addInput(gp, "X", {1, 2048});
        models::addInitializer(gp, "W1", {2048, 2048});
        models::addInitializer(gp, "W2", {2048, 2048});
        models::addNode(gp, "MatMul", {"X", "W1"}, {"H"}, "/fc1/MatMul");
        models::addNode(gp, "Relu", {"H"}, {"R"}, "/fc1/Relu");
        models::addNode(gp, "MatMul", {"R", "W2"}, {"Y"}, "/fc2/MatMul");
        models::addOutput(gp, "Y", {1, 2048});
        const std::string bytes = models::serialize(m);
        ImportOptions o;
        o.probeBatch = true;
        const Result<Graph> one = importOnnxBytes(bytes, "fc.onnx", "", o);
        QVERIFY2(one.ok(), one.error().c_str());
        QCOMPARE(one->batch.size, int64_t(1));
        const Result<ClusterSpec> cluster = loadClusterSpec("a100x8");
        QVERIFY(cluster.ok());
        const std::vector<DeviceMesh> meshes = enumerateMeshes(*cluster, true);
        const Result<SearchResult> r = searchBestMesh(*findSearcher("tapas"), requestFor(*one, "a100x8", {1, 8}), meshes);
        QVERIFY2(r.ok(), r.error().c_str());
        QCOMPARE(QString::fromStdString(r->best.plan.mesh.toString()), QStringLiteral("1x8"));
        QVERIFY2(std::abs(r->best.report.effectiveDevices - 1.0) < 1e-9, qPrintable(QString::number(r->best.report.effectiveDevices, 'g', 17)));
        std::string all;
        for (const std::string& w : r->warnings) all += w + "\n";
        QVERIFY2(has(all, {"computes the same thing", "work of 1 of 8 devices", "data parallelism cannot use them",
                           "does not divide the batch 1"}),
                 all.c_str());
        o.batch = 2048;
        const Result<Graph> many = importOnnxBytes(bytes, "fc.onnx", "", o);
        QVERIFY2(many.ok(), many.error().c_str());
        const Result<SearchResult> big = searchBestMesh(*findSearcher("tapas"), requestFor(*many, "a100x8", {1, 8}), meshes);
        QVERIFY2(big.ok(), big.error().c_str());
        QVERIFY2(big->best.report.effectiveDevices > 4, qPrintable(QString::number(big->best.report.effectiveDevices)));
        for (const std::string& w : big->warnings) QVERIFY2(w.find("computes the same thing") == std::string::npos, w.c_str());
    }
};

QTEST_GUILESS_MAIN(TstWorkload)
#include "tst_workload.moc"
