#include "app/studio/plan_docks.h"

#include "app/studio/plan_session.h"
#include "views/graph/graph_panel.h"
#include "views/graph/graph_view.h"
#include "views/graph/sharding_overlay.h"
#include "views/plan/plan_panel.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QUndoStack>

namespace tapas {

PlanDocks::PlanDocks(QMainWindow* window, PlanSession* session, GraphPanel* graph, QMenu* editMenu, QMenu* viewMenu)
    : QObject(window), window_(window), session_(session), graph_(graph->view()), panel_(new PlanPanel(window)),
      dock_(new QDockWidget(window)), overlay_(new ShardingOverlay(graph->view())), overlayAction_(new QAction(this))
{
    graph->addStrip(overlay_->legend());
    panel_->setObjectName(QStringLiteral("planPanel"));
    dock_->setObjectName(QStringLiteral("planDock")); // saveState/restoreState key
    dock_->setWidget(panel_);
    dock_->setAllowedAreas(Qt::AllDockWidgetAreas);
    window->addDockWidget(Qt::BottomDockWidgetArea, dock_);
    viewMenu->addAction(dock_->toggleViewAction());

    overlayAction_->setObjectName(QStringLiteral("showShardingAction"));
    overlayAction_->setCheckable(true);
    overlayAction_->setChecked(overlay_->isEnabled());
    connect(overlayAction_, &QAction::toggled, overlay_, &ShardingOverlay::setEnabled);
    viewMenu->addAction(overlayAction_);

    undoAction_ = session_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAction_->setObjectName(QStringLiteral("undoAction"));
    undoAction_->setShortcut(QKeySequence::Undo);
    redoAction_ = session_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAction_->setObjectName(QStringLiteral("redoAction"));
    redoAction_->setShortcut(QKeySequence::Redo);
    QAction* first = editMenu->actions().value(0);
    editMenu->insertAction(first, undoAction_);
    editMenu->insertAction(first, redoAction_);
    if (first) editMenu->insertSeparator(first);

    connect(session_, &PlanSession::modelChanged, this, &PlanDocks::onModelChanged);
    connect(dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) syncPanel();
    });
    connect(session_, &PlanSession::resultsChanged, this, &PlanDocks::onResultsChanged);
    connect(session_, &PlanSession::planChanged, this, &PlanDocks::onPlanChanged);
    connect(session_, &PlanSession::nodeSelected, this, [this](NodeId n) { onNodeSelected(n); });
    connect(panel_, &PlanPanel::nodeActivated, session_, &PlanSession::selectNode);
    connect(graph_, &GraphView::selectionChanged, this, &PlanDocks::onGraphSelection);
    connect(panel_, &PlanPanel::strategyRequested, this, [this](NodeId n, const QString& s, bool whole) {
        report(session_->setStrategy(n, s, whole));
    });
    connect(panel_, &PlanPanel::weightLayoutRequested, this, [this](TensorId w, const TensorLayout& l, bool whole) {
        report(session_->setWeightLayout(w, l, whole));
    });
    retranslate();
}

void PlanDocks::retranslate()
{
    dock_->setWindowTitle(tr("Plan"));
    overlayAction_->setText(tr("Show &Sharding on the Graph"));
    overlayAction_->setStatusTip(tr("Colour ops by their sharding and mark the collectives on the edges"));
    overlay_->retranslate();
}

void PlanDocks::onModelChanged()
{
    overlay_->setEditor(nullptr);
    // The tree of every op cost 0.2 s of the GUI thread on opening Swin-T, while the dock is
    // hidden until a plan exists: it is built when the dock is shown or a plan arrives.
    panelStale_ = true;
    if (dock_->isVisible()) syncPanel();
    else panel_->setGraph(nullptr, nullptr); // empty (and without the editor the session dropped) until then
}

void PlanDocks::syncPanel()
{
    if (!panelStale_) return;
    panelStale_ = false;
    panel_->setGraph(session_->graph(), session_->folded());
    if (session_->hasPlan()) panel_->setEditor(session_->editor());
}

void PlanDocks::onResultsChanged()
{
    // Opening a model also says its results changed (to none): that alone builds no tree.
    if (session_->hasPlan()) syncPanel();
    if (!panelStale_) panel_->setEditor(session_->editor());
    overlay_->setEditor(session_->editor());
    if (!session_->hasPlan()) return;
    // A plan arrived: show it (the dock shares the bottom with the Log).
    dock_->show();
    dock_->raise();
}

void PlanDocks::onPlanChanged()
{
    if (!panelStale_) panel_->refresh();
    overlay_->refresh();
}

void PlanDocks::onNodeSelected(int node)
{
    if (!panelStale_) panel_->selectNode(node);
    if (!fromGraph_ && node != kNoNode) graph_->focusNode(node);
}

void PlanDocks::onGraphSelection(const GraphSelection& selection)
{
    if (selection.kind != GraphSelection::Kind::Node) return;
    fromGraph_ = true;
    session_->selectNode(selection.node);
    fromGraph_ = false;
}

void PlanDocks::report(const QString& refusal)
{
    if (refusal.isEmpty()) {
        panel_->showRefusal({});
        return;
    }
    panel_->showRefusal(refusal);
    window_->statusBar()->showMessage(tr("Change refused: %1").arg(refusal), 10000);
    // open(), not exec(): no nested event loop, and tests can find and close it.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Change Refused"), refusal, QMessageBox::Ok, window_);
    box->setObjectName(QStringLiteral("planRefusalBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    Q_EMIT refused(refusal);
}

} // namespace tapas
