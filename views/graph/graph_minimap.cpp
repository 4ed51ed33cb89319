#include "views/graph/graph_minimap.h"

#include "views/graph/graph_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>
#include <unordered_map>

namespace tapas {

namespace {
constexpr int kMargin = 10;
constexpr int kMinSide = 36;
} // namespace

GraphMinimap::GraphMinimap(GraphView* view) : QWidget(view), view_(view)
{
    setObjectName(QStringLiteral("graphMinimap"));
    setCursor(Qt::PointingHandCursor);
    hide();
}

QRectF GraphMinimap::sceneArea() const
{
    const LayoutRect b = view_->currentLayout().bounds;
    return QRectF(b.x, b.y, b.width, b.height).adjusted(-20, -20, 20, 20);
}

QRectF GraphMinimap::toWidget(const QRectF& r) const
{
    const QRectF area = sceneArea();
    if (area.isEmpty()) return {};
    const double sx = (width() - 4) / area.width(), sy = (height() - 4) / area.height();
    return QRectF(2 + (r.x() - area.x()) * sx, 2 + (r.y() - area.y()) * sy, r.width() * sx, r.height() * sy);
}

QPointF GraphMinimap::toScene(const QPointF& p) const
{
    const QRectF area = sceneArea();
    if (area.isEmpty() || width() <= 4 || height() <= 4) return area.center();
    return {area.x() + (p.x() - 2) * area.width() / (width() - 4), area.y() + (p.y() - 2) * area.height() / (height() - 4)};
}

void GraphMinimap::refresh()
{
    const QRectF area = sceneArea();
    QWidget* viewport = view_->viewport();
    const QRectF visible = view_->mapToScene(viewport->rect()).boundingRect();
    // Nothing to navigate when the whole picture is on screen.
    if (area.isEmpty() || visible.contains(area.adjusted(20, 20, -20, -20))) {
        hide();
        return;
    }
    const double scale = std::min(kMaxSide / area.width(), kMaxSide / area.height());
    const int w = std::max(kMinSide, int(area.width() * scale)), h = std::max(kMinSide, int(area.height() * scale));
    setGeometry(viewport->x() + viewport->width() - w - kMargin, viewport->y() + viewport->height() - h - kMargin, w, h);
    show();
    raise();
    update();
}

void GraphMinimap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(255, 255, 255, 230));
    p.setPen(QColor(0x99, 0x99, 0x99));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    std::unordered_map<int, const VisualItem*> items;
    for (const VisualItem& v : view_->presentation().items()) items[v.id] = &v;
    p.setPen(Qt::NoPen);
    for (const PlacedNode& n : view_->currentLayout().nodes) {
        auto it = items.find(n.id);
        const QColor c = it == items.end() ? QColor(0xBB, 0xBB, 0xBB) : it->second->border;
        QRectF r = toWidget(QRectF(n.x - n.width / 2, n.y - n.height / 2, n.width, n.height));
        // Never thinner than a pixel, so a tall chain of boxes still reads as boxes.
        r.setWidth(std::max(1.0, r.width()));
        r.setHeight(std::max(1.0, r.height()));
        p.fillRect(r, c);
    }
    const QRectF visible = toWidget(view_->mapToScene(view_->viewport()->rect()).boundingRect());
    p.setPen(QPen(QColor(0x1F, 0x6F, 0xD1), 1.5));
    p.setBrush(QColor(0x1F, 0x6F, 0xD1, 40));
    p.drawRect(visible.intersected(QRectF(rect()).adjusted(1, 1, -1, -1)));
}

void GraphMinimap::mousePressEvent(QMouseEvent* event)
{
    view_->centerOn(toScene(event->position()));
    event->accept();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton) view_->centerOn(toScene(event->position()));
    event->accept();
}

} // namespace tapas
