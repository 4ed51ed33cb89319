// The plan-run and GAN-run monitors fed with synthetic events: chart points per value and per
// rank, the per-rank table, the log, the smoothing slider, the sample grid and its slider, the
// settings; a 100k-step feed keeps the charts' point counts bounded.
#include "run_test_events.h"

#include "views/runs/gan_run_monitor.h"
#include "views/runs/plan_run_monitor.h"
#include "views/runs/rank_table_model.h"
#include "views/runs/run_chart.h"
#include "views/runs/run_record.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace tapas;

namespace {

// A sample grid the way the GAN worker writes one: a PNG under samples/ of the run directory.
void writeGrid(const QString& runDir, int step, QColor color)
{
    QDir().mkpath(QDir(runDir).filePath(QStringLiteral("samples")));
    QImage img(64, 64, QImage::Format_RGB32);
    img.fill(color);
    QVERIFY(img.save(QDir(runDir).filePath(QStringLiteral("samples/step_%1.png").arg(step, 6, 10, QLatin1Char('0')))));
}

} // namespace

class TstRunMonitors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plan_monitor_shows_charts_ranks_and_log()
    {
        RunRecord record(runtest::planSpec(), {});
        record.apply(runtest::planEvents(30));
        PlanRunMonitor m;
        QAbstractItemModelTester tester(m.rankModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.resize(1200, 700);
        m.setRecord(&record);
        QCOMPARE(m.lossChart()->pointCount(QStringLiteral("loss")), 30);
        QCOMPARE(m.lossChart()->points(QStringLiteral("loss")).first(), QPointF(0, 5.0));
        QCOMPARE(m.stepTimeChart()->lineKeys(), QStringList({QStringLiteral("rank0"), QStringLiteral("rank1")}));
        QCOMPARE(m.stepTimeChart()->points(QStringLiteral("rank1")).last().y(), 21.0); // ms
        QVERIFY(m.stepTimeChart()->lineColor(QStringLiteral("rank0")) != m.stepTimeChart()->lineColor(QStringLiteral("rank1")));
        QCOMPARE(m.throughputChart()->points(QStringLiteral("samples_per_s")).last().y(), 400.0);
        QCOMPARE(m.commShareChart()->points(QStringLiteral("comm_share")).last().y(), 25.0); // %
        QCOMPARE(m.predictedChart()->pointCount(QStringLiteral("measured")), 30);
        QCOMPARE(m.predictedChart()->points(QStringLiteral("predicted")).last().y(), 18.0);
        QCOMPARE(m.memoryChart()->points(QStringLiteral("rank1")).last().y(), 250.0); // MB
        QCOMPARE(m.rankModel()->rowCount(), 2);
        QCOMPARE(m.rankModel()->data(m.rankModel()->index(1, RankTableModel::Host)).toString(), QStringLiteral("nodeB"));
        QCOMPARE(m.rankModel()->data(m.rankModel()->index(1, RankTableModel::StepTime)).toString(), QStringLiteral("21.00 ms"));
        QCOMPARE(m.rankModel()->data(m.rankModel()->index(0, RankTableModel::Memory)).toString(), QStringLiteral("200.0 MB"));
        const QString log = m.logView()->toPlainText();
        QVERIFY2(log.contains(QStringLiteral("rank 1: rank 1 is slow")), qPrintable(log));
        QVERIFY(log.contains(QStringLiteral("numerics_ok")));
        QVERIFY(log.contains(QStringLiteral("finished: done")));
        QVERIFY(m.header()->text().contains(QStringLiteral("finished")));
    }

    void plan_monitor_appends_live_events_and_only_new_log_lines()
    {
        RunRecord record(runtest::planSpec(), {});
        auto events = runtest::planEvents(20, false);
        const std::vector<protocol::MetricsEvent> first(events.begin(), events.begin() + 15);
        const std::vector<protocol::MetricsEvent> rest(events.begin() + 15, events.end());
        record.apply(first);
        PlanRunMonitor m;
        m.setRecord(&record);
        const int before = m.lossChart()->pointCount(QStringLiteral("loss"));
        const int logLines = m.logView()->blockCount();
        record.apply(rest);
        m.refresh();
        QCOMPARE(m.lossChart()->pointCount(QStringLiteral("loss")), 20);
        QVERIFY(before < 20);
        QCOMPARE(m.logView()->blockCount(), logLines + 1); // the one warning in `rest`
        QVERIFY(m.header()->text().contains(QStringLiteral("step 19 of 100")));
    }

    void a_100k_step_run_keeps_chart_points_bounded()
    {
        RunRecord record(runtest::planSpec("long", 100000), {});
        for (int s = 0; s < 100000; ++s)
            record.apply(protocol::MetricsEvent::stepEvent(s, {{"loss", 1.0 / (1 + s)}, {"step_time", 0.01}}));
        PlanRunMonitor m;
        m.setRecord(&record);
        const int n = m.lossChart()->pointCount(QStringLiteral("loss"));
        QVERIFY2(n > 500 && n <= int(record.series("loss")->capacity()) + 1, qPrintable(QString::number(n)));
        QCOMPARE(m.lossChart()->points(QStringLiteral("loss")).last().x(), 99999.0);
    }

    void gan_monitor_charts_smoothing_and_settings()
    {
        RunRecord record(runtest::ganSpec(), {});
        record.apply(runtest::ganEvents(100));
        GanRunMonitor m;
        m.resize(1300, 800);
        m.setRecord(&record);
        QCOMPARE(m.lossChart()->lineKeys(), QStringList({QStringLiteral("d_loss"), QStringLiteral("g_loss")}));
        QCOMPARE(m.lossChart()->pointCount(QStringLiteral("g_loss")), 100);
        QCOMPARE(m.discriminatorChart()->pointCount(QStringLiteral("d_fake")), 100);
        QCOMPARE(m.throughputChart()->points(QStringLiteral("images_per_s")).last().y(), 5000.0);
        QCOMPARE(m.stepTimeChart()->lineKeys().size(), 2);
        QCOMPARE(m.congestionChart()->lineKeys().size(), 4);
        QCOMPARE(m.congestionChart()->points(QStringLiteral("data_wait")).last().y(), 2.0); // ms
        QCOMPARE(m.stalenessChart()->pointCount(QStringLiteral("staleness")), 100);
        QCOMPARE(m.qualityChart()->points(QStringLiteral("modes_covered")).last().y(), 8.0);
        QCOMPARE(m.qualityChart()->points(QStringLiteral("high_quality_share")).last().y(), 50.0);
        QCOMPARE(m.learningRateChart()->lineKeys().size(), 2);

        // Raw G loss alternates 0.7 / 1.3; heavy smoothing pulls it to about 1.0.
        m.smoothingSlider()->setValue(0);
        const QList<QPointF> raw = m.lossChart()->points(QStringLiteral("g_loss"));
        QCOMPARE(raw.last().y(), 1.3);
        m.smoothingSlider()->setValue(95);
        const QList<QPointF> smooth = m.lossChart()->points(QStringLiteral("g_loss"));
        QVERIFY2(std::abs(smooth.last().y() - 1.0) < 0.05, qPrintable(QString::number(smooth.last().y())));

        QTreeWidget* settings = m.settingsView();
        QStringList rows;
        for (int i = 0; i < settings->topLevelItemCount(); ++i)
            rows << settings->topLevelItem(i)->text(0) + QLatin1Char('=') + settings->topLevelItem(i)->text(1);
        QVERIFY2(rows.contains(QStringLiteral("--data=ring8")), qPrintable(rows.join(QLatin1Char(','))));
        QVERIFY(rows.contains(QStringLiteral("--staleness=2")));
        QVERIFY(rows.contains(QStringLiteral("--async=on")));
    }

    void gan_monitor_follows_the_newest_sample_grid_and_browses_earlier_ones()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeGrid(dir.path(), 0, Qt::red);
        writeGrid(dir.path(), 25, Qt::green);
        RunRecord record(runtest::ganSpec(), dir.path());
        auto events = runtest::ganEvents(50, 25, false); // samples at 0 and 25
        record.apply(events);
        GanRunMonitor m;
        m.resize(1300, 800);
        m.show();
        m.setRecord(&record);
        QVERIFY(m.shownSample().endsWith(QStringLiteral("step_000025.png")));
        QVERIFY(!m.sampleView()->pixmap().isNull());
        const QImage shown = m.sampleView()->pixmap().toImage();
        QCOMPARE(QColor(shown.pixel(shown.width() / 2, shown.height() / 2)), QColor(Qt::green));
        QCOMPARE(m.sampleSlider()->maximum(), 1);
        QVERIFY(m.sampleCaption()->text().contains(QStringLiteral("25")));

        // Back to the first grid; a new grid arriving does not yank the user forward...
        m.sampleSlider()->setValue(0);
        QVERIFY(m.shownSample().endsWith(QStringLiteral("step_000000.png")));
        writeGrid(dir.path(), 50, Qt::blue);
        record.apply(protocol::MetricsEvent::sampleEvent(50, "samples/step_000050.png"));
        m.refresh();
        QCOMPARE(m.sampleSlider()->maximum(), 2);
        QVERIFY(m.shownSample().endsWith(QStringLiteral("step_000000.png")));
        // ...but at the newest grid it keeps following.
        m.sampleSlider()->setValue(2);
        writeGrid(dir.path(), 75, Qt::yellow);
        record.apply(protocol::MetricsEvent::sampleEvent(75, "samples/step_000075.png"));
        m.refresh();
        QVERIFY(m.shownSample().endsWith(QStringLiteral("step_000075.png")));
        const QImage last = m.sampleView()->pixmap().toImage();
        QCOMPARE(QColor(last.pixel(last.width() / 2, last.height() / 2)), QColor(Qt::yellow));
    }

    void a_missing_sample_file_is_said_not_crashed_on()
    {
        QTemporaryDir dir;
        RunRecord record(runtest::ganSpec(), dir.path());
        record.apply(protocol::MetricsEvent::sampleEvent(10, "samples/gone.png"));
        GanRunMonitor m;
        m.setRecord(&record);
        QVERIFY(m.sampleView()->pixmap().isNull());
        QVERIFY(m.sampleCaption()->text().contains(QStringLiteral("gone.png")));
    }
};

QTEST_MAIN(TstRunMonitors)
#include "tst_run_monitors.moc"
