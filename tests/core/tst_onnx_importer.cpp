// The ONNX importer on real exported models and on small models built in code.
#include "core/onnx/onnx_importer.h"
#include "core/onnx/onnx_subgraph.h"
#include "onnx_test_models.h"
#include "tests/common/shared_models.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>

using namespace tapas;
namespace models = tapas::testmodels;

namespace {

std::string modelPath(const char* file) { return tapas::testing::sharedModelPath(file); }

Graph importOrFail(const std::string& path, DimBindings dims = {})
{
    ImportOptions o;
    o.dims = std::move(dims);
    Result<Graph> r = importOnnxFile(path, o);
    if (!r.ok()) qFatal("import of %s failed: %s", path.c_str(), r.error().c_str());
    return std::move(r).value();
}

Result<Graph> importProto(const onnx::ModelProto& m, const std::string& name = "built.onnx")
{
    return importOnnxBytes(models::serialize(m), name, "");
}

int countKind(const Graph& g, TensorKind k)
{
    int n = 0;
    for (const Tensor& t : g.tensors) n += t.kind == k;
    return n;
}

bool isTopological(const Graph& g)
{
    for (size_t n = 0; n < g.nodes.size(); ++n)
        for (TensorId t : g.nodes[n].inputs)
            if (t != kNoTensor && g.tensor(t).producer != kNoNode && size_t(g.tensor(t).producer) >= n) return false;
    return true;
}

bool anyContains(const std::vector<std::string>& v, std::initializer_list<const char*> parts)
{
    for (const std::string& s : v) {
        bool all = true;
        for (const char* p : parts) all = all && s.find(p) != std::string::npos;
        if (all) return true;
    }
    return false;
}

QByteArray joinedWarnings(const Graph& g)
{
    std::string s;
    for (const std::string& w : g.warnings) s += w + "\n";
    return QByteArray::fromStdString(s);
}

} // namespace

class TstOnnxImporter : public QObject {
    Q_OBJECT
private slots:
    void importer_counts_nodes_and_params_of_shared_models_data();
    void importer_counts_nodes_and_params_of_shared_models();
    void importer_excludes_initializers_from_graph_inputs();
    void importer_keeps_ppocr_weights_as_constant_nodes();
    void importer_binds_dims_before_shape_inference();
    void importer_names_output_dims_after_input_dims();
    void importer_fills_slice_shapes_after_packed_qkv();
    void importer_marks_dims_that_scale_with_the_batch();
    void importer_drops_large_weight_values_keeps_small_ints();
    void importer_keeps_node_names_scopes_and_attributes();
    void importer_converts_control_flow_subgraphs_with_what_they_read_from_outside();
    void importer_keeps_unknown_domain_op_with_warning();
    void importer_sorts_nodes_written_out_of_order();
    void importer_reports_cycle_naming_a_node();
    void importer_reports_progress_stages_and_cancels();
};

void TstOnnxImporter::importer_counts_nodes_and_params_of_shared_models_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<qlonglong>("params");
    // Figures from ../shared/models/README.md (counted by the exporters' own tooling).
    QTest::newRow("resnet18") << "resnet18.onnx" << 65 << 11680872LL;
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx" << 209 << 3475078LL;
    QTest::newRow("bert_mini_4l") << "bert_mini_4l.onnx" << 523 << 7263072LL;
    QTest::newRow("ch_ppocr") << "ch_ppocr_mobile_v2.0_cls_infer.onnx" << 471 << 133664LL;
}

void TstOnnxImporter::importer_counts_nodes_and_params_of_shared_models()
{
    QFETCH(QString, file);
    QFETCH(int, nodes);
    QFETCH(qlonglong, params);
    TAPAS_NEEDS_SHARED_MODEL(file);
    const Graph g = importOrFail(modelPath(file.toUtf8().constData()));
    QCOMPARE(int(g.nodes.size()), nodes);
    QCOMPARE(qlonglong(g.parameterCount()), params);
    QVERIFY(isTopological(g));
    QVERIFY(g.opsetVersion("") >= 9); // Paddle2ONNX wrote opset 9, torch 14
    QVERIFY(!g.outputs.empty());
    QVERIFY2(g.warnings.empty(), joinedWarnings(g).constData());
}

void TstOnnxImporter::importer_excludes_initializers_from_graph_inputs()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const Graph g = importOrFail(modelPath("resnet18.onnx"));
    QCOMPARE(int(g.inputs.size()), 1);
    const Tensor& in = g.tensor(g.inputs[0]);
    QCOMPARE(in.kind, TensorKind::Input);
    QCOMPARE(in.dtype, DType::Float32);
    QCOMPARE(QString::fromStdString(in.shape.toString()), QStringLiteral("[batch,3,224,224]"));
    QVERIFY(countKind(g, TensorKind::Weight) > 20);
    const TensorId fcW = g.findTensor("fc.weight");
    QVERIFY(fcW != kNoTensor);
    QCOMPARE(g.tensor(fcW).kind, TensorKind::Weight);
    QCOMPARE(QString::fromStdString(g.tensor(fcW).shape.toString()), QStringLiteral("[1000,512]"));
    QVERIFY(!g.tensor(fcW).value); // 512000 floats: shape only
}

void TstOnnxImporter::importer_keeps_ppocr_weights_as_constant_nodes()
{
    TAPAS_NEEDS_SHARED_MODEL("ch_ppocr_mobile_v2.0_cls_infer.onnx");
    const Graph g = importOrFail(modelPath("ch_ppocr_mobile_v2.0_cls_infer.onnx"));
    QCOMPARE(countKind(g, TensorKind::Weight), 0);
    int constants = 0;
    int64_t constantElements = 0;
    for (const Node& n : g.nodes) {
        if (n.opType != "Constant") continue;
        ++constants;
        const Tensor& out = g.tensor(n.outputs[0]);
        QCOMPARE(out.kind, TensorKind::Constant);
        QVERIFY(out.shape.isFullyKnown());
        if (out.isParameter()) constantElements += out.storedElements();
    }
    QCOMPARE(constants, 250);
    QCOMPARE(qlonglong(constantElements), 133664LL);
}

void TstOnnxImporter::importer_binds_dims_before_shape_inference()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const Graph open = importOrFail(modelPath("resnet18.onnx"));
    const Graph bound = importOrFail(modelPath("resnet18.onnx"), {{"batch", 4}});
    QCOMPARE(QString::fromStdString(open.tensor(open.outputs[0]).shape.toString()), QStringLiteral("[batch,1000]"));
    QCOMPARE(QString::fromStdString(bound.tensor(bound.outputs[0]).shape.toString()), QStringLiteral("[4,1000]"));
    QCOMPARE(QString::fromStdString(bound.tensor(bound.inputs[0]).shape.toString()), QStringLiteral("[4,3,224,224]"));
    QVERIFY(bound.symbolicDims().empty());
    QCOMPARE(open.symbolicDims(), std::vector<std::string>{"batch"});
    // Every activation of the bound graph is concrete: inference ran on the bound dims.
    for (const Tensor& t : bound.tensors)
        if (t.kind == TensorKind::Activation) QVERIFY2(t.shape.isFullyKnown(), t.name.c_str());

    // A binding that matches nothing is refused, naming it and the dims the model has.
    ImportOptions typo;
    typo.dims = {{"batc", 4}};
    const Result<Graph> r = importOnnxFile(modelPath("resnet18.onnx"), typo);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().find("--dim batc=4") != std::string::npos && r.error().find("batch") != std::string::npos, r.error().c_str());
}

void TstOnnxImporter::importer_names_output_dims_after_input_dims()
{
    TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
    // The exporter names bert's output dims "Addlogits_dim_0/1"; they are the input's batch and seq.
    const Graph g = importOrFail(modelPath("bert_mini_4l.onnx"));
    QCOMPARE(QString::fromStdString(g.tensor(g.outputs[0]).shape.toString()), QStringLiteral("[batch,seq,8000]"));
}

void TstOnnxImporter::importer_fills_slice_shapes_after_packed_qkv()
{
    TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
    const std::string path = modelPath("bert_mini_4l.onnx");
    // What ONNX alone leaves: run its inference (with data propagation) on the bound model.
    onnx::ModelProto m;
    {
        std::ifstream f(path, std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        QVERIFY(m.ParseFromString(ss.str()));
    }
    for (auto& in : *m.mutable_graph()->mutable_input())
        for (auto& d : *in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
            if (d.dim_param() == "batch") d.set_dim_value(2);
            else if (d.dim_param() == "seq") d.set_dim_value(16);
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), onnx::ShapeInferenceOptions(false, 0, true));
    std::set<std::string> onnxShaped;
    for (const auto& vi : m.graph().value_info())
        if (vi.type().tensor_type().has_shape()) onnxShaped.insert(vi.name());

    const Graph g = importOrFail(path, {{"batch", 2}, {"seq", 16}});
    int slices = 0, emptyInOnnx = 0;
    for (const Node& n : g.nodes) {
        if (n.opType != "Slice" || n.scope.find("self_attn") == std::string::npos) continue;
        ++slices;
        const Tensor& out = g.tensor(n.outputs[0]);
        if (!onnxShaped.count(out.name)) ++emptyInOnnx;
        // q, k, v: [seq, batch, d_model] cut from the packed [seq, batch, 3*d_model] projection.
        QCOMPARE(QString::fromStdString(out.shape.toString()), QStringLiteral("[16,2,256]"));
    }
    QCOMPARE(slices, 12); // 3 per layer, 4 layers
    QCOMPARE(emptyInOnnx, 12);
    // And what follows them (head reshapes, attention scores) is concrete too.
    for (const Node& n : g.nodes) {
        if (n.opType != "Softmax") continue;
        QCOMPARE(QString::fromStdString(g.tensor(n.outputs[0]).shape.toString()), QStringLiteral("[8,16,16]"));
    }
    for (const Tensor& t : g.tensors)
        if (t.kind == TensorKind::Activation) QVERIFY2(t.shape.isFullyKnown(), t.name.c_str());
    QCOMPARE(QString::fromStdString(g.tensor(g.outputs[0]).shape.toString()), QStringLiteral("[2,16,8000]"));
}

// The attention slices are [seq, batch, d_model]; the head reshape makes [batch*heads, seq, dh],
// the scores [batch*heads, seq, seq]: those dims scale with the batch, seq and d_model do not.
// A data-parallel replica holds 1/dp of the marked dims, so a tensor-parallel split must divide that.
void TstOnnxImporter::importer_marks_dims_that_scale_with_the_batch()
{
    TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
    const Graph g = importOrFail(modelPath("bert_mini_4l.onnx"), {{"batch", 2}, {"seq", 16}});
    QCOMPARE(QString::fromStdString(g.batchSymbol), QStringLiteral("batch"));
    QCOMPARE(g.tensor(g.inputs[0]).batchScaledDims, 1u); // input_ids [batch, seq]
    QCOMPARE(g.tensor(g.outputs[0]).batchScaledDims, 1u); // logits [batch, seq, vocab]
    int slices = 0, softmaxes = 0;
    for (const Node& n : g.nodes) {
        if (n.opType == "Slice" && n.scope.find("self_attn") != std::string::npos) {
            ++slices;
            QCOMPARE(g.tensor(n.outputs[0]).batchScaledDims, 1u << 1);
        }
        if (n.opType == "Softmax") {
            ++softmaxes;
            QCOMPARE(g.tensor(n.outputs[0]).batchScaledDims, 1u);
        }
    }
    QCOMPARE(slices, 12);
    QCOMPARE(softmaxes, 4);
    for (const Tensor& t : g.tensors)
        if (t.isParameter()) QVERIFY2(t.batchScaledDims == 0, t.name.c_str());
    // Nothing bound, nothing probed: the batch axis is not known yet.
    const Graph open = importOrFail(modelPath("bert_mini_4l.onnx"));
    QVERIFY(!open.batch.probed);
    QVERIFY(open.batchSymbol.empty());
    for (const Tensor& t : open.tensors) QVERIFY(t.batchScaledDims == 0);
}

void TstOnnxImporter::importer_drops_large_weight_values_keeps_small_ints()
{
    onnx::ModelProto m = models::tinyMlp();
    auto* g = m.mutable_graph();
    models::addInitializer(g, "Big", {64, 128});
    models::addInt64Initializer(g, "target", {-1, 4});
    models::addNode(g, "Reshape", {"Y", "target"}, {"Z"}, "/head/Reshape");
    *g->mutable_output(0)->mutable_name() = "Z";
    const Result<Graph> r = importProto(m);
    QVERIFY2(r.ok(), r.error().c_str());
    const Tensor& big = r->tensor(r->findTensor("Big"));
    QCOMPARE(big.kind, TensorKind::Weight);
    QCOMPARE(qlonglong(big.storedElements()), 64LL * 128);
    QVERIFY(!big.value);
    const Tensor& target = r->tensor(r->findTensor("target"));
    QVERIFY(target.value);
    QCOMPARE(target.value->ints, (std::vector<int64_t>{-1, 4}));
    const Tensor& w = r->tensor(r->findTensor("W"));
    QVERIFY(w.value); // 12 floats: small enough to keep
    QCOMPARE(w.value->floats.size(), size_t(12));
    QCOMPARE(w.value->floats[5], 0.5);
    // Parameters: W 12 + B 4 + Big 8192 (the int64 Reshape target is not a parameter).
    QCOMPARE(qlonglong(r->parameterCount()), 12LL + 4 + 8192);
}

void TstOnnxImporter::importer_keeps_node_names_scopes_and_attributes()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const Graph g = importOrFail(modelPath("resnet18.onnx"));
    const Node* conv = nullptr;
    for (const Node& n : g.nodes)
        if (n.name == "/layer1/layer1.0/conv1/Conv") conv = &n;
    QVERIFY(conv);
    QCOMPARE(QString::fromStdString(conv->scope), QStringLiteral("/layer1/layer1.0/conv1"));
    QCOMPARE(conv->attrInts("kernel_shape"), (std::vector<int64_t>{3, 3}));
    QCOMPARE(conv->attrInts("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
    QCOMPARE(conv->attr("kernel_shape")->kind, Attribute::Kind::Ints);
    QCOMPARE(QString::fromStdString(g.tensor(conv->outputs[0]).shape.toString()), QStringLiteral("[batch,64,56,56]"));
}

void TstOnnxImporter::importer_converts_control_flow_subgraphs_with_what_they_read_from_outside()
{
    const Result<Graph> r = importProto(models::ifModel());
    QVERIFY2(r.ok(), r.error().c_str());
    QCOMPARE(int(r->nodes.size()), 3); // Relu, If, Sigmoid: branch nodes are not inlined
    const Node& ifNode = r->nodes[1];
    QCOMPARE(QString::fromStdString(ifNode.opType), QStringLiteral("If"));
    QCOMPARE(ifNode.subgraphs, 2);
    QCOMPARE(qlonglong(ifNode.subgraphNodes), 3LL);
    QCOMPARE(ifNode.attr("then_branch")->kind, Attribute::Kind::Graph);
    QCOMPARE(qlonglong(ifNode.attr("else_branch")->graphNodes), 2LL);
    for (const Tensor& t : r->tensors) QVERIFY2(t.name.find("e_out") == std::string::npos, t.name.c_str());
    QCOMPARE(QString::fromStdString(r->tensor(r->outputs[0]).shape.toString()), QStringLiteral("[2,3]"));
    // Each branch is a graph of its own; the Relu output both read from the enclosing scope is
    // the If's one implicit input, after its condition, so the Relu's consumers include the If.
    const auto thenG = subgraphOf(ifNode, "then_branch");
    const auto elseG = subgraphOf(ifNode, "else_branch");
    QVERIFY(thenG && elseG);
    QCOMPARE(int(thenG->nodes.size()), 1);
    QCOMPARE(QString::fromStdString(thenG->nodes[0].opType), QStringLiteral("Neg"));
    QCOMPARE(int(elseG->nodes.size()), 2);
    QCOMPARE(QString::fromStdString(elseG->tensor(elseG->outputs[0]).name), QStringLiteral("e_out"));
    QCOMPARE(int(ifNode.inputs.size()), 2);
    QCOMPARE(int(formalInputs(ifNode)), 1);
    QCOMPARE(QString::fromStdString(r->tensor(ifNode.inputs[1]).name), QStringLiteral("X1"));
    const auto& readers = r->tensor(ifNode.inputs[1]).consumers;
    QVERIFY(std::find(readers.begin(), readers.end(), NodeId(1)) != readers.end());
    QCOMPARE(thenG->tensor(thenG->nodes[0].inputs[0]).producer, kNoNode); // read from outside
}

void TstOnnxImporter::importer_keeps_unknown_domain_op_with_warning()
{
    const Result<Graph> r = importProto(models::unknownOpModel(), "acme.onnx");
    QVERIFY2(r.ok(), r.error().c_str());
    QCOMPARE(int(r->nodes.size()), 3);
    QCOMPARE(QString::fromStdString(r->nodes[1].opType), QStringLiteral("Foo"));
    QCOMPARE(QString::fromStdString(r->nodes[1].domain), QStringLiteral("com.acme"));
    QVERIFY2(anyContains(r->warnings, {"'/x/Foo_3'", "'Foo'", "'com.acme'", "opaque"}), joinedWarnings(*r).constData());
    QVERIFY(!r->tensor(r->nodes[1].outputs[0]).shape.rankKnown);
}

void TstOnnxImporter::importer_sorts_nodes_written_out_of_order()
{
    const Result<Graph> r = importProto(models::unsortedModel(), "unsorted.onnx");
    QVERIFY2(r.ok(), r.error().c_str());
    QVERIFY(isTopological(*r));
    QCOMPARE(QString::fromStdString(r->nodes[0].opType), QStringLiteral("Relu"));
    QVERIFY2(anyContains(r->warnings, {"topological", "unsorted.onnx"}), joinedWarnings(*r).constData());
    // Sorting happened before inference, so the shapes propagated.
    QCOMPARE(QString::fromStdString(r->tensor(r->findTensor("M")).shape.toString()), QStringLiteral("[batch,4]"));
}

void TstOnnxImporter::importer_reports_cycle_naming_a_node()
{
    const Result<Graph> r = importProto(models::cycleModel(), "cyclic.onnx");
    QVERIFY(!r.ok());
    const QString e = QString::fromStdString(r.error());
    QVERIFY2(e.contains(QStringLiteral("cyclic.onnx")), qPrintable(e));
    QVERIFY2(e.contains(QStringLiteral("cycle")), qPrintable(e));
    QVERIFY2(e.contains(QStringLiteral("/block/Add_0")) && e.contains(QStringLiteral("/block/Relu_1")), qPrintable(e));
    QVERIFY2(!e.contains(QStringLiteral("/head/Sigmoid")), qPrintable(e)); // downstream, not on the cycle
}

void TstOnnxImporter::importer_reports_progress_stages_and_cancels()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    std::vector<std::string> stages;
    double last = -1;
    bool monotonic = true;
    ImportOptions o;
    o.progress.report = [&](double f, std::string_view stage) {
        monotonic = monotonic && f >= last;
        last = f;
        stages.emplace_back(stage);
    };
    QVERIFY(importOnnxFile(modelPath("resnet18.onnx"), o).ok());
    QVERIFY(monotonic);
    QCOMPARE(last, 1.0);
    for (const char* s : {"reading", "parsing", "converting", "filling shapes", "checking the model"})
        QVERIFY2(std::find(stages.begin(), stages.end(), s) != stages.end(), s);
    // Our shape pass types all of resnet18, so ONNX's inference runs only when asked for.
    QVERIFY(std::find(stages.begin(), stages.end(), "shape inference") == stages.end());
    stages.clear();
    last = -1;
    o.onnxInference = OnnxShapeInference::Always;
    QVERIFY(importOnnxFile(modelPath("resnet18.onnx"), o).ok());
    QVERIFY(monotonic);
    for (const char* s : {"reading", "parsing", "shape inference", "converting", "filling shapes", "checking the model"})
        QVERIFY2(std::find(stages.begin(), stages.end(), s) != stages.end(), s);

    std::atomic<bool> cancel{false};
    ImportOptions c;
    c.progress.cancel = &cancel;
    c.progress.report = [&](double, std::string_view stage) {
        if (stage == "filling shapes") cancel = true;
    };
    const Result<Graph> r = importOnnxFile(modelPath("resnet18.onnx"), c);
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error()), QStringLiteral("cancelled"));
}

QTEST_GUILESS_MAIN(TstOnnxImporter)
#include "tst_onnx_importer.moc"
