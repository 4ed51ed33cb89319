#pragma once
// The graph as scene items: op boxes, collapsed block boxes, frames around expanded
// instances and edges, placed from a GraphLayout. Turns item clicks into expand/collapse
// requests and the scene's selection into a GraphSelection for the Inspector.
#include "core/layout/graph_layout.h"
#include "views/graph/graph_presentation.h"
#include "views/graph/graph_selection.h"

#include <QGraphicsScene>

#include <map>
#include <unordered_map>

class QGraphicsPathItem;

namespace tapas {

class EdgeItem;
class InstanceFrameItem;

class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    // Room the layout keeps around an expanded instance for its frame and caption.
    static constexpr double kFramePadding = 12;
    static constexpr double kFramePaddingTop = 30;

    explicit GraphScene(QObject* parent = nullptr);

    // Brings the scene to `presentation` placed by `layout` (looks and tooltips from the
    // presentation, positions from the layout). Items of the previous content that look the
    // same are moved, not rebuilt, and edges whose route did not change are left alone, so an
    // expand or collapse touches only the block it changes and what moved.
    void setContent(const GraphPresentation& presentation, const GraphLayout& layout);
    void clearContent();

    QGraphicsItem* itemForId(int id) const;
    // The frame of an expanded instance, or null.
    InstanceFrameItem* frameFor(InstanceKey key) const;
    int nodeItemCount() const { return nodeItems_; }
    int blockItemCount() const { return blockItems_; }
    int edgeItemCount() const { return edgeItems_; }
    // Marks one item as the current search hit (or none with -1).
    void setHitItem(int id);

    // Called by block boxes and frames.
    void requestExpand(InstanceKey key) { Q_EMIT expandRequested(key.classId, key.instance); }
    void requestCollapse(InstanceKey key) { Q_EMIT collapseRequested(key.classId, key.instance); }

Q_SIGNALS:
    void expandRequested(int classId, int instance);
    void collapseRequested(int classId, int instance);
    void graphSelectionChanged(const tapas::GraphSelection& selection);

private:
    void emitSelection();

    struct Frame {
        InstanceFrameItem* frame = nullptr;
        QGraphicsPathItem* wash = nullptr;
        QRectF area; // the members' area it was made for
    };
    struct EdgeEntry {
        EdgeItem* item = nullptr;
        RoutedEdge route;
    };
    std::unordered_map<int, QGraphicsItem*> byId_;
    std::map<InstanceKey, Frame> frames_;
    std::map<std::pair<int, int>, EdgeEntry> edges_;
    int nodeItems_ = 0;
    int blockItems_ = 0;
    int edgeItems_ = 0;
    int hitId_ = -1;
};

} // namespace tapas
