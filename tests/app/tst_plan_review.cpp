// Reviewing and adjusting a plan in the real main window, offscreen: a zoo GPT opens,
// a TAPAS plan arrives through PlanSession::setResults, selecting a Plan dock row selects and
// centres the node in the graph and the other way round, overriding one MLP weight for every
// instance through the override editor changes the report's cost and the node's colour in the
// graph, Undo restores both and Redo re-applies them, and an invalid choice is refused with its
// reason while nothing changes.
#include "tests/app/studio_suite.h"
#include "tests/common/zoo_plan.h"
#include "app/studio/main_window.h"
#include "app/studio/plan_docks.h"
#include "app/studio/plan_session.h"
#include "core/plan/plan_editor.h"
#include "views/graph/graph_panel.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/graph/edge_item.h"
#include "views/graph/node_item.h"
#include "views/graph/sharding_overlay.h"
#include "views/plan/override_dialog.h"
#include "views/plan/plan_filter_model.h"
#include "views/plan/plan_model.h"
#include "views/plan/plan_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace tapas;
using namespace tapas::testing;

namespace {

bool waitIdle(const GraphView* view, int ms = 60000)
{
    QElapsedTimer t;
    t.start();
    while (view->isBusy() && t.elapsed() < ms) QTest::qWait(10);
    return !view->isBusy();
}

// Equal up to the rounding an incremental re-cost (total - old + new) may leave.
bool nearlyEqual(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

} // namespace

class TstPlanReview : public QObject {
    Q_OBJECT
private:
    SuiteSettings settings_{"tst_plan_review"}; // first: outlives the window
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir tmp_;

    PlanSession* session() const { return window_->planSession(); }
    PlanPanel* panel() const { return window_->planDocks()->panel(); }
    GraphView* view() const { return window_->graphPanel()->view(); }
    NodeItem* nodeItem(NodeId n) const
    {
        QGraphicsItem* item = view()->graphScene()->itemForId(view()->presentation().itemOfNode(n));
        return item && item->type() == NodeItem::Type ? static_cast<NodeItem*>(item) : nullptr;
    }
    // Shows node n in the graph (expanding its block) and returns its box.
    NodeItem* showNode(NodeId n)
    {
        view()->focusNode(n);
        if (!waitIdle(view())) return nullptr;
        return nodeItem(n);
    }
    NodeId mlpUp() const { return findNode(*session()->graph(), "h.1/mlp", "MatMul"); }
    double totalTime() const { return session()->editor()->report().total.time(); }

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<GraphSelection>();
        QVERIFY(tmp_.isValid());
        const QString path = tmp_.filePath(QStringLiteral("gpt.onnx"));
        const Status s = writeZooModel("gpt", smallGptOptions(), path.toStdString());
        QVERIFY2(s.ok(), s.error.c_str());
        window_ = std::make_unique<MainWindow>();
        QVERIFY(showExposed(*window_, {1500, 950}));
        QVERIFY(openAndWait(*window_, path, 120000));
        QVERIFY(waitIdle(view()));
        QVERIFY(session()->graph());
        QCOMPARE(session()->graph()->nodes.size(), window_->graphPanel()->view()->graph()->nodes.size());

        const ClusterSpec cluster = *loadClusterSpec("a100x8");
        const DeviceMesh mesh = *parseMesh("2x4");
        std::vector<SearchResult> results;
        results.push_back(searchPlan(*session()->graph(), cluster, mesh, "dp"));
        results.push_back(searchPlan(*session()->graph(), cluster, mesh, "tapas"));
        session()->setResults(cluster, mesh, CostOptions{}, std::move(results));
        QVERIFY(session()->hasPlan());
        QCOMPARE(session()->currentResult(), 1); // the TAPAS plan is the one under edit
        QVERIFY(mlpUp() != kNoNode);
    }

    void cleanupTestCase()
    {
        window_.reset();
    }

    void plan_dock_lists_the_plan_and_the_graph_shows_its_overlay()
    {
        QDockWidget* dock = window_->planDocks()->planDock();
        QCOMPARE(dock->objectName(), QStringLiteral("planDock"));
        QVERIFY(panel()->model()->rowCount() > 0);
        QVERIFY(panel()->summaryLabel()->text().contains(QStringLiteral("2x4")));
        QVERIFY(window_->planDocks()->overlayAction()->isChecked());
        QVERIFY(window_->planDocks()->overlay()->legend()->isVisible());
        // Some edge of the folded picture carries a collective label (dp x tp plan).
        NodeItem* item = showNode(mlpUp());
        QVERIFY(item);
        QVERIFY(window_->planDocks()->overlay()->markedEdgeCount() > 0);
    }

    void selecting_a_row_selects_and_centres_the_node_in_the_graph()
    {
        const NodeId n = findNode(*session()->graph(), "h.2/attn", "Softmax");
        QVERIFY(n != kNoNode);
        const QModelIndex proxy = panel()->filter()->mapFromSource(panel()->model()->indexOfNode(n));
        QVERIFY(proxy.isValid());
        panel()->tree()->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                                       QItemSelectionModel::Rows);
        QCOMPARE(session()->selectedNode(), n);
        QVERIFY(waitIdle(view()));
        QTRY_VERIFY(nodeItem(n) && nodeItem(n)->isSelected());
        // Centred as far as the scene allows: at least in sight.
        QVERIFY2(view()->viewport()->rect().contains(view()->mapFromScene(nodeItem(n)->scenePos())),
                 "the selected node is scrolled into view");
    }

    void selecting_a_node_in_the_graph_selects_its_row()
    {
        const NodeId n = mlpUp();
        NodeItem* item = showNode(n);
        QVERIFY(item);
        view()->graphScene()->clearSelection();
        item->setSelected(true);
        QCOMPARE(session()->selectedNode(), n);
        QCOMPARE(panel()->model()->nodeAt(panel()->currentSourceIndex()), n);
    }

    void overriding_an_mlp_weight_for_every_instance_recosts_recolours_undoes_and_redoes()
    {
        const Graph& g = *session()->graph();
        const NodeId n = mlpUp();
        const int wi = weightInputOf(g, n);
        QVERIFY(wi >= 0);
        const std::vector<NodeId> peers = session()->editor()->classPeers(n);
        QCOMPARE(int(peers.size()), 4);
        NodeItem* item = showNode(n);
        QVERIFY(item);
        const QColor colourBefore = item->brush().color();
        const double timeBefore = totalTime();
        const std::string strategyBefore = session()->editor()->plan().nodes[size_t(n)].name;
        const int undoBefore = session()->undoStack()->count();

        // The weight's row (level 2: shared by the class's instances) opens the editor.
        // It follows its op's position row and names the first instance's weight.
        const QModelIndex position = panel()->model()->indexOfNode(n).parent();
        QCOMPARE(position.data(PlanModel::LevelRole).toInt(), 2);
        const QModelIndex weightRow = panel()->model()->index(position.row() + 1, 0, position.parent());
        QVERIFY(weightRow.isValid());
        const TensorId shown = weightRow.data(PlanModel::TensorRole).toInt();
        QVERIFY(shown != kNoTensor);
        QVERIFY(std::find(peers.begin(), peers.end(), NodeId(weightRow.data(PlanModel::NodeRole).toInt())) != peers.end());
        OverrideDialog* dialog = panel()->openOverrideEditor(weightRow);
        QVERIFY(dialog);
        QVERIFY(dialog->editsWeight());
        QVERIFY(dialog->wholeClass()); // a shared row offers the whole class first
        QVERIFY2(dialog->choiceCount() >= 2, "the rule allows more than one layout for an MLP weight");
        // Only layouts some allowed strategy stores the weight in are offered.
        for (const QString& choice : dialog->choices()) {
            bool allowed = false;
            for (const OpStrategy& s : session()->editor()->allowedStrategies(n))
                allowed |= QString::fromStdString(s.inputs[size_t(wi)].toString()) == choice;
            QVERIFY2(allowed, qPrintable(choice));
        }
        // The first choice is the current layout; take another one.
        dialog->setChoice(1);
        const TensorLayout chosen = dialog->layout();
        QVERIFY(chosen != session()->editor()->plan().nodes[size_t(n)].inputs[size_t(wi)]);
        dialog->accept();

        QCOMPARE(session()->undoStack()->count(), undoBefore + 1);
        for (NodeId p : peers) {
            QCOMPARE(session()->editor()->plan().nodes[size_t(p)].inputs[size_t(wi)], chosen);
            QVERIFY(session()->editor()->isOverridden(p));
        }
        const double timeAfter = totalTime();
        QVERIFY2(!nearlyEqual(timeAfter, timeBefore), "the report re-costs the edited plan");
        const QColor colourAfter = nodeItem(n)->brush().color();
        QVERIFY2(colourAfter != colourBefore, "the node's overlay colour follows its new strategy");
        QVERIFY(nodeItem(n)->isOverridden());
        QVERIFY(panel()->model()->indexOfNode(n).data(PlanModel::OverriddenRole).toBool());
        QVERIFY(window_->planDocks()->undoAction()->isEnabled());
        QVERIFY(window_->planDocks()->undoAction()->text().contains(QString::fromStdString(g.tensor(shown).name)));

        window_->planDocks()->undoAction()->trigger();
        QCOMPARE(session()->editor()->plan().nodes[size_t(n)].name, strategyBefore);
        QVERIFY(nearlyEqual(totalTime(), timeBefore));
        QCOMPARE(nodeItem(n)->brush().color(), colourBefore);
        QVERIFY(!session()->editor()->isOverridden(n));
        QVERIFY(!nodeItem(n)->isOverridden());

        window_->planDocks()->redoAction()->trigger();
        QCOMPARE(session()->editor()->plan().nodes[size_t(n)].inputs[size_t(wi)], chosen);
        QVERIFY(nearlyEqual(totalTime(), timeAfter));
        QCOMPARE(nodeItem(n)->brush().color(), colourAfter);
        QVERIFY(session()->isModified());
    }

    void an_invalid_choice_is_refused_with_its_reason_and_changes_nothing()
    {
        const NodeId n = mlpUp();
        const ShardingPlan before = session()->editor()->plan();
        const double timeBefore = totalTime();
        const int undoBefore = session()->undoStack()->count();
        QSignalSpy refused(window_->planDocks(), &PlanDocks::refused);
        Q_EMIT panel()->strategyRequested(n, QStringLiteral("no-such-strategy"), true);
        QCOMPARE(refused.count(), 1);
        const QString reason = refused.at(0).at(0).toString();
        QVERIFY2(reason.contains(QStringLiteral("no-such-strategy")), qPrintable(reason));
        QVERIFY(window_->statusBar()->currentMessage().contains(reason));
        auto* box = window_->findChild<QMessageBox*>(QStringLiteral("planRefusalBox"));
        QVERIFY(box);
        QCOMPARE(box->text(), reason);
        box->close();
        QCOMPARE(session()->undoStack()->count(), undoBefore);
        QCOMPARE(totalTime(), timeBefore);
        for (size_t i = 0; i < before.nodes.size(); ++i)
            QCOMPARE(session()->editor()->plan().nodes[i].name, before.nodes[i].name);
    }

    void the_view_action_switches_the_overlay_off_and_on()
    {
        const NodeId n = mlpUp();
        NodeItem* item = showNode(n);
        QVERIFY(item);
        const QColor overlay = item->brush().color();
        QAction* toggle = window_->planDocks()->overlayAction();
        toggle->trigger();
        QVERIFY(!toggle->isChecked());
        QCOMPARE(item->brush().color(), item->visual().fill);
        QVERIFY(!window_->planDocks()->overlay()->legend()->isVisible());
        QCOMPARE(window_->planDocks()->overlay()->markedEdgeCount(), 0);
        toggle->trigger();
        QCOMPARE(item->brush().color(), overlay);
    }

    // A plan that pads the word table (1,024 rows do not split over tp 3) is costed and edited on
    // the padded model, and the Plan dock's summary says what is padded. Runs last: it replaces
    // the session's plans.
    void a_padded_plan_is_edited_on_the_padded_model_and_its_padding_shown()
    {
        const Graph& g = *session()->graph();
        const std::vector<TablePadding> padding = tpTablePadding(g, 3); // the word and the position table
        const TensorId wte = g.findTensor("transformer.wte.weight");
        QVERIFY(std::find(padding.begin(), padding.end(), TablePadding{wte, 1024, 1026}) != padding.end());
        const Graph padded = paddedGraph(g, padding);
        ClusterSpec cluster = *loadClusterSpec("a100x8");
        cluster.devicesPerNode = 3; // the mesh's devices
        const DeviceMesh mesh{1, 3};
        SearchResult r = searchPlan(padded, cluster, mesh, "tapas");
        r.best.plan.padding = padding;
        QVERIFY(checkPlan(g, r.best.plan).ok());
        const double planned = r.best.report.total.time();
        std::vector<SearchResult> results;
        results.push_back(std::move(r));
        session()->setResults(cluster, mesh, CostOptions{}, std::move(results));
        QVERIFY(session()->hasPlan());
        // Re-costed on the padded model: the search's figure (the model as given would differ).
        const double edited = session()->editor()->report().total.time();
        QVERIFY2(std::abs(edited - planned) <= 1e-9 * planned, qPrintable(QStringLiteral("%1 vs %2").arg(edited).arg(planned)));
        auto* summary = panel()->findChild<QLabel*>(QStringLiteral("planSummary"));
        QVERIFY(summary);
        QVERIFY2(summary->text().contains(QStringLiteral("'transformer.wte.weight' padded from 1024 to 1026 rows")),
                 qPrintable(summary->text()));
    }
};

QTEST_MAIN(TstPlanReview)
#include "tst_plan_review.moc"
