// Starts the real tapas-worker under a real mpirun and checks what each rank reports.
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
