// `tapas inspect` as a user runs it: the real binary, its exit codes, stdout and stderr.
// The bad models are built with the ONNX protobuf classes, which reach this test through
// tapas_core's link interface; the ONNX target's defines are not inherited, hence these two.
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#include "../core/onnx_test_models.h"

#include "tests/common/run_tapas.h"
#include "tests/common/shared_models.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

namespace models = tapas::testmodels;

namespace {

using Run = tapas::testing::TapasRun;
using tapas::testing::runTapas;
using tapas::testing::tapasBinary;

QString modelPath(const char* file) { return tapas::testing::sharedModel(file); }

QJsonObject inspectJson(const QStringList& extra, const QString& file)
{
    const Run r = runTapas(QStringList{QStringLiteral("inspect"), file, QStringLiteral("--json")} + extra);
    if (r.exitCode != 0) qWarning("tapas inspect failed (%d): %s", r.exitCode, r.err.constData());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
    if (error.error != QJsonParseError::NoError) qWarning("not JSON: %s", r.out.left(400).constData());
    return doc.object();
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(bytes);
    return path;
}

} // namespace

class TstCliInspect : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cli_inspect_json_reports_shared_model_figures_data();
    void cli_inspect_json_reports_shared_model_figures();
    void cli_inspect_dim_binding_changes_shapes();
    void cli_inspect_text_output_is_readable();
    void cli_inspect_bad_files_exit_2_and_name_the_file_data();
    void cli_inspect_bad_files_exit_2_and_name_the_file();
    void cli_inspect_unknown_op_succeeds_with_warning();
    void cli_inspect_bad_arguments_are_usage_errors();
};

void TstCliInspect::initTestCase()
{
    QVERIFY2(QFile::exists(tapasBinary()), "build the `tapas` target before running this suite");
}

void TstCliInspect::cli_inspect_json_reports_shared_model_figures_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<qlonglong>("params");
    QTest::addColumn<QString>("someOp");
    QTest::newRow("resnet18") << "resnet18.onnx" << 65 << 11680872LL << "Conv";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx" << 209 << 3475078LL << "Clip";
    QTest::newRow("bert_mini_4l") << "bert_mini_4l.onnx" << 523 << 7263072LL << "Softmax";
    QTest::newRow("ch_ppocr") << "ch_ppocr_mobile_v2.0_cls_infer.onnx" << 471 << 133664LL << "Constant";
}

void TstCliInspect::cli_inspect_json_reports_shared_model_figures()
{
    QFETCH(QString, file);
    QFETCH(int, nodes);
    QFETCH(qlonglong, params);
    QFETCH(QString, someOp);
    TAPAS_NEEDS_SHARED_MODEL(file);
    const QJsonObject j = inspectJson({}, modelPath(file.toUtf8().constData()));
    for (const char* key : {"nodes", "params", "param_bytes", "flops", "ops", "inputs", "outputs", "warnings"})
        QVERIFY2(j.contains(QLatin1String(key)), key);
    QCOMPARE(j.value(QStringLiteral("nodes")).toInteger(), qint64(nodes));
    QCOMPARE(j.value(QStringLiteral("params")).toInteger(), qint64(params));
    QCOMPARE(j.value(QStringLiteral("param_bytes")).toInteger(), qint64(params) * 4);
    QVERIFY(j.value(QStringLiteral("flops")).toDouble() > 0);
    QVERIFY(j.value(QStringLiteral("ops")).toObject().value(someOp).toInt() > 0);
    qint64 opTotal = 0;
    const QJsonObject ops = j.value(QStringLiteral("ops")).toObject();
    for (auto it = ops.begin(); it != ops.end(); ++it) opTotal += it.value().toInteger();
    QCOMPARE(opTotal, qint64(nodes));
    const QJsonArray inputs = j.value(QStringLiteral("inputs")).toArray();
    QCOMPARE(inputs.size(), 1);
    for (const char* key : {"name", "dtype", "shape"}) QVERIFY(inputs[0].toObject().contains(QLatin1String(key)));
}

void TstCliInspect::cli_inspect_dim_binding_changes_shapes()
{
    TAPAS_NEEDS_SHARED_MODEL("bert_mini_4l.onnx");
    const QString bert = modelPath("bert_mini_4l.onnx");
    const QJsonObject open = inspectJson({}, bert);
    const QJsonObject bound = inspectJson({QStringLiteral("--dim"), QStringLiteral("batch=2"),
                                           QStringLiteral("--dim"), QStringLiteral("seq=16")}, bert);
    auto outShape = [](const QJsonObject& j) {
        return j.value(QStringLiteral("outputs")).toArray()[0].toObject().value(QStringLiteral("shape")).toString();
    };
    QCOMPARE(outShape(open), QStringLiteral("[batch,seq,8000]"));
    QCOMPARE(outShape(bound), QStringLiteral("[2,16,8000]"));
    QCOMPARE(open.value(QStringLiteral("symbolic_dims")).toArray().size(), 2);
    QCOMPARE(bound.value(QStringLiteral("symbolic_dims")).toArray().size(), 0);
    QVERIFY(bound.value(QStringLiteral("flops")).toDouble() > 16 * open.value(QStringLiteral("flops")).toDouble());
}

void TstCliInspect::cli_inspect_text_output_is_readable()
{
    TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
    const Run r = runTapas({QStringLiteral("inspect"), modelPath("resnet18.onnx")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("11,680,872"), r.out.constData());
    QVERIFY(r.out.contains("Conv"));
    QVERIFY(r.out.contains("[batch,3,224,224]"));
    QVERIFY(r.out.contains("--dim batch="));
    QVERIFY2(r.out.contains("Runnable     by tapas-worker: yes"), r.out.constData());
}

void TstCliInspect::cli_inspect_bad_files_exit_2_and_name_the_file_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("missing") << "missing";
    QTest::newRow("empty") << "empty";
    QTest::newRow("random") << "random";
    QTest::newRow("truncated") << "truncated";
    QTest::newRow("cycle") << "cycle";
}

void TstCliInspect::cli_inspect_bad_files_exit_2_and_name_the_file()
{
    QFETCH(QString, kind);
    QTemporaryDir dir;
    QString path;
    QByteArray mustSay;
    if (kind == QLatin1String("missing")) {
        path = dir.filePath(QStringLiteral("absent.onnx"));
        mustSay = "cannot open";
    } else if (kind == QLatin1String("empty")) {
        path = writeFile(dir, QStringLiteral("empty.onnx"), {});
        mustSay = "empty";
    } else if (kind == QLatin1String("random")) {
        QByteArray bytes(5000, '\0');
        QRandomGenerator rng(7);
        for (char& c : bytes) c = char(rng.bounded(256));
        path = writeFile(dir, QStringLiteral("noise.onnx"), bytes);
        mustSay = "ONNX";
    } else if (kind == QLatin1String("truncated")) {
        TAPAS_NEEDS_SHARED_MODEL("resnet18.onnx");
        QFile f(modelPath("resnet18.onnx"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray full = f.readAll();
        path = writeFile(dir, QStringLiteral("resnet18_half.onnx"), full.left(full.size() / 2));
        mustSay = "truncated";
    } else {
        path = writeFile(dir, QStringLiteral("cyclic.onnx"),
                         QByteArray::fromStdString(models::serialize(models::cycleModel())));
        mustSay = "/block/Add_0";
    }
    for (const QStringList& extra : {QStringList{}, QStringList{QStringLiteral("--json")}}) {
        const Run r = runTapas(QStringList{QStringLiteral("inspect"), path} + extra);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(path.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains(mustSay), r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
        QCOMPARE(r.err.count('\n'), 1); // one clear message, not a cascade
    }
}

void TstCliInspect::cli_inspect_unknown_op_succeeds_with_warning()
{
    QTemporaryDir dir;
    const QString path = writeFile(dir, QStringLiteral("acme.onnx"),
                                   QByteArray::fromStdString(models::serialize(models::unknownOpModel())));
    const QJsonObject j = inspectJson({}, path);
    QCOMPARE(j.value(QStringLiteral("nodes")).toInt(), 3);
    QCOMPARE(j.value(QStringLiteral("ops")).toObject().value(QStringLiteral("com.acme::Foo")).toInt(), 1);
    bool warned = false;
    for (const QJsonValue& w : j.value(QStringLiteral("warnings")).toArray())
        warned = warned || (w.toString().contains(QStringLiteral("/x/Foo_3")) && w.toString().contains(QStringLiteral("com.acme")));
    QVERIFY(warned);
    // ... and the preflight says the worker cannot run it, naming the op with its domain.
    QCOMPARE(j.value(QStringLiteral("runnable_by_worker")).toBool(true), false);
    const QJsonObject gap = j.value(QStringLiteral("worker_gaps")).toArray().at(0).toObject();
    QCOMPARE(gap.value(QStringLiteral("op")).toString(), QStringLiteral("com.acme::Foo"));
    QCOMPARE(gap.value(QStringLiteral("first_node")).toString(), QStringLiteral("/x/Foo_3"));
}

void TstCliInspect::cli_inspect_bad_arguments_are_usage_errors()
{
    // A small valid model: the arguments, not the file, must be what fails.
    QTemporaryDir dir;
    const QString mlp = writeFile(dir, QStringLiteral("mlp.onnx"),
                                     QByteArray::fromStdString(models::serialize(models::tinyMlp())));
    const Run noValue = runTapas({QStringLiteral("inspect"), mlp, QStringLiteral("--dim"), QStringLiteral("batch")});
    QCOMPARE(noValue.exitCode, 2);
    QVERIFY2(noValue.err.contains("--dim 'batch'"), noValue.err.constData());
    const Run zero = runTapas({QStringLiteral("inspect"), mlp, QStringLiteral("--dim"), QStringLiteral("batch=0")});
    QCOMPARE(zero.exitCode, 2);
    QVERIFY(zero.err.contains("positive"));
    const Run noFile = runTapas({QStringLiteral("inspect")});
    QCOMPARE(noFile.exitCode, 2);
    const Run unknownOption = runTapas({QStringLiteral("inspect"), mlp, QStringLiteral("--frobnicate")});
    QCOMPARE(unknownOption.exitCode, 2);
    const Run help = runTapas({QStringLiteral("inspect"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--dim"));
}

QTEST_GUILESS_MAIN(TstCliInspect)
#include "tst_cli_inspect.moc"
