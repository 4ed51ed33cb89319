#pragma once
// The overview in the graph view's corner: every box of the current picture as a small
// rectangle in its colour, and the part the view shows as a frame. Click or drag to move the
// view there. Drawn straight from the layout (no text, no scene rendering), so it costs
// nothing noticeable even at thousands of boxes; hidden while the whole picture fits.
#include <QWidget>

namespace tapas {

class GraphView;

class GraphMinimap : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxSide = 180;
    explicit GraphMinimap(GraphView* view);

    // Resizes to the picture's aspect ratio, places itself in the view's corner and repaints.
    void refresh();
    // The scene rectangle the minimap shows, and where a widget point lands in the scene.
    QRectF sceneArea() const;
    QPointF toScene(const QPointF& widgetPoint) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QRectF toWidget(const QRectF& sceneRect) const;
    GraphView* view_;
};

} // namespace tapas
