// The import's shape stage runs ONNX's own shape inference only when Tapas's shape pass leaves a
// type incomplete (core/onnx/onnx_shape_stage.h). Here every corpus export, the shared real models
// and the zoo's families are imported both ways (OnnxShapeInference::WhenNeeded, the default, and
// ::Always, the old pipeline), and every tensor must come out with the same kind, dtype, shape and
// small value, and the graph with the same nodes, inputs, outputs and batch axis.
#include "core/onnx/onnx_importer.h"
#include "core/zoo/zoo.h"
#include "tests/common/corpus.h"
#include "tests/common/shared_models.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace tapas;

namespace {

struct Imported {
    Result<Graph> graph = Result<Graph>::failure("not imported");
    bool onnxInferenceRan = false; // its progress reported ONNX's "shape inference" stage
};

Imported importWith(const std::string& path, OnnxShapeInference mode, const DimBindings& dims = {}, bool probe = false)
{
    Imported out;
    ImportOptions o;
    o.onnxInference = mode;
    o.dims = dims;
    o.probeBatch = probe;
    o.progress.report = [&out](double, std::string_view stage) {
        if (stage == "shape inference") out.onnxInferenceRan = true;
    };
    out.graph = importOnnxFile(path, o);
    return out;
}

std::string valueText(const Tensor& t)
{
    return t.value ? std::string(dtypeName(t.value->dtype)) + " " + t.value->shape.toString() + " " + t.value->toString(1000)
                   : std::string("none");
}

// Empty when the two graphs carry the same types; else the first difference.
std::string difference(const Graph& fast, const Graph& full)
{
    if (fast.nodes.size() != full.nodes.size()) return "node counts differ";
    if (fast.tensors.size() != full.tensors.size()) return "tensor counts differ";
    if (fast.inputs != full.inputs || fast.outputs != full.outputs) return "graph inputs or outputs differ";
    for (size_t i = 0; i < fast.tensors.size(); ++i) {
        const Tensor& a = fast.tensors[i];
        const Tensor& b = full.tensors[i];
        const std::string where = "tensor '" + b.name + "': ";
        if (a.name != b.name || a.kind != b.kind) return where + "name or kind differs";
        if (a.dtype != b.dtype)
            return where + "dtype " + std::string(dtypeName(a.dtype)) + " without ONNX's inference, " +
                   std::string(dtypeName(b.dtype)) + " with it";
        if (!(a.shape == b.shape))
            return where + "shape " + a.shape.toString() + " without ONNX's inference, " + b.shape.toString() + " with it";
        if (valueText(a) != valueText(b)) return where + "value " + valueText(a) + " vs " + valueText(b);
        if (a.batchScaledDims != b.batchScaledDims) return where + "batch-scaled dims differ";
    }
    if (fast.batch.inputs != full.batch.inputs || fast.batch.symbol != full.batch.symbol || fast.batch.why != full.batch.why)
        return "the batch probe found another axis (" + fast.batch.why + " / " + full.batch.why + ")";
    return {};
}

} // namespace

class TstOnnxShapeStage : public QObject {
    Q_OBJECT

    int fastModels_ = 0;
    int comparedModels_ = 0;

    void compareBoth(const std::string& path, const DimBindings& dims = {}, bool probe = false)
    {
        const Imported fast = importWith(path, OnnxShapeInference::WhenNeeded, dims, probe);
        const Imported full = importWith(path, OnnxShapeInference::Always, dims, probe);
        QVERIFY2(full.graph.ok(), full.graph.ok() ? "" : full.graph.error().c_str());
        QVERIFY2(fast.graph.ok(), fast.graph.ok() ? "" : fast.graph.error().c_str());
        QVERIFY(full.onnxInferenceRan);
        const std::string diff = difference(*fast.graph, *full.graph);
        QVERIFY2(diff.empty(), (path + ": " + diff).c_str());
        ++comparedModels_;
        if (!fast.onnxInferenceRan) ++fastModels_;
    }

private slots:
    void corpus_shapes_match_onnx_inference_data()
    {
        QTest::addColumn<QString>("path");
        for (const testing::CorpusModel& m : testing::loadCorpus())
            QTest::newRow(m.file.c_str()) << QString::fromStdString(m.path);
    }
    void corpus_shapes_match_onnx_inference()
    {
        QFETCH(QString, path);
        if (!QFile::exists(path)) QSKIP(qPrintable("corpus file absent: " + path));
        compareBoth(path.toStdString());
    }

    void shared_models_match_onnx_inference_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"bert_mini_4l.onnx", "resnet18.onnx", "mobilenet_v2.onnx", "ch_ppocr_mobile_v2.0_cls_infer.onnx"})
            QTest::newRow(f) << QString::fromLatin1(f);
    }
    void shared_models_match_onnx_inference()
    {
        QFETCH(QString, file);
        TAPAS_NEEDS_SHARED_MODEL(file);
        // Opened as the studio opens a model: the batch probe on, which imports it again per axis.
        compareBoth(testing::sharedModelPath(file.toStdString()), {}, true);
    }

    // Every zoo family, symbolic dims open and then bound (which runs the batch probe's imports).
    void zoo_models_match_onnx_inference_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("bound");
        QTest::addColumn<bool>("hasSeq");
        for (const ZooModelInfo& m : zooModels()) {
            const bool hasSeq = std::count(m.options.begin(), m.options.end(), "seq") > 0;
            QTest::newRow((m.name + " open").c_str()) << QString::fromStdString(m.name) << false << hasSeq;
            QTest::newRow((m.name + " bound").c_str()) << QString::fromStdString(m.name) << true << hasSeq;
        }
    }
    void zoo_models_match_onnx_inference()
    {
        QFETCH(QString, name);
        QFETCH(bool, bound);
        QFETCH(bool, hasSeq);
        ZooOptions o;
        o.layers = 2;
        o.decoderLayers = 2;
        QTemporaryDir dir;
        const std::string path = dir.filePath(name + QStringLiteral(".onnx")).toStdString();
        const Status s = writeZooModel(name.toStdString(), o, path);
        QVERIFY2(s.ok(), s.error.c_str());
        DimBindings dims;
        if (bound) dims["batch"] = 4;
        if (bound && hasSeq) dims["seq"] = 32;
        compareBoth(path, dims, bound);
    }

    // What makes the 100k-node GPT open fast: its shapes come from our pass alone.
    void gpt_takes_the_fast_path()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("gpt.onnx")).toStdString();
        ZooOptions o;
        o.layers = 4;
        QVERIFY(writeZooModel("gpt", o, path).ok());
        const Imported fast = importWith(path, OnnxShapeInference::WhenNeeded);
        QVERIFY2(fast.graph.ok(), fast.graph.ok() ? "" : fast.graph.error().c_str());
        QVERIFY(!fast.onnxInferenceRan);
    }

    void cleanupTestCase()
    {
        qInfo("%d of %d imports compared took the fast path (no ONNX shape inference)", fastModels_, comparedModels_);
    }
};

QTEST_GUILESS_MAIN(TstOnnxShapeStage)
#include "tst_onnx_shape_stage.moc"
