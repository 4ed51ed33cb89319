#include "views/op_histogram_model.h"

#include <QLocale>

namespace tapas {

OpHistogramModel::OpHistogramModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void OpHistogramModel::setHistogram(const std::map<std::string, int64_t>& ops)
{
    beginResetModel();
    rows_.clear();
    total_ = 0;
    rows_.reserve(ops.size());
    for (const auto& [op, count] : ops) {
        rows_.push_back({QString::fromStdString(op), count});
        total_ += count;
    }
    endResetModel();
}

void OpHistogramModel::clear()
{
    beginResetModel();
    rows_.clear();
    total_ = 0;
    endResetModel();
}

int OpHistogramModel::rowOf(const QString& opType) const
{
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].opType == opType) return int(i);
    return -1;
}

QVariant OpHistogramModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const Row& r = rows_[size_t(index.row())];
    const double share = total_ > 0 ? 100.0 * double(r.count) / double(total_) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case OpType: return r.opType;
        case Count: return QLocale().toString(qlonglong(r.count));
        case Share: return QLocale().toString(share, 'f', 1) + QStringLiteral(" %");
        }
        break;
    case SortRole:
        switch (index.column()) {
        case OpType: return r.opType;
        case Count: return qlonglong(r.count);
        case Share: return share;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != OpType) return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return tr("%n node(s) of type %1", nullptr, int(r.count)).arg(r.opType);
    }
    return {};
}

QVariant OpHistogramModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::TextAlignmentRole)
        return int((section == OpType ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case OpType: return tr("Op type");
    case Count: return tr("Count");
    case Share: return tr("Share");
    }
    return {};
}

} // namespace tapas
