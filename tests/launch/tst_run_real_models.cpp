// Every model of the corpus and of the shared models that carries its weights, trained for 3
// steps on 2 MPI ranks under a TAPAS plan (1x2), the Megatron-LM baseline (1x2) and data
// parallelism (2x1), through the real CLI: `tapas search ... -o plan` then `tapas run`. Each
// either trains its own weights with `numerics_ok` (the sharded run matches the unsharded model)
// or is refused before anything launches, with the reason named. What a person expects of each
// model was written down before the suite first ran (tests/common/real_model_workloads.h).
#include "tests/common/real_model_workloads.h"
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tapas;

namespace {

// The models and their workloads and expectations: the table `tapas bench run` reads too.
using Case = testing::RealModelCase;
const auto& kCases = testing::kRealModelCases;

struct Plan {
    const char* searcher;
    const char* mesh;
};
const Plan kPlans[] = {{"tapas", "1x2"}, {"megatron", "1x2"}, {"dp", "2x1"}};

QString modelPath(const char* file)
{
    if (file[0] == '/') return QStringLiteral(TAPAS_MODELS_DIR) + QString::fromLatin1(file);
    return QStringLiteral(TAPAS_SOURCE_DIR "/tests/data/corpus/") + QString::fromLatin1(file);
}

struct Ran {
    int code = -1;
    QString output;
};

Ran runTapas(const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(TAPAS_BIN_DIR "/tapas"), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, QStringLiteral("did not finish in %1 s: ").arg(timeoutMs / 1000) + QString::fromUtf8(p.readAll())};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

QStringList workloadArgs(const char* workload)
{
    return QString::fromLatin1(workload).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

} // namespace

class TstRunRealModels : public QObject {
    Q_OBJECT
private slots:
    void weight_carrying_models_train_their_own_weights_or_are_refused_by_name_data()
    {
        QTest::addColumn<int>("caseIndex");
        QTest::addColumn<int>("planIndex");
        for (int c = 0; c < int(std::size(kCases)); ++c)
            for (int p = 0; p < int(std::size(kPlans)); ++p)
                QTest::newRow(qPrintable(QString::fromLatin1(kCases[c].file).section(QLatin1Char('/'), -1) + " " +
                                         QLatin1String(kPlans[p].searcher)))
                    << c << p;
    }

    void weight_carrying_models_train_their_own_weights_or_are_refused_by_name()
    {
        QFETCH(int, caseIndex);
        QFETCH(int, planIndex);
        const Case& c = kCases[caseIndex];
        const Plan& p = kPlans[planIndex];
        const QString model = modelPath(c.file);
        if (!QFile::exists(model)) QSKIP(qPrintable("real model absent: " + model));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString plan = dir.filePath(QStringLiteral("plan.tapas.json"));
        const QString expect = QString::fromLatin1(c.dpExpect && QLatin1String(p.searcher) == QLatin1String("dp") ? c.dpExpect : c.expect);
        const bool refused = expect.startsWith(QLatin1String("refused: "));

        const Ran search = runTapas(QStringList{QStringLiteral("search"), model, QStringLiteral("--cluster"), QStringLiteral("cpu-mpi"),
                                                QStringLiteral("--mesh"), QLatin1String(p.mesh), QStringLiteral("--searchers"),
                                                QLatin1String(p.searcher), QStringLiteral("-o"), plan} +
                                        workloadArgs(c.workload),
                                    120000);
        if (refused && search.code != 0) { // refused by the searcher, with its reason
            QVERIFY2(search.output.contains(expect.mid(9)), qPrintable(search.output));
            return;
        }
        QVERIFY2(search.code == 0, qPrintable("tapas search: " + search.output));

        const QString runs = dir.filePath(QStringLiteral("runs"));
        const Ran run = runTapas(QStringList{QStringLiteral("run"), plan, model, QStringLiteral("-np"), QStringLiteral("2"),
                                             QStringLiteral("--steps"), QStringLiteral("3"), QStringLiteral("--checkpoint-every"),
                                             QStringLiteral("0"), QStringLiteral("--runs-dir"), runs} +
                                     workloadArgs(c.workload),
                                 420000);
        if (refused) {
            QVERIFY2(run.code != 0, qPrintable(run.output));
            QVERIFY2(run.output.contains(expect.mid(9)), qPrintable(run.output));
            QVERIFY2(run.output.contains(QFileInfo(model).fileName()), qPrintable(run.output)); // names the model
            QVERIFY2(QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty(), "a run directory was created");
            return;
        }
        QVERIFY2(run.code == 0, qPrintable(run.output));
        const QStringList dirs = QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(dirs.size(), 1);
        auto chunk = protocol::readMetrics(QDir(runs).filePath(dirs.front()).toStdString());
        QVERIFY(chunk.ok());
        bool numericsOk = false, ownWeights = false;
        int steps = 0;
        for (const protocol::MetricsEvent& e : chunk->events) {
            numericsOk = numericsOk || (e.type == protocol::EventType::Status && e.state == "numerics_ok");
            ownWeights = ownWeights || (e.type == protocol::EventType::Log &&
                                        e.text.find("trainable tensors from the model file") != std::string::npos &&
                                        e.text.find("synthetic") == std::string::npos);
            steps += e.type == protocol::EventType::Step;
        }
        QVERIFY2(numericsOk, qPrintable(run.output));
        QVERIFY2(ownWeights, qPrintable(run.output));
        QCOMPARE(steps, 3);
    }
};

QTEST_GUILESS_MAIN(TstRunRealModels)
#include "tst_run_real_models.moc"
