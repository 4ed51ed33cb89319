#pragma once
// The graph view's plan overlay: ops coloured by their strategy's
// family (ShardingStyle), collapsed block boxes by their class's dominant family, every edge
// where a collective runs dashed and labelled with its kind, overridden ops marked, and a
// legend. It re-applies itself after every layout (expand/collapse
// rebuilds the scene) and on refresh() after a plan edit. Switched off, the view shows the
// model's own colours again. The legend is a one-line strip for the graph panel to place
// beside the view (GraphPanel::addStrip), so it never covers the drawing.
#include "core/ir/graph.h"

#include <QObject>

class QLabel;

namespace tapas {

class GraphView;
class PlanEditor;

class ShardingOverlay : public QObject {
    Q_OBJECT
public:
    explicit ShardingOverlay(GraphView* view);

    // The plan to show (not owned); null: nothing to show.
    void setEditor(const PlanEditor* editor);
    bool isEnabled() const { return enabled_; }
    QLabel* legend() const { return legend_; }
    // Edges that carry a collective label right now (tests, status text).
    int markedEdgeCount() const { return markedEdges_; }

public Q_SLOTS:
    void setEnabled(bool enabled);
    // Re-reads the plan and repaints the scene's items.
    void refresh();
    void retranslate();

private:
    void clearItems();
    void applyItems();

    GraphView* view_;
    const PlanEditor* editor_ = nullptr;
    bool enabled_ = true;
    QLabel* legend_;
    int markedEdges_ = 0;
    bool itemsMarked_ = false; // some scene item may carry the overlay
};

} // namespace tapas
