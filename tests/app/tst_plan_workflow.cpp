// The plan-review path in the real main window, on a zoo GPT: search from the Search dialog
// (preset a100x8; tapas, megatron and dp), the results listed, an MLP weight's sharding changed
// for every instance and the Costs dock following it, undo and redo, the project saved and
// reopened in a fresh window with the plan and the override back, every export format that can
// be written written and the refusals listed beside them, the unsaved-changes prompt, the cluster
// editor refusing bad values with the field named, the legend beside (not over) the graph, the
// Costs charts readable at their default size, the run form filled from the plan, and the
// dialogs following the open model. Each case starts from a fresh window with the model loaded
// and builds what it needs (a search, an override) itself, so any case runs alone.
#include "app/studio/costs_dock.h"
#include "app/studio/export_dialog.h"
#include "app/studio/language_manager.h"
#include "app/studio/main_window.h"
#include "app/studio/model_document.h"
#include "app/studio/plan_actions.h"
#include "app/studio/plan_session.h"
#include "app/studio/project_document.h"
#include "app/studio/recent_files.h"
#include "app/studio/plan_docks.h"
#include "app/studio/search_dialog.h"
#include "app/studio/train_plan_action.h"
#include "core/plan/plan_file.h"
#include "views/graph/graph_panel.h"
#include "views/graph/sharding_overlay.h"
#include "views/runs/launch_form.h"
#include "views/runs/runs_panel.h"
#include "core/plan/plan_exporter.h"
#include "core/zoo/zoo.h"
#include "tests/app/studio_suite.h"
#include "views/cluster_editor.h"
#include "views/costs/costs_view.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QFileDialog>
#include <QGraphicsItem>
#include <QValueAxis>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace tapas;

namespace {

constexpr int kLoadTimeoutMs = 120000;
constexpr int kSearchTimeoutMs = 120000;
constexpr int kLayers = 4;

// Answers the next visible QMessageBox with `button`; records its object name.
class BoxAnswer : public QObject {
public:
    QString seen;
    BoxAnswer(QMessageBox::StandardButton button, QObject* parent) : QObject(parent), button_(button)
    {
        connect(&timer_, &QTimer::timeout, this, [this] {
            for (QWidget* w : QApplication::topLevelWidgets()) {
                auto* box = qobject_cast<QMessageBox*>(w);
                if (box && box->isVisible() && seen.isEmpty()) {
                    seen = box->objectName();
                    box->button(button_)->click();
                    timer_.stop();
                }
            }
        });
        timer_.start(20);
    }

private:
    QMessageBox::StandardButton button_;
    QTimer timer_;
};

// The current plan's bars in the Costs dock (index 0: the plan under edit leads).
struct Bars {
    double compute, tp, dp, weights, activations;
    bool operator==(const Bars& o) const
    {
        return compute == o.compute && tp == o.tp && dp == o.dp && weights == o.weights && activations == o.activations;
    }
};

Bars currentBars(const CostsView* v)
{
    return {v->computeSet()->at(0), v->tpCommSet()->at(0), v->dpCommSet()->at(0), v->weightMemorySet()->at(0),
            v->activationMemorySet()->at(0)};
}

} // namespace

class TstPlanWorkflow : public QObject {
    Q_OBJECT
private:
    testing::SuiteSettings settings_{"tst_plan_workflow"};
    QTemporaryDir tmp_;
    QString modelPath_;
    std::unique_ptr<MainWindow> window_;

    PlanSession* session() const { return window_->planSession(); }
    PlanActions* actions() const { return window_->planActions(); }

    static bool load(MainWindow* w, const QString& path) { return testing::openAndWait(*w, path, kLoadTimeoutMs); }

    // Ticks tapas, megatron and dp in the Search dialog, and nothing else.
    static void checkThreeSearchers(SearchDialog* d)
    {
        for (const auto& s : searchers()) {
            const QString name = QString::fromStdString(s->name());
            d->searcherBox(name)->setChecked(name == QLatin1String("tapas") || name == QLatin1String("megatron") ||
                                             name == QLatin1String("dp"));
        }
    }

    // Runs tapas, megatron and dp from the Search dialog on the a100x8 preset, letting the
    // search pick the mesh, and waits for their three results.
    void searchThree()
    {
        actions()->searchAction()->trigger();
        SearchDialog* d = actions()->searchDialog();
        QVERIFY(d->isVisible());
        QVERIFY(d->clusterEditor()->selectPreset(QStringLiteral("a100x8")));
        d->meshCombo()->setCurrentIndex(0); // "let the search pick"
        checkThreeSearchers(d);
        QSignalSpy finished(d, &SearchDialog::searchFinished);
        QTest::mouseClick(d->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(kSearchTimeoutMs));
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY2(session()->results().size() == 3, qPrintable(d->statusLabel()->text()));
    }

    // The first MLP MatMul that reads a weight (mlp/c_fc in layer 0).
    NodeId mlpNode() const
    {
        const Graph& g = *session()->graph();
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n) {
            const Node& node = g.node(n);
            if (node.opType == "MatMul" && node.scope.find("/mlp") != std::string::npos) return n;
        }
        return kNoNode;
    }

    // Gives the MLP weight another strategy for every instance of its block class.
    void overrideMlp()
    {
        PlanEditor* editor = session()->editor();
        QVERIFY(editor);
        const NodeId mlp = mlpNode();
        QVERIFY(mlp != kNoNode);
        QCOMPARE(int(editor->classPeers(mlp).size()), kLayers);
        const std::string currentStrategy = editor->plan().nodes[size_t(mlp)].name;
        QString refusal;
        bool changed = false;
        for (const OpStrategy& s : editor->allowedStrategies(mlp)) {
            if (s.name == currentStrategy) continue;
            refusal = session()->setStrategy(mlp, QString::fromStdString(s.name), true);
            if (refusal.isEmpty()) {
                changed = true;
                break;
            }
        }
        QVERIFY2(changed, qPrintable(refusal));
        QCOMPARE(int(editor->overrides().size()), kLayers);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(tmp_.isValid());
        modelPath_ = tmp_.filePath(QStringLiteral("gpt.onnx"));
        ZooOptions o;
        o.layers = kLayers;
        o.hidden = 256;
        o.heads = 8;
        o.ffn = 1024;
        o.vocab = 1024;
        o.seq = 128;
        o.batch = 8;
        const Status s = writeZooModel("gpt", o, modelPath_.toStdString());
        QVERIFY2(s.ok(), s.error.c_str());
    }

    // Before each case: a fresh window with the model loaded and no plan.
    void init()
    {
        window_ = std::make_unique<MainWindow>();
        QVERIFY(testing::showExposed(*window_, {1366, 768})); // a first launch on a laptop screen: the docks' default sizes
        QVERIFY(load(window_.get(), modelPath_));
        QVERIFY(session()->graph());
        QVERIFY(!session()->hasPlan());
    }

    void cleanup()
    {
        if (window_) window_->planActions()->project()->detach(); // no unsaved-changes prompt
        window_.reset();
    }

    void search_dialog_runs_three_searchers_in_the_background_and_lists_their_plans()
    {
        QVERIFY(!actions()->exportAction()->isEnabled());
        QVERIFY(actions()->searchAction()->isEnabled());
        actions()->searchAction()->trigger();
        SearchDialog* d = actions()->searchDialog();
        QVERIFY(d->isVisible());
        QVERIFY(d->clusterEditor()->selectPreset(QStringLiteral("a100x8")));
        QCOMPARE(d->meshCombo()->currentIndex(), 0); // "let the search pick"
        QVERIFY(d->meshCombo()->count() > 1);        // and the preset's meshes
        checkThreeSearchers(d);
        QSignalSpy finished(d, &SearchDialog::searchFinished);
        QTest::mouseClick(d->runButton(), Qt::LeftButton);
        QVERIFY(d->isRunning());
        QVERIFY(!d->runButton()->isEnabled());
        QVERIFY(d->cancelButton()->isEnabled());
        QVERIFY(finished.wait(kSearchTimeoutMs));
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY2(d->resultsModel()->rowCount() == 3, qPrintable(d->statusLabel()->text()));
        QStringList names;
        for (int r = 0; r < 3; ++r) names << d->resultsModel()->item(r, 0)->text();
        QCOMPARE(names, (QStringList{QStringLiteral("tapas"), QStringLiteral("megatron"), QStringLiteral("dp")}));
        for (int r = 0; r < 3; ++r) QVERIFY(d->resultsModel()->item(r, 2)->text().toDouble() > 0); // step time
        QCOMPARE(session()->results().size(), size_t(3));
        QVERIFY(session()->hasPlan());
        QCOMPARE(session()->results()[size_t(session()->currentResult())].searcher, std::string("tapas"));
        QVERIFY(actions()->exportAction()->isEnabled());
        QVERIFY(actions()->project()->isModified()); // new results are unsaved work
        // The Costs dock compares all three, the plan under edit first, with the device limit.
        const CostsView* costs = actions()->costsDock()->view();
        QCOMPARE(costs->computeSet()->count(), 3);
        QVERIFY(costs->computeSet()->at(0) > 0);
        QVERIFY(costs->memoryLimitLine());
        QCOMPARE(costs->memoryLimitLine()->at(0).x(), session()->cluster().memoryBytes * 1e-9);
        QCOMPARE(costs->blockComputeSet()->count(), int(session()->folded()->chain.size()));
        QVERIFY(costs->headline().contains(QLatin1String("tapas")));
    }

    void choosing_a_result_row_makes_that_plan_current()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        const Bars searched = currentBars(actions()->costsDock()->view());
        SearchDialog* d = actions()->searchDialog();
        QSignalSpy results(session(), &PlanSession::resultsChanged);
        d->resultsTable()->selectRow(1);
        QVERIFY(results.wait(5000));
        QCOMPARE(session()->currentResult(), 1);
        QCOMPARE(session()->results()[1].searcher, std::string("megatron"));
        QVERIFY(actions()->costsDock()->view()->headline().contains(QLatin1String("megatron")));
        d->resultsTable()->selectRow(0);
        QVERIFY(results.wait(5000));
        QCOMPARE(session()->currentResult(), 0);
        QCOMPARE(currentBars(actions()->costsDock()->view()), searched);
        d->close();
    }

    void search_can_be_cancelled_and_keeps_the_previous_plans()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        SearchDialog* d = actions()->searchDialog();
        d->searcherBox(QStringLiteral("megatron"))->setChecked(false);
        d->searcherBox(QStringLiteral("dp"))->setChecked(false);
        QSignalSpy finished(d, &SearchDialog::searchFinished);
        d->run();
        d->cancel();
        QVERIFY(finished.wait(kSearchTimeoutMs));
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY2(d->statusLabel()->text().contains(QLatin1String("cancelled")), qPrintable(d->statusLabel()->text()));
        QCOMPARE(session()->results().size(), size_t(3));
        QVERIFY(!d->isRunning());
        QVERIFY(d->runButton()->isEnabled());
    }

    void overriding_an_mlp_weight_for_every_instance_changes_the_costs_dock()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        const CostsView* costs = actions()->costsDock()->view();
        const Bars searched = currentBars(costs);
        QVERIFY(!costs->headline().contains(QLatin1String("edited")));
        overrideMlp();
        if (QTest::currentTestFailed()) return;
        QVERIFY2(!(currentBars(costs) == searched), "the Costs dock did not follow the override");
        QCOMPARE(costs->data().plans.front().total.time(), session()->editor()->report().total.time());
        QVERIFY(costs->headline().contains(QLatin1String("edited")));
        QVERIFY(actions()->project()->isModified());
    }

    void undo_and_redo_move_the_costs_dock_back_and_forth()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        const CostsView* costs = actions()->costsDock()->view();
        const Bars searched = currentBars(costs);
        overrideMlp();
        if (QTest::currentTestFailed()) return;
        const Bars edited = currentBars(costs);
        QUndoStack* undo = session()->undoStack();
        QVERIFY(undo->canUndo());
        undo->undo();
        QCOMPARE(currentBars(costs), searched);
        QVERIFY(session()->editor()->overrides().empty());
        undo->redo();
        QCOMPARE(currentBars(costs), edited);
        QCOMPARE(int(session()->editor()->overrides().size()), kLayers);
    }

    void unsaved_changes_prompt_can_cancel_or_discard()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        QVERIFY(actions()->project()->isModified());
        {
            BoxAnswer answer(QMessageBox::Cancel, this);
            QVERIFY(!actions()->maybeSave());
            QCOMPARE(answer.seen, QStringLiteral("unsavedChangesBox"));
        }
        {
            // Closing the window asks too; Cancel keeps it open.
            BoxAnswer answer(QMessageBox::Cancel, this);
            window_->close();
            QCOMPARE(answer.seen, QStringLiteral("unsavedChangesBox"));
            QVERIFY(window_->isVisible());
        }
        {
            BoxAnswer answer(QMessageBox::Discard, this);
            QVERIFY(actions()->maybeSave());
            QCOMPARE(answer.seen, QStringLiteral("unsavedChangesBox"));
        }
        QVERIFY(actions()->project()->isModified()); // Discard only lets the caller go on
    }

    void saved_project_reopens_with_its_plans_and_override_in_a_fresh_window()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        overrideMlp();
        if (QTest::currentTestFailed()) return;
        const Bars edited = currentBars(actions()->costsDock()->view());
        const QString path = tmp_.filePath(QStringLiteral("gpt.tapasproj"));
        QCOMPARE(actions()->saveProjectTo(path), QString());
        QVERIFY(QFile::exists(path));
        QVERIFY(!actions()->project()->isModified());
        QVERIFY(actions()->maybeSave()); // nothing to ask now
        const double time = session()->editor()->report().total.time();
        const double memory = session()->editor()->report().total.memory();
        const std::vector<StrategyOverride> overrides = session()->editor()->overrides();

        MainWindow fresh;
        fresh.show();
        QSignalSpy opened(fresh.planActions()->project(), &ProjectDocument::opened);
        QCOMPARE(fresh.planActions()->openProjectFile(path), QString());
        QVERIFY(opened.wait(kLoadTimeoutMs));
        PlanSession* s = fresh.planSession();
        QCOMPARE(fresh.document()->path(), QFileInfo(modelPath_).absoluteFilePath());
        QCOMPARE(s->results().size(), size_t(3));
        QCOMPARE(s->results()[size_t(s->currentResult())].searcher, std::string("tapas"));
        QVERIFY(s->editor());
        QCOMPARE(s->editor()->overrides().size(), overrides.size());
        for (const StrategyOverride& o : overrides) {
            QVERIFY(s->editor()->isOverridden(o.node));
            QCOMPARE(s->editor()->plan().nodes[size_t(o.node)].name, o.strategy);
        }
        // Re-applied on the searcher's plan rather than replayed edit by edit: the same plan, so
        // the same costs up to the order of the floating-point sums.
        QVERIFY(std::abs(s->editor()->report().total.time() - time) <= 1e-9 * time);
        QVERIFY(std::abs(s->editor()->report().total.memory() - memory) <= 1e-9 * memory);
        const Bars reopened = currentBars(fresh.planActions()->costsDock()->view());
        QVERIFY(std::abs(reopened.compute - edited.compute) <= 1e-9 * edited.compute);
        QVERIFY(std::abs(reopened.weights - edited.weights) <= 1e-9 * edited.weights);
        QVERIFY(fresh.planActions()->costsDock()->view()->headline().contains(QLatin1String("edited")));
        QVERIFY(!fresh.planActions()->project()->isModified());
        QCOMPARE(fresh.planActions()->project()->path(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(fresh.planActions()->recentProjects()->files().value(0), QFileInfo(path).absoluteFilePath());
    }

    void a_bad_project_file_is_refused_naming_the_field()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        const QString path = tmp_.filePath(QStringLiteral("bad.tapasproj"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "tapas-project", "version": 1, "model": {"path": "gpt.onnx"},
                    "cluster": {"name": "x"}, "mesh": "1x8"})");
        f.close();
        QVERIFY(!parseProjectFile(QByteArray("[1, 2]"), QStringLiteral("bad.tapasproj"), tmp_.path()).ok());
        QFile in(path);
        QVERIFY(in.open(QIODevice::ReadOnly));
        Result<ProjectFile> r = parseProjectFile(in.readAll(), QStringLiteral("bad.tapasproj"), tmp_.path());
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error()).contains(QLatin1String("nodes")), r.error().c_str());
        QVERIFY2(QString::fromStdString(r.error()).contains(QLatin1String("bad.tapasproj")), r.error().c_str());
        // Through the window: an error box, and the plans under edit stay.
        BoxAnswer answer(QMessageBox::Ok, this);
        QVERIFY(!actions()->openProjectFile(path).isEmpty());
        QTRY_COMPARE(answer.seen, QStringLiteral("planErrorBox"));
        QCOMPARE(session()->results().size(), size_t(3));
    }

    void a_plan_file_of_another_model_is_refused()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        // A plan of a 2-layer GPT does not fit this 4-layer one.
        Result<Graph> other =
            zooGraph("gpt", {.layers = 2, .hidden = 256, .heads = 8, .ffn = 1024, .vocab = 1024, .seq = 128, .batch = 8});
        QVERIFY(other.ok());
        SearchRequest req;
        req.graph = &*other;
        req.cluster = session()->cluster();
        req.mesh = DeviceMesh{1, 8};
        Result<SearchResult> r = findSearcher("megatron")->search(req);
        QVERIFY2(r.ok(), r.error().c_str());
        const QString path = tmp_.filePath(QStringLiteral("other.tapas.json"));
        QVERIFY(savePlanFile(path.toStdString(), savePlanJson(*other, nullptr, r->best.plan, req.cluster, r->best.report,
                                                             {"megatron", "test", 0}))
                    .ok());
        BoxAnswer answer(QMessageBox::Ok, this);
        const QString error = actions()->openPlanFile(path);
        QVERIFY2(!error.isEmpty(), "a plan of another model was accepted");
        QTRY_COMPARE(answer.seen, QStringLiteral("planErrorBox"));
        QCOMPARE(session()->results().size(), size_t(3));
    }

    void export_writes_what_it_can_and_lists_refusals()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        overrideMlp();
        if (QTest::currentTestFailed()) return;
        actions()->searchDialog()->close();
        actions()->exportAction()->trigger();
        ExportDialog* d = actions()->exportDialog();
        QVERIFY(d->isVisible());
        QCOMPARE(d->formatList()->count(), int(planExporters().size()));
        QStringList all;
        for (const auto& e : planExporters()) all << QString::fromStdString(e->name());
        d->setFormats(all);
        QCOMPARE(d->formats(), all);
        // The folder starts beside the model.
        QCOMPARE(QFileInfo(d->outputEdit()->text()).absolutePath(), QFileInfo(modelPath_).absolutePath());
        const ExportInput in{session()->graph().get(), session()->folded().get(), &session()->editor()->plan(),
                             &session()->cluster(), &session()->editor()->report(), {}};

        // A host name with shell metacharacters: the formats that write hosts refuse, naming it;
        // the others are written, and no written file holds the name.
        const QString badDir = tmp_.filePath(QStringLiteral("export-bad"));
        d->setOutputDir(badDir);
        d->hostsEdit()->setText(QStringLiteral("node01, x;rm -rf /"));
        const QString error = d->exportNow();
        QVERIFY2(error.contains(QLatin1String("x;rm -rf /")), qPrintable(error));
        QCOMPARE(d->statusLabel()->text(), error);
        QCOMPARE(d->hostsEdit()->text(), QStringLiteral("node01, x;rm -rf /")); // the input is kept
        QStringList refusedNames;
        for (int i = 0; i < d->refusedList()->count(); ++i)
            refusedNames << d->refusedList()->item(i)->text().section(QLatin1Char(':'), 0, 0);
        QVERIFY2(refusedNames.contains(QStringLiteral("mpirun")) && refusedNames.contains(QStringLiteral("slurm")),
                 qPrintable(refusedNames.join(QLatin1Char(','))));
        QVERIFY2(!refusedNames.contains(QStringLiteral("plan")), qPrintable(refusedNames.join(QLatin1Char(','))));
        QVERIFY(!d->writtenFiles().isEmpty());
        QVERIFY(QFile::exists(QDir(badDir).filePath(QStringLiteral("plan.tapas.json"))));
        for (const QString& f : d->writtenFiles()) {
            QFile file(f);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY2(!file.readAll().contains("x;rm -rf /"), qPrintable(f));
        }

        // The edited TAPAS plan is not Megatron's recipe: that format is listed as refused with
        // its reason, and every other format is written in the same pass.
        const QString dir = tmp_.filePath(QStringLiteral("export"));
        d->setOutputDir(dir);
        d->hostsEdit()->setText(QStringLiteral("gpu-a.example.org"));
        const QString megatronError = d->exportNow();
        QVERIFY2(megatronError.contains(QLatin1String("megatron")), qPrintable(megatronError));
        QCOMPARE(d->refusedList()->count(), 1);
        QVERIFY(d->refusedList()->item(0)->text().startsWith(QLatin1String("megatron: ")));
        QVERIFY(d->writtenFiles().size() >= all.size() - 1);
        QCOMPARE(d->writtenList()->count(), int(d->writtenFiles().size()));
        for (const QString& f : d->writtenFiles()) {
            QVERIFY2(QFileInfo(f).isFile(), qPrintable(f));
            QVERIFY2(QFileInfo(f).size() > 0, qPrintable(f));
        }
        // Each format but Megatron contributed its files.
        for (const auto& e : planExporters()) {
            if (e->name() == "megatron") continue;
            Result<ExportFiles> files = e->write(in, ExportOptions{});
            QVERIFY2(files.ok(), files.error().c_str());
            for (const auto& [name, content] : *files)
                QVERIFY2(QFile::exists(QDir(dir).filePath(QString::fromStdString(name))), name.c_str());
        }
        // Without Megatron nothing is refused.
        all.removeAll(QStringLiteral("megatron"));
        d->setFormats(all);
        QCOMPARE(d->exportNow(), QString());
        QCOMPARE(d->refusedList()->count(), 0);
        // The Megatron baseline's own plan is expressible: its arguments are written.
        session()->selectResult(1);
        QCOMPARE(session()->results()[1].searcher, std::string("megatron"));
        d->setFormats({QStringLiteral("megatron")});
        const QString megatronDir = tmp_.filePath(QStringLiteral("export-megatron"));
        d->setOutputDir(megatronDir);
        QCOMPARE(d->exportNow(), QString());
        QVERIFY(!d->writtenFiles().isEmpty());
        for (const QString& f : d->writtenFiles()) QVERIFY2(QFileInfo(f).size() > 0, qPrintable(f));
        session()->selectResult(0);
        d->close();
    }

    void sharding_legend_sits_outside_the_graph()
    {
        searchThree(); // each case starts from a fresh window: make the plan it looks at
        if (QTest::currentTestFailed()) return;
        QLabel* legend = window_->planDocks()->overlay()->legend();
        QTRY_VERIFY(legend->isVisible());
        const GraphView* view = window_->graphPanel()->view();
        const QRect legendRect(legend->mapTo(window_.get(), QPoint(0, 0)), legend->size());
        const QRect viewRect(view->mapTo(window_.get(), QPoint(0, 0)), view->size());
        QVERIFY2(!legendRect.intersects(viewRect), "the legend covers part of the graph");
        QVERIFY(view->height() > 200);
    }

    void costs_axis_labels_fit()
    {
        searchThree(); // each case starts from a fresh window: make the plan it looks at
        if (QTest::currentTestFailed()) return;
        // The dock as a search leaves it, at its default size in a 1366x768 window.
        CostsDock* dock = actions()->costsDock();
        QVERIFY(dock->isVisible());
        QTest::qWait(100);
        const CostsView* costs = dock->view();
        for (QChartView* v : {costs->timeChart(), costs->memoryChart(), costs->blockChart()}) {
            // One chart a page: look at each as the user would.
            costs->pages()->setCurrentWidget(v);
            QTRY_VERIFY(v->isVisible());
            QTest::qWait(50);
            QVERIFY2(v->height() >= 150, qPrintable(QStringLiteral("%1 is %2 px tall").arg(v->objectName()).arg(v->height())));
            int labels = 0;
            for (QGraphicsItem* item : v->scene()->items()) {
                QString text;
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) text = t->toPlainText();
                else if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item)) text = t->text();
                else continue;
                if (!item->isVisible() || text.isEmpty()) continue;
                ++labels;
                // Qt Charts elides what does not fit with "..." (and a vertical title to "⋮").
                QVERIFY2(!text.contains(QLatin1String("...")) && !text.contains(QChar(0x2026)),
                         qPrintable(v->objectName() + QStringLiteral(": ") + text));
            }
            QVERIFY2(labels >= 5, qPrintable(v->objectName()));
        }
        costs->pages()->setCurrentIndex(0);
        // Units on the value axis's labels, and the plans' names whole on the category axis.
        const auto* time = qobject_cast<QValueAxis*>(costs->timeChart()->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(time);
        QVERIFY2(time->labelFormat().endsWith(QLatin1String(" ms")), qPrintable(time->labelFormat()));
        auto* plans = qobject_cast<QBarCategoryAxis*>(costs->timeChart()->chart()->axes(Qt::Vertical).value(0));
        QVERIFY(plans);
        QVERIFY(plans->categories().first().startsWith(QLatin1String("tapas")));
        // Qt Charts formats tick labels from Latin-1: in Chinese too the unit must survive ("0 ??").
        QVERIFY(window_->languageManager()->setLanguage(QStringLiteral("zh_CN")));
        for (QChartView* v : {costs->timeChart(), costs->memoryChart(), costs->blockChart()})
            for (QAbstractAxis* a : v->chart()->axes())
                if (auto* value = qobject_cast<QValueAxis*>(a); value && value->isVisible())
                    QVERIFY2(QString::fromLatin1(value->labelFormat().toLatin1()) == value->labelFormat(),
                             qPrintable(value->labelFormat()));
        QVERIFY(window_->languageManager()->setLanguage(QStringLiteral("en")));
    }

    void run_form_prefilled_from_open_plan()
    {
        searchThree(); // each case starts from a fresh window: make the plan it looks at
        if (QTest::currentTestFailed()) return;
        TrainPlanAction* train = actions()->trainPlan();
        train->setDataDir(tmp_.filePath(QStringLiteral("appdata")));
        QVERIFY(train->action()->isEnabled());
        train->action()->trigger();
        RunsPanel* runs = window_->runsPanel();
        LaunchForm* form = runs->form();
        QTRY_VERIFY(window_->runsDock()->isVisible());
        QCOMPARE(form->kind(), LaunchForm::PlanTraining);
        QCOMPARE(form->modelEdit()->text(), modelPath_);
        QCOMPARE(form->ranksBox()->value(), session()->editor()->plan().mesh.size());
        const QString plan = form->planEdit()->text();
        QVERIFY2(QFile::exists(plan), qPrintable(plan));
        // The plan written is the one under edit, for this model.
        Result<PlanDocument> doc = loadPlanFile(plan.toStdString(), *session()->graph());
        QVERIFY2(doc.ok(), doc.error().c_str());
        QVERIFY(doc->plan.mesh == session()->editor()->plan().mesh);
        // The form is ready: it would start this run, and Start Run is on screen, not scrolled away.
        Result<protocol::RunSpec> spec = form->spec();
        QVERIFY2(spec.ok(), spec.error().c_str());
        QCOMPARE(QString::fromStdString(spec->planPath), QFileInfo(plan).absoluteFilePath());
        QPushButton* start = form->startButton();
        QTRY_VERIFY(start->isVisible());
        QCOMPARE(start->visibleRegion().boundingRect(), start->rect());
        QVERIFY(start->hasFocus() || QApplication::focusWidget() == start || start->isEnabled());
    }

    void search_dialog_reopens_on_the_cluster_its_results_came_from()
    {
        searchThree(); // each case starts from a fresh window: make the plan it looks at
        if (QTest::currentTestFailed()) return;
        SearchDialog* d = actions()->searchDialog();
        QVERIFY(d->clusterEditor()->selectPreset(QStringLiteral("h100x16")));
        d->close();
        actions()->searchAction()->trigger();
        QVERIFY(d->isVisible());
        Result<ClusterSpec> shown = d->clusterEditor()->cluster();
        QVERIFY2(shown.ok(), shown.error().c_str());
        QCOMPARE(shown->nodes, session()->cluster().nodes);
        QCOMPARE(shown->devicesPerNode, session()->cluster().devicesPerNode);
        QCOMPARE(shown->memoryBytes, session()->cluster().memoryBytes);
        d->close();
    }

    void project_save_dialog_starts_beside_the_model()
    {
        QString startDir;
        QTimer catcher;
        connect(&catcher, &QTimer::timeout, this, [&] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* fd = qobject_cast<QFileDialog*>(w); fd && fd->isVisible()) {
                    startDir = fd->directory().absolutePath();
                    fd->reject();
                }
        });
        catcher.start(20);
        actions()->saveProjectAsAction()->trigger();
        catcher.stop();
        QCOMPARE(startDir, QFileInfo(modelPath_).absolutePath());
    }

    void cluster_editor_refuses_bad_values_naming_the_field()
    {
        ClusterEditor editor;
        QVERIFY(editor.selectPreset(QStringLiteral("h100x16")));
        Result<ClusterSpec> good = editor.cluster();
        QVERIFY2(good.ok(), good.error().c_str());
        QCOMPARE(good->nodes, 2);
        // Device memory 0: refused by core's check, the field named and marked.
        static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("memory_bytes")))->setValue(0);
        QCOMPARE(editor.presetCombo()->currentIndex(), editor.presetCombo()->count() - 1); // now "Custom"
        Result<ClusterSpec> bad = editor.cluster();
        QVERIFY(!bad.ok());
        QVERIFY2(QString::fromStdString(bad.error()).contains(QLatin1String("memory_bytes")), bad.error().c_str());
        QVERIFY(!editor.errorLabel()->isHidden());
        QVERIFY(!editor.fieldWidget(QStringLiteral("memory_bytes"))->styleSheet().isEmpty());
        QVERIFY(editor.fieldWidget(QStringLiteral("nodes"))->styleSheet().isEmpty());
        // Efficiency above 1.
        static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("memory_bytes")))->setValue(80);
        static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("efficiency")))->setValue(1.5);
        bad = editor.cluster();
        QVERIFY(!bad.ok());
        QVERIFY2(QString::fromStdString(bad.error()).contains(QLatin1String("efficiency")), bad.error().c_str());
        static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("efficiency")))->setValue(0.5);
        QVERIFY(editor.cluster().ok());

        // Save As, change, Load: the saved values come back.
        const QString saved = tmp_.filePath(QStringLiteral("cluster.json"));
        QCOMPARE(editor.saveJsonFile(saved), QString());
        static_cast<QSpinBox*>(editor.fieldWidget(QStringLiteral("nodes")))->setValue(5);
        QCOMPARE(editor.loadJsonFile(saved), QString());
        QCOMPARE(editor.cluster()->nodes, 2);

        // Bad files: the error names file and field, the form keeps its values.
        const QString broken = tmp_.filePath(QStringLiteral("broken.json"));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"nodes": -1, "devices_per_node": 8})");
        f.close();
        const QString e = editor.loadJsonFile(broken);
        QVERIFY2(e.contains(QLatin1String("broken.json")) && e.contains(QLatin1String("'nodes'")), qPrintable(e));
        QCOMPARE(editor.errorLabel()->text(), e);
        QCOMPARE(editor.cluster()->nodes, 2);
        QFile g(broken);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("{ not json");
        g.close();
        QVERIFY(editor.loadJsonFile(broken).contains(QLatin1String("not valid JSON")));
        QVERIFY(!editor.loadJsonFile(tmp_.filePath(QStringLiteral("missing.json"))).isEmpty());
    }

    void cluster_editor_keeps_the_measurements_it_has_no_field_for()
    {
        // cpu-mpi carries op families measured by `tapas cluster calibrate`; the form has no field
        // for them, and a hand edit of the node count must not drop them (nor turn it into a GPU).
        Result<ClusterSpec> preset = loadClusterSpec("cpu-mpi");
        QVERIFY2(preset.ok(), preset.error().c_str());
        QVERIFY(!preset->opFamilies.empty());
        ClusterEditor editor;
        editor.show(); // the user clicks a button below
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QVERIFY(editor.selectPreset(QStringLiteral("cpu-mpi")));
        Result<ClusterSpec> shown = editor.cluster();
        QVERIFY2(shown.ok(), shown.error().c_str());
        QCOMPARE(shown->opFamilies.size(), preset->opFamilies.size());
        QVERIFY(!shown->gpu);
        QCOMPARE(static_cast<QComboBox*>(editor.fieldWidget(QStringLiteral("accelerator")))->currentText(), QStringLiteral("CPU"));
        QVERIFY2(editor.measurementsLabel()->text().contains(QString::number(preset->opFamilies.size())),
                 qPrintable(editor.measurementsLabel()->text()));
        QVERIFY(editor.forgetMeasurementsButton()->isEnabled());

        static_cast<QSpinBox*>(editor.fieldWidget(QStringLiteral("nodes")))->setValue(3);
        Result<ClusterSpec> edited = editor.cluster();
        QVERIFY2(edited.ok(), edited.error().c_str());
        QCOMPARE(edited->nodes, 3);
        QCOMPARE(edited->name, std::string("cpu-mpi-custom"));
        QVERIFY(!edited->gpu);
        QCOMPARE(edited->opFamilies.size(), preset->opFamilies.size());
        for (const auto& [family, rate] : preset->opFamilies) {
            QVERIFY2(edited->opFamilies.count(family), family.c_str());
            QCOMPARE(edited->opFamilies.at(family).flopRate, rate.flopRate);
            QCOMPARE(edited->opFamilies.at(family).overhead, rate.overhead);
            QCOMPARE(edited->opFamilies.at(family).bySize.size(), rate.bySize.size());
        }

        // Save As writes them; the file reads back with them.
        const QString saved = tmp_.filePath(QStringLiteral("calibrated.json"));
        QCOMPARE(editor.saveJsonFile(saved), QString());
        Result<ClusterSpec> reread = loadClusterSpecFile(saved.toStdString());
        QVERIFY2(reread.ok(), reread.error().c_str());
        QCOMPARE(reread->opFamilies.size(), preset->opFamilies.size());
        QVERIFY(!reread->gpu);
        QCOMPARE(reread->nodes, 3);

        // Forgetting them is a choice the user makes with the button, and then they are gone.
        QTest::mouseClick(editor.forgetMeasurementsButton(), Qt::LeftButton);
        QVERIFY(editor.cluster()->opFamilies.empty());
        QVERIFY(!editor.forgetMeasurementsButton()->isEnabled());
        QVERIFY2(editor.measurementsLabel()->text().startsWith(QLatin1String("none")), qPrintable(editor.measurementsLabel()->text()));
        QCOMPARE(editor.presetCombo()->currentIndex(), editor.presetCombo()->count() - 1);
        // Loading the saved file brings them back.
        QCOMPARE(editor.loadJsonFile(saved), QString());
        QCOMPARE(editor.cluster()->opFamilies.size(), preset->opFamilies.size());
    }

    void cluster_editor_edits_the_roofline_and_the_accelerator()
    {
        ClusterEditor editor;
        QVERIFY(editor.selectPreset(QStringLiteral("h100x16")));
        auto* hbm = static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("roofline.memory_bandwidth")));
        auto* l2 = static_cast<QDoubleSpinBox*>(editor.fieldWidget(QStringLiteral("roofline.l2_bandwidth")));
        auto* sms = static_cast<QSpinBox*>(editor.fieldWidget(QStringLiteral("roofline.multiprocessors")));
        QVERIFY(hbm && l2 && sms);
        hbm->setValue(0);
        QVERIFY(!l2->isEnabled() && !sms->isEnabled()); // they only qualify a roofline
        QVERIFY(!editor.cluster()->roofline.enabled());
        hbm->setValue(3350);
        QVERIFY(l2->isEnabled() && sms->isEnabled());
        l2->setValue(12000);
        sms->setValue(132);
        Result<ClusterSpec> c = editor.cluster();
        QVERIFY2(c.ok(), c.error().c_str());
        QCOMPARE(c->roofline.memoryBandwidth, 3350e9);
        QCOMPARE(c->roofline.l2Bandwidth, 12000e9);
        QCOMPARE(c->roofline.multiprocessors, 132);
        auto* accelerator = static_cast<QComboBox*>(editor.fieldWidget(QStringLiteral("accelerator")));
        QCOMPARE(accelerator->currentText(), QStringLiteral("GPU"));
        accelerator->setCurrentIndex(1);
        Q_EMIT accelerator->activated(1); // what a pick by the user sends
        QCOMPARE(editor.presetCombo()->currentIndex(), editor.presetCombo()->count() - 1);
        QVERIFY(!editor.cluster()->gpu);
        const QString saved = tmp_.filePath(QStringLiteral("roofline.json"));
        QCOMPARE(editor.saveJsonFile(saved), QString());
        Result<ClusterSpec> reread = loadClusterSpecFile(saved.toStdString());
        QVERIFY2(reread.ok(), reread.error().c_str());
        QCOMPARE(reread->roofline.memoryBandwidth, 3350e9);
        QCOMPARE(reread->roofline.multiprocessors, 132);
        QVERIFY(!reread->gpu);
        // Switching the roofline off drops its qualifiers from the file too.
        hbm->setValue(0);
        QCOMPARE(editor.saveJsonFile(saved), QString());
        reread = loadClusterSpecFile(saved.toStdString());
        QVERIFY(!reread->roofline.enabled());
        QCOMPARE(reread->roofline.multiprocessors, 0);
    }

    void search_dialog_refuses_an_invalid_cluster_without_searching()
    {
        SearchDialog* d = actions()->searchDialog();
        static_cast<QSpinBox*>(d->clusterEditor()->fieldWidget(QStringLiteral("devices_per_node")))->setValue(0);
        QCOMPARE(d->meshCombo()->count(), 1); // no mesh for an invalid cluster, only "let the search pick"
        QSignalSpy finished(d, &SearchDialog::searchFinished);
        d->run();
        QVERIFY(!d->isRunning());
        QVERIFY2(d->statusLabel()->text().contains(QLatin1String("devices_per_node")), qPrintable(d->statusLabel()->text()));
        QCOMPARE(finished.count(), 0);
    }
    void export_dialog_follows_the_open_model()
    {
        searchThree();
        if (QTest::currentTestFailed()) return;
        actions()->searchDialog()->close();
        actions()->exportAction()->trigger();
        ExportDialog* d = actions()->exportDialog();
        d->setOutputDir(tmp_.filePath(QStringLiteral("follow-export")));
        d->exportNow(); // writes what it can; whether a format refuses this plan does not matter here
        d->close();
        QVERIFY(d->writtenList()->count() > 0); // from the export just made
        QTemporaryDir other;
        const QString otherModel = QDir(other.path()).filePath(QStringLiteral("other.onnx"));
        QVERIFY(QFile::copy(modelPath_, otherModel));
        actions()->project()->detach();
        QVERIFY(load(window_.get(), otherModel));
        d = actions()->exportDialog();
        QCOMPARE(QFileInfo(d->outputEdit()->text()).absolutePath(), QFileInfo(otherModel).absolutePath());
        QVERIFY(d->outputEdit()->text().contains(QLatin1String("other")));
        QCOMPARE(d->writtenList()->count(), 0);
        QCOMPARE(d->refusedList()->count(), 0);
        QVERIFY(d->statusLabel()->text().isEmpty());
    }
};

QTEST_MAIN(TstPlanWorkflow)
#include "tst_plan_workflow.moc"
