// `tapas search` as a user runs it: the real binary, its exit codes and output. The text output
// shows the runner-up plans beside the best; a baseline that cannot run on the cluster (data
// parallel with more replicas than samples) is listed with its reason; bad meshes and cluster
// files are refused with a message naming what is wrong.
#include "tests/common/run_tapas.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

using Run = tapas::testing::TapasRun;
using tapas::testing::runTapas;
using tapas::testing::tapasBinary;

QString sampleGpt() { return QStringLiteral(TAPAS_SOURCE_DIR "/resources/models/sample_gpt.onnx"); }

QStringList searchArgs(const QStringList& extra)
{
    return QStringList{QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), QStringLiteral("h100x16"),
                       QStringLiteral("--dim"), QStringLiteral("batch=8"), QStringLiteral("--dim"), QStringLiteral("seq=1024")} +
           extra;
}

} // namespace

class TstCliSearch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(tapasBinary()), "build the `tapas` target before running this suite");
        QVERIFY(QFile::exists(sampleGpt()));
    }

    void text_output_lists_runner_up_plans_and_baselines_that_cannot_run()
    {
        const Run r = runTapas(searchArgs({QStringLiteral("--searchers"), QStringLiteral("tapas,dp")}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QStringLiteral("runner-up plans (tapas):")), qPrintable(out));
        // Each runner-up row: rank, mesh, step time, memory, comm, fits.
        const QStringList lines = out.mid(out.indexOf(QStringLiteral("runner-up plans"))).split(QLatin1Char('\n'));
        int rows = 0;
        for (const QString& l : lines) {
            const QStringList f = l.simplified().split(QLatin1Char(' '));
            if (f.size() >= 8 && f[0].toInt() >= 2 && f[1].contains(QLatin1Char('x')) && (f.last() == "yes" || f.last() == "NO")) ++rows;
        }
        QVERIFY2(rows >= 1, qPrintable(out));
        // Batch 8 cannot be split over 16 data-parallel replicas: said, not silently mis-costed.
        QVERIFY2(out.contains(QStringLiteral("not run:")) && out.contains(QStringLiteral("does not divide the batch 8")), qPrintable(out));
    }

    void json_output_has_runner_ups_with_mesh_time_memory_and_fit()
    {
        const Run r = runTapas(searchArgs({QStringLiteral("--searchers"), QStringLiteral("tapas"), QStringLiteral("--json")}));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonArray ups = doc.value(QStringLiteral("runner_ups")).toArray();
        QVERIFY(!ups.isEmpty());
        const double best = doc.value(QStringLiteral("plans")).toArray().at(0).toObject().value(QStringLiteral("step_time_s")).toDouble();
        for (const QJsonValue& v : ups) {
            const QJsonObject o = v.toObject();
            QVERIFY(o.value(QStringLiteral("mesh")).toString().contains(QLatin1Char('x')));
            QVERIFY(o.value(QStringLiteral("memory_bytes_per_device")).toDouble() > 0);
            QVERIFY(o.contains(QStringLiteral("feasible")));
            QVERIFY(o.value(QStringLiteral("step_time_s")).toDouble() >= best * (1 - 1e-9));
        }
    }

    void bad_mesh_and_cluster_name_the_field()
    {
        const Run mesh = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("3x4")}));
        QCOMPARE(mesh.exitCode, 2);
        QVERIFY2(mesh.err.contains("3x4") && mesh.err.contains("16"), mesh.err.constData());
        const Run batch = runTapas(searchArgs({QStringLiteral("--mesh"), QStringLiteral("16x1"), QStringLiteral("--searchers"),
                                               QStringLiteral("tapas")}));
        QCOMPARE(batch.exitCode, 1);
        QVERIFY2(batch.err.contains("does not divide the batch 8"), batch.err.constData());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad_cluster.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"name":"x","nodes":1,"devices_per_node":0})");
        f.close();
        Run cluster = runTapas({QStringLiteral("search"), sampleGpt(), QStringLiteral("--cluster"), path});
        QCOMPARE(cluster.exitCode, 2);
        QVERIFY2(cluster.err.contains("bad_cluster.json") && cluster.err.contains("devices_per_node"), cluster.err.constData());
    }
};

QTEST_GUILESS_MAIN(TstCliSearch)
#include "tst_cli_search.moc"
