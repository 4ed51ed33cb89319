#include "views/graph/node_item.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace tapas {

void drawBoxText(QPainter* painter, QStaticText& cache, const QString& text, const QRectF& rect, Qt::Alignment align)
{
    if (text.isEmpty()) return;
    if (cache.text() != text) {
        cache.setText(text);
        cache.setTextFormat(Qt::PlainText);
        cache.setPerformanceHint(QStaticText::AggressiveCaching);
        cache.prepare(painter->transform(), painter->font()); // its size, for the alignment
    }
    const QSizeF s = cache.size();
    double x = rect.left(), y = rect.top();
    if (align & Qt::AlignHCenter) x = rect.center().x() - s.width() / 2;
    else if (align & Qt::AlignRight) x = rect.right() - s.width();
    if (align & Qt::AlignVCenter) y = rect.center().y() - s.height() / 2;
    else if (align & Qt::AlignBottom) y = rect.bottom() - s.height();
    painter->drawStaticText(QPointF(x, y), cache);
}

NodeItem::NodeItem(const VisualItem& item, QGraphicsItem* parent) : QGraphicsItem(parent), item_(item)
{
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(true);
    setToolTip(item_.tooltip);
    baseTooltip_ = item_.tooltip;
    setZValue(2);
}

void NodeItem::setOverlay(const QColor& fill, const QColor& border, bool overridden, const QString& note)
{
    overlayFill_ = fill;
    overlayBorder_ = border;
    overridden_ = overridden;
    setToolTip(note.isEmpty() ? baseTooltip_ : baseTooltip_ + QStringLiteral("\n") + note);
    update();
}

QBrush NodeItem::brush() const
{
    return QBrush(overlayFill_.isValid() ? overlayFill_ : item_.fill);
}

QRectF NodeItem::box() const
{
    return {-item_.width / 2, -item_.height / 2, item_.width, item_.height};
}

QRectF NodeItem::boundingRect() const
{
    return box().adjusted(-3, -3, 3, 3); // the selection outline is drawn outside the box
}

QPainterPath NodeItem::shape() const
{
    QPainterPath p;
    p.addRect(box());
    return p;
}

void NodeItem::setHit(bool hit)
{
    if (hit_ == hit) return;
    hit_ = hit;
    update();
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const bool terminal = item_.kind != VisualItem::Kind::Op;
    const QRectF r = box();
    const double radius = terminal ? r.height() / 2 : 5;
    painter->setRenderHint(QPainter::Antialiasing);
    QColor fill = brush().color();
    if (hovered_) fill = fill.darker(106);
    const bool selected = option->state & QStyle::State_Selected;
    const QColor border = overlayBorder_.isValid() ? overlayBorder_ : item_.border;
    QPen pen(selected || hit_ ? QColor(0x1F, 0x4E, 0xB4) : border, selected || hit_ ? 2.6 : 1.2);
    painter->setPen(pen);
    painter->setBrush(fill);
    painter->drawRoundedRect(r, radius, radius);
    if (overridden_) { // the user's override: a dot in the corner, as in the Plan dock
        painter->setPen(QPen(Qt::white, 1));
        painter->setBrush(QColor(0xD5, 0x5E, 0x00));
        painter->drawEllipse(QPointF(r.right() - 5, r.top() + 5), 4, 4);
    }

    // Level of detail: when zoomed far out the text would be an unreadable smear; skip it.
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (lod < 0.35) return;
    const QFont base = painter->font();
    painter->setPen(QColor(0x20, 0x20, 0x20));
    painter->setFont(GraphPresentation::titleFont(base));
    const QRectF top(r.left() + 6, r.top() + 3, r.width() - 12, r.height() / 2 - 1);
    const QRectF bottom(r.left() + 6, r.center().y() + 1, r.width() - 12, r.height() / 2 - 4);
    if (item_.detail.isEmpty()) {
        drawBoxText(painter, titleText_, item_.title, r, Qt::AlignCenter);
        return;
    }
    drawBoxText(painter, titleText_, item_.title, top, Qt::AlignHCenter | Qt::AlignBottom);
    painter->setFont(GraphPresentation::detailFont(base));
    painter->setPen(QColor(0x50, 0x50, 0x50));
    drawBoxText(painter, detailText_, item_.detail, bottom, Qt::AlignHCenter | Qt::AlignTop);
}

void NodeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = true;
    update();
    QGraphicsItem::hoverEnterEvent(event);
}

void NodeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event)
{
    hovered_ = false;
    update();
    QGraphicsItem::hoverLeaveEvent(event);
}

} // namespace tapas
