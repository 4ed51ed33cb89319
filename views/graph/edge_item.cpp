#include "views/graph/edge_item.h"

#include <QLineF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

namespace tapas {

namespace {

QPainterPath splinePath(const RoutedEdge& r)
{
    QPainterPath p;
    if (r.points.empty()) return p;
    p.moveTo(r.points[0].x, r.points[0].y);
    for (size_t i = 1; i + 2 < r.points.size(); i += 3)
        p.cubicTo(r.points[i].x, r.points[i].y, r.points[i + 1].x, r.points[i + 1].y, r.points[i + 2].x,
                  r.points[i + 2].y);
    return p;
}

QPolygonF arrowHead(QPointF from, QPointF tip)
{
    QLineF line(tip, from);
    if (line.length() < 0.1) return {};
    line.setLength(8);
    QLineF left = line, right = line;
    left.setAngle(line.angle() + 24);
    right.setAngle(line.angle() - 24);
    left.setLength(9);
    right.setLength(9);
    return QPolygonF({tip, left.p2(), right.p2()});
}

} // namespace

EdgeItem::EdgeItem(const RoutedEdge& route, const VisualEdge& edge, QGraphicsItem* parent)
    : QGraphicsPathItem(parent), edge_(edge)
{
    setRoute(route);
    setToolTip(edge_.tooltip);
    baseTooltip_ = edge_.tooltip;
    setAcceptHoverEvents(true);
    setFlag(ItemIsSelectable);
    setZValue(1);
}

void EdgeItem::setRoute(const RoutedEdge& route)
{
    QPainterPath path = splinePath(route);
    arrow_.clear();
    if (route.hasArrow && !route.points.empty()) {
        const QPointF end(route.points.back().x, route.points.back().y);
        const QPointF tip(route.arrowTip.x, route.arrowTip.y);
        path.lineTo(tip);
        arrow_ = arrowHead(end, tip);
    } else if (route.points.size() >= 2) {
        const auto& a = route.points[route.points.size() - 2];
        const auto& b = route.points.back();
        arrow_ = arrowHead(QPointF(a.x, a.y), QPointF(b.x, b.y));
    }
    // setPath() announces the geometry change (once: each announcement takes the item out of
    // the scene's index), while boundingRect() still gives the old bounds; the new ones follow.
    if (path == this->path()) return; // same line, same arrow and label
    setPath(path);
    hoverShape_.reset();
    if (!labelRect_.isNull()) {
        const QPointF mid = path.pointAtPercent(0.5);
        labelRect_.moveCenter(mid);
    }
    updateBounds();
}

void EdgeItem::updateBounds()
{
    // From the curve's control points, not QGraphicsPathItem's bounds: those stroke the hover
    // shape of every new edge (a QPainterPathStroker per item), which made the first paint after
    // expanding a big block spend a fifth of its time on bounds. A cubic lies inside its control
    // points; the margin holds the widest pen (2.4) and the hover lane (10 wide, its square
    // ends reaching 5 * sqrt(2) past a slanted line's end).
    bounds_ = path().controlPointRect().united(arrow_.boundingRect()).united(labelRect_).adjusted(-9, -9, 9, 9);
}

void EdgeItem::setCollectives(const QString& label, const QString& note)
{
    prepareGeometryChange();
    collectives_ = label;
    setToolTip(note.isEmpty() ? baseTooltip_ : baseTooltip_ + QStringLiteral("\n") + note);
    labelRect_ = QRectF();
    if (!label.isEmpty()) {
        const QPointF mid = path().pointAtPercent(0.5);
        const double w = 7.0 * label.size() + 10; // sized for the small label font
        labelRect_ = QRectF(mid.x() - w / 2, mid.y() - 8, w, 16);
    }
    updateBounds();
    update();
}

QRectF EdgeItem::boundingRect() const
{
    return bounds_;
}

QPainterPath EdgeItem::shape() const
{
    // A 1-px line is impossible to hover; give the pointer a 10-px wide lane (made when the
    // pointer first asks, not for every edge drawn).
    if (!hoverShape_) {
        QPainterPathStroker stroker;
        stroker.setWidth(10);
        hoverShape_ = stroker.createStroke(path());
    }
    return *hoverShape_;
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const bool strong = hovered_ || (option->state & QStyle::State_Selected);
    const bool comm = !collectives_.isEmpty();
    const QColor commColor(0xC0, 0x1C, 0x28); // ShardingStyle::collectiveColor()
    const QColor color = strong ? QColor(0x1F, 0x4E, 0xB4) : comm ? commColor : QColor(0x80, 0x80, 0x80);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(color, strong ? 2.4 : comm ? 2.0 : 1.1, comm ? Qt::DashLine : Qt::SolidLine));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    painter->setPen(Qt::NoPen);
    painter->setBrush(color);
    painter->drawPolygon(arrow_);
    if (comm && option->levelOfDetailFromTransform(painter->worldTransform()) >= 0.35) {
        painter->setPen(QPen(commColor, 1));
        painter->setBrush(QColor(0xFF, 0xF4, 0xF4));
        painter->drawRoundedRect(labelRect_, 4, 4);
        QFont f = painter->font();
        f.setPointSizeF(f.pointSizeF() * 0.75);
        painter->setFont(f);
        painter->setPen(commColor.darker(120));
        painter->drawText(labelRect_, Qt::AlignCenter, collectives_);
    }
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = true;
    update();
    QGraphicsPathItem::hoverEnterEvent(event);
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = false;
    update();
    QGraphicsPathItem::hoverLeaveEvent(event);
}

} // namespace tapas
