#pragma once
// The folded-graph part of the main window: the GraphPanel in the centre and the Summary,
// Blocks and Inspector docks around it, wired to each other. MainWindow owns one of these and
// only hands it the open model; keeping the wiring here keeps main_window.cpp about menus.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"

#include <QObject>

#include <memory>

class QDockWidget;
class QMainWindow;
class QMenu;
class QTreeView;

namespace tapas {

class BlocksModel;
class GraphPanel;
class InspectorView;
class ModelSummaryView;

class StudioDocks : public QObject {
    Q_OBJECT
public:
    // Makes the panel the window's central widget and adds the docks (with their toggles in
    // `viewMenu`). `summary` is the window's summary view; it moves into the Summary dock.
    StudioDocks(QMainWindow* window, ModelSummaryView* summary, QMenu* viewMenu);

    void setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    void clear();
    void retranslate();

    GraphPanel* panel() const { return panel_; }
    BlocksModel* blocksModel() const { return blocks_; }
    QTreeView* blocksTable() const { return blocksTable_; }
    InspectorView* inspector() const { return inspector_; }
    QDockWidget* summaryDock() const { return summaryDock_; }
    QDockWidget* blocksDock() const { return blocksDock_; }
    QDockWidget* inspectorDock() const { return inspectorDock_; }

private:
    void focusSelectedClass();
    QDockWidget* addDock(QMainWindow* window, QWidget* content, const char* objectName,
                         Qt::DockWidgetArea area, QMenu* viewMenu);

    GraphPanel* panel_;
    BlocksModel* blocks_;
    QTreeView* blocksTable_;
    InspectorView* inspector_;
    QDockWidget* summaryDock_;
    QDockWidget* blocksDock_;
    QDockWidget* inspectorDock_;
};

} // namespace tapas
