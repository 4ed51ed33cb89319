// The Runs dock's panel and launch form with synthetic runs: the list, selecting a run shows the
// monitor of its kind, several selected runs overlay in one chart (one colour each), Stop and
// Resume follow the run's state, live events update list and charts; the form refuses bad
// input with a sentence and describes plan and GAN runs as RunSpecs.
#include "run_test_events.h"

#include "views/runs/gan_run_monitor.h"
#include "views/runs/launch_form.h"
#include "views/runs/plan_run_monitor.h"
#include "views/runs/run_chart.h"
#include "views/runs/run_compare_view.h"
#include "views/runs/run_list_model.h"
#include "views/runs/run_record.h"
#include "views/runs/runs_panel.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QListWidget>
#include <QChart>
#include <QAbstractAxis>
#include <QtTest>

using namespace tapas;

namespace {

protocol::RunSummary summary(const protocol::RunSpec& spec, const std::string& state, int64_t step)
{
    protocol::RunSummary s;
    s.dir = "/runs/" + spec.id;
    s.spec = spec;
    s.state = state;
    s.lastStep = step;
    return s;
}

} // namespace

class TstRunPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lists_runs_and_shows_the_monitor_of_the_selected_kind()
    {
        RunsPanel panel;
        QAbstractItemModelTester tester(panel.listModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.resize(1500, 800);
        const auto plan = runtest::planSpec();
        const auto gan = runtest::ganSpec();
        panel.setRuns({summary(gan, "stopped", 99), summary(plan, "finished", 29)});
        QCOMPARE(panel.listModel()->rowCount(), 2);
        QCOMPARE(panel.listModel()->data(panel.listModel()->index(0, RunListModel::Kind)).toString(), QStringLiteral("GAN training"));
        QCOMPARE(panel.listModel()->data(panel.listModel()->index(1, RunListModel::Step)).toString(), QStringLiteral("29 / 100"));

        // The controller answers runsSelected with the history; here the test does.
        connect(&panel, &RunsPanel::runsSelected, this, [&](const QStringList& ids) {
            for (const QString& id : ids) {
                if (panel.hasRecord(id)) continue;
                if (id == QString::fromStdString(plan.id)) panel.setHistory(summary(plan, "finished", 29), runtest::planEvents(30));
                else panel.setHistory(summary(gan, "stopped", 99), runtest::ganEvents(100));
            }
        });
        panel.selectRun(QString::fromStdString(plan.id));
        QCOMPARE(panel.currentMonitor(), static_cast<QWidget*>(panel.planMonitor()));
        QCOMPARE(panel.planMonitor()->lossChart()->pointCount(QStringLiteral("loss")), 30);
        panel.selectRun(QString::fromStdString(gan.id));
        QCOMPARE(panel.currentMonitor(), static_cast<QWidget*>(panel.ganMonitor()));
        QCOMPARE(panel.ganMonitor()->lossChart()->pointCount(QStringLiteral("g_loss")), 100);
        QVERIFY(panel.resumeButton()->isEnabled()); // stopped: can resume
        QVERIFY(!panel.stopButton()->isEnabled());

        // Two runs selected: their losses overlaid, one colour each.
        panel.selectRuns({QString::fromStdString(plan.id), QString::fromStdString(gan.id)});
        QCOMPARE(panel.currentMonitor(), static_cast<QWidget*>(panel.compareView()));
        RunChart* chart = panel.compareView()->chart();
        QVERIFY(panel.compareView()->setValueName(QStringLiteral("step_time")));
        QCOMPARE(chart->lineKeys().size(), 2);
        QVERIFY(chart->lineColor(QString::fromStdString(plan.id)) != chart->lineColor(QString::fromStdString(gan.id)));
        QCOMPARE(chart->pointCount(QString::fromStdString(plan.id)), 30);
        QCOMPARE(chart->pointCount(QString::fromStdString(gan.id)), 100);
        QVERIFY(panel.compareView()->setValueName(QStringLiteral("g_loss")));
        QCOMPARE(chart->lineKeys(), QStringList({QString::fromStdString(gan.id)}));
        QVERIFY(!panel.stopButton()->isEnabled());
        QVERIFY(!panel.resumeButton()->isEnabled());
    }

    void live_events_update_list_charts_and_buttons()
    {
        RunsPanel panel;
        panel.resize(1400, 800);
        auto spec = runtest::planSpec("live-run", 20);
        panel.addRun(summary(spec, "starting", -1));
        panel.setControllable(QStringLiteral("live-run"), true);
        QSignalSpy stops(&panel, &RunsPanel::stopRequested);
        panel.selectRun(QStringLiteral("live-run"));
        QCOMPARE(panel.currentMonitor(), static_cast<QWidget*>(panel.planMonitor()));
        QVERIFY(panel.stopButton()->isEnabled());
        QVERIFY(!panel.resumeButton()->isEnabled());
        for (const auto& e : runtest::planEvents(10, false)) panel.appendEvent(QStringLiteral("live-run"), e);
        // Redraws are batched on a timer: the chart catches up within a tick.
        QTRY_COMPARE(panel.planMonitor()->lossChart()->pointCount(QStringLiteral("loss")), 10);
        QCOMPARE(panel.listModel()->data(panel.listModel()->index(0, RunListModel::Step)).toString(), QStringLiteral("9 / 20"));
        QTest::mouseClick(panel.stopButton(), Qt::LeftButton);
        QCOMPARE(stops.count(), 1);
        QCOMPARE(stops.first().first().toString(), QStringLiteral("live-run"));
        panel.appendEvent(QStringLiteral("live-run"), protocol::MetricsEvent::statusEvent("stopped", "by the user"));
        panel.setControllable(QStringLiteral("live-run"), false);
        QVERIFY(!panel.stopButton()->isEnabled());
        QVERIFY(panel.resumeButton()->isEnabled());
        QCOMPARE(panel.listModel()->data(panel.listModel()->index(0, RunListModel::State)).toString(), QStringLiteral("stopped"));
        QSignalSpy resumes(&panel, &RunsPanel::resumeRequested);
        QTest::mouseClick(panel.resumeButton(), Qt::LeftButton);
        QCOMPARE(resumes.count(), 1);
        // Reading the runs folder again keeps what the live events said.
        panel.setRuns({summary(spec, "running", 3)});
        QCOMPARE(panel.listModel()->data(panel.listModel()->index(0, RunListModel::State)).toString(), QStringLiteral("stopped"));
        QCOMPARE(panel.selectedRunIds(), QStringList({QStringLiteral("live-run")}));
    }

    void compare_several_metrics_by_readable_names_with_units()
    {
        RunRecord a(runtest::planSpec("run-a", 30), {}), b(runtest::planSpec("run-b", 30), {});
        a.apply(runtest::planEvents(30));
        b.apply(runtest::planEvents(20));
        RunCompareView view;
        view.resize(1200, 700);
        view.setRecords({&a, &b});
        // Listed by what they mean, with units; never by the recorded snake_case name.
        QStringList shown;
        for (int i = 0; i < view.metricList()->count(); ++i) shown << view.metricList()->item(i)->text();
        QVERIFY2(shown.contains(QStringLiteral("Step time (ms)")), qPrintable(shown.join(QLatin1Char('|'))));
        QVERIFY2(shown.contains(QStringLiteral("Loss")), qPrintable(shown.join(QLatin1Char('|'))));
        for (const QString& t : shown) QVERIFY2(!t.contains(QLatin1Char('_')), qPrintable(t));
        QCOMPARE(view.valueNames(), QStringList({QStringLiteral("loss")})); // the loss first
        // Two metrics ticked: two charts, each with both runs, values in the metric's unit.
        QVERIFY(view.setValueNames({QStringLiteral("loss"), QStringLiteral("step_time")}));
        QCOMPARE(view.charts().size(), 2);
        RunChart* steps = view.charts()[1];
        QCOMPARE(steps->lineKeys().size(), 2);
        QCOMPARE(steps->chart()->axes(Qt::Vertical).value(0)->titleText(), QStringLiteral("ms"));
        const RunSeries* raw = a.series("step_time");
        QVERIFY(raw);
        QCOMPARE(steps->points(QStringLiteral("run-a")).last().y(), raw->linePoints().last().y() * 1e3);
        QVERIFY(steps->isVisibleTo(&view));
        // Ticking in the list does the same.
        for (int i = 0; i < view.metricList()->count(); ++i)
            if (view.metricList()->item(i)->data(Qt::UserRole).toString() == QLatin1String("samples_per_s"))
                view.metricList()->item(i)->setCheckState(Qt::Checked);
        QCOMPARE(view.charts().size(), 3);
        view.logScaleBox()->setChecked(true);
        QVERIFY(view.charts()[2]->logScale());
    }

    void form_refuses_bad_input_with_a_sentence()
    {
        LaunchForm form;
        QSignalSpy launches(&form, &LaunchForm::launchRequested);
        form.setKind(LaunchForm::PlanTraining);
        QTest::mouseClick(form.startButton(), Qt::LeftButton);
        QCOMPARE(launches.count(), 0);
        QVERIFY(form.errorLabel()->text().contains(QStringLiteral("plan file")));
        form.setPlanPath(QStringLiteral("/nonexistent/plan.tapas.json"));
        QVERIFY(QString::fromStdString(form.spec().error()).contains(QStringLiteral("/nonexistent/plan.tapas.json")));
        form.hostsEdit()->setText(QStringLiteral("node1, -oProxyCommand=x"));
        QVERIFY(QString::fromStdString(form.spec().error()).contains(QStringLiteral("-oProxyCommand=x")));
        form.setKind(LaunchForm::GanTraining);
        form.hostsEdit()->clear();
        form.dataBox()->setCurrentIndex(form.dataBox()->findData(QStringLiteral("folder")));
        form.folderEdit()->setText(QStringLiteral("/nonexistent/images"));
        QVERIFY(QString::fromStdString(form.spec().error()).contains(QStringLiteral("/nonexistent/images")));
    }

    void form_describes_plan_and_gan_runs()
    {
        QTemporaryDir dir;
        const QString plan = dir.filePath(QStringLiteral("p.tapas.json"));
        const QString model = dir.filePath(QStringLiteral("m.onnx"));
        for (const QString& f : {plan, model}) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        LaunchForm form;
        QSignalSpy launches(&form, &LaunchForm::launchRequested);
        form.setPlanPath(plan);
        form.setModelPath(model);
        form.ranksBox()->setValue(4);
        form.hostsEdit()->setText(QStringLiteral("node1:2, node2:2"));
        form.stepsBox()->setValue(30);
        form.checkpointBox()->setValue(5);
        QTest::mouseClick(form.startButton(), Qt::LeftButton);
        QCOMPARE(launches.count(), 1);
        const auto spec = launches.first().first().value<protocol::RunSpec>();
        QCOMPARE(spec.kind, std::string("train-plan"));
        QCOMPARE(QString::fromStdString(spec.planPath), plan);
        QCOMPARE(spec.ranks, 4);
        QCOMPARE(spec.hosts, (std::vector<std::string>{"node1:2", "node2:2"}));
        QCOMPARE(spec.steps, 30);
        QCOMPARE(spec.checkpointEvery, 5);

        form.hostsEdit()->clear();
        form.setKind(LaunchForm::GanTraining);
        form.applyPreset(2); // ring of 8, asynchronous, k = 1 (the setting ParaGAN's benchmarks measure)
        auto gan = form.spec();
        QVERIFY(gan.ok());
        QCOMPARE(gan->kind, std::string("gan"));
        QCOMPARE(gan->options.at("data"), std::string("ring8"));
        QCOMPARE(gan->options.at("model"), std::string("mlp"));
        QVERIFY(gan->options.count("async"));
        QCOMPARE(gan->options.at("staleness"), std::string("1"));
        QCOMPARE(gan->steps, 24000); // the ring's step budget (protocol/gan_presets.h)
        QVERIFY(form.stalenessBox()->isEnabled());
        form.asyncBox()->setChecked(false);
        QVERIFY(!form.stalenessBox()->isEnabled());
        QVERIFY(!form.spec()->options.count("async"));
        form.dataBox()->setCurrentIndex(form.dataBox()->findData(QStringLiteral("folder")));
        form.folderEdit()->setText(dir.path());
        QCOMPARE(form.spec()->options.at("data"), std::string("folder"));
        QCOMPARE(QString::fromStdString(form.spec()->options.at("data-dir")), dir.path());
    }
};

QTEST_MAIN(TstRunPanel)
#include "tst_run_panel.moc"
