#include "views/runs/rank_table_model.h"

#include "core/util/human_units.h"
#include "views/runs/run_texts.h"

#include <cmath>

namespace tapas {

namespace {

const char* valueKey(int column)
{
    switch (column) {
    case RankTableModel::StepTime: return "step_time";
    case RankTableModel::Compute: return "compute_time";
    case RankTableModel::Comm: return "comm_time";
    case RankTableModel::DataWait: return "data_wait";
    case RankTableModel::Memory: return "memory_bytes";
    default: return nullptr;
    }
}

} // namespace

RankTableModel::RankTableModel(QObject* parent) : FlatTableModel(ColumnCount, parent) {}

void RankTableModel::setRows(const std::vector<RankRow>& rows)
{
    if (rows.size() == rows_.size()) {
        rows_ = rows;
        if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(int(rows_.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    rows_ = rows;
    endResetModel();
}

void RankTableModel::clear()
{
    setRows({});
}

bool RankTableModel::hasValues(int column) const
{
    const char* key = valueKey(column);
    if (!key) return !rows_.empty();
    for (const RankRow& r : rows_)
        if (r.values.count(key)) return true;
    return false;
}

QVariant RankTableModel::data(const QModelIndex& index, int role) const
{
    if (!isValidCell(index)) return {};
    const RankRow& r = rows_[size_t(index.row())];
    const char* key = valueKey(index.column());
    double v = std::nan("");
    if (key) {
        const auto it = r.values.find(key);
        if (it != r.values.end()) v = it->second;
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Rank: return r.rank;
        case Host: return r.host;
        case Step: return qlonglong(r.step);
        default: return v;
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Host ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Rank: return r.rank;
    case Host: return r.host;
    case Step: return r.step < 0 ? QString() : QString::number(r.step);
    case Memory: return std::isfinite(v) ? QString::fromStdString(humanBytes(v)) : QString();
    default: return std::isfinite(v) ? RunTexts::seconds(v) : QString();
    }
}

QVariant RankTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Rank: return tr("Rank");
    case Host: return tr("Host");
    case Step: return tr("Step");
    case StepTime: return tr("Step time");
    case Compute: return tr("Compute");
    case Comm: return tr("Communication");
    case DataWait: return tr("Data wait");
    case Memory: return tr("Memory");
    }
    return {};
}

} // namespace tapas
