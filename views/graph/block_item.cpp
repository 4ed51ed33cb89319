#include "views/graph/block_item.h"

#include "views/graph/graph_scene.h"
#include "views/graph/node_item.h"

#include <QCoreApplication>
#include <QGraphicsSceneMouseEvent>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace tapas {

namespace {

void drawControl(QPainter* painter, const QRectF& r, const QColor& color, bool plus)
{
    painter->setPen(QPen(color.darker(130), 1.2));
    painter->setBrush(Qt::white);
    painter->drawEllipse(r);
    const QPointF c = r.center();
    const double arm = r.width() * 0.28;
    painter->setPen(QPen(color.darker(160), 1.8, Qt::SolidLine, Qt::RoundCap));
    painter->drawLine(QPointF(c.x() - arm, c.y()), QPointF(c.x() + arm, c.y()));
    if (plus) painter->drawLine(QPointF(c.x(), c.y() - arm), QPointF(c.x(), c.y() + arm));
}

} // namespace

BlockItem::BlockItem(const VisualItem& item, QGraphicsItem* parent) : QGraphicsItem(parent), item_(item)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setToolTip(item_.tooltip);
    baseTooltip_ = item_.tooltip;
    setZValue(2);
}

void BlockItem::setOverlay(const QColor& fill, const QString& note)
{
    overlayFill_ = fill;
    setToolTip(note.isEmpty() ? baseTooltip_ : baseTooltip_ + QStringLiteral("\n") + note);
    update();
}

QBrush BlockItem::brush() const
{
    return QBrush(overlayFill_.isValid() ? overlayFill_ : item_.fill);
}

QRectF BlockItem::box() const
{
    return {-item_.width / 2, -item_.height / 2, item_.width, item_.height};
}

QRectF BlockItem::boundingRect() const
{
    return box().adjusted(-3, -3, 3, 3);
}

QPainterPath BlockItem::shape() const
{
    QPainterPath p;
    p.addRect(box());
    return p;
}

QRectF BlockItem::controlRect() const
{
    const QRectF r = box();
    return {r.right() - 26, r.center().y() - 9, 18, 18};
}

void BlockItem::setHit(bool hit)
{
    if (hit_ == hit) return;
    hit_ = hit;
    update();
}

void BlockItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    painter->setRenderHint(QPainter::Antialiasing);
    const QRectF r = box();
    const bool selected = option->state & QStyle::State_Selected;
    QColor fill = brush().color();
    if (hovered_) fill = fill.darker(106);
    painter->setPen(QPen(selected || hit_ ? QColor(0x1F, 0x4E, 0xB4) : item_.border, selected || hit_ ? 3 : 1.6));
    painter->setBrush(fill);
    painter->drawRoundedRect(r, 7, 7);
    // A solid bar in the class colour: the colour reads at any zoom, the tint alone does not.
    painter->setPen(Qt::NoPen);
    painter->setBrush(item_.border);
    QPainterPath bar;
    bar.addRoundedRect(QRectF(r.left() + 1, r.top() + 1, 7, r.height() - 2), 6, 6);
    painter->drawPath(bar);

    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (lod < 0.3) return;
    const QRectF text(r.left() + 14, r.top() + 4, r.width() - 14 - 32, r.height() - 8);
    const QFont base = painter->font();
    painter->setPen(QColor(0x1A, 0x1A, 0x1A));
    painter->setFont(GraphPresentation::titleFont(base));
    drawBoxText(painter, titleText_, item_.title, QRectF(text.left(), text.top(), text.width(), text.height() / 2),
                Qt::AlignLeft | Qt::AlignBottom);
    painter->setFont(GraphPresentation::detailFont(base));
    painter->setPen(QColor(0x40, 0x40, 0x40));
    drawBoxText(painter, detailText_, item_.detail,
                QRectF(text.left(), text.center().y() + 2, text.width(), text.height() / 2 - 2), Qt::AlignLeft | Qt::AlignTop);
    drawControl(painter, controlRect(), item_.border, true);
}

void BlockItem::requestExpand()
{
    if (auto* s = qobject_cast<GraphScene*>(scene())) s->requestExpand(key());
}

void BlockItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && controlRect().adjusted(-3, -3, 3, 3).contains(event->pos())) {
        event->accept();
        requestExpand();
        return;
    }
    QGraphicsItem::mousePressEvent(event);
}

void BlockItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return QGraphicsItem::mouseDoubleClickEvent(event);
    event->accept();
    requestExpand();
}

void BlockItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void BlockItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

InstanceFrameItem::InstanceFrameItem(InstanceKey key, const QString& caption, const QColor& color, const QRectF& rect,
                                     QGraphicsItem* parent)
    : QGraphicsItem(parent), key_(key), caption_(caption), color_(color), rect_(rect)
{
    setFlag(ItemIsSelectable);
    setToolTip(QCoreApplication::translate("tapas::InstanceFrameItem", "%1 (expanded)\nDouble-click the caption, click ⊖ or select it and press Enter to collapse").arg(caption));
    setZValue(3);
}

QRectF InstanceFrameItem::boundingRect() const
{
    return rect_.adjusted(-3, -3, 3, 3);
}

QPainterPath InstanceFrameItem::shape() const
{
    QPainterPath outer, inner;
    outer.addRect(rect_);
    inner.addRect(rect_.adjusted(5, kCaptionHeight, -5, -5));
    return outer.subtracted(inner);
}

QRectF InstanceFrameItem::controlRect() const
{
    return {rect_.right() - 22, rect_.top() + 3, 16, 16};
}

void InstanceFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    // Drawn above the edges (the wash behind everything is a separate item), so the caption
    // chip stays readable where an edge enters the frame.
    painter->setRenderHint(QPainter::Antialiasing);
    const bool selected = option->state & QStyle::State_Selected;
    painter->setBrush(Qt::NoBrush);
    painter->setPen(QPen(selected ? QColor(0x1F, 0x4E, 0xB4) : color_, selected ? 2.4 : 1.4, Qt::DashLine));
    painter->drawRoundedRect(rect_, 9, 9);
    const QFont base = painter->font();
    const QFont font = GraphPresentation::titleFont(base);
    painter->setFont(font);
    const double textWidth = QFontMetricsF(font).horizontalAdvance(caption_);
    const QRectF chip(rect_.left() + 6, rect_.top() + 3, std::min(textWidth + 10, rect_.width() - 34), kCaptionHeight - 6);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0xFC, 0xFC, 0xFC));
    painter->drawRoundedRect(chip, 4, 4);
    painter->setPen(color_.darker(170));
    painter->drawText(chip.adjusted(5, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, caption_);
    drawControl(painter, controlRect(), color_, false);
}

void InstanceFrameItem::requestCollapse()
{
    if (auto* s = qobject_cast<GraphScene*>(scene())) s->requestCollapse(key_);
}

void InstanceFrameItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() == Qt::LeftButton && controlRect().adjusted(-3, -3, 3, 3).contains(event->pos())) {
        event->accept();
        requestCollapse();
        return;
    }
    QGraphicsItem::mousePressEvent(event);
}

void InstanceFrameItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return QGraphicsItem::mouseDoubleClickEvent(event);
    event->accept();
    requestCollapse();
}

} // namespace tapas
