#include "views/blocks_model.h"

#include "views/number_text.h"

#include <algorithm>
#include <iterator>

namespace tapas {

BlocksModel::BlocksModel(QObject* parent) : QAbstractItemModel(parent) {}

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

bool BlocksModel::listed(int treeClass) const
{
    return includeSingletons_ || holdsRepeat_[size_t(treeClass)];
}

void BlocksModel::addTreeItems(int treeClass, int parentItem)
{
    const FoldTree& tree = folded_->tree;
    for (int child : tree.classes[size_t(treeClass)].children) {
        if (!listed(child)) continue;
        const FoldTreeClass& cls = tree.classes[size_t(child)];
        if (cls.level == FoldLevel::SubBlock) ordinal_[size_t(child)] = ++partsShown_[size_t(treeClass)];
        else if (cls.level == FoldLevel::Block) ordinal_[size_t(child)] = cls.shapesDiffer ? ++sharedShown_ : 0;
        else ordinal_[size_t(child)] = ++levelShown_[int(cls.level)];
        Item item;
        item.parent = parentItem;
        item.treeClass = child;
        item.blockClass = tree.classes[size_t(child)].blockClass;
        std::vector<int>& siblings = parentItem < 0 ? top_ : items_[size_t(parentItem)].children;
        item.row = int(siblings.size());
        const int id = int(items_.size());
        items_.push_back(std::move(item));
        (parentItem < 0 ? top_ : items_[size_t(parentItem)].children).push_back(id);
        addTreeItems(child, id);
    }
}

void BlocksModel::rebuild()
{
    items_.clear();
    top_.clear();
    holdsRepeat_.clear();
    ordinal_.clear();
    style_ = folded_ ? BlockStyle(*folded_) : BlockStyle();
    if (!folded_) return;
    const FoldTree& tree = folded_->tree;
    if (tree.empty()) {
        for (const BlockClass& c : folded_->classes) {
            if (!c.repeated() && !includeSingletons_) continue;
            Item item;
            item.row = int(top_.size());
            item.blockClass = c.id;
            top_.push_back(int(items_.size()));
            items_.push_back(item);
        }
        return;
    }
    // Children are created after their parents, so one backward pass marks every ancestor.
    holdsRepeat_.assign(tree.classes.size(), 0);
    for (size_t c = tree.classes.size(); c-- > 0;) {
        const FoldTreeClass& cls = tree.classes[c];
        if (cls.repeated()) holdsRepeat_[c] = 1;
        if (holdsRepeat_[c] && cls.parent >= 0) holdsRepeat_[size_t(cls.parent)] = 1;
    }
    ordinal_.assign(tree.classes.size(), 0);
    partsShown_.assign(tree.classes.size(), 0);
    std::fill(std::begin(levelShown_), std::end(levelShown_), 0);
    sharedShown_ = 0;
    addTreeItems(0, -1);
}

int BlocksModel::itemOf(const QModelIndex& index) const
{
    return index.isValid() ? int(index.internalId()) : -1;
}

int BlocksModel::classIdAt(int row) const
{
    return row >= 0 && size_t(row) < top_.size() ? items_[size_t(top_[size_t(row)])].blockClass : -1;
}

int BlocksModel::rowOfClass(int classId) const
{
    for (size_t i = 0; i < top_.size(); ++i)
        if (items_[size_t(top_[i])].blockClass == classId) return int(i);
    return -1;
}

int BlocksModel::classIdAt(const QModelIndex& index) const
{
    const int item = itemOf(index);
    return item >= 0 && size_t(item) < items_.size() ? items_[size_t(item)].blockClass : -1;
}

QModelIndex BlocksModel::indexOfClass(int classId) const
{
    for (size_t i = 0; i < items_.size(); ++i)
        if (items_[i].blockClass == classId && classId >= 0) return createIndex(items_[i].row, 0, quintptr(i));
    return {};
}

void BlocksModel::retranslate()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    for (size_t i = 0; i < items_.size(); ++i)
        Q_EMIT dataChanged(createIndex(items_[i].row, 0, quintptr(i)), createIndex(items_[i].row, ColumnCount - 1, quintptr(i)));
}

QModelIndex BlocksModel::index(int row, int column, const QModelIndex& parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0) return {};
    const int p = itemOf(parent);
    const std::vector<int>& rows = p < 0 ? top_ : items_[size_t(p)].children;
    if (size_t(row) >= rows.size()) return {};
    return createIndex(row, column, quintptr(rows[size_t(row)]));
}

QModelIndex BlocksModel::parent(const QModelIndex& child) const
{
    const int item = itemOf(child);
    if (item < 0) return {};
    const int p = items_[size_t(item)].parent;
    return p < 0 ? QModelIndex() : createIndex(items_[size_t(p)].row, 0, quintptr(p));
}

int BlocksModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0) return 0;
    const int p = itemOf(parent);
    return int(p < 0 ? top_.size() : items_[size_t(p)].children.size());
}

int BlocksModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

QString BlocksModel::nameOf(const Item& item) const
{
    if (item.treeClass >= 0) {
        const FoldTreeClass& c = folded_->tree.classes[size_t(item.treeClass)];
        // One module applied to inputs of other shapes: several block classes, one repeat.
        if (c.level == FoldLevel::Block && c.shapesDiffer) return tr("Shared-weight block %1").arg(ordinal_[size_t(item.treeClass)]);
    }
    if (item.treeClass < 0 || folded_->tree.classes[size_t(item.treeClass)].level == FoldLevel::Block)
        return style_.name(item.blockClass);
    const int n = ordinal_[size_t(item.treeClass)];
    switch (folded_->tree.classes[size_t(item.treeClass)].level) {
    case FoldLevel::Stage: return tr("Stage %1").arg(n);
    case FoldLevel::Group: return tr("Group %1").arg(n);
    case FoldLevel::SubBlock: return tr("Part %1").arg(n);
    default: return tr("Model");
    }
}

QVariant BlocksModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item& item = items_[size_t(itemOf(index))];
    int64_t count = 0, params = 0;
    int nodes = 0;
    std::string scope;
    int level = int(FoldLevel::Block);
    int64_t total = 0;
    if (item.treeClass >= 0) {
        const FoldTreeClass& c = folded_->tree.classes[size_t(item.treeClass)];
        // A nested class counts per occurrence of its parent (a Swin pair's 2 attention parts,
        // not the 6 of all 3 pairs): every parent occurrence holds the same children.
        total = count = int64_t(c.instances.size());
        if (c.parent >= 0) count /= std::max<int64_t>(1, int64_t(folded_->tree.classes[size_t(c.parent)].instances.size()));
        nodes = c.nodesPerInstance;
        params = c.paramsPerInstance;
        scope = c.scope;
        level = int(c.level);
    } else {
        const BlockClass& c = folded_->classes[size_t(item.blockClass)];
        total = count = int64_t(c.instances.size());
        nodes = c.nodesPerInstance;
        params = c.paramsPerInstance;
        scope = c.scope;
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: return nameOf(item);
        case Instances: return tr("×%1").arg(count);
        case NodesPerInstance: return groupedCount(nodes);
        case ParamsPerInstance: return countWithShortForm(params);
        case Scope: return QString::fromStdString(scope);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Name: return index.row(); // order of first appearance
        case Instances: return qlonglong(count);
        case NodesPerInstance: return nodes;
        case ParamsPerInstance: return qlonglong(params);
        case Scope: return QString::fromStdString(scope);
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == Name) return item.blockClass >= 0 ? style_.color(item.blockClass) : BlockStyle::neutralColor();
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != Name && index.column() != Scope) return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return tr("%1: %2 instances of %3 nodes, %4 parameters each")
            .arg(nameOf(item))
            .arg(total)
            .arg(nodes)
            .arg(groupedCount(params));
    case ClassIdRole: return item.blockClass;
    case TreeClassIdRole: return item.treeClass;
    case LevelRole: return level;
    }
    return {};
}

QVariant BlocksModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractItemModel::headerData(section, orientation, role);
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
