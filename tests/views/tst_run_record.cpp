// RunRecord: what the Runs dock keeps of a run, built from its metrics events: series per value
// (and the derived communication share), per-rank rows and series, the log with status
// changes, sample paths resolved against the run directory, the state.
#include "run_test_events.h"

#include "views/runs/run_record.h"

#include <QDir>
#include <QtTest>

using namespace tapas;

class TstRunRecord : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plan_events_fill_series_ranks_log_and_state()
    {
        RunRecord r(runtest::planSpec(), QStringLiteral("/runs/a"));
        const int changed = r.apply(runtest::planEvents(40));
        QVERIFY(changed & RunRecord::Series);
        QVERIFY(changed & RunRecord::Ranks);
        QVERIFY(changed & RunRecord::State);
        QVERIFY(r.series("loss"));
        QCOMPARE(r.series("loss")->linePoints().size(), 40);
        QCOMPARE(r.series("loss")->linePoints().front().y(), 5.0);
        QVERIFY(!r.series("g_loss"));
        // comm_time / step_time of each step
        QVERIFY(r.series("comm_share"));
        QCOMPARE(r.series("comm_share")->linePoints().back().y(), 0.25);
        QCOMPARE(int(r.ranks().size()), 2);
        QCOMPARE(r.ranks()[1].host, QStringLiteral("nodeB"));
        QCOMPARE(r.ranks()[1].values.at("memory_bytes"), 2.5e8);
        QCOMPARE(r.ranks()[0].step, int64_t(39));
        QVERIFY(r.rankSeries(1, "step_time"));
        QCOMPARE(r.rankSeries(1, "step_time")->linePoints().size(), 40);
        QVERIFY(!r.rankSeries(2, "step_time"));
        QCOMPARE(r.state(), std::string("finished"));
        QVERIFY(r.isTerminal());
        QCOMPARE(r.lastStep(), int64_t(39));
        // log: 3 status changes + 2 log lines, in order
        QCOMPARE(int(r.log().size()), 5);
        QCOMPARE(r.log()[0].level, QStringLiteral("status"));
        QVERIFY(r.log()[1].text.contains(QStringLiteral("max_abs_error=1e-7")));
        QCOMPARE(r.log()[3].rank, 1);
        QCOMPARE(r.log()[3].text, QStringLiteral("rank 1 is slow"));
        QCOMPARE(r.log().back().text, QStringLiteral("finished: done"));
    }

    void gan_samples_resolve_against_the_run_directory()
    {
        RunRecord r(runtest::ganSpec(), QStringLiteral("/runs/g"));
        QVERIFY(r.isGan());
        r.apply(runtest::ganEvents(60, 25));
        QCOMPARE(int(r.samples().size()), 3);
        QCOMPARE(r.samples()[2].step, int64_t(50));
        QCOMPARE(r.samples()[2].path, QDir(QStringLiteral("/runs/g")).filePath(QStringLiteral("samples/step_000050.png")));
        QVERIFY(r.series("modes_covered"));
        QCOMPARE(r.series("modes_covered")->linePoints().size(), 3);
        QCOMPARE(r.state(), std::string("stopped"));
    }

    void the_log_is_bounded_but_counts_everything()
    {
        RunRecord r;
        for (std::size_t i = 0; i < RunRecord::kMaxLogLines + 10; ++i)
            r.apply(protocol::MetricsEvent::logEvent("info", 0, std::to_string(i)));
        QCOMPARE(r.log().size(), RunRecord::kMaxLogLines);
        QCOMPARE(r.logTotal(), RunRecord::kMaxLogLines + 10);
        QCOMPARE(r.log().front().text, QStringLiteral("10"));
    }
};

QTEST_GUILESS_MAIN(TstRunRecord)
#include "tst_run_record.moc"
