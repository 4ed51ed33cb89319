#pragma once
// The Model dock's graph: a QGraphicsView over a GraphScene, laid out by Graphviz dot on a
// worker thread (a BackgroundJob). Opens folded: one box per repeated block instance, unique parts
// as grey op boxes. Expanding an instance re-lays out only that instance and stretches the
// rest around it; collapsing puts the box back. Zoom (wheel, around the cursor; + / - / 0),
// drag to pan, fit to window, find (GraphSearch) and PNG/SVG export.
//
// Expand/collapse requests that arrive while a layout runs are queued and applied in order,
// so the picture always matches the set of expanded instances the user asked for.
#include "core/fold/folded_graph.h"
#include "core/ir/graph.h"
#include "core/layout/graph_layout.h"
#include "views/graph/graph_presentation.h"
#include "views/graph/graph_selection.h"

#include <QGraphicsView>

#include <deque>
#include <memory>
#include <optional>

namespace tapas {

class GraphMinimap;
class GraphScene;
class PartLayoutCache;
class GraphSearch;
class BackgroundJob;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    // Shows a model (fold may be null: every node is drawn unique) and starts its layout.
    void setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded);
    void clearModel();
    bool hasModel() const { return graph_ != nullptr; }
    std::shared_ptr<const Graph> graph() const { return graph_; }
    std::shared_ptr<const FoldedGraph> folded() const { return folded_; }

    // Queued behind any running layout. Expanding past itemLimit() is refused with a notice.
    void expand(InstanceKey key);
    void collapse(InstanceKey key);
    bool isExpanded(InstanceKey key) const { return presentation_.isExpanded(key); }
    void setItemLimit(int limit) { itemLimit_ = limit; }
    int itemLimit() const { return itemLimit_; }

    // Centres on and selects the box showing `node`, expanding its block first when folded.
    void focusNode(NodeId node);
    // Centres on and selects an instance's box when it is collapsed, else its first node.
    void focusBlock(InstanceKey key);
    // A layout is running or an expand/collapse is waiting for one.
    bool isBusy() const;
    double zoom() const;

    // The whole current picture (every box at its current expansion state), not just the
    // visible part. Errors are sentences naming the file.
    bool exportPng(const QString& path, QString* error = nullptr, double scale = 2.0) const;
    bool exportSvg(const QString& path, QString* error = nullptr) const;

    GraphScene* graphScene() const { return scene_; }
    BackgroundJob* layoutJob() const { return job_; }
    GraphSearch* search() const { return search_; }
    const GraphPresentation& presentation() const { return presentation_; }
    const GraphLayout& currentLayout() const { return layout_; }
    LayoutOptions layoutOptions() const;
    const PartLayoutCache& partLayoutCache() const { return *partCache_; }

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void resetZoom();
    // Fits the picture in the view when its boxes stay readable that way; otherwise fits its
    // width (never below a readable zoom) and shows its top, to scroll down from.
    void fitToWindow();
    void cancelLayout();
    // Expands every box of the current picture, in order, as long as the picture stays within
    // itemLimit() (a notice says how many were left folded); collapses every expanded one.
    void expandAll();
    void collapseAll();

Q_SIGNALS:
    void selectionChanged(const tapas::GraphSelection& selection);
    // Something the user should read (too large to expand, layout failed, no repeats...).
    void notice(const QString& text);
    // A new picture is on screen (after the first layout and after every expand/collapse).
    void layoutApplied();
    void busyChanged(bool busy);

public:
    // The smallest zoom a fit goes to: box titles are still legible there.
    static constexpr double kReadableZoom = 0.45;
    GraphMinimap* minimap() const { return minimap_; }

protected:
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Operation {
        bool expand = true;
        InstanceKey key;
    };
    // What a layout run hands back: the presentation it laid out and its picture, or a refusal
    // (an expansion past the item limit) that changes nothing.
    struct LayoutOutcome {
        bool first = false;
        std::optional<GraphPresentation> presentation;
        Result<GraphLayout> layout = Result<GraphLayout>::failure("not laid out");
        QString refusal;
    };
    void onLayoutFinished(LayoutOutcome out);
    void noticeOnOpen(const GraphPresentation& p);
    void enqueue(Operation op);
    void pump();
    void startExpand(InstanceKey key);
    void startCollapse(InstanceKey key);
    void applyLayout(const GraphLayout& layout);
    void onLayoutFailed(const QString& error);
    void onLayoutCancelled();
    void centreAndSelect(int itemId);
    void scaleBy(double factor);
    void updateBusy();

    GraphScene* scene_;
    BackgroundJob* job_; // a new layout supersedes the running one
    GraphSearch* search_;
    GraphMinimap* minimap_;
    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const FoldedGraph> folded_;
    GraphPresentation presentation_;
    GraphLayout layout_;
    std::shared_ptr<PartLayoutCache> partCache_; // an expanded class's inside, laid out once
    GraphLayout foldedLayout_;                   // the picture with nothing expanded, for Collapse all
    GraphPresentation foldedPresentation_;
    std::optional<GraphPresentation> pending_; // what the running job's result will show
    bool pendingIsFull_ = false;
    std::deque<Operation> queue_;
    NodeId focusAfterLayout_ = kNoNode;
    int itemLimit_ = GraphPresentation::kDefaultItemLimit;
    bool busy_ = false;
};

} // namespace tapas
