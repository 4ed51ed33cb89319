// The model summary behind `tapas inspect` and the GUI's summary panel.
#include "core/onnx/onnx_importer.h"
#include "core/report/model_summary.h"
#include "onnx_test_models.h"
#include "tests/common/shared_models.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace tapas;
namespace models = tapas::testmodels;

namespace {

ModelSummary summaryOf(const char* file, DimBindings dims = {})
{
    ImportOptions o;
    o.dims = std::move(dims);
    Result<Graph> g = importOnnxFile(tapas::testing::sharedModelPath(file), o);
    if (!g.ok()) qFatal("import of %s failed: %s", file, g.error().c_str());
    return summarizeModel(*g);
}

bool anyContains(const std::vector<std::string>& v, const std::string& part)
{
    for (const std::string& s : v)
        if (s.find(part) != std::string::npos) return true;
    return false;
}

} // namespace

class TstModelSummary : public QObject {
    Q_OBJECT
private slots:
    void summary_of_resnet18_matches_readme_figures();
    void summary_flops_of_resnet18_match_published_count_and_scale_with_batch();
    void summary_names_base_dims_left_symbolic();
    void summary_of_ppocr_counts_constant_weights();
    void summary_counts_main_graph_nodes_only();
    void an_op_without_kernel_inside_a_branch_is_named();
    void summary_json_has_documented_keys();
    void summary_text_lists_figures_ops_and_warnings();
    void human_count_and_bytes_are_short_and_exact_enough();
};

void TstModelSummary::summary_of_resnet18_matches_readme_figures()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const ModelSummary s = summaryOf("resnet18.onnx");
    QCOMPARE(qlonglong(s.nodes), 65LL);
    QCOMPARE(qlonglong(s.params), 11680872LL);
    QCOMPARE(qlonglong(s.paramBytes), 11680872LL * 4);
    QCOMPARE(qlonglong(s.opset), 14LL);
    QCOMPARE(qlonglong(s.ops.at("Conv")), 20LL);
    QCOMPARE(qlonglong(s.ops.at("Gemm")), 1LL);
    QCOMPARE(int(s.inputs.size()), 1);
    QCOMPARE(QString::fromStdString(s.inputs[0].shape), QStringLiteral("[batch,3,224,224]"));
    QCOMPARE(QString::fromStdString(s.inputs[0].dtype), QStringLiteral("float32"));
    QCOMPARE(QString::fromStdString(s.outputs[0].shape), QStringLiteral("[batch,1000]"));
    QCOMPARE(s.symbolicDims, std::vector<std::string>{"batch"});
    QVERIFY(anyContains(s.warnings, "--dim batch="));
    int64_t total = 0;
    for (const auto& [op, n] : s.ops) total += n;
    QCOMPARE(qlonglong(total), 65LL);
}

void TstModelSummary::summary_flops_of_resnet18_match_published_count_and_scale_with_batch()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    // ResNet-18 at 224x224: 1.82 G multiply-adds (He et al.; torchvision), i.e. ~3.64 GFLOPs.
    const ModelSummary one = summaryOf("resnet18.onnx", {{"batch", 1}});
    QVERIFY2(one.flops > 3.55e9 && one.flops < 3.75e9, qPrintable(QString::number(one.flops)));
    QVERIFY(one.symbolicDims.empty());
    QVERIFY(!anyContains(one.warnings, "--dim"));
    const ModelSummary eight = summaryOf("resnet18.onnx", {{"batch", 8}});
    QVERIFY(qAbs(eight.flops / one.flops - 8.0) < 1e-9);
    // Activations grow with the batch too, except the batch-free Identity copies of weights.
    QVERIFY(eight.activationBytes > 7.5 * one.activationBytes && eight.activationBytes < 8 * one.activationBytes);
    // Unbound, batch counts as 1.
    QCOMPARE(summaryOf("resnet18.onnx").flops, one.flops);
}

void TstModelSummary::summary_names_base_dims_left_symbolic()
{
    TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
    // Inside the graph bert's dims become expressions ("4*batch", "batch*seq"); the summary
    // names the dims a user can bind.
    const ModelSummary s = summaryOf("bert_mini_4l.onnx");
    QCOMPARE(s.symbolicDims, (std::vector<std::string>{"batch", "seq"}));
    QCOMPARE(qlonglong(s.params), 7263072LL);
    const ModelSummary bound = summaryOf("bert_mini_4l.onnx", {{"batch", 2}, {"seq", 16}});
    QVERIFY(bound.symbolicDims.empty());
    QVERIFY(bound.flops > 32 * 2.0 * 3e6); // 32 tokens through ~3M non-embedding weights, at least
}

void TstModelSummary::summary_of_ppocr_counts_constant_weights()
{
    TAPAS_NEEDS_SHARED_MODEL("ch_ppocr_mobile_v2.0_cls_infer.onnx");
    const ModelSummary s = summaryOf("ch_ppocr_mobile_v2.0_cls_infer.onnx");
    QCOMPARE(qlonglong(s.nodes), 471LL);
    QCOMPARE(qlonglong(s.params), 133664LL);
    QCOMPARE(qlonglong(s.ops.at("Constant")), 250LL);
}

void TstModelSummary::summary_counts_main_graph_nodes_only()
{
    const Result<Graph> g = importOnnxBytes(models::serialize(models::ifModel()), "if.onnx", "");
    QVERIFY2(g.ok(), g.error().c_str());
    const ModelSummary s = summarizeModel(*g);
    QCOMPARE(qlonglong(s.nodes), 3LL);
    QCOMPARE(qlonglong(s.ops.at("If")), 1LL);
    QVERIFY(!s.ops.count("Neg") && !s.ops.count("Abs") && !s.ops.count("Exp"));
    // The worker runs If through its branches: nothing is missing.
    QVERIFY(s.workerGaps.empty());
    QVERIFY2(summaryToText(s).find("Runnable     by tapas-worker: yes") != std::string::npos, summaryToText(s).c_str());
    QVERIFY(checkWorkerRuns(*g, "if.onnx").ok());
}

void TstModelSummary::an_op_without_kernel_inside_a_branch_is_named()
{
    const Result<Graph> g = importOnnxBytes(models::serialize(models::ifModel("Round")), "if.onnx", "");
    QVERIFY2(g.ok(), g.error().c_str());
    const ModelSummary s = summarizeModel(*g);
    // The preflight looks inside the branches: it names the op, its count and first node there.
    QCOMPARE(s.workerGaps.size(), size_t(1));
    QCOMPARE(s.workerGaps[0].opType, std::string("Round"));
    QCOMPARE(s.workerGaps[0].nodes, int64_t(1));
    const std::string text = summaryToText(s);
    QVERIFY2(text.find("Runnable     by tapas-worker: no: Round (1 node, first '/branch/else/Round')") != std::string::npos,
             text.c_str());
    QCOMPARE(summaryToJson(s)["runnable_by_worker"].get<bool>(), false);
    QCOMPARE(summaryToJson(s)["worker_gaps"][0]["op"].get<std::string>(), std::string("Round"));
    const Status refused = checkWorkerRuns(*g, "if.onnx");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.find("model 'if.onnx' cannot run on tapas-worker") != std::string::npos, refused.error.c_str());
    QVERIFY2(refused.error.find("Round (1 node") != std::string::npos, refused.error.c_str());
}

void TstModelSummary::summary_json_has_documented_keys()
{
    TAPAS_NEEDS_SHARED_MODEL("mobilenet_v2.onnx");
    const nlohmann::json j = summaryToJson(summaryOf("mobilenet_v2.onnx"));
    for (const char* key : {"file", "producer", "opset", "nodes", "params", "param_bytes", "flops",
                            "activation_bytes", "ops", "inputs", "outputs", "symbolic_dims", "warnings"})
        QVERIFY2(j.contains(key), key);
    QCOMPARE(j["nodes"].get<int64_t>(), int64_t(209));
    QCOMPARE(j["params"].get<int64_t>(), int64_t(3475078));
    QCOMPARE(j["param_bytes"].get<int64_t>(), int64_t(3475078) * 4);
    QVERIFY(j["ops"].is_object());
    QCOMPARE(j["ops"]["Conv"].get<int64_t>(), int64_t(52));
    QVERIFY(j["inputs"].is_array());
    QCOMPARE(j["inputs"][0]["shape"].get<std::string>(), std::string("[1,3,224,224]"));
    QCOMPARE(j["inputs"][0]["dtype"].get<std::string>(), std::string("float32"));
    QVERIFY(j["warnings"].is_array());
    QVERIFY(j["flops"].get<double>() > 0);
}

void TstModelSummary::summary_text_lists_figures_ops_and_warnings()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const QString text = QString::fromStdString(summaryToText(summaryOf("resnet18.onnx")));
    QVERIFY2(text.contains(QStringLiteral("11,680,872")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("11.68M")));
    QVERIFY(text.contains(QStringLiteral("[batch,3,224,224]")));
    QVERIFY(text.contains(QRegularExpression(QStringLiteral("\\n  Conv +20\\n"))));
    QVERIFY(text.contains(QStringLiteral("Warnings (1)")));
    QVERIFY(text.contains(QStringLiteral("--dim batch=")));
    QVERIFY2(text.contains(QStringLiteral("Runnable     by tapas-worker: yes\n")), qPrintable(text));
}

void TstModelSummary::human_count_and_bytes_are_short_and_exact_enough()
{
    QCOMPARE(QString::fromStdString(humanCount(124.4e6)), QStringLiteral("124.4M"));
    QCOMPARE(QString::fromStdString(humanCount(1.75e12)), QStringLiteral("1.75T"));
    QCOMPARE(QString::fromStdString(humanCount(11680872)), QStringLiteral("11.68M"));
    QCOMPARE(QString::fromStdString(humanCount(999)), QStringLiteral("999"));
    QCOMPARE(QString::fromStdString(humanCount(999999)), QStringLiteral("1M"));
    QCOMPARE(QString::fromStdString(humanCount(0)), QStringLiteral("0"));
    QCOMPARE(QString::fromStdString(humanBytes(3.1e9)), QStringLiteral("3.1 GB"));
    QCOMPARE(QString::fromStdString(humanBytes(512)), QStringLiteral("512 B"));
    QCOMPARE(QString::fromStdString(humanBytes(46723488)), QStringLiteral("46.7 MB"));
}

QTEST_GUILESS_MAIN(TstModelSummary)
#include "tst_model_summary.moc"
