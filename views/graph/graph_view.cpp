#include "views/graph/graph_view.h"

#include "core/layout/part_layout_cache.h"
#include "views/background_job.h"
#include "views/graph/block_item.h"
#include "views/graph/graph_minimap.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_search.h"
#include "views/number_text.h"

#include <QGraphicsItem>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tapas {

namespace {
constexpr double kMinZoom = 0.02;
constexpr double kMaxZoom = 6.0;
constexpr double kStep = 1.2;
} // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent), scene_(new GraphScene(this)), job_(new BackgroundJob(BackgroundJob::OnRestart::Supersede, this)), search_(new GraphSearch(this)),
      minimap_(new GraphMinimap(this)), partCache_(std::make_shared<PartLayoutCache>())
{
    setScene(scene_);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setBackgroundBrush(QColor(0xFC, 0xFC, 0xFC));
    // drawBackground fills the whole viewport with that opaque brush: the viewport's own palette
    // fill (and its parents' under it) would paint every pixel once more on each repaint.
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::StrongFocus);

    connect(scene_, &GraphScene::expandRequested, this, [this](int c, int i) { expand({c, i}); });
    connect(scene_, &GraphScene::collapseRequested, this, [this](int c, int i) { collapse({c, i}); });
    connect(scene_, &GraphScene::graphSelectionChanged, this, &GraphView::selectionChanged);
    connect(job_, &BackgroundJob::finished, this, [this] { onLayoutFinished(job_->takeResult<LayoutOutcome>()); });
    connect(job_, &BackgroundJob::failed, this, [this](const QString&, const QString& error) { onLayoutFailed(error); });
    connect(job_, &BackgroundJob::cancelled, this, &GraphView::onLayoutCancelled);
    connect(search_, &GraphSearch::currentChanged, this, [this](NodeId n, int, int) { focusNode(n); });
}

GraphView::~GraphView() = default;

LayoutOptions GraphView::layoutOptions() const
{
    LayoutOptions o;
    o.nodeSep = 22;
    o.rankSep = 34;
    o.partPadding = GraphScene::kFramePadding;
    o.partPaddingTop = GraphScene::kFramePaddingTop;
    return o;
}

void GraphView::clearModel()
{
    job_->cancel();
    queue_.clear();
    pending_.reset();
    focusAfterLayout_ = kNoNode;
    graph_.reset();
    folded_.reset();
    presentation_ = GraphPresentation();
    layout_ = GraphLayout();
    foldedLayout_ = GraphLayout();
    foldedPresentation_ = GraphPresentation();
    partCache_ = std::make_shared<PartLayoutCache>(); // a run still going keeps the old one
    scene_->clearContent();
    minimap_->refresh();
    search_->setGraph(nullptr);
    updateBusy();
}

void GraphView::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    clearModel();
    if (!graph) return;
    graph_ = std::move(graph);
    folded_ = std::move(folded);
    search_->setGraph(graph_);
    // What to draw is worked out on the worker too: it walks every node (0.1 s at 100k).
    job_->start(
        [graph = graph_, folded = folded_, font = font(), options = layoutOptions()](const Progress& progress) {
            LayoutOutcome out;
            out.first = true;
            out.presentation.emplace(*graph, folded.get(), ExpandedSet{}, font,
                                     GraphPresentation::kDefaultLevelBoxLimit, progress);
            out.layout = layoutGraph(out.presentation->layoutGraph(), options, progress);
            return out;
        },
        tr("Laying out the graph"));
    updateBusy();
}

void GraphView::noticeOnOpen(const GraphPresentation& p)
{
    const int repeated = folded_ ? int(std::count_if(folded_->classes.begin(), folded_->classes.end(),
                                                     [](const BlockClass& c) { return c.repeated(); }))
                                 : 0;
    // The notice counts nodes as the Summary does (every node of the file); the limit compares
    // what would be drawn (Constants are not).
    const int64_t nodes = int64_t(graph_->nodes.size());
    const int full = GraphPresentation::expandedItemCount(*graph_);
    const int64_t boxes = int64_t(p.items().size());
    if ((repeated > 0 || p.boxesUniqueParts()) && full > itemLimit_) {
        Q_EMIT notice(tr("This model has %1 nodes, too many to draw expanded. It opens folded into %2 boxes; "
                         "expand blocks one at a time.")
                          .arg(groupedCount(nodes))
                          .arg(groupedCount(boxes)));
    } else if (repeated == 0 && p.boxesUniqueParts()) {
        Q_EMIT notice(tr("No repeated blocks were found. The %1 nodes open as %2 sections; expand the ones you want to read.")
                          .arg(groupedCount(nodes))
                          .arg(groupedCount(boxes)));
    } else if (repeated == 0 && full > itemLimit_) {
        Q_EMIT notice(tr("This model has %1 nodes and no repeated blocks: every node is drawn.")
                          .arg(groupedCount(nodes)));
    } else if (repeated == 0) {
        Q_EMIT notice(tr("No repeated blocks were found: every node is drawn as unique."));
    }
}

void GraphView::onLayoutFinished(LayoutOutcome out)
{

    if (!out.refusal.isEmpty()) {
        Q_EMIT notice(out.refusal);
        focusAfterLayout_ = kNoNode;
        pump();
        return;
    }
    if (!out.layout) {
        onLayoutFailed(QString::fromStdString(out.layout.error()));
        return;
    }
    if (out.first) noticeOnOpen(*out.presentation);
    pending_ = std::move(out.presentation);
    pendingIsFull_ = out.first;
    applyLayout(*out.layout);
}

void GraphView::expand(InstanceKey key)
{
    enqueue({true, key});
}

void GraphView::collapse(InstanceKey key)
{
    enqueue({false, key});
}

void GraphView::enqueue(Operation op)
{
    if (!graph_) return;
    queue_.push_back(op);
    pump();
}

void GraphView::pump()
{
    while (!job_->isRunning() && !queue_.empty()) {
        const Operation op = queue_.front();
        queue_.pop_front();
        if (op.expand) startExpand(op.key);
        else startCollapse(op.key);
    }
    updateBusy();
}

void GraphView::startExpand(InstanceKey key)
{
    if (!folded_ || presentation_.isExpanded(key) || presentation_.blockItemId(key) < 0) return;
    const VisualItem* box = presentation_.item(presentation_.blockItemId(key));
    if (!box) return; // not a drawn block box
    ExpandedSet expanded = presentation_.expanded();
    expanded.insert(key);
    // The new presentation, the part and its layout all on the worker: only the scene is
    // rebuilt on the GUI thread.
    job_->start(
        [graph = graph_, folded = folded_, current = presentation_, expanded, key, font = font(),
         limit = itemLimit_, title = box->title, previous = layout_, options = layoutOptions(),
         cache = partCache_](const Progress& progress) {
            LayoutOutcome out;
            GraphPresentation next(*graph, folded.get(), expanded, font, GraphPresentation::kDefaultLevelBoxLimit,
                                   progress);
            if (int(next.items().size()) > limit) {
                out.refusal = tr("Expanding %1 would draw %2 boxes, more than the limit of %3. Collapse other blocks first.")
                                  .arg(title)
                                  .arg(groupedCount(int64_t(next.items().size())))
                                  .arg(groupedCount(limit));
                return out;
            }
            const LayoutDelta delta = GraphPresentation::delta(current, next, key);
            // A section's inside (a run of instance boxes) is cached apart from an instance's.
            const int cacheKey = key.isSection() ? -2 - key.classId : key.classId;
            out.layout = layoutExpansion(previous, delta.boxId, delta.part, delta.boundary, options, progress,
                                         delta.cluster, cache.get(), cacheKey, delta.positions);
            out.presentation = std::move(next);
            return out;
        },
        tr("Expanding %1").arg(box->title));
}

void GraphView::startCollapse(InstanceKey key)
{
    if (!presentation_.isExpanded(key)) return;
    ExpandedSet expanded = presentation_.expanded();
    expanded.erase(key);
    if (key.isSection()) { // its instances fold with it
        const auto [first, end] = presentation_.sectionRange(key);
        for (int i = first; i < end; ++i) expanded.erase({key.classId, i});
    }
    job_->start(
        [graph = graph_, folded = folded_, current = presentation_, expanded, key, font = font(), previous = layout_,
         options = layoutOptions()](const Progress&) {
            LayoutOutcome out;
            GraphPresentation next(*graph, folded.get(), expanded, font);
            const LayoutDelta delta = GraphPresentation::delta(next, current, key);
            const VisualItem* box = next.item(delta.boxId);
            if (!box) {
                out.layout = Result<GraphLayout>::failure("the collapsed block has no box");
                return out;
            }
            // Pure geometry on the current picture, no layout engine.
            out.layout = layoutCollapse(previous, delta.memberIds, PlacedNode{box->id, 0, 0, box->width, box->height, -1},
                                        delta.boxBoundary, options);
            out.presentation = std::move(next);
            return out;
        },
        tr("Collapsing a block"));
}

void GraphView::applyLayout(const GraphLayout& layout)
{
    if (!pending_) return;
    const bool first = pendingIsFull_;
    const QPointF centre = mapToScene(viewport()->rect().center());
    presentation_ = std::move(*pending_);
    pending_.reset();
    layout_ = layout;
    if (first) {
        foldedLayout_ = layout;
        foldedPresentation_ = presentation_;
    }
    scene_->setContent(presentation_, layout_);
    if (first) fitToWindow();
    else centerOn(centre);
    minimap_->refresh();
    Q_EMIT layoutApplied();
    if (focusAfterLayout_ != kNoNode) {
        const NodeId n = focusAfterLayout_;
        focusAfterLayout_ = kNoNode;
        focusNode(n);
    }
    pump();
}

void GraphView::expandAll()
{
    if (!graph_ || !folded_) return;
    int total = int(presentation_.items().size());
    int queued = 0, left = 0;
    for (const VisualItem& v : presentation_.items()) {
        if (v.kind != VisualItem::Kind::Block) continue;
        const InstanceKey key{v.classId, v.instance};
        int drawn = 0;
        if (key.isSection()) {
            const auto [first, end] = presentation_.sectionRange(key);
            drawn = end - first; // its instances' boxes
        } else {
            const BlockInstance& inst = folded_->classes[size_t(v.classId)].instances[size_t(v.instance)];
            drawn = int(std::count_if(inst.nodes.begin(), inst.nodes.end(),
                                      [&](NodeId n) { return GraphPresentation::isDrawn(graph_->node(n)); }));
        }
        if (total + drawn - 1 > itemLimit_) {
            ++left;
            continue;
        }
        total += drawn - 1;
        queue_.push_back({true, key});
        ++queued;
    }
    if (left > 0)
        Q_EMIT notice(tr("Expanded %1 blocks; %2 stay folded, as expanding them would draw more than %3 boxes.")
                          .arg(queued)
                          .arg(left)
                          .arg(groupedCount(itemLimit_)));
    pump();
}

void GraphView::collapseAll()
{
    if (!graph_ || foldedLayout_.nodes.empty()) return; // the first layout is still running
    queue_.clear();
    job_->cancel();
    if (presentation_.expanded().empty() && !pending_) return;
    // The folded picture was laid out once, when the model opened: show it again as it was.
    pending_ = foldedPresentation_;
    pendingIsFull_ = false;
    applyLayout(foldedLayout_);
}

void GraphView::onLayoutFailed(const QString& error)
{
    pending_.reset();
    focusAfterLayout_ = kNoNode;
    Q_EMIT notice(tr("The graph layout failed: %1").arg(error));
    pump();
}

void GraphView::onLayoutCancelled()
{
    pending_.reset();
    queue_.clear();
    focusAfterLayout_ = kNoNode;
    Q_EMIT notice(tr("Graph layout cancelled."));
    updateBusy();
}

void GraphView::cancelLayout()
{
    job_->cancel();
}

bool GraphView::isBusy() const
{
    return job_->isRunning() || !queue_.empty();
}

void GraphView::updateBusy()
{
    const bool busy = isBusy();
    if (busy == busy_) return;
    busy_ = busy;
    Q_EMIT busyChanged(busy);
}

void GraphView::focusNode(NodeId node)
{
    if (!graph_) return;
    if (job_->isRunning() || !queue_.empty()) {
        focusAfterLayout_ = node; // the picture is about to change; look once it has
        return;
    }
    const int id = presentation_.itemOfNode(node);
    const VisualItem* item = presentation_.item(id);
    if (!item) return;
    if (item->kind == VisualItem::Kind::Block) {
        focusAfterLayout_ = node;
        expand({item->classId, item->instance});
        return;
    }
    centreAndSelect(id);
}

void GraphView::focusBlock(InstanceKey key)
{
    if (!graph_ || !folded_ || key.classId < 0 || size_t(key.classId) >= folded_->classes.size()) return;
    const BlockClass& cls = folded_->classes[size_t(key.classId)];
    if (key.instance < 0 || size_t(key.instance) >= cls.instances.size()) return;
    const std::vector<NodeId>& nodes = cls.instances[size_t(key.instance)].nodes;
    if (nodes.empty()) return;
    const int id = presentation_.blockItemId(key);
    if (id >= 0 && !presentation_.isExpanded(key) && !isBusy() && presentation_.item(id)) {
        centreAndSelect(id);
        return;
    }
    // An instance inside a folded section: show the section's box.
    if (const int s = presentation_.sectionOf(key.classId, key.instance); s >= 0 && !isBusy()) {
        const int sectionId = presentation_.blockItemId(InstanceKey::section(key.classId, s));
        if (presentation_.item(sectionId)) {
            centreAndSelect(sectionId);
            return;
        }
    }
    focusNode(nodes.front());
}

void GraphView::centreAndSelect(int itemId)
{
    QGraphicsItem* item = scene_->itemForId(itemId);
    if (!item) return;
    scene_->clearSelection();
    item->setSelected(true);
    scene_->setHitItem(itemId);
    // A hit is only found if it can be read: zoom in from an overview first.
    if (zoom() < 0.8) {
        const ViewportAnchor anchor = transformationAnchor();
        setTransformationAnchor(QGraphicsView::NoAnchor);
        setTransform(QTransform::fromScale(1.0, 1.0));
        setTransformationAnchor(anchor);
    }
    centerOn(item);
}

double GraphView::zoom() const
{
    return transform().m11();
}

void GraphView::scaleBy(double factor)
{
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    if (zoom() > 0) factor = target / zoom();
    scale(factor, factor);
    minimap_->refresh();
}

void GraphView::zoomIn()
{
    scaleBy(kStep);
}

void GraphView::zoomOut()
{
    scaleBy(1 / kStep);
}

void GraphView::resetZoom()
{
    setTransform(QTransform());
}

void GraphView::fitToWindow()
{
    const QRectF r = scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20);
    if (r.isEmpty()) return;
    const QRectF port = viewport()->rect();
    const double whole = std::min(port.width() / r.width(), port.height() / r.height());
    // Never blow a three-box model up past 1:1.
    if (whole >= kReadableZoom) {
        const double z = std::min(1.0, whole);
        setTransform(QTransform::fromScale(z, z));
        centerOn(r.center());
        minimap_->refresh();
        return;
    }
    // A tall model fitted whole is a sliver of unreadable boxes: fit its width instead, never
    // below a readable zoom, and start at its top (the minimap shows the rest).
    const double z = std::clamp(port.width() / r.width(), kReadableZoom, 1.0);
    setTransform(QTransform::fromScale(z, z));
    const double visibleHeight = port.height() / z;
    centerOn(QPointF(r.center().x(), r.top() + visibleHeight / 2));
    minimap_->refresh();
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    minimap_->refresh();
}

void GraphView::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    minimap_->refresh();
}

void GraphView::wheelEvent(QWheelEvent* event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0) return QGraphicsView::wheelEvent(event);
    scaleBy(std::pow(kStep, delta / 120.0));
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        fitToWindow();
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        // What the block tooltips promise: Enter expands the selected box, or collapses the
        // selected expanded instance.
        for (QGraphicsItem* item : scene_->selectedItems()) {
            if (item->type() == BlockItem::Type) {
                expand(static_cast<BlockItem*>(item)->key());
                return;
            }
            if (item->type() == InstanceFrameItem::Type) {
                collapse(static_cast<InstanceFrameItem*>(item)->key());
                return;
            }
        }
        QGraphicsView::keyPressEvent(event);
        return;
    default:
        QGraphicsView::keyPressEvent(event);
    }
}

} // namespace tapas
