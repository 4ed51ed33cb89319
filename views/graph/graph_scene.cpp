#include "views/graph/graph_scene.h"

#include "views/graph/block_item.h"
#include "views/graph/edge_item.h"
#include "views/graph/node_item.h"

#include <QFontMetricsF>
#include <QGraphicsPathItem>

#include <map>

namespace tapas {

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent)
{
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::emitSelection);
}

void GraphScene::clearContent()
{
    const QSignalBlocker block(this); // clearing is not the user deselecting
    clear();
    byId_.clear();
    frames_.clear();
    nodeItems_ = blockItems_ = edgeItems_ = 0;
    hitId_ = -1;
}

void GraphScene::setContent(const GraphPresentation& presentation, const GraphLayout& layout)
{
    clearContent();
    std::unordered_map<int, const PlacedNode*> placed;
    for (const PlacedNode& n : layout.nodes) placed[n.id] = &n;

    std::map<InstanceKey, QRectF> frameAreas;
    for (const VisualItem& v : presentation.items()) {
        auto it = placed.find(v.id);
        if (it == placed.end()) continue; // not laid out (a stale layout); never guess a place
        QGraphicsItem* item = nullptr;
        if (v.kind == VisualItem::Kind::Block) {
            item = new BlockItem(v);
            ++blockItems_;
        } else {
            item = new NodeItem(v);
            ++nodeItems_;
        }
        item->setPos(it->second->x, it->second->y);
        addItem(item);
        byId_[v.id] = item;
        if (v.inExpandedInstance) {
            const QRectF r(it->second->x - v.width / 2, it->second->y - v.height / 2, v.width, v.height);
            QRectF& area = frameAreas[{v.classId, v.instance}];
            area = area.isNull() ? r : area.united(r);
        }
    }
    for (const auto& [key, area] : frameAreas) {
        const QRectF r = area.adjusted(-kFramePadding + 3, -kFramePaddingTop + 3, kFramePadding - 3, kFramePadding - 3);
        const QString caption = presentation.instanceTitle(key);
        // Wide enough for its caption: the layout reserved at least the collapsed box's width.
        QRectF framed = r;
        const double minWidth = QFontMetricsF(GraphPresentation::titleFont(font())).horizontalAdvance(caption) + 48;
        if (framed.width() < minWidth) framed.adjust(-(minWidth - framed.width()) / 2, 0, (minWidth - framed.width()) / 2, 0);
        auto* frame = new InstanceFrameItem(key, caption, presentation.style().color(key.classId), framed);
        addItem(frame);
        QColor washColor = presentation.style().color(key.classId);
        washColor.setAlpha(24);
        QPainterPath washPath;
        washPath.addRoundedRect(framed, 9, 9);
        auto* wash = addPath(washPath, Qt::NoPen, washColor);
        wash->setZValue(-1);
        frames_[key] = frame;
    }

    std::map<std::pair<int, int>, const VisualEdge*> edges;
    for (const VisualEdge& e : presentation.edges()) edges[{e.src, e.dst}] = &e;
    for (const RoutedEdge& r : layout.edges) {
        auto it = edges.find({r.src, r.dst});
        if (it == edges.end() || r.points.empty()) continue;
        addItem(new EdgeItem(r, *it->second));
        ++edgeItems_;
    }
    const LayoutRect b = layout.bounds;
    setSceneRect(QRectF(b.x, b.y, b.width, b.height).adjusted(-40, -40, 40, 40));
}

QGraphicsItem* GraphScene::itemForId(int id) const
{
    auto it = byId_.find(id);
    return it == byId_.end() ? nullptr : it->second;
}

InstanceFrameItem* GraphScene::frameFor(InstanceKey key) const
{
    auto it = frames_.find(key);
    return it == frames_.end() ? nullptr : it->second;
}

void GraphScene::setHitItem(int id)
{
    auto mark = [this](int which, bool on) {
        QGraphicsItem* item = itemForId(which);
        if (!item) return;
        if (item->type() == NodeItem::Type) static_cast<NodeItem*>(item)->setHit(on);
        if (item->type() == BlockItem::Type) static_cast<BlockItem*>(item)->setHit(on);
    };
    mark(hitId_, false);
    hitId_ = id;
    mark(hitId_, true);
}

void GraphScene::emitSelection()
{
    const QList<QGraphicsItem*> selected = selectedItems();
    GraphSelection s;
    if (!selected.isEmpty()) {
        QGraphicsItem* item = selected.first();
        switch (item->type()) {
        case NodeItem::Type: {
            const VisualItem& v = static_cast<NodeItem*>(item)->visual();
            s = v.kind == VisualItem::Kind::Op ? GraphSelection::ofNode(v.node) : GraphSelection::ofTensor(v.tensor);
            break;
        }
        case BlockItem::Type: {
            const InstanceKey k = static_cast<BlockItem*>(item)->key();
            s = GraphSelection::ofBlock(k.classId, k.instance);
            break;
        }
        case InstanceFrameItem::Type: {
            const InstanceKey k = static_cast<InstanceFrameItem*>(item)->key();
            s = GraphSelection::ofBlock(k.classId, k.instance);
            break;
        }
        case EdgeItem::Type: {
            const VisualEdge& e = static_cast<EdgeItem*>(item)->visual();
            if (!e.tensors.empty()) s = GraphSelection::ofTensor(e.tensors.front());
            break;
        }
        default:
            break;
        }
    }
    Q_EMIT graphSelectionChanged(s);
}

} // namespace tapas
