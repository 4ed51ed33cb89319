#pragma once
// The plan-review part of the main window: the Plan dock, the graph's sharding
// overlay with its View toggle, Undo/Redo in the Edit menu, and the wiring between them and the
// window's PlanSession (row <-> graph selection through PlanSession::selectNode, override
// requests through PlanSession::setStrategy / setWeightLayout, refusals to the status bar).
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace tapas {

class GraphPanel;
class GraphView;
class PlanPanel;
class PlanSession;
class ShardingOverlay;
struct GraphSelection;

class PlanDocks : public QObject {
    Q_OBJECT
public:
    PlanDocks(QMainWindow* window, PlanSession* session, GraphPanel* graph, QMenu* editMenu, QMenu* viewMenu);

    PlanPanel* panel() const { return panel_; }
    QDockWidget* planDock() const { return dock_; }
    ShardingOverlay* overlay() const { return overlay_; }
    QAction* overlayAction() const { return overlayAction_; }
    QAction* undoAction() const { return undoAction_; }
    QAction* redoAction() const { return redoAction_; }
    void retranslate();

Q_SIGNALS:
    // An edit was refused (the reason is also in the status bar and a message box).
    void refused(const QString& reason);

private:
    void onModelChanged();
    // Gives the panel the session's model when it has not seen it yet.
    void syncPanel();
    void onResultsChanged();
    void onPlanChanged();
    void onNodeSelected(int node);
    void onGraphSelection(const GraphSelection& selection);
    void report(const QString& refusal);

    QMainWindow* window_;
    PlanSession* session_;
    GraphView* graph_;
    PlanPanel* panel_;
    QDockWidget* dock_;
    ShardingOverlay* overlay_;
    QAction* overlayAction_;
    QAction* undoAction_;
    QAction* redoAction_;
    bool panelStale_ = false; // the panel still shows an earlier model
    bool fromGraph_ = false; // the selection started in the graph: do not re-centre it
};

} // namespace tapas
