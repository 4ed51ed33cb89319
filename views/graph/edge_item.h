#pragma once
// An edge of the graph scene: dot's spline with an arrow head; hovering shows the tensors it
// carries (name, dtype, shape) and thickens it so the user sees which line the tip is about.
#include "core/layout/graph_layout.h"
#include "views/graph/graph_presentation.h"

#include <QGraphicsPathItem>

#include <optional>

namespace tapas {

class EdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 3 };
    EdgeItem(const RoutedEdge& route, const VisualEdge& edge, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    // Moves the line to a new route (the scene keeps the item when only its ends moved).
    void setRoute(const RoutedEdge& route);
    QPainterPath shape() const override;
    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    const VisualEdge& visual() const { return edge_; }
    bool isHovered() const { return hovered_; }
    // The sharding overlay: the collectives running on this edge ("all-reduce"), drawn as a
    // label on the line; empty: none.
    void setCollectives(const QString& label, const QString& note);
    QString collectives() const { return collectives_; }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    void updateBounds();

    VisualEdge edge_;
    QRectF bounds_;
    mutable std::optional<QPainterPath> hoverShape_;
    QPolygonF arrow_;
    bool hovered_ = false;
    QString collectives_;
    QString baseTooltip_;
    QRectF labelRect_;
};

} // namespace tapas
