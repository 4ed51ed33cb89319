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
    edges_.clear();
    nodeItems_ = blockItems_ = edgeItems_ = 0;
    hitId_ = -1;
}

namespace {

// The same look: an item can stay in the scene and only move.
bool sameVisual(const VisualItem& a, const VisualItem& b)
{
    return a.kind == b.kind && a.node == b.node && a.tensor == b.tensor && a.classId == b.classId &&
           a.instance == b.instance && a.inExpandedInstance == b.inExpandedInstance && a.width == b.width &&
           a.height == b.height && a.title == b.title && a.border == b.border;
}

const VisualItem& visualOf(QGraphicsItem* item)
{
    return item->type() == BlockItem::Type ? static_cast<BlockItem*>(item)->visual()
                                           : static_cast<NodeItem*>(item)->visual();
}

bool sameRoute(const RoutedEdge& a, const RoutedEdge& b)
{
    if (a.hasArrow != b.hasArrow || a.points.size() != b.points.size()) return false;
    if (a.hasArrow && (a.arrowTip.x != b.arrowTip.x || a.arrowTip.y != b.arrowTip.y)) return false;
    for (size_t i = 0; i < a.points.size(); ++i)
        if (a.points[i].x != b.points[i].x || a.points[i].y != b.points[i].y) return false;
    return true;
}

} // namespace

void GraphScene::setContent(const GraphPresentation& presentation, const GraphLayout& layout)
{
    // An expand or collapse changes one block's items and moves the rest: items that stay are
    // moved, not rebuilt (rebuilding Swin-T's scene on every click stalled the GUI 50-150 ms).
    // Blocked: dropping the expanded box is not the user deselecting it (the scene rect's
    // signal, which the view's scroll bars follow, is sent after).
    QSignalBlocker block(this);
    std::unordered_map<int, const PlacedNode*> placed;
    placed.reserve(layout.nodes.size());
    for (const PlacedNode& n : layout.nodes) placed[n.id] = &n;

    std::unordered_map<int, QGraphicsItem*> kept;
    kept.reserve(presentation.items().size());
    std::map<InstanceKey, QRectF> frameAreas;
    for (const VisualItem& v : presentation.items()) {
        auto it = placed.find(v.id);
        if (it == placed.end()) continue; // not laid out (a stale layout); never guess a place
        QGraphicsItem* item = nullptr;
        if (auto old = byId_.find(v.id); old != byId_.end() && sameVisual(visualOf(old->second), v)) {
            item = old->second;
            byId_.erase(old);
        } else if (v.kind == VisualItem::Kind::Block) {
            item = new BlockItem(v);
        } else {
            item = new NodeItem(v);
        }
        const QPointF pos(it->second->x, it->second->y);
        if (item->scene() != this) {
            item->setPos(pos);
            addItem(item);
        } else if (item->pos() != pos) {
            item->setPos(pos);
        }
        kept[v.id] = item;
        // An expanded instance's ops sit in its frame; an expanded section's boxes (and the ops
        // of those expanded) in the section's.
        const QRectF r(it->second->x - v.width / 2, it->second->y - v.height / 2, v.width, v.height);
        auto addTo = [&](InstanceKey key) {
            QRectF& area = frameAreas[key];
            area = area.isNull() ? r : area.united(r);
        };
        if (v.inExpandedInstance) addTo({v.classId, v.instance});
        if (v.section >= 0) addTo(InstanceKey::section(v.classId, v.section));
    }
    // What is left of the old items is gone from the picture.
    for (auto& [id, item] : byId_) {
        if (id == hitId_) hitId_ = -1;
        delete item;
    }
    byId_ = std::move(kept);
    nodeItems_ = blockItems_ = 0;
    for (const auto& [id, item] : byId_) ++(item->type() == BlockItem::Type ? blockItems_ : nodeItems_);

    std::map<InstanceKey, Frame> frames;
    for (const auto& [key, area] : frameAreas) {
        const QRectF r = area.adjusted(-kFramePadding + 3, -kFramePaddingTop + 3, kFramePadding - 3, kFramePadding - 3);
        if (auto old = frames_.find(key); old != frames_.end() && old->second.area == r) {
            frames[key] = old->second;
            frames_.erase(old);
            continue;
        }
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
        frames[key] = {frame, wash, r};
    }
    for (auto& [key, f] : frames_) {
        delete f.frame;
        delete f.wash;
    }
    frames_ = std::move(frames);

    std::map<std::pair<int, int>, const VisualEdge*> edges;
    for (const VisualEdge& e : presentation.edges()) edges[{e.src, e.dst}] = &e;
    std::map<std::pair<int, int>, EdgeEntry> keptEdges;
    for (const RoutedEdge& r : layout.edges) {
        auto it = edges.find({r.src, r.dst});
        if (it == edges.end() || r.points.empty()) continue;
        const std::pair<int, int> key{r.src, r.dst};
        if (auto old = edges_.find(key); old != edges_.end() && old->second.item->visual().tensors == it->second->tensors) {
            EdgeEntry entry = old->second;
            edges_.erase(old);
            if (!sameRoute(entry.route, r)) {
                entry.item->setRoute(r);
                entry.route = r;
            }
            keptEdges[key] = std::move(entry);
            continue;
        }
        auto* item = new EdgeItem(r, *it->second);
        addItem(item);
        keptEdges[key] = {item, r};
    }
    for (auto& [key, e] : edges_) delete e.item;
    edges_ = std::move(keptEdges);
    edgeItems_ = int(edges_.size());
    block.unblock();
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
    return it == frames_.end() ? nullptr : it->second.frame;
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
