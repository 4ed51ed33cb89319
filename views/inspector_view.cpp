#include "views/inspector_view.h"

#include "core/ops/op_registry.h"
#include "views/graph/graph_presentation.h"
#include "views/number_text.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace tapas {

namespace {

constexpr int kMaxListed = 12;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString flopsText(double f)
{
    return QStringLiteral("%1 (%2)").arg(shortCount(f), groupedCount(int64_t(f)));
}

} // namespace

InspectorView::InspectorView(QWidget* parent)
    : QWidget(parent), title_(new QLabel(this)), tree_(new QTreeView(this)), model_(new QStandardItemModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    QFont f = title_->font();
    f.setBold(true);
    title_->setFont(f);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(title_);
    tree_->setModel(model_);
    tree_->setUniformRowHeights(true);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree_->setAlternatingRowColors(true);
    // Values take the width the names leave and elide ("…", whole text in the tooltip) rather
    // than run off the dock's edge; names get at most 45% of the width.
    tree_->setTextElideMode(Qt::ElideRight);
    tree_->header()->setStretchLastSection(true);
    tree_->header()->setSectionResizeMode(QHeaderView::Interactive);
    tree_->viewport()->installEventFilter(this);
    layout->addWidget(tree_);
    clear();
}

void InspectorView::setModel(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    graph_ = std::move(graph);
    folded_ = folded && graph_ && folded->nodeRef.size() == graph_->nodes.size() ? std::move(folded) : nullptr;
    style_ = folded_ ? BlockStyle(*folded_) : BlockStyle();
    clear();
}

void InspectorView::clear()
{
    selection_ = {};
    model_->clear();
    model_->setHorizontalHeaderLabels({tr("Property"), tr("Value")});
    title_->setText(tr("Nothing selected. Click a node, an edge or a block in the graph."));
}

QString InspectorView::title() const
{
    return title_->text();
}

void InspectorView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) showSelection(GraphSelection(selection_));
    QWidget::changeEvent(event);
}

void InspectorView::begin(const QString& title)
{
    model_->clear();
    model_->setHorizontalHeaderLabels({tr("Property"), tr("Value")});
    title_->setText(title);
}

void InspectorView::end()
{
    tree_->expandAll();
    fitNameColumn();
}

void InspectorView::fitNameColumn()
{
    tree_->resizeColumnToContents(0);
    const int cap = tree_->viewport()->width() * 45 / 100;
    if (tree_->columnWidth(0) > cap) tree_->setColumnWidth(0, std::max(cap, 60));
}

bool InspectorView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == tree_->viewport() && event->type() == QEvent::Resize) fitNameColumn();
    return QWidget::eventFilter(watched, event);
}

QStandardItem* InspectorView::section(const QString& name)
{
    auto* item = new QStandardItem(name);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    model_->appendRow({item, new QStandardItem()});
    return item;
}

void InspectorView::row(QStandardItem* section, const QString& property, const QString& value, const QString& tip)
{
    auto* v = new QStandardItem(value);
    v->setToolTip(tip.isEmpty() ? value : tip);
    auto* p = new QStandardItem(property);
    p->setToolTip(property);
    section->appendRow({p, v});
}

QString InspectorView::valueOf(const QString& sectionName, const QString& property) const
{
    for (int s = 0; s < model_->rowCount(); ++s) {
        QStandardItem* sec = model_->item(s, 0);
        if (sec->text() != sectionName) continue;
        for (int r = 0; r < sec->rowCount(); ++r)
            if (sec->child(r, 0)->text() == property) return sec->child(r, 1)->text();
    }
    return {};
}

QString InspectorView::tensorSummary(TensorId t) const
{
    const Tensor& tensor = graph_->tensor(t);
    QString s = QStringLiteral("%1 %2").arg(QString::fromUtf8(dtypeName(tensor.dtype).data()), qs(tensor.shape.toString()));
    switch (tensor.kind) {
    case TensorKind::Weight: return tr("%1 · weight, %2 elements").arg(s, shortCount(double(tensor.storedElements())));
    case TensorKind::Constant: return tr("%1 · constant").arg(s);
    case TensorKind::Input: return tr("%1 · graph input").arg(s);
    case TensorKind::Activation: break;
    }
    return s;
}

QString InspectorView::blockOf(NodeId n) const
{
    if (!folded_) return tr("not folded");
    const NodeBlockRef& ref = folded_->nodeRef[size_t(n)];
    if (ref.classId < 0) return tr("none");
    if (!style_.repeated(ref.classId)) return style_.name(ref.classId);
    return tr("%1 · %2/%3, position %4")
        .arg(style_.name(ref.classId))
        .arg(ref.instance + 1)
        .arg(style_.instanceCount(ref.classId))
        .arg(ref.position + 1);
}

void InspectorView::showSelection(const GraphSelection& s)
{
    switch (s.kind) {
    case GraphSelection::Kind::Node: showNode(s.node); break;
    case GraphSelection::Kind::Tensor: showTensor(s.tensor); break;
    case GraphSelection::Kind::Block: showBlock(s.classId, s.instance); break;
    case GraphSelection::Kind::None: clear(); break;
    }
}

void InspectorView::showNode(NodeId id)
{
    if (!graph_ || id < 0 || size_t(id) >= graph_->nodes.size()) return clear();
    selection_ = GraphSelection::ofNode(id);
    const Node& n = graph_->node(id);
    begin(tr("%1 %2").arg(qs(n.opType), qs(n.name)));
    QStandardItem* node = section(tr("Node"));
    row(node, tr("Op"), qs(n.opType));
    row(node, tr("Domain"), n.domain.empty() ? QStringLiteral("ai.onnx") : qs(n.domain));
    row(node, tr("Name"), qs(n.name));
    row(node, tr("Scope"), qs(n.scope));
    row(node, tr("Block"), blockOf(id));
    if (n.subgraphs > 0)
        row(node, tr("Subgraphs"), tr("%1 (opaque, %2 nodes)").arg(n.subgraphs).arg(groupedCount(n.subgraphNodes)));
    if (!n.attrs.empty()) {
        QStandardItem* attrs = section(tr("Attributes"));
        for (const Attribute& a : n.attrs) row(attrs, qs(a.name), qs(a.toString()));
    }
    QStandardItem* ins = section(tr("Inputs"));
    int64_t params = 0;
    for (TensorId t : n.inputs) {
        if (t == kNoTensor) continue;
        row(ins, qs(graph_->tensor(t).name), tensorSummary(t));
        if (graph_->tensor(t).isParameter()) params += graph_->tensor(t).storedElements();
    }
    QStandardItem* outs = section(tr("Outputs"));
    for (TensorId t : n.outputs)
        if (t != kNoTensor) row(outs, qs(graph_->tensor(t).name), tensorSummary(t));
    const OpCost cost = nodeCost(*graph_, n);
    QStandardItem* c = section(tr("Cost"));
    row(c, tr("Parameters"), countWithShortForm(params));
    row(c, tr("FLOPs (forward)"), flopsText(cost.flops));
    row(c, tr("Bytes read"), bytesWithExact(int64_t(cost.bytesRead)));
    row(c, tr("Bytes written"), bytesWithExact(int64_t(cost.bytesWritten)));
    end();
}

void InspectorView::showTensor(TensorId id)
{
    if (!graph_ || id < 0 || size_t(id) >= graph_->tensors.size()) return clear();
    selection_ = GraphSelection::ofTensor(id);
    const Tensor& t = graph_->tensor(id);
    begin(tr("Tensor %1").arg(qs(t.name)));
    QStandardItem* s = section(tr("Tensor"));
    row(s, tr("Name"), qs(t.name));
    row(s, tr("Dtype"), QString::fromUtf8(dtypeName(t.dtype).data()));
    row(s, tr("Shape"), qs(t.shape.toString()));
    const QString kinds[] = {tr("activation"), tr("graph input"), tr("weight"), tr("constant")};
    row(s, tr("Kind"), kinds[int(t.kind)]);
    if (auto n = t.shape.numElements()) {
        row(s, tr("Elements"), countWithShortForm(*n));
        row(s, tr("Bytes"), bytesWithExact(*n * dtypeBytes(t.dtype)));
    }
    if (!t.externalLocation.empty())
        row(s, tr("External data"), t.externalPresent ? qs(t.externalLocation) : tr("%1 (absent)").arg(qs(t.externalLocation)));
    QStandardItem* flow = section(tr("Data flow"));
    row(flow, tr("Producer"), t.producer == kNoNode ? tr("none") : qs(graph_->node(t.producer).name + " (" + graph_->node(t.producer).opType + ")"));
    int listed = 0;
    for (NodeId c : t.consumers) {
        if (listed++ == kMaxListed) {
            row(flow, tr("Consumer"), tr("… and %1 more").arg(int(t.consumers.size()) - kMaxListed));
            break;
        }
        row(flow, tr("Consumer"), qs(graph_->node(c).name + " (" + graph_->node(c).opType + ")"));
    }
    end();
}

void InspectorView::showBlock(int classId, int instance)
{
    if (!graph_ || !folded_ || classId < 0 || size_t(classId) >= folded_->classes.size()) return clear();
    const BlockClass& c = folded_->classes[size_t(classId)];
    if (InstanceKey{classId, instance}.isSection()) return showSection(classId, -2 - instance); // a long run's section
    if (instance < 0 || size_t(instance) >= c.instances.size()) return clear();
    selection_ = GraphSelection::ofBlock(classId, instance);
    const BlockInstance& inst = c.instances[size_t(instance)];
    begin(tr("%1 · instance %2 of %3").arg(style_.name(classId)).arg(instance + 1).arg(c.instances.size()));
    QStandardItem* b = section(tr("Block"));
    row(b, tr("Class"), style_.name(classId));
    row(b, tr("Instances"), tr("×%1").arg(c.instances.size()));
    row(b, tr("Instance"), tr("%1 of %2").arg(instance + 1).arg(c.instances.size()));
    row(b, tr("Nodes per instance"), groupedCount(c.nodesPerInstance));
    row(b, tr("Parameters per instance"), countWithShortForm(c.paramsPerInstance));
    row(b, tr("Parameters, all instances"), countWithShortForm(c.paramsPerInstance * int64_t(c.instances.size())));
    // This instance's own scope (h.7 for the eighth layer); the class records only its first's.
    row(b, tr("Scope"), qs(commonScope(*graph_, inst.nodes)));
    double flops = 0;
    std::map<std::string, int> ops;
    for (NodeId n : inst.nodes) {
        flops += nodeCost(*graph_, graph_->node(n)).flops;
        ++ops[graph_->node(n).opType];
    }
    row(b, tr("FLOPs per instance (forward)"), flopsText(flops));
    QStandardItem* io = section(tr("Boundary"));
    for (TensorId t : inst.inputs) row(io, tr("in %1").arg(qs(graph_->tensor(t).name)), tensorSummary(t));
    for (TensorId t : inst.outputs) row(io, tr("out %1").arg(qs(graph_->tensor(t).name)), tensorSummary(t));
    QStandardItem* mix = section(tr("Ops"));
    for (const auto& [op, count] : ops) row(mix, qs(op), groupedCount(count));
    end();
}

// A section box: kSectionSize consecutive instances of a class drawn as one box (the graph's
// InstanceKey::section). What they share with the class, and which instances they are.
void InspectorView::showSection(int classId, int index)
{
    const BlockClass& c = folded_->classes[size_t(classId)];
    constexpr int kSectionSize = GraphPresentation::kSectionSize;
    const int64_t first = int64_t(index) * kSectionSize;
    if (index < 0 || first >= int64_t(c.instances.size())) return clear();
    const int64_t last = std::min<int64_t>(first + kSectionSize, int64_t(c.instances.size()));
    selection_ = GraphSelection::ofBlock(classId, -2 - index);
    begin(tr("%1 · instances %2–%3 of %4").arg(style_.name(classId)).arg(first + 1).arg(last).arg(c.instances.size()));
    QStandardItem* b = section(tr("Section"));
    row(b, tr("Class"), style_.name(classId));
    row(b, tr("Instances"), tr("%1–%2 of %3").arg(first + 1).arg(last).arg(c.instances.size()));
    row(b, tr("Nodes per instance"), groupedCount(c.nodesPerInstance));
    row(b, tr("Parameters per instance"), countWithShortForm(c.paramsPerInstance));
    row(b, tr("Parameters, this section"), countWithShortForm(c.paramsPerInstance * (last - first)));
    row(b, tr("First scope"), qs(commonScope(*graph_, c.instances[size_t(first)].nodes)));
    row(b, tr("Last scope"), qs(commonScope(*graph_, c.instances[size_t(last - 1)].nodes)));
    end();
}

} // namespace tapas
