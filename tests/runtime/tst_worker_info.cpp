// Starts the real tapas-worker under a real mpirun and checks what each rank reports.
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QtTest>

class TstWorkerInfo : public QObject {
    Q_OBJECT

private:
    static QString worker() { return QStringLiteral(TAPAS_BIN_DIR "/tapas-worker"); }

    static QProcess* runMpi(int ranks, const QStringList& workerArgs)
    {
        auto* p = new QProcess;
        QStringList args{QStringLiteral("--oversubscribe"), QStringLiteral("-np"), QString::number(ranks),
                         worker()};
        args += workerArgs;
        p->start(QStringLiteral(TAPAS_MPIEXEC), args);
        return p;
    }

private Q_SLOTS:
    void info_reports_every_rank_data()
    {
        QTest::addColumn<int>("ranks");
        QTest::newRow("2 ranks") << 2;
        QTest::newRow("4 ranks") << 4;
    }

    void info_reports_every_rank()
    {
        QFETCH(int, ranks);
        std::unique_ptr<QProcess> p(runMpi(ranks, {QStringLiteral("info"), QStringLiteral("--json")}));
        QVERIFY2(p->waitForFinished(120000), "mpirun did not finish in 120 s");
        QCOMPARE(p->exitStatus(), QProcess::NormalExit);
        QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        const QByteArray out = p->readAllStandardOutput().trimmed();
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(out, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, out.constData()); // only rank 0 prints
        const QJsonObject o = doc.object();
        QCOMPARE(o.value(QStringLiteral("world_size")).toInt(), ranks);
        const QJsonArray list = o.value(QStringLiteral("ranks")).toArray();
        QCOMPARE(list.size(), ranks);
        QSet<qint64> pids;
        for (int r = 0; r < ranks; ++r) {
            const QJsonObject ri = list[r].toObject();
            QCOMPARE(ri.value(QStringLiteral("rank")).toInt(), r);
            QVERIFY(!ri.value(QStringLiteral("host")).toString().isEmpty());
            QVERIFY(ri.value(QStringLiteral("cpus")).toInt() >= 1);
            QCOMPARE(ri.value(QStringLiteral("local_rank")).toInt(), r); // one host: local == world rank
            pids.insert(ri.value(QStringLiteral("pid")).toInteger());
        }
        QCOMPARE(pids.size(), ranks); // separate processes, not threads
    }

    // The BLAS a rank reports is the one the system's libblas.so.3 alternative points at (setup.sh
    // installs OpenBLAS), and only the reference one draws a warning.
    void info_names_the_blas_each_rank_calls()
    {
        const QString alternative = QFileInfo(QStringLiteral("/usr/lib/x86_64-linux-gnu/libblas.so.3")).canonicalFilePath();
        if (alternative.isEmpty()) QSKIP("this machine has no libblas.so.3 alternative to compare with");
        std::unique_ptr<QProcess> p(runMpi(2, {QStringLiteral("info"), QStringLiteral("--json")}));
        QVERIFY2(p->waitForFinished(120000), "mpirun did not finish in 120 s");
        QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        const QJsonArray list = QJsonDocument::fromJson(p->readAllStandardOutput()).object().value(QStringLiteral("ranks")).toArray();
        QCOMPARE(list.size(), 2);
        for (const QJsonValue& v : list) {
            const QString blas = v.toObject().value(QStringLiteral("blas")).toString();
            QVERIFY2(blas.contains(alternative), qPrintable(blas + " does not name " + alternative));
            const bool openblas = alternative.contains(QStringLiteral("openblas"));
            QCOMPARE(blas.startsWith(QStringLiteral("OpenBLAS")), openblas);
            QCOMPARE(v.toObject().value(QStringLiteral("blas_warning")).toString().isEmpty(),
                     !alternative.contains(QStringLiteral("/blas/libblas.so")));
        }
    }

    void reference_blas_is_named_with_a_warning()
    {
        const QString reference = QStringLiteral("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3");
        if (!QFileInfo::exists(reference)) QSKIP("the reference BLAS (libblas3) is not installed");
        QProcess p; // a singleton MPI run: no mpirun needed for one rank
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LD_PRELOAD"), reference);
        p.setProcessEnvironment(env);
        p.start(worker(), {QStringLiteral("info")});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(out + p.readAllStandardError()));
        QVERIFY2(out.contains(QStringLiteral("BLAS: reference BLAS (") + reference), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("warning: rank 0: this process calls the reference BLAS")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("libopenblas0-pthread")), qPrintable(out));
    }

    void unknown_command_fails_with_usage()
    {
        QProcess p;
        p.start(worker(), {QStringLiteral("train-nothing")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("unknown command 'train-nothing'"));
    }
};

QTEST_GUILESS_MAIN(TstWorkerInfo)
#include "tst_worker_info.moc"
