#include "app/studio/docks.h"

#include "views/blocks_model.h"
#include "views/graph/graph_panel.h"
#include "views/inspector_view.h"
#include "views/model_summary_view.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTreeView>

namespace tapas {

StudioDocks::StudioDocks(QMainWindow* window, ModelSummaryView* summary, QMenu* viewMenu)
    : QObject(window), panel_(new GraphPanel(window)), blocks_(new BlocksModel(this)),
      blocksTable_(new QTreeView(window)), inspector_(new InspectorView(window))
{
    panel_->setObjectName(QStringLiteral("graphPanel"));
    window->setCentralWidget(panel_);

    blocksTable_->setObjectName(QStringLiteral("blocksTable"));
    blocksTable_->setModel(blocks_);
    blocksTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    blocksTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    blocksTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    blocksTable_->header()->setStretchLastSection(true);
    blocksTable_->setAlternatingRowColors(true);
    blocksTable_->setUniformRowHeights(true);
    connect(blocksTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { focusSelectedClass(); });
    connect(blocksTable_, &QTreeView::clicked, this, [this] { focusSelectedClass(); });

    inspector_->setObjectName(QStringLiteral("inspector"));
    connect(panel_, &GraphPanel::selectionChanged, inspector_, &InspectorView::showSelection);

    // The graph needs the room: the summary's figures and tables scroll rather than widen
    // the dock they share with the Blocks table.
    auto* summaryScroll = new QScrollArea(window);
    summaryScroll->setObjectName(QStringLiteral("summaryScroll"));
    summaryScroll->setWidget(summary);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    // One column on the right, as in Netron and Qt Creator: the graph keeps the rest of the
    // width. Blocks (with the Summary behind it) above, the Inspector below.
    // (Split first: a dock already in a tab group would take the Inspector in as another tab.)
    blocksDock_ = addDock(window, blocksTable_, "blocksDock", Qt::RightDockWidgetArea, viewMenu);
    inspectorDock_ = addDock(window, inspector_, "inspectorDock", Qt::RightDockWidgetArea, viewMenu);
    window->splitDockWidget(blocksDock_, inspectorDock_, Qt::Vertical);
    summaryDock_ = addDock(window, summaryScroll, "summaryDock", Qt::RightDockWidgetArea, viewMenu);
    window->tabifyDockWidget(blocksDock_, summaryDock_);
    blocksDock_->raise();
    // A dock behind another's tab stays visible to Qt, only covered, so the summary would lay
    // out its cards and tables for every model opened behind the Blocks tab (about half of
    // the GUI thread's work in opening one). Hidden until its tab comes to the front, it is
    // filled but laid out once, when shown.
    connect(summaryDock_, &QDockWidget::visibilityChanged, summary, &QWidget::setVisible);
    retranslate();
}

QDockWidget* StudioDocks::addDock(QMainWindow* window, QWidget* content, const char* objectName,
                                  Qt::DockWidgetArea area, QMenu* viewMenu)
{
    auto* dock = new QDockWidget(window);
    dock->setObjectName(QString::fromLatin1(objectName)); // saveState/restoreState key
    dock->setWidget(content);
    dock->setAllowedAreas(Qt::AllDockWidgetAreas);
    window->addDockWidget(area, dock);
    viewMenu->addAction(dock->toggleViewAction());
    return dock;
}

void StudioDocks::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    blocks_->setFolded(folded);
    // Stages and groups open: the repeats inside them are what the dock is for; a block's
    // parts stay folded until asked for.
    blocksTable_->expandToDepth(1);
    for (int c = 0; c < BlocksModel::ColumnCount; ++c) blocksTable_->resizeColumnToContents(c);
    inspector_->setModel(graph, folded);
    panel_->setModel(std::move(graph), std::move(folded));
}

void StudioDocks::clear()
{
    blocks_->clear();
    inspector_->clear();
    panel_->clearModel();
}

void StudioDocks::retranslate()
{
    summaryDock_->setWindowTitle(tr("Summary"));
    blocksDock_->setWindowTitle(tr("Blocks"));
    inspectorDock_->setWindowTitle(tr("Inspector"));
    blocks_->retranslate();
}

void StudioDocks::focusSelectedClass()
{
    const QModelIndex current = blocksTable_->selectionModel()->currentIndex();
    if (!current.isValid()) return;
    const int classId = blocks_->classIdAt(current);
    if (classId >= 0) panel_->view()->focusBlock({classId, 0});
}

} // namespace tapas
