// Every model of the corpus and of the shared models that carries its weights, trained for 3
// steps on 2 MPI ranks under a TAPAS plan (1x2), the Megatron-LM baseline (1x2) and data
// parallelism (2x1), through the real CLI: `tapas search ... -o plan` then `tapas run`. Each
// either trains its own weights with `numerics_ok` (the sharded run matches the unsharded model)
// or is refused before anything launches, with the reason named. What a person expects of each
// model was written down below before the suite first ran.
#include "runtime/protocol/metrics_event.h"
#include "runtime/protocol/run_directory.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace tapas;

namespace {

struct Case {
    const char* file;     // under tests/data/corpus, or /shared/models when it starts with '/'
    const char* workload; // dims and batch for search and run
    const char* expect;   // "ok", or "refused: <text the refusal contains>"
    const char* dpExpect = nullptr; // for the data-parallel plan, when it differs
};

// The expectations, one per model (the same for the three plans unless a row says otherwise).
const Case kCases[] = {
    // torch nn.TransformerEncoder (4 layers, d 64), weights as initializers.
    {"encoder_4l_small.onnx", "--dim seq=16 --dim batch=4", "ok"},
    // openWakeWord classifiers (tf2onnx / torch), fixed batch 1: re-batched to 2.
    {"oww_hello_deepa.onnx", "--batch 2", "ok"},
    // Its classifier ends in an If on the score, whose then-branch runs three more Gemms on
    // weights read from the main graph: the worker runs the branch the data chooses. (First
    // written with --batch 2, expecting the re-batch to work: the search refused it, rightly,
    // since the If's output has no shape to follow. As exported, batch 1: data parallelism has
    // no batch to divide.)
    {"oww_hey_jarvis.onnx", "", "ok", "refused: needs the model's batch axis, and there is none"},
    // Mel spectrogram front end: STFT as convolutions with stored filters. (First written "ok"
    // for all three; its top-db clamp takes one ReduceMax over the whole tensor, batch included,
    // so data-parallel replicas would clamp against their own samples' max: the search refuses
    // DP, naming the node. Synthetic inputs had hidden it: no value fell below the clamp.)
    {"oww_melspectrogram.onnx", "--dim batch_size=2 --dim samples=16000", "ok",
     "refused: node 'ReduceMax_24' (ReduceMax) reduces"},
    // tf2onnx Keras model whose batch axis is unnamed ('?'): bound by --batch.
    {"oww_speech_embedding.onnx", "--batch 2", "ok"},
    // paddle2onnx classifier: every weight is a Constant node.
    {"ppocr_mobile_v2_cls.onnx", "--dim p2o.DynamicDimension.0=2 --dim p2o.DynamicDimension.1=48 --dim p2o.DynamicDimension.2=192", "ok"},
    // Silero VAD: its LSTM sits inside an If on the sample rate, with nested Ifs on shapes
    // around it; the bodies run replicated, the convolutions before them are planned. (First
    // run: its STFT's reflect Pad had no kernel, then its outputs had no shape; both fixed.)
    {"silero_vad_16k_op15.onnx", "--dim batch=2 --dim sequence=512", "ok"},
    // The shared real models (torch exports with weights).
    {"/resnet18.onnx", "--dim batch=2", "ok"},
    {"/mobilenet_v2.onnx", "--batch 2", "ok"},
    {"/bert_mini_4l.onnx", "--dim batch=2 --dim seq=32", "ok"},
};

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
