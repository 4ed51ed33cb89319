// Pipeline stages in the studio, on the small 4-layer zoo GPT of the plan-review suites in the real main window: the Search dialog
// asked for 2 fixed stages (micro-batch 1, selective recomputation, no interleaving) plans them;
// the Plan dock lists each stage (its blocks, pipeline rank, global ranks, recomputation) and the
// Costs dock shows the bubble and each pipeline rank's memory against the device limit, with the
// figures the search reported; an edit re-costs the stages; a saved version-2 plan file reopens
// with its stages; and a plan without stages leaves both docks as they were.
#include "app/studio/costs_dock.h"
#include "app/studio/main_window.h"
#include "app/studio/plan_actions.h"
#include "app/studio/plan_docks.h"
#include "app/studio/plan_session.h"
#include "app/studio/project_document.h"
#include "app/studio/search_dialog.h"
#include "core/fold/folded_graph.h"
#include "core/plan/plan_file.h"
#include "core/zoo/zoo.h"
#include "tests/app/studio_suite.h"
#include "tests/common/zoo_plan.h"
#include "views/cluster_editor.h"
#include "views/costs/costs_view.h"
#include "views/plan/plan_panel.h"
#include "views/plan/stages_model.h"

#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace tapas;

namespace {

constexpr int kLoadTimeoutMs = 120000;
constexpr int kSearchTimeoutMs = 180000;

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-15;
}

} // namespace

class TstPlanStages : public QObject {
    Q_OBJECT
private:
    testing::SuiteSettings settings_{"tst_plan_stages"};
    QTemporaryDir tmp_;
    QString modelPath_;
    std::unique_ptr<MainWindow> window_;

    PlanSession* session() const { return window_->planSession(); }
    PlanActions* actions() const { return window_->planActions(); }
    PlanPanel* panel() const { return window_->planDocks()->panel(); }
    CostsView* costs() const { return actions()->costsDock()->view(); }

    // Runs tapas and dp from the Search dialog on a100x8; `stages` > 1 asks for that many on the
// mesh 2 x stages x 2.
    void search(int stages)
    {
        actions()->searchAction()->trigger();
        SearchDialog* d = actions()->searchDialog();
        QVERIFY(d->isVisible());
        QVERIFY(d->clusterEditor()->selectPreset(QStringLiteral("a100x8")));
        d->meshCombo()->setCurrentIndex(0);
        for (const auto& s : searchers()) {
            const QString name = QString::fromStdString(s->name());
            d->searcherBox(name)->setChecked(name == QLatin1String("tapas") || name == QLatin1String("dp"));
        }
        if (stages > 1) {
            d->setStagesMode(SearchDialog::StagesMode::Fixed);
            QVERIFY(d->pipelineStagesBox()->isEnabled());
            d->pipelineStagesBox()->setValue(stages);
            // The meshes offered have that many stages: dp 2 x pp 2 x tp 2 keeps the MLP splittable.
            const int mesh = d->meshCombo()->findData(QStringLiteral("2x%1x2").arg(stages));
            QVERIFY2(mesh > 0, qPrintable(d->meshCombo()->itemText(1)));
            d->meshCombo()->setCurrentIndex(mesh);
            d->microBatchBox()->setValue(1);
            d->recomputeCombo()->setCurrentIndex(d->recomputeCombo()->findData(QStringLiteral("selective")));
            d->virtualStagesBox()->setValue(1);
        } else {
            // The default: stages only when nothing fits (this model fits).
            QCOMPARE(SearchDialog::StagesMode(d->stagesCombo()->currentData().toInt()), SearchDialog::StagesMode::WhenNothingFits);
            QVERIFY(!d->pipelineStagesBox()->isEnabled());
        }
        QSignalSpy finished(d, &SearchDialog::searchFinished);
        QTest::mouseClick(d->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kSearchTimeoutMs));
        QVERIFY2(finished.first().first().toBool(), qPrintable(d->statusLabel()->text()));
        QVERIFY2(session()->results().size() == 2, qPrintable(d->statusLabel()->text()));
        d->close();
    }

    const SearchResult& tapasResult() const
    {
        for (const SearchResult& r : session()->results())
            if (r.searcher == "tapas") return r;
        return session()->results().front();
    }

    // What both docks show for a staged plan under edit, against its own schedule and report.
    void checkDocksShowStages(const ShardingPlan& plan, const CostReport& report)
    {
        const PipelineSchedule& p = plan.pipeline;
        // Plan dock: one row per stage, covering the chain in order, with ranks and recomputation.
        QTRY_VERIFY(panel()->stagesTable()->isVisible());
        const StagesModel* m = panel()->stagesModel();
        QCOMPARE(m->rowCount(), int(p.stages.size()));
        const int perRank = plan.mesh.dp * plan.mesh.tp;
        for (int s = 0; s < m->rowCount(); ++s) {
            const PipelineStage& st = p.stages[size_t(s)];
            const QString blocks = m->index(s, StagesModel::Blocks).data().toString();
            QVERIFY2(blocks.startsWith(QStringLiteral("%1-%2 (").arg(st.firstBlock).arg(st.endBlock - 1)), qPrintable(blocks));
            QCOMPARE(m->index(s, StagesModel::PipelineRank).data().toInt(), s);
            QCOMPARE(m->index(s, StagesModel::Ranks).data().toString(),
                     perRank == 1 ? QString::number(s) : QStringLiteral("%1-%2").arg(s * perRank).arg((s + 1) * perRank - 1));
            QCOMPARE(m->index(s, StagesModel::Recomputation).data().toString(), QStringLiteral("selective"));
            QVERIFY(close(m->index(s, StagesModel::TimePerMicroBatch).data(StagesModel::ValueRole).toDouble(), st.timePerMicroBatch));
        }
        QCOMPARE(p.stages.front().firstBlock, 0);
        QCOMPARE(p.stages.back().endBlock, int(session()->folded()->chain.size()));
        const QString bubbleText = QStringLiteral("bubble %1%").arg(p.bubbleFraction * 100, 0, 'f', 1);
        QVERIFY2(panel()->stagesLabel()->text().contains(bubbleText), qPrintable(panel()->stagesLabel()->text()));
        QVERIFY2(panel()->stagesLabel()->text().startsWith(QStringLiteral("2 pipeline stage")) &&
                     panel()->stagesLabel()->text().contains(QStringLiteral(" on pp 2 ")),
                 qPrintable(panel()->stagesLabel()->text()));
        // Costs dock: the bubble and the sends between stages in the step, as the report has them.
        QVERIFY(costs()->bubbleSet() && costs()->ppCommSet());
        QVERIFY(close(costs()->bubbleSet()->at(0), report.total.bubble * 1e3));
        QVERIFY(close(costs()->ppCommSet()->at(0), report.total.ppComm * 1e3));
        QVERIFY(report.total.bubble > 0);
        QVERIFY2(costs()->headline().contains(bubbleText), qPrintable(costs()->headline()));
        // The Stages page: each pipeline rank's memory against the device limit.
        QVERIFY(costs()->pages()->isTabVisible(3));
        QCOMPARE(costs()->stageWeightSet()->count(), plan.mesh.pp);
        for (int r = 0; r < plan.mesh.pp; ++r) {
            double bytes = 0;
            for (const PipelineStage& st : p.stages)
                if (st.device == r) bytes += st.weightMemory + st.activationMemory;
            QVERIFY(bytes > 0);
            QVERIFY(close((costs()->stageWeightSet()->at(r) + costs()->stageActivationSet()->at(r)) * 1e9, bytes));
            QVERIFY(close(m->rankMemory(r), bytes));
        }
        QVERIFY(costs()->stageLimitLine());
        QCOMPARE(costs()->stageLimitLine()->at(0).x(), session()->cluster().memoryBytes * 1e-9);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        modelPath_ = tmp_.filePath(QStringLiteral("gpt.onnx"));
        const Status s = writeZooModel("gpt", testing::smallGptOptions(), modelPath_.toStdString());
        QVERIFY2(s.ok(), s.error.c_str());
    }

    void init()
    {
        window_ = std::make_unique<MainWindow>();
        QVERIFY(testing::showExposed(*window_, {1366, 768}));
        QVERIFY(testing::openAndWait(*window_, modelPath_, kLoadTimeoutMs));
        QVERIFY(session()->graph());
    }

    void cleanup()
    {
        if (window_) window_->planActions()->project()->detach();
        window_.reset();
    }

    // The dialog asked for 2 stages: TAPAS plans them (dp plans none), and the docks show the
    // stages and the bubble the search reported, bit for bit.
    void two_stages_from_the_search_dialog_show_in_the_plan_and_costs_docks()
    {
        search(2);
        if (QTest::currentTestFailed()) return;
        const SearchResult& r = tapasResult();
        QCOMPARE(r.searcher, std::string("tapas"));
        QCOMPARE(r.best.plan.mesh, (DeviceMesh{2, 2, 2}));
        QCOMPARE(int(r.best.plan.pipeline.stages.size()), 2);
        QCOMPARE(r.best.plan.pipeline.microBatchSize, 1);
        QVERIFY(r.best.report.pipelined);
        // The plan under edit is the search's, re-costed over its own stages: the same figures.
        const PlanEditor* e = session()->editor();
        QVERIFY(e);
        QVERIFY(e->report().pipelined);
        QVERIFY(close(e->report().total.time(), r.best.report.total.time()));
        QVERIFY(close(e->report().total.bubble, r.best.report.total.bubble));
        QVERIFY(close(e->report().total.memory(), r.best.report.total.memory()));
        QCOMPARE(e->plan().pipeline.bubbleFraction, r.best.plan.pipeline.bubbleFraction);
        checkDocksShowStages(r.best.plan, r.best.report);
        // The search dialog's results say which plan has stages.
        QStandardItemModel* results = actions()->searchDialog()->resultsModel();
        QVERIFY(results->item(0, 6)->text().startsWith(QStringLiteral("pp 2")));
    }

    // An override of every MLP weight re-costs the stages: the docks follow the edited report.
    void an_edit_re_costs_the_stages()
    {
        search(2);
        if (QTest::currentTestFailed()) return;
        PlanEditor* e = session()->editor();
        QVERIFY(e);
        const Graph& g = *session()->graph();
        NodeId mlp = kNoNode;
        for (NodeId n = 0; n < NodeId(g.nodes.size()) && mlp == kNoNode; ++n)
            if (g.node(n).opType == "MatMul" && g.node(n).scope.find("/mlp") != std::string::npos) mlp = n;
        QVERIFY(mlp != kNoNode);
        const double before = e->report().total.time();
        bool changed = false;
        for (const OpStrategy& s : e->allowedStrategies(mlp))
            if (s.name != e->plan().nodes[size_t(mlp)].name && session()->setStrategy(mlp, QString::fromStdString(s.name), true).isEmpty()) {
                changed = true;
                break;
            }
        QVERIFY(changed);
        QVERIFY(e->report().pipelined);
        QVERIFY(e->report().total.time() != before);
        checkDocksShowStages(e->plan(), e->report());
    }

    // A version-2 plan file with stages opens with them: same stages, same bubble.
    void a_saved_plan_file_with_stages_reopens_with_them()
    {
        search(2);
        if (QTest::currentTestFailed()) return;
        const SearchResult r = tapasResult();
        const QString path = tmp_.filePath(QStringLiteral("staged.tapas.json"));
        QVERIFY(savePlanFile(path.toStdString(), savePlanJson(*session()->graph(), session()->folded().get(), r.best.plan,
                                                             session()->cluster(), r.best.report, {"tapas", "test", 0}))
                    .ok());
        cleanup();
        init();
        QVERIFY(!session()->hasPlan());
        QCOMPARE(actions()->openPlanFile(path), QString());
        QVERIFY(session()->hasPlan());
        const PlanEditor* e = session()->editor();
        QCOMPARE(e->plan().mesh.pp, 2);
        QCOMPARE(e->plan().pipeline.bubbleFraction, r.best.plan.pipeline.bubbleFraction);
        QVERIFY(close(e->report().total.time(), r.best.report.total.time()));
        checkDocksShowStages(e->plan(), e->report());
    }

    // Without stages the docks stay as they were: no stage table, no bubble, no Stages page.
    void a_plan_without_stages_leaves_the_docks_as_before()
    {
        search(1);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(tapasResult().best.plan.mesh.pp, 1);
        QVERIFY(!panel()->stagesTable()->isVisibleTo(panel()));
        QCOMPARE(panel()->stagesModel()->rowCount(), 0);
        QVERIFY(!costs()->bubbleSet());
        QVERIFY(!costs()->ppCommSet());
        QVERIFY(!costs()->pages()->isTabVisible(3));
        QVERIFY(!costs()->headline().contains(QStringLiteral("bubble")));
    }
};

QTEST_MAIN(TstPlanStages)
#include "tst_plan_stages.moc"
