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
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QLogValueAxis>
#include <QValueAxis>
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
    void run_charts_smooth_switch_to_log_scale_and_read_values_on_hover()
    {
        RunRecord record(runtest::planSpec(), {});
        record.apply(runtest::planEvents(30));
        PlanRunMonitor m;
        m.resize(1200, 700);
        m.setRecord(&record);
        RunChart* loss = m.lossChart();
        const QList<QPointF> raw = loss->points(QStringLiteral("loss"));
        // Every chart names what its values are.
        for (RunChart* c : {m.lossChart(), m.stepTimeChart(), m.throughputChart(), m.commShareChart(), m.predictedChart(),
                            m.memoryChart()}) {
            const auto* y = c->chart()->axes(Qt::Vertical).value(0);
            QVERIFY2(y && !y->titleText().isEmpty(), qPrintable(c->objectName()));
        }
        // Smoothing: one slider for the monitor's charts; the raw value stays in the hover text.
        QVERIFY(m.chartSmoothingSlider());
        m.chartSmoothingSlider()->setValue(90);
        QCOMPARE(loss->smoothing(), 0.9);
        QCOMPARE(m.stepTimeChart()->smoothing(), 0.9);
        const QList<QPointF> smooth = loss->points(QStringLiteral("loss"));
        QCOMPARE(smooth.size(), raw.size());
        QVERIFY(smooth.last().y() != raw.last().y());
        const QString hover = loss->valuesAt(raw[10].x());
        QVERIFY2(hover.contains(QString::number(raw[10].y(), 'g', 5)), qPrintable(hover));
        QVERIFY2(hover.contains(QStringLiteral("step %1").arg(raw[10].x(), 0, 'f', 0)), qPrintable(hover));
        m.chartSmoothingSlider()->setValue(0);
        QCOMPARE(loss->points(QStringLiteral("loss")), raw);
        // Log scale: a logarithmic value axis on every chart, and back.
        m.logScaleBox()->setChecked(true);
        QVERIFY(qobject_cast<QLogValueAxis*>(loss->chart()->axes(Qt::Vertical).value(0)));
        QVERIFY(qobject_cast<QLogValueAxis*>(m.memoryChart()->chart()->axes(Qt::Vertical).value(0)));
        QCOMPARE(loss->pointCount(QStringLiteral("loss")), 30);
        m.logScaleBox()->setChecked(false);
        QVERIFY(qobject_cast<QValueAxis*>(loss->chart()->axes(Qt::Vertical).value(0)));
    }

    void rank_zero_stays_visible_under_the_other_ranks()
    {
        RunRecord record(runtest::planSpec(), {});
        record.apply(runtest::planEvents(30));
        PlanRunMonitor m;
        m.setRecord(&record);
        RunChart* c = m.stepTimeChart();
        const QPen r0 = c->linePen(QStringLiteral("rank0")), r1 = c->linePen(QStringLiteral("rank1"));
        // Drawn first, rank 0 is underneath: it is wider and solid, the others narrower and
        // dashed, so equal values show both.
        QVERIFY(r0.widthF() >= r1.widthF() + 1.5);
        QCOMPARE(r0.style(), Qt::SolidLine);
        QVERIFY(r1.style() != Qt::SolidLine);
        QVERIFY(r0.color() != r1.color());
    }

    void run_log_shows_each_ranks_own_output()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir().mkpath(dir.filePath(QStringLiteral("logs")));
        QFile f(dir.filePath(QStringLiteral("logs/rank-1.log")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("rank 1: loaded 12 shards\nrank 1: step 1 done\n");
        f.close();
        RunRecord record(runtest::planSpec(), dir.path());
        record.apply(runtest::planEvents(5));
        PlanRunMonitor m;
        m.setRecord(&record);
        QComboBox* source = m.logSourceBox();
        QCOMPARE(source->count(), 1 + record.spec().ranks); // events, then one entry per rank
        source->setCurrentIndex(2); // rank 1
        QVERIFY(!m.rankOutputView()->isHidden()); // the current page of the log tab
        QVERIFY2(m.rankOutputView()->toPlainText().contains(QStringLiteral("loaded 12 shards")),
                 qPrintable(m.rankOutputView()->toPlainText()));
        // New output appears at the next refresh, once.
        QVERIFY(f.open(QIODevice::Append));
        f.write("rank 1: step 2 done\n");
        f.close();
        m.refresh();
        m.refresh();
        QCOMPARE(m.rankOutputView()->toPlainText().count(QStringLiteral("step 2 done")), 1);
        QCOMPARE(m.rankOutputView()->toPlainText().count(QStringLiteral("step 1 done")), 1);
        // Rank 0 wrote nothing: said so.
        source->setCurrentIndex(1);
        QVERIFY(m.rankOutputView()->toPlainText().contains(QStringLiteral("no output")));
        source->setCurrentIndex(0);
        QVERIFY(!m.logView()->isHidden());
        QVERIFY(m.rankOutputView()->isHidden());
    }

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
