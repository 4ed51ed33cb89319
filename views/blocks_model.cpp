#include "views/blocks_model.h"

#include "views/number_text.h"

namespace tapas {

BlocksModel::BlocksModel(QObject* parent) : QAbstractTableModel(parent) {}

void BlocksModel::setFolded(std::shared_ptr<const FoldedGraph> folded)
{
    beginResetModel();
    folded_ = std::move(folded);
    rebuild();
    endResetModel();
}

void BlocksModel::clear()
{
    setFolded(nullptr);
}

void BlocksModel::setIncludeSingletons(bool include)
{
    if (include == includeSingletons_) return;
    beginResetModel();
    includeSingletons_ = include;
    rebuild();
    endResetModel();
}

void BlocksModel::rebuild()
{
    rows_.clear();
    style_ = folded_ ? BlockStyle(*folded_) : BlockStyle();
    if (!folded_) return;
    for (const BlockClass& c : folded_->classes)
        if (c.repeated() || includeSingletons_) rows_.push_back(c.id);
}

int BlocksModel::classIdAt(int row) const
{
    return row >= 0 && size_t(row) < rows_.size() ? rows_[size_t(row)] : -1;
}

int BlocksModel::rowOfClass(int classId) const
{
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i] == classId) return int(i);
    return -1;
}

void BlocksModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int BlocksModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(rows_.size());
}

int BlocksModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BlocksModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const int id = rows_[size_t(index.row())];
    const BlockClass& c = folded_->classes[size_t(id)];
    const int64_t count = int64_t(c.instances.size());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return style_.name(id);
        case Instances: return tr("×%1").arg(count);
        case NodesPerInstance: return groupedCount(c.nodesPerInstance);
        case ParamsPerInstance: return countWithShortForm(c.paramsPerInstance);
        case Scope: return QString::fromStdString(c.scope);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Name: return index.row(); // order of first appearance
        case Instances: return qlonglong(count);
        case NodesPerInstance: return c.nodesPerInstance;
        case ParamsPerInstance: return qlonglong(c.paramsPerInstance);
        case Scope: return QString::fromStdString(c.scope);
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == Name) return style_.color(id);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != Name && index.column() != Scope) return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return tr("%1: %2 instances of %3 nodes, %4 parameters each")
            .arg(style_.name(id))
            .arg(count)
            .arg(c.nodesPerInstance)
            .arg(groupedCount(c.paramsPerInstance));
    case ClassIdRole:
        return id;
    }
    return {};
}

QVariant BlocksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Block");
    case Instances: return tr("Instances");
    case NodesPerInstance: return tr("Nodes each");
    case ParamsPerInstance: return tr("Parameters each");
    case Scope: return tr("Scope");
    }
    return {};
}

} // namespace tapas
