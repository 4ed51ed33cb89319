#include "views/plan/plan_model.h"

#include "core/plan/plan_editor.h"
#include "core/shard/collective.h"
#include "core/util/human_units.h"
#include "views/graph/block_style.h"
#include "views/graph/sharding_style.h"

#include <QColor>
#include <QFont>

#include <algorithm>
#include <map>
#include <set>

namespace tapas {

namespace {

constexpr quintptr kEntryBase = quintptr(1) << 30; // internal ids of level-3 rows start here

QString timeText(double seconds)
{
    return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', seconds * 1e3 < 10 ? 3 : 1);
}

bool isListed(const Node& n)
{
    return n.opType != "Constant"; // not drawn in the graph either (graph_presentation.h)
}

bool realCollective(CollectiveKind k)
{
    return k != CollectiveKind::None && k != CollectiveKind::Slice;
}

} // namespace

PlanModel::PlanModel(QObject* parent) : QAbstractItemModel(parent) {}

PlanModel::~PlanModel() = default;

void PlanModel::setGraph(std::shared_ptr<const Graph> graph, std::shared_ptr<const FoldedGraph> folded)
{
    beginResetModel();
    editor_ = nullptr; // an editor is for one graph
    graph_ = std::move(graph);
    folded_ = std::move(folded);
    rebuild();
    recomputeFigures();
    endResetModel();
}

void PlanModel::setEditor(const PlanEditor* editor)
{
    editor_ = editor;
    refresh();
}

void PlanModel::rebuild()
{
    groups_.clear();
    entries_.clear();
    entryOfNode_.assign(graph_ ? graph_->nodes.size() : 0, -1);
    instanceOfNode_.assign(entryOfNode_.size(), 0);
    if (!graph_) return;
    const Graph& g = *graph_;
    auto addEntries = [&](int group, NodeId n, int position) {
        entries_.push_back({group, position, -1});
        const Node& node = g.node(n);
        for (size_t i = 0; i < node.inputs.size(); ++i)
            if (node.inputs[i] != kNoTensor && isSourceWeight(g, node.inputs[i]) &&
                g.tensor(node.inputs[i]).isParameter())
                entries_.push_back({group, position, int(i)});
    };
    if (folded_) {
        const BlockStyle style(*folded_);
        for (const BlockClass& c : folded_->classes) {
            Group grp;
            grp.classId = c.id;
            grp.instances = int(c.instances.size());
            grp.name = style.name(c.id);
            if (!c.repeated() && !c.scope.empty()) grp.name += QStringLiteral(" · ") + QString::fromStdString(c.scope);
            grp.first = int(entries_.size());
            const int group = int(groups_.size());
            const BlockInstance& first = c.instances.front();
            for (size_t p = 0; p < first.nodes.size(); ++p)
                if (isListed(g.node(first.nodes[p]))) addEntries(group, first.nodes[p], int(p));
            grp.count = int(entries_.size()) - grp.first;
            if (grp.count == 0) continue; // only Constants
            groups_.push_back(grp);
            for (size_t inst = 0; inst < c.instances.size(); ++inst)
                for (size_t p = 0; p < c.instances[inst].nodes.size(); ++p) {
                    const NodeId n = c.instances[inst].nodes[p];
                    instanceOfNode_[size_t(n)] = int(inst);
                }
        }
        for (size_t e = 0; e < entries_.size(); ++e) {
            if (entries_[e].weightInput >= 0) continue;
            const Group& grp = groups_[size_t(entries_[e].group)];
            const BlockClass& c = folded_->classes[size_t(grp.classId)];
            for (const BlockInstance& inst : c.instances) entryOfNode_[size_t(inst.nodes[size_t(entries_[e].position)])] = int(e);
        }
    } else {
        Group grp;
        grp.name = tr("All ops");
        grp.first = 0;
        for (NodeId n = 0; n < NodeId(g.nodes.size()); ++n)
            if (isListed(g.node(n))) {
                entryOfNode_[size_t(n)] = int(entries_.size());
                addEntries(0, n, n);
            }
        grp.count = int(entries_.size());
        if (grp.count > 0) groups_.push_back(grp);
    }
}

void PlanModel::recomputeFigures()
{
    figures_.assign(graph_ ? graph_->nodes.size() : 0, {});
    if (!graph_ || !editor_) return;
    const Graph& g = *graph_;
    const ShardingPlan& plan = editor_->plan();
    const CostModel& model = editor_->model();
    const int tp = plan.mesh.tp;
    for (const Reshard& r : plan.reshards) {
        if (r.consumer == kNoNode || size_t(r.consumer) >= figures_.size()) continue;
        NodeFigures& f = figures_[size_t(r.consumer)];
        const double full = model.replicaBytes(r.tensor);
        const double fwd = realCollective(r.forward) ? collectiveWireBytes(r.forward, full, tp) : 0;
        const double bwd = realCollective(r.backward) ? collectiveWireBytes(r.backward, full, tp) : 0;
        if (!realCollective(r.forward) && !realCollective(r.backward)) continue;
        QString kinds;
        if (realCollective(r.forward)) kinds = QString::fromUtf8(collectiveName(r.forward).data());
        if (realCollective(r.backward))
            kinds += (kinds.isEmpty() ? QString() : QStringLiteral(" + ")) +
                     tr("%1 (backward)").arg(QString::fromUtf8(collectiveName(r.backward).data()));
        const QString one = tr("%1 of %2, %3").arg(kinds, QString::fromStdString(g.tensor(r.tensor).name),
                                                   QString::fromStdString(humanBytes(fwd + bwd)));
        f.collectives += (f.collectives.isEmpty() ? QString() : QStringLiteral("; ")) + one;
        f.commBytes += fwd + bwd;
        f.hasCollective = true;
    }
}

void PlanModel::refresh()
{
    recomputeFigures();
    if (groups_.empty()) return;
    // Every row of every level: the figures of all of them may have moved.
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    for (int grp = 0; grp < int(groups_.size()); ++grp) {
        const QModelIndex gi = index(grp, 0);
        const int rows = rowCount(gi);
        if (rows == 0) continue;
        Q_EMIT dataChanged(index(0, 0, gi), index(rows - 1, ColumnCount - 1, gi));
        for (int r = 0; r < rows; ++r) {
            const QModelIndex ei = index(r, 0, gi);
            const int inst = rowCount(ei);
            if (inst > 0) Q_EMIT dataChanged(index(0, 0, ei), index(inst - 1, ColumnCount - 1, ei));
        }
    }
}

void PlanModel::retranslate()
{
    if (folded_ || graph_) {
        beginResetModel();
        rebuild();
        recomputeFigures();
        endResetModel();
    }
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

NodeId PlanModel::nodeOf(const Entry& e, int instance) const
{
    if (!folded_) return NodeId(e.position);
    const BlockClass& c = folded_->classes[size_t(groups_[size_t(e.group)].classId)];
    return c.instances[size_t(std::max(instance, 0))].nodes[size_t(e.position)];
}

TensorId PlanModel::weightOf(const Entry& e, int instance) const
{
    return e.weightInput < 0 ? kNoTensor : graph_->node(nodeOf(e, instance)).input(size_t(e.weightInput));
}

int PlanModel::instanceCount(const Entry& e) const
{
    return groups_[size_t(e.group)].instances;
}

QModelIndex PlanModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount) return {};
    if (!parent.isValid()) return row < int(groups_.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
    const quintptr pid = parent.internalId();
    if (pid == 0) { // parent is a group: an entry row
        const Group& grp = groups_[size_t(parent.row())];
        return row < grp.count ? createIndex(row, column, quintptr(parent.row()) + 1) : QModelIndex();
    }
    if (pid < kEntryBase) { // parent is an entry: an instance row
        const int e = groups_[size_t(pid - 1)].first + parent.row();
        return row < instanceCount(entries_[size_t(e)]) ? createIndex(row, column, kEntryBase + quintptr(e))
                                                        : QModelIndex();
    }
    return {};
}

QModelIndex PlanModel::parent(const QModelIndex& child) const
{
    if (!child.isValid()) return {};
    const quintptr id = child.internalId();
    if (id == 0) return {};
    if (id < kEntryBase) return createIndex(int(id - 1), 0, quintptr(0));
    const int e = int(id - kEntryBase);
    const int grp = entries_[size_t(e)].group;
    return createIndex(e - groups_[size_t(grp)].first, 0, quintptr(grp) + 1);
}

int PlanModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid()) return int(groups_.size());
    if (parent.column() != 0) return 0;
    const quintptr id = parent.internalId();
    if (id == 0) return groups_[size_t(parent.row())].count;
    if (id < kEntryBase) {
        const int n = instanceCount(entries_[size_t(groups_[size_t(id - 1)].first + parent.row())]);
        return n > 1 ? n : 0;
    }
    return 0;
}

int PlanModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QModelIndex PlanModel::indexOfNode(NodeId n, int column) const
{
    if (n < 0 || size_t(n) >= entryOfNode_.size() || entryOfNode_[size_t(n)] < 0) return {};
    const int e = entryOfNode_[size_t(n)];
    const Entry& entry = entries_[size_t(e)];
    const QModelIndex entryIndex = createIndex(e - groups_[size_t(entry.group)].first, column, quintptr(entry.group) + 1);
    if (instanceCount(entry) <= 1) return entryIndex;
    return createIndex(instanceOfNode_[size_t(n)], column, kEntryBase + quintptr(e));
}

NodeId PlanModel::nodeAt(const QModelIndex& index) const
{
    return index.isValid() ? NodeId(data(index, NodeRole).toInt()) : kNoNode;
}

QStringList PlanModel::opTypes() const
{
    std::set<QString> types;
    for (const Entry& e : entries_)
        if (e.weightInput < 0) types.insert(QString::fromStdString(graph_->node(nodeOf(e, 0)).opType));
    return QStringList(types.begin(), types.end());
}

std::vector<std::pair<int, QString>> PlanModel::classNames() const
{
    std::vector<std::pair<int, QString>> out;
    for (const Group& g : groups_) out.emplace_back(g.classId, g.name);
    return out;
}

QVariant PlanModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !graph_) return {};
    const quintptr id = index.internalId();
    if (id == 0) return groupData(index.row(), index.column(), role);
    if (id < kEntryBase) return entryData(groups_[size_t(id - 1)].first + index.row(), -1, index.column(), role);
    return entryData(int(id - kEntryBase), index.row(), index.column(), role);
}

double PlanModel::figure(NodeId n, int column) const
{
    if (!editor_) return 0;
    const CostReport& rep = editor_->report();
    if (n < 0 || size_t(n) >= rep.perNode.size()) return 0;
    const CostTerms& t = rep.perNode[size_t(n)];
    switch (column) {
    case Compute: return t.compute;
    case Communication: return t.tpComm + t.dpComm;
    case Memory: return t.memory();
    default: return 0;
    }
}

QVariant PlanModel::groupData(int group, int column, int role) const
{
    const Group& grp = groups_[size_t(group)];
    const bool hasPlan = editor_ != nullptr;
    auto sum = [&](int col) {
        double s = 0;
        for (int e = grp.first; e < grp.first + grp.count; ++e) {
            if (entries_[size_t(e)].weightInput >= 0) continue;
            for (int i = 0; i < grp.instances; ++i) s += figure(nodeOf(entries_[size_t(e)], i), col);
        }
        return s;
    };
    auto collectiveCount = [&] {
        int k = 0;
        for (int e = grp.first; e < grp.first + grp.count; ++e)
            if (entries_[size_t(e)].weightInput < 0)
                for (int i = 0; i < grp.instances; ++i) k += figures_[size_t(nodeOf(entries_[size_t(e)], i))].hasCollective;
        return k;
    };
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        switch (column) {
        case Name:
            return grp.instances > 1 ? tr("%1 ×%2").arg(grp.name).arg(grp.instances) : grp.name;
        case OpType: return role == SortRole ? QVariant(grp.count) : QVariant(tr("%n row(s)", nullptr, grp.count));
        case Collectives: {
            if (!hasPlan) return {};
            const int k = collectiveCount();
            return role == SortRole ? QVariant(k) : QVariant(k ? tr("%n op(s) with collectives", nullptr, k) : QString());
        }
        case Compute:
        case Communication:
            if (!hasPlan) return {};
            return role == SortRole ? QVariant(sum(column)) : QVariant(timeText(sum(column)));
        case Memory:
            if (!hasPlan) return {};
            return role == SortRole ? QVariant(sum(column)) : QVariant(QString::fromStdString(humanBytes(sum(column))));
        default: return role == SortRole ? QVariant(QString()) : QVariant();
        }
    case Qt::ToolTipRole:
        if (grp.instances > 1)
            return tr("%1: %n identical instance(s); each row below is one op shared by all of them, "
                      "its figures summed over the instances.", nullptr, grp.instances).arg(grp.name);
        return grp.name;
    case Qt::FontRole: {
        QFont f;
        f.setBold(true);
        return f;
    }
    case NodeRole: return int(kNoNode);
    case TensorRole: return int(kNoTensor);
    case ClassRole: return grp.classId;
    case LevelRole: return 1;
    case HasCollectiveRole: return hasPlan && collectiveCount() > 0;
    case OverriddenRole: return false;
    default: return {};
    }
}

QVariant PlanModel::entryData(int entryIndex, int instance, int column, int role) const
{
    const Entry& e = entries_[size_t(entryIndex)];
    const Group& grp = groups_[size_t(e.group)];
    const NodeId n = nodeOf(e, instance);
    const Node& node = graph_->node(n);
    const bool weight = e.weightInput >= 0;
    const bool hasPlan = editor_ != nullptr;
    // A position row stands for every instance; an instance row for one.
    const int firstInst = instance < 0 ? 0 : instance;
    const int lastInst = instance < 0 ? grp.instances - 1 : instance;
    int overridden = 0;
    if (hasPlan)
        for (int i = firstInst; i <= lastInst; ++i) overridden += editor_->isOverridden(nodeOf(e, i));
    auto sum = [&](int col) {
        double s = 0;
        for (int i = firstInst; i <= lastInst; ++i) s += figure(nodeOf(e, i), col);
        return s;
    };
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        switch (column) {
        case Name:
            if (weight) return QString::fromStdString(graph_->tensor(weightOf(e, instance)).name);
            if (instance >= 0 && grp.instances > 1)
                return tr("%1 (instance %2)").arg(QString::fromStdString(node.name.empty() ? node.opType : node.name))
                    .arg(instance + 1);
            return QString::fromStdString(node.name.empty() ? "#" + std::to_string(n) : node.name);
        case OpType:
            return weight ? tr("weight (%1)").arg(QString::fromStdString(node.opType))
                          : QString::fromStdString(node.opType);
        case Sharding: {
            if (!hasPlan) return {};
            QString text = shardingText(n, e.weightInput);
            if (instance < 0 && grp.instances > 1) {
                const std::string& name = editor_->plan().nodes[size_t(n)].name;
                int differ = 0;
                for (int i = 1; i < grp.instances; ++i) differ += editor_->plan().nodes[size_t(nodeOf(e, i))].name != name;
                if (differ) text += tr(" (%1 of %2 instances differ)").arg(differ).arg(grp.instances);
            }
            return text;
        }
        case Collectives:
            if (!hasPlan || weight) return role == SortRole ? QVariant(0.0) : QVariant();
            if (role == SortRole) {
                double b = 0;
                for (int i = firstInst; i <= lastInst; ++i) b += figures_[size_t(nodeOf(e, i))].commBytes;
                return b;
            }
            return figures_[size_t(n)].collectives;
        case Compute:
        case Communication:
            if (!hasPlan || weight) return role == SortRole ? QVariant(0.0) : QVariant();
            return role == SortRole ? QVariant(sum(column)) : QVariant(timeText(sum(column)));
        case Memory:
            if (!hasPlan || weight) return role == SortRole ? QVariant(0.0) : QVariant();
            return role == SortRole ? QVariant(sum(column)) : QVariant(QString::fromStdString(humanBytes(sum(column))));
        default: return {};
        }
    case Qt::ToolTipRole: {
        QString tip = tooltip(n, e.weightInput);
        if (overridden)
            tip += QStringLiteral("\n") +
                   (instance < 0 && grp.instances > 1
                        ? tr("Overridden by you in %1 of %2 instances.").arg(overridden).arg(grp.instances)
                        : tr("Overridden by you: the search's choice was replaced."));
        return tip;
    }
    case Qt::FontRole:
        if (overridden && !weight) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::DecorationRole:
        if (column == Name && overridden && !weight) return QColor(0xD5, 0x5E, 0x00); // the override mark
        if (column == Sharding && hasPlan && !weight)
            return ShardingStyle::border(ShardingStyle::family(*graph_, n, editor_->plan().nodes[size_t(n)]));
        return {};
    case Qt::TextAlignmentRole:
        return column >= Compute ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case NodeRole: return int(n);
    case TensorRole: return int(weightOf(e, instance));
    case ClassRole: return grp.classId;
    case LevelRole: return instance < 0 ? 2 : 3;
    case OpTypeRole: return QString::fromStdString(node.opType);
    case HasCollectiveRole:
        if (!hasPlan || weight) return false;
        for (int i = firstInst; i <= lastInst; ++i)
            if (figures_[size_t(nodeOf(e, i))].hasCollective) return true;
        return false;
    case OverriddenRole: return overridden > 0;
    case FamilyRole:
        return hasPlan ? int(ShardingStyle::family(*graph_, n, editor_->plan().nodes[size_t(n)])) : -1;
    default: return {};
    }
}

QString PlanModel::shardingText(NodeId n, int weightInput) const
{
    const Graph& g = *graph_;
    const ShardingPlan& plan = editor_->plan();
    const OpStrategy& s = plan.nodes[size_t(n)];
    const Node& node = g.node(n);
    const bool dp = plan.mesh.dp > 1;
    auto spec = [&](TensorId t, const TensorLayout& l, bool activation) {
        return QString::fromStdString(toShardingSpec(l, g.tensor(t).shape.rank(), activation && dp).toString());
    };
    if (weightInput >= 0) {
        const TensorId w = node.input(size_t(weightInput));
        const TensorLayout l = size_t(weightInput) < s.inputs.size() ? s.inputs[size_t(weightInput)] : TensorLayout{};
        return spec(w, l, false);
    }
    QString text = ShardingStyle::strategyText(s.name) + QLatin1Char(':');
    int weights = 0;
    for (size_t i = 0; i < node.inputs.size() && i < s.inputs.size(); ++i) {
        const TensorId t = node.inputs[i];
        if (t == kNoTensor || !isSourceWeight(g, t) || !g.tensor(t).isParameter()) continue;
        ++weights;
        text += (weights > 1 ? QStringLiteral(", ") : QStringLiteral(" ")) +
                (weights == 1 ? QStringLiteral("W ") : QStringLiteral("W%1 ").arg(weights)) + spec(t, s.inputs[i], false);
    }
    if (node.output(0) != kNoTensor && !s.outputs.empty())
        text += QStringLiteral(" → out ") + spec(node.output(0), s.outputs[0], true);
    return text;
}

QString PlanModel::tooltip(NodeId n, int weightInput) const
{
    const Graph& g = *graph_;
    const Node& node = g.node(n);
    QString tip = weightInput >= 0
        ? tr("Weight %1, read by %2").arg(QString::fromStdString(g.tensor(node.input(size_t(weightInput))).name),
                                          QString::fromStdString(node.name))
        : tr("%1 (%2)").arg(QString::fromStdString(node.name), QString::fromStdString(node.opType));
    if (!editor_) return tip;
    const OpStrategy& s = editor_->plan().nodes[size_t(n)];
    tip += QStringLiteral("\n") + tr("Strategy: %1 (%2)")
                                      .arg(ShardingStyle::strategyText(s.name),
                                           ShardingStyle::name(ShardingStyle::family(g, n, s)));
    const bool dp = editor_->plan().mesh.dp > 1;
    for (size_t i = 0; i < node.inputs.size() && i < s.inputs.size(); ++i) {
        const TensorId t = node.inputs[i];
        if (t == kNoTensor) continue;
        const bool act = !isSourceWeight(g, t);
        tip += QStringLiteral("\n  ") + tr("in %1 %2: %3")
                                           .arg(i)
                                           .arg(QString::fromStdString(g.tensor(t).name),
                                                QString::fromStdString(
                                                    toShardingSpec(s.inputs[i], g.tensor(t).shape.rank(), act && dp).toString()));
    }
    for (size_t o = 0; o < node.outputs.size() && o < s.outputs.size(); ++o) {
        const TensorId t = node.outputs[o];
        if (t == kNoTensor) continue;
        tip += QStringLiteral("\n  ") + tr("out %1 %2: %3")
                                           .arg(o)
                                           .arg(QString::fromStdString(g.tensor(t).name),
                                                QString::fromStdString(
                                                    toShardingSpec(s.outputs[o], g.tensor(t).shape.rank(), dp).toString()));
    }
    if (!figures_[size_t(n)].collectives.isEmpty())
        tip += QStringLiteral("\n") + tr("Collectives: %1").arg(figures_[size_t(n)].collectives);
    return tip;
}

QVariant PlanModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Name: return tr("Name");
    case OpType: return tr("Op");
    case Sharding: return tr("Sharding");
    case Collectives: return tr("Collectives");
    case Compute: return tr("Compute");
    case Communication: return tr("Communication");
    case Memory: return tr("Memory");
    default: return {};
    }
}

} // namespace tapas
