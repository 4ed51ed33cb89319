#pragma once
// A collapsed block instance: one box in its class's colour, "Block A · 3/12" and its size,
// with a + control; double-click or + expands it in place.
#include "views/graph/graph_presentation.h"

#include <QBrush>
#include <QGraphicsItem>
#include <QStaticText>

namespace tapas {

class BlockItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    explicit BlockItem(const VisualItem& item, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    const VisualItem& visual() const { return item_; }
    InstanceKey key() const { return {item_.classId, item_.instance}; }
    // The + control, in item coordinates.
    QRectF controlRect() const;
    void setHit(bool hit);
    // The sharding overlay: the fill of the class's dominant strategy family (invalid: none).
    void setOverlay(const QColor& fill, const QString& note);
    QBrush brush() const; // the fill painted now

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QRectF box() const;
    void requestExpand();
    VisualItem item_;
    bool hovered_ = false;
    bool hit_ = false;
    QColor overlayFill_;
    QString baseTooltip_;
    QStaticText titleText_, detailText_;
};

// The frame around an expanded instance's ops: a caption strip with the instance's name and a
// − control; double-click the caption or press − to collapse. Only the caption and the border
// take the mouse, so panning and clicking ops inside the frame work as usual.
class InstanceFrameItem : public QGraphicsItem {
public:
    enum { Type = UserType + 4 };
    static constexpr double kCaptionHeight = 22;
    InstanceFrameItem(InstanceKey key, const QString& caption, const QColor& color, const QRectF& rect,
                      QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    InstanceKey key() const { return key_; }
    QRectF controlRect() const;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

private:
    void requestCollapse();
    InstanceKey key_;
    QString caption_;
    QColor color_;
    QRectF rect_;
};

} // namespace tapas
