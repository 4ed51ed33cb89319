#pragma once
// One op box (or a graph input/output pill) in the graph scene: op type in bold, its key
// output shape underneath, tooltip with name, scope and every output.
#include "views/graph/graph_presentation.h"

#include <QBrush>
#include <QGraphicsItem>
#include <QStaticText>

namespace tapas {

// Draws `text` aligned in `rect` with the painter's font. The text is laid out once and kept in
// `cache` (QPainter::drawText(rect, ...) shapes it anew on every paint, which dominated the
// repaint of an expanded block's few hundred boxes).
void drawBoxText(QPainter* painter, QStaticText& cache, const QString& text, const QRectF& rect, Qt::Alignment align);

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    explicit NodeItem(const VisualItem& item, QGraphicsItem* parent = nullptr);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    const VisualItem& visual() const { return item_; }
    // Highlighted as a search hit (drawn with a thick outline even when not selected).
    void setHit(bool hit);
    // The sharding overlay (sharding_overlay.h): a fill by strategy family and a mark for a
    // user override, or none (an invalid colour) to show the model's own colours.
    void setOverlay(const QColor& fill, const QColor& border, bool overridden, const QString& note);
    // The fill the box is painted with now (the overlay's when set).
    QBrush brush() const;
    bool isOverridden() const { return overridden_; }

protected:
    void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    QRectF box() const;
    VisualItem item_;
    bool hovered_ = false;
    bool hit_ = false;
    QColor overlayFill_, overlayBorder_;
    bool overridden_ = false;
    QString baseTooltip_;
    QStaticText titleText_, detailText_;
};

} // namespace tapas
