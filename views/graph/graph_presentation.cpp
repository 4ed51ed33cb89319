#include "views/graph/graph_presentation.h"

#include "views/number_text.h"

#include <QCoreApplication>
#include <QFontMetricsF>

#include <algorithm>
#include <map>

namespace tapas {

namespace {

// An instance's own scope at the depth of its class's scope (the class keeps its first
// instance's, "/transformer/h.0"): the first scoped node's path cut to as many components.
// Constant work per box, unlike commonScope over every node: boxes are built on the GUI thread.
std::string instanceScope(const Graph& g, const BlockClass& c, const BlockInstance& inst)
{
    if (c.scope.empty()) return {};
    const auto separators = std::count(c.scope.begin(), c.scope.end(), '/');
    for (NodeId n : inst.nodes) {
        const Node& node = g.node(n);
        const std::string path = node.scope.empty() ? scopeFromNodeName(node.name) : node.scope;
        if (path.empty()) continue;
        // Cut before the separator after the class's last component.
        size_t at = std::string::npos;
        for (std::ptrdiff_t k = 0, from = 0; k <= separators; ++k, from = std::ptrdiff_t(at) + 1) {
            at = path.find('/', size_t(from));
            if (at == std::string::npos) break;
        }
        return at == std::string::npos ? path : path.substr(0, at);
    }
    return {};
}

QString tr(const char* s)
{
    return QCoreApplication::translate("tapas::GraphPresentation", s);
}

constexpr double kOpHeight = 40;
constexpr double kBlockHeight = 52;
constexpr double kMaxWidth = 300;
constexpr int kMaxTooltipTensors = 6;

QString tensorText(const Graph& g, TensorId t)
{
    const Tensor& tensor = g.tensor(t);
    return QStringLiteral("%1: %2 %3")
        .arg(QString::fromStdString(tensor.name), QString::fromUtf8(dtypeName(tensor.dtype).data()),
             QString::fromStdString(tensor.shape.toString()));
}

// The shape a box shows: the first output's, the one a reader follows down the graph.
QString keyShape(const Graph& g, const Node& n)
{
    for (TensorId t : n.outputs)
        if (t != kNoTensor) return QString::fromStdString(g.tensor(t).shape.toString());
    return {};
}

double textWidth(const QFontMetricsF& metrics, const QString& s)
{
    return metrics.horizontalAdvance(s);
}

QString elided(const QFontMetricsF& metrics, const QString& s, double width)
{
    return metrics.elidedText(s, Qt::ElideMiddle, width);
}

constexpr NodeId kCancelStride = 2048;

} // namespace

QFont GraphPresentation::titleFont(const QFont& base)
{
    QFont f = base;
    f.setPixelSize(12); // scene units are points: sizes must not follow the screen's DPI
    f.setBold(true);
    return f;
}

QFont GraphPresentation::detailFont(const QFont& base)
{
    QFont f = base;
    f.setPixelSize(10);
    return f;
}

bool GraphPresentation::isDrawn(const Node& n)
{
    return !(n.opType == "Constant" && n.domain.empty());
}

int GraphPresentation::expandedItemCount(const Graph& graph)
{
    int n = int(graph.inputs.size() + graph.outputs.size());
    for (const Node& node : graph.nodes) n += isDrawn(node) ? 1 : 0;
    return n;
}

GraphPresentation::GraphPresentation(const Graph& graph, const FoldedGraph* folded, const ExpandedSet& expanded,
                                     const QFont& font, int levelBoxLimit, const Progress& progress)
    : nodeCount_(int(graph.nodes.size())), terminalCount_(int(graph.inputs.size() + graph.outputs.size())),
      expanded_(expanded)
{
    // A fold that does not match the graph (stale, or from another model) is ignored rather
    // than trusted with out-of-range ids.
    if (folded && folded->nodeRef.size() != graph.nodes.size()) folded = nullptr;
    if (folded) {
        style_ = BlockStyle(*folded);
        for (const BlockClass& c : folded->classes) {
            instanceBase_.push_back(instanceCount_);
            instanceCount_ += int(c.instances.size());
            sectionBase_.push_back(sectionTotal_);
            if (c.repeated() && int(c.instances.size()) > kSectionSize)
                sectionTotal_ += (int(c.instances.size()) + kSectionSize - 1) / kSectionSize;
        }
        decideUniqueBoxes(graph, *folded, levelBoxLimit);
    }
    nodeItem_.assign(graph.nodes.size(), -1);
    // A cancelled build stops early and leaves a partial presentation: its caller drops it.
    if (!buildOps(graph, folded, font, progress)) return;
    if (folded) buildBlocks(graph, *folded, font);
    buildTerminals(graph, font);
    buildEdges(graph, progress);
}

void GraphPresentation::decideUniqueBoxes(const Graph& g, const FoldedGraph& folded, int levelBoxLimit)
{
    // Boxes of the folded picture with every unique op drawn: repeated instances, unique ops,
    // graph inputs and outputs.
    std::vector<int> drawnOfClass(folded.classes.size(), 0);
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        const int c = folded.nodeRef[size_t(id)].classId;
        if (c >= 0 && size_t(c) < drawnOfClass.size() && isDrawn(g.node(id))) ++drawnOfClass[size_t(c)];
    }
    int boxes = int(g.inputs.size() + g.outputs.size());
    for (const BlockClass& c : folded.classes)
        boxes += !c.repeated()                            ? drawnOfClass[size_t(c.id)]
                 : int(c.instances.size()) > kSectionSize ? (int(c.instances.size()) + kSectionSize - 1) / kSectionSize
                                                          : int(c.instances.size());
    partNumber_.assign(folded.classes.size(), 0);
    boxUnique_ = boxes > levelBoxLimit;
    if (!boxUnique_) return;
    // Numbered in chain order, the order a reader meets them.
    int next = 0;
    for (const BlockRef& b : folded.chain) {
        const BlockClass& c = folded.classes[size_t(b.classId)];
        if (!c.repeated() && drawnOfClass[size_t(c.id)] >= 2 && partNumber_[size_t(c.id)] == 0)
            partNumber_[size_t(c.id)] = ++next;
    }
}

bool GraphPresentation::boxed(int classId) const
{
    if (style_.repeated(classId)) return true;
    return classId >= 0 && size_t(classId) < partNumber_.size() && partNumber_[size_t(classId)] > 0;
}

bool GraphPresentation::sectioned(int classId) const
{
    return sectionCount(classId) > 0;
}

int GraphPresentation::sectionCount(int classId) const
{
    if (classId < 0 || size_t(classId) >= sectionBase_.size()) return 0;
    const int next = size_t(classId) + 1 < sectionBase_.size() ? sectionBase_[size_t(classId) + 1] : sectionTotal_;
    return next - sectionBase_[size_t(classId)];
}

int GraphPresentation::sectionOf(int classId, int instance) const
{
    return sectioned(classId) && instance >= 0 ? instance / kSectionSize : -1;
}

std::pair<int, int> GraphPresentation::sectionRange(InstanceKey section) const
{
    const int s = section.sectionIndex();
    if (!section.isSection() || s >= sectionCount(section.classId)) return {0, 0};
    return {s * kSectionSize, std::min((s + 1) * kSectionSize, style_.instanceCount(section.classId))};
}

bool GraphPresentation::instanceShown(int classId, int instance) const
{
    const int s = sectionOf(classId, instance);
    return s < 0 || isExpanded(InstanceKey::section(classId, s));
}

int GraphPresentation::clusterOf(InstanceKey k) const
{
    if (!k.isSection()) return instanceIndex(k);
    if (k.classId < 0 || size_t(k.classId) >= sectionBase_.size()) return -1;
    return instanceCount_ + sectionBase_[size_t(k.classId)] + k.sectionIndex();
}

QString GraphPresentation::instanceTitle(InstanceKey k) const
{
    if (k.isSection()) {
        const auto [first, end] = sectionRange(k);
        return tr("%1 · %2–%3/%4").arg(style_.name(k.classId)).arg(first + 1).arg(end).arg(style_.instanceCount(k.classId));
    }
    if (!style_.repeated(k.classId) && boxed(k.classId)) return tr("Section %1").arg(partNumber_[size_t(k.classId)]);
    return tr("%1 · %2/%3").arg(style_.name(k.classId)).arg(k.instance + 1).arg(style_.instanceCount(k.classId));
}

void GraphPresentation::addItem(VisualItem item)
{
    byId_[item.id] = items_.size();
    items_.push_back(std::move(item));
}

int GraphPresentation::instanceIndex(InstanceKey k) const
{
    if (k.classId < 0 || size_t(k.classId) >= instanceBase_.size()) return -1;
    return instanceBase_[size_t(k.classId)] + k.instance;
}

int GraphPresentation::blockItemId(InstanceKey k) const
{
    if (k.isSection()) {
        if (k.sectionIndex() >= sectionCount(k.classId)) return -1;
        return nodeCount_ + instanceCount_ + terminalCount_ + sectionBase_[size_t(k.classId)] + k.sectionIndex();
    }
    if (k.classId < 0 || size_t(k.classId) >= instanceBase_.size() || k.instance < 0 ||
        k.instance >= style_.instanceCount(k.classId))
        return -1;
    const int i = instanceIndex(k);
    return i < 0 ? -1 : nodeCount_ + i;
}

bool GraphPresentation::buildOps(const Graph& g, const FoldedGraph* folded, const QFont& font, const Progress& progress)
{
    const QFontMetricsF tf(titleFont(font)), df(detailFont(font));
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        if (id % kCancelStride == 0 && progress.cancelled()) return false;
        const Node& n = g.node(id);
        if (!isDrawn(n)) continue;
        VisualItem it;
        it.kind = VisualItem::Kind::Op;
        it.id = id;
        it.node = id;
        it.border = BlockStyle::neutralColor();
        it.fill = BlockStyle::neutralFill();
        if (folded) {
            const NodeBlockRef& ref = folded->nodeRef[size_t(id)];
            it.classId = ref.classId;
            it.instance = ref.instance;
            it.position = ref.position;
            if (boxed(ref.classId)) {
                // Drawn inside its block's (or its section's) box.
                if (!isExpanded({ref.classId, ref.instance}) || !instanceShown(ref.classId, ref.instance)) continue;
                it.inExpandedInstance = true;
                it.section = sectionOf(ref.classId, ref.instance);
                it.border = style_.color(ref.classId);
                it.fill = style_.fill(ref.classId);
            }
        }
        it.title = QString::fromStdString(n.opType);
        it.detail = keyShape(g, n);
        const double w = std::max(textWidth(tf, it.title), textWidth(df, it.detail)) + 24;
        it.width = std::clamp(w, 84.0, kMaxWidth);
        it.detail = elided(df, it.detail, it.width - 16);
        it.height = kOpHeight;
        QStringList tip{QStringLiteral("%1  %2").arg(it.title, QString::fromStdString(n.name))};
        if (!n.scope.empty()) tip << tr("scope %1").arg(QString::fromStdString(n.scope));
        for (TensorId t : n.outputs)
            if (t != kNoTensor) tip << tr("out  %1").arg(tensorText(g, t));
        it.tooltip = tip.join(QLatin1Char('\n'));
        nodeItem_[size_t(id)] = it.id;
        addItem(std::move(it));
    }
    return true;
}

void GraphPresentation::buildBlocks(const Graph& g, const FoldedGraph& folded, const QFont& font)
{
    const QFontMetricsF tf(titleFont(font)), df(detailFont(font));
    for (const BlockClass& c : folded.classes) {
        if (!boxed(c.id)) continue;
        const bool unique = !c.repeated();
        const int count = int(c.instances.size());
        for (int s = 0; s < sectionCount(c.id); ++s) {
            const InstanceKey key = InstanceKey::section(c.id, s);
            if (isExpanded(key)) continue;
            const auto [first, end] = sectionRange(key);
            VisualItem it;
            it.kind = VisualItem::Kind::Block;
            it.id = blockItemId(key);
            it.classId = c.id;
            it.instance = key.instance;
            it.border = style_.color(c.id);
            it.fill = style_.fill(c.id);
            it.title = instanceTitle(key);
            it.detail = tr("%1 blocks · %2 params")
                            .arg(end - first)
                            .arg(shortCount(double(c.paramsPerInstance) * (end - first)));
            const double w = std::max(textWidth(tf, it.title), textWidth(df, it.detail)) + 48;
            it.width = std::clamp(w, 170.0, kMaxWidth);
            it.height = kBlockHeight;
            it.tooltip = QStringList{tr("%1, instances %2 to %3 of %4").arg(style_.name(c.id)).arg(first + 1).arg(end).arg(count),
                                     tr("%1 ops, %2 parameters per instance")
                                         .arg(c.nodesPerInstance)
                                         .arg(groupedCount(c.paramsPerInstance)),
                                     tr("Double-click, click ⊕ or press Enter to show its blocks")}
                             .join(QLatin1Char('\n'));
            for (int i = first; i < end; ++i)
                for (NodeId n : c.instances[size_t(i)].nodes)
                    if (n >= 0 && size_t(n) < nodeItem_.size() && isDrawn(g.node(n))) nodeItem_[size_t(n)] = it.id;
            addItem(std::move(it));
        }
        for (int i = 0; i < count; ++i) {
            const InstanceKey key{c.id, i};
            if (isExpanded(key) || !instanceShown(c.id, i)) continue;
            VisualItem it;
            it.kind = VisualItem::Kind::Block;
            it.id = blockItemId(key);
            it.classId = c.id;
            it.instance = i;
            it.section = sectionOf(c.id, i);
            it.border = style_.color(c.id);
            it.fill = style_.fill(c.id);
            it.title = instanceTitle(key);
            it.detail = tr("%1 ops · %2 params")
                            .arg(c.nodesPerInstance)
                            .arg(shortCount(double(c.paramsPerInstance)));
            // Room for the +/− control at the right.
            const double w = std::max(textWidth(tf, it.title), textWidth(df, it.detail)) + 48;
            it.width = std::clamp(w, 170.0, kMaxWidth);
            it.height = kBlockHeight;
            QStringList tip;
            if (unique)
                tip << tr("%1, a stretch of the model that does not repeat").arg(it.title)
                    << tr("%1 ops, %2 parameters").arg(c.nodesPerInstance).arg(groupedCount(c.paramsPerInstance));
            else
                tip << tr("%1, instance %2 of %3 (×%3)").arg(style_.name(c.id)).arg(i + 1).arg(count)
                    << tr("%1 ops, %2 parameters per instance")
                           .arg(c.nodesPerInstance)
                           .arg(groupedCount(c.paramsPerInstance));
            // The instance's own scope: the class's is its first instance's.
            if (const std::string scope = instanceScope(g, c, c.instances[size_t(i)]); !scope.empty())
                tip << tr("scope %1").arg(QString::fromStdString(scope));
            tip << tr("Double-click, click ⊕ or press Enter to expand");
            it.tooltip = tip.join(QLatin1Char('\n'));
            for (NodeId n : c.instances[size_t(i)].nodes)
                if (n >= 0 && size_t(n) < nodeItem_.size() && isDrawn(g.node(n))) nodeItem_[size_t(n)] = it.id;
            addItem(std::move(it));
        }
    }
}

void GraphPresentation::buildTerminals(const Graph& g, const QFont& font)
{
    const QFontMetricsF tf(titleFont(font)), df(detailFont(font));
    int next = nodeCount_ + instanceCount_;
    auto add = [&](TensorId t, VisualItem::Kind kind) {
        VisualItem it;
        it.kind = kind;
        it.id = next++;
        it.tensor = t;
        it.border = QColor(0x55, 0x55, 0x55);
        it.fill = Qt::white;
        it.title = QString::fromStdString(g.tensor(t).name);
        it.detail = QString::fromStdString(g.tensor(t).shape.toString());
        const double w = std::max(textWidth(tf, it.title), textWidth(df, it.detail)) + 32;
        it.width = std::clamp(w, 84.0, kMaxWidth);
        it.title = elided(tf, it.title, it.width - 20);
        it.detail = elided(df, it.detail, it.width - 20);
        it.height = kOpHeight;
        it.tooltip = (kind == VisualItem::Kind::Input ? tr("graph input  %1") : tr("graph output  %1"))
                         .arg(tensorText(g, t));
        addItem(std::move(it));
    };
    for (TensorId t : g.inputs) add(t, VisualItem::Kind::Input);
    for (TensorId t : g.outputs) add(t, VisualItem::Kind::Output);
}

void GraphPresentation::buildEdges(const Graph& g, const Progress& progress)
{
    std::unordered_map<TensorId, int> inputItem;
    std::unordered_map<TensorId, std::vector<int>> outputItems;
    for (const VisualItem& it : items_) {
        if (it.kind == VisualItem::Kind::Input) inputItem[it.tensor] = it.id;
        if (it.kind == VisualItem::Kind::Output) outputItems[it.tensor].push_back(it.id);
    }
    std::map<std::pair<int, int>, std::vector<TensorId>> flows;
    auto sourceOf = [&](TensorId t) {
        const Tensor& tensor = g.tensor(t);
        if (tensor.producer != kNoNode) return itemOfNode(tensor.producer);
        auto it = inputItem.find(t);
        return it == inputItem.end() ? -1 : it->second; // weights are part of their consumer's box
    };
    auto addFlow = [&](int src, int dst, TensorId t) {
        if (src < 0 || dst < 0 || src == dst) return;
        auto& ts = flows[{src, dst}];
        if (std::find(ts.begin(), ts.end(), t) == ts.end()) ts.push_back(t);
    };
    for (NodeId id = 0; id < NodeId(g.nodes.size()); ++id) {
        if (id % kCancelStride == 0 && progress.cancelled()) return;
        const int dst = itemOfNode(id);
        for (TensorId t : g.node(id).inputs)
            if (t != kNoTensor) addFlow(sourceOf(t), dst, t);
    }
    for (const auto& [t, items] : outputItems)
        for (int dst : items) addFlow(sourceOf(t), dst, t);

    edges_.reserve(flows.size());
    for (auto& [key, tensors] : flows) {
        VisualEdge e{key.first, key.second, std::move(tensors), {}};
        QStringList tip;
        for (size_t i = 0; i < e.tensors.size() && int(i) < kMaxTooltipTensors; ++i) tip << tensorText(g, e.tensors[i]);
        if (int(e.tensors.size()) > kMaxTooltipTensors)
            tip << tr("… and %1 more").arg(int(e.tensors.size()) - kMaxTooltipTensors);
        e.tooltip = tip.join(QLatin1Char('\n'));
        edges_.push_back(std::move(e));
    }
}

const VisualItem* GraphPresentation::item(int id) const
{
    auto it = byId_.find(id);
    return it == byId_.end() ? nullptr : &items_[it->second];
}

int GraphPresentation::itemOfNode(NodeId n) const
{
    return n >= 0 && size_t(n) < nodeItem_.size() ? nodeItem_[size_t(n)] : -1;
}

LayoutGraph GraphPresentation::layoutGraph() const
{
    LayoutGraph lg;
    lg.nodes.reserve(items_.size());
    for (const VisualItem& it : items_) {
        const int cluster = it.inExpandedInstance ? instanceIndex({it.classId, it.instance})
                            : it.section >= 0    ? clusterOf(InstanceKey::section(it.classId, it.section))
                                                 : -1;
        lg.nodes.push_back({it.id, it.width, it.height, cluster});
    }
    lg.edges.reserve(edges_.size());
    for (const VisualEdge& e : edges_) lg.edges.push_back({e.src, e.dst, {}});
    return lg;
}

LayoutDelta GraphPresentation::delta(const GraphPresentation& collapsed, const GraphPresentation& expanded,
                                     InstanceKey k)
{
    LayoutDelta d;
    d.boxId = collapsed.blockItemId(k);
    d.cluster = expanded.clusterOf(k);
    std::set<int> members;
    for (const VisualItem& it : expanded.items_) {
        // A section's members: its instance boxes and the ops of those expanded.
        const bool member = k.isSection() ? it.classId == k.classId && it.section == k.sectionIndex()
                                          : it.inExpandedInstance && it.classId == k.classId && it.instance == k.instance;
        if (!member) continue;
        members.insert(it.id);
        d.memberIds.push_back(it.id);
        // A section's instance boxes are numbered within it, so every full section of a class
        // shares one layout.
        d.positions.push_back(k.isSection() ? (it.kind == VisualItem::Kind::Block ? it.instance % kSectionSize : -1)
                                            : it.position);
        d.part.nodes.push_back({it.id, it.width, it.height, d.cluster});
    }
    for (const VisualEdge& e : expanded.edges_) {
        const bool in = members.count(e.src) > 0, out = members.count(e.dst) > 0;
        if (in && out) d.part.edges.push_back({e.src, e.dst, {}});
        else if (in || out) d.boundary.push_back({e.src, e.dst, {}});
    }
    for (const VisualEdge& e : collapsed.edges_)
        if (e.src == d.boxId || e.dst == d.boxId) d.boxBoundary.push_back({e.src, e.dst, {}});
    return d;
}

} // namespace tapas
